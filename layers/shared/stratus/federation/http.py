"""Signed server-to-server requests: fetching ActivityPub objects and posting activities to
inboxes (docs/federation.md). Every request goes through `stratus.core.outbound`'s address rules
(no private, loopback or link-local address in production, each redirect target checked
again, bounded size and time); every GET is signed as the instance actor (so servers in
authorized-fetch mode answer), every POST as the actor whose activity it carries. A fetched
object is only believed where it names itself (`fetch_object`: its id is the URL it came from,
after redirects too), so every caller can take its `id` as its origin.

POSTs knock twice when needed (docs/federation.md, "Signatures"): draft-cavage first (what
Mastodon sends and every server accepts), and on a 401 once more the RFC 9421 way (or the
other way round when that host accepted RFC 9421 last time); the scheme a host accepted on a
second knock is remembered for it (repo/peers.py), so its next POST starts with that one. A
401 carrying `Accept-Signature` is answered with an RFC 9421 signature covering what it asks.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urldefrag

from stratus.convert import activitypub as ap
from stratus.core import jsondoc, outbound, urls
from stratus.federation import signatures

ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"'
AS_PROFILE = "https://www.w3.org/ns/activitystreams"
MAX_OBJECT_BYTES = 1024 * 1024
MAX_RESPONSE_BYTES = 64 * 1024
FETCH_SECONDS = 15.0
POST_SECONDS = 15.0


class FetchFailed(outbound.Refused):
    """The object could not be fetched or is not an ActivityPub JSON object; `status` is the
    HTTP status when a server answered, `answered_by` the URL that answered it (after
    redirects)."""

    def __init__(self, message: str, status: int | None = None, *,
                 answered_by: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.answered_by = answered_by

    def gone(self, url: str) -> bool:
        """Whether this says that `url` is gone: a 410 its own host answered. A 410 at the end
        of a redirect to another host is that host's answer about another URL, never a
        reason to end what `url` names (an attacker's redirect would otherwise delete it)."""
        return self.status == 410 and self.answered_by is not None and \
            urls.same_origin(self.answered_by, url)


def key_id(username: str | None) -> str:
    """The `keyId` of a local actor's key (None: the instance actor)."""
    return (ap.actor_url(username) if username else ap.instance_actor_url()) + "#main-key"


def _signer(username: str | None, account_id: str | None, *, body: bytes | None = None,
            accept: str | None = None, scheme: str = signatures.CAVAGE,
            components: tuple[str, ...] | None = None, label: str = signatures.RFC9421_LABEL):
    from stratus.federation import actor_keys

    private_key = actor_keys.private_key(account_id)

    def headers_for(method: str, url: str) -> dict[str, str]:
        if scheme == signatures.RFC9421:
            return signatures.sign_rfc9421(method, url, key_id=key_id(username),
                                           private_key=private_key, body=body, accept=accept,
                                           components=components, label=label)
        host, path = outbound.target(url)
        return signatures.sign_cavage(method, host, path, key_id=key_id(username),
                                      private_key=private_key, body=body, accept=accept)
    return headers_for


# What an RFC 9421 signature of a POST can cover (its Accept header is outbound's, not signed).
POST_SIGNABLE = tuple(name for name in signatures.RFC9421_SIGNABLE if name != "accept")


def _accept_signature(header: str | None) -> tuple[str, tuple[str, ...]] | None:
    """(label, components) of the first request in a peer's `Accept-Signature` (RFC 9421
    section 5.1) that we can honour: RSA PKCS#1 v1.5 (or no alg), components we can sign."""
    if not header:
        return None
    import http_sfv

    wanted = http_sfv.Dictionary()
    try:
        wanted.parse(header.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        return None
    for label, member in wanted.items():
        if not isinstance(member, http_sfv.InnerList):
            continue
        names = tuple(item.value for item in member)
        if member.params.get("alg", signatures.RFC9421_ALGORITHM) != \
                signatures.RFC9421_ALGORITHM or any(item.params for item in member):
            continue
        if all(isinstance(n, str) and n in POST_SIGNABLE for n in names):
            return label, names
    return None


def is_activitypub(content_type: str | None) -> bool:
    """Whether a raw Content-Type header names ActivityPub: `application/activity+json`, or
    `application/ld+json` with the ActivityStreams profile among its `profile="…"` URIs
    (Mastodon's `valid_activitypub_content_type?`). Plain `application/json` is not: a JSON
    file a server hosts for its users (an upload) must not pass for one of its objects."""
    if not content_type:
        return False
    media, *params = (part.strip() for part in content_type.split(";"))
    media = media.lower()
    if media == "application/activity+json":
        return True
    if media != "application/ld+json":
        return False
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "profile" and len(value) >= 2 and \
                value.startswith('"') and value.endswith('"') and \
                AS_PROFILE in value[1:-1].split():
            return True
    return False


def _get_object(url: str, deadline: outbound.Deadline) -> tuple[dict[str, Any], str]:
    """(the JSON object at `url`, the URL it was finally served from after redirects, without
    a fragment). FetchFailed unless a 200 ActivityPub JSON object with bounded nesting."""
    response = outbound.request(
        "GET", url, accept=ACCEPT, max_bytes=MAX_OBJECT_BYTES, deadline=deadline,
        headers_for=_signer(None, None, accept=ACCEPT), follow_redirects=True)
    if response.status != 200:
        raise FetchFailed(f"{response.url} answered {response.status}", response.status,
                          answered_by=response.url)
    if not is_activitypub(response.headers.get("content-type")):
        raise FetchFailed(f"{url} is {response.content_type or 'untyped'}, not ActivityPub",
                          response.status)
    try:
        found = jsondoc.loads(response.body)
    except ValueError:  # not JSON, not UTF-8, or nested too deeply (jsondoc.TooDeep)
        raise FetchFailed(f"{url} is not JSON, or nests too deeply",
                          response.status) from None
    if not isinstance(found, dict):
        raise FetchFailed(f"{url} is not a JSON object", response.status)
    return found, urldefrag(response.url).url


def fetch_object(url: str, *, id_is_known: bool = False,
                 deadline: outbound.Deadline | None = None) -> dict[str, Any]:
    """GET an ActivityPub object (signed as the instance actor; redirects followed and each
    re-signed), believed only where it names itself (docs/security.md, "Federation threats"):

    - its `id` (an http(s) URL) is the URL it was fetched from, compared exactly (the
      fragment is dropped from what is fetched): Mastodon's `fetch_resource(uri, id_is_known)`.
      With `id_is_known`, `url` is the object's id and the id must equal it. Otherwise (a URL
      searched for, a key URL that serves its owner's actor) a document naming itself by
      another URL is fetched once more by that id, and must name itself by it there;
    - after a redirect, the id must be the final URL (GoToSocial): a document another URL
      redirects to is only believed about itself, and then only when fetched again by its id
      (so never with `id_is_known`, unless there was no redirect after all);
    - it is served as ActivityPub (`is_activitypub`), nests at most `jsondoc.MAX_DEPTH` deep.

    So whatever the caller asked, the document returned was served at its own id. FetchFailed
    otherwise (`gone(url)`: the object is gone); outbound.Refused when it may not be fetched."""
    deadline = deadline or outbound.Deadline(FETCH_SECONDS)
    target = urldefrag(url).url
    found, final = _get_object(target, deadline)
    found_id = found.get("id")
    if not isinstance(found_id, str) or not found_id.startswith(("https://", "http://")):
        raise FetchFailed(f"{url} has no http(s) id", 200)
    if final != target and found_id != final:
        raise FetchFailed(f"{url} redirected to {final}, which names itself {found_id}", 200)
    if id_is_known:
        if found_id != url or final != target:
            raise FetchFailed(f"{url} names itself {found_id}", 200)
        return found
    if final == target and found_id in (url, target):
        return found
    again, final_again = _get_object(found_id, deadline)
    if again.get("id") != found_id or final_again != urldefrag(found_id).url:
        raise FetchFailed(f"{found_id} does not name itself where it is served", 200)
    return again


def post_activity(inbox_url: str, body: bytes, *, username: str | None,
                  account_id: str | None,
                  deadline: outbound.Deadline | None = None) -> outbound.Response:
    """POST an activity (its exact bytes) to an inbox, signed by its actor (username and
    account id; None for the instance actor), knocking a second time with the other signature
    scheme when the first is refused with 401 (module docstring). The answer, whatever its
    status; Refused when the inbox cannot be reached or may not be (address rules)."""
    from stratus.core import clock
    from stratus.repo import peers

    deadline = deadline or outbound.Deadline(POST_SECONDS)
    host, _path = outbound.target(inbox_url)
    first = peers.signing_scheme(host) or signatures.CAVAGE

    def knock(scheme: str, asked: tuple[str, tuple[str, ...]] | None = None
              ) -> outbound.Response:
        label, components = asked or (signatures.RFC9421_LABEL, None)
        return outbound.request(
            "POST", inbox_url, accept="application/activity+json, application/json",
            max_bytes=MAX_RESPONSE_BYTES, deadline=deadline, body=body,
            headers_for=_signer(username, account_id, body=body, scheme=scheme,
                                components=components, label=label))

    response = knock(first)
    if response.status != 401:
        return response
    asked = _accept_signature(response.headers.get("accept-signature"))
    if asked is None and first == signatures.RFC9421:
        second = signatures.CAVAGE
    else:
        second = signatures.RFC9421
    retried = knock(second, asked)
    if 200 <= retried.status < 300 and second != first:
        peers.set_signing_scheme(host, second, clock.iso(clock.now()))
    return retried
