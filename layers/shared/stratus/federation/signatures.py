"""HTTP signatures of server-to-server requests (docs/federation.md, "Signatures").

Outgoing requests are signed as Mastodon signs them (its `Request` and `HttpSignatureDraft`):
draft-cavage `rsa-sha256`, covering `(request-target) host date` and, with a body, `digest`
and `content-type`; `Digest: SHA-256=<base64>` over the exact bytes sent.
"""

from __future__ import annotations

import base64
import hashlib
from email.utils import formatdate
from typing import Any

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
