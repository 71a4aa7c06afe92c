"""Verifying the HTTP signatures of incoming server-to-server requests (docs/federation.md,
"Signatures"), as Mastodon's `SignedRequest` verifies them (`verify`): draft-cavage or RFC 9421,
the same strength rules, time window, body digests and error messages, so a peer's operator
reading our 401 sees what Mastodon would have told them. Signing our own requests, and what
both sides compute (the RFC 9421 signature base, `SignatureError`), is federation/signatures.py.
"""

from __future__ import annotations

import base64
import binascii
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import http_sfv

from stratus.federation.signatures import (
    CAVAGE,
    RFC9421,
    RFC9421_ALGORITHM,
    SignatureError,
    body_sha256,
    signature_base,
)

CAVAGE_ALGORITHMS = ("rsa-sha256", "hs2019")  # hs2019: RSA-SHA256 here, as at Mastodon
EXPIRATION_WINDOW_LIMIT = 12 * 3600  # an `expires` further than this after `created` is capped
DEFAULT_EXPIRY = 5 * 60  # a signature without `expires` is good this long after `created`
CLOCK_SKEW_MARGIN = 3600


@dataclass(frozen=True)
class Verified:
    key_id: str
    scheme: str  # CAVAGE | RFC9421


KeyFor = Callable[[str, bool], "str | None"]

_CAVAGE_PARAM = re.compile(r'\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(?:"([^"]*)"|([^\s",]+))\s*')


def _cavage_params(header: str) -> dict[str, str]:
    """The parameters of a draft-cavage `Signature` header (Mastodon's SignatureParser: `key=
    "quoted"` or `key=token`, comma-separated, an erroneous leading `Signature ` tolerated)."""
    text = header.strip()
    if text.lower().startswith("signature "):
        text = text[len("signature "):]
    params: dict[str, str] = {}
    position = 0
    while position < len(text):
        match = _CAVAGE_PARAM.match(text, position)
        if match is None:
            raise SignatureError("Error parsing signature parameters")
        params[match.group(1)] = match.group(2) if match.group(2) is not None else match.group(3)
        position = match.end()
        if position < len(text):
            if text[position] != ",":
                raise SignatureError("Error parsing signature parameters")
            position += 1
    return params


