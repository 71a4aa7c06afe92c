"""Credentials, profiles, account reads, notes, preferences, and scope/user-state rules."""

from __future__ import annotations

import pytest
from stratus.api.instance.instance import solid_png

from tests.rig import app_token, auth, images, make_app, make_user, user_token


@pytest.fixture
def app(client):
    return make_app(client)


@pytest.fixture
def alice(app):
    account_id = make_user("alice")
    return account_id, auth(user_token(app, account_id, scopes=("read", "write")))


def test_verify_credentials(client, alice, entity):
    account_id, headers = alice
    response = client.get("/api/v1/accounts/verify_credentials", headers=headers)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "private, no-store"
    body = response.json()
    entity("CredentialAccount", body)
    assert body["id"] == account_id and body["acct"] == "alice"
    assert body["url"] == "http://localhost:8000/@alice"
    assert body["uri"] == "http://localhost:8000/users/alice"
    assert body["avatar"] == "http://localhost:8000/avatars/original/missing.png"
    assert body["header"] == "http://localhost:8000/headers/original/missing.png"
    assert body["created_at"].endswith("T00:00:00.000Z")
    assert body["source"]["privacy"] == "public" and body["source"]["note"] == ""
    assert body["role"]["id"] == "-99" and body["role"]["permissions"] == "65536"
    assert body["last_status_at"] is None and body["statuses_count"] == 0
    assert client.get(body["avatar"].removeprefix("http://localhost:8000")).status_code == 200


def test_profile_scope_is_enough_for_verify_credentials(client, app):
    account_id = make_user("alice")
    token = user_token(app, account_id, scopes=("profile",))
    assert client.get("/api/v1/accounts/verify_credentials", headers=auth(token)).status_code == 200
    write_only = user_token(app, account_id, scopes=("write",))
    response = client.get("/api/v1/accounts/verify_credentials", headers=auth(write_only))
    assert response.status_code == 403
    assert response.json() == {"error": "This action is outside the authorized scopes"}


def test_app_token_where_a_user_is_needed_is_422(client, app):
    token = app_token(client, app, scope="read")
    response = client.get("/api/v1/accounts/verify_credentials", headers=auth(token))
    assert response.status_code == 422
    assert response.json() == {"error": "This method requires an authenticated user"}
    assert client.get("/api/v1/accounts/verify_credentials").status_code == 401


def test_disabled_user_is_403(client, app):
    from stratus.api.accounts import accounts, operator

    token = user_token(app, make_user("erin"))
    operator.operator_modify("erin", disable=True)
    response = client.get("/api/v1/preferences", headers=auth(token))
    assert response.status_code == 401  # disabling revokes the user's tokens
    token = user_token(app, accounts.repo.id_by_handle("erin"))
    response = client.get("/api/v1/preferences", headers=auth(token))
    assert response.status_code == 403 and response.json() == {"error": "Your login is currently disabled"}


def test_update_credentials(client, alice, entity):
    _, headers = alice
    response = client.patch("/api/v1/accounts/update_credentials", headers=headers, data={
        "display_name": "Alice A.", "note": "Hello\n<b>world</b>", "locked": "true",
        "bot": "0", "discoverable": "1",
        "fields_attributes[0][name]": "Site", "fields_attributes[0][value]": "https://alice.example",
        "fields_attributes[1][name]": "Pronouns", "fields_attributes[1][value]": "she/her",
        "source[privacy]": "unlisted", "source[sensitive]": "true", "source[language]": "de"},
        files={"avatar": ("a.png", solid_png(8, 8, (1, 2, 3)), "image/png")})
    assert response.status_code == 200, response.text
    body = response.json()
    entity("CredentialAccount", body)
    assert body["display_name"] == "Alice A."
    assert body["note"] == "<p>Hello<br>&lt;b&gt;world&lt;/b&gt;</p>"
    assert body["source"]["note"] == "Hello\n<b>world</b>"
    assert body["locked"] is True and body["bot"] is False and body["discoverable"] is True
    assert [f["name"] for f in body["fields"]] == ["Site", "Pronouns"]
    assert 'href="https://alice.example"' in body["fields"][0]["value"]
    assert body["fields"][1]["value"] == "she/her"
    assert body["source"]["privacy"] == "unlisted" and body["source"]["sensitive"] is True
    assert body["source"]["language"] == "de"
    assert body["avatar"].startswith("http://localhost:8000/system/accounts/avatars/")
    image = client.get(body["avatar"].removeprefix("http://localhost:8000"))
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    served = images.opened(image.content)
    # Mastodon's `400x400#`: scaled to cover the square, then cropped.
    assert served.size == (400, 400) and served.convert("RGB").getpixel((200, 200)) == (1, 2, 3)
    assert body["avatar_static"] == body["avatar"]
    prefs = client.get("/api/v1/preferences", headers=headers).json()
    assert prefs["posting:default:visibility"] == "unlisted"
    assert prefs["posting:default:sensitive"] is True
    as_json = client.patch("/api/v1/accounts/update_credentials", headers=headers,
                           json={"display_name": "Alice", "fields_attributes": []})
    assert as_json.json()["display_name"] == "Alice" and as_json.json()["fields"] == []


