"""A web push service for the tests: an HTTP server on loopback that plays a browser's push
service and the browser at once. It holds a subscriber's real P-256 key pair and auth secret,
records every push it receives, checks its VAPID signature (ES256 JWT by the instance key, `aud`
= the push service's origin) and decrypts it (RFC 8291 aes128gcm, or the legacy aesgcm draft)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Push:
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes


class PushReceiver:
    def __init__(self) -> None:
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.public_key = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.auth = os.urandom(16)
        self.received: list[Push] = []
        # What to answer, in turn (a status, or a status and headers); then 201.
        self.answers: list[int | tuple[int, dict[str, str]]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.received.append(Push(self.path, {k.lower(): v for k, v in
                                                          self.headers.items()}, body))
                answer = receiver.answers.pop(0) if receiver.answers else 201
                status, headers = answer if isinstance(answer, tuple) else (answer, {})
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def endpoint(self) -> str:
        return self.origin + "/push/" + b64url(os.urandom(9))

    def keys(self) -> dict[str, str]:
        """The keys as a browser sends them (URL-safe base64, unpadded)."""
        return {"p256dh": b64url(self.public_key), "auth": b64url(self.auth)}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- checking what arrived ----------------------------------------------------------------
    def vapid(self, push: Push) -> tuple[str, dict[str, Any]]:
        """(the signing public key, the verified JWT claims) of a push's VAPID headers."""
        authorization = push.headers["authorization"]
        if push.headers["content-encoding"] == "aes128gcm":  # RFC 8292
            scheme, rest = authorization.split(" ", 1)
            assert scheme == "vapid"
            fields = dict(part.strip().split("=", 1) for part in rest.split(","))
            token, key = fields["t"], fields["k"]
        else:  # draft 01: the key rides in Crypto-Key
            scheme, token = authorization.split(" ", 1)
            assert scheme == "WebPush"
            crypto = dict(part.split("=", 1) for part in push.headers["crypto-key"].split(";"))
            key = crypto["p256ecdsa"]
        head, claims, signature = token.split(".")
        assert json.loads(unb64url(head)) == {"typ": "JWT", "alg": "ES256"}
        raw = unb64url(signature)
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
        try:
            public.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"),
                                               int.from_bytes(raw[32:], "big")),
                          f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise AssertionError("the VAPID JWT is not signed by the key it names") from None
        decoded = json.loads(unb64url(claims))
        assert decoded["aud"] == self.origin
        assert decoded["exp"] > time.time() and decoded["sub"].startswith("mailto:")
        return key, decoded

    def decrypt(self, push: Push) -> dict[str, Any]:
        import http_ece

        encoding = push.headers["content-encoding"]
        if encoding == "aes128gcm":
            plain = http_ece.decrypt(push.body, private_key=self.private_key,
                                     auth_secret=self.auth, version="aes128gcm")
        else:
            assert encoding == "aesgcm"
            salt = push.headers["encryption"].split("salt=", 1)[1]
            crypto = dict(part.split("=", 1) for part in push.headers["crypto-key"].split(";"))
            plain = http_ece.decrypt(push.body, salt=unb64url(salt), dh=unb64url(crypto["dh"]),
                                     private_key=self.private_key, auth_secret=self.auth,
                                     version="aesgcm")
        return json.loads(plain)
