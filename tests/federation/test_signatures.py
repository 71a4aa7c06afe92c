"""HTTP signature verification (stratus/federation/signature_checks.py), as Mastodon's SignedRequest
verifies: draft-cavage and RFC 9421 requests signed by our own signers and by hand from the
specifications' rules (an independent oracle: literal signing strings, signed with the
cryptography library directly), each refusal with the reason a peer's operator would read in
our 401, and the key-rotation path."""

from __future__ import annotations

import base64
import hashlib
import time
from email.utils import formatdate

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from stratus.federation import signature_checks, signatures
from stratus.federation.signatures import SignatureError

KEY_ID = "https://remote.example/users/bob#main-key"
BODY = b'{"type":"Create","actor":"https://remote.example/users/bob"}'
NOW = 1_795_000_000.0  # a fixed moment (2026-11-18); every check gets it as `now`


def _pem(key) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()


@pytest.fixture(scope="module")
def key(keys):
    return keys[0]


def _lower(headers: dict[str, str], host: str = "stratus.example") -> dict[str, str]:
    return {"host": host, **{name.lower(): value for name, value in headers.items()}}


def _key_for(pem: str, calls: list | None = None):
    def key_for(key_id: str, refetch: bool) -> str | None:
        if calls is not None:
            calls.append((key_id, refetch))
        return pem if key_id == KEY_ID else None
    return key_for


def _raw_sign(key, text: str) -> str:
    return base64.b64encode(key.sign(text.encode(), padding.PKCS1v15(),
                                     hashes.SHA256())).decode()


def _sha256(body: bytes) -> str:
    return base64.b64encode(hashlib.sha256(body).digest()).decode()


def _cavage_post(key, *, body: bytes = BODY, now: float = NOW, **options) -> dict[str, str]:
    return _lower(signatures.sign_cavage("POST", "stratus.example", "/users/alice/inbox",
                                         key_id=KEY_ID, private_key=key, body=body, now=now,
                                         **options))


def _verify_post(headers, key, body: bytes = BODY, *, path="/users/alice/inbox", query="",
                 key_for=None, now=NOW):
    return signature_checks.verify("POST", path, query, headers, body,
                                   key_for=key_for or _key_for(_pem(key)), now=now)


# --- accepted -----------------------------------------------------------------------------------
def test_cavage_post_signed_by_our_signer_is_accepted(key):
    verified = _verify_post(_cavage_post(key), key)
    assert verified == signature_checks.Verified(KEY_ID, signatures.CAVAGE)


def test_cavage_post_built_by_hand_from_the_draft_is_accepted(key):
    """The draft's signing string, written out literally: `(request-target)` lower-case method
    and path, then `name: value` lines in the order `headers` lists them."""
    date = formatdate(NOW, usegmt=True)
    digest = "SHA-256=" + _sha256(BODY)
    signed = (f"(request-target): post /users/alice/inbox\nhost: stratus.example\n"
              f"date: {date}\ndigest: {digest}\ncontent-type: application/activity+json")
    headers = {"host": "stratus.example", "date": date, "digest": digest,
               "content-type": "application/activity+json",
               "signature": f'keyId="{KEY_ID}",algorithm="rsa-sha256",'
                            f'headers="(request-target) host date digest content-type",'
                            f'signature="{_raw_sign(key, signed)}"'}
    assert _verify_post(headers, key).scheme == signatures.CAVAGE


def test_hs2019_with_created_pseudo_header_is_accepted(key):
    """hs2019 (GoToSocial's label; RSA-SHA256 here) signing `(created)` instead of Date."""
    created = int(NOW) - 30
    digest = "SHA-256=" + _sha256(BODY)
    signed = (f"(request-target): post /inbox\n(created): {created}\n"
              f"host: stratus.example\ndigest: {digest}")
    headers = {"host": "stratus.example", "digest": digest,
               "signature": f'keyId="{KEY_ID}",algorithm="hs2019",created={created},'
                            f'headers="(request-target) (created) host digest",'
                            f'signature="{_raw_sign(key, signed)}"'}
    assert _verify_post(headers, key, path="/inbox").key_id == KEY_ID


