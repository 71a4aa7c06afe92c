"""Announcements, their reaction counters, and users' dismissals and reactions.

Items (docs/data-model.md): the announcement `ANNOUNCEMENTS / ANN#<id20>` (type
`announcement`), one counter per reaction name `ANNOUNCEMENTS / ANN#<id20>#R#<name>` (type
`announcement_reactions`, kept by the counters worker), a dismissal `ACCT#<user> /
ANN#<id20>#READ` and a reaction `ACCT#<user> / ANN#<id20>#R#<name>` (type
`announcement_reaction`, the edge the counters count).
"""

from __future__ import annotations

from typing import Any

from stratus.core.errors import NotFound, Unprocessable
from stratus.repo import base, keys

ANNOUNCEMENT = "announcement"
REACTIONS = "announcement_reactions"
REACTION = "announcement_reaction"
DUPLICATE = "Duplicate record"


def everything() -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Every announcement (oldest id first) and each one's reaction counters: one Query."""
    announcements: list[dict[str, Any]] = []
    reactions: dict[str, list[dict[str, Any]]] = {}
    for item in base.query(keys.ANNOUNCEMENTS_PK, sk_prefix=keys.ANNOUNCEMENT_PREFIX):
        if item.get("type") == ANNOUNCEMENT:
            announcements.append(base.record(item))
        elif item.get("type") == REACTIONS:
            reactions.setdefault(str(item["announcement_id"]), []).append(base.record(item))
    return announcements, reactions


def get(announcement_id: str, *, consistent: bool = False) -> dict[str, Any] | None:
    return base.record(base.get(keys.announcement(announcement_id), consistent=consistent))


def with_reactions(announcement_id: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """One announcement and its reaction counters (one Query of its own key prefix)."""
    found = list(base.records(base.query(keys.ANNOUNCEMENTS_PK,
                                         sk_prefix=keys.announcement(announcement_id)["SK"])))
    item = next((i for i in found if i.get("type") == ANNOUNCEMENT), None)
    return item, [i for i in found if i.get("type") == REACTIONS]


def _item(announcement: dict[str, Any]) -> dict[str, Any]:
    """The item of an announcement record (one as read included: its type is the item's own,
    whatever it carries)."""
    fields = {k: v for k, v in announcement.items() if k != "type"}
    return {**keys.announcement(announcement["id"]), "type": ANNOUNCEMENT, **fields}


def create_op(announcement: dict[str, Any]) -> base.Op:
    return base.put_new(_item(announcement))


def replace_op(announcement: dict[str, Any], version: int) -> base.Op:
    """Write the announcement anew if nobody changed it since `version` was read."""
    return base.Op("Put", item=_item(announcement), condition="version = :v",
                   vals={":v": version})


def delete_ops(announcement_id: str, version: int) -> list[base.Op]:
    found = base.query(keys.ANNOUNCEMENTS_PK, sk_prefix=keys.announcement(announcement_id)["SK"],
                       projection="PK, SK")
    ops = [base.Op("Delete", key=keys.announcement(announcement_id), condition="version = :v",
                   vals={":v": version})]
    ops += [base.Op("Delete", key=keys.key(i["PK"], i["SK"])) for i in found
            if i["SK"] != keys.announcement(announcement_id)["SK"]]
    return ops


def viewer_marks(account_id: str) -> tuple[set[str], dict[str, dict[str, dict[str, Any]]]]:
    """A user's dismissed announcement ids and reactions ({announcement: {name: edge}}): one
    Query of the user's `ANN#` items."""
    dismissed: set[str] = set()
    reacted: dict[str, dict[str, dict[str, Any]]] = {}
    for found in base.query(keys.account_pk(account_id), sk_prefix=keys.ANNOUNCEMENT_PREFIX):
        announcement_id, kind, name = keys.announcement_parts(found["SK"])
        if kind == "READ":
            dismissed.add(announcement_id)
        elif kind == "R" and name:
            reacted.setdefault(announcement_id, {})[name] = base.record(found)
    return dismissed, reacted


def dismiss(account_id: str, announcement_id: str, at: str) -> None:
    """Mark an announcement read for a user (again: nothing changes)."""
    base.put({**keys.announcement_dismissal(account_id, announcement_id),
              "type": "announcement_dismissal", "account_id": account_id,
              "announcement_id": announcement_id, "created_at": at},
             condition="attribute_not_exists(PK)")


def add_reaction(account_id: str, announcement_id: str, name: str, reaction_id: str,
                 custom_emoji: str | None, at: str) -> None:
    """The user's reaction (one item of their own: reactors never contend). A second one of
    the same name is Mastodon's unique-index failure, 422 `Duplicate record`."""
    base.transact([
        base.put_new({**keys.announcement_reaction(account_id, announcement_id, name),
                      "type": REACTION, "id": reaction_id, "account_id": account_id,
                      "announcement_id": announcement_id, "name": name,
                      **({"custom_emoji": custom_emoji} if custom_emoji else {}),
                      "created_at": at},
                     on_conflict=Unprocessable(DUPLICATE)),
        # The announcement must still be there (and published) as the reaction is written.
        base.Op("ConditionCheck", key=keys.announcement(announcement_id),
                condition="published = :t", vals={":t": True},
                on_conflict=NotFound()),
    ])


def remove_reaction(account_id: str, announcement_id: str, name: str) -> bool:
    """Take a user's reaction back; False when there was none."""
    return base.delete(keys.announcement_reaction(account_id, announcement_id, name),
                       returning=True) is not None
