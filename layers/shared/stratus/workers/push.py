"""Web push delivery (Mastodon's Web::PushNotificationWorker and Web::PushSubscription#pushable?):
a new notification, encrypted for each of its recipient's subscriptions that wants it, posted to
their push services and signed with the instance's VAPID key.

Per subscription: the alert for the notification's type must be on, and the policy must let the
sender through, read when the push is made (`followed`: the recipient follows the sender;
`follower`: the sender follows the recipient; `none`: nothing; `all`). The payload is
Web::NotificationSerializer's. Encryption is RFC 8291 `aes128gcm` with RFC 8292 VAPID
(`Authorization: vapid t=…,k=…`) for a `standard` subscription, and the legacy draft `aesgcm`
(`Encryption: salt=…`, `Crypto-Key: dh=…;p256ecdsa=…`, `Authorization: WebPush …`) otherwise,
as Mastodon 4.4 sends them; pywebpush encrypts, py-vapid signs.

What a push service answers: 2xx is done (a once-sentinel per notification and subscription
makes a redelivered job push nothing twice); a 4xx other than 408 and 429 means the
subscription is gone or unusable, and it is deleted (Mastodon); anything else (408, 429, 5xx,
no answer) is retried later (`Retry`: the worker puts the job back with a growing delay).

The request is made by stratus.core.outbound, not by pywebpush's `send`: the push endpoint is a URL a
client chose, so in production its host must resolve to public addresses only, and the
connection is made to the address that was checked (no second lookup a DNS answer could
change) with no redirects; the request has one whole-request deadline and its answer's body is
not read. Stacks that are not production (the local stack, whose push receivers run on
loopback) may reach loopback too.
"""

from __future__ import annotations

import html
import json
import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from stratus.core import urls
from stratus.core.config import settings
from stratus.core.observability import logger
from stratus.jobs import messages as jobs
from stratus.read import secrets
from stratus.repo import accounts as accounts_repo
from stratus.repo import notifications as notifications_repo
from stratus.repo import push as repo
from stratus.repo import queues
from stratus.repo import relationships as relationships_repo
from stratus.repo import statuses as statuses_repo

TTL = 48 * 3600  # Mastodon: 48 hours
URGENCY = "normal"
JWT_LIFETIME = 24 * 3600  # Mastodon signs for 24 hours
TIMEOUT = 10.0
BODY_LENGTH = 140

# Mastodon's `notification_mailer.<type>.subject` (English), its push titles.
TITLES = {
    "mention": "You were mentioned by {name}",
    "status": "{name} just posted",
    "reblog": "{name} boosted your post",
    "follow": "{name} is now following you",
    "follow_request": "Pending follower: {name}",
    "favourite": "{name} favorited your post",
    "poll": "A poll by {name} has ended",
    "update": "{name} edited a post",
    "admin.sign_up": "{name} signed up",
    "admin.report": "{name} submitted a report",
    "quote": "{name} quoted your post",
    "quoted_update": "{name} edited a post you have quoted",
}


class Retry(Exception):
    """Some pushes of a job failed in a way worth retrying; `delay`: what a push service asked
    for (Retry-After), if anything."""

    def __init__(self, message: str, delay: int | None = None) -> None:
        super().__init__(message)
        self.delay = delay


class Refused(Exception):
    """The endpoint may not be reached (stratus.core.outbound's address rules: in production, a
    host with an address that is not public)."""


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str]


# --- which subscriptions want a notification ---------------------------------------------------
def _alert_on(subscription: dict[str, Any], kind: str) -> bool:
    return bool((subscription.get("alerts") or {}).get(kind))


def wanted(subscriptions_: list[dict[str, Any]], job: jobs.PushNotification
           ) -> list[dict[str, Any]]:
    """The subscriptions whose alert and policy let this notification through. The follows the
    policies ask about are read once, as they are now."""
    alerted = [s for s in subscriptions_ if _alert_on(s, job.notification_type)
               and (s.get("policy") or "all") != "none"]
    me, sender = job.account_id, job.from_account_id
    needed = {(me, sender) if s.get("policy") == "followed" else (sender, me)
              for s in alerted if s.get("policy") in ("followed", "follower")}
    follows = relationships_repo.follows_among(sorted(needed))
    kept = []
    for s in alerted:
        policy = s.get("policy") or "all"
        if policy == "all" or (policy == "followed" and (me, sender) in follows) \
                or (policy == "follower" and (sender, me) in follows):
            kept.append(s)
    return kept


