"""Blocks, mutes and user domain blocks, and their lists.

A block ends the follows both ways, the pending requests both ways and the endorsements that
went with the follows, in the transaction that writes it (a follow checks for blocks in its
own transaction, so the two cannot interleave). What follows from the stream: the counters,
the notifications those follows and requests made, and the blocked account's notifications
to the blocker (Mastodon's AfterBlockService). A mute may end by itself (`duration`): the mute
carries `ttl`, so every read treats it as gone once it has expired.
"""

from __future__ import annotations

from typing import Any

from stratus.api.graph import follows
from stratus.core import clock, ids
from stratus.core.errors import ValidationFailed
from stratus.core.paging import Budget, Page, fill_page
from stratus.core.params import flag, to_i
from stratus.model.relationships import Mute
from stratus.model.viewer import Viewer
from stratus.read import accounts as accounts_read
from stratus.read import domain_blocks as domain_policy
from stratus.read import relationships
from stratus.repo import accounts as accounts_repo
from stratus.repo import blocks as blocks_repo
from stratus.repo import relationships as repo


def block(viewer: Viewer, target_id: str) -> dict[str, Any]:
    """POST /api/v1/accounts/:id/block."""
    target = relationships.subject(viewer, target_id)
    me, view = viewer.account_id, target.relations
    if target.id == me or target.id in view.blocking:
        return target.entity()
    # False: blocked concurrently, and that block's transaction ended the same edges
    blocks_repo.block(me, target.id)
    view.blocking.add(target.id)
    for gone in (view.following, view.requested):
        gone.pop(target.id, None)
    for gone_ in (view.followed_by, view.requested_by, view.endorsed):
        gone_.discard(target.id)
    return target.entity()


def unblock(viewer: Viewer, target_id: str) -> dict[str, Any]:
    target = relationships.subject(viewer, target_id)
    if target.id in target.relations.blocking:
        blocks_repo.unblock(viewer.account_id, target.id)
    target.relations.blocking.discard(target.id)
    return target.entity()


def _duration(raw: Any) -> int:
    """`duration` in seconds (Rails' `to_i`: anything unreadable is 0 = no end)."""
    return max(to_i(raw), 0)


def mute(viewer: Viewer, target_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """POST /api/v1/accounts/:id/mute: `notifications` (default true) and `duration` seconds
    (0: until unmuted). Muting again changes both."""
    target = relationships.subject(viewer, target_id)
    me = viewer.account_id
    if target.id == me:
        return target.entity()
    seconds = _duration(params.get("duration"))
    # Whole seconds: the expiry is also the item's `ttl`, which DynamoDB keeps in seconds.
    ends = clock.after(seconds) if seconds else None
    if seconds and ends is None:
        raise ValidationFailed({"duration": [("ERR_INVALID", "is invalid")]})
    ends = ends.replace(microsecond=0) if ends else None
    value = Mute(notifications=flag(params.get("notifications"), True),
                 expires_at=clock.iso(ends) if ends else None)
    existing = blocks_repo.mute_of(me, target.id)
    mute_id = existing["id"] if existing else ids.new_id()  # a changed mute keeps its place
    blocks_repo.mute(mute_id, me, target.id, value)
    target.relations.muting[target.id] = value
    return target.entity()


def unmute(viewer: Viewer, target_id: str) -> dict[str, Any]:
    target = relationships.subject(viewer, target_id)
    if target.id in target.relations.muting:
        blocks_repo.unmute(viewer.account_id, target.id)
    target.relations.muting.pop(target.id, None)
    return target.entity()


# --- user domain blocks ---------------------------------------------------------------------------
def block_domain(viewer: Viewer, raw: Any) -> None:
    """POST /api/v1/domain_blocks: hide everything from a domain. The follows to and from its
    accounts, and its requests to follow the user, end from the stream (the outbox's rule on
    the block's insert: federation/follows.end_follows_with_domain)."""
    domain = domain_policy.validated(raw)
    blocks_repo.block_domain(viewer.account_id, domain)


def domain_block_preview(viewer: Viewer, raw: Any) -> dict[str, int]:
    """GET /api/v1/domain_blocks/preview (Mastodon 4.4's DomainBlockPreview): how many accounts
    of the domain the viewer follows and is followed by, what blocking it would end. Read from
    the viewer's own follow indexes and those accounts' profiles (batched), so the cost is the
    viewer's graph, not the domain's size. A blank or invalid domain is 422, as a block of it
    would be (Mastodon counts local accounts for a missing one)."""
    domain = domain_policy.validated(raw)
    following = repo.following_ids(viewer.account_id)
    followers = list(repo.follower_ids(viewer.account_id))
    bundles = accounts_repo.get_many(list(dict.fromkeys(following + followers)),
                                     parts=(accounts_repo.PROFILE,))

    def of_domain(account_id: str) -> bool:
        profile = bundles.get(account_id, {}).get(accounts_repo.PROFILE) or {}
        return (profile.get("domain") or "").lower() == domain

    return {"following_count": sum(map(of_domain, following)),
            "followers_count": sum(map(of_domain, followers))}


def unblock_domain(viewer: Viewer, raw: Any) -> None:
    if isinstance(raw, str) and raw.strip():
        try:
            domain = domain_policy.validated(raw)
        except ValidationFailed:
            return
        blocks_repo.unblock_domain(viewer.account_id, domain)


def _listing(kind: str, viewer: Viewer, page: Page):
    budget = Budget()
    return repo.listed(kind, viewer.account_id, *page.id_range(), not page.ascending, budget=budget,
                       step=page.step), budget


def domain_blocks(viewer: Viewer, page: Page) -> tuple[list[str], list[str]]:
    """GET /api/v1/domain_blocks: domains (strings), newest first, paginated by block id."""
    entries, budget = _listing(repo.DOMAIN_BLOCK, viewer, page)
    filled = fill_page(entries, lambda batch: [(e["id"], repo.domain_of(e)) for e in batch],
                       page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda pair: pair[0])
    return [domain for _, domain in filled.items], filled.link_ids


def blocks(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/blocks: blocked accounts, newest block first."""
    entries, budget = _listing(repo.BLOCK, viewer, page)
    return follows.account_page(entries, lambda e: e["target_id"], page, budget)


def mutes(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/mutes: MutedAccount entities (Account + `mute_expires_at`), newest first;
    expired mutes are gone."""
    entries, budget = _listing(repo.MUTE, viewer, page)

    def hydrate(batch: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        people = accounts_read.render_many([e["target_id"] for e in batch])
        return [(e["id"], {**people[e["target_id"]],
                           "mute_expires_at": clock.iso(clock.from_epoch(e["ttl"]))
                           if e.get("ttl") else None})
                for e in batch if e["target_id"] in people]

    filled = fill_page(entries, hydrate, page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda pair: pair[0])
    return [account for _, account in filled.items], filled.link_ids
