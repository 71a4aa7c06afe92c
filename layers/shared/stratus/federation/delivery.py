"""Delivery of outbound activities (docs/federation.md, "Delivery").

Two queues, as Mastodon's ActivityPub::DistributionWorker and DeliveryWorker:

- **federation**: one `Federate` job per local event (the outbox's rules). `fan_out` builds the
  activity once, finds who must hear of it (Mastodon's addressing: followers' servers for a
  status, the one account an interaction is for) a bounded page of followers at a time, and
  sends one `DeliverActivity` message per inbox to the delivery queue — a server's shared
  inbox once per activity, however many of its accounts follow. A page that does not reach
  the end continues in a copy of the job carrying the activity and the inboxes already sent.
  A redelivered job (or part) sends nothing again (a once-marker per event and part).
  Nobody we do not federate with is an audience: a suspended account, an account of a
  suspended domain, or (limited federation mode) of a domain not allowed — nor an inbox on
  such a host, whatever domain its account is stored under. The one exception is a
  Reject(Follow): it is how a suspended account hears that its follows ended (Mastodon's
  SuspendAccountService#reject_remote_follows! delivers it to the account's own inbox).
- **delivery**: `attempt` signs (each attempt: a rotated key is used at once) and POSTs one
  activity to one inbox. 2xx is done; an unsalvageable answer (4xx but 401, 408 and 429; 501)
  drops it, as does an inbox on a host we no longer federate with (a domain suspended while
  the message was queued: checked again before each attempt, a Reject(Follow) excepted);
  anything else is retried on Mastodon's curve (after attempt n: n⁴ + 15 s + jitter,
  16 attempts, about two and a half days). SQS delays a message at most 15 minutes, so a
  longer wait is a message that comes back early and is sent on again with what remains.
  A per-host circuit breaker (10 consecutive failures open it for 60 s) keeps a dead server
  from being hammered: while open, messages wait for it to close without a request.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from stratus.convert import activitypub as ap
from stratus.core import clock, hosts, outbound
from stratus.federation import activities, follows
from stratus.federation import http as fed_http
from stratus.jobs import messages as jobs
from stratus.read import domain_blocks, status_views
from stratus.repo import accounts as accounts_repo
from stratus.repo import dedupe, feeds, keys, queues
from stratus.repo import delivery as repo
from stratus.repo import relationships as relationships_repo
from stratus.repo import statuses as statuses_repo

logger = logging.getLogger(__name__)

FEDERATION, DELIVERY = "federation", "delivery"
FOLLOWERS_PAGE = 200  # followers read per invocation of a fan-out (bounded work)
MAX_SENT = 5000  # shared inboxes a continuing fan-out remembers (beyond: peers dedupe by id)
ATTEMPTS = 16  # Mastodon's DeliveryWorker: sidekiq_options retry: 16
BREAKER_FAILURES = 10  # Stoplight threshold
BREAKER_OPEN = 60  # seconds (Stoplight cool-off)
RETRYABLE_4XX = (401, 408, 429)


# --- who hears of an activity --------------------------------------------------------------------
@dataclass
class Plan:
    """An activity and its audience: `followers` (the actor's followers' servers),
    `accounts` (remote accounts whose own inbox gets it), `shared` (those accounts may be
    reached through their server's shared inbox, as for statuses). `to_suspended`: a
    Reject(Follow), the one activity an account we no longer federate with still gets."""

    activity: dict[str, Any]
    signer: str | None
    followers: bool = False
    accounts: list[str] = field(default_factory=list)
    shared: bool = True
    more: list[dict[str, Any]] = field(default_factory=list)  # further activities, same audience
    to_suspended: bool = False


def _profiles(account_ids: list[str]) -> dict[str, dict[str, Any]]:
    found = accounts_repo.get_many([a for a in dict.fromkeys(account_ids) if a],
                                   (accounts_repo.PROFILE,))
    return {a: parts[accounts_repo.PROFILE] for a, parts in found.items()
            if accounts_repo.PROFILE in parts}


def _uri(profile: dict[str, Any]) -> str:
    return profile.get("uri") if profile.get("domain") else ap.actor_url(profile["username"])


def _remote(profile: dict[str, Any] | None) -> bool:
    return bool(profile and profile.get("domain"))


def _local(profile: dict[str, Any] | None) -> bool:
    return bool(profile) and not profile.get("domain")


def _note(item: dict[str, Any], author: dict[str, Any]
          ) -> tuple[dict[str, Any], list[str], list[str]] | None:
    """The Note of a local status as its author's followers see it: (object, context
    extensions, remote account ids it mentions). Rendered for the author (who sees every one
    of its statuses, private and direct too)."""
    from stratus.repo import instance as instance_repo

    rendered = status_views.render([item], item["account_id"])
    if not rendered:
        return None
    entity = rendered[0]
    mentioned = [m["id"] for m in entity["mentions"]]
    people = _profiles(mentioned)
    mention_uris = {m: _uri(p) for m, p in people.items()}
    parent = statuses_repo.get(item["in_reply_to_id"]) if item.get("in_reply_to_id") else None
    emoji_updated: dict[str, str] = {}
    if entity.get("emojis"):
        emoji_updated = {e["shortcode"]: e.get("updated_at") for e in
                         instance_repo.list_emojis()}
    obj, extensions = ap.note(item, entity, author_uri=_uri(author), mention_uris=mention_uris,
                              in_reply_to_uri=parent["uri"] if parent else None,
                              emoji_updated=emoji_updated)
    remote = [m for m, p in people.items() if _remote(p)]
    if parent and parent.get("account_id") not in remote and parent.get("account_id"):
        replied = _profiles([parent["account_id"]]).get(parent["account_id"])
        if _remote(replied) and item.get("visibility") != "direct":
            remote.append(parent["account_id"])
    return obj, extensions, remote


def _status_plan(kind: str, item: dict[str, Any], author: dict[str, Any]) -> Plan | None:
    actor = _uri(author)
    if item.get("reblog_of_id"):
        original = statuses_repo.get(item["reblog_of_id"])
        if original is None:
            return None
        original_author = _profiles([original["account_id"]]).get(original["account_id"])
        if original_author is None:
            return None
        announce = activities.announce(item["uri"], actor, item["created_at"], original["uri"],
                                       item.get("visibility", "public"), _uri(original_author))
        activity = announce if kind == "create" else activities.undo_announce(announce,
                                                                             item["id"])
        # A boost of a remote status goes to its author too (Mastodon's StatusReachFinder).
        authors = [original["account_id"]] if _remote(original_author) else []
        return Plan(activities.document(activity), item["account_id"], followers=True,
                    accounts=authors)
    direct = item.get("visibility") == "direct"
    if kind == "delete":
        mentioned = [m for m, p in _profiles(list(item.get("mention_ids") or [])).items()
                     if _remote(p)]
        return Plan(activities.document(activities.delete(item["uri"], actor)),
                    item["account_id"], followers=not direct, accounts=mentioned)
    built = _note(item, author)
    if built is None:
        return None
    obj, extensions, mentioned = built
    activity = (activities.create(obj, actor) if kind == "create"
                else activities.update(obj, actor, item.get("edited_at") or item["created_at"]))
    return Plan(activities.document(activity, extensions), item["account_id"],
                followers=not direct, accounts=mentioned)


def plan(job: jobs.Federate) -> Plan | None:
    """The activity of a local event and its audience; None when nobody elsewhere hears of it
    (a local interaction, an actor that is not ours)."""
    item, kind = job.item, job.kind
    if kind in ("create", "update", "delete"):
        author = _profiles([item["account_id"]]).get(item["account_id"])
        if not _local(author) or item.get("local") is False:
            return None
        if kind != "delete":  # rendered from what it is now (gone: its Delete follows)
            item = statuses_repo.get(item["id"])
            if item is None:
                return None
        return _status_plan(kind, item, author)
    if kind in ("like", "undo_like"):
        people = _profiles([item["account_id"], item["status_account_id"]])
        actor, author = people.get(item["account_id"]), people.get(item["status_account_id"])
        if not _local(actor) or not _remote(author):
            return None  # Mastodon tells only a remote author (FavouriteService)
        status_uri = (statuses_repo.get(item["status_id"]) or {}).get("uri")
        if status_uri is None:
            return None
        build = activities.like if kind == "like" else activities.undo_like
        return Plan(activities.document(build(item["id"], _uri(actor), status_uri)),
                    actor["id"], accounts=[author["id"]], shared=False)
    if kind in ("follow", "undo_follow"):
        people = _profiles([item["account_id"], item["target_id"]])
        actor, target = people.get(item["account_id"]), people.get(item["target_id"])
        if not _local(actor) or not _remote(target) or not item.get("uri"):
            return None
        if kind == "undo_follow" and job.item.get("type") == "follow_request" and \
                relationships_repo.get(keys.follow(actor["id"], target["id"])):
            return None  # the request was accepted, not withdrawn
        activity = (activities.follow(item["uri"], _uri(actor), _uri(target)) if kind == "follow"
                    else activities.undo_follow(item["id"], item["uri"], _uri(actor),
                                                _uri(target)))
        return Plan(activities.document(activity), actor["id"], accounts=[target["id"]],
                    shared=False)
    if kind in ("accept", "reject"):
        people = _profiles([item["account_id"], item["target_id"]])
        follower, actor = people.get(item["account_id"]), people.get(item["target_id"])
        if not _local(actor) or not _remote(follower) or not item.get("uri"):
            return None
        if kind == "reject" and item.get("type") == "follow_request" and \
                relationships_repo.get(keys.follow(follower["id"], actor["id"])):
            return None  # the request was authorized: its follow sends the Accept
        build = activities.accept_follow if kind == "accept" else activities.reject_follow
        # A Reject reaches a suspended follower (or one of a suspended domain): it ends the
        # follow on its side, so its server stops showing it our followers-only posts
        # (Mastodon's SuspendAccountService#reject_remote_follows!). It carries nothing else.
        return Plan(activities.document(build(item["id"], item["uri"], _uri(follower),
                                              _uri(actor))),
                    actor["id"], accounts=[follower["id"]], shared=False,
                    to_suspended=kind == "reject")
    if kind in ("block", "undo_block"):
        people = _profiles([item["account_id"], item["target_id"]])
        actor, target = people.get(item["account_id"]), people.get(item["target_id"])
        if not _local(actor) or not _remote(target):
            return None
        build = activities.block if kind == "block" else activities.undo_block
        return Plan(activities.document(build(item["id"], _uri(actor), _uri(target))),
                    actor["id"], accounts=[target["id"]], shared=False)
    if kind in ("update_actor", "delete_actor"):
        actor = _profiles([job.account_id]).get(job.account_id)
        if not _local(actor):
            return None
        if kind == "delete_actor":
            return Plan(activities.document(activities.delete_actor(_uri(actor))), actor["id"],
                        followers=True)
        from stratus.core.errors import NotFound
        from stratus.federation import activitypub

        try:
            document = activitypub.actor(actor["username"])
        except NotFound:  # not shown to peers (unconfirmed, unapproved): nothing to update
            return None
        if document is None:
            return None
        updated = item.get("updated_at") or item.get("created_at") or clock.iso(clock.now())
        return Plan(activities.document(activities.update_actor(document, updated),
                                        ap.ACTOR_EXTENSIONS, security=True),
                    actor["id"], followers=True)
    if kind == "flag":
        target = _profiles([item["target_id"]]).get(item["target_id"])
        if not _remote(target):
            return None
        found = statuses_repo.get_many(list(item.get("status_ids") or []))
        uris = [s["uri"] for s in found.values() if s.get("account_id") == target["id"]]
        report_uri = item.get("uri") or f"{ap.base()}/reports/{item['id']}"
        return Plan(activities.document(activities.flag(report_uri, item.get("comment") or "",
                                                        _uri(target), uris)),
                    None, accounts=[target["id"]])
    if kind == "vote":
        # One Create per choice, as Mastodon's VoteService delivers each vote record.
        poll = statuses_repo.get_poll(item["poll_id"])
        status = statuses_repo.get(poll["status_id"]) if poll and poll.get("status_id") else None
        people = _profiles([item["account_id"], (status or {}).get("account_id", "")])
        actor = people.get(item["account_id"])
        author = people.get((status or {}).get("account_id", ""))
        if poll is None or status is None or not _local(actor) or not _remote(author):
            return None
        votes = [activities.document(activities.vote(
            f"{poll['id']}-{choice}", _uri(actor), str(poll["options"][int(choice)]),
            status["uri"], _uri(author))) for choice in item.get("choices") or []
            if 0 <= int(choice) < len(poll["options"])]
        if not votes:
            return None
        return Plan(votes[0], actor["id"], accounts=[author["id"]], shared=False,
                    more=votes[1:])
    raise ValueError(f"unknown activity kind {kind!r}")


# --- fan-out (the federation queue) --------------------------------------------------------------
def _inbox(profile: dict[str, Any], shared: bool) -> str | None:
    return (profile.get("shared_inbox") if shared else None) or profile.get("inbox")


def _deliverable(inboxes: dict[str, str]) -> list[str]:
    """The inboxes (inbox -> its account's domain) we federate with: both the account's domain
    and the inbox's own host (an actor may name an inbox on another host) neither suspended
    nor, in limited federation mode, outside the allowlist (api/admin/domain_blocks.refused)."""
    checked = {i: (d, hosts.of_url(i)) for i, d in inboxes.items()}
    refused = domain_blocks.refused([h for pair in checked.values() for h in pair])
    return [i for i, pair in checked.items() if not refused.intersection(pair)]


def _digest(inbox: str) -> str:
    return hashlib.sha256(inbox.encode()).hexdigest()[:16]


def fan_out(job: jobs.Federate) -> int:
    """One part of a fan-out: the activity's inboxes (direct recipients on the first part, a
    page of followers on each) as delivery messages; the next part as a job. The number of
    delivery messages sent."""
    once = f"{job.event_id}#{job.part}" if job.event_id else None
    if once and not dedupe.claim(FEDERATION, once):
        return 0
    try:
        return _fan_out(job)
    except Exception:
        if once:
            dedupe.release(FEDERATION, once)
        raise


def _fan_out(job: jobs.Federate) -> int:
    if job.kind == REJECT_FOLLOWS:
        return _reject_follows(job)
    to_suspended = False
    if job.activity is None:
        planned = plan(job)
        if planned is None:
            return 0
        activity, signer, followers = planned.activity, planned.signer, planned.followers
        recipients = [(p, planned.shared) for p in _profiles(planned.accounts).values()]
        more, to_suspended = planned.more, planned.to_suspended
    else:
        activity, signer, followers, recipients = job.activity, job.signer, True, []
        more = []
    cursor = None
    if followers:
        page, cursor = feeds.followers_page(job.account_id, job.after, FOLLOWERS_PAGE)
        recipients += [(p, True) for p in _profiles(page).values()]
    sent = set(job.sent)
    inboxes: dict[str, str] = {}
    owners: dict[str, str] = {}  # a personal inbox -> its account (checked again at send)
    for profile, shared in recipients:
        if not _remote(profile) or (profile.get("suspended_at") and not to_suspended):
            continue  # a suspended follower or mention hears nothing (its follows end)
        inbox = _inbox(profile, shared)
        if inbox and _digest(inbox) not in sent:
            inboxes.setdefault(inbox, profile["domain"])
            if inbox == profile.get("inbox") and inbox != profile.get("shared_inbox"):
                owners.setdefault(inbox, profile["id"])
    fresh = list(inboxes) if to_suspended else _deliverable(inboxes)
    for each in (activity, *more):
        send(each, signer, fresh, owners)
    if cursor:
        remembered = [*job.sent, *(_digest(i) for i in fresh)]
        queues.send(queues.url(FEDERATION), [jobs.Federate(
            event_id=job.event_id, kind=job.kind, account_id=job.account_id, activity=activity,
            signer=signer, after=cursor, part=job.part + 1,
            sent=remembered if len(remembered) <= MAX_SENT else []).to_dict()])
    return len(fresh)


REJECT_FOLLOWS = "reject_follows"


def _reject_follows(job: jobs.Federate) -> int:
    """A remote account was suspended (the outbox's rule on its profile): one bounded step of
    ending its follows of local accounts and its pending requests (federation/follows.py), each
    removal then delivering its Reject(Follow); the next step as a copy of the job."""
    cursor = follows.reject_follows_of_suspended(job.account_id, job.after)
    if cursor is not None:
        queues.send(queues.url(FEDERATION), [jobs.Federate(
            event_id=job.event_id, kind=job.kind, account_id=job.account_id, item=job.item,
            after=cursor, part=job.part + 1).to_dict()])
    return 0


def send(activity: dict[str, Any], signer: str | None, inboxes: list[str],
         owners: dict[str, str] | None = None) -> None:
    """One delivery message per inbox (SendMessageBatch, ten a call); `owners` names the
    account of each personal inbox."""
    if not inboxes:
        return
    body = json.dumps(activity, separators=(",", ":"), ensure_ascii=False)
    owners = owners or {}
    queues.send(queues.url(DELIVERY), [
        jobs.DeliverActivity(inbox=inbox, body=body, account_id=signer,
                             recipient=owners.get(inbox)).to_dict()
        for inbox in inboxes])


# --- attempts (the delivery queue) ---------------------------------------------------------------
def retry_wait(attempt: int, rng: random.Random | None = None) -> float:
    """Seconds to wait after failed attempt `attempt` (1-based): Sidekiq's retry curve, which
    Mastodon's DeliveryWorker keeps: n⁴ + 15 + rand(10)·(n + 1)."""
    rng = rng or random
    return attempt ** 4 + 15 + rng.randrange(10) * (attempt + 1)


def unsalvageable(status: int) -> bool:
    """Mastodon's response_error_unsalvageable?: a client error but 401, 408 and 429; 501."""
    return (400 <= status < 500 and status not in RETRYABLE_4XX) or status == 501


def clock_now() -> float:
    """Epoch seconds (the time SQS delays are measured in)."""
    return time.time()


def _later(job: jobs.DeliverActivity, due: float, now: float, *, attempt: int) -> None:
    queues.send(queues.url(DELIVERY),
                [jobs.DeliverActivity(inbox=job.inbox, body=job.body, account_id=job.account_id,
                                      attempt=attempt, due=due,
                                      recipient=job.recipient).to_dict()],
                delays=[int(max(0.0, due - now))])


@functools.lru_cache(maxsize=4096)
def _username(account_id: str | None) -> str | None:
    """The signer's username (its key id names it). A local username never changes, so a warm
    worker remembers it; the key itself is read on every attempt (a rotation applies at once)."""
    if account_id is None:
        return None
    profile = _profiles([account_id]).get(account_id)
    if profile is None:
        raise ValueError(f"no signer {account_id}")
    return profile["username"]


def _ends_a_follow(body: str) -> bool:
    """Whether a delivery's body (ours) is a Reject(Follow): the one activity still delivered to
    a host we no longer federate with (the suspended side learns its follow ended)."""
    try:
        activity = json.loads(body)
    except ValueError:
        return False
    obj = activity.get("object") if isinstance(activity, dict) else None
    return activity.get("type") == "Reject" and isinstance(obj, dict) and \
        obj.get("type") == "Follow"


def _refused(job: jobs.DeliverActivity) -> bool:
    """Whether the inbox's host is one we no longer federate with, or the inbox is the own
    inbox of an account suspended since the message was queued."""
    if domain_blocks.refused([hosts.of_url(job.inbox)]):
        return True
    if job.recipient is None:
        return False
    profile = _profiles([job.recipient]).get(job.recipient)
    return profile is None or bool(profile.get("suspended_at"))


def attempt(job: jobs.DeliverActivity, *, now: float | None = None) -> str:
    """Try one delivery. What happened: 'waiting' (not due yet, or the host's breaker is open:
    sent on again without a request), 'delivered', 'dropped' (unsalvageable, or the inbox's
    host is one we no longer federate with: no request), 'retry' (failed, sent again for
    later) or 'abandoned' (the last attempt failed)."""
    now = clock_now() if now is None else now
    if job.due > now + 1:
        _later(job, job.due, now, attempt=job.attempt)
        return "waiting"
    if _refused(job) and not _ends_a_follow(job.body):
        logger.info("delivery refused", extra={"inbox": job.inbox})
        return "dropped"  # suspended (or not allowed) since the message was queued
    host = (urlsplit(job.inbox).hostname or "").lower()
    state = repo.host_state(host)
    if state and float(state.get("open_until", 0)) > now:
        _later(job, float(state["open_until"]) + random.uniform(0, 5), now,
               attempt=job.attempt)
        return "waiting"
    username = _username(job.account_id)
    try:
        status: int | None = fed_http.post_activity(job.inbox, job.body.encode(),
                                                    username=username,
                                                    account_id=job.account_id).status
    except outbound.Refused as exc:
        logger.info("delivery failed", extra={"inbox": job.inbox, "error": str(exc)})
        status = None
    if status is not None and 200 <= status < 300:
        if state:
            repo.succeeded(host)
        return "delivered"
    if status is not None and unsalvageable(status):
        logger.info("delivery dropped", extra={"inbox": job.inbox, "status": status,
                                               "gone": status == 410})
        return "dropped"
    if repo.failed(host) >= BREAKER_FAILURES:
        repo.open_breaker(host, now + BREAKER_OPEN)
    if job.attempt >= ATTEMPTS:
        logger.warning("delivery abandoned", extra={"inbox": job.inbox, "status": status})
        return "abandoned"
    _later(job, now + retry_wait(job.attempt), now, attempt=job.attempt + 1)
    return "retry"
