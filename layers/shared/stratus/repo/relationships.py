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

import itertools
from dataclasses import dataclass, field
from collections.abc import Iterable, Iterator
from typing import Any

from stratus.core import clock, ids
from stratus.core.errors import NotFound
from stratus.core.paging import Budget
from stratus.model.relationships import FollowOptions, Mute, Relationships
from stratus.repo import accounts as accounts_repo
from stratus.repo import base, keys

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
    """`authorized`: made by accepting a follow request (Mastodon notifies nobody then)."""
    return {**keys.follow(follower_id, target_id), "type": FOLLOW, "id": follow_id,
            "account_id": follower_id, "target_id": target_id, **_options(options),
            "created_at": created_at or clock.iso(clock.now()),
            **({"authorized": True} if authorized else {}), **_federated(uri, remote_target),
            **keys.follow_index_keys(follower_id, target_id, follow_id)}


def follow_request_item(request_id: str, requester_id: str, target_id: str,
                        options: FollowOptions, *, uri: str | None = None,
                        remote_target: bool = False) -> dict[str, Any]:
    return {**keys.follow_request(target_id, requester_id), "type": FOLLOW_REQUEST,
            "id": request_id, "account_id": requester_id, "target_id": target_id,
            **_options(options), "created_at": clock.iso(clock.now()),
            **_federated(uri, remote_target),
            **keys.follow_request_index_keys(target_id, requester_id, request_id)}


def _listed(kind: str, key: dict[str, str], edge_id: str, owner_id: str,
            **attributes: Any) -> dict[str, Any]:
    return {**key, "type": kind, "id": edge_id, "account_id": owner_id,
            "created_at": clock.iso(clock.now()), **attributes,
            **keys.edge_list_index_keys(LISTED[kind], owner_id, edge_id)}


def block_item(block_id: str, blocker_id: str, target_id: str) -> dict[str, Any]:
    return _listed(BLOCK, keys.block(blocker_id, target_id), block_id, blocker_id,
                   target_id=target_id)


def mute_item(mute_id: str, muter_id: str, target_id: str, mute: Mute) -> dict[str, Any]:
    """A mute; one with an end carries `ttl`, so it reads as absent once it has expired (every
    read filters expired items) and DynamoDB sweeps it later."""
    expiry = ({"expires_at": mute.expires_at,
               "ttl": int(clock.parse_iso(mute.expires_at).timestamp())}
              if mute.expires_at else {})
    return _listed(MUTE, keys.mute(muter_id, target_id), mute_id, muter_id, target_id=target_id,
                   hide_notifications=mute.notifications, **expiry)


def domain_block_item(block_id: str, account_id: str, domain: str) -> dict[str, Any]:
    return _listed(DOMAIN_BLOCK, keys.user_domain_block(account_id, domain), block_id,
                   account_id, domain=domain.lower())


def endorsement_item(endorsement_id: str, account_id: str, target_id: str) -> dict[str, Any]:
    return _listed(ENDORSEMENT, keys.endorsement(account_id, target_id), endorsement_id,
                   account_id, target_id=target_id)


def options_update(key: dict[str, str], changes: dict[str, Any]) -> base.Op:
    """Change a follow's or request's options in place (never a Put: that would drop the
    counters' `counted` guard)."""
    return base.set_op(key, changes)


def get(key: dict[str, str]) -> dict[str, Any] | None:
    return base.get(key, consistent=True)


def put_new(item: dict[str, Any]) -> bool:
    """Write an edge once; False if it exists already."""
    return base.put(item, condition="attribute_not_exists(PK)")


def put(item: dict[str, Any]) -> None:
    base.put(item)


def remove(key: dict[str, str]) -> dict[str, Any] | None:
    """Delete an edge; returns it as it was (None if there was none)."""
    return base.delete(key, returning=True)


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


def _follow_options(item: dict[str, Any]) -> FollowOptions:
    languages = item.get("languages")
    return FollowOptions(reblogs=bool(item.get("show_reblogs", True)),
                         notify=bool(item.get("notify", False)),
                         languages=tuple(languages) if languages else None)