# --- the payload ---------------------------------------------------------------------------------
def _plain(text: str) -> str:
    """strip_tags, then HTML entities decoded (the body is not HTML)."""
    return html.unescape(re.sub(r"<[^>]*>", "", text))


def _truncate(text: str, length: int = BODY_LENGTH) -> str:
    """Rails' `truncate(text, length: 140)`: at most 140 characters, `...` included."""
    return text if len(text) <= length else text[:length - 3] + "..."


def content(job: jobs.PushNotification) -> dict[str, Any] | None:
    """What every subscription's payload shares; None if the notification is gone."""
    from stratus.convert import accounts as convert

    notification = notifications_repo.get(job.account_id, job.notification_id)
    if notification is None:
        return None
    bundles = accounts_repo.get_many([job.from_account_id, job.account_id],
                                     parts=(accounts_repo.PROFILE, accounts_repo.USER))
    sender = (bundles.get(job.from_account_id) or {}).get(accounts_repo.PROFILE)
    if sender is None:
        return None
    user = (bundles.get(job.account_id) or {}).get(accounts_repo.USER) or {}
    status = statuses_repo.get(notification["status_id"]) \
        if notification.get("status_id") else None
    raw = (status.get("spoiler_text") or status.get("text") or "") if status \
        else sender.get("note", "")
    name = sender.get("display_name") or sender["username"]
    return {
        "preferred_locale": user.get("locale") or settings().default_language,
        # A string: Stratus's ids are snowflakes, beyond what a JavaScript number holds.
        "notification_id": str(job.notification_id),
        "notification_type": job.notification_type,
        "icon": convert.account(sender)["avatar_static"],
        "title": TITLES.get(job.notification_type, "{name}").format(name=name),
        "body": _truncate(_plain(raw)),
    }


def access_token(subscription: dict[str, Any]) -> str | None:
    """The token a subscription was made with (sealed by api/push/push.py with the
    subscription's id), for the push payload; None if it does not open (the instance secret
    changed)."""
    try:
        return secrets.unseal(subscription["sealed_token"],
                              str(subscription["id"]).encode()).decode("utf-8")
    except (KeyError, ValueError):
        return None


