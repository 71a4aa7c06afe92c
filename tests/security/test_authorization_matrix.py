"""The authorization matrix, generated from the route table (`local.routes`): every route ×
no token, a token without the route's scope, and another user's object.

Routes are discovered from the functions' FastAPI routers, so a route added later is checked
without anyone listing it here: one that declares no auth dependency fails unless it is in
PUBLIC below, and one whose path names an object this file does not know how to make fails
until OBJECTS learns it.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from stratus.api.instance.instance import solid_png
from stratus.auth import scopes
from stratus.core import clock

from local.routes import route_table
from tests.rig import auth, make_app, make_user, user_token

EVERY_SCOPE = ("read", "write", "follow", "push", "admin:read", "admin:write")
INVALID_TOKEN = {"error": "The access token is invalid"}
OUT_OF_SCOPE = {"error": "This action is outside the authorized scopes"}
NOT_FOUND = {"error": "Record not found"}

# Routes that take no token, and why. Everything else must declare `require`, `optional` or
# `require_permission` (stratus.auth.deps) as a dependency.
PUBLIC = {
    ("GET", "/api/v1/instance"): "instance metadata",
    ("GET", "/api/v1/instance/"): "instance metadata",
    ("GET", "/api/v2/instance"): "instance metadata",
    ("GET", "/api/v2/instance/"): "instance metadata",
    ("GET", "/api/v1/instance/peers"): "instance metadata",
    ("GET", "/api/v1/instance/activity"): "instance metadata",
    ("GET", "/api/v1/instance/rules"): "instance metadata",
    ("GET", "/api/v1/instance/extended_description"): "instance metadata",
    ("GET", "/api/v1/instance/translation_languages"): "instance metadata",
    ("GET", "/api/v1/custom_emojis"): "instance metadata",
    ("GET", "/api/v1/peers/search"): "instance metadata",
    ("GET", "/api/v1/instance/languages"): "instance metadata",
    ("GET", "/api/v1/instance/privacy_policy"): "instance document",
    ("GET", "/api/v1/instance/terms_of_service"): "instance document",
    ("GET", "/api/v1/instance/terms_of_service/{effective_date}"): "instance document",
    ("GET", "/privacy-policy"): "public page",
    ("GET", "/terms-of-service"): "public page",
    ("GET", "/terms-of-service/{effective_date}"): "public page",
    ("GET", "/health"): "health check",
    ("GET", "/.well-known/nodeinfo"): "discovery",
    ("GET", "/nodeinfo/2.0"): "discovery",
    ("GET", "/.well-known/oauth-authorization-server"): "discovery",
    ("GET", "/packs/media/images/preview.png"): "static image",
    ("GET", "/avatars/original/missing.png"): "static image",
    # Remote media (federation/remote_media.py): images load without a token; the digest of the
    # remote URL in the path is what keeps the URL to those shown the item.
    ("GET", "/media_proxy/{kind}/{owner_id}/{digest}"): "remote media proxy",
    ("GET", "/media_proxy/{kind}/{owner_id}/{digest}/{style}"): "remote media proxy",
    ("GET", "/headers/original/missing.png"): "static image",
    ("GET", "/@{username}"): "public profile page",
    ("GET", "/@{username}/tagged/{hashtag}"): "public profile page",
    ("GET", "/@{username}/{status_id}"): "public status page (its Note, for servers)",
    ("GET", "/@{username}/{status_id}/embed"): "public status embed",
    ("GET", "/tags/{name}"): "public hashtag page",
    ("GET", "/api/oembed"): "oEmbed of a public status",
    # Federation reads (docs/federation.md): public data for any server; private statuses are
    # 404 until authorized fetch exists.
    ("GET", "/.well-known/webfinger"): "discovery",
    ("GET", "/.well-known/host-meta"): "discovery",
    ("GET", "/.well-known/host-meta.json"): "discovery",
    ("GET", "/users/{username}"): "public actor",
    ("GET", "/users/{username}/outbox"): "public actor collection",
    ("GET", "/users/{username}/followers"): "public actor collection",
    ("GET", "/users/{username}/following"): "public actor collection",
    ("GET", "/users/{username}/collections/featured"): "public actor collection",
    ("GET", "/users/{username}/collections/tags"): "public actor collection",
    ("GET", "/users/{username}/statuses/{status_id}"): "public status object",
    ("GET", "/users/{username}/statuses/{status_id}/activity"): "public status activity",
    ("GET", "/users/{username}/statuses/{status_id}/replies"): "public replies collection",
    ("GET", "/actor"): "instance actor",
    ("GET", "/actor/outbox"): "instance actor",
    ("POST", "/users/{username}/inbox"): "HTTP signature (federation/inbox/ingress.py)",
    ("POST", "/inbox"): "HTTP signature (federation/inbox/ingress.py)",
    ("POST", "/actor/inbox"): "HTTP signature (federation/inbox/ingress.py)",
    ("GET", "/about"): "public page",
    ("POST", "/api/v1/apps"): "app registration is open (Mastodon)",
    ("POST", "/oauth/token"): "OAuth: client credentials in the body",
    ("POST", "/oauth/revoke"): "OAuth: client credentials in the body",
    ("GET", "/oauth/authorize"): "OAuth: web session (sign-in page)",
    ("GET", "/oauth/authorize/"): "OAuth: web session (sign-in page)",
    ("POST", "/oauth/authorize"): "OAuth: web session and CSRF token",
    ("POST", "/auth/sign_in"): "web sign-in form",
    ("GET", "/auth/confirmation"): "e-mail confirmation link carries its own token",
    # Checks its app token itself, after counting the attempt for the rate limit.
    ("POST", "/api/v1/accounts"): "sign-up (token checked in the handler)",
}
# Public routes that still answer 401 without a token.
TOKEN_CHECKED_INSIDE = {("POST", "/api/v1/accounts")}


def _concrete(path: str, values: dict[str, str]) -> str:
    # A parameter with no object here (staff routes' ids) gets a placeholder id: those routes
    # refuse before looking anything up.
    return re.sub(r"\{([^}]+)\}", lambda m: values.get(m.group(1), "1"), path)


@pytest.fixture
def world(client, runtime):
    """alice (every scope, no staff role) and bob's objects: a private status alice cannot
    see, a public one she does not own, a poll, media and a scheduled status."""
    app = make_app(client, scopes=" ".join(EVERY_SCOPE))
    alice, bob = make_user("alice"), make_user("bob")
    mine = auth(user_token(app, alice, scopes=EVERY_SCOPE))
    theirs = auth(user_token(app, bob, scopes=EVERY_SCOPE))

    def post(**data):
        response = client.post("/api/v1/statuses", headers=theirs, json=data)
        assert response.status_code == 200, response.text
        return response.json()

    private = post(status="followers only", visibility="private")
    public = post(status="public")
    poll = post(status="?", visibility="private", poll={"options": ["a", "b"], "expires_in": 600})
    media = client.post("/api/v1/media", headers=theirs, files={
        "file": ("a.png", solid_png(8, 8, (1, 2, 3)), "image/png")}).json()
    scheduled = post(status="later",
                     scheduled_at=clock.iso(clock.now() + timedelta(days=1)))
    bobs_list = client.post("/api/v1/lists", headers=theirs, data={"title": "bob's"}).json()
    bobs_filter = client.post("/api/v2/filters", headers=theirs, json={
        "title": "bob's", "context": ["home"], "keywords_attributes": [{"keyword": "x"}]}).json()
    bobs_status_filter = client.post(f"/api/v2/filters/{bobs_filter['id']}/statuses",
                                     headers=theirs, data={"status_id": public["id"]}).json()
    # bob's notifications: a private mention from a stranger (a request, by bob's default
    # policy) and a like (a group).
    client.post("/api/v1/statuses", headers=mine, json={"status": "@bob psst",
                                                         "visibility": "direct"})
    client.post(f"/api/v1/statuses/{public['id']}/favourite", headers=mine)
    post(status="a note to myself", visibility="direct")
    runtime.pipeline.drain()  # bob's notifications and conversation come from the stream
    conversation = client.get("/api/v1/conversations", headers=theirs).json()[0]
    from stratus.repo import effects as effects_repo

    bobs_notes = effects_repo.notifications(bob)
    group_key = next(n["group_key"] for n in bobs_notes if n.get("group_key"))
    request = client.get("/api/v1/notifications/requests", headers=theirs).json()[0]
    bobs_featured = client.post("/api/v1/featured_tags", headers=theirs,
                                data={"name": "bobs"}).json()
    return {"app": app, "alice": alice, "bob": bob, "mine": mine, "theirs": theirs,
            "table": route_table(runtime.stack),
            # Another user's object, one per kind of path parameter.
            "objects": {"status_id": private["id"], "poll_id": poll["poll"]["id"],
                        "media_id": media["id"], "scheduled_id": scheduled["id"],
                        "account_id": bob, "username": "bob", "hashtag": "clouds",
                        "refresh_id": f"home-{bob}", "list_id": bobs_list["id"],
                        "notification_id": bobs_notes[0]["id"], "group_key": group_key,
                        "request_id": request["id"], "conversation_id": conversation["id"],
                        "filter_id": bobs_filter["id"],
                        "keyword_id": bobs_filter["keywords"][0]["id"],
                        "status_filter_id": bobs_status_filter["id"],
                        "featured_id": bobs_featured["id"],
                        # domains: staff objects; any id (the permission check comes first)
                        "domain_block_id": "1", "domain_allow_id": "1",
                        # reports and trends review: staff objects, as above
                        "report_id": "1", "tag_id": "1", "link_id": "1", "publisher_id": "1",
                        "rule_id": "1", "effective_date": "2025-01-01",
                        # announcements are everyone's (see PUBLIC_OBJECTS)
                        "announcement_id": "1", "name": "👍"},
            "public_status": public["id"]}


# Path parameters naming objects anyone may read (profiles); staff routes on accounts are
# covered by the permission check instead.
PUBLIC_OBJECTS = {"account_id", "username", "hashtag"}
# domains: instance-wide staff objects, nobody's own; the permission check covers them.
PUBLIC_OBJECTS |= {"domain_block_id", "domain_allow_id", "report_id", "tag_id", "link_id",
                   "publisher_id", "rule_id", "effective_date"}
# an announcement is the instance's, seen by every user (a reaction's name is
# one's own reaction to it)
PUBLIC_OBJECTS |= {"announcement_id", "name"}
# remote media: the proxy's path names a remote object's copy by the digest of its URL
PUBLIC_OBJECTS |= {"kind", "owner_id", "digest", "style"}
# Routes only the owner may use even on an object the viewer can see (Mastodon looks these
# up among the viewer's own records: 404 otherwise).
# Someone else's notification group key names nothing of yours: Mastodon lists no accounts
# and dismisses nothing (200 `[]` / `{}`), which reveals nothing either.
EMPTY_FOR_OTHERS = {("GET", "/api/v2/notifications/{group_key}/accounts"),
                    ("POST", "/api/v2/notifications/{group_key}/dismiss")}
OWNER_ONLY = {("PUT", "/api/v1/statuses/{status_id}"), ("DELETE", "/api/v1/statuses/{status_id}")}
# Pages for browsers (docs/web.md): what the viewer may not see is Mastodon's HTML 404 page
# (a status's `uri` sends browsers to its page).
HTML_NOT_FOUND = {("GET", "/@{username}/{status_id}"), ("GET", "/@{username}/{status_id}/embed"),
                  ("GET", "/users/{username}/statuses/{status_id}")}


def test_every_route_declares_its_auth_or_is_listed_public(world):
    table = world["table"]
    assert len(table) > 70
    undeclared = {(r.method, r.path) for r in table if r.declared is None}
    assert undeclared - PUBLIC.keys() == set(), "routes with no auth dependency"
    assert PUBLIC.keys() - undeclared == set(), "listed public but declare auth (or are gone)"


def test_no_token(client, world):
    failures = []
    for route in world["table"]:
        response = client.request(route.method, _concrete(route.path, world["objects"]))
        key = (route.method, route.path)
        if route.declared is None and key not in TOKEN_CHECKED_INSIDE:
            continue
        if route.declared is not None and route.declared.kind == "optional":
            if response.status_code in (401, 403) or response.status_code >= 500:
                failures.append(f"{key}: public read answered {response.status_code}")
        elif response.status_code != 401 or response.json() != INVALID_TOKEN:
            failures.append(f"{key}: {response.status_code} {response.text[:80]}")
    assert failures == []


def _outside(accepted: tuple[str, ...]) -> str:
    """A scope that grants none of `accepted`."""
    return next(s for s in scopes.ALL if not any(scopes.covers([s], a) for a in accepted))


def test_token_without_the_routes_scope(client, world):
    failures = []
    checked = 0
    for route in world["table"]:
        if route.declared is None or not route.declared.scopes:
            continue
        scope = _outside(route.declared.scopes)
        headers = auth(user_token(world["app"], world["alice"], scopes=(scope,)))
        response = client.request(route.method, _concrete(route.path, world["objects"]),
                                  headers=headers)
        checked += 1
        if response.status_code != 403 or response.json() != OUT_OF_SCOPE:
            failures.append(f"{route.method} {route.path} with {scope}: "
                            f"{response.status_code} {response.text[:80]}")
    assert failures == [] and checked > 40


def test_staff_routes_need_a_staff_role(client, world):
    staff = [r for r in world["table"] if r.declared and r.declared.kind == "permission"]
    assert staff
    for route in staff:
        response = client.request(route.method, _concrete(route.path, world["objects"]),
                                  headers=world["mine"])
        assert response.status_code == 403, (route.path, response.text)
        assert response.json() == {"error": "This action is not allowed"}


def test_another_users_object_is_not_found(client, world):
    failures = []
    checked = 0
    for route in world["table"]:
        params = route.path_params
        if not params or set(params) <= PUBLIC_OBJECTS:
            continue
        # Staff see every object of their kind: what guards staff routes is the permission
        # (tests/security/test_admin_permissions.py walks them).
        if route.declared is not None and route.declared.kind == "permission":
            continue
        unknown = [p for p in params if p not in world["objects"]]
        if unknown:
            failures.append(f"{route.method} {route.path}: no object for {unknown}")
            continue
        cases = [world["objects"]]
        if (route.method, route.path) in OWNER_ONLY:
            cases.append({**world["objects"], "status_id": world["public_status"]})
        for values in cases:
            response = client.request(route.method, _concrete(route.path, values),
                                      headers=world["mine"])
            checked += 1
            if (route.method, route.path) in EMPTY_FOR_OTHERS:
                if response.status_code != 200 or response.json() not in ([], {}):
                    failures.append(f"{route.method} {route.path}: {response.text[:80]}")
                continue
            if (route.method, route.path) in HTML_NOT_FOUND:
                if response.status_code != 404 or not response.headers[
                        "content-type"].startswith("text/html"):
                    failures.append(f"{route.method} {route.path}: {response.status_code}")
                continue
            if response.status_code != 404 or response.json() != NOT_FOUND:
                failures.append(f"{route.method} {_concrete(route.path, values)}: "
                                f"{response.status_code} {response.text[:80]}")
    assert failures == [] and checked > 25
