"""Remote media are ours to serve (federation/remote_media.py): a client shown a remote account
or status gets our URLs only — our copy in the media bucket, or our proxy that makes it — so no
viewer's browser contacts a host a remote server chose. The copy is fetched under the outbound
rules, once, re-encoded by the image pipeline, never for a domain whose media are rejected, and
expires (`stratusctl media remove --days N`, and a daily schedule)."""

from __future__ import annotations

import io

import pytest

from tests.federation import peers
from tests.rig import images

BASE = "http://localhost:8000"
ACCOUNT_IMAGES = ("avatar", "avatar_static", "header", "header_static")


def _path(url: str) -> str:
    assert url.startswith(BASE + "/"), url
    return url.removeprefix(BASE)


def _png_with_text(width: int = 80, height: int = 60) -> bytes:
    """A PNG carrying a text chunk (metadata the re-encoding must drop)."""
    from PIL import Image, PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "secret-from-the-remote-server")
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 40, 40)).save(buffer, format="PNG", pnginfo=info)
    return buffer.getvalue()


@pytest.fixture
def mallory(runtime, hostile):
    """A remote account on the hostile host, with an avatar and a header it serves."""
    from stratus.federation import remote_accounts

    hostile.serve("/avatar.png", _png_with_text(500, 500), "image/png")
    hostile.serve("/header.png", images.png(1600, 600), "image/png")
    peer = hostile.actor("mallory")
    return remote_accounts.resolve(peer.uri)


def _status(hostile, mallory, number: int = 1, **overrides):
    """A remote status of mallory's with an image, a video and a custom emoji, each an
    `http://` URL on the hostile host."""
    from stratus.federation import remote_statuses

    hostile.serve("/p.png", _png_with_text(), "image/png")
    hostile.serve("/v.mp4", b"\x00\x00\x00\x18ftypmp42", "video/mp4")
    hostile.serve("/blob.png", images.png(32, 32), "image/png")
    obj = peers.note(hostile, number, username="mallory", content="<p>:blob:</p>",
                     tag=[{"type": "Emoji", "name": ":blob:",
                           "icon": {"type": "Image", "url": hostile.url("/blob.png")}}],
                     attachment=[{"type": "Document", "mediaType": "image/png",
                                  "url": hostile.url("/p.png"), "name": "a picture"},
                                 {"type": "Document", "mediaType": "video/mp4",
                                  "url": hostile.url("/v.mp4")}],
                     **overrides)
    status_id = remote_statuses.ingest(obj, actor=mallory)
    assert status_id is not None
    return status_id


def _account(client, account_id):
    return client.get(f"/api/v1/accounts/{account_id}").json()


def _show(client, status_id):
    return client.get(f"/api/v1/statuses/{status_id}").json()


def _stored_keys() -> list[str]:
    from stratus.core.config import settings
    from stratus.repo.client import client as aws

    listed = aws("s3").list_objects_v2(Bucket=settings().media_bucket, Prefix="cache/")
    return [o["Key"] for o in listed.get("Contents", [])]


def _block_media(domain: str = "127.0.0.1") -> None:
    from stratus.core import clock, ids
    from stratus.repo import base
    from stratus.repo import domain_blocks as blocks_repo

    base.transact([blocks_repo.put_block_op({
        "id": ids.new_id(), "domain": domain, "severity": "noop", "reject_media": True,
        "reject_reports": False, "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": clock.iso(clock.now())})])


def _image_hits(site) -> int:
    return sum(site.hits(p) for p in ("/avatar.png", "/header.png", "/p.png", "/v.mp4",
                                      "/blob.png"))


# --- attacks --------------------------------------------------------------------------------------
def test_attack_remote_avatar_url_reaches_clients(client, hostile, mallory):
    """A remote account's avatar and header are the attacker's URLs; a client rendering the
    account must be given ours, so its browser never contacts the attacker's host."""
    body = _account(client, mallory["id"])
    for field in ACCOUNT_IMAGES:
        assert body[field].startswith(BASE + "/"), (field, body[field])
        assert hostile.host not in body[field]
    assert _image_hits(hostile) == 0  # rendering fetched nothing either