def payload(subscription: dict[str, Any], shared: dict[str, Any]) -> bytes:
    """Web::NotificationSerializer: access_token, preferred_locale, notification_id,
    notification_type, icon, title, body."""
    return json.dumps({"access_token": access_token(subscription), **shared},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# --- encryption and signing ----------------------------------------------------------------------
def audience(endpoint: str) -> str:
    """The push service's origin (the JWT's `aud`): scheme, host and a non-default port."""
    found = urls.parse(endpoint)  # the origin the request goes to (core/outbound.py)
    return found.origin if found else ""


def contact() -> str:
    """The JWT's `sub`: the instance's contact e-mail, else the address it sends mail from."""
    from stratus.read import settings as instance_settings

    email = instance_settings.current().get("contact_email") or settings().mail_from
    return f"mailto:{email}"


def encrypt(subscription: dict[str, Any], data: bytes, sub: str
            ) -> tuple[bytes, dict[str, str]]:
    """The encrypted body and the headers that go with it (Mastodon's, per encoding)."""
    from py_vapid import Vapid01, Vapid02
    from pywebpush import WebPusher

    pusher = WebPusher({"endpoint": subscription["endpoint"],
                        "keys": {"p256dh": subscription["p256dh"], "auth": subscription["auth"]}})
    claims = {"aud": audience(subscription["endpoint"]),
              "exp": int(time.time()) + JWT_LIFETIME, "sub": sub}
    headers = {"Content-Type": "application/octet-stream", "TTL": str(TTL), "Urgency": URGENCY}
    if subscription.get("standard"):
        encoded = pusher.encode(data, "aes128gcm")
        headers["Content-Encoding"] = "aes128gcm"
        headers.update(Vapid02(private_key=secrets.vapid_private_key()).sign(claims))
    else:
        encoded = pusher.encode(data, "aesgcm")
        headers["Content-Encoding"] = "aesgcm"
        headers["Encryption"] = "salt=" + encoded["salt"].decode("ascii")
        headers.update(Vapid01(private_key=secrets.vapid_private_key()).sign(
            claims, crypto_key="dh=" + encoded["crypto_key"].decode("ascii")))
    return encoded["body"], headers


# --- the request ---------------------------------------------------------------------------------
def post(endpoint: str, body: bytes, headers: dict[str, str]) -> Response:
    """POST to a push endpoint through stratus.core.outbound: its address rules (in production
    every address of the host public, the connection made to the address checked, TLS verified
    against the host name), no redirects, one whole-request deadline of TIMEOUT (a push service
    dripping its answer cannot hold the worker; inside the job's budget, no more than it has
    left) and no body read: a push service's answer is its status and headers, as Mastodon
    reads it. Refused when the endpoint may not be reached; outbound.Refused when it did not
    answer (a timeout, a reset: retried)."""
    from stratus.core import outbound

    try:
        response = outbound.request("POST", endpoint, accept="*/*", max_bytes=0,
                                    deadline=outbound.Deadline(TIMEOUT), body=body,
                                    headers_for=lambda _method, _url: headers, read_body=False)
    except outbound.NotAllowed as exc:
        raise Refused(str(exc)) from None
    return Response(response.status, response.headers)


def _retry_after(value: str | None) -> int | None:
    if not value:
        return None
    if value.strip().isdigit():
        return int(value.strip())
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(int(when.timestamp() - time.time()), 0)


# --- the job -------------------------------------------------------------------------------------
def deliver(job: jobs.PushNotification) -> int:
    """Push one notification to its recipient's subscriptions; returns how many pushes were
    accepted. Raises Retry if some should be tried again (those that went are not resent)."""
    chosen = wanted(repo.of_account(job.account_id), job)
    sent = repo.already_sent(job.notification_id, [s["id"] for s in chosen])
    chosen = [s for s in chosen if s["id"] not in sent]
    if not chosen:
        return 0
    shared = content(job)
    if shared is None:
        return 0
    accepted, failures, delay, sub = 0, [], None, contact()
    for subscription in chosen:
        try:
            body, headers = encrypt(subscription, payload(subscription, shared), sub)
            response = post(subscription["endpoint"], body, headers)
        except Refused as exc:
            logger.warning("push endpoint refused", extra={"subscription": subscription["id"],
                                                           "reason": str(exc)})
            continue
        except Exception as exc:  # noqa: BLE001 - no answer (or a bug): try again later
            logger.warning("push failed", exc_info=True,
                           extra={"subscription": subscription["id"]})
            failures.append(f"{subscription['id']}: {type(exc).__name__}: {exc}")
            continue
        if 200 <= response.status < 300:
            repo.mark_sent(job.notification_id, subscription["id"])
            accepted += 1
        elif 400 <= response.status < 500 and response.status not in (408, 429):
            repo.remove_gone(subscription)
            logger.info("push subscription removed", extra={
                "subscription": subscription["id"], "status": response.status})
        else:
            failures.append(f"{subscription['id']}: HTTP {response.status}")
            asked = _retry_after(response.headers.get("retry-after"))
            if asked is not None:
                delay = max(delay or 0, asked)
    if failures:
        raise Retry("; ".join(failures), delay)
    return accepted


def backoff_delay(attempt: int, asked: int | None = None) -> int:
    """Seconds before the next try: what the push service asked for, else 30 s doubling per
    attempt (30 s, 1 min, 2 min, 4 min, 8 min), at most an hour."""
    if asked is not None:
        return min(asked, 43200)
    return min(30 * 2 ** max(attempt - 1, 0), 3600)


def back_off(receipt_handle: str, attempt: int, asked: int | None = None) -> None:
    """Put a failed job back on the push queue after `backoff_delay`."""
    queues.retry_later("push", receipt_handle, backoff_delay(attempt, asked))
