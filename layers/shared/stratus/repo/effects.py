"""Derived records written by stream consumers: notifications, and the cascade that removes
what points at a deleted status. Every write is conditional or a delete, so a redelivered job
changes nothing. (Hashtag index entries are repo/tags.py's.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from stratus.core.paging import Budget
from stratus.repo import base, keys


def notify(recipient_id: str, kind: str, from_id: str, subject_id: str,
           notification: dict[str, Any], *, group_key: str | None = None,
           filtered: bool = False, request_status_id: str | None = None) -> bool:
    """Create a notification once per (recipient, type, actor, subject); False if it exists.

    Where it is listed: a grouped one among its group's members (its group's head, kept by the
    counters worker, stands for it in the grouped listing); a filtered one under its sender,
    and a filtered mention also opens or refreshes the sender's notification request; any other
    one in the grouped listing itself."""
    status_id = notification.get("status_id")
    notification_id = notification["id"]
    if filtered:
        listing = {"filtered": True,
                   **keys.filtered_notification_keys(recipient_id, from_id, notification_id)}
    elif group_key:
        listing = {"group_key": group_key,
                   **keys.notification_member_keys(recipient_id, group_key, notification_id)}
    else:
        listing = keys.notification_head_keys(recipient_id, notification_id)
    ops = [
        base.put_new({**keys.notification_once(recipient_id, kind, from_id, subject_id),
                      "type": "notification_key", "notification_id": notification_id}),
        base.put_new({**keys.notification(recipient_id, notification_id),
                      "type": "notification", "account_id": recipient_id,
                      "notification_type": kind, "from_account_id": from_id,
                      "subject_id": subject_id, **notification, **listing,
                      **(keys.notification_index_keys(status_id, notification_id)
                         if status_id else {})}),
    ]
    if filtered and request_status_id:
        ops.append(_request_op(recipient_id, from_id, request_status_id,
                               notification["created_at"], notification_id))
    try:
        base.transact(ops)
    except base.ConditionFailed:
        return False
    return True


def _request_op(recipient_id: str, from_id: str, status_id: str, now: str, new_id: str
                ) -> base.Op:
    """Open the sender's notification request (its id is the first filtered mention's), or
    point it at their latest status; its count is kept by the counters worker."""
    index = keys.notification_request_index_keys(recipient_id, new_id)
    return base.Op(
        "Update", key=keys.notification_request(recipient_id, from_id),
        expression="SET #type = :type, account_id = :me, from_account_id = :from, "
                   "last_status_id = :status, updated_at = :now, "
                   "id = if_not_exists(id, :id), created_at = if_not_exists(created_at, :now), "
                   "notifications_count = if_not_exists(notifications_count, :zero), "
                   "GSI1PK = :gpk, GSI1SK = if_not_exists(GSI1SK, :gsk)",
        names={"#type": "type"},
        vals={":type": "notification_request", ":me": recipient_id, ":from": from_id,
              ":status": status_id, ":now": now, ":id": new_id, ":zero": 0,
              ":gpk": index["GSI1PK"], ":gsk": index["GSI1SK"]})


def edges_after(kind: str, status_id: str, after: str | None, limit: int, *,
                until: str | None = None) -> list[dict[str, Any]]:
    """Up to `limit` accounts' `kind` edges pointing at a status, after an edge id and up to
    another (index entries: account and edge id, oldest first)."""
    lo, hi = keys.id_range(int(after) + 1 if after else None, int(until) if until else None)
    return list(base.records(base.query(keys.edges_by_status(kind, status_id), index="GSI1",
                                        sk_between=(lo, hi), limit=limit)))


def unnotify(recipient_id: str, kind: str, from_id: str, subject_id: str) -> bool:
    """Remove the notification an action made (an undone like or boost); False if none."""
    once = keys.notification_once(recipient_id, kind, from_id, subject_id)
    sentinel = base.get(once, consistent=True)
    if sentinel is None:
        return False
    base.delete_many([keys.notification(recipient_id, sentinel["notification_id"]), once])
    return True


def notifications_about(status_id: str, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` notifications about a status (index entries: recipient and id)."""
    return list(base.records(base.query(keys.notifications_about(status_id), index="GSI1",
                                        limit=limit)))


