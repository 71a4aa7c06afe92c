"""Notifications as their recipient reads and manages them: the listing by id (the recipient's
partition), the grouped listing (GSI3: group heads and ungrouped notifications), group members
and filtered notifications by sender (GSI2), the notification policy, permissions and requests,
markers, and sweeps of many notifications at once. Creation is repo/effects.notify."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from stratus.core import parallel
from stratus.core.paging import Budget
from stratus.model.notifications import Notification, NotificationGroup
from stratus.repo import base, keys


# --- the listing by id ---------------------------------------------------------------------------
def listing_filter(*, types: Sequence[str] | None = None, exclude: Sequence[str] = (),
                   from_id: str | None = None, include_filtered: bool = False
                   ) -> base.Filter | None:
    """What DynamoDB can filter on a recipient's notifications: their type, their sender, and
    whether the notification policy filtered them."""
    parts: list[str] = []
    names: dict[str, str] = {}
    vals: dict[str, Any] = {}
    if types is not None:
        names["#nt"] = "notification_type"
        placeholders = []
        for i, kind in enumerate(types):
            vals[f":t{i}"] = kind
            placeholders.append(f":t{i}")
        parts.append(f"#nt IN ({', '.join(placeholders)})")
    if exclude:
        names["#nt"] = "notification_type"
        placeholders = []
        for i, kind in enumerate(exclude):
            vals[f":x{i}"] = kind
            placeholders.append(f":x{i}")
        parts.append(f"NOT (#nt IN ({', '.join(placeholders)}))")
    if from_id is not None:
        names["#from"], vals[":from"] = "from_account_id", from_id
        parts.append("#from = :from")
    if not include_filtered:
        names["#filtered"] = "filtered"
        parts.append("attribute_not_exists(#filtered)")
    return (" AND ".join(parts), names, vals) if parts else None


def entries(account_id: str, low: int | None, high: int | None, descending: bool, *,
            budget: Budget | None = None, step: int = 100, filter: base.Filter | None = None
            ) -> Iterator[Notification]:
    """A recipient's notifications (whole records) with ids in [low, high] (None: unbounded)."""
    return base.records(base.query(keys.notifications_of(account_id),
                                   sk_between=keys.id_range(low, high), descending=descending,
                                   budget=budget, step=step, filter=filter))


def get(account_id: str, notification_id: str) -> Notification | None:
    return base.record(base.get(keys.notification(account_id, notification_id)))


def remove(items: Sequence[dict[str, Any]]) -> None:
    """Delete notifications (whole records) and their once-sentinels: the action that made one
    may make a new one later. Group heads and request counts follow from the stream."""
    doomed = []
    for item in items:
        doomed.append(keys.notification(item["account_id"], item["id"]))
        if item.get("subject_id"):
            doomed.append(keys.notification_once(item["account_id"], item["notification_type"],
                                                 item["from_account_id"], item["subject_id"]))
    base.delete_many(doomed)


SWEPT = "id, account_id, notification_type, from_account_id, subject_id"


