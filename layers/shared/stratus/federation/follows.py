"""Follows across servers (docs/federation.md, "Follows across servers"): what the inbox's
Follow, Accept, Reject and Undo change (`remote_follow`, `remote_accepted`, `remote_rejected`,
`remote_unfollowed`), the Reject of a Follow that stored nothing, the id of a new Follow
activity, and the bounded steps that end a suspended remote account's follows and a local
account's follows with a domain it blocks.

Edges across servers carry `uri`, the id of their Follow activity; what peers are told follows
from the stream (jobs/outbox.py), as for the follows the API makes (api/graph/follows.py).
"""

from __future__ import annotations

import uuid

from stratus.convert import activitypub as ap
from stratus.core import hosts, ids
from stratus.core.errors import NotFound, Permanent
from stratus.model.relationships import FollowOptions
from stratus.repo import accounts as accounts_repo
from stratus.repo import blocks as blocks_repo
from stratus.repo import follows as follows_repo
from stratus.repo import queues, remote_follows
from stratus.repo import relationships as repo

FEDERATION = "federation"  # the queue a Reject(Follow) job goes to (federation/delivery.py)


def activity_uri() -> str:
    """A new activity id under our domain (Mastodon's TagManager#generate_uri_for: a UUID)."""
    return f"{ap.base()}/{uuid.uuid4()}"


def reject_follow(local_id: str, remote_id: str, activity_id: str) -> None:
    """Reject a remote Follow that stored nothing (the local account blocks its author, or is
    unavailable): a federation job, as the outbox would make."""
    from stratus.jobs import messages as jobs  # lazy: its job classes are ~25 ms of INIT

    item = {"id": ids.new_id(), "type": "follow", "account_id": remote_id,
            "target_id": local_id, "uri": activity_id}
    queues.send(FEDERATION, [jobs.Federate(
        event_id=f"reject:{activity_id}", kind="reject", account_id=local_id,
        item=item).to_dict()])


def remote_follow(remote_id: str, local_id: str, activity_id: str) -> str:
    """A remote account's Follow of a local one (Mastodon's ActivityPub::Activity::Follow):
    'followed' (a follow; the outbox delivers the Accept), 'requested' (the local account is
    locked: a follow request, accepted or rejected later) or 'rejected' (the local account
    blocks it or its domain, or is unavailable: a Reject is delivered, nothing is stored).
    A Follow of an account it already follows answers Accept again when its id is new."""
    relations, alongside = repo.load(local_id, [remote_id], domains=[], consistent=True,
                                     accounts=[local_id, remote_id],
                                     parts=(accounts_repo.PROFILE,))
    bundles = alongside.accounts
    local = bundles.get(local_id, {}).get(accounts_repo.PROFILE)
    remote = bundles.get(remote_id, {}).get(accounts_repo.PROFILE)
    if local is None or remote is None or local.get("domain") or not remote.get("domain"):
        raise NotFound()
    more, _ = repo.load(local_id, [], domains=[remote["domain"]], consistent=True)
    relations.merge(more)
    if local.get("suspended_at") or remote_id in relations.blocking or \
            remote_id in relations.blocked_by or relations.blocks_domain(remote["domain"]):
        reject_follow(local_id, remote_id, activity_id)
        return "rejected"
    if remote_id in relations.followed_by:
        current = repo.get_follow(remote_id, local_id)
        if current is not None and current.get("uri") != activity_id:
            repo.update_follow(remote_id, local_id, {"uri": activity_id})  # the Accept again
        return "followed"
    if remote_id in relations.requested_by:
        repo.update_follow_request(local_id, remote_id, {"uri": activity_id})
        return "requested"
    locked = bool(local.get("locked")) or bool(remote.get("silenced_at"))
    item = (repo.follow_request_item(ids.new_id(), remote_id, local_id, FollowOptions(),
                                     uri=activity_id) if locked
            else repo.follow_item(ids.new_id(), remote_id, local_id, FollowOptions(),
                                  uri=activity_id))
    repo.create(item)  # False: the same Follow, processed twice at once
    return "requested" if locked else "followed"


def remote_accepted(local_id: str, remote_id: str) -> bool:
    """The remote account accepted our request: it becomes a follow (no notification: the
    followed account is not ours; its statuses come into the home timeline). False when
    there was no request (already accepted, or never asked)."""
    return remote_follows.accept_remote_request(local_id, remote_id)


def remote_rejected(local_id: str, remote_id: str) -> bool:
    """The remote account rejected our request, or removed us from its followers (Reject of
    an accepted Follow): the request or the follow goes, and nothing is sent back."""
    ended = remote_follows.end_follow_request_quietly(remote_id, local_id)
    return remote_follows.end_follow_quietly(local_id, remote_id) or ended


def remote_unfollowed(remote_id: str, local_id: str) -> bool:
    """Undo(Follow) from the remote account: its follow of (or request to) the local account
    goes, and nothing is sent back."""
    ended = remote_follows.end_follow_request_quietly(local_id, remote_id)
    return remote_follows.end_follow_quietly(remote_id, local_id) or ended


# --- a suspended remote account's follows ---------------------------------------------------------
REJECTED_PER_STEP = 100  # follows, or pending requests, removed per step
FOLLOWS, REQUESTS = "follows", "requests"  # the two phases a cursor names


