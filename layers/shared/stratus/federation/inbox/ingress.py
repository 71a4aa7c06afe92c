"""What an inbox POST must pass before its activity is queued (Mastodon's InboxesController
and SignatureVerification):

1. a per-user inbox names a local account (404 otherwise);
2. the body is at most 1 MB and a JSON object with `id`, `type` and `actor`, nested at most
   jsondoc.MAX_DEPTH levels deep (413 / 400: a deeper one would raise RecursionError in the
   parser or in any code that walks it, here or in the worker);
3. a Delete or Update of an actor we do not know is answered 202 and dropped before anything
   is fetched (Mastodon's `skip_unknown_actor_activity`: a deleted account's key cannot be
   fetched any more, and there is nothing of it here to delete);
4. the actor's domain, and the signing key's, may federate with us: not suspended by a
   domain block, and in limited federation mode on the allowlist — else 403, as Mastodon's
   `actor_from_key_id` answers, before any key is fetched;
5. the HTTP signature verifies (`signature_checks.verify`: draft-cavage or RFC 9421, digest, date
   window) with the key of its keyId (remote_accounts.by_key_id; refetched once when it does
   not verify, for rotated keys), and the key's owner is the activity's actor — 401 with
   `{"error"}` otherwise, so that a double-knocking peer retries with the other scheme;
6. the actor's host has time left in its share of the inbox worker (`quota.admit`: 429 with
   `Retry-After` otherwise, which peers retry later);
7. the activity is queued to the inbox worker (workers/inbox.py) and answered 202.
"""

from __future__ import annotations

import json
from typing import Any

from stratus.core import jsondoc
from stratus.core.errors import BadRequest, Forbidden, NotFound, PayloadTooLarge, Unauthorized
from stratus.federation import signature_checks, signatures
from stratus.federation.inbox import quota
from stratus.federation.inbox.common import domain, host, object_id
from stratus.jobs import messages as jobs
from stratus.read import accounts as accounts_read
from stratus.read import domain_blocks
from stratus.repo import accounts as accounts_repo
from stratus.repo import queues

MAX_BODY_BYTES = 1024 * 1024
# SQS takes messages of at most 256 KiB; the job is the activity plus a few ids.
MAX_JOB_BYTES = 256 * 1024 - 512
NOT_ALLOWED = "Instance is not allowed to federate with us"  # what Mastodon answers, 403
KEY_NOT_ACTOR = "The signing key does not belong to the activity's actor"


def owner(username: str | None) -> str | None:
    """The local account of a per-user inbox (None: the shared or instance actor's inbox);
    404 for an unknown, unconfirmed or unapproved one, as the actor itself is."""
    if username is None:
        return None
    account_id = accounts_repo.id_by_handle(username) if username else None
    bundle = accounts_repo.get_bundle(account_id, (accounts_repo.PROFILE, accounts_repo.USER)) \
        if account_id else None
    if not bundle or not accounts_read.is_visible(bundle) or \
            bundle[accounts_repo.PROFILE].get("domain"):
        raise NotFound()
    return account_id


def parse(body: bytes) -> dict[str, Any]:
    if len(body) > MAX_BODY_BYTES:
        raise PayloadTooLarge("Activity is too large")
    try:
        activity = jsondoc.loads(body)
    except jsondoc.TooDeep:
        raise BadRequest("Activity is nested too deeply") from None
    except ValueError:
        raise BadRequest("Activity is not JSON") from None
    if not isinstance(activity, dict):
        raise BadRequest("Activity is not a JSON object")
    if not isinstance(activity.get("id"), str) or not activity["id"] or \
            not isinstance(activity.get("type"), (str, list)) or not object_id(activity.get("actor")):
        raise BadRequest("Activity needs an id, a type and an actor")
    return activity


def _unknown_actor_leaving(activity: dict[str, Any], actor_uri: str) -> bool:
    from stratus.repo import uris

    return activity.get("type") in ("Delete", "Update") and \
        object_id(activity.get("object")) == actor_uri and uris.find(actor_uri) is None


def _check_domain(uri: str | None) -> None:
    name = domain(uri)
    if name is None or not domain_blocks.allowed(name):
        raise Forbidden(NOT_ALLOWED)


def _verified_actor(method: str, path: str, query: str, headers: dict[str, str], body: bytes,
                    actor_uri: str) -> dict[str, Any]:
    from stratus.federation import remote_accounts

    signed_by = signature_checks.signed_key_id(headers)
    if signed_by is not None and domain(signed_by) not in (None, domain(actor_uri)):
        _check_domain(signed_by)  # the actor's domain is checked already
    try:
        _verified, profile = remote_accounts.verify_signed(method, path, query, headers, body)
    except signatures.SignatureError as exc:
        raise Unauthorized(exc.message or "Signature is invalid") from None
    if profile.get("uri") != actor_uri:
        raise Unauthorized(KEY_NOT_ACTOR)
    return profile


def receive(method: str, path: str, query: str, headers: dict[str, str], body: bytes, *,
            username: str | None) -> bool:
    """Check an inbox POST and queue its activity; False when it is answered 202 but dropped.
    `headers` are lowercased names; `body` the exact bytes received."""
    owner_id = owner(username)
    activity = parse(body)
    actor_uri = object_id(activity["actor"])
    if _unknown_actor_leaving(activity, actor_uri):
        return False
    _check_domain(actor_uri)
    profile = _verified_actor(method, path, query, headers, body, actor_uri)
    quota.admit(host(actor_uri) or "")
    job = jobs.InboxActivity(activity=activity, actor_id=profile["id"], owner_id=owner_id)
    message = job.to_dict()
    if len(json.dumps(message, separators=(",", ":")).encode()) > MAX_JOB_BYTES:
        raise PayloadTooLarge("Activity is too large")
    queues.send("inbox", [message])
    return True
