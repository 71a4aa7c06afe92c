"""Accounts, apps, tokens and the social graph: written through the services and repositories
(never raw key strings) or through the client API; the `people` fixture."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass

import pytest
from stratus.api.accounts import accounts, operator
from stratus.api.oauth import oauth
from stratus.repo import base
from stratus.repo import oauth as oauth_repo


@dataclass
class App:
    client_id: str
    client_secret: str
    item: dict


def make_app(client, scopes="read write follow push", redirect_uris="urn:ietf:wg:oauth:2.0:oob",
             name="Test client") -> App:
    response = client.post("/api/v1/apps", data={"client_name": name, "scopes": scopes,
                                                 "redirect_uris": redirect_uris})
    assert response.status_code == 200, response.text
    body = response.json()
    return App(body["client_id"], body["client_secret"], oauth.get_app(body["client_id"]))


def app_token(client, app: App, scope="read write") -> str:
    response = client.post("/oauth/token", data={
        "grant_type": "client_credentials", "client_id": app.client_id,
        "client_secret": app.client_secret, "scope": scope})
    assert response.status_code == 200, response.text
    return response.json()["access_token"]


def make_user(username="alice", email=None, password="correct horse battery", *,
              confirmed=True, approved=True, role=None) -> str:
    data = accounts.NewAccount(username=username, email=email or f"{username}@example.org",
                               password=password)
    profile, user, admin, confirmation_hash = accounts.new_account_items(
        data, approved=approved, confirmed=confirmed, role_id=operator.role_id_for(role))
    base.transact(accounts.create_ops(profile, user, admin, confirmation_hash))
    return profile["id"]


def user_token(app: App, account_id: str, scopes=("read", "write", "follow")) -> str:
    token, raw = oauth.new_token(app.item, account_id, list(scopes))
    oauth_repo.put_token(token)
    return raw


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
    return verifier, challenge.decode()


def follow_edge(follower_id: str, followed_id: str, created_at: str | None = None) -> None:
    """A follow written straight to the table as the social graph writes it (for tests that
    need one without the API's side effects)."""
    from stratus.core import ids
    from stratus.model.relationships import FollowOptions
    from stratus.repo import relationships

    relationships.put(relationships.follow_item(ids.new_id(), follower_id, followed_id,
                                                FollowOptions(), created_at=created_at))


def mastodon_py_users(base_url: str, *names: str, app: str = "test client") -> list:
    """Mastodon.py clients signed in as new users `names` (password grant, one app), as a
    client test starts."""
    from mastodon import Mastodon

    scopes = ["read", "write", "follow"]
    for name in names:
        make_user(name, f"{name}@example.org", f"{name} password long")
    client_id, secret = Mastodon.create_app(app, api_base_url=base_url, scopes=scopes)
    clients = []
    for name in names:
        api = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base_url)
        api.log_in(f"{name}@example.org", f"{name} password long", scopes=scopes,
                   allow_http=True)
        clients.append(api)
    return clients


def make_remote_account(domain: str, username: str, display_name: str = "") -> str:
    """A remote account as federation will store it: its profile, handle, staff index entry,
    and the entries that find it by domain (its domain's peer item, repo/peers.remember, and
    repo/accounts.remote_index_ops)."""
    from stratus.core import clock, ids
    from stratus.repo import accounts as accounts_repo
    from stratus.repo import keys, peers
    from stratus.repo import moderation as moderation_repo

    account_id = ids.new_id()
    profile = {"id": account_id, "username": username, "domain": domain,
               "display_name": display_name, "note": "", "fields": [], "locked": False,
               "bot": False, "discoverable": None, "indexable": False,
               "created_at": clock.iso(clock.now()),
               "url": f"https://{domain}/@{username}", "uri": f"https://{domain}/users/{username}"}
    peers.remember(domain)
    base.transact([accounts_repo.profile_op(profile, new=True),
                   base.put_new({**keys.handle(username, domain), "type": "handle",
                                 "account_id": account_id}),
                   accounts_repo.admin_entry_op(moderation_repo.admin_entry(profile, {})),
                   *accounts_repo.remote_index_ops(profile)])
    return account_id


def peer_account(peer, username: str, *, domain: str | None = None) -> str:
    """A remote account whose actor and inboxes are a loopback peer's (`/users/<name>`, its
    own inbox and the shared `/inbox`), stored under `domain` (the peer's host unless given)."""
    from stratus.repo import accounts as accounts_repo

    account_id = make_remote_account(domain or f"127.0.0.1:{peer.port}", username)
    profile = accounts_repo.get_profile(account_id)
    profile.update(uri=peer.url(f"/users/{username}"), url=peer.url(f"/@{username}"),
                   inbox=peer.url(f"/users/{username}/inbox"), shared_inbox=peer.url("/inbox"))
    accounts_repo.put_profiles([{k: v for k, v in profile.items() if k != "type"}])
    return account_id


ADMIN_SCOPES = ("read", "write", "follow", "admin:read", "admin:write")


def staff_headers(client) -> dict[str, str]:
    """Auth headers of an Admin with the admin scopes."""
    app = make_app(client, scopes="read write follow admin:read admin:write")
    return auth(user_token(app, make_user("boss", role="Admin"), scopes=ADMIN_SCOPES))


def suspend(client, staff: dict[str, str], account_id: str) -> None:
    """Suspend an account through the admin API, as a moderator would."""
    answer = client.post(f"/api/v1/admin/accounts/{account_id}/action", headers=staff,
                         data={"type": "suspend"})
    assert answer.status_code == 200, answer.text


def follow(client, headers, account_id, **options):
    """Follow an account through the API (POST /api/v1/accounts/:id/follow); the Relationship."""
    response = client.post(f"/api/v1/accounts/{account_id}/follow", headers=headers,
                           data=options)
    assert response.status_code == 200, response.text
    return response.json()


def relationship(client, headers, account_id) -> dict:
    response = client.get("/api/v1/accounts/relationships", headers=headers,
                          params={"id[]": [account_id]})
    assert response.status_code == 200, response.text
    [found] = response.json()
    return found


def account(client, account_id, headers=None) -> dict:
    return client.get(f"/api/v1/accounts/{account_id}", headers=headers or {}).json()


def lock(client, headers) -> None:
    response = client.patch("/api/v1/accounts/update_credentials", headers=headers,
                            data={"locked": "true"})
    assert response.status_code == 200 and response.json()["locked"] is True


def notifications(account_id) -> list[tuple[str, str]]:
    """The notifications stored for an account, as (type, from account id)."""
    from stratus.repo import effects as effects_repo

    return [(n["notification_type"], n["from_account_id"])
            for n in effects_repo.notifications(account_id)]


@pytest.fixture
def people(client):
    """alice, bob, carol and dave: ({name: account id}, {name: auth headers})."""
    app = make_app(client)
    ids_ = {name: make_user(name) for name in ("alice", "bob", "carol", "dave")}
    return ids_, {n: auth(user_token(app, a, scopes=("read", "write", "follow")))
                  for n, a in ids_.items()}
