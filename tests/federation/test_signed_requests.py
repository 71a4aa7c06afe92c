"""Signed server-to-server requests (stratus/federation/http.py): GETs are signed by the
instance actor, POSTs by the activity's actor, in Mastodon's draft-cavage form, and a peer can
verify them with the public key our actor documents publish."""

from __future__ import annotations

import base64
import json

import pytest

from tests.sites import site  # noqa: F401 - the fixture


def _verify(headers: dict[str, str], method: str, path: str, public_pem: str) -> list[str]:
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    params = dict(part.split("=", 1) for part in headers["signature"].split(","))
    params = {k: v.strip('"') for k, v in params.items()}
    names = params["headers"].split()
    lines = [f"(request-target): {method} {path}" if n == "(request-target)"
             else f"{n}: {headers[n]}" for n in names]
    key = serialization.load_pem_public_key(public_pem.encode())
    key.verify(base64.b64decode(params["signature"]), "\n".join(lines).encode(),
               padding.PKCS1v15(), hashes.SHA256())
    return [params["keyId"], params["algorithm"], *names]


def test_fetch_object_is_signed_by_the_instance_actor(runtime, site):  # noqa: F811
    from stratus.federation import http
    from stratus.services import actor_keys

    url = site.serve("/users/bob?x=1", json.dumps({"id": "x", "type": "Person"}),
                     "application/activity+json")
    assert http.fetch_object(url) == {"id": "x", "type": "Person"}
    path, headers = site.requests[-1]
    signed = _verify(headers, "get", path, actor_keys.public_key_pem(None))
    assert signed[0] == http.key_id(None) and signed[0].endswith("/actor#main-key")
    assert signed[1] == "rsa-sha256"
    assert signed[2:] == ["(request-target)", "host", "date", "accept"]
    assert headers["host"] == f"127.0.0.1:{site.port}"


@pytest.mark.parametrize("status,content_type,body", [
    (404, "application/activity+json", "{}"),
    (410, "application/activity+json", "{}"),
    (200, "text/html", "<p>hi</p>"),
    (200, "application/activity+json", "[1]"),
    (200, "application/activity+json", "not json"),
])
def test_fetch_object_refuses_what_is_not_an_object(runtime, site, status, content_type, body):  # noqa: F811
    from stratus.federation import http

    url = site.serve("/thing", body, content_type, status=status)
    with pytest.raises(http.FetchFailed) as failed:
        http.fetch_object(url)
    assert failed.value.status == status


def test_redirects_are_followed_and_signed_again(runtime, site):  # noqa: F811
    from stratus.federation import http
    from stratus.services import actor_keys

    site.serve("/final", json.dumps({"id": "y"}), "application/activity+json")
    url = site.redirect("/start", site.url("/final"))
    assert http.fetch_object(url) == {"id": "y"}
    path, headers = site.requests[-1]
    assert path == "/final"
    _verify(headers, "get", "/final", actor_keys.public_key_pem(None))


def test_fetch_refuses_private_addresses_in_production(runtime, monkeypatch):
    from stratus import outbound
    from stratus.federation import http

    monkeypatch.setenv("STRATUS_ENVIRONMENT", "production")
    with pytest.raises(outbound.Refused):
        http.fetch_object("http://127.0.0.1:9/users/x")
    with pytest.raises(outbound.Refused):
        http.fetch_object("http://169.254.169.254/latest/meta-data")