def test_attack_http_attachment_url_reaches_clients(client, hostile, mallory):
    """A remote status's `http://` attachment and custom emoji render as our URLs; the
    original stays in `remote_url` only (Mastodon's field for it, which clients do not load).
    A video has no pipeline to re-encode it: it is `unknown` and nothing serves it."""
    status_id = _status(hostile, mallory)
    body = _show(client, status_id)
    image, video = body["media_attachments"]
    assert image["type"] == "image" and image["remote_url"] == hostile.url("/p.png")
    for url in (image["url"], image["preview_url"], video["url"]):
        assert url.startswith(BASE + "/") and hostile.host not in url, url
    assert video["type"] == "unknown" and video["preview_url"] is None
    [emoji] = body["emojis"]
    for url in (emoji["url"], emoji["static_url"]):
        assert url.startswith(BASE + "/") and hostile.host not in url, url
    for field in ACCOUNT_IMAGES:
        assert body["account"][field].startswith(BASE + "/")
    # The video's URL is ours and serves nothing: not the remote bytes, not a fetch.
    assert client.get(_path(video["url"]), follow_redirects=False).status_code == 404
    assert hostile.hits("/v.mp4") == 0


# --- the copy ---------------------------------------------------------------------------------------
def test_remote_media_fetched_once_and_served_from_bucket(client, hostile, mallory):
    from PIL import Image

    proxied = _account(client, mallory["id"])["avatar"]
    first = client.get(_path(proxied), follow_redirects=False)
    again = client.get(_path(proxied), follow_redirects=False)
    assert first.status_code == again.status_code == 302
    location = first.headers["location"]
    assert again.headers["location"] == location
    assert location.startswith(f"{BASE}/system/cache/accounts/avatars/")
    assert hostile.hits("/avatar.png") == 1
    served = client.get(_path(location))
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    assert b"secret-from-the-remote-server" not in served.content  # re-encoded, not copied
    assert Image.open(io.BytesIO(served.content)).size == (400, 400)  # as a local avatar
    # Once there is a copy, clients are given it directly.
    body = _account(client, mallory["id"])
    assert body["avatar"] == body["avatar_static"] == location

    status_id = _status(hostile, mallory)
    shown = _show(client, status_id)
    image = shown["media_attachments"][0]
    original = client.get(_path(image["url"]), follow_redirects=False)
    small = client.get(_path(image["preview_url"]), follow_redirects=False)
    emoji = client.get(_path(shown["emojis"][0]["url"]), follow_redirects=False)
    assert original.status_code == small.status_code == emoji.status_code == 302
    assert hostile.hits("/p.png") == 1 and hostile.hits("/blob.png") == 1
    stored = client.get(_path(original.headers["location"]))
    assert stored.status_code == 200 and b"secret-from-the-remote-server" not in stored.content
    assert client.get(_path(small.headers["location"])).status_code == 200
    shown = _show(client, status_id)
    image = shown["media_attachments"][0]
    assert image["url"] == original.headers["location"]
    assert image["preview_url"] == small.headers["location"]
    assert image["meta"]["original"]["width"] == 80
    assert shown["emojis"][0]["url"] == emoji.headers["location"]
    # A second status with the same emoji shares the copy: not fetched again.
    other = _show(client, _status(hostile, mallory, 2))
    assert other["emojis"][0]["url"] == emoji.headers["location"]
    assert hostile.hits("/blob.png") == 1


def test_concurrent_first_uses_fetch_once(client, hostile, mallory):
    """Two viewers ask for the same avatar while it is being fetched (slowly): one fetch, and
    both are sent to the same copy."""
    import threading

    from stratus.federation import remote_media

    hostile.drip("/avatar.png", images.png(8, 8), every=0.01, content_type="image/png")
    proxied = _account(client, mallory["id"])["avatar"]
    _kind, owner_id, digest = _path(proxied).split("/")[2:5]
    found: list[str] = []

    def use() -> None:
        found.append(remote_media.proxy("avatar", owner_id, digest))

    viewers = [threading.Thread(target=use) for _ in range(2)]
    for viewer in viewers:
        viewer.start()
    for viewer in viewers:
        viewer.join(30)
    assert len(found) == 2 and found[0] == found[1]
    assert found[0].startswith(f"{BASE}/system/cache/accounts/avatars/")
    assert hostile.hits("/avatar.png") == 1