def test_rfc9421_post_signed_by_our_signer_is_accepted(key):
    headers = _lower(signatures.sign_rfc9421(
        "POST", "https://stratus.example/users/alice/inbox", key_id=KEY_ID, private_key=key,
        body=BODY, now=NOW))
    assert headers["content-digest"] == f"sha-256=:{_sha256(BODY)}:"
    assert _verify_post(headers, key) == signature_checks.Verified(KEY_ID, signatures.RFC9421)


def test_rfc9421_built_by_hand_from_the_rfc_is_accepted(key):
    """RFC 9421 section 2.5: each covered component as `"name": value`, derived components
    from the request (`@target-uri` is the absolute URI with its query), the last line
    `"@signature-params": ` and the inner list exactly as Signature-Input serialises it."""
    created = int(NOW) - 10
    digest = f"sha-256=:{_sha256(BODY)}:"
    params = (f'("@method" "@target-uri" "content-digest" "content-type");created={created};'
              f'keyid="{KEY_ID}";alg="rsa-v1_5-sha256"')
    base = ('"@method": POST\n'
            '"@target-uri": https://stratus.example/users/alice/inbox?x=1\n'
            f'"content-digest": {digest}\n'
            '"content-type": application/activity+json\n'
            f'"@signature-params": {params}')
    headers = {"host": "stratus.example", "content-digest": digest,
               "content-type": "application/activity+json",
               "signature-input": f"sig1={params}",
               "signature": f"sig1=:{_raw_sign(key, base)}:"}
    assert _verify_post(headers, key, query="x=1").scheme == signatures.RFC9421


def test_rfc9421_with_authority_and_path_instead_of_target_uri(key):
    created = int(NOW)
    params = f'("@method" "@authority" "@path");created={created};keyid="{KEY_ID}"'
    base = ('"@method": GET\n"@authority": stratus.example\n"@path": /users/alice\n'
            f'"@signature-params": {params}')
    headers = {"host": "stratus.example", "signature-input": f"sig1={params}",
               "signature": f"sig1=:{_raw_sign(key, base)}:"}
    verified = signature_checks.verify("GET", "/users/alice", "", headers, None,
                                       key_for=_key_for(_pem(key)), now=NOW)
    assert verified.scheme == signatures.RFC9421


def test_rfc9421_get_with_query_signed_by_our_signer(key):
    headers = _lower(signatures.sign_rfc9421(
        "GET", "https://stratus.example/users/alice/outbox?page=true", key_id=KEY_ID,
        private_key=key, accept="application/activity+json", now=NOW))
    assert signature_checks.verify("GET", "/users/alice/outbox", "page=true", headers, None,
                                   key_for=_key_for(_pem(key)), now=NOW).key_id == KEY_ID
    with pytest.raises(SignatureError, match="Verification failed"):
        signature_checks.verify("GET", "/users/alice/outbox", "page=2", headers, None,
                                key_for=_key_for(_pem(key)), now=NOW)


# --- the request target: with the query, then without it ---------------------------------------
def test_cavage_request_target_with_query(key):
    headers = _lower(signatures.sign_cavage("GET", "stratus.example", "/users/alice/outbox?page=1",
                                            key_id=KEY_ID, private_key=key, now=NOW))
    assert signature_checks.verify("GET", "/users/alice/outbox", "page=1", headers, None,
                                   key_for=_key_for(_pem(key)), now=NOW).scheme == signatures.CAVAGE


def test_cavage_request_target_without_query_is_accepted_too(key):
    """Older Mastodon signs the path without its query; Mastodon still accepts that."""
    headers = _lower(signatures.sign_cavage("GET", "stratus.example", "/users/alice/outbox",
                                            key_id=KEY_ID, private_key=key, now=NOW))
    assert signature_checks.verify("GET", "/users/alice/outbox", "page=1", headers, None,
                                   key_for=_key_for(_pem(key)), now=NOW).key_id == KEY_ID


