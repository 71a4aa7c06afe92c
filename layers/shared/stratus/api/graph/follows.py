"""Follows: follow (with `reblogs`, `notify`, `languages[]`; following again changes them),
unfollow, follow requests to locked accounts (list, authorize, reject), removing a follower,
and the followers / following lists.

A request writes only the edge, in the follower's partition (a request in its target's): a
popular account's new followers never touch one item. The counts on both accounts, the
`follow` / `follow_request` notifications and their removal when the follow or request goes
away all follow from the stream (jobs/outbox.py). A follow is written in one transaction with
checks that neither account blocks the other, so a concurrent block cannot leave one behind.

Follows across servers (docs/federation.md, "Follows across servers"): a follow of a remote
account is always a request until its server accepts; what the inbox changes is
federation/follows.py's. Edges across servers carry `uri`, the id of their Follow activity;
what peers are told follows from the stream as well.
"""

from __future__ import annotations

import re
from typing import Any

from stratus.core import ids
from stratus.core.errors import Forbidden, NotFound, ValidationFailed
from stratus.core.paging import Budget, Page, fill_page
from stratus.core.params import truthy
from stratus.federation import follows as federation_follows
from stratus.http import ratelimit
from stratus.model.relationships import FollowOptions
from stratus.model.viewer import Viewer
from stratus.read import accounts as accounts_read
from stratus.read import relationships
from stratus.repo import follows as follows_repo
from stratus.repo import relationships as repo
from stratus.repo import transaction

SELF_FOLLOW = "Following your own account is not allowed"
NOT_ALLOWED = "This action is not allowed"
LANGUAGE = re.compile(r"^[a-z]{2,3}$")


def _languages(raw: Any) -> tuple[str, ...] | None:
    """`languages[]`: ISO 639 codes; empty means every language (None)."""
    values = raw if isinstance(raw, list) else [raw]
    codes = [str(v).strip().lower() for v in values if v is not None and str(v).strip()]
    if any(not LANGUAGE.match(code) for code in codes):
        raise ValidationFailed({"languages": [("ERR_INVALID", "is invalid")]})
    return tuple(dict.fromkeys(codes)) or None


def _changes(params: dict[str, Any]) -> dict[str, Any]:
    """The follow options a request sets (absent ones stay as they are)."""
    changes: dict[str, Any] = {}
    if truthy(params.get("reblogs")) is not None:
        changes["show_reblogs"] = truthy(params["reblogs"])
    if truthy(params.get("notify")) is not None:
        changes["notify"] = truthy(params["notify"])
    if "languages" in params and params["languages"] is not None:
        languages = _languages(params["languages"])
        changes["languages"] = list(languages) if languages else None
    return changes


def _options(current: FollowOptions | None, changes: dict[str, Any]) -> FollowOptions:
    base_ = current or FollowOptions()
    languages = changes["languages"] if "languages" in changes else base_.languages
    return FollowOptions(reblogs=changes.get("show_reblogs", base_.reblogs),
                         notify=changes.get("notify", base_.notify),
                         languages=tuple(languages) if languages else None)