def test_a_fetch_that_lands_between_a_look_and_a_claim_is_not_repeated(client, hostile,
                                                                       mallory, monkeypatch):
    """A viewer looks (no copy yet), another's fetch stores the copy, then the first viewer
    claims the fetch: the claim is refused because a copy of that URL now exists, and the
    viewer is sent to it — one fetch, one copy."""
    from stratus.federation import remote_media
    from stratus.repo import remote_media as repo

    proxied = _account(client, mallory["id"])["avatar"]
    _kind, owner_id, digest = _path(proxied).split("/")[2:5]
    first = remote_media.proxy("avatar", owner_id, digest)
    real_get, looks = repo.get, []

    def stale_first_look(kind, ref):
        looks.append(ref)
        return None if len(looks) == 1 else real_get(kind, ref)

    monkeypatch.setattr(repo, "get", stale_first_look)
    assert remote_media.proxy("avatar", owner_id, digest) == first
    assert hostile.hits("/avatar.png") == 1


def test_a_proxy_url_that_was_never_given_out_is_not_found(client, hostile, mallory):
    """The digest of the remote URL is part of the proxy URL: walking ids finds nothing."""
    proxied = _account(client, mallory["id"])["avatar"]
    forged = proxied[:-4] + "0000"
    assert client.get(_path(forged), follow_redirects=False).status_code == 404
    assert client.get(f"/media_proxy/attachment/{mallory['id']}/x",
                      follow_redirects=False).status_code == 404
    assert _image_hits(hostile) == 0


def test_reject_media_domain_never_fetched(client, hostile, mallory):
    status_id = _status(hostile, mallory)
    account, shown = _account(client, mallory["id"]), _show(client, status_id)
    _block_media()
    avatar = client.get(_path(account["avatar"]), follow_redirects=False)
    assert avatar.status_code == 302
    assert avatar.headers["location"] == f"{BASE}/avatars/original/missing.png"
    header = client.get(_path(account["header"]), follow_redirects=False)
    assert header.headers["location"] == f"{BASE}/headers/original/missing.png"
    for url in (shown["media_attachments"][0]["url"], shown["emojis"][0]["url"]):
        assert client.get(_path(url), follow_redirects=False).status_code == 404
    assert _image_hits(hostile) == 0 and _stored_keys() == []


def test_copies_made_before_a_reject_media_block_can_be_removed(client, hostile, mallory):
    """remote_media.copies_of_block and forget_all (what the effects worker runs when a block
    comes to reject a domain's media, driven here directly): the
    copies go, the account renders our proxy again, and the proxy fetches nothing."""
    from stratus.federation import remote_media

    proxied = _account(client, mallory["id"])["avatar"]
    location = client.get(_path(proxied), follow_redirects=False).headers["location"]
    assert _account(client, mallory["id"])["avatar"] == location
    _block_media()
    copies = remote_media.copies_of_block("127.0.0.1", 100)
    assert len(copies) == 1
    remote_media.forget_all(copies)
    assert _stored_keys() == [] and client.get(_path(location)).status_code == 404
    assert _account(client, mallory["id"])["avatar"] == proxied
    again = client.get(_path(proxied), follow_redirects=False)
    assert again.headers["location"] == f"{BASE}/avatars/original/missing.png"
    assert hostile.hits("/avatar.png") == 1


