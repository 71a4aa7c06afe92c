"""Delivery of outbound activities (docs/federation.md, "Delivery").

Two queues, as Mastodon's ActivityPub::DistributionWorker and DeliveryWorker:

- **federation**: one `Federate` job per local event (the outbox's rules). `fan_out` builds the
  activity once (federation/audience.py), finds who must hear of it (Mastodon's addressing:
  followers' servers for a status, the one account an interaction is for) a bounded page of
  followers at a time, and sends one `DeliverActivity` message per inbox to the delivery
  queue — a server's shared inbox once per activity, however many of its accounts follow. A
  page that does not reach the end continues in a copy of the job carrying the activity and
  the inboxes already sent.
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
from typing import Any

from stratus.core import hosts, outbound, urls
from stratus.federation import audience, follows
from stratus.federation import http as fed_http
from stratus.jobs import messages as jobs
from stratus.read import domain_blocks
from stratus.repo import dedupe, feeds, queues
from stratus.repo import delivery as repo

logger = logging.getLogger(__name__)

FEDERATION, DELIVERY = "federation", "delivery"
FOLLOWERS_PAGE = 200  # followers read per invocation of a fan-out (bounded work)
MAX_SENT = 5000  # shared inboxes a continuing fan-out remembers (beyond: peers dedupe by id)
ATTEMPTS = 16  # Mastodon's DeliveryWorker: sidekiq_options retry: 16
BREAKER_FAILURES = 10  # Stoplight threshold
BREAKER_OPEN = 60  # seconds (Stoplight cool-off)
RETRYABLE_4XX = (401, 408, 429)


# --- fan-out (the federation queue) --------------------------------------------------------------
def _inbox(profile: dict[str, Any], shared: bool) -> str | None:
    return (profile.get("shared_inbox") if shared else None) or profile.get("inbox")


def _deliverable(inboxes: dict[str, str]) -> list[str]:
    """The inboxes (inbox -> its account's domain) we federate with: both the account's domain
    and the inbox's own host (an actor may name an inbox on another host) neither suspended
    nor, in limited federation mode, outside the allowlist (read/domain_blocks.refused)."""
    checked = {i: (d, urls.host_of(i)) for i, d in inboxes.items()}
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
        planned = audience.plan(job)
        if planned is None:
            return 0
        activity, signer, followers = planned.activity, planned.signer, planned.followers
        recipients = [(p, planned.shared)
                      for p in audience.profiles(planned.accounts).values()]
        more, to_suspended = planned.more, planned.to_suspended
    else:
        activity, signer, followers, recipients = job.activity, job.signer, True, []
        more = []
    cursor = None
    if followers:
        page, cursor = feeds.followers_page(job.account_id, job.after, FOLLOWERS_PAGE)
        recipients += [(p, True) for p in audience.profiles(page).values()]
    sent = set(job.sent)
    inboxes: dict[str, str] = {}
    owners: dict[str, str] = {}  # a personal inbox -> its account (checked again at send)
    for profile, shared in recipients:
        if not audience.is_remote(profile) or (profile.get("suspended_at") and not to_suspended):
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
        queues.send(FEDERATION, [jobs.Federate(
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
        queues.send(FEDERATION, [jobs.Federate(
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
    queues.send(DELIVERY, [
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
    queues.send(DELIVERY,
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
    profile = audience.profiles([account_id]).get(account_id)
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
    if domain_blocks.refused([urls.host_of(job.inbox)]):
        return True
    if job.recipient is None:
        return False
    profile = audience.profiles([job.recipient]).get(job.recipient)
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
    host = hosts.hostname(urls.host_of(job.inbox))  # the breaker is per host name
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