def test_cavage_request_target_with_another_query_is_refused(key):
    headers = _lower(signatures.sign_cavage("GET", "stratus.example", "/users/alice/outbox?page=1",
                                            key_id=KEY_ID, private_key=key, now=NOW))
    with pytest.raises(SignatureError, match="^Verification failed for key "):
        signature_checks.verify("GET", "/users/alice/outbox", "page=2", headers, None,
                                key_for=_key_for(_pem(key)), now=NOW)


# --- refused, each for its own reason ----------------------------------------------------------
def _refusal(call) -> str:
    with pytest.raises(SignatureError) as refused:
        call()
    return refused.value.message


def test_refusals_say_why(keys):
    key, other = keys
    good = _cavage_post(key)
    messages = {}
    messages["forged"] = _refusal(lambda: _verify_post(_cavage_post(other), key))
    messages["tampered body"] = _refusal(lambda: _verify_post(good, key, BODY + b" "))
    messages["tampered header"] = _refusal(
        lambda: _verify_post({**good, "content-type": "text/plain"}, key))
    messages["expired"] = _refusal(lambda: _verify_post(_cavage_post(key, now=NOW - 7200), key))
    messages["future"] = _refusal(lambda: _verify_post(_cavage_post(key, now=NOW + 7200), key))
    unsigned_digest = good["signature"].replace(" digest", "")
    messages["no digest on POST"] = _refusal(
        lambda: _verify_post({**good, "signature": unsigned_digest}, key))
    get = _lower(signatures.sign_cavage("GET", "stratus.example", "/users/alice",
                                        key_id=KEY_ID, private_key=key, now=NOW))
    no_host = get["signature"].replace(" host", "")
    messages["no host on GET"] = _refusal(lambda: signature_checks.verify(
        "GET", "/users/alice", "", {**get, "signature": no_host}, None,
        key_for=_key_for(_pem(key)), now=NOW))
    messages["unknown algorithm"] = _refusal(lambda: _verify_post(
        {**good, "signature": good["signature"].replace("rsa-sha256", "rsa-sha512")}, key))
    messages["unknown key"] = _refusal(lambda: _verify_post(
        good, key, key_for=lambda key_id, refetch: None))
    messages["unsigned"] = _refusal(lambda: _verify_post(
        {"host": "stratus.example"}, key))
    assert messages == {
        "forged": f"Verification failed for key {KEY_ID}",
        "tampered body": "Invalid Digest value. Computed SHA-256 digest: "
                         f"{_sha256(BODY + b' ')}; given: {_sha256(BODY)}",
        "tampered header": f"Verification failed for key {KEY_ID}",
        "expired": "Signed request date outside acceptable time window "
                   "(the signature has expired)",
        "future": "Signed request date outside acceptable time window (signed in the future)",
        "no digest on POST": "Mastodon requires the Digest header to be signed when doing a "
                             "POST request",
        "no host on GET": "Mastodon requires the Host header to be signed when doing a GET "
                          "request",
        "unknown algorithm": "Unsupported signature algorithm (only rsa-sha256 and hs2019 are "
                             "supported)",
        "unknown key": f"Public key not found for key {KEY_ID}",
        "unsigned": "Request not signed",
    }


def test_the_time_window_is_mastodons(key):
    """Date-based: created + 5 minutes, then one hour of clock skew either way."""
    signed = _cavage_post(key, now=NOW)
    assert _verify_post(signed, key, now=NOW + 3600 + 300 - 1)
    assert _verify_post(signed, key, now=NOW - 3600 + 1)
    with pytest.raises(SignatureError, match="expired"):
        _verify_post(signed, key, now=NOW + 3600 + 300 + 1)
    with pytest.raises(SignatureError, match="in the future"):
        _verify_post(signed, key, now=NOW - 3600 - 1)