def reject_follows_of_suspended(remote_id: str, cursor: str | None = None) -> str | None:
    """One bounded step of Mastodon's SuspendAccountService#reject_remote_follows!: a suspended
    remote account keeps nothing of ours, so each of its follows of local accounts ends (it
    would otherwise keep receiving their followers-only posts on its server) and so does each
    pending follow request it made. Both are removed through the verbs an unfollow and a
    rejected request use: the stream counts them and delivers a Reject(Follow) to the
    account's own inbox — the one activity a suspended account still gets
    (federation/delivery.py). Irreversible, as in Mastodon: unsuspending makes it follow nothing
    again.

    Each phase pages the account's own edges (its followings, then the requests it made, both
    indexed by requester), so the work is its own follows and requests, not the number of
    local accounts. Returns the cursor the next step starts from, None when done (or when the
    account is not, or no longer, a suspended remote account). A step run twice removes and
    sends nothing twice: a removed edge is gone, and the cursor only moves forward."""
    profile = accounts_repo.get_profile(remote_id)
    if profile is None or not profile.get("domain") or not profile.get("suspended_at"):
        return None
    phase, _, after = (cursor or FOLLOWS + ":").partition(":")
    if phase == FOLLOWS:
        page = remote_follows.followings_after(remote_id, after or None, REJECTED_PER_STEP)
        for entry in page:
            follows_repo.end_follow(remote_id, entry["target_id"])
        return f"{FOLLOWS}:{page[-1]['id']}" if len(page) == REJECTED_PER_STEP \
            else f"{REQUESTS}:"
    if phase != REQUESTS:
        raise ValueError(f"unknown cursor {cursor!r}")
    made, next_after = repo.follow_requests_made(remote_id, after or None,
                                                 REJECTED_PER_STEP)
    for request in made:
        follows_repo.remove_follow_request(request["target_id"], remote_id)
    return f"{REQUESTS}:{next_after}" if next_after else None


# --- a local account's follows with a domain it blocks --------------------------------------------
ENDED_PER_STEP = 100  # edges of the account read per step
FOLLOWERS, REQUESTED, FOLLOWING = "followers", "requested", "following"  # the walk's phases
PHASES = (FOLLOWERS, REQUESTED, FOLLOWING)


def _on_domain(domain: str, account_ids: list[str]) -> list[str]:
    """Which of `account_ids` are accounts of `domain` as a user domain block names it (the
    host without its port: core/hosts.py), their profiles read in one batch."""
    if not account_ids:
        return []
    bundles = accounts_repo.get_many(account_ids, (accounts_repo.PROFILE,))
    return [a for a in account_ids
            if hosts.hostname((bundles.get(a, {}).get(accounts_repo.PROFILE) or {})
                              .get("domain")) == domain]


def end_follows_with_domain(local_id: str, domain: str, cursor: str | None = None
                            ) -> tuple[int, str | None]:
    """One bounded step of Mastodon's AfterBlockDomainFromAccountService: a local account that
    blocks a domain keeps no follow with it, or its followers-only posts would go on reaching
    that domain's servers. Each follow of it by an account of the domain ends
    (`reject_existing_followers!`) and so does each pending follow request from there
    (`reject_pending_follow_requests!`): the stream delivers a Reject(Follow) for each to the
    follower's inbox. Each follow it made of the domain's accounts ends too (`remove_follows!`,
    UnfollowService: an Undo(Follow)). The edges go through the verbs an unfollow and a
    rejected request use, so they are counted as any.

    The walk pages the account's own edges — its followers, the requests it received, then its
    followings, each by edge id — and reads the other ends' profiles in one batch per page:
    one Query and one BatchGetItem a step, in proportion to the account's own graph whatever
    the size of the server, never a Scan (nothing indexes an account's followers by domain).

    Returns how many edges the step ended and the cursor the next step starts from (None when
    done, or when the account no longer blocks the domain). A step run twice ends and sends
    nothing twice: an ended edge is not found again, and the cursor only moves forward."""
    if not blocks_repo.blocks_domain(local_id, domain):
        return 0, None
    phase, _, after = (cursor or f"{FOLLOWERS}:").partition(":")
    if phase == FOLLOWERS:
        page = remote_follows.followers_after(local_id, after or None, ENDED_PER_STEP)
        ended = _on_domain(domain, [e["account_id"] for e in page])
        for follower in ended:
            follows_repo.end_follow(follower, local_id)
    elif phase == REQUESTED:
        page = remote_follows.follow_requests_after(local_id, after or None, ENDED_PER_STEP)
        ended = _on_domain(domain, [e["account_id"] for e in page])
        for requester in ended:
            follows_repo.remove_follow_request(local_id, requester)
    elif phase == FOLLOWING:
        page = remote_follows.followings_after(local_id, after or None, ENDED_PER_STEP)
        ended = _on_domain(domain, [e["target_id"] for e in page])
        for followed in ended:
            follows_repo.end_follow(local_id, followed)
    else:
        raise Permanent(f"unknown cursor {cursor!r}")
    if len(page) == ENDED_PER_STEP:
        return len(ended), f"{phase}:{page[-1]['id']}"
    following = PHASES.index(phase) + 1
    return len(ended), (f"{PHASES[following]}:" if following < len(PHASES) else None)
