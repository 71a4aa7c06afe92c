"""The instance `python -m bench cost` measures its mix on (bench/cost.py), built in a few
minutes, deterministically (seeded; nothing depends on time):

- 30 *members*, the accounts whose clients send the mix: 28 whose follower counts are the
  quantiles of a lognormal of median 150 (sigma 1.5) below 10,000, and 2 with 10,000 and 12,000.
  A member's followers are 35 % local (40 % of them active: their home feeds are fed, Mastodon's
  7-day rule) and 65 % remote, on hosts drawn from 1,500 servers of Zipf-distributed size (a
  delivery per host: shared inboxes). Members follow each other (15 each) and 6 remote posters.
  The big follower sets are written through the repository verbs in bulk (follow items,
  remote profiles, feed states), not as 22,000 HTTP follows: they are data, not events.
- 60 *listeners*: local accounts among the followers, each with a WebSocket connection on its
  `user` stream (3 % of the active local accounts: the profile's 900 connection-minutes a
  month), and 2 members on `public:local`; PostToConnection reaches them through the local
  WebSocket API (local/websocket.py), each message counted. 9 members have a web push
  subscription (to a loopback push service).
- 12 *remote posters* on 4 servers (real RSA keys, stored as federation stores actors), whose
  signed activities reach the shared inbox; each is followed by exactly `POSTER_RECEIVERS` (15)
  members, so an inbound status has that many local receivers (the profile scales the figure
  to each size's receivers: bench/profile.py). Every remote inbox, push endpoint and linked
  page is a loopback server that takes everything.
- History: 4 statuses per member (hashtags, replies and mentions, a link in some: preview
  cards are fetched from the loopback server), likes and boosts among members, 3 notes per
  remote poster, a list per member.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import math
import random
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from . import costs
from local.loopback import Loopback

SEED = 22
DOMAIN = "localhost:8000"

# --- the instance ---------------------------------------------------------------------------
REGULAR_MEMBERS = 28
BIG_FOLLOWERS = (10_000, 12_000)
BIG_AT = 10_000  # an account with this many followers or more is "big"
FOLLOWERS_MEDIAN, FOLLOWERS_SIGMA = 150, 1.5
LOCAL_SHARE = 0.35    # of an account's followers, those on this instance
ACTIVE_SHARE = 0.40   # of local followers, those whose home is fed (used the API this week)
REMOTE_HOSTS, HOSTS_ZIPF = 1500, 1.1
REMOTE_POOL = 8_500   # remote accounts the remote followers are drawn from
LOCAL_POOL = 4_500    # local accounts the local followers are drawn from (LISTENERS first)
LISTENERS = 60
PUBLIC_LISTENERS = 2
PUSH_SUBSCRIBERS = 9
MEMBERS_FOLLOWED = 15  # members each member follows
REMOTE_POSTERS, POSTER_HOSTS = 12, 4
POSTER_RECEIVERS = 15  # members following each remote poster: an inbound status's receivers
HISTORY_POSTS = 4
REMOTE_NOTES = 3


@contextlib.contextmanager
def confirmed_handles() -> Iterator[None]:
    """The posters' servers' WebFinger confirms each handle, as a fetch would have it confirmed
    (their hosts are not reachable from the bench)."""
    from stratus.federation import webfinger

    real = webfinger.lookup
    webfinger.lookup = lambda username, domain: webfinger.Answer(
        (username, domain), (username, domain), f"https://{domain}/users/{username}")
    try:
        yield
    finally:
        webfinger.lookup = real


# ------------------------------------------------------------------------------ loopback peers
class Peers(Loopback):
    """Every other server at once, on loopback: remote inboxes and push services take any POST
    (202/201), linked pages answer a small HTML page with Open Graph tags, robots.txt is 404."""

    def __init__(self) -> None:
        self.posts = 0
        peers = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                peers.posts += 1
                self.send_response(201 if self.path.startswith("/push/") else 202)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:  # noqa: N802
                if not self.path.startswith("/article/"):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = (f"<html><head><title>Article {self.path}</title>"
                        f'<meta property="og:title" content="On tides, part {self.path[9:]}">'
                        '<meta property="og:description" content="Notes from the mudflats.">'
                        "</head><body><p>Text.</p></body></html>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(Handler)


class _Sink:
    """An open WebSocket's outgoing queue that nobody reads (the messages are counted when
    PostToConnection is called)."""

    def put_nowait(self, item: Any) -> None:
        pass


# ------------------------------------------------------------------------------- the instance
def follower_counts(rng: random.Random) -> list[int]:
    """The regular members' follower counts: quantiles of the lognormal below BIG_AT, in a
    seeded order."""
    normal = statistics.NormalDist()
    below = normal.cdf(math.log(BIG_AT / FOLLOWERS_MEDIAN) / FOLLOWERS_SIGMA)
    counts = [round(FOLLOWERS_MEDIAN * math.exp(FOLLOWERS_SIGMA * normal.inv_cdf(
        (i + 0.5) / REGULAR_MEMBERS * below))) for i in range(REGULAR_MEMBERS)]
    rng.shuffle(counts)
    return counts


def big_share() -> float:
    """Of posting accounts, the share with BIG_AT followers or more (the lognormal's tail)."""
    normal = statistics.NormalDist()
    return 1 - normal.cdf(math.log(BIG_AT / FOLLOWERS_MEDIAN) / FOLLOWERS_SIGMA)


@dataclass
class Member:
    account_id: str
    username: str
    token: str
    followers: int
    statuses: list[str] = field(default_factory=list)  # ids, oldest first
    list_id: str | None = None
    receivers: int = 0  # local followers whose home is fed (a post's local receivers)


@dataclass
class Poster:
    """A remote actor whose activities reach our inbox."""

    uri: str
    key_id: str
    private_key: Any
    notes: list[str] = field(default_factory=list)  # ids of its notes we hold
    receivers: int = 0  # local followers whose home is fed


TEXT = ("Watching the tide come in over the mudflats this morning, the light doing that thing "
        "again where everything looks painted. Coffee, then the long walk round. #{tag}")
TAGS = ("tides", "walks", "coffee", "birds", "photography")


class Instance:
    """The fixture (module docstring)."""

    def __init__(self, runtime: Any, peers: Peers, log: Callable[[str], None]) -> None:
        self.runtime = runtime
        self.peers = peers
        self.log = log
        self.rng = random.Random(SEED)
        self.members: list[Member] = []
        self.listener_ids: list[str] = []
        self.posters: list[Poster] = []
        self.status_uris: dict[str, str] = {}
        self.app: dict[str, Any] = {}
        self.app_tokens: list[str] = []
        self.sockets: list[str] = []
        self.liked: list[tuple[Member, str]] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.counter = 0
        self.active_pool: list[str] = []  # local accounts (ids only) whose homes are fed
        self.receivers = 0  # local receivers of the status the last request sent (mix.sample)

    # -- helpers ---------------------------------------------------------------------------
    def next(self) -> int:
        self.counter += 1
        return self.counter

    def _account(self, name: str, scopes: list[str]) -> tuple[str, str]:
        from stratus.api.accounts import operator
        from stratus.api.oauth import oauth
        from stratus.repo import oauth as oauth_repo

        with costs.quick_password_hashes():
            account_id, _ = operator.operator_create(name, f"{name}@example.org",
                                                     "bench password 1", role=None,
                                                     confirmed=True)
        token, raw = oauth.new_token(self.app, account_id, scopes)
        oauth_repo.put_token(token)
        return account_id, raw

    def viewer(self, member: Member) -> Any:
        from stratus.auth import identity

        return identity.viewer_for_token(member.token)

    def drain(self) -> None:
        self.runtime.pipeline.drain(max_rounds=100_000)

    # -- building ------------------------------------------------------------------------
    def build(self) -> Instance:
        from stratus.api.oauth import oauth

        started = time.perf_counter()
        self.app, _ = oauth.create_app("cost bench", "urn:ietf:wg:oauth:2.0:oob",
                                       "read write follow push", None)
        counts = follower_counts(self.rng) + list(BIG_FOLLOWERS)
        scopes = ["read", "write", "follow", "push"]
        for i, followers in enumerate(counts):
            account_id, token = self._account(f"member{i}", scopes)
            self.members.append(Member(account_id, f"member{i}", token, followers))
        for i in range(LISTENERS):
            self.listener_ids.append(self._account(f"listener{i}", ["read"])[0])
        self.log(f"  {len(self.members)} members, {LISTENERS} listeners "
                 f"({time.perf_counter() - started:.0f} s)")
        self._posters()
        self._graph()
        self._history()
        self.log(f"  history: {sum(len(m.statuses) for m in self.members)} statuses, "
                 f"{sum(len(p.notes) for p in self.posters)} remote notes "
                 f"({time.perf_counter() - started:.0f} s)")
        self._audiences()
        self.log(f"  audiences: {sum(m.followers for m in self.members):,} follows "
                 f"({time.perf_counter() - started:.0f} s)")
        self._listen()
        self.app_tokens = [costs.app_token(self.app) for _ in range(4)]
        self.log(f"  built in {time.perf_counter() - started:.0f} s")
        return self

    def _posters(self) -> None:
        """Remote actors with key pairs, stored as federation stores a fetched actor."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        from stratus.federation import remote_accounts

        keys = [rsa.generate_private_key(public_exponent=65537, key_size=2048)
                for _ in range(POSTER_HOSTS)]
        with confirmed_handles():
            for i in range(REMOTE_POSTERS):
                host = f"poster{i % POSTER_HOSTS}.example"
                uri = f"https://{host}/users/poster{i}"
                key = keys[i % POSTER_HOSTS]
                pem = key.public_key().public_bytes(
                    serialization.Encoding.PEM,
                    serialization.PublicFormat.SubjectPublicKeyInfo).decode()
                remote_accounts.store({
                    "@context": ["https://www.w3.org/ns/activitystreams",
                                 "https://w3id.org/security/v1"],
                    "id": uri, "type": "Person", "preferredUsername": f"poster{i}",
                    "name": f"Poster {i}", "summary": "<p>Out on the water.</p>",
                    "url": f"https://{host}/@poster{i}",
                    "inbox": self.peers.url(f"/{host}/users/poster{i}/inbox"),
                    "outbox": f"{uri}/outbox", "followers": f"{uri}/followers",
                    "following": f"{uri}/following", "manuallyApprovesFollowers": False,
                    "discoverable": True, "published": "2024-01-01T00:00:00Z",
                    "endpoints": {"sharedInbox": self.peers.url(f"/{host}/inbox")},
                    "publicKey": {"id": f"{uri}#main-key", "owner": uri, "publicKeyPem": pem},
                }, fetched_from=uri)
                self.posters.append(Poster(uri, f"{uri}#main-key", key))

    def _graph(self) -> None:
        """Members follow each other and some remote posters (follow items written as the
        graph writes them; their side effects are not the mix's)."""
        from stratus.core import ids
        from stratus.federation import remote_accounts
        from stratus.model.relationships import FollowOptions
        from stratus.repo import relationships

        follows = []
        for member in self.members:
            others = [m for m in self.members if m is not member]
            for target in self.rng.sample(others, MEMBERS_FOLLOWED):
                follows.append(relationships.follow_item(ids.new_id(), member.account_id,
                                                         target.account_id, FollowOptions()))
                target.receivers += 1
        # Each poster is followed by POSTER_RECEIVERS members, spread evenly over them.
        for p, poster in enumerate(self.posters):
            remote_id = remote_accounts.find(poster.uri)["id"]
            count = min(POSTER_RECEIVERS, len(self.members))
            for t in range(count):
                member = self.members[(p * POSTER_RECEIVERS + t) % len(self.members)]
                follows.append(relationships.follow_item(
                    ids.new_id(), member.account_id, remote_id, FollowOptions(),
                    uri=f"http://{DOMAIN}/{ids.new_id()}", remote_target=True))
            poster.receivers = count
        relationships.put_many(follows)
        self._activate([m.account_id for m in self.members] + self.listener_ids)
        self.runtime.pipeline.skip_stream()

    def _activate(self, account_ids: list[str]) -> None:
        from stratus.core import clock
        from stratus.repo import base, feeds, keys

        now = clock.epoch()
        base.write_many(puts=[{**keys.feed_meta(keys.home_feed(a)), "state": "ready",
                               "active_until": feeds.active_until(now)} for a in account_ids],
                        table_name=feeds._table())

    def _history(self) -> None:
        started = time.perf_counter()
        from stratus.api.statuses import interactions
        from stratus.api.statuses import post as posting
        from stratus.repo import statuses as statuses_repo

        for round_ in range(HISTORY_POSTS):
            for n, member in enumerate(self.members):
                viewer = self.viewer(member)
                params: dict[str, Any] = {"status": TEXT.format(tag=TAGS[(n + round_) % 5])}
                if round_ % 3 == 1:
                    other = self.members[(n + 1) % len(self.members)]
                    if other.statuses:
                        params = {"status": f"@{other.username} lovely, thank you",
                                  "in_reply_to_id": other.statuses[-1]}
                elif round_ == 3 and n % 5 == 0:
                    params["status"] += " " + self.peers.url(f"/article/{n}")
                member.statuses.append(posting.create(viewer, params))
            self.drain()
            self.log(f"    round {round_} ({time.perf_counter() - started:.0f} s)")
        for member in self.members:
            viewer = self.viewer(member)
            for other in self.rng.sample(self.members, 4):
                if other is not member and other.statuses:
                    sid = self.rng.choice(other.statuses)
                    interactions.favourite(viewer, sid)
                    self.liked.append((member, sid))
            other = self.rng.choice([m for m in self.members if m is not member])
            interactions.reblog(viewer, other.statuses[0], None)
        self.drain()
        self.log(f"    posts, likes, boosts ({time.perf_counter() - started:.0f} s)")
        for poster in self.posters:
            for _ in range(REMOTE_NOTES):
                self.inbound("Create", poster)
        self.drain()
        self.log(f"    remote notes ({time.perf_counter() - started:.0f} s)")
        for member in self.members:
            for sid in member.statuses:
                self.status_uris[sid] = statuses_repo.get(sid)["uri"]
            status, _, body = self.request("POST", "/api/v1/lists", member,
                                           data={"title": "close"})
            member.list_id = body["id"]
            others = [m for m in self.members if m is not member]
            others = self.rng.sample(others, min(5, len(others)))
            self.request("POST", f"/api/v1/lists/{member.list_id}/accounts", member,
                         data={"account_ids[]": [o.account_id for o in others]})
        self.drain()

    def _audiences(self) -> None:
        """Every member's remaining followers, local and remote, in bulk: follow items, remote
        profiles with their inboxes on the loopback peers, fed home feeds."""
        from stratus.core import clock, ids
        from stratus.model.relationships import FollowOptions
        from stratus.repo import accounts as accounts_repo
        from stratus.repo import relationships

        weights = [1 / (rank + 1) ** HOSTS_ZIPF for rank in range(REMOTE_HOSTS)]
        hosts = self.rng.choices(range(REMOTE_HOSTS), weights, k=REMOTE_POOL)
        remote_ids, profiles = [], []
        for i, host_index in enumerate(hosts):
            domain, username, account_id = f"host{host_index}.example", f"user{i}", ids.new_id()
            remote_ids.append(account_id)
            profiles.append({
                "id": account_id, "username": username, "domain": domain, "display_name": "",
                "note": "", "fields": [], "locked": False, "bot": False,
                "created_at": clock.iso(clock.now()), "uri": f"https://{domain}/users/{username}",
                "url": f"https://{domain}/@{username}",
                "inbox": self.peers.url(f"/{domain}/users/{username}/inbox"),
                "shared_inbox": self.peers.url(f"/{domain}/inbox")})
        accounts_repo.put_profiles(profiles)
        local_ids = self.listener_ids + [ids.new_id() for _ in range(LOCAL_POOL - LISTENERS)]
        active = set(self.listener_ids) | {a for a in local_ids[LISTENERS:]
                                           if self.rng.random() < ACTIVE_SHARE}
        self.active_pool = [a for a in local_ids[LISTENERS:] if a in active]
        follows = []
        for member in self.members:
            existing = MEMBERS_FOLLOWED  # about as many members follow each member already
            wanted = max(member.followers - existing, 0)
            local = round(wanted * LOCAL_SHARE)
            for follower in self.rng.sample(local_ids, min(local, len(local_ids))):
                follows.append(relationships.follow_item(ids.new_id(), follower,
                                                         member.account_id, FollowOptions()))
                member.receivers += follower in active
            for follower in self.rng.sample(remote_ids, min(wanted - local, len(remote_ids))):
                follows.append(relationships.follow_item(
                    ids.new_id(), follower, member.account_id, FollowOptions(),
                    uri=f"https://remote.example/follows/{ids.new_id()}"))
        relationships.put_many(follows)
        self._activate(sorted(active - set(self.listener_ids)))
        self.runtime.pipeline.skip_stream()

    def _listen(self) -> None:
        """The listeners' WebSockets (and two members' on `public:local`), connected through
        the WebSocket API's function; their messages go to sinks here."""
        from local.websocket import SOCKETS, _connection_id, _event, websocket_function

        from local.lambda_runtime import invoke

        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        function = websocket_function(self.runtime.stack.template)
        tokens = [(self._token(a), "user") for a in self.listener_ids]
        tokens += [(m.token, "public:local") for m in self.members[:PUBLIC_LISTENERS]]
        for token, stream in tokens:
            connection_id = _connection_id()
            scope = {"headers": [(b"host", DOMAIN.encode()),
                                 (b"authorization", f"Bearer {token}".encode())],
                     "query_string": f"stream={stream}".encode(), "client": ("127.0.0.1", 1)}
            answer = invoke(self.runtime.stack, function,
                            _event("$connect", "CONNECT", connection_id, scope))
            assert int(answer.get("statusCode", 200)) == 200, answer
            SOCKETS.register(connection_id, self.loop, _Sink())  # type: ignore[arg-type]
            self.sockets.append(connection_id)
        for member in self.members[:PUSH_SUBSCRIBERS]:
            status, _, _ = self.request("POST", "/api/v1/push/subscription", member, data={
                "subscription[endpoint]": self.peers.url(f"/push/{member.username}"),
                "subscription[keys][p256dh]": _PUSH_KEYS[0],
                "subscription[keys][auth]": _PUSH_KEYS[1],
                "data[alerts][mention]": "true", "data[alerts][favourite]": "true",
                "data[alerts][follow]": "true", "data[alerts][reblog]": "true",
                "data[policy]": "all"})
            assert status == 200, status
        self.drain()

    def _token(self, account_id: str) -> str:
        from stratus.api.oauth import oauth
        from stratus.repo import oauth as oauth_repo

        token, raw = oauth.new_token(self.app, account_id, ["read"])
        oauth_repo.put_token(token)
        return raw

    def close(self) -> None:
        from local.websocket import SOCKETS

        for connection_id in self.sockets:
            SOCKETS.unregister(connection_id)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.loop.stop)

    # -- requests ------------------------------------------------------------------------
    def request(self, method: str, path: str, member: Member | None = None, *,
                query: str = "", data: dict[str, Any] | None = None, token: str | None = None,
                ip: str = "127.0.0.1") -> tuple[int, dict[str, str], Any]:
        return costs.request(self.runtime, method, path, query=query, data=data, ip=ip,
                                   token=token or (member.token if member else None))

    def raw(self, method: str, path: str, body: bytes, headers: dict[str, str],
            query: str = "") -> int:
        scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
                 "query_string": query.encode(), "client": ("203.0.113.9", 40000),
                 "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
        status, _, _ = self.runtime.gateway.handle(scope, body)
        return status

    def inbound(self, kind: str, poster: Poster | None = None) -> int:
        """One delivery to the shared inbox, signed by a remote poster."""
        from stratus.core import clock
        from stratus.federation import signatures

        poster = poster or self.rng.choice(self.posters)
        n = self.next()
        public = "https://www.w3.org/ns/activitystreams#Public"
        now = clock.iso(clock.now())  # just published, as a delivery usually is
        base = {"@context": "https://www.w3.org/ns/activitystreams", "actor": poster.uri,
                "id": f"{poster.uri}/activities/{n}"}
        if kind == "Create":
            self.receivers = poster.receivers
            note_id = f"{poster.uri}/statuses/{n}"
            poster.notes.append(note_id)
            activity = {**base, "type": "Create", "to": [public], "cc": [f"{poster.uri}/followers"],
                        "object": {"id": note_id, "type": "Note", "attributedTo": poster.uri,
                                   "content": f"<p>{TEXT.format(tag=TAGS[n % 5])}</p>",
                                   "published": now, "url": note_id,
                                   "to": [public], "cc": [f"{poster.uri}/followers"],
                                   "tag": [{"type": "Hashtag", "name": f"#{TAGS[n % 5]}",
                                            "href": f"https://x.example/tags/{TAGS[n % 5]}"}]}}
        elif kind in ("Like", "Announce"):
            member = self.rng.choice(self.members)
            target = self.status_uris[self.rng.choice(member.statuses)]
            activity = {**base, "type": kind, "object": target,
                        **({"to": [public], "published": now}
                           if kind == "Announce" else {})}
        elif kind in ("Delete", "Update"):
            if not poster.notes:
                return self.inbound("Create", poster)
            note_id = poster.notes.pop(0) if kind == "Delete" else poster.notes[-1]
            obj: dict[str, Any] = {"id": note_id, "type": "Tombstone"} if kind == "Delete" else {
                "id": note_id, "type": "Note", "attributedTo": poster.uri, "url": note_id,
                "content": "<p>Edited: the tide was early.</p>", "to": [public],
                "published": now, "updated": now}
            activity = {**base, "type": kind, "object": obj, "to": [public]}
        elif kind == "Follow":
            member = self.rng.choice(self.members)
            activity = {**base, "type": "Follow",
                        "object": f"http://{DOMAIN}/users/{member.username}"}
        else:
            raise ValueError(kind)
        body = json.dumps(activity).encode()
        headers = signatures.sign_cavage("POST", DOMAIN, "/inbox", key_id=poster.key_id,
                                         private_key=poster.private_key, body=body)
        return self.raw("POST", "/inbox", body, {"host": DOMAIN, **headers})

    def member(self) -> Member:
        return self.rng.choice(self.members[:REGULAR_MEMBERS])


def _push_keys() -> tuple[str, str]:
    """A browser's subscription keys (P-256 public key, auth secret), base64url, made once."""
    import base64
    import os

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    public = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    return b64(public), b64(os.urandom(16))


_PUSH_KEYS = _push_keys()


def _jpeg(seed: int, width: int = 1280, height: int = 960) -> bytes:
    """A photo-sized JPEG (noise over a gradient: it does not compress away)."""
    from PIL import Image

    rng = random.Random(seed)
    noise = bytes(rng.getrandbits(8) for _ in range(width * height // 16))
    small = Image.frombytes("L", (width // 4, height // 4), noise).convert("RGB")
    image = small.resize((width, height))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def _multipart(fields: dict[str, str], file: tuple[str, str, bytes]) -> tuple[bytes, str]:
    boundary = "stratus-cost-bench-boundary"
    parts = [f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
             .encode() for k, v in fields.items()]
    name, content_type, data = file
    parts.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                 f"filename=\"{name}\"\r\nContent-Type: {content_type}\r\n\r\n".encode()
                 + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"