def test_attack_unsigned_created_or_expires_do_not_move_the_window(key):
    """The window is read from what the signature covers: a `created` or `expires` parameter
    that `(created)`/`(expires)` do not sign is ignored, and the signed Date decides."""
    captured = _cavage_post(key, now=NOW)
    later = NOW + 3 * 3600
    as_hs2019 = captured["signature"].replace('algorithm="rsa-sha256"', 'algorithm="hs2019"')
    fresh_created = {**captured, "signature": as_hs2019 + f",created={int(later)}"}
    with pytest.raises(SignatureError, match="expired"):
        _verify_post(fresh_created, key, now=later)
    later_expires = {**captured, "signature": captured["signature"] + f",expires={int(later)}"}
    with pytest.raises(SignatureError, match="expired"):
        _verify_post(later_expires, key, now=later)
    assert _verify_post(fresh_created, key, now=NOW)  # the signature itself still verifies


def test_signed_expires_is_honoured_within_twelve_hours(key):
    created, expires = int(NOW), int(NOW) + 6 * 3600
    digest = "SHA-256=" + _sha256(BODY)
    signed = (f"(request-target): post /inbox\n(created): {created}\n(expires): {expires}\n"
              f"host: stratus.example\ndigest: {digest}")
    headers = {"host": "stratus.example", "digest": digest,
               "signature": f'keyId="{KEY_ID}",algorithm="hs2019",created={created},'
                            f'expires={expires},'
                            f'headers="(request-target) (created) (expires) host digest",'
                            f'signature="{_raw_sign(key, signed)}"'}
    assert _verify_post(headers, key, path="/inbox", now=NOW + 6 * 3600)
    with pytest.raises(SignatureError, match="expired"):
        _verify_post(headers, key, path="/inbox", now=NOW + 7 * 3600 + 1)


def test_rfc9421_created_is_covered_by_the_signature(key):
    """RFC 9421's `created` is a parameter of `@signature-params`, the signature base's last
    line: a replay with a fresh `created` no longer verifies."""
    url = "https://stratus.example/users/alice/inbox"
    captured = _lower(signatures.sign_rfc9421("POST", url, key_id=KEY_ID, private_key=key,
                                              body=BODY, now=NOW))
    later = NOW + 3 * 3600
    replayed = {**captured, "signature-input": captured["signature-input"].replace(
        f";created={int(NOW)}", f";created={int(later)}")}
    assert replayed != captured
    assert _refusal(lambda: _verify_post(replayed, key, now=later)) == \
        f"Verification failed for key {KEY_ID}"


def test_date_and_digest_must_be_signed(key):
    good = _cavage_post(key)
    names = "(request-target) host digest content-type"
    no_date = good["signature"].replace(
        'headers="(request-target) host date digest content-type"', f'headers="{names}"')
    assert _refusal(lambda: _verify_post({**good, "signature": no_date}, key)) == \
        "Mastodon requires the Date header or (created) pseudo-header to be signed"
    only_sha512 = {**good, "digest": "SHA-512=abc"}
    assert _refusal(lambda: _verify_post(only_sha512, key)) == \
        "Mastodon only supports SHA-256 in Digest header. Offered algorithms: sha-512"
    assert _refusal(lambda: _verify_post({**good, "signature": "keyId=,"}, key)) == \
        "Error parsing signature parameters"
    assert _refusal(lambda: _verify_post({**good, "signature": 'keyId="x"'}, key)) == \
        "Incompatible request signature. keyId and signature are required"