@pytest.mark.parametrize("send", [
    {"data": {"fields_attributes": "undefined"}},  # masto.js's `fieldsAttributes: undefined`
    {"json": {"fields_attributes": "undefined"}},
    {"json": {"fields_attributes": 7}},
])
def test_a_scalar_where_fields_are_expected_is_dropped(client, alice, send):
    """Rails' strong parameters drop a scalar where `fields_attributes: [:name, :value]` wants
    a hash or a list: the update goes on without it (200), the fields as they were."""
    _, headers = alice
    client.patch("/api/v1/accounts/update_credentials", headers=headers, json={
        "fields_attributes": [{"name": "Site", "value": "here"}]})
    response = client.patch("/api/v1/accounts/update_credentials", headers=headers, **send)
    assert response.status_code == 200, response.text
    assert [(f["name"], f["value"]) for f in response.json()["fields"]] == [("Site", "here")]


@pytest.mark.parametrize("data, field", [
    ({"note": "x" * 501}, "note"),
    ({"display_name": "x" * 31}, "display_name"),
    ({f"fields_attributes[{i}][name]": f"n{i}" for i in range(5)}, "fields"),
    ({"source[privacy]": "direct"}, "source.privacy"),
])
def test_update_credentials_limits(client, alice, data, field):
    response = client.patch("/api/v1/accounts/update_credentials", headers=alice[1], data=data)
    assert response.status_code == 422
    assert field in response.json()["details"]


def test_header_upload(client, alice):
    header = solid_png(30, 10, (9, 9, 9))
    response = client.patch("/api/v1/accounts/update_credentials", headers=alice[1],
                            files={"header": ("h.png", header, "image/png")})
    assert response.status_code == 200
    url = response.json()["header"]
    assert "/system/accounts/headers/" in url and response.json()["header_static"] == url
    served = images.opened(client.get(url.removeprefix("http://localhost:8000")).content)
    assert served.size == (1500, 500) and served.convert("RGB").getpixel((750, 250)) == (9, 9, 9)


def test_avatar_must_be_an_image(client, alice):
    response = client.patch("/api/v1/accounts/update_credentials", headers=alice[1],
                            files={"avatar": ("a.png", b"not an image", "image/png")})
    assert response.status_code == 422 and "avatar" in response.json()["details"]


def _profile_upload(client, alice, kind, data, name="p.png", mime="image/png"):
    return client.patch("/api/v1/accounts/update_credentials", headers=alice[1],
                        files={kind: (name, data, mime)})


def _served(client, url):
    return client.get(url.removeprefix("http://localhost:8000"))


def _stored_keys(runtime, prefix):
    from stratus.repo.client import client as aws

    listed = aws("s3").list_objects_v2(Bucket=runtime.env["MEDIA_BUCKET"], Prefix=prefix)
    return [o["Key"] for o in listed.get("Contents", [])]


@pytest.mark.parametrize("kind", ["avatar", "header"])
def test_profile_images_refuse_decompression_bombs(client, runtime, alice, kind):
    """A 30000×30000 PNG is ~100 KB; decoded it is 900 megapixels. It is refused before any
    pixel is decoded, and nothing is stored for others' browsers to choke on."""
    bomb = images.bomb_png()
    assert len(bomb) < 2 * 1024 * 1024
    response = _profile_upload(client, alice, kind, bomb)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == (f"Validation failed: {kind.capitalize()} dimensions exceed the "
                             "limit of 33177600 pixels")
    assert body["details"][kind][0]["error"] == "ERR_TOO_LARGE"
    assert _stored_keys(runtime, "accounts/") == []
    me = client.get("/api/v1/accounts/verify_credentials", headers=alice[1]).json()
    assert me[kind].endswith("/missing.png")


@pytest.mark.parametrize("kind", ["avatar", "header"])
def test_profile_images_refuse_html_behind_a_png_signature(client, runtime, alice, kind):
    response = _profile_upload(client, alice, kind, b"\x89PNG\r\n\x1a\n" + images.HTML)
    assert response.status_code == 422
    assert response.json()["details"][kind][0]["description"] == \
        "must be a PNG, JPEG, GIF or WebP image"
    assert _stored_keys(runtime, "accounts/") == []


def test_profile_images_are_clean_re_encodings_served_as_what_they_are(client, alice):
    """A real PNG with HTML appended decodes fine: what is stored and served is the
    re-encoded picture alone, with its true type and `nosniff`."""
    response = _profile_upload(client, alice, "avatar", images.png() + images.HTML)
    assert response.status_code == 200, response.text
    served = _served(client, response.json()["avatar"])
    assert served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"
    assert served.headers["content-security-policy"] == "default-src 'none'; form-action 'none'"
    assert b"<script" not in served.content and b"<html" not in served.content
    assert images.opened(served.content).format == "PNG"


