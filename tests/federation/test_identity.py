"""Discovery and identity for federation: actor key pairs, WebFinger, host-meta, actors and the
instance actor, content negotiation, the outbox and collections, statuses as objects — in
Mastodon's shapes (its ActivityPub serializers and well-known controllers)."""

from __future__ import annotations

import pytest

from tests.rig import follow, post

AP = {"Accept": "application/activity+json"}
LD = {"Accept": 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'}
BASE = "http://localhost:8000"
PUBLIC = "https://www.w3.org/ns/activitystreams#Public"

# ActivityPub::ActorSerializer's attributes (Mastodon 4.3; `webfinger` is FEP-2c59, 4.4+).
ACTOR_KEYS = {"@context", "id", "type", "following", "followers", "inbox", "outbox", "featured",
              "featuredTags", "preferredUsername", "name", "summary", "url",
              "manuallyApprovesFollowers", "discoverable", "indexable", "published", "memorial",
              "webfinger", "publicKey", "tag", "attachment", "endpoints"}
NOTE_KEYS = {"id", "type", "summary", "inReplyTo", "published", "url", "attributedTo", "to",
             "cc", "sensitive", "atomUri", "inReplyToAtomUri", "conversation", "content",
             "attachment", "tag", "replies"}


def ap(client, path, headers=AP, status=200):
    response = client.get(path, headers=headers, follow_redirects=False)
    assert response.status_code == status, response.text
    if status == 200:
        assert response.headers["content-type"] == "application/activity+json; charset=utf-8"
    return response.json() if status == 200 else response


def suspend(account_id):
    from stratus.repo import base, keys

    base.update(keys.account_profile(account_id), "SET suspended_at = :t",
                vals={":t": "2026-01-01T00:00:00.000Z"})


# --- keys ----------------------------------------------------------------------------------
def test_the_outbox_makes_each_new_user_a_sealed_key_pair(client, people, drain):
    from cryptography.hazmat.primitives import serialization
    from stratus.federation import actor_keys
    from stratus.read import secrets
    from stratus.repo import actor_keys as repo

    ids_, _ = people
    assert repo.get(ids_["alice"]) is None  # not made in the sign-up transaction
    drain()
    stored = repo.get(ids_["alice"])
    assert stored is not None and stored["type"] == "actor_key"
    # Nothing in the item is a private key in clear.
    assert not any("PRIVATE" in str(v) for v in stored.values())
    pem = secrets.unseal(stored["sealed_private_key"], b"actor_key/" + ids_["alice"].encode())
    private = serialization.load_pem_private_key(pem, password=None)
    assert private.key_size == 2048
    public = private.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    assert public.decode() == stored["public_key_pem"]
    # Bound to its item: the same ciphertext does not open as another account's key.
    with pytest.raises(ValueError):
        secrets.unseal(stored["sealed_private_key"], b"actor_key/" + ids_["bob"].encode())
    assert actor_keys.private_key(ids_["alice"]).private_numbers() == private.private_numbers()
    # The actor publishes the stored public key, and the API never shows the sealed one.
    assert ap(client, "/users/alice")["publicKey"]["publicKeyPem"] == stored["public_key_pem"]
    everything = client.get(f"/api/v1/accounts/{ids_['alice']}").text
    assert stored["sealed_private_key"] not in everything


def test_one_key_per_account_under_redelivery_and_races(client, people, monkeypatch):
    from stratus.federation import actor_keys
    from stratus.jobs import messages as jobs
    from stratus.repo import actor_keys as repo

    ids_, _ = people
    job = jobs.GenerateActorKey(event_id="e1", account_id=ids_["alice"])
    assert actor_keys.generate(job) == 1
    first = repo.get(ids_["alice"])
    assert actor_keys.generate(job) == 0  # a redelivered job keeps the key
    assert repo.get(ids_["alice"]) == first
    # The lazy path loses a race it did not see coming: it read no key, made one, and the
    # conditional put finds the worker's. It answers with the stored key.
    real_get = repo.get
    monkeypatch.setattr(repo, "get", lambda account_id, consistent=False:
                        real_get(account_id, consistent=True) if consistent else None)
    assert actor_keys.ensure(ids_["alice"])["public_key_pem"] == first["public_key_pem"]
    # And the worker losing to the lazy path keeps the lazy path's key.
    bob_key = actor_keys.ensure(ids_["bob"])
    assert actor_keys.generate(jobs.GenerateActorKey(event_id="e2", account_id=ids_["bob"])) == 0
    assert real_get(ids_["bob"])["public_key_pem"] == bob_key["public_key_pem"]


def test_an_actor_read_before_the_outbox_ran_makes_its_key(client, people):
    from stratus.repo import actor_keys as repo

    ids_, _ = people
    # /@alice is served by the web function, which only reads: it sends servers to /users/alice.
    moved = ap(client, "/@alice", status=302)
    assert moved.headers["location"] == f"{BASE}/users/alice"
    actor = ap(client, "/users/alice")
    assert actor["publicKey"]["publicKeyPem"] == repo.get(ids_["alice"])["public_key_pem"]
    assert ap(client, "/@alice") == actor


def test_key_rotation_replaces_the_key_pair(client, people, drain, monkeypatch, capsys):
    from stratusctl import cli

    monkeypatch.setattr(cli, "connect", lambda stack: "a stack")
    drain()
    before = ap(client, "/users/alice")["publicKey"]["publicKeyPem"]
    assert cli.main(["keys", "rotate", "alice"]) == 0
    after = ap(client, "/users/alice")["publicKey"]
    assert after["publicKeyPem"] != before and after["id"] == f"{BASE}/users/alice#main-key"
    instance = ap(client, "/actor")["publicKey"]["publicKeyPem"]
    assert cli.main(["keys", "rotate", "--instance-actor"]) == 0
    assert ap(client, "/actor")["publicKey"]["publicKeyPem"] != instance
    assert cli.main(["keys", "rotate", "nobody"]) == 1
    assert "Record not found" in capsys.readouterr().err


def test_a_signing_key_is_opened_once_per_process_and_a_rotated_one_afresh(client, people,
                                                                           drain, monkeypatch):
    """Deliveries sign with the key they unsealed and loaded before (several ms each time), and
    with the new key as soon as it is rotated."""
    from cryptography.hazmat.primitives import serialization
    from stratus.federation import actor_keys

    drain()
    alice = people[0]["alice"]
    actor_keys._opened.cache_clear()
    opened = []
    real = actor_keys.secrets.unseal
    monkeypatch.setattr(actor_keys.secrets, "unseal",
                        lambda sealed, context: opened.append(context) or real(sealed, context))

    def public(key):
        return key.public_key().public_bytes(serialization.Encoding.PEM,
                                              serialization.PublicFormat.SubjectPublicKeyInfo)

    first = actor_keys.private_key(alice)
    assert actor_keys.private_key(alice) is first and len(opened) == 1
    actor_keys.rotate(alice)
    rotated = actor_keys.private_key(alice)
    assert len(opened) == 2
    assert public(rotated).decode() == actor_keys.public_key_pem(alice) != public(first).decode()


# --- WebFinger and host-meta ---------------------------------------------------------------
def test_webfinger(client, people):
    response = client.get("/.well-known/webfinger?resource=acct:alice@localhost:8000",
                          headers={"Origin": "https://elsewhere.example"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/jrd+json; charset=utf-8"
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["cache-control"] == "max-age=259200, public"
    assert response.json() == {
        "subject": "acct:alice@localhost:8000",
        "aliases": [f"{BASE}/@alice", f"{BASE}/users/alice"],
        "links": [
            {"rel": "http://webfinger.net/rel/profile-page", "type": "text/html",
             "href": f"{BASE}/@alice"},
            {"rel": "self", "type": "application/activity+json", "href": f"{BASE}/users/alice"},
            {"rel": "http://ostatus.org/schema/1.0/subscribe",
             "template": f"{BASE}/authorize_interaction?uri={{uri}}"},
        ]}
    # The same account by its actor URL, its profile URL, a bare acct and another case.
    for resource in (f"{BASE}/users/alice", f"{BASE}/@alice", "alice@localhost:8000",
                     "acct:ALICE@LOCALHOST:8000"):
        found = client.get("/.well-known/webfinger", params={"resource": resource})
        assert found.json()["subject"] == "acct:alice@localhost:8000", resource


def test_webfinger_errors(client, people):
    def status(query):
        return client.get("/.well-known/webfinger" + query).status_code

    assert status("") == 400
    assert status("?resource=") == 400
    assert status("?resource=alice") == 400
    assert status("?resource=acct:nobody@localhost:8000") == 404
    assert status("?resource=acct:alice@elsewhere.example") == 404
    assert status("?resource=https://elsewhere.example/users/alice") == 404
    assert status(f"?resource={BASE}/about") == 404
    from tests.rig import make_user

    make_user("pending", confirmed=False)
    assert status("?resource=acct:pending@localhost:8000") == 404


def test_webfinger_finds_the_instance_actor(client):
    found = client.get("/.well-known/webfinger?resource=acct:localhost:8000@localhost:8000")
    assert found.status_code == 200
    body = found.json()
    assert body["subject"] == "acct:localhost:8000@localhost:8000"
    assert {"rel": "self", "type": "application/activity+json",
            "href": f"{BASE}/actor"} in body["links"]
    by_url = client.get("/.well-known/webfinger", params={"resource": f"{BASE}/actor"})
    assert by_url.json() == body


def test_host_meta(client):
    xml = client.get("/.well-known/host-meta")
    assert xml.status_code == 200
    assert xml.headers["content-type"] == "application/xrd+xml; charset=utf-8"
    assert (f'<Link rel="lrdd" template="{BASE}/.well-known/webfinger?resource={{uri}}"/>'
            in xml.text)
    as_json = client.get("/.well-known/host-meta.json").json()
    assert as_json == {"links": [{"rel": "lrdd",
                                  "template": f"{BASE}/.well-known/webfinger?resource={{uri}}"}]}


# --- actors --------------------------------------------------------------------------------
def test_actor_document(client, people, drain):
    ids_, tokens = people
    client.patch("/api/v1/accounts/update_credentials", headers=tokens["alice"],
                 data={"display_name": "Alice A.", "note": "Hi <there>", "locked": "true",
                       "discoverable": "true", "indexable": "true",
                       "fields_attributes[0][name]": "Site",
                       "fields_attributes[0][value]": "https://alice.example"})
    drain()
    actor = ap(client, "/users/alice", headers=LD)
    assert set(actor) == ACTOR_KEYS
    assert actor["@context"][:2] == ["https://www.w3.org/ns/activitystreams",
                                     "https://w3id.org/security/v1"]
    terms = actor["@context"][2]
    for term in ("manuallyApprovesFollowers", "featured", "featuredTags", "PropertyValue",
                 "discoverable", "indexable", "memorial", "suspended", "webfinger"):
        assert term in terms
    uri = f"{BASE}/users/alice"
    assert actor["id"] == uri and actor["type"] == "Person"
    assert (actor["inbox"], actor["outbox"]) == (f"{uri}/inbox", f"{uri}/outbox")
    assert (actor["followers"], actor["following"]) == (f"{uri}/followers", f"{uri}/following")
    assert actor["featured"] == f"{uri}/collections/featured"
    assert actor["featuredTags"] == f"{uri}/collections/tags"
    assert actor["endpoints"] == {"sharedInbox": f"{BASE}/inbox"}
    assert actor["preferredUsername"] == "alice" and actor["name"] == "Alice A."
    assert actor["summary"] == "<p>Hi &lt;there&gt;</p>"
    assert actor["url"] == f"{BASE}/@alice" and actor["webfinger"] == "alice@localhost:8000"
    assert actor["manuallyApprovesFollowers"] is True
    assert actor["discoverable"] is True and actor["indexable"] is True
    assert actor["memorial"] is False and actor["tag"] == []
    assert actor["published"].endswith("T00:00:00Z")
    assert actor["publicKey"]["id"] == f"{uri}#main-key"
    assert actor["publicKey"]["owner"] == uri
    assert actor["publicKey"]["publicKeyPem"].startswith("-----BEGIN PUBLIC KEY-----")
    [field] = actor["attachment"]
    assert field["type"] == "PropertyValue" and field["name"] == "Site"
    assert 'href="https://alice.example"' in field["value"]
    # A bot is a Service.
    client.patch("/api/v1/accounts/update_credentials", headers=tokens["bob"],
                 data={"bot": "true"})
    assert ap(client, "/users/bob")["type"] == "Service"
    assert ap(client, "/users/nobody", status=404)


def test_a_suspended_actor_is_served_bare(client, people):
    ids_, tokens = people
    client.patch("/api/v1/accounts/update_credentials", headers=tokens["alice"],
                 data={"display_name": "Alice A.", "note": "bio", "locked": "true"})
    suspend(ids_["alice"])
    actor = ap(client, "/users/alice")
    assert actor["suspended"] is True
    assert (actor["name"], actor["summary"], actor["attachment"]) == ("alice", "", [])
    assert actor["manuallyApprovesFollowers"] is False
    assert "icon" not in actor and "image" not in actor
    # Its collections and statuses are refused (Mastodon: 403 for a temporary suspension).
    for path in ("outbox", "followers", "following", "collections/featured"):
        ap(client, f"/users/alice/{path}", status=403)
    # WebFinger still answers (only a permanently deleted account is gone).
    assert client.get("/.well-known/webfinger?resource=acct:alice@localhost:8000"
                      ).status_code == 200


def test_instance_actor(client):
    actor = ap(client, "/actor")
    assert actor == {
        "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1",
                     {"manuallyApprovesFollowers": "as:manuallyApprovesFollowers"}],
        "id": f"{BASE}/actor", "type": "Application",
        "inbox": f"{BASE}/actor/inbox", "outbox": f"{BASE}/actor/outbox",
        "preferredUsername": "localhost:8000",
        "url": f"{BASE}/about/more?instance_actor=true",
        "manuallyApprovesFollowers": True,
        "publicKey": {"id": f"{BASE}/actor#main-key", "owner": f"{BASE}/actor",
                      "publicKeyPem": actor["publicKey"]["publicKeyPem"]},
        "endpoints": {"sharedInbox": f"{BASE}/inbox"}}
    assert ap(client, "/actor")["publicKey"] == actor["publicKey"]  # one key, kept
    outbox = ap(client, "/actor/outbox")
    assert (outbox["type"], outbox["totalItems"]) == ("OrderedCollection", 0)


# --- content negotiation -------------------------------------------------------------------
def test_content_negotiation(client, people):
    browser = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    moved = client.get("/users/alice", headers=browser, follow_redirects=False)
    assert moved.status_code == 301 and moved.headers["location"] == f"{BASE}/@alice"
    assert "Accept" in moved.headers["vary"]
    assert client.get("/users/alice", follow_redirects=False).status_code == 301  # no Accept
    assert client.get("/users/ALICE", follow_redirects=False).headers["location"] == \
        f"{BASE}/@alice"
    ap(client, "/users/alice")
    ap(client, "/users/alice", headers=LD)
    ap(client, "/users/alice", headers={"Accept": "application/json"})
    # The best-ranked type decides.
    assert client.get("/users/alice", headers={
        "Accept": "text/html, application/activity+json;q=0.5"},
        follow_redirects=False).status_code == 301
    ap(client, "/users/alice", headers={"Accept": "text/html;q=0.1, application/activity+json"})
    page = client.get("/@alice", headers=browser)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Accept" in page.headers["vary"]
    ap(client, "/users/nobody", status=404)
    ap(client, "/@nobody", status=404)


# --- statuses ------------------------------------------------------------------------------
def test_a_public_status_as_a_note(client, people):
    ids_, tokens = people
    root = post(client, tokens["bob"], status="root")
    status = post(client, tokens["alice"], status="hi @bob #Cats", in_reply_to_id=root["id"],
                  spoiler_text="cw", sensitive="true", language="en")
    note = ap(client, f"/users/alice/statuses/{status['id']}")
    assert set(note) == NOTE_KEYS | {"@context", "contentMap"}
    uri = f"{BASE}/users/alice/statuses/{status['id']}"
    assert note["id"] == note["atomUri"] == status["uri"] == uri
    assert note["type"] == "Note" and note["url"] == f"{BASE}/@alice/{status['id']}"
    assert note["attributedTo"] == f"{BASE}/users/alice"
    assert note["to"] == [PUBLIC]
    assert note["cc"] == [f"{BASE}/users/alice/followers", f"{BASE}/users/bob"]
    assert note["inReplyTo"] == note["inReplyToAtomUri"] == root["uri"]
    assert note["summary"] == "cw" and note["sensitive"] is True
    assert note["content"] == status["content"] and note["contentMap"] == {"en": status["content"]}
    assert note["published"].endswith("Z") and note["published"][:19] == status["created_at"][:19]
    assert note["conversation"].startswith("tag:localhost:8000,")
    assert note["conversation"].endswith(f":objectId={root['id']}:objectType=Conversation")
    assert note["tag"] == [
        {"type": "Mention", "href": f"{BASE}/users/bob", "name": "@bob"},
        {"type": "Hashtag", "href": f"{BASE}/tags/cats", "name": "#cats"}]
    assert note["@context"][0] == "https://www.w3.org/ns/activitystreams"
    assert {"Hashtag", "sensitive", "atomUri", "conversation"} <= set(note["@context"][1])
    create = ap(client, f"/users/alice/statuses/{status['id']}/activity")
    assert create["id"] == f"{uri}/activity" and create["type"] == "Create"
    assert create["actor"] == f"{BASE}/users/alice"
    assert (create["to"], create["cc"]) == (note["to"], note["cc"])
    assert create["object"] == {k: v for k, v in note.items() if k != "@context"}
    # The status's `url` (a pasted link) answers servers with the same Note, browsers with its
    # page (tests/web); anything not a status id is a 404.
    assert ap(client, f"/@alice/{status['id']}") == note
    page = client.get(f"/@alice/{status['id']}")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    ap(client, "/@alice/nonsense", status=404)
    ap(client, f"/@bob/{status['id']}", status=404)


def test_addressing_and_what_is_not_served(client, people):
    ids_, tokens = people
    unlisted = post(client, tokens["alice"], status="quiet", visibility="unlisted")
    note = ap(client, f"/users/alice/statuses/{unlisted['id']}")
    assert note["to"] == [f"{BASE}/users/alice/followers"] and note["cc"] == [PUBLIC]
    for visibility in ("private", "direct"):
        hidden = post(client, tokens["alice"], status=f"@bob {visibility}", visibility=visibility)
        ap(client, f"/users/alice/statuses/{hidden['id']}", status=404)
        ap(client, f"/users/alice/statuses/{hidden['id']}/activity", status=404)
    ap(client, f"/users/bob/statuses/{unlisted['id']}", status=404)  # not bob's
    ap(client, "/users/alice/statuses/123", status=404)
    ap(client, "/users/alice/statuses/nope", status=404)


def test_a_poll_is_a_question(client, people):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="tea or coffee?",
                  **{"poll[options][]": ["tea", "coffee"], "poll[expires_in]": "3600",
                     "poll[multiple]": "true"})
    question = ap(client, f"/users/alice/statuses/{status['id']}")
    assert question["type"] == "Question"
    assert question["anyOf"] == [
        {"type": "Note", "name": "tea", "replies": {"type": "Collection", "totalItems": 0}},
        {"type": "Note", "name": "coffee", "replies": {"type": "Collection", "totalItems": 0}}]
    assert "oneOf" not in question and "closed" not in question
    assert question["endTime"].endswith("Z") and question["votersCount"] == 0
    assert "votersCount" in question["@context"][1]


def test_a_boost_is_an_announce(client, people):
    ids_, tokens = people
    original = post(client, tokens["bob"], status="boost me")
    boost = client.post(f"/api/v1/statuses/{original['id']}/reblog",
                        headers=tokens["alice"]).json()
    announce = ap(client, f"/users/alice/statuses/{boost['id']}/activity")
    assert announce["id"] == boost["uri"] and announce["type"] == "Announce"
    assert announce["object"] == original["uri"]
    assert announce["to"] == [PUBLIC]
    assert announce["cc"] == [f"{BASE}/users/bob", f"{BASE}/users/alice/followers"]
    moved = ap(client, f"/users/alice/statuses/{boost['id']}", status=302)
    assert moved.headers["location"] == original["url"]


# --- collections ---------------------------------------------------------------------------
def test_outbox(client, people, drain):
    ids_, tokens = people
    made = [post(client, tokens["alice"], status=f"post {n}") for n in range(21)]
    post(client, tokens["alice"], status="followers only", visibility="private")
    original = post(client, tokens["bob"], status="bob's")
    boost = client.post(f"/api/v1/statuses/{original['id']}/reblog",
                        headers=tokens["alice"]).json()
    drain()
    uri = f"{BASE}/users/alice/outbox"
    outbox = ap(client, "/users/alice/outbox")
    assert outbox == {"@context": "https://www.w3.org/ns/activitystreams", "id": uri,
                      "type": "OrderedCollection", "totalItems": 23,
                      "first": f"{uri}?page=true", "last": f"{uri}?min_id=0&page=true"}
    first = ap(client, "/users/alice/outbox?page=true")
    assert first["type"] == "OrderedCollectionPage" and first["partOf"] == uri
    items = first["orderedItems"]
    assert len(items) == 20
    assert items[0]["type"] == "Announce" and items[0]["id"] == boost["uri"]
    assert [i["object"]["id"] for i in items[1:]] == [s["uri"] for s in reversed(made[2:])]
    assert all(i["type"] == "Create" for i in items[1:])
    assert first["next"] == f"{uri}?max_id={made[2]['id']}&page=true"
    assert first["prev"] == f"{uri}?min_id={boost['id']}&page=true"
    second = ap(client, first["next"].removeprefix(BASE))
    assert [i["object"]["id"] for i in second["orderedItems"]] == [made[1]["uri"],
                                                                    made[0]["uri"]]
    assert "next" not in second
    last = ap(client, "/users/alice/outbox?min_id=0&page=true")
    assert last["orderedItems"][-1]["object"]["id"] == made[0]["uri"]


def test_followers_and_following(client, people, drain):
    ids_, tokens = people
    for name in ("bob", "carol", "dave"):
        follow(client, tokens[name], ids_["alice"])
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    uri = f"{BASE}/users/alice/followers"
    followers = ap(client, "/users/alice/followers")
    assert followers == {"@context": "https://www.w3.org/ns/activitystreams", "id": uri,
                         "type": "OrderedCollection", "totalItems": 3,
                         "first": f"{uri}?page=1"}
    page = ap(client, "/users/alice/followers?page=1")
    assert page["type"] == "OrderedCollectionPage" and page["partOf"] == uri
    assert page["orderedItems"] == [f"{BASE}/users/dave", f"{BASE}/users/carol",
                                    f"{BASE}/users/bob"]
    following = ap(client, "/users/alice/following?page=1")
    assert following["orderedItems"] == [f"{BASE}/users/bob"] and following["totalItems"] == 1
    # Hidden collections show their size only; their pages are refused.
    client.patch("/api/v1/accounts/update_credentials", headers=tokens["alice"],
                 data={"hide_collections": "true"})
    assert ap(client, "/users/alice/followers") == {
        "@context": "https://www.w3.org/ns/activitystreams", "id": uri,
        "type": "OrderedCollection", "totalItems": 3}
    ap(client, "/users/alice/followers?page=1", status=403)
    ap(client, "/users/alice/following?page=1", status=403)


def test_followers_pages_continue(client, people, drain):
    from tests.rig import follow_edge, make_user

    ids_, _ = people
    others = [make_user(f"fan{n}") for n in range(13)]
    for other in others:
        follow_edge(other, ids_["alice"])
    first = ap(client, "/users/alice/followers?page=1")
    assert len(first["orderedItems"]) == 12
    second = ap(client, first["next"].removeprefix(BASE))
    assert second["orderedItems"] == [f"{BASE}/users/fan0"]
    assert first["orderedItems"][0] == f"{BASE}/users/fan12"


def test_featured_collections(client, people):
    ids_, tokens = people
    pinned = post(client, tokens["alice"], status="pinned")
    post(client, tokens["alice"], status="not pinned")
    assert client.post(f"/api/v1/statuses/{pinned['id']}/pin",
                       headers=tokens["alice"]).status_code == 200
    featured = ap(client, "/users/alice/collections/featured")
    assert featured["id"] == f"{BASE}/users/alice/collections/featured"
    assert featured["type"] == "OrderedCollection" and featured["totalItems"] == 1
    [note] = featured["orderedItems"]
    assert note["id"] == pinned["uri"] and note["type"] == "Note"
    tags = ap(client, "/users/alice/collections/tags")
    assert tags == {"@context": "https://www.w3.org/ns/activitystreams",
                    "id": f"{BASE}/users/alice/collections/tags",
                    "type": "Collection", "totalItems": 0, "items": []}


def test_a_rejected_sign_up_takes_its_key_with_it(client, drain):
    from stratus.federation import actor_keys
    from stratus.jobs import messages as jobs
    from stratus.repo import actor_keys as repo

    from tests.rig import auth, make_app, make_user, user_token

    app = make_app(client, scopes="read write admin:read admin:write")
    staff = auth(user_token(app, make_user("boss", role="Owner"),
                            scopes=("admin:read", "admin:write")))
    pending = make_user("waiting", approved=False)
    drain()
    assert repo.get(pending) is not None
    assert client.post(f"/api/v1/admin/accounts/{pending}/reject",
                       headers=staff).status_code == 200
    assert repo.get(pending) is None
    # A key job arriving after the account is gone makes nothing.
    assert actor_keys.generate(jobs.GenerateActorKey(event_id="late", account_id=pending)) == 0
    assert repo.get(pending) is None


def test_featured_tags_collection_lists_the_hashtags_an_account_features(client):
    """Mastodon's `tags` collection: unordered, each a Hashtag whose href is the profile's
    tagged page (ActivityPub::HashtagSerializer for a FeaturedTag), in the order featured."""
    from tests.rig import auth, make_app, make_user, user_token

    app = make_app(client, scopes="read write")
    headers = auth(user_token(app, make_user("tagger"), scopes=("read", "write")))
    for name in ("Cats", "dogs"):
        assert client.post("/api/v1/featured_tags", json={"name": name},
                           headers=headers).status_code == 200
    tags = ap(client, "/users/tagger/collections/tags")
    assert tags["id"] == f"{BASE}/users/tagger/collections/tags"
    assert tags["type"] == "Collection" and tags["totalItems"] == 2
    assert tags["items"] == [
        {"type": "Hashtag", "href": f"{BASE}/@tagger/tagged/cats", "name": "#Cats"},
        {"type": "Hashtag", "href": f"{BASE}/@tagger/tagged/dogs", "name": "#dogs"}]
    assert {"Hashtag": "as:Hashtag"} in tags["@context"]