def test_rfc9421_refusals_say_why(keys):
    key, other = keys
    url = "https://stratus.example/users/alice/inbox"
    good = _lower(signatures.sign_rfc9421("POST", url, key_id=KEY_ID, private_key=key,
                                          body=BODY, now=NOW))
    forged = _lower(signatures.sign_rfc9421("POST", url, key_id=KEY_ID, private_key=other,
                                            body=BODY, now=NOW))
    assert _refusal(lambda: _verify_post(forged, key)) == f"Verification failed for key {KEY_ID}"
    assert _refusal(lambda: _verify_post(good, key, BODY + b"x")).startswith(
        "Invalid Digest value. Computed SHA-256 digest: ")
    stale = _lower(signatures.sign_rfc9421("POST", url, key_id=KEY_ID, private_key=key,
                                           body=BODY, now=NOW - 7200))
    assert "expired" in _refusal(lambda: _verify_post(stale, key))
    no_digest = {**good, "signature-input": good["signature-input"].replace(
        ' "content-digest"', "")}
    assert _refusal(lambda: _verify_post(no_digest, key)) == (
        "Mastodon requires the Content-Digest header to be signed when doing a POST request")
    no_created = {**good, "signature-input": good["signature-input"].replace(
        f";created={int(NOW)}", "")}
    assert _refusal(lambda: _verify_post(no_created, key)) == (
        "Incompatible request signature. keyid and created are required")
    other_alg = {**good, "signature-input": good["signature-input"].replace(
        "rsa-v1_5-sha256", "rsa-pss-sha512")}
    assert _refusal(lambda: _verify_post(other_alg, key)) == (
        "Unsupported signature algorithm (only rsa-v1_5-sha256 is supported)")
    no_method = {**good, "signature-input": good["signature-input"].replace('"@method" ', "")}
    assert _refusal(lambda: _verify_post(no_method, key)) == (
        "Mastodon requires the @method and @target-uri derived components to be signed")
    assert _refusal(lambda: _verify_post({**good, "signature": "sig1=nope"}, key)) == (
        "Error parsing signature parameters")


# --- the signer's key: asked again when it does not verify ------------------------------------
def test_a_stale_key_is_refetched_once_and_the_new_one_verifies(keys):
    old, new = keys
    calls: list[tuple[str, bool]] = []

    def key_for(key_id: str, refetch: bool) -> str:
        calls.append((key_id, refetch))
        return _pem(new) if refetch else _pem(old)

    assert _verify_post(_cavage_post(new), new, key_for=key_for).key_id == KEY_ID
    assert calls == [(KEY_ID, False), (KEY_ID, True)]


def test_a_key_that_verifies_is_not_refetched(key):
    calls: list[tuple[str, bool]] = []
    _verify_post(_cavage_post(key), key, key_for=_key_for(_pem(key), calls))
    assert calls == [(KEY_ID, False)]


def test_refetch_that_finds_nothing_or_the_same_key_is_refused(keys):
    old, new = keys
    signed = _cavage_post(new)
    gone = lambda key_id, refetch: None if refetch else _pem(old)  # noqa: E731
    assert _refusal(lambda: _verify_post(signed, new, key_for=gone)) == \
        f"Could not refresh public key {KEY_ID}"
    calls: list[tuple[str, bool]] = []
    assert _refusal(lambda: _verify_post(signed, new, key_for=_key_for(_pem(old), calls))) == \
        f"Verification failed for key {KEY_ID}"
    assert calls == [(KEY_ID, False), (KEY_ID, True)]


# --- keyId without verifying --------------------------------------------------------------------
def test_signed_key_id_reads_either_scheme(key):
    assert signature_checks.signed_key_id(_cavage_post(key)) == KEY_ID
    assert signature_checks.signed_key_id(_lower(signatures.sign_rfc9421(
        "GET", "https://stratus.example/x", key_id=KEY_ID, private_key=key))) == KEY_ID
    assert signature_checks.signed_key_id({"host": "stratus.example"}) is None
    assert signature_checks.signed_key_id({"signature": "garbage"}) is None


def test_sign_rfc9421_covers_what_a_peer_asks_for(key):
    headers = _lower(signatures.sign_rfc9421(
        "POST", "https://stratus.example/inbox", key_id=KEY_ID, private_key=key, body=BODY,
        components=("@method", "@authority", "date"), label="peer", now=time.time()))
    assert headers["signature-input"].startswith(
        'peer=("@method" "@target-uri" "content-digest" "content-type" "@authority" "date")')
    assert signature_checks.verify("POST", "/inbox", "", headers, BODY,
                                   key_for=_key_for(_pem(key))).scheme == signatures.RFC9421
    with pytest.raises(ValueError):
        signatures.sign_rfc9421("GET", "https://stratus.example/x", key_id=KEY_ID,
                                private_key=key, components=("cookie",))