def oldest_first(account_id: str, up_to_id: str, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` of a recipient's notifications at or below an id (what a sweep removes)."""
    return list(base.query(keys.notifications_of(account_id),
                           sk_between=keys.id_range(None, int(up_to_id)), limit=limit,
                           projection=SWEPT))


def newest_first(account_id: str, limit: int) -> list[dict[str, Any]]:
    return list(base.query(keys.notifications_of(account_id), descending=True, limit=limit,
                           projection=SWEPT))


def start_sweep(account_id: str, sweep_id: str, *, up_to_id: str | None = None,
                group_key: str | None = None, expires: int) -> None:
    base.put({**keys.notification_sweep(account_id, sweep_id), "type": "notification_sweep",
              "id": sweep_id, "account_id": account_id, "up_to_id": up_to_id,
              "group_key": group_key, "ttl": expires})


def end_sweep(account_id: str, sweep_id: str) -> None:
    base.delete(keys.notification_sweep(account_id, sweep_id))


# --- the grouped listing -------------------------------------------------------------------------
GROUP = "notification_group"  # a group's head (its other items are notifications)


def head_entries(account_id: str, low: int | None, high: int | None, descending: bool, *,
                 budget: Budget | None = None, step: int = 100) -> Iterator[dict[str, Any]]:
    """The grouped listing's entries placed at ids in [low, high] (None: unbounded; index
    entries: group heads at their latest member, ungrouped notifications at their own id).
    Each record has its place (`head_position`) and, a group's head, its `group_key`."""
    groups = keys.notification_groups_of(account_id)
    for entry in base.query(keys.notification_heads(account_id), index="GSI3",
                            sk_between=keys.id_range(low, high), descending=descending,
                            budget=budget, step=step):
        found = {**base.record(entry), "position": keys.id_from_sk(entry["GSI3SK"])}
        if entry["PK"] == groups:
            found["group_key"] = entry["SK"]
        yield found


def head_position(entry: dict[str, Any]) -> str:
    """Where an entry of `head_entries` stands in the grouped listing (an id)."""
    return entry["position"]


def _item_key(entry: dict[str, Any]) -> dict[str, str]:
    if entry.get("type") == GROUP:
        return keys.notification_group(entry["account_id"], entry["group_key"])
    return keys.notification(entry["account_id"], entry["id"])


def items_of(entries_: Sequence[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The records behind index entries (of `head_entries`, `members_of_groups`), in one
    batched read: {`entry_key`: record}."""
    wanted = {entry_key(e): _item_key(e) for e in entries_}
    found = {(i["PK"], i["SK"]): i for i in base.batch_get(list(wanted.values()))}
    return {ref: base.record(found[(k["PK"], k["SK"])]) for ref, k in wanted.items()
            if (k["PK"], k["SK"]) in found}


def entry_key(entry: dict[str, Any]) -> tuple[str, str]:
    """What an index entry and the record behind it have in common: (recipient, group key of a
    group's head or id of a notification)."""
    return entry["account_id"], entry["group_key"] if entry.get("type") == GROUP else entry["id"]


def get_group(account_id: str, group_key: str) -> NotificationGroup | None:
    return base.record(base.get(keys.notification_group(account_id, group_key)))


def get_groups(account_id: str, group_keys: Sequence[str]) -> dict[str, NotificationGroup]:
    found = base.batch_get([keys.notification_group(account_id, k) for k in group_keys])
    return {i["SK"]: base.record(i) for i in found}


def latest_group_key(account_id: str, prefix: str) -> str | None:
    """The most recent group key starting with `prefix` (a group's bucket is reused while it
    spans less than Mastodon's twelve hours)."""
    for item in base.query(keys.notification_groups_of(account_id), sk_prefix=prefix,
                           descending=True, limit=1, projection="SK"):
        return item["SK"]
    return None


def group_for_update(account_id: str, group_key: str) -> NotificationGroup | None:
    return base.record(base.get(keys.notification_group(account_id, group_key),
                                consistent=True))


def existing(account_id: str, notification_ids: Sequence[str]) -> list[Notification]:
    return list(base.records(
        base.batch_get([keys.notification(account_id, n) for n in notification_ids])))


def write_group(account_id: str, group_key: str, samples: list[dict[str, Any]],
                version: int | None) -> bool:
    """Put a group's newest members on its head and the head at the newest one's id in the
    grouped listing, if nobody else rewrote it since it was read at `version`."""
    position = keys.notification_head_keys(account_id, samples[0]["id"])
    condition = "attribute_exists(PK) AND " + (
        "attribute_not_exists(sample_version)" if version is None else "sample_version = :v")
    try:
        base.update(keys.notification_group(account_id, group_key),
                    "SET GSI3PK = :pk, GSI3SK = :sk, latest_id = :id, samples = :samples, "
                    "sample_version = :next",
                    vals={":pk": position["GSI3PK"], ":sk": position["GSI3SK"],
                          ":id": samples[0]["id"], ":samples": samples,
                          ":next": (version or 0) + 1,
                          **({":v": version} if version is not None else {})},
                    condition=condition)
    except base.dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    return True


def prune_group(account_id: str, group_key: str) -> bool:
    """Delete a group's head once its last member is gone (a new member recreates it)."""
    try:
        base.dynamodb().delete_item(
            TableName=base.table(),
            Key=base.serialize(keys.notification_group(account_id, group_key)),
            ConditionExpression="notifications_count <= :zero",
            ExpressionAttributeValues=base.values({":zero": 0}))
    except base.dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    return True


def members(account_id: str, group_key: str, *, up_to: str | None = None,
            limit: int | None = None, after: str | None = None) -> list[Notification]:
    """A group's notifications (whole records), newest first, at or below `up_to` and above
    `after`."""
    lo, hi = keys.id_range(int(after) + 1 if after else None, int(up_to) if up_to else None)
    entries_ = list(base.records(base.query(
        keys.notification_group_members(account_id, group_key), index="GSI2",
        sk_between=(lo, hi), descending=True, limit=limit)))
    found = items_of(entries_)
    return [found[entry_key(e)] for e in entries_ if entry_key(e) in found]


def members_of_groups(account_id: str, wanted: Sequence[tuple[str, str]], limit: int
                      ) -> dict[str, list[Notification]]:
    """The `limit` newest index entries of several groups at or below a position each,
    {group key: entries} (for `items_of`), queried in parallel."""
    def one(group_key: str, up_to: str) -> list[dict[str, Any]]:
        lo, hi = keys.id_range(None, int(up_to))
        return list(base.records(base.query(
            keys.notification_group_members(account_id, group_key), index="GSI2",
            sk_between=(lo, hi), descending=True, limit=limit)))

    results = parallel.gather(*[lambda k=k, u=u: one(k, u) for k, u in wanted])
    return {k: found for (k, _), found in zip(wanted, results)}


def count_heads_since(account_id: str, after_id: str | None, limit: int, budget: Budget
                      ) -> int:
    """How many grouped listing entries are newer than an id, counting up to `limit`."""
    lo, hi = keys.id_range(int(after_id) + 1 if after_id else None, None)
    return sum(1 for _ in base.query(keys.notification_heads(account_id), index="GSI3",
                                     sk_between=(lo, hi), limit=limit, budget=budget,
                                     step=min(limit, 100), projection="PK, SK, GSI3SK"))


# --- the notification policy, permissions and requests ------------------------------------------
def policy_inputs(recipient_id: str, sender_id: str, status_id: str | None
                  ) -> dict[str, dict[str, Any] | None]:
    """What deciding on a new notification reads, in one batched read: the recipient's policy
    and user, a permission for the sender, the follows both ways, the sender's profile and user,
    and the status the notification is about."""
    wanted = {"policy": keys.notification_policy(recipient_id),
              "permission": keys.notification_permission(recipient_id, sender_id),
              "following": keys.follow(recipient_id, sender_id),
              "follower": keys.follow(sender_id, recipient_id),
              "sender": keys.account_profile(sender_id),
              "sender_user": keys.account_user(sender_id),
              "recipient_user": keys.account_user(recipient_id)}
    if status_id:
        wanted["status"] = keys.status(status_id)
    found = {(i["PK"], i["SK"]): i for i in base.batch_get(list(wanted.values()))}
    return {name: base.record(found.get((k["PK"], k["SK"]))) for name, k in wanted.items()}


def conversation_muted(account_id: str, thread_id: str) -> bool:
    return base.get(keys.muted_thread(account_id, thread_id)) is not None


def status(status_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.status(status_id)))


def get_policy(account_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.notification_policy(account_id), consistent=True))


def set_policy(account_id: str, values: dict[str, str], now: str) -> dict[str, Any]:
    changes = {**values, "type": "notification_policy", "account_id": account_id,
               "updated_at": now}
    return base.record(base.update(
        keys.notification_policy(account_id),
        "SET " + ", ".join(f"#a{i} = :v{i}" for i in range(len(changes))),
        names={f"#a{i}": name for i, name in enumerate(changes)},
        vals={f":v{i}": value for i, value in enumerate(changes.values())}))


def requests(account_id: str, low: int | None, high: int | None, descending: bool,
             limit: int | None = None) -> list[dict[str, Any]]:
    """A recipient's notification requests by id, ids in [low, high] (None: unbounded): one
    Query of the index, one batched read of the requests, in the index's order."""
    wanted = [(e["PK"], e["SK"]) for e in base.query(
        keys.notification_requests_of(account_id), index="GSI1",
        sk_between=keys.id_range(low, high), descending=descending, limit=limit)]
    found = {(i["PK"], i["SK"]): i for i in base.batch_get([keys.key(*k) for k in wanted])}
    return [base.record(found[k]) for k in wanted if k in found]


def request_by_id(account_id: str, request_id: str) -> dict[str, Any] | None:
    padded = keys.pad(request_id)
    for entry in base.query(keys.notification_requests_of(account_id), index="GSI1",
                            sk_between=(padded, padded), limit=1):
        return base.record(base.get(keys.key(entry["PK"], entry["SK"]), consistent=True))
    return None


def accept_request(account_id: str, from_id: str, now: str) -> bool:
    """Close a request as accepted: the sender gets a permission (their notifications are not
    filtered again) and the recipient has one more merge pending until the effects worker has
    let the filtered ones in. False if the request is gone."""
    try:
        base.transact([
            base.Op("Delete", key=keys.notification_request(account_id, from_id),
                    condition="attribute_exists(PK)"),
            base.Op("Put", item={**keys.notification_permission(account_id, from_id),
                                 "type": "notification_permission", "account_id": account_id,
                                 "from_account_id": from_id, "created_at": now}),
            base.Op("Update", key=keys.notification_policy(account_id),
                    expression="ADD pending_merges :one SET #type = :type, account_id = :me",
                    names={"#type": "type"},
                    vals={":one": 1, ":type": "notification_policy", ":me": account_id})])
    except base.ConditionFailed:
        return False
    return True


def dismiss_request(account_id: str, from_id: str) -> bool:
    """Close a request as dismissed (its filtered notifications are deleted by the worker)."""
    try:
        base.transact([base.Op("Delete", key=keys.notification_request(account_id, from_id),
                               condition="attribute_exists(PK)")])
    except base.ConditionFailed:
        return False
    return True


def permission(account_id: str, from_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.notification_permission(account_id, from_id),
                                consistent=True))


def merged(account_id: str, from_id: str) -> bool:
    """Mark a permission's filtered notifications as let in; False if that was done already."""
    try:
        base.transact([
            base.Op("Update", key=keys.notification_permission(account_id, from_id),
                    expression="SET merged = :yes",
                    condition="attribute_exists(PK) AND attribute_not_exists(merged)",
                    vals={":yes": True}),
            base.Op("Update", key=keys.notification_policy(account_id),
                    expression="ADD pending_merges :minus", vals={":minus": -1})])
    except base.ConditionFailed:
        return False
    return True


def filtered_from(account_id: str, from_id: str, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` of the notifications the policy filtered from one sender (whole records):
    one Query of the index, one batched read."""
    entries_ = list(base.records(base.query(
        keys.filtered_notifications_from(account_id, from_id), index="GSI2", limit=limit)))
    found = items_of(entries_)
    return [found[entry_key(e)] for e in entries_ if entry_key(e) in found]


def unfilter(items: Sequence[dict[str, Any]]) -> None:
    """Let filtered notifications in: listed (ungrouped, as Mastodon leaves them) from now on."""
    for item in items:
        heads = keys.notification_head_keys(item["account_id"], item["id"])
        try:
            base.update(keys.notification(item["account_id"], item["id"]),
                        "SET GSI3PK = :pk, GSI3SK = :sk REMOVE filtered, GSI2PK, GSI2SK",
                        vals={":pk": heads["GSI3PK"], ":sk": heads["GSI3SK"]},
                        condition="attribute_exists(PK)")
        except base.dynamodb().exceptions.ConditionalCheckFailedException:
            continue  # removed meanwhile


# --- markers ---------------------------------------------------------------------------------------
def get_markers(account_id: str, timelines: Sequence[str]) -> dict[str, dict[str, Any]]:
    found = base.batch_get([keys.marker(account_id, t) for t in timelines])
    return {i["timeline"]: base.record(i) for i in found}


def save_markers(account_id: str, changes: Sequence[tuple[str, str, int | None]], now: str
                 ) -> list[dict[str, Any]] | None:
    """Write markers (timeline, last read id, version it is still at — None: none yet) all or
    none; None when one moved meanwhile (Mastodon's optimistic lock)."""
    items, ops = [], []
    for timeline, last_read_id, version in changes:
        item = {**keys.marker(account_id, timeline), "type": "marker", "account_id": account_id,
                "timeline": timeline, "last_read_id": last_read_id, "updated_at": now,
                "version": 0 if version is None else version + 1}
        items.append(item)
        if version is None:
            ops.append(base.Op("Put", item=item, condition="attribute_not_exists(PK)"))
        else:
            ops.append(base.Op("Put", item=item, condition="version = :v", vals={":v": version}))
    try:
        base.transact(ops)
    except base.ConditionFailed:
        return None
    return list(base.records(items))
