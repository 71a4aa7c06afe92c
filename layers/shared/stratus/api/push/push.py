"""Web push subscriptions (Mastodon's Api::V1::Push::SubscriptionsController and
Web::PushSubscription): one per access token, created (replacing the token's previous one),
read, changed (`data` only, replaced wholesale) and deleted; it goes with its token.

Delivery is the push worker's (workers/push.py). Two things are kept for it: the
subscription's keys, checked here (a p256dh that is not a P-256 point or an auth secret that is
not 16 bytes can never be encrypted to: 422, as Mastodon 4.3+), and the access token itself,
sealed (Mastodon puts it in every push payload so that the client can act on the notification;
Stratus keeps only hashes of tokens otherwise).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from stratus.convert import push as convert_push
from stratus.convert.push import ALERT_TYPES, MORE_ALERT_TYPES
from stratus.core import clock, ids, urls
from stratus.core.errors import BadRequest, NotFound, Unprocessable, ValidationFailed
from stratus.core.params import flag, truthy
from stratus.model.viewer import Viewer
from stratus.read import secrets
from stratus.repo import push as repo

POLICIES = ("all", "followed", "follower", "none")
MAX_ENDPOINT_LENGTH = 2048
INVALID_KEY = "Validation failed: is not a valid Ed25519 or Curve25519 key"  # Mastodon's words
MISSING = "param is missing or the value is empty: {}"


def _decode_key(value: Any) -> bytes | None:
    """A base64 key as browsers (URL-safe, unpadded) and Mastodon.py (standard, padded) send
    it; None if it is not base64."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("-", "+").replace("_", "/").rstrip("=")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _encode_key(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _valid_point(raw: bytes) -> bool:
    """An uncompressed P-256 public key (65 bytes, 0x04, on the curve)."""
    from cryptography.hazmat.primitives.asymmetric import ec

    if len(raw) != 65 or raw[0] != 4:
        return False
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        return False
    return True


def _endpoint(value: Any) -> str:
    """Mastodon's UrlValidator: an http(s) URL with a host."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed({"endpoint": [("ERR_BLANK", "can't be blank")]})
    endpoint = value.strip()
    found = urls.parse(endpoint)  # as the worker's request will read it (core/outbound.py)
    valid = found is not None and found.port > 0
    if not valid or len(endpoint) > MAX_ENDPOINT_LENGTH or any(c.isspace() for c in endpoint):
        raise ValidationFailed({"endpoint": [("ERR_INVALID", "is invalid")]})
    return endpoint


def _keys(subscription: dict[str, Any]) -> tuple[str, str]:
    given = subscription.get("keys")
    given = given if isinstance(given, dict) else {}
    missing = {}
    for name in ("p256dh", "auth"):
        value = given.get(name)
        if not isinstance(value, str) or not value.strip():
            missing[f"key_{name}"] = [("ERR_BLANK", "can't be blank")]
    if missing:
        raise ValidationFailed(missing)
    p256dh, auth = _decode_key(given["p256dh"]), _decode_key(given["auth"])
    if p256dh is None or auth is None or not _valid_point(p256dh) or len(auth) != 16:
        raise Unprocessable(INVALID_KEY)
    return _encode_key(p256dh), _encode_key(auth)


def _data(params: dict[str, Any]) -> tuple[dict[str, bool], str]:
    """The alerts and the policy a request asks for: `data[alerts][<type>]` and `data[policy]`,
    or a top-level `policy` (Mastodon.py sends it there; Mastodon itself reads only `data`).
    Like Mastodon, the whole `data` is what was sent: an alert not sent is off."""
    data = params.get("data")
    data = data if isinstance(data, dict) else {}
    alerts_in = data.get("alerts")
    alerts_in = alerts_in if isinstance(alerts_in, dict) else {}
    alerts = {kind: bool(truthy(alerts_in[kind])) for kind in (*ALERT_TYPES, *MORE_ALERT_TYPES)
              if kind in alerts_in and truthy(alerts_in[kind]) is not None}
    policy = data.get("policy")
    if policy in (None, ""):
        policy = params.get("policy")
    if policy in (None, ""):
        policy = "all"
    if policy not in POLICIES:
        raise ValidationFailed({"policy": [("ERR_INCLUSION", "is not included in the list")]})
    return alerts, policy


def _owner(viewer: Viewer) -> tuple[str, str]:
    return viewer.account_id, viewer.token["token_hash"]


def subscribe(viewer: Viewer, raw_token: str, params: dict[str, Any]) -> dict[str, Any]:
    """POST: a new subscription for the calling token, replacing the one it had."""
    given = params.get("subscription")
    if not isinstance(given, dict) or not given:
        raise BadRequest(MISSING.format("subscription"))
    endpoint = _endpoint(given.get("endpoint"))
    p256dh, auth = _keys(given)
    alerts, policy = _data(params)
    account_id, token_hash = _owner(viewer)
    subscription_id = ids.new_id()
    subscription = {
        "id": subscription_id, "account_id": account_id, "token_hash": token_hash,
        "endpoint": endpoint, "p256dh": p256dh, "auth": auth,
        "standard": flag(given.get("standard")), "alerts": alerts, "policy": policy,
        "sealed_token": secrets.seal(raw_token.encode("utf-8"), subscription_id.encode()),
        "created_at": clock.iso(clock.now()),
    }
    repo.replace(subscription)
    return convert_push.subscription(subscription, secrets.vapid_public_key())


def show(viewer: Viewer) -> dict[str, Any]:
    subscription = repo.get(*_owner(viewer))
    if subscription is None:
        raise NotFound()
    return convert_push.subscription(subscription, secrets.vapid_public_key())


def update(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    """PUT: the alerts and the policy, replaced (the endpoint and keys stay)."""
    alerts, policy = _data(params)
    subscription = repo.update_data(*_owner(viewer), alerts, policy)
    if subscription is None:
        raise NotFound()
    return convert_push.subscription(subscription, secrets.vapid_public_key())


def unsubscribe(viewer: Viewer) -> dict[str, Any]:
    repo.delete(*_owner(viewer))
    return {}
