"""Signed server-to-server requests (stratus/federation/http.py): GETs are signed by the
instance actor, POSTs by the activity's actor, in Mastodon's draft-cavage form, and a peer can
verify them with the public key our actor documents publish."""

from __future__ import annotations

import json

import pytest

from tests.rig import verify_signature


def test_fetch_object_is_signed_by_the_instance_actor(runtime, site):
    from stratus.federation import actor_keys, http

    url = site.url("/users/bob?x=1")
    site.serve("/users/bob?x=1", json.dumps({"id": url, "type": "Person"}),
               "application/activity+json")
    assert http.fetch_object(url) == {"id": url, "type": "Person"}
    path, headers = site.requests[-1]
    signed = verify_signature(headers, "get", path, actor_keys.public_key_pem(None))
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
    (200, "application/json", "{}"),  # ActivityPub types only (Mastodon's content-type rule)
    (200, "application/ld+json", "{}"),  # ld+json without the ActivityStreams profile
])
def test_fetch_object_refuses_what_is_not_an_object(runtime, site, status, content_type, body):
    from stratus.federation import http

    url = site.serve("/thing", body, content_type, status=status)
    with pytest.raises(http.FetchFailed) as failed:
        http.fetch_object(url)
    assert failed.value.status == status


def test_redirects_are_followed_and_signed_again(runtime, site):
    from stratus.federation import actor_keys, http

    site.serve("/final", json.dumps({"id": site.url("/final")}), "application/activity+json")
    url = site.redirect("/start", site.url("/final"))
    # believed as the document at the final URL, fetched again by its id
    assert http.fetch_object(url) == {"id": site.url("/final")}
    path, headers = site.requests[-1]
    assert path == "/final"
    verify_signature(headers, "get", "/final", actor_keys.public_key_pem(None))


def test_fetch_refuses_private_addresses_in_production(runtime, monkeypatch):
    from stratus.core import outbound
    from stratus.federation import http

    monkeypatch.setenv("STRATUS_ENVIRONMENT", "production")
    with pytest.raises(outbound.Refused):
        http.fetch_object("http://127.0.0.1:9/users/x")
    with pytest.raises(outbound.Refused):
        http.fetch_object("http://169.254.169.254/latest/meta-data")


# --- the double knock ---------------------------------------------------------------------------
class Inbox:
    """A loopback inbox that accepts only the signature schemes it is told to (401 for the
    others, with an Accept-Signature header when given), verifying what it accepts."""

    def __init__(self, accepts: set[str], accept_signature: str | None = None) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.accepts, self.accept_signature = accepts, accept_signature
        self.knocks: list[dict[str, str]] = []
        inbox = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                headers = {k.lower(): v for k, v in self.headers.items()}
                self.rfile.read(int(headers.get("content-length", "0")))
                inbox.knocks.append(headers)
                scheme = "rfc9421" if "signature-input" in headers else "cavage"
                status = 202 if scheme in inbox.accepts else 401
                self.send_response(status)
                if status == 401 and inbox.accept_signature:
                    self.send_header("Accept-Signature", inbox.accept_signature)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/inbox"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def schemes(self) -> list[str]:
        return ["rfc9421" if "signature-input" in k else "cavage" for k in self.knocks]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def inbox():
    made: list[Inbox] = []

    def make(accepts: set[str], accept_signature: str | None = None) -> Inbox:
        made.append(Inbox(accepts, accept_signature))
        return made[-1]
    yield make
    for one in made:
        one.close()


BODY = b'{"type":"Create"}'


def test_post_knocks_with_rfc9421_after_a_401_and_remembers_the_host(runtime, inbox):
    from stratus.federation import actor_keys, http, signature_checks, signatures

    peer = inbox({"rfc9421"})
    response = http.post_activity(peer.url, BODY, username=None, account_id=None)
    assert response.status == 202
    assert peer.schemes() == ["cavage", "rfc9421"]
    second = peer.knocks[1]
    verified = signature_checks.verify(
        "POST", "/inbox", "", second, BODY, scheme="http",
        key_for=lambda key_id, refetch: actor_keys.public_key_pem(None))
    assert verified == signature_checks.Verified(http.key_id(None), signatures.RFC9421)
    # the next POST to that host starts with what worked
    assert http.post_activity(peer.url, BODY, username=None, account_id=None).status == 202
    assert peer.schemes() == ["cavage", "rfc9421", "rfc9421"]


def test_post_goes_back_to_cavage_when_the_remembered_scheme_is_refused(runtime, inbox):
    from stratus.federation import http

    peer = inbox({"rfc9421"})
    http.post_activity(peer.url, BODY, username=None, account_id=None)
    peer.accepts = {"cavage"}
    assert http.post_activity(peer.url, BODY, username=None, account_id=None).status == 202
    assert http.post_activity(peer.url, BODY, username=None, account_id=None).status == 202
    assert peer.schemes() == ["cavage", "rfc9421", "rfc9421", "cavage", "cavage"]


def test_post_knocks_once_when_cavage_is_accepted_or_both_are_refused(runtime, inbox):
    from stratus.federation import http

    peer = inbox({"cavage"})
    assert http.post_activity(peer.url, BODY, username=None, account_id=None).status == 202
    assert peer.schemes() == ["cavage"]
    closed = inbox(set())
    assert http.post_activity(closed.url, BODY, username=None, account_id=None).status == 401
    assert closed.schemes() == ["cavage", "rfc9421"]
    # nothing was learnt: the next POST starts with cavage again
    http.post_activity(closed.url, BODY, username=None, account_id=None)
    assert closed.schemes() == ["cavage", "rfc9421", "cavage", "rfc9421"]


def test_post_honours_accept_signature(runtime, inbox):
    from stratus.federation import actor_keys, http, signature_checks

    peer = inbox({"rfc9421"}, 'wanted=("@method" "@target-uri" "@authority" "content-digest")'
                              ';alg="rsa-v1_5-sha256"')
    assert http.post_activity(peer.url, BODY, username=None, account_id=None).status == 202
    second = peer.knocks[1]
    assert second["signature-input"].startswith(
        'wanted=("@method" "@target-uri" "content-digest" "content-type" "@authority")')
    assert second["signature"].startswith("wanted=:")
    signature_checks.verify("POST", "/inbox", "", second, BODY, scheme="http",
                            key_for=lambda key_id, refetch: actor_keys.public_key_pem(None))


def test_post_falls_back_to_its_own_components_when_accept_signature_asks_the_impossible(
        runtime, inbox):
    from stratus.federation import http

    peer = inbox({"rfc9421"}, 'wanted=("@method" "@target-uri" "accept")')
    assert http.post_activity(peer.url, BODY, username=None, account_id=None).status == 202
    assert peer.knocks[1]["signature-input"].startswith(
        'sig1=("@method" "@target-uri" "content-digest" "content-type")')
