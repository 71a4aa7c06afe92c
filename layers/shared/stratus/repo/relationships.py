"""The social graph in the Main table: follows, follow requests, blocks, mutes, user domain
blocks and endorsements, and the relationship view between a viewer and many accounts.

Every edge lives in its source account's partition under a deterministic key (a follow request
in its target's), so the relationships between one viewer and a page of accounts, both ways,
are one batched read (`load`). Listings use the edge indexes, newest edge first: an account's
followers (GSI1) and followings (GSI2) by follow id, the pending requests to it (GSI1) and those
it made (GSI2) by request id, and a user's blocks, mutes, domain blocks and endorsements (GSI1),
each by when it was made.

Counters are not written here: the counters worker derives followers/following counts and
pending request counts from the stream (workers/counters.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from stratus.core import clock
from stratus.core.paging import Budget
from stratus.model.accounts import Bundle
from stratus.model.edges import Follow
from stratus.model.relationships import FollowOptions, Mute, Relationships
from stratus.repo import accounts as accounts_repo
from stratus.repo import base, keys
from stratus.repo import directory as directory_repo

FOLLOW, FOLLOW_REQUEST, BLOCK, MUTE, DOMAIN_BLOCK, ENDORSEMENT, NOTE = (
    "follow", "follow_request", "block", "mute", "user_domain_block", "endorsement",
    "account_note")
# The edge kinds a user lists (GET /api/v1/blocks, /mutes, /domain_blocks, /endorsements).
LISTED = {BLOCK: keys.BLOCK, MUTE: keys.MUTE, DOMAIN_BLOCK: keys.DOMAIN_BLOCK_OF_USER,
          ENDORSEMENT: keys.ENDORSEMENT}


# --- items ---------------------------------------------------------------------------------------
def _options(options: FollowOptions) -> dict[str, Any]:
    return {"show_reblogs": options.reblogs, "notify": options.notify,
            "languages": list(options.languages) if options.languages is not None else None}


def _federated(uri: str | None, remote_target: bool) -> dict[str, Any]:
    """A follow or request across servers carries `uri`, the id of its Follow activity (ours
    when `remote_target`: we asked a remote account; theirs when a remote account asked)."""
    return {**({"uri": uri} if uri else {}), **({"remote_target": True} if remote_target else {})}


def follow_item(follow_id: str, follower_id: str, target_id: str, options: FollowOptions, *,
                authorized: bool = False, created_at: str | None = None, uri: str | None = None,
                remote_target: bool = False) -> dict[str, Any]:
    """A new follow's record, to write with `create`, `put` or `create_op` (they add its keys).
    `authorized`: made by accepting a follow request (Mastodon notifies nobody then)."""
    return {"type": FOLLOW, "id": follow_id, "account_id": follower_id, "target_id": target_id,
            **_options(options), "created_at": created_at or clock.iso(clock.now()),
            **({"authorized": True} if authorized else {}), **_federated(uri, remote_target)}


def follow_request_item(request_id: str, requester_id: str, target_id: str,
                        options: FollowOptions, *, uri: str | None = None,
                        remote_target: bool = False) -> dict[str, Any]:
    """A new follow request's record (written as `follow_item`'s)."""
    return {"type": FOLLOW_REQUEST, "id": request_id, "account_id": requester_id,
            "target_id": target_id, **_options(options), "created_at": clock.iso(clock.now()),
            **_federated(uri, remote_target)}


def _listed(kind: str, edge_id: str, owner_id: str, **attributes: Any) -> dict[str, Any]:
    return {"type": kind, "id": edge_id, "account_id": owner_id,
            "created_at": clock.iso(clock.now()), **attributes}


def block_item(block_id: str, blocker_id: str, target_id: str) -> dict[str, Any]:
    return _listed(BLOCK, block_id, blocker_id, target_id=target_id)


def mute_item(mute_id: str, muter_id: str, target_id: str, mute: Mute) -> dict[str, Any]:
    """A mute; one with an end carries `ttl`, so it reads as absent once it has expired (every
    read filters expired items) and DynamoDB sweeps it later."""
    expiry = ({"expires_at": mute.expires_at,
               "ttl": int(clock.parse_iso(mute.expires_at).timestamp())}
              if mute.expires_at else {})
    return _listed(MUTE, mute_id, muter_id, target_id=target_id,
                   hide_notifications=mute.notifications, **expiry)


def domain_block_item(block_id: str, account_id: str, domain: str) -> dict[str, Any]:
    return _listed(DOMAIN_BLOCK, block_id, account_id, domain=keys.blocked_domain(domain))


def endorsement_item(endorsement_id: str, account_id: str, target_id: str) -> dict[str, Any]:
    return _listed(ENDORSEMENT, endorsement_id, account_id, target_id=target_id)


_LISTED_KEY = {BLOCK: keys.block, MUTE: keys.mute, ENDORSEMENT: keys.endorsement}


def _stored(record: dict[str, Any]) -> dict[str, Any]:
    """An edge record (from the builders above) as its item: with the key and index keys its
    kind, ends and id give it."""
    kind, owner, edge_id = record["type"], record["account_id"], record["id"]
    target = record.get("target_id", "")
    if kind == FOLLOW:
        return {**keys.follow(owner, target), **record,
                **keys.follow_index_keys(owner, target, edge_id)}
    if kind == FOLLOW_REQUEST:
        return {**keys.follow_request(target, owner), **record,
                **keys.follow_request_index_keys(target, owner, edge_id)}
    key = (keys.user_domain_block(owner, record["domain"]) if kind == DOMAIN_BLOCK
           else _LISTED_KEY[kind](owner, target))
    return {**key, **record, **keys.edge_list_index_keys(LISTED[kind], owner, edge_id)}


def get(key: dict[str, str]) -> dict[str, Any] | None:
    """An edge by its key (a consistent read), as a record."""
    return base.record(base.get(key, consistent=True))


def put_new(record: dict[str, Any]) -> bool:
    """Write a new edge once; False if it exists already."""
    return base.put(_stored(record), condition="attribute_not_exists(PK)")


def put(record: dict[str, Any]) -> None:
    """Write an edge, replacing the one with its key (a changed mute)."""
    base.put(_stored(record))


def put_many(records: list[dict[str, Any]]) -> None:
    """Write edges straight, in batches (not atomic, no block checked): fixtures and tooling
    that seed a graph."""
    base.write_many(puts=[_stored(r) for r in records])


def remove(key: dict[str, str]) -> dict[str, Any] | None:
    """Delete an edge; returns its record as it was (None if there was none)."""
    return base.record(base.delete(key, returning=True))


# --- the relationship view ------------------------------------------------------------------------
def _view_keys(viewer_id: str, target_id: str, full: bool) -> list[dict[str, str]]:
    wanted = [keys.follow(viewer_id, target_id), keys.block(viewer_id, target_id),
              keys.block(target_id, viewer_id), keys.mute(viewer_id, target_id)]
    if full:
        wanted += [keys.follow(target_id, viewer_id), keys.follow_request(target_id, viewer_id),
                   keys.follow_request(viewer_id, target_id),
                   keys.endorsement(viewer_id, target_id),
                   keys.account_note(viewer_id, target_id)]
    return wanted


def follow_options(item: dict[str, Any]) -> FollowOptions:
    """The options a follow or request record carries."""
    languages = item.get("languages")
    return FollowOptions(reblogs=bool(item.get("show_reblogs", True)),
                         notify=bool(item.get("notify", False)),
                         languages=tuple(languages) if languages else None)


@dataclass
class Alongside:
    """What `load` read in the same batch as the relationships: {account id: {part: record}}
    of the accounts asked for, the domain blocks of `domains_blocked_by` that exist and, with
    `suggestions`, the accounts the viewer dismissed as suggestions or asked to follow."""

    accounts: dict[str, Bundle] = field(default_factory=dict)
    domain_blocks: list[dict[str, Any]] = field(default_factory=list)
    dismissed: set[str] = field(default_factory=set)
    requested: set[str] = field(default_factory=set)


def load(viewer_id: str, account_ids: Iterable[str], *, domains: Iterable[str] = (),
         full: bool = True, consistent: bool = False, accounts: Iterable[str] = (),
         parts: tuple[str, ...] = (), domains_blocked_by: tuple[str, Iterable[str]] | None = None,
         suggestions: bool = False) -> tuple[Relationships, Alongside]:
    """The viewer's relationships with `account_ids` (and blocks of `domains`) from one batched
    read of deterministic keys, both ways. `full=False` reads only what the visibility policy
    needs (follows, blocks both ways, mutes). Read in the same batch: the `parts` of
    `accounts` (e.g. their profiles), whether the account of `domains_blocked_by` blocks
    any of its domains and, with `suggestions`, which of `account_ids` the viewer dismissed as
    follow suggestions or asked to follow (a pending request of its)."""
    targets = [a for a in dict.fromkeys(account_ids) if a != viewer_id]
    domains = sorted({keys.blocked_domain(d) for d in domains if d})
    wanted = [k for t in targets for k in _view_keys(viewer_id, t, full)]
    wanted += [keys.user_domain_block(viewer_id, d) for d in domains]
    extra = accounts_repo.bundle_keys(list(dict.fromkeys(accounts)), parts)
    if domains_blocked_by is not None:
        owner, owner_domains = domains_blocked_by
        extra += [keys.user_domain_block(owner, d) for d in owner_domains]
    if suggestions:
        extra += [k for t in targets for k in directory_repo.suggestion_keys(viewer_id, t)]
    view = Relationships(viewer_id, known=set(targets), known_domains=set(domains))
    alongside = Alongside()
    if not wanted and not extra:
        return view, alongside
    extra_ids = {(k["PK"], k["SK"]) for k in extra}
    bundled = []
    for item in base.batch_get(wanted + extra, consistent=consistent):
        if (item["PK"], item["SK"]) not in extra_ids:
            _absorb(view, viewer_id, item)
        elif item.get("type") == DOMAIN_BLOCK:
            alongside.domain_blocks.append(base.record(item))
        elif item.get("type") == directory_repo.DISMISSED:
            alongside.dismissed.add(item["target_id"])
        elif item.get("type") == FOLLOW_REQUEST:
            alongside.requested.add(item["target_id"])
        else:
            bundled.append(item)
    alongside.accounts = accounts_repo.bundles(bundled)
    return view, alongside


def _absorb(view: Relationships, viewer_id: str, item: dict[str, Any]) -> None:
    kind = item.get("type")
    mine = item.get("account_id") == viewer_id
    other = item.get("target_id") if mine else item.get("account_id")
    if kind == FOLLOW:
        if mine:
            view.following[other] = follow_options(item)
        else:
            view.followed_by.add(other)
    elif kind == FOLLOW_REQUEST:
        if mine:
            view.requested[other] = follow_options(item)
        else:
            view.requested_by.add(other)
    elif kind == BLOCK:
        (view.blocking if mine else view.blocked_by).add(other)
    elif kind == MUTE:
        view.muting[other] = Mute(bool(item.get("hide_notifications", True)),
                                  item.get("expires_at"))
    elif kind == ENDORSEMENT:
        view.endorsed.add(other)
    elif kind == DOMAIN_BLOCK:
        view.domain_blocking.add(item["domain"])
    elif kind == NOTE and item.get("comment"):
        view.notes[keys.id_in(item["SK"])] = item["comment"]


def recipients_silencing(recipient_ids: list[str], actor_id: str, actor_domain: str | None
                         ) -> dict[str, set[str]]:
    """Which recipients block the actor, mute its notifications, or block its domain — one
    batched read: {"blocking": …, "muting": …, "domain_blocking": …}."""
    wanted = [k for r in recipient_ids for k in (keys.block(r, actor_id), keys.mute(r, actor_id))]
    if actor_domain:
        wanted += [keys.user_domain_block(r, actor_domain) for r in recipient_ids]
    found: dict[str, set[str]] = {"blocking": set(), "muting": set(), "domain_blocking": set()}
    for item in base.batch_get(wanted):
        if item.get("type") == BLOCK:
            found["blocking"].add(item["account_id"])
        elif item.get("type") == MUTE and item.get("hide_notifications", True):
            found["muting"].add(item["account_id"])
        elif item.get("type") == DOMAIN_BLOCK:
            found["domain_blocking"].add(item["account_id"])
    return found


# --- listings -------------------------------------------------------------------------------------
def _entries(partition: str, index: str, lo: str, hi: str, descending: bool,
             budget: Budget | None, step: int) -> Iterator[dict[str, Any]]:
    return base.query(partition, index=index, sk_between=(lo, hi), descending=descending,
                      budget=budget, step=step)


def followers(account_id: str, lo: str, hi: str, descending: bool, *,
              budget: Budget | None = None, step: int = 100) -> Iterator[Follow]:
    """Follows of an account, by follow id (records: id, account_id = the follower)."""
    return base.records(_entries(keys.followers_of(account_id), "GSI1", lo, hi, descending,
                                 budget, step))


def followings(account_id: str, lo: str, hi: str, descending: bool, *,
               budget: Budget | None = None, step: int = 100) -> Iterator[dict[str, Any]]:
    """Follows an account made, by follow id (records: id, target_id = the followed)."""
    return base.records(_entries(keys.followings_of(account_id), "GSI2", lo, hi, descending,
                                 budget, step))


def following_ids(account_id: str) -> list[str]:
    """Everyone an account follows (its whole following index, ids only)."""
    return [e["target_id"] for e in base.query(keys.followings_of(account_id), index="GSI2",
                                               projection="target_id")]


def follows_among(pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
    """Which (follower, followed) pairs are follows now (base-table reads: never stale)."""
    if not pairs:
        return set()
    found = base.batch_get([keys.follow(a, b) for a, b in dict.fromkeys(pairs)],
                           consistent=True)
    return {(item["account_id"], item["target_id"]) for item in found}


def following_among(account_id: str, target_ids: list[str]) -> set[str]:
    """Which of `target_ids` an account follows (base-table reads: never stale)."""
    found = base.batch_get([keys.follow(account_id, t) for t in dict.fromkeys(target_ids)],
                           consistent=True)
    return {item["target_id"] for item in found}


def follow_requests(account_id: str, lo: str, hi: str, descending: bool, *,
                    budget: Budget | None = None, step: int = 100) -> Iterator[dict[str, Any]]:
    """Pending requests to follow an account (records: id, account_id = the requester)."""
    return base.records(_entries(keys.follow_requests_of(account_id), "GSI1", lo, hi,
                                 descending, budget, step))


def follow_requests_made(account_id: str, after: str | None, limit: int
                         ) -> tuple[list[dict[str, Any]], str | None]:
    """Up to `limit` pending requests an account made, oldest first after the request id
    `after` (None: from the first), and the cursor of the next page (None at the end). Records:
    id, account_id (the requester), target_id. One Query of at most `limit` entries: the work
    is the account's own requests, however many accounts the server has."""
    lo, hi = keys.id_range(int(after) + 1 if after else None, None)
    page = list(base.records(base.query(keys.follow_requests_by(account_id), index="GSI2",
                                        sk_between=(lo, hi), limit=limit)))
    return page, (page[-1]["id"] if len(page) == limit else None)