@dataclass
class Alongside:
    """What `load` read in the same batch as the relationships: {account id: {part: record}}
    of the accounts asked for, and the domain blocks of `domains_blocked_by` that exist."""

    accounts: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    domain_blocks: list[dict[str, Any]] = field(default_factory=list)


def load(viewer_id: str, account_ids: Iterable[str], *, domains: Iterable[str] = (),
         full: bool = True, consistent: bool = False, accounts: Iterable[str] = (),
         parts: tuple[str, ...] = (), domains_blocked_by: tuple[str, Iterable[str]] | None = None
         ) -> tuple[Relationships, Alongside]:
    """The viewer's relationships with `account_ids` (and blocks of `domains`) from one batched
    read of deterministic keys, both ways. `full=False` reads only what the visibility policy
    needs (follows, blocks both ways, mutes). Read in the same batch: the `parts` of
    `accounts` (e.g. their profiles) and whether the account of `domains_blocked_by` blocks
    any of its domains."""
    targets = [a for a in dict.fromkeys(account_ids) if a != viewer_id]
    domains = sorted({d.lower() for d in domains if d})
    wanted = [k for t in targets for k in _view_keys(viewer_id, t, full)]
    wanted += [keys.user_domain_block(viewer_id, d) for d in domains]
    extra = accounts_repo.bundle_keys(list(dict.fromkeys(accounts)), parts)
    if domains_blocked_by is not None:
        owner, owner_domains = domains_blocked_by
        extra += [keys.user_domain_block(owner, d) for d in owner_domains]
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
            view.following[other] = _follow_options(item)
        else:
            view.followed_by.add(other)
    elif kind == FOLLOW_REQUEST:
        if mine:
            view.requested[other] = _follow_options(item)
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
              budget: Budget | None = None, step: int = 100) -> Iterator[dict[str, Any]]:
    """Follows of an account, by follow id (index entries: id, account_id = the follower)."""
    return _entries(keys.followers_of(account_id), "GSI1", lo, hi, descending, budget, step)


def followings(account_id: str, lo: str, hi: str, descending: bool, *,
               budget: Budget | None = None, step: int = 100) -> Iterator[dict[str, Any]]:
    """Follows an account made, by follow id (index entries: id, target_id = the followed)."""
    return _entries(keys.followings_of(account_id), "GSI2", lo, hi, descending, budget, step)


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
    """Pending requests to follow an account (index entries: id, account_id = the requester)."""
    return _entries(keys.follow_requests_of(account_id), "GSI1", lo, hi, descending, budget,
                    step)


def follow_requests_made(account_id: str, after: str | None, limit: int
                         ) -> tuple[list[dict[str, Any]], str | None]:
    """Up to `limit` pending requests an account made, oldest first after the request id
    `after` (None: from the first), and the cursor of the next page (None at the end). Index
    entries: id, account_id (the requester), target_id. One Query of at most `limit` entries:
    the work is the account's own requests, however many accounts the server has."""
    lo, hi = keys.id_range(int(after) + 1 if after else None, None)
    page = list(base.query(keys.follow_requests_by(account_id), index="GSI2",
                           sk_between=(lo, hi), limit=limit))
    return page, (page[-1]["id"] if len(page) == limit else None)


def listed(kind: str, account_id: str, low: int | None, high: int | None, descending: bool, *,
           budget: Budget | None = None, step: int = 100) -> Iterator[dict[str, Any]]:
    """A user's blocks, mutes, domain blocks or endorsements between two ids, by when made."""
    return _entries(keys.edge_list_of(LISTED[kind], account_id), "GSI1",
                    *keys.id_range(low, high), descending, budget, step)


def domain_of(entry: dict[str, Any]) -> str:
    """The domain a domain-block index entry is about (its base-table sort key)."""
    return entry.get("domain") or keys.blocked_domain_in(entry["SK"])


def _get_many(item_keys: list[dict[str, str]]) -> list[dict[str, Any]]:
    return base.batch_get(item_keys)


# --- writes ---------------------------------------------------------------------------------------
def create_op(item: dict[str, Any], on_conflict: Exception | None = None) -> base.Op:
    """Write a new edge (fails if it exists)."""
    return base.put_new(item, on_conflict=on_conflict)


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