def follow(viewer: Viewer, target_id: str, params: dict[str, Any]
           ) -> tuple[dict[str, Any], dict[str, str]]:
    """POST /api/v1/accounts/:id/follow: (Relationship, rate-limit headers). A locked account
    gets a follow request; following (or asking) again changes the options given."""
    target = relationships.subject(viewer, target_id)
    me = viewer.account_id
    if target.profile.get("suspended_at"):
        raise NotFound()  # Mastodon: an unavailable account cannot be followed
    if target.id == me:
        raise Forbidden(SELF_FOLLOW)
    view = target.relations
    if target.id in view.blocked_by or target.id in view.blocking or \
            view.blocks_domain(target.domain):
        raise Forbidden(NOT_ALLOWED)
    changes = _changes(params)
    headers: dict[str, str] = {}
    if target.id in view.following or target.id in view.requested:
        requested = target.id not in view.following
        if changes:
            try:
                if requested:
                    repo.update_follow_request(target.id, me, changes)
                else:
                    repo.update_follow(me, target.id, changes)
            except transaction.ConditionFailed:  # unfollowed or accepted meanwhile: again
                return follow(viewer, target_id, params)
        current = view.requested if requested else view.following
        current[target.id] = _options(current[target.id], changes)
        return target.entity(), headers
    headers = ratelimit.check(ratelimit.FOLLOWS, me)
    options = _options(None, changes)
    # A remote account is always asked (Mastodon): the request waits for its server's Accept,
    # and carries the id of the Follow activity that the outbox delivers (federation/delivery.py).
    remote = bool(target.domain)
    locked = remote or bool(target.profile.get("locked"))
    uri = federation_follows.activity_uri() if remote else None
    item = (repo.follow_request_item(ids.new_id(), me, target.id, options, uri=uri,
                                     remote_target=remote) if locked
            else repo.follow_item(ids.new_id(), me, target.id, options))
    if not follows_repo.create_unless_blocked(item, blocked=Forbidden(NOT_ALLOWED)):
        # Made concurrently: apply the options to it.
        return follow(viewer, target_id, params)[0], headers
    (view.requested if locked else view.following)[target.id] = options
    return target.entity(), headers


def unfollow(viewer: Viewer, target_id: str) -> dict[str, Any]:
    """POST /api/v1/accounts/:id/unfollow: ends the follow (and the viewer's endorsement of
    the account), or withdraws a pending request."""
    target = relationships.subject(viewer, target_id)
    me, view = viewer.account_id, target.relations
    if target.id in view.following:
        _end_follow(me, target.id)
    if target.id in view.requested:
        follows_repo.remove_follow_request(target.id, me)
    view.following.pop(target.id, None)
    view.requested.pop(target.id, None)
    view.endorsed.discard(target.id)
    return target.entity()


def _end_follow(follower_id: str, followed_id: str) -> None:
    """A follow ends, and the follower's endorsement of the account with it, and both
    accounts' counts. What follows is the stream's (jobs/outbox.py): the home feed, and the
    other server is told (an Undo(Follow) to a followed remote account, a Reject(Follow) to a
    remote follower)."""
    follows_repo.end_follow(follower_id, followed_id)


def remove_from_followers(viewer: Viewer, target_id: str) -> dict[str, Any]:
    """POST /api/v1/accounts/:id/remove_from_followers: the account stops following the viewer
    (and endorsing them)."""
    target = relationships.subject(viewer, target_id)
    me, view = viewer.account_id, target.relations
    if target.id in view.followed_by:
        _end_follow(target.id, me)
    view.followed_by.discard(target.id)
    return target.entity()


# --- follow requests ------------------------------------------------------------------------------
def authorize(viewer: Viewer, requester_id: str) -> dict[str, Any]:
    """POST /api/v1/follow_requests/:account_id/authorize: the request becomes a follow with
    its options, in one transaction (Mastodon sends no `follow` notification for it; the
    `follow_request` one goes with the request)."""
    requester = relationships.subject(viewer, requester_id)
    me = viewer.account_id
    request = repo.get_follow_request(me, requester.id)
    if request is None:
        raise NotFound()
    options = FollowOptions(reblogs=bool(request.get("show_reblogs", True)),
                            notify=bool(request.get("notify", False)),
                            languages=tuple(request["languages"]) if request.get("languages")
                            else None)
    follow_ = None
    if requester.id not in requester.relations.followed_by:
        # A remote requester's follow keeps its Follow's id: the outbox Accepts it.
        follow_ = repo.follow_item(ids.new_id(), requester.id, me, options, authorized=True,
                                   uri=request.get("uri"))
    # False: it follows already (authorized concurrently); the request is gone either way.
    follows_repo.authorize_request(request, follow_, gone=NotFound())
    requester.relations.requested_by.discard(requester.id)
    requester.relations.followed_by.add(requester.id)
    return requester.entity()