def remove_notifications(entries: list[dict[str, Any]]) -> None:
    """Delete notifications and their once-sentinels, from index entries."""
    found = base.batch_get([keys.notification(e["account_id"], e["id"]) for e in entries])
    doomed = []
    for item in found:
        doomed.append(keys.notification(item["account_id"], item["id"]))
        if item.get("subject_id"):
            doomed.append(keys.notification_once(item["account_id"], item["notification_type"],
                                                 item["from_account_id"], item["subject_id"]))
    base.delete_many(doomed)


def notifications_from(recipient_id: str, actor_id: str, before_id: str | None,
                       budget: Budget) -> list[dict[str, Any]]:
    """A recipient's notifications from one actor, newest first, below `before_id`; reading
    stops when `budget` is spent (its `last_id` says where)."""
    lo, hi = keys.id_range(None, int(before_id) - 1 if before_id else None)
    return list(base.records(base.query(
        keys.notifications_of(recipient_id), sk_between=(lo, hi), descending=True,
        budget=budget, step=100,
        filter=("#from = :actor", {"#from": "from_account_id"}, {":actor": actor_id}))))


def notifications(account_id: str) -> list[dict[str, Any]]:
    return list(base.records(base.query(keys.notifications_of(account_id), descending=True)))


# --- what is left of a deleted status ----------------------------------------------------------
EDGE_KINDS = ("FAV", "BMK", "REBLOG", "PIN")  # others' likes, bookmarks, boosts and pins


def edges_at(kind: str, status_id: str, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` accounts' `kind` edges pointing at a status (index entries: account and
    edge id)."""
    return list(base.records(base.query(keys.edges_by_status(kind, status_id), index="GSI1",
                                        limit=limit)))


def _edge_key(kind: str, account_id: str, status_id: str) -> dict[str, str]:
    return {"FAV": keys.favourite, "BMK": keys.bookmark, "REBLOG": keys.reblog_edge,
            "PIN": keys.pin}[kind](account_id, status_id)


def remove_edge(kind: str, account_id: str, status_id: str) -> None:
    """Delete one account's `kind` edge to a status (a deleted boost's own edge)."""
    base.delete_many([_edge_key(kind, account_id, status_id)])


def remove_edges(kind: str, status_id: str, entries: list[dict[str, Any]]) -> None:
    """Delete edges pointing at a status; a boost edge takes its boost status with it."""
    edge_keys = [_edge_key(kind, e["account_id"], status_id) for e in entries]
    doomed = list(edge_keys)
    if kind == "REBLOG":
        for edge in base.batch_get(edge_keys):
            if edge.get("reblog_id"):
                doomed += [keys.status(edge["reblog_id"]), keys.status_stats(edge["reblog_id"])]
    base.delete_many(doomed)


def leftovers(status_id: str, poll_id: str | None, limit: int) -> list[base.Op]:
    """The deletes of up to `limit` items a status's and its poll's partitions still hold
    (edits, votes), for `remove`."""
    found: Iterator[dict[str, Any]] = base.query(keys.status_pk(status_id), limit=limit,
                                                 projection="PK, SK")
    items = [keys.key(i["PK"], i["SK"]) for i in found]
    if poll_id and len(items) < limit:
        items += [keys.key(i["PK"], i["SK"]) for i in base.query(
            keys.poll_pk(poll_id), limit=limit - len(items), projection="PK, SK")]
    return [base.Op("Delete", key=k) for k in items]


def remove(deletes: list[base.Op]) -> None:
    """Run the deletes `leftovers` gave, in batches (not atomic: each stands alone)."""
    base.delete_many([op.key for op in deletes if op.key is not None])