def follow_options(item: dict[str, Any]) -> FollowOptions:
    """The options a follow or request item carries."""
    return _follow_options(item)


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
    (index entries: id, target_id)."""
    return listed(ENDORSEMENT, account_id, low, high, descending, budget=budget, step=step)


def follower_ids(account_id: str) -> Iterator[str]:
    """Everyone following an account, newest follow first (its followers index)."""
    return (e["account_id"] for e in followers(account_id, *keys.id_range(None, None), True))


def follows_of(follower_ids_: Iterable[str], target_id: str) -> list[dict[str, Any]]:
    """The follows of `target_id` by each of `follower_ids_` that exist (one batched read)."""
    return _get_many([keys.follow(f, target_id) for f in follower_ids_])


# --- one edge by its ends -------------------------------------------------------------------------
def get_follow(follower_id: str, target_id: str) -> dict[str, Any] | None:
    """The follow of `target_id` by `follower_id` (a consistent read)."""
    return get(keys.follow(follower_id, target_id))


def get_follow_request(target_id: str, requester_id: str) -> dict[str, Any] | None:
    """The pending request of `requester_id` to follow `target_id` (a consistent read)."""
    return get(keys.follow_request(target_id, requester_id))


def update_follow(follower_id: str, target_id: str, changes: dict[str, Any]) -> None:
    """Change a follow's options (or its `uri`) in place; ConditionFailed when it is gone."""
    write([options_update(keys.follow(follower_id, target_id), changes)])


def update_follow_request(target_id: str, requester_id: str, changes: dict[str, Any]) -> None:
    """Change a pending request's options (or its `uri`) in place; ConditionFailed when it is
    gone."""
    write([options_update(keys.follow_request(target_id, requester_id), changes)])


def create(item: dict[str, Any]) -> bool:
    """Write a new edge in a transaction of its own; False when it exists already."""
    try:
        write([create_op(item)])
    except base.ConditionFailed:
        return False
    return True


def end_follow(follower_id: str, followed_id: str) -> None:
    """A follow ends, and the follower's endorsement of the account with it (what follows —
    counts, feeds, telling the other server — is the stream's)."""
    write([remove_op(keys.follow(follower_id, followed_id)),
           remove_op(keys.endorsement(follower_id, followed_id))])


def remove_follow_request(target_id: str, requester_id: str) -> dict[str, Any] | None:
    """Delete a pending request; returns it as it was (None if there was none)."""
    return remove(keys.follow_request(target_id, requester_id))


def _end_quietly(key: dict[str, str]) -> bool:
    """Remove an edge the remote side ended: it is marked `quiet` first, so that the outbox
    announces nothing (no Undo or Reject back to the server that ended it). False: no edge."""
    try:
        write([base.set_op(key, {"quiet": True})])
    except base.ConditionFailed:
        return False
    remove(key)
    return True


def end_follow_quietly(follower_id: str, target_id: str) -> bool:
    """End a follow the other server ended (nothing is announced back); False: none."""
    return _end_quietly(keys.follow(follower_id, target_id))


def end_follow_request_quietly(target_id: str, requester_id: str) -> bool:
    """End a pending request the other server ended (nothing is announced back); False: none."""
    return _end_quietly(keys.follow_request(target_id, requester_id))


def accept_remote_request(local_id: str, remote_id: str) -> bool:
    """A remote account accepted the local account's request: in one transaction the request
    goes and a follow with its options and Follow id is made. False when there was no request
    to a remote account (already accepted, or never asked), or it was accepted concurrently."""
    request = get_follow_request(remote_id, local_id)
    if request is None or not request.get("remote_target"):
        return False
    options = follow_options(request)
    try:
        write([remove_op(keys.follow_request(remote_id, local_id), NotFound()),
               create_op(follow_item(ids.new_id(), local_id, remote_id, options,
                                     authorized=True, uri=request.get("uri"),
                                     remote_target=True))])
    except (base.ConditionFailed, NotFound):
        return False
    return True


def followings_after(account_id: str, after: str | None, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` follows an account made, oldest first after the follow id `after` (None:
    from the first): index entries (id, target_id = the followed)."""
    lo, hi = keys.id_range(int(after) + 1 if after else None, None)
    return list(itertools.islice(followings(account_id, lo, hi, False, step=limit), limit))