def test_profile_images_lose_their_metadata_but_keep_their_orientation(client, alice):
    photo = images.jpeg_with_gps()
    assert images.metadata(photo)["exif"]  # the upload carries camera, GPS, comment, XMP
    response = _profile_upload(client, alice, "header", photo, "p.jpg", "image/jpeg")
    assert response.status_code == 200, response.text
    served = _served(client, response.json()["header"])
    assert served.headers["content-type"] == "image/jpeg"
    assert images.metadata(served.content) == {}
    for needle in (b"SecretCam", b"home sweet home", b"xmpmeta", b"Exif"):
        assert needle not in served.content
    # Stored on its side (orientation 6) with the left half blue: upright, the top is blue.
    upright = images.opened(served.content).convert("RGB")
    assert upright.size == (1500, 500)
    top, bottom = upright.getpixel((750, 60)), upright.getpixel((750, 440))
    assert top[2] > 150 > top[0] and bottom[0] > 150 > bottom[2]


def test_profile_images_over_2_mb_are_refused(client, alice):
    padded = images.png() + b"\0" * (2 * 1024 * 1024)
    response = _profile_upload(client, alice, "avatar", padded)
    assert response.status_code == 422
    assert response.json()["error"] == "Validation failed: Avatar must be smaller than 2 MB"


def test_animated_avatars_stay_animated_with_a_still_avatar_static(client, alice):
    response = _profile_upload(client, alice, "avatar", images.animated_gif(), "a.gif",
                               "image/gif")
    assert response.status_code == 200, response.text
    body = response.json()
    animated = _served(client, body["avatar"])
    assert animated.headers["content-type"] == "image/gif"
    gif = images.opened(animated.content)
    assert gif.size == (400, 400) and gif.n_frames == 3
    still = _served(client, body["avatar_static"])
    assert body["avatar_static"] != body["avatar"] and still.headers["content-type"] == "image/png"
    assert images.opened(still.content).size == (400, 400)


def test_public_account_reads(client, alice, entity):
    account_id, _ = alice
    response = client.get(f"/api/v1/accounts/{account_id}")
    assert response.status_code == 200
    entity("Account", response.json())
    assert response.headers["cache-control"].startswith("max-age=15, public")
    assert "source" not in response.json()
    hidden = make_user("pending", confirmed=False)
    assert client.get(f"/api/v1/accounts/{hidden}").status_code == 404
    assert client.get("/api/v1/accounts/12345").status_code == 404
    assert client.get("/api/v1/accounts/not-an-id").status_code == 404
    many = client.get(f"/api/v1/accounts?id[]={account_id}&id[]={hidden}&id[]=999").json()
    assert [a["id"] for a in many] == [account_id]
    too_many = client.get("/api/v1/accounts?" + "&".join(f"id[]={i}" for i in range(41)))
    assert too_many.status_code == 422


def test_lookup(client, alice):
    account_id, headers = alice
    for acct in ("alice", "@alice", "ALICE", "alice@localhost:8000"):
        response = client.get(f"/api/v1/accounts/lookup?acct={acct}")
        assert response.status_code == 200, acct
        assert response.json()["id"] == account_id
    assert client.get("/api/v1/accounts/lookup?acct=nobody").status_code == 404
    assert client.get("/api/v1/accounts/lookup?acct=alice@elsewhere.example").status_code == 404


def test_private_note(client, alice, entity):
    _, headers = alice
    bob = make_user("bob")
    response = client.post(f"/api/v1/accounts/{bob}/note", headers=headers,
                           data={"comment": "met at the conference"})
    assert response.status_code == 200
    entity("Relationship", response.json())
    assert response.json()["note"] == "met at the conference" and response.json()["id"] == bob
    too_long = client.post(f"/api/v1/accounts/{bob}/note", headers=headers,
                           data={"comment": "x" * 2001})
    assert too_long.status_code == 422
    assert client.post("/api/v1/accounts/1/note", headers=headers,
                       data={"comment": "x"}).status_code == 404
    cleared = client.post(f"/api/v1/accounts/{bob}/note", headers=headers, data={"comment": ""})
    assert cleared.json()["note"] == ""


def test_identity_proofs_and_preferences(client, alice, entity):
    account_id, headers = alice
    assert client.get(f"/api/v1/accounts/{account_id}/identity_proofs", headers=headers).json() == []
    prefs = client.get("/api/v1/preferences", headers=headers)
    assert prefs.status_code == 200
    entity("Preferences", prefs.json())


def test_profile_page(client, alice):
    _, headers = alice
    client.patch("/api/v1/accounts/update_credentials", headers=headers,
                 data={"display_name": "Alice <Wonder>", "note": "Curious",
                       "fields_attributes[0][name]": "Web",
                       "fields_attributes[0][value]": "https://alice.example"})
    page = client.get("/@alice")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Alice &lt;Wonder&gt;" in page.text and "<p>Curious</p>" in page.text
    assert 'href="https://alice.example"' in page.text
    missing = client.get("/@nobody")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/html")


def test_sign_in_activity_feeds_active_users(client, alice, runtime):
    _, headers = alice
    client.get("/api/v1/accounts/verify_credentials", headers=headers)
    runtime.pipeline.pump_schedules(now=float("inf"))
    assert client.get("/nodeinfo/2.0").json()["usage"]["users"]["activeMonth"] == 1
