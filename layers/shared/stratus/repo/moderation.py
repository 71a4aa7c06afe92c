"""Moderation in the Main table: an account's moderation state and the staff index entries that
follow it, warnings (Mastodon's strikes), purge requests, and the bounded reads and writes a
purge walks.

The moderation state itself is attributes of the PROFILE item (`suspended_at`,
`suspension_origin`, `silenced_at`, `sensitized_at`, `deletion_requested_at`) and of the USER
item (`disabled`), so every read that renders an account already has it. Each change is one
transaction with the staff index entries that list the account by state (and what the caller
adds: an audit entry, a warning).

`suspend`, `unsuspend`, `silence` and `unsilence` are what both the staff actions
(api/admin/moderation.py) and the domain-block state machine (workers/moderation.py) apply:
each is idempotent, and an undo given `at` only undoes the state set at that moment (a domain
block undoes only what it did)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from stratus.core.errors import NotFound
from stratus.core.paging import Budget
from stratus.repo import accounts as accounts_repo
from stratus.repo import base, keys

# States an account can be in besides its main listing status; each has its own index entry.
FLAGS = {"silenced": "silenced_at", "sensitized": "sensitized_at"}


def _admin_flag_item(account_id: str, origin: str, flag: str) -> dict[str, Any]:
    return {**keys.account_admin_flag(account_id, flag), "type": "admin_index",
            "account_id": account_id, "origin": origin, "status": flag,
            **keys.admin_flag_index_keys(account_id, origin, flag)}


def listing_status(profile: dict[str, Any], user: dict[str, Any]) -> str:
    """The main listing status. Mastodon's filters overlap: a suspended account is listed
    only as suspended (its `disabled` excludes suspended ones), a silenced or sensitized one
    is also active — those two have index entries of their own (`FLAGS`)."""
    if profile.get("suspended_at"):
        return "suspended"
    if not user.get("approved", True):
        return "pending"
    if user.get("disabled"):
        return "disabled"
    return "active"


def admin_entry(profile: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    """The account's main staff index entry: only origin and listing status, which the listing
    queries by (filters on names, e-mail and role read the account, so nothing here goes
    stale). A record: `accounts.create_ops` and `accounts.admin_entry_op` write it."""
    return accounts_repo.admin_record(profile["id"],
                                      "remote" if profile.get("domain") else "local",
                                      listing_status(profile, user))


def index_ops(profile: dict[str, Any], user: dict[str, Any] | None) -> list[base.Op]:
    """Put the account's main staff index entry (origin and status, which the listing queries
    by) and exactly the flag entries its state calls for."""
    account_id = profile["id"]
    origin = "remote" if profile.get("domain") else "local"
    ops = [accounts_repo.admin_entry_op(admin_entry(profile, user or {}))]
    for flag, attribute in FLAGS.items():
        if profile.get(attribute):
            ops.append(base.Op("Put", item=_admin_flag_item(account_id, origin, flag)))
        else:
            ops.append(base.Op("Delete", key=keys.account_admin_flag(account_id, flag)))
    return ops


def listing(origin: str | None, status: str | None, *, low: int | None, high: int | None,
            descending: bool, budget: Budget | None = None, step: int = 100
            ) -> Iterator[dict[str, Any]]:
    """Staff index entries (`account_id`) in id order, ids in [low, high] (None: unbounded);
    a status without an origin merges both origins."""
    lo, hi = keys.id_range(low, high)
    return base.records(accounts_repo.admin_page(origin, status, lo=lo, hi=hi,
                                                 descending=descending, budget=budget,
                                                 step=step))


# --- pending sign-ups -----------------------------------------------------------------------------
def approve_ops(profile: dict[str, Any], user: dict[str, Any], *,
                on_conflict: Exception) -> list[base.Op]:
    """Approve a pending sign-up, with the staff index entry that follows. Conditional: two
    staff approving at once (or approve racing reject) cannot both win (`on_conflict`)."""
    return [base.Op("Update", key=keys.account_user(profile["id"]),
                    expression="SET approved = :yes", condition="approved = :no",
                    vals={":yes": True, ":no": False}, on_conflict=on_conflict),
            accounts_repo.admin_entry_op(admin_entry(profile, {**user, "approved": True}))]


def reject_ops(profile: dict[str, Any], user: dict[str, Any], confirmation_hash: str | None,
               *, on_conflict: Exception) -> list[base.Op]:
    """Delete a pending sign-up's account and free its username and e-mail (and its pending
    confirmation, by the hash of its token). Conditional on the user still awaiting approval
    (`on_conflict`)."""
    account_id = profile["id"]
    ops = [base.Op("Delete", key=keys.account_user(account_id), condition="approved = :no",
                   vals={":no": False}, on_conflict=on_conflict)]
    ops += [base.Op("Delete", key=k) for k in accounts_repo.account_item_keys(account_id)
            if k["SK"] != "USER"]
    ops.append(base.Op("Delete", key=keys.handle(profile["username"])))
    ops.append(base.Op("Delete", key=keys.email(user["email"])))
    if confirmation_hash:
        ops.append(base.Op("Delete", key=keys.confirmation(confirmation_hash)))
    return ops


# --- the state ------------------------------------------------------------------------------------
def _change(account_id: str, *, profile: dict[str, Any] | None = None,
            user: dict[str, Any] | None = None, condition: str, vals: dict[str, Any],
            on_user: bool = False, also: list[base.Op] = ()) -> bool:
    """Apply `profile` / `user` attribute changes (None removes) under `condition` (on the
    PROFILE item, or the USER item with `on_user`), with the index entries that follow and
    `also`. False when the condition did not hold: nothing was written."""
    bundle = accounts_repo.get_bundle(account_id, (accounts_repo.PROFILE, accounts_repo.USER))
    current_profile = bundle.get(accounts_repo.PROFILE)
    current_user = bundle.get(accounts_repo.USER)
    if current_profile is None:
        raise NotFound()
    new_profile = {k: v for k, v in {**current_profile, **(profile or {})}.items()
                   if v is not None}
    new_user = ({k: v for k, v in {**current_user, **(user or {})}.items() if v is not None}
                if current_user else None)
    ops: list[base.Op] = []
    for key, changes, guarded in ((keys.account_profile(account_id), profile, not on_user),
                                  (keys.account_user(account_id), user, on_user)):
        if changes is None and not guarded:
            continue
        op = base.set_op(key, changes or {}, condition=None)
        if guarded:
            op.condition = condition
            op.vals.update(vals)
            op.on_conflict = None
            if not op.expression:  # a condition check alone
                op = base.Op("ConditionCheck", key=key, condition=condition, vals=vals)
        ops.append(op)
    ops += index_ops(new_profile, new_user)
    ops += list(also)
    try:
        base.transact(ops)
    except base.ConditionFailed:
        return False
    return True


def suspend(account_id: str, *, at: str, origin: str, also: list[base.Op] = ()) -> bool:
    """Suspend (once): the account disappears from the API; a local suspension of a local
    account can be purged (its deletion request) until it is undone."""
    changes: dict[str, Any] = {"suspended_at": at, "suspension_origin": origin}
    if origin == "local":
        changes["deletion_requested_at"] = at
    return _change(account_id, profile=changes, condition="attribute_not_exists(suspended_at)",
                   vals={}, also=also)


def unsuspend(account_id: str, *, at: str | None = None, also: list[base.Op] = ()) -> bool:
    changes = {"suspended_at": None, "suspension_origin": None, "deletion_requested_at": None}
    if at is None:
        return _change(account_id, profile=changes, condition="attribute_exists(suspended_at)",
                       vals={}, also=also)
    return _change(account_id, profile=changes, condition="suspended_at = :was",
                   vals={":was": at}, also=also)


def silence(account_id: str, *, at: str, also: list[base.Op] = ()) -> bool:
    return _change(account_id, profile={"silenced_at": at},
                   condition="attribute_not_exists(silenced_at)", vals={}, also=also)


def unsilence(account_id: str, *, at: str | None = None, also: list[base.Op] = ()) -> bool:
    if at is None:
        return _change(account_id, profile={"silenced_at": None},
                       condition="attribute_exists(silenced_at)", vals={}, also=also)
    return _change(account_id, profile={"silenced_at": None}, condition="silenced_at = :was",
                   vals={":was": at}, also=also)


def sensitize(account_id: str, *, at: str, also: list[base.Op] = ()) -> bool:
    return _change(account_id, profile={"sensitized_at": at},
                   condition="attribute_not_exists(sensitized_at)", vals={}, also=also)


def unsensitize(account_id: str, *, also: list[base.Op] = ()) -> bool:
    return _change(account_id, profile={"sensitized_at": None},
                   condition="attribute_exists(sensitized_at)", vals={}, also=also)


def disable(account_id: str, *, also: list[base.Op] = ()) -> bool:
    """The user can no longer sign in or use its tokens (they work again once enabled)."""
    return _change(account_id, user={"disabled": True}, on_user=True,
                   condition="attribute_exists(PK) AND (attribute_not_exists(disabled) "
                             "OR disabled = :no)", vals={":no": False}, also=also)


def enable(account_id: str, *, also: list[base.Op] = ()) -> bool:
    return _change(account_id, user={"disabled": False}, on_user=True,
                   condition="disabled = :yes", vals={":yes": True}, also=also)


# --- warnings ---------------------------------------------------------------------------------
def warning_op(warning: dict[str, Any]) -> base.Op:
    return base.put_new({**keys.account_warning(warning["target_account_id"], warning["id"]),
                         "type": "account_warning", **warning})


def get_warning(account_id: str, warning_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.account_warning(account_id, warning_id)))


# --- purge requests -----------------------------------------------------------------------------
def purge_request_op(request: dict[str, Any]) -> base.Op:
    """The request item; a second request while one is pending fails its condition."""
    return base.put_new({**keys.purge_request(request["account_id"]), "type": "purge_request",
                         **request})


def get_purge_request(account_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.purge_request(account_id), consistent=True))


def delete_purge_request_op(account_id: str) -> base.Op:
    return base.Op("Delete", key=keys.purge_request(account_id))


# --- what a purge walks: each read returns the first `limit` of what is left -----------------
def remove(deletions: list[base.Op]) -> None:
    """Delete what one of the `*_deletions` reads below found (their Delete ops, batched: not
    atomic; deleting what is gone is a no-op)."""
    base.delete_many([op.key for op in deletions if op.key is not None])


def _deletions(found: Iterable[dict[str, Any]]) -> list[base.Op]:
    return [base.Op("Delete", key=keys.key(item["PK"], item["SK"])) for item in found]


def remove_statuses(statuses: list[dict[str, Any]], media_items: list[dict[str, Any]]) -> None:
    """Delete statuses with their media items, stats and polls; the status items last: their
    removal is what starts the deletion cascade (likes, boosts, notifications, feeds)."""
    doomed = [keys.media(item["id"]) for item in media_items]
    for status in statuses:
        doomed.append(keys.status_stats(status["id"]))
        if status.get("poll_id"):
            doomed.append(keys.poll(status["poll_id"]))
    base.delete_many(doomed)
    base.delete_many([keys.status(s["id"]) for s in statuses])


# What of a profile a purge keeps (Mastodon keeps the account record: the name stays taken).
KEPT_PROFILE = ("type", "id", "username", "domain", "created_at", "url", "uri",
                "suspended_at", "suspension_origin")


def leave_shell(profile: dict[str, Any]) -> None:
    """The end of a purge: the profile cut down to what is kept (no longer
    `deletion_requested_at`, so it cannot be purged again), the user gone (its handle and
    e-mail sentinels stay: both remain reserved), the request done, the index entries that
    state calls for — in one transaction."""
    account_id = profile["id"]
    shell = {k: v for k, v in profile.items() if k in KEPT_PROFILE}
    base.transact([base.Op("Put", item={**keys.account_profile(account_id), **shell}),
                   base.Op("Delete", key=keys.account_user(account_id)),
                   delete_purge_request_op(account_id),
                   *index_ops(shell, None)])


def status_entries(account_id: str, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """The account's statuses (boosts included): how many index entries were found (an index
    lags its table: an entry may still name a status just deleted) and the full items."""
    entries = list(base.query(keys.account_statuses(account_id), index="GSI1", limit=limit))
    return len(entries), list(base.records(base.batch_get([{"PK": e["PK"], "SK": e["SK"]}
                                                           for e in entries])))


def get_media(media_ids: list[str]) -> list[dict[str, Any]]:
    return list(base.records(base.batch_get([keys.media(m) for m in media_ids])))


KEPT_IN_PARTITION = ("PROFILE", "STATS", "USER", "ADMIN")


def partition_deletions(account_id: str, limit: int) -> list[base.Op]:
    """The account's own items a purge deletes: its edges (follows, requests to it, blocks,
    mutes, domain blocks, endorsements, likes, bookmarks, boosts, pins, notes), lists,
    filters, markers, warnings, push subscriptions... — all but the profile shell and the staff
    index entries (the user goes last)."""
    found = []
    for item in base.query(keys.account_pk(account_id), projection="PK, SK"):
        if item["SK"] in KEPT_IN_PARTITION or item["SK"].startswith(keys.ADMIN_FLAG_PREFIX):
            continue
        found.append(item)
        if len(found) >= limit:
            break
    return _deletions(found)


def follower_edge_deletions(account_id: str, limit: int) -> list[base.Op]:
    """Follow edges to the account (they live in the followers' partitions)."""
    return _deletions(base.query(keys.followers_of(account_id), index="GSI1", limit=limit))


def list_membership_deletions(account_id: str, limit: int) -> list[base.Op]:
    """The account's entries in other users' lists."""
    return _deletions(base.query(keys.lists_containing(account_id), index="GSI1",
                                 limit=limit))


def notification_deletions(account_id: str, limit: int) -> list[base.Op]:
    return _deletions(base.query(keys.notifications_of(account_id), limit=limit,
                                 projection="PK, SK"))


def token_items(account_id: str, limit: int) -> list[dict[str, Any]]:
    """The account's tokens (records: `oauth.delete_token` deletes each)."""
    entries = list(base.query(keys.tokens_of(account_id), index="GSI1", limit=limit))
    return list(base.records(base.batch_get([{"PK": e["PK"], "SK": e["SK"]}
                                             for e in entries])))


def notification_group_deletions(account_id: str, limit: int) -> list[base.Op]:
    return _deletions(base.query(keys.notification_groups_of(account_id), limit=limit,
                                 projection="PK, SK"))
