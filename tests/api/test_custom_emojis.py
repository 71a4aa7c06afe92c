"""Custom emoji: import rules, the public list, media served from the bucket."""

from __future__ import annotations

import pytest
from stratus.api.instance import emojis
from stratus.api.instance.instance import default_thumbnail
from stratus.core.errors import Unprocessable
from stratus.core.limits import CUSTOM_EMOJI_SIZE_LIMIT

PNG = default_thumbnail()


def test_list_is_public_cached_and_schema_valid(client, entity):
    emojis.import_emoji("zeta", PNG, category="Letters")
    emojis.import_emoji("Alpha", PNG)
    response = client.get("/api/v1/custom_emojis")
    assert response.status_code == 200
    assert response.headers["cache-control"].startswith("max-age=300, public")
    body = response.json()
    assert [e["shortcode"] for e in body] == ["Alpha", "zeta"]
    for item in body:
        entity("CustomEmoji", item)
        assert item["url"].startswith("http://localhost:8000/system/custom_emojis/images/")
        assert item["static_url"] == item["url"]
        assert item["visible_in_picker"] is True
    assert body[0]["category"] is None and body[1]["category"] == "Letters"
    image = client.get(body[0]["url"].removeprefix("http://localhost:8000"))
    assert image.status_code == 200 and image.content == PNG
    assert image.headers["content-type"] == "image/png"


@pytest.mark.parametrize("shortcode, data, message", [
    ("a", PNG, "Shortcode"),
    ("bad-code", PNG, "Shortcode"),
    ("fine", b"<svg></svg>", "PNG, GIF or WebP"),
    ("fine", b"GIF89a" + b"\0" * CUSTOM_EMOJI_SIZE_LIMIT, "smaller than"),
])
def test_import_refuses_bad_input(runtime, shortcode, data, message):
    with pytest.raises(Unprocessable, match=message):
        emojis.import_emoji(shortcode, data)


def test_duplicate_shortcode_needs_overwrite(runtime):
    emojis.import_emoji("blob", PNG)
    with pytest.raises(Unprocessable, match="already been taken"):
        emojis.import_emoji("blob", PNG)
    emojis.import_emoji("blob", PNG, category="New", overwrite=True)
    assert [e["category"] for e in emojis.list_emojis()] == ["New"]


def test_missing_media_is_404(client):
    assert client.get("/system/nothing/here.png").status_code == 404


# --- profiles: validators and the per-process cache -------------------------------
def test_list_has_validators_and_answers_304(client, runtime):
    emojis.import_emoji("blob", PNG, category="Blobs")
    first = client.get("/api/v1/custom_emojis")
    etag, modified = first.headers["etag"], first.headers["last-modified"]
    assert first.status_code == 200 and etag.startswith('"') and modified.endswith("GMT")
    again = client.get("/api/v1/custom_emojis", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag
    assert again.headers["cache-control"].startswith("max-age=300, public")
    weak = client.get("/api/v1/custom_emojis", headers={"If-None-Match": f'"x", W/{etag}'})
    assert weak.status_code == 304
    since = client.get("/api/v1/custom_emojis", headers={"If-Modified-Since": modified})
    assert since.status_code == 304
    stale = client.get("/api/v1/custom_emojis", headers={"If-None-Match": '"other"'})
    assert stale.status_code == 200 and stale.json() == first.json()
    # A new emoji changes the list and its validator (an import drops this process's copy).
    emojis.import_emoji("blobcat", PNG, category="Blobs")
    changed = client.get("/api/v1/custom_emojis", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    assert [e["shortcode"] for e in changed.json()] == ["blob", "blobcat"]


def test_list_is_served_from_memory_while_fresh(client, runtime, monkeypatch):
    from stratus.repo import instance as instance_repo

    emojis.import_emoji("blob", PNG)
    client.get("/api/v1/custom_emojis")
    calls = []
    monkeypatch.setattr(instance_repo, "list_emojis",
                        lambda: calls.append(1) or [])  # a read now would empty the list
    assert [e["shortcode"] for e in client.get("/api/v1/custom_emojis").json()] == ["blob"]
    assert calls == []
    emojis.forget()
    assert client.get("/api/v1/custom_emojis").json() == [] and calls == [1]


def test_emoji_hidden_from_the_picker_or_disabled_are_not_listed(client, runtime):
    from stratus.repo import instance as instance_repo

    for code in ("shown", "hidden", "off"):
        emojis.import_emoji(code, PNG)
    instance_repo.put_emoji({**instance_repo.get_emoji("hidden"), "visible_in_picker": False})
    instance_repo.put_emoji({**instance_repo.get_emoji("off"), "disabled": True})
    emojis.forget()
    assert [e["shortcode"] for e in client.get("/api/v1/custom_emojis").json()] == ["shown"]