def test_a_block_rejecting_media_removes_the_copies_already_made(client, drain, hostile,
                                                                 mallory):
    """A domain block that comes to reject a domain's media (here of its parent domain's
    host, `127.0.0.1`, covering the peer's `127.0.0.1:<port>`) removes the copies already in
    our bucket — avatar, attachment, emoji — as Mastodon's BlockDomainService clears the
    domain's files: clients get our proxy again, which fetches nothing."""
    status_id = _status(hostile, mallory)
    shown = _show(client, status_id)
    for url in (_account(client, mallory["id"])["avatar"], shown["media_attachments"][0]["url"],
                shown["emojis"][0]["url"]):
        assert client.get(_path(url), follow_redirects=False).status_code == 302
    drain()
    assert len(_stored_keys()) >= 3
    _block_media()
    drain()
    assert _stored_keys() == []
    avatar = _account(client, mallory["id"])["avatar"]
    assert "/media_proxy/" in avatar
    assert client.get(_path(avatar), follow_redirects=False).headers["location"] == \
        f"{BASE}/avatars/original/missing.png"


def test_oversized_remote_image_refused(client, hostile, mallory):
    """More bytes than a local avatar may have (2 MB), or more pixels than the image pipeline
    decodes (a decompression bomb), and nothing is stored; the failure is remembered."""
    hostile.serve("/avatar.png", b"\x89PNG\r\n\x1a\n" + bytes(2 * 1024 * 1024 + 1), "image/png")
    avatar = _account(client, mallory["id"])["avatar"]
    refused = client.get(_path(avatar), follow_redirects=False)
    assert refused.headers["location"] == f"{BASE}/avatars/original/missing.png"
    assert client.get(_path(avatar), follow_redirects=False).headers["location"] == \
        f"{BASE}/avatars/original/missing.png"
    assert hostile.hits("/avatar.png") == 1  # not asked again at once

    status_id = _status(hostile, mallory)
    hostile.serve("/p.png", images.bomb_png(), "image/png")
    image = _show(client, status_id)["media_attachments"][0]
    assert client.get(_path(image["url"]), follow_redirects=False).status_code == 404
    assert hostile.hits("/p.png") == 1
    assert _stored_keys() == []
    assert _show(client, status_id)["media_attachments"][0]["url"] == image["url"]


def test_remote_media_redirected_to_a_private_address_refused(client, hostile, mallory):
    """The download is held to the outbound rules: a redirect to the cloud's metadata address
    is checked again and refused, and the avatar shows the placeholder."""
    hostile.redirect("/avatar.png", "http://169.254.169.254/latest/meta-data/")
    avatar = _account(client, mallory["id"])["avatar"]
    refused = client.get(_path(avatar), follow_redirects=False)
    assert refused.headers["location"] == f"{BASE}/avatars/original/missing.png"
    assert hostile.hits("/avatar.png") == 1 and _stored_keys() == []


def test_media_remove_days_expires_and_refetches(client, runtime, hostile, mallory,
                                                 monkeypatch, capsys):
    from local.lambda_runtime import invoke
    from stratusctl import cli

    monkeypatch.setattr(cli, "connect", lambda stack: "a stack")
    proxied = _account(client, mallory["id"])["avatar"]
    location = client.get(_path(proxied), follow_redirects=False).headers["location"]
    assert client.get(_path(location)).status_code == 200

    assert cli.main(["media", "remove", "--days", "1"]) == 0  # too young to go
    assert "removed 0 " in capsys.readouterr().out
    assert _account(client, mallory["id"])["avatar"] == location

    assert cli.main(["media", "remove", "--days", "0"]) == 0
    assert "removed 1 " in capsys.readouterr().out
    assert client.get(_path(location)).status_code == 404  # the copy is gone
    assert _account(client, mallory["id"])["avatar"] == proxied  # our proxy again
    assert _stored_keys() == []

    refetched = client.get(_path(proxied), follow_redirects=False).headers["location"]
    assert refetched != location and hostile.hits("/avatar.png") == 2
    assert client.get(_path(refetched)).status_code == 200

    # The daily schedule does the same.
    assert invoke(runtime.stack, "RemoteMediaScheduleFunction", {"days": 0}) == \
        {"days": 0, "removed": 1}
    assert _account(client, mallory["id"])["avatar"] == proxied
    assert _stored_keys() == []