def listed(kind: str, account_id: str, low: int | None, high: int | None, descending: bool, *,
           budget: Budget | None = None, step: int = 100) -> Iterator[dict[str, Any]]:
    """A user's blocks, mutes, domain blocks or endorsements between two ids, by when made
    (records; a domain block's always with its `domain`)."""
    return map(_listed_record, _entries(keys.edge_list_of(LISTED[kind], account_id), "GSI1",
                                        *keys.id_range(low, high), descending, budget, step))


def _listed_record(item: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = base.record(item)  # type: ignore[assignment]
    if item.get("type") == DOMAIN_BLOCK and not record.get("domain"):
        record["domain"] = keys.blocked_domain_in(item["SK"])  # also in its sort key
    return record


def domain_of(entry: dict[str, Any]) -> str:
    """The domain a domain block of `listed` is about."""
    return entry["domain"]


# --- writes ---------------------------------------------------------------------------------------
def create_op(record: dict[str, Any], on_conflict: Exception | None = None) -> base.Op:
    """Write a new edge (a record from the builders above; fails if it exists)."""
    return base.put_new(_stored(record), on_conflict=on_conflict)


def absent_op(key: dict[str, str], error: Exception) -> base.Op:
    """The transaction holds only while this edge does not exist (e.g. a block)."""
    return base.Op("ConditionCheck", key=key, condition="attribute_not_exists(PK)",
                   on_conflict=error)


def present_op(key: dict[str, str], error: Exception) -> base.Op:
    """The transaction holds only while this edge exists (e.g. the follow an endorsement
    needs, the request being accepted)."""
    return base.Op("ConditionCheck", key=key, condition="attribute_exists(PK)",
                   on_conflict=error)


def remove_op(key: dict[str, str], error: Exception | None = None) -> base.Op:
    """Delete an edge; with `error`, only if it exists."""
    if error is None:
        return base.Op("Delete", key=key)
    return base.Op("Delete", key=key, condition="attribute_exists(PK)", on_conflict=error)


def write(ops: list[base.Op]) -> None:
    base.transact(ops)


# --- endorsements and familiar followers ----------------------------------------------------------
def endorse(endorsement_id: str, account_id: str, target_id: str, *,
            not_following: Exception) -> bool:
    """Endorse an account, only while `account_id` follows it (`not_following` raised if not);
    False if it was endorsed already."""
    try:
        write([create_op(endorsement_item(endorsement_id, account_id, target_id)),
               present_op(keys.follow(account_id, target_id), not_following)])
    except base.ConditionFailed:
        return False
    return True


def unendorse(account_id: str, target_id: str) -> None:
    remove(keys.endorsement(account_id, target_id))


def endorsements(account_id: str, low: int | None, high: int | None, descending: bool, *,
                 budget: Budget | None = None, step: int = 100) -> Iterator[dict[str, Any]]:
    """A user's endorsements with ids in [low, high] (None: unbounded), by when each was made
    (records: id, target_id)."""
    return listed(ENDORSEMENT, account_id, low, high, descending, budget=budget, step=step)


def follower_ids(account_id: str) -> Iterator[str]:
    """Everyone following an account, newest follow first (its followers index)."""
    return (e["account_id"] for e in followers(account_id, *keys.id_range(None, None), True))


def follows_of(follower_ids_: Iterable[str], target_id: str) -> list[Follow]:
    """The follows of `target_id` by each of `follower_ids_` that exist (one batched read)."""
    return list(base.records(base.batch_get([keys.follow(f, target_id)
                                             for f in follower_ids_])))


# --- one edge by its ends -------------------------------------------------------------------------
def get_follow(follower_id: str, target_id: str) -> Follow | None:
    """The follow of `target_id` by `follower_id` (a consistent read), as a record."""
    return get(keys.follow(follower_id, target_id))


def get_follow_request(target_id: str, requester_id: str) -> Follow | None:
    """The pending request of `requester_id` to follow `target_id` (a consistent read), as a
    record."""
    return get(keys.follow_request(target_id, requester_id))


def update_follow(follower_id: str, target_id: str, changes: dict[str, Any]) -> None:
    """Change a follow's options (or its `uri`) in place (never a Put: that would drop the
    counters' `counted` guard); ConditionFailed when it is gone."""
    write([base.set_op(keys.follow(follower_id, target_id), changes)])


def update_follow_request(target_id: str, requester_id: str, changes: dict[str, Any]) -> None:
    """Change a pending request's options (or its `uri`) in place; ConditionFailed when it is
    gone."""
    write([base.set_op(keys.follow_request(target_id, requester_id), changes)])


def create(record: dict[str, Any]) -> bool:
    """Write a new edge (a record from the builders above) in a transaction of its own; False
    when it exists already."""
    try:
        write([create_op(record)])
    except base.ConditionFailed:
        return False
    return True