def reject(viewer: Viewer, requester_id: str) -> dict[str, Any]:
    """POST /api/v1/follow_requests/:account_id/reject."""
    requester = relationships.subject(viewer, requester_id)
    if follows_repo.remove_follow_request(viewer.account_id, requester.id) is None:
        raise NotFound()
    requester.relations.requested_by.discard(requester.id)
    return requester.entity()


# --- lists ----------------------------------------------------------------------------------------
def _bounds(page: Page) -> tuple[int | None, int | None, bool]:
    return (*page.id_range(), not page.ascending)


def account_page(entries, account_of, page: Page, budget: Budget,
                 keep=None, without_suspended: bool = False
                 ) -> tuple[list[dict[str, Any]], list[str]]:
    """A page of accounts from edge index entries: (accounts, edge ids for the Link header).
    Accounts not shown (and those `keep(account_id)` refuses; suspended ones
    `without_suspended`) are left out."""

    def hydrate(batch: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        people = accounts_read.render_many([account_of(e) for e in batch])
        return [(e["id"], people[account_of(e)]) for e in batch
                if account_of(e) in people and (keep is None or keep(account_of(e)))
                and not (without_suspended and people[account_of(e)].get("suspended"))]

    filled = fill_page(entries, hydrate, page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda pair: pair[0])
    return [account for _, account in filled.items], filled.link_ids


def _collection(viewer: Viewer | None, account_id: str, page: Page, followers_: bool
                ) -> tuple[list[dict[str, Any]], list[str]]:
    owner = accounts_read.get_account(account_id)  # 404 for unknown or hidden accounts
    viewer_id = viewer.account_id if viewer else None
    relations = relationships.loader(viewer_id)
    mine = viewer_id == owner["id"]
    # Mastodon: hidden from an account it blocks, and (hide_collections) from all but its owner.
    if owner["id"] in relations.accounts([owner["id"]]).blocked_by or \
            (owner.get("hide_collections") and not mine) or owner.get("suspended"):
        return [], []
    budget = Budget()
    low, high, descending = _bounds(page)
    listing = follows_repo.followers_between if followers_ else follows_repo.followings_between
    entries = listing(owner["id"], low, high, descending, budget=budget, step=page.step)
    account_of = (lambda e: e["account_id"]) if followers_ else (lambda e: e["target_id"])

    def keep(account: str) -> bool:
        # Others do not see the accounts they block, are blocked by, or mute; the owner
        # sees everyone (muted accounts included).
        return mine or viewer_id is None or not relations.view.excludes(account)

    if not mine and viewer_id is not None:
        entries = preloading(entries, account_of, relations)
    # Mastodon lists followers and followings without suspended accounts.
    return account_page(entries, account_of, page, budget, keep, without_suspended=True)


def preloading(entries, account_of, relations: relationships.Loader, size: int = 25):
    """Index entries, with the viewer's relationships to their accounts loaded a batch ahead
    (one batched read per batch of entries, not one per entry)."""
    batch: list[dict[str, Any]] = []
    for entry in entries:
        batch.append(entry)
        if len(batch) >= size:
            relations.accounts([account_of(e) for e in batch])
            yield from batch
            batch = []
    if batch:
        relations.accounts([account_of(e) for e in batch])
        yield from batch


def followers(viewer: Viewer | None, account_id: str, page: Page
              ) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/accounts/:id/followers, newest follow first, paginated by follow id."""
    return _collection(viewer, account_id, page, True)


def following(viewer: Viewer | None, account_id: str, page: Page
              ) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/accounts/:id/following, newest follow first, paginated by follow id."""
    return _collection(viewer, account_id, page, False)


def requests(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/follow_requests: accounts asking to follow the viewer, newest first."""
    budget = Budget()
    low, high, descending = _bounds(page)
    entries = follows_repo.requests_between(viewer.account_id, low, high, descending,
                                            budget=budget, step=page.step)
    return account_page(entries, lambda e: e["account_id"], page, budget)