def _rfc9421_signature(headers: dict[str, str]) -> tuple[str, Any, bytes]:
    """(label, its Signature-Input member, the signature bytes): the first label of
    `Signature-Input` that `Signature` also has."""
    inputs, values = http_sfv.Dictionary(), http_sfv.Dictionary()
    try:
        inputs.parse(headers.get("signature-input", "").encode("ascii"))
        values.parse(headers.get("signature", "").encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        raise SignatureError("Error parsing signature parameters") from None
    for label, member in inputs.items():
        if label in values and isinstance(member, http_sfv.InnerList):
            signature = values[label].value
            if not isinstance(signature, bytes):
                raise SignatureError("Error parsing signature parameters")
            return label, member, signature
    raise SignatureError("Error parsing signature parameters")


def signed_key_id(headers: dict[str, str]) -> str | None:
    """The key a request says it is signed with (either scheme), without verifying anything;
    None when it is unsigned or the signature cannot be parsed."""
    try:
        if headers.get("signature-input"):
            keyid = _rfc9421_signature(headers)[1].params.get("keyid")
        elif headers.get("signature"):
            keyid = _cavage_params(headers["signature"]).get("keyId")
        else:
            return None
    except SignatureError:
        return None
    return keyid if isinstance(keyid, str) and keyid else None


def _within_window(created: float | None, expires: float | None, now: float) -> None:
    if created is not None:
        expires = created + DEFAULT_EXPIRY if expires is None else expires
        expires = min(expires, created + EXPIRATION_WINDOW_LIMIT)
    if created is not None and created > now + CLOCK_SKEW_MARGIN:
        raise SignatureError("Signed request date outside acceptable time window "
                             "(signed in the future)")
    if expires is not None and now > expires + CLOCK_SKEW_MARGIN:
        raise SignatureError("Signed request date outside acceptable time window "
                             "(the signature has expired)")


def _integer(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise SignatureError(f"Invalid Date header: {raw!r} is not a timestamp") from None


def _public_key(pem: str) -> Any:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    try:
        key = serialization.load_pem_public_key(pem.encode("utf-8"))
    except (ValueError, TypeError):
        raise SignatureError("The signer's public key cannot be read") from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise SignatureError("Only RSA keys are supported")
    return key


def _verifies(pem: str, signature: bytes, candidates: list[bytes]) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    key = _public_key(pem)
    for signed in candidates:
        try:
            key.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
            return True
        except InvalidSignature:
            continue
    return False


# draft-cavage
def _cavage_checked(method: str, path: str, query: str, headers: dict[str, str],
                    body: bytes | None, now: float) -> tuple[str, bytes, list[bytes]]:
    """(keyId, signature, the signed strings to try) of a cavage-signed request whose
    parameters, time window, strength and digest pass Mastodon's checks."""
    params = _cavage_params(headers["signature"])
    if not params.get("keyId") or not params.get("signature"):
        raise SignatureError("Incompatible request signature. keyId and signature are required")
    algorithm = params.get("algorithm", "hs2019")
    if algorithm not in CAVAGE_ALGORITHMS:
        raise SignatureError(
            "Unsupported signature algorithm (only rsa-sha256 and hs2019 are supported)")
    names = params.get("headers", "(created)" if algorithm == "hs2019" else "date").lower().split()

    # The window is read only from what the signature covers: `created` and `expires` when
    # `(created)` and `(expires)` are signed, else the signed Date header. Mastodon's
    # SignedRequest reads the parameters whenever they are present, signed or not, so a
    # captured request could be replayed hours later with a fresh unsigned `created=`.
    created = expires = None
    if algorithm == "hs2019" and "(created)" in names and params.get("created"):
        created = _integer(params["created"])
    elif "date" in names and headers.get("date"):
        try:
            created = parsedate_to_datetime(headers["date"]).timestamp()
        except (TypeError, ValueError, IndexError):
            raise SignatureError(f"Invalid Date header: {headers['date']!r}") from None
    if "(expires)" in names and params.get("expires"):
        expires = _integer(params["expires"])
    _within_window(created, expires, now)

    if "date" not in names and "(created)" not in names:
        raise SignatureError(
            "Mastodon requires the Date header or (created) pseudo-header to be signed")
    if "(request-target)" not in names and "digest" not in names:
        raise SignatureError(
            "Mastodon requires the Digest header or (request-target) pseudo-header to be signed")
    if method.upper() == "GET" and "host" not in names:
        raise SignatureError("Mastodon requires the Host header to be signed when doing a GET request")
    if method.upper() == "POST" and "digest" not in names:
        raise SignatureError(
            "Mastodon requires the Digest header to be signed when doing a POST request")
    if "date" in names and not headers.get("date"):
        raise SignatureError("Date header missing")
    if "digest" in names:
        _check_digest(headers, body)

    try:
        signature = base64.b64decode(params["signature"], validate=False)
    except (binascii.Error, ValueError):
        raise SignatureError("The signature is not base64") from None
    full_path = f"{path}?{query}" if query else path
    candidates = [_cavage_string(names, params, algorithm, method, target, headers)
                  for target in dict.fromkeys([full_path, path])]
    return params["keyId"], signature, candidates


def _cavage_string(names: list[str], params: dict[str, str], algorithm: str, method: str,
                   target: str, headers: dict[str, str]) -> bytes:
    lines = []
    for name in names:
        if name == "(request-target)":
            lines.append(f"(request-target): {method.lower()} {target}")
        elif name in ("(created)", "(expires)"):
            parameter = name[1:-1]
            if algorithm != "hs2019":
                raise SignatureError(f"Invalid pseudo-header {name} for rsa-sha256")
            if not params.get(parameter):
                raise SignatureError(
                    f"Pseudo-header {name} used but corresponding argument missing")
            lines.append(f"{name}: {params[parameter]}")
        else:
            lines.append(f"{name}: {headers.get(name, '')}")
    return "\n".join(lines).encode("utf-8")


def _check_digest(headers: dict[str, str], body: bytes | None) -> None:
    if not headers.get("digest"):
        raise SignatureError("Digest header missing")
    offered = [part.strip().split("=", 1) for part in headers["digest"].split(",")]
    found = {pair[0].lower(): pair[1] if len(pair) > 1 else "" for pair in offered}
    if "sha-256" not in found:
        raise SignatureError("Mastodon only supports SHA-256 in Digest header. Offered "
                             f"algorithms: {', '.join(found)}")
    computed = base64.b64encode(body_sha256(body)).decode("ascii")
    if found["sha-256"].strip() != computed:
        raise SignatureError(f"Invalid Digest value. Computed SHA-256 digest: {computed}; "
                             f"given: {found['sha-256']}")


# RFC 9421
def _rfc9421_checked(method: str, path: str, query: str, headers: dict[str, str],
                     body: bytes | None, now: float, scheme: str
                     ) -> tuple[str, bytes, list[bytes]]:
    _label, member, signature = _rfc9421_signature(headers)
    params = member.params
    if not params.get("keyid") or params.get("created") is None:
        raise SignatureError("Incompatible request signature. keyid and created are required")
    if params.get("alg", RFC9421_ALGORITHM) != RFC9421_ALGORITHM:
        raise SignatureError(
            f"Unsupported signature algorithm (only {RFC9421_ALGORITHM} is supported)")
    # `created` and `expires` are parameters of the signature itself: the signature base's
    # `@signature-params` line serializes them (signatures.signature_base), so they are always
    # covered.
    created = _integer(params["created"])
    expires = _integer(params["expires"]) if params.get("expires") is not None else None
    _within_window(created, expires, now)

    components = [item.value for item in member]
    if any(not isinstance(c, str) for c in components) or \
            any(item.params for item in member):
        raise SignatureError("Unsupported signature component (only plain field names and "
                             "derived components are supported)")
    if "@method" not in components or not (
            "@target-uri" in components or {"@authority", "@path"} <= set(components)):
        raise SignatureError(
            "Mastodon requires the @method and @target-uri derived components to be signed")
    if method.upper() == "POST" and "content-digest" not in components:
        raise SignatureError("Mastodon requires the Content-Digest header to be signed when "
                             "doing a POST request")
    if "content-digest" in components:
        _check_content_digest(headers, body)
    base = signature_base(member, method, path, query, headers, scheme)
    return params["keyid"], signature, [base]


def _check_content_digest(headers: dict[str, str], body: bytes | None) -> None:
    if not headers.get("content-digest"):
        raise SignatureError("Content-Digest header missing")
    digests = http_sfv.Dictionary()
    try:
        digests.parse(headers["content-digest"].encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        raise SignatureError("Content-Digest could not be parsed. It does not contain a valid "
                             "RFC8941 dictionary.") from None
    if "sha-256" not in digests:
        raise SignatureError("Mastodon only supports SHA-256 in Content-Digest header. Offered "
                             f"algorithms: {', '.join(digests)}")
    given = digests["sha-256"].value
    computed = body_sha256(body)
    if given != computed:
        shown = base64.b64encode(given).decode() if isinstance(given, bytes) else str(given)
        raise SignatureError("Invalid Digest value. Computed SHA-256 digest: "
                             f"{base64.b64encode(computed).decode()}; given: {shown}")


def verify(method: str, path: str, query: str, headers: dict[str, str], body: bytes | None,
           *, key_for: KeyFor, now: float | None = None, scheme: str = "https") -> Verified:
    """Verify a request's HTTP signature, draft-cavage or RFC 9421 (when `Signature-Input` is
    present), as Mastodon's SignedRequest does. `headers` have lower-case names; `path` has no
    query, `query` is the raw query string (the cavage request target is tried with it, then
    without); `body` is the raw bytes received (digests are over them). `key_for(key_id,
    refetch)` gives the signer's public key PEM (None: unknown); when the key it gave first
    does not verify, it is asked once more with refetch=True (the signer may have rotated its
    key). `scheme` is the public scheme of this server (RFC 9421's `@target-uri`).
    SignatureError, saying why, for any refusal."""
    now = time.time() if now is None else now
    if headers.get("signature-input"):
        kind = RFC9421
        key_id, signature, candidates = _rfc9421_checked(method, path, query, headers, body,
                                                         now, scheme)
    elif headers.get("signature"):
        kind = CAVAGE
        key_id, signature, candidates = _cavage_checked(method, path, query, headers, body, now)
    else:
        raise SignatureError("Request not signed")
    pem = key_for(key_id, False)
    if pem is None:
        raise SignatureError(f"Public key not found for key {key_id}")
    if _verifies(pem, signature, candidates):
        return Verified(key_id, kind)
    fresh = key_for(key_id, True)
    if fresh is None:
        raise SignatureError(f"Could not refresh public key {key_id}")
    if fresh != pem and _verifies(fresh, signature, candidates):
        return Verified(key_id, kind)
    raise SignatureError(f"Verification failed for key {key_id}")
