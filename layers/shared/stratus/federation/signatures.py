"""HTTP signatures of server-to-server requests (docs/federation.md, "Signatures").

Outgoing requests are signed as Mastodon signs them (its `Request` and `HttpSignatureDraft`):
draft-cavage `rsa-sha256`, covering `(request-target) host date` and, with a body, `digest`
and `content-type`; `Digest: SHA-256=<base64>` over the exact bytes sent. `sign_rfc9421`
makes the RFC 9421 form (the second knock of a POST a peer refused, federation/http.py).

Incoming requests are verified by federation/signature_checks.py; what both sides compute (the
RFC 9421 signature base, a body's SHA-256) and the error a refused signature raises are here.
"""

from __future__ import annotations

import base64
import hashlib
import time
from email.utils import formatdate
from typing import Any

import http_sfv

CAVAGE = "cavage"
RFC9421 = "rfc9421"
RFC9421_ALGORITHM = "rsa-v1_5-sha256"
RFC9421_LABEL = "sig1"

CAVAGE_GET = ("(request-target)", "host", "date", "accept")
CAVAGE_POST = ("(request-target)", "host", "date", "digest", "content-type")


def digest(body: bytes) -> str:
    """The `Digest` header of a body (RFC 3230, SHA-256)."""
    return "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode("ascii")


def http_date(timestamp: float | None = None) -> str:
    return formatdate(timestamp, usegmt=True)


def _signing_string(names: tuple[str, ...], method: str, path: str,
                    headers: dict[str, str]) -> str:
    lines = []
    for name in names:
        if name == "(request-target)":
            lines.append(f"(request-target): {method.lower()} {path}")
        else:
            lines.append(f"{name}: {headers[name]}")
    return "\n".join(lines)


def sign_cavage(method: str, host: str, path: str, *, key_id: str, private_key: Any,
                body: bytes | None = None, content_type: str | None = None,
                accept: str | None = None, now: float | None = None) -> dict[str, str]:
    """The headers that sign a request to `host` (the Host header, with any port) for `path`
    (with its query): Date, Digest and Content-Type for a body, Accept when given, Signature."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    headers = {"host": host, "date": http_date(now)}
    if body is not None:
        headers["digest"] = digest(body)
        headers["content-type"] = content_type or "application/activity+json"
        names = CAVAGE_POST
    else:
        names = CAVAGE_GET if accept else CAVAGE_GET[:3]
        if accept:
            headers["accept"] = accept
    signed = _signing_string(names, method, path, headers)
    signature = private_key.sign(signed.encode("utf-8"), padding.PKCS1v15(), hashes.SHA256())
    headers["signature"] = (f'keyId="{key_id}",algorithm="rsa-sha256",'
                            f'headers="{" ".join(names)}",'
                            f'signature="{base64.b64encode(signature).decode("ascii")}"')
    out = {name.title(): value for name, value in headers.items() if name != "host"}
    return out


# --- what both sides compute ----------------------------------------------------------------------
class SignatureError(Exception):
    """A request's signature is refused; the message says why (the 401's error)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def body_sha256(body: bytes | None) -> bytes:
    """SHA-256 of a body as sent or received (no body: of nothing)."""
    return hashlib.sha256(body or b"").digest()


def _component(name: str, method: str, path: str, query: str, headers: dict[str, str],
               scheme: str) -> str:
    authority = headers.get("host", "").lower()
    with_query = f"{path}?{query}" if query else path
    derived = {"@method": method.upper(), "@authority": authority, "@scheme": scheme,
               "@target-uri": f"{scheme}://{authority}{with_query}", "@path": path,
               "@query": f"?{query}", "@request-target": with_query}
    if name.startswith("@"):
        if name not in derived:
            raise SignatureError(f"Unsupported derived component {name}")
        return derived[name]
    if name not in headers:
        raise SignatureError(f"Signed header {name} missing")
    return headers[name].strip()


def signature_base(member: Any, method: str, path: str, query: str,
                   headers: dict[str, str], scheme: str) -> bytes:
    """RFC 9421 section 2.5: one line per covered component, then `@signature-params`."""
    lines = [f'"{item.value}": {_component(item.value, method, path, query, headers, scheme)}'
             for item in member]
    lines.append(f'"@signature-params": {member}')
    return "\n".join(lines).encode("utf-8")


# --- RFC 9421 signing ----------------------------------------------------------------------------
def content_digest(body: bytes) -> str:
    """The `Content-Digest` header of a body (RFC 9530, sha-256)."""
    return "sha-256=:" + base64.b64encode(body_sha256(body)).decode("ascii") + ":"


RFC9421_SIGNABLE = ("@method", "@target-uri", "@authority", "@scheme", "@path", "@query",
                    "@request-target", "host", "date", "content-digest", "content-type",
                    "accept")


def sign_rfc9421(method: str, url: str, *, key_id: str, private_key: Any,
                 body: bytes | None = None, content_type: str | None = None,
                 accept: str | None = None, now: float | None = None,
                 components: tuple[str, ...] | None = None,
                 label: str = RFC9421_LABEL) -> dict[str, str]:
    """The headers that sign a request to `url` the RFC 9421 way (rsa-v1_5-sha256): Date,
    Content-Digest and Content-Type with a body, Accept when given, Signature-Input and
    Signature. Covered by default: `@method`, `@target-uri`, and with a body `content-digest`
    and `content-type` (what Mastodon requires); `components` asks for others (a peer's
    Accept-Signature), each of them one of RFC9421_SIGNABLE."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    from stratus.core.outbound import target

    host, path_and_query = target(url)
    scheme = url.split(":", 1)[0].lower()
    path, _, query = path_and_query.partition("?")
    created = int(time.time() if now is None else now)
    headers = {"host": host, "date": http_date(created)}
    covered = ["@method", "@target-uri"]
    if body is not None:
        headers["content-digest"] = content_digest(body)
        headers["content-type"] = content_type or "application/activity+json"
        covered += ["content-digest", "content-type"]
    if accept:
        headers["accept"] = accept
    for name in components or ():
        if name not in RFC9421_SIGNABLE or (name not in headers and not name.startswith("@")):
            raise ValueError(f"cannot sign {name}")
        if name not in covered:
            covered.append(name)
    member = http_sfv.InnerList([http_sfv.Item(name) for name in covered])
    member.params["created"] = created
    member.params["keyid"] = key_id
    member.params["alg"] = RFC9421_ALGORITHM
    base = signature_base(member, method, path, query, headers, scheme)
    signature = private_key.sign(base, padding.PKCS1v15(), hashes.SHA256())
    headers["signature-input"] = f"{label}={member}"
    headers["signature"] = f"{label}=:{base64.b64encode(signature).decode('ascii')}:"
    return {name.title(): value for name, value in headers.items() if name != "host"}
