"""`python -m bench cost [--json]` (`costs` is the same; part of `make bench`): what a
realistic mix of requests costs on AWS, per million API requests and per monthly active user
(issue #22, "Cost"; docs/performance.md has the figures and the assumptions in prose).

**The instance** (built in a few minutes, deterministically: seeded, nothing depends on time):

- 30 *members*, the accounts whose clients send the mix: 28 whose follower counts are the
  quantiles of a lognormal of median 150 (σ 1.5) below 10,000, and 2 with 10,000 and 12,000.
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
  signed activities reach the shared inbox; every remote inbox, push endpoint and linked page
  is a loopback server that takes everything.
- History: 4 statuses per member (hashtags, replies and mentions, a link in some: preview
  cards are fetched from the loopback server), likes and boosts among members, 3 notes per
  remote poster, a list per member.

**The mix** (`CLIENT_MIX`, `INBOUND_MIX`): what a Mastodon client sends, per 100 requests, and
what other servers send (deliveries to the shared inbox, ActivityPub and WebFinger GETs). Each
kind is sent `samples` times (posts: by 14 regular members, one from each pair of neighbouring
follower quantiles, and by each big one; the big ones weighed as their share of posters,
`big_share()`: the lognormal's tail above 10,000), each followed by a drain of the
pipeline: every Lambda invocation the request causes (the HTTP function, then the stream's
dispatch, the queues' workers, fan-out, federation, deliveries, pushes, WebSocket messages) is
charged to it (costs.Recorder), one record per stream batch, SQS batch or asynchronous
invocation (quiet traffic: busier instances batch more and pay less). A kind's cost is the mean over its samples;
the mix's, the weighted mean.

**Prices** (costs.PRICES, us-east-1, on-demand, no free tier): HTTP API requests;
WebSocket messages (32 KB each) and connection-minutes (with the `$connect`/`$disconnect` pair
a connection costs, measured, every `SESSION_MINUTES`); Lambda requests and GB-seconds (each
invocation's duration rounded up to the ms at the template's MemorySize; durations are the
function's own CPU time scaled to the share of a vCPU its memory buys, plus a typical latency
per round of AWS calls; `corrected` without the scaling is the lower bound printed beside);
INIT of cold starts (`INIT_SECONDS` at the function's memory, at the rate `cold_starts`
models from each function's traffic); DynamoDB read and write units as the local DynamoDB
reports them (GSI writes included; failed conditions from its CloudWatch-like tally; streams
read by Lambda are free); SQS requests (64 KB chunks; the pollers' empty receives are idle
cost); S3, SES, Secrets Manager calls (one per cold start of a function that holds the
secret's ARN: an upper bound); CloudWatch Logs ingestion (bytes the functions log at the
template's log level, Lambda's START/END/REPORT/XRAY lines, a cold start's extra lines); X-Ray
traces recorded (one per trace root: HTTP, WebSocket, stream and schedule invocations; SQS
workers continue their sender's trace) at the template's tracing and Lambda's fixed sampling
(1 a second, then 5 %); data transfer out (answers, WebSocket messages, deliveries, pushes).

**Per MAU** (`PROFILE`): requests per MAU a month for three instance sizes, the variable cost
at each size's rates (sampling, cold starts), plus the idle cost of the stack
(`python -m bench idle`: bench/idle.py), divided by the MAU; the anchors beside.

`--json` prints `{"per_million_requests": $, "per_mau_month": {"100": $, "10000": $,
"1000000": $}, "by_service": {...}}` (and the details). The run takes about 10 minutes on a
quiet 2-core machine (2 of them building the instance); everything but the durations is the same
from run to run on the same code (seeded; durations are CPU time, so a busy machine slows the
run but changes them little).
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import random
import statistics
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import quote, urlencode

from local import emulator

from . import costs
from .costs import PRICES, Invocation, Recorder
from .loopback import Loopback

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
REMOTE_POSTERS, POSTER_HOSTS, POSTERS_FOLLOWED = 12, 4, 6
HISTORY_POSTS = 4
REMOTE_NOTES = 3

# --- the usage profile ------------------------------------------------------------------------
MINUTES_PER_MONTH = 30 * 24 * 60
SECONDS_PER_MONTH = MINUTES_PER_MONTH * 60
# A month of one MAU. Client requests: ~50 a day on average over all MAU (a daily user opens
# the app a few times, ~25 requests each, and scrolls; others come back weekly). Connection-
# minutes: ~30 a day (a web tab or a foregrounded app streaming). Inbound deliveries: one per
# activity of every remote account someone here follows, to the shared inbox (posts, boosts,
# edits, deletes, likes and boosts of local posts): the distinct remote accounts followed grow
# slower than the MAU (150 each, overlapping more on a bigger instance, a fediverse of ~500,000
# active accounts at most), ~2.5 activities a day each. ActivityPub/WebFinger GETs from other
# servers: ~2 % of the deliveries.
PROFILE = {
    "client_requests": 1500,
    # Of them, writes (a month of one MAU; the rest of the mix is reads): a post or reply a
    # day, a boost every other day, three likes a day, a photo with every third post, a few
    # follows, markers saved by clients as they are read; a sign-up for every 20 MAU.
    "actions": {"posts": 18, "replies": 12, "boosts": 15, "likes": 90, "unlikes": 5,
                "media": 9, "follows": 5, "markers": 30, "sign-ups": 0.05},
    "connection_minutes": 900,
    "inbound_requests": {"100": 6750, "10000": 1125, "1000000": 375},
}
SIZES = (100, 10_000, 1_000_000)
MIX_SIZE = "10000"  # the per-million figure is this instance's mix and rates
ANCHORS = {
    "GoToSocial on a $5 VPS": "$5 a month whatever the traffic it can carry (one small server: "
                              "$0.05 per MAU at 100 MAU; it does not reach 10,000)",
    "hachyderm": "~$0.16 per MAU a month (issue #22's anchor)",
}

# --- cost model constants ---------------------------------------------------------------------
SESSION_MINUTES = 10  # API Gateway closes a WebSocket idle for 10 minutes; clients reconnect
INIT_SECONDS = 1.0  # a cold start's INIT, billed (issue #22 measured 0.7-1.3 s with tracing on)
IDLE_LIFETIME = 45 * 60  # an idle environment is kept 45-60 min (Yan Cui's measurements)
RECYCLE_SECONDS = 2 * 3600  # and recycled after ~4 h even when busy (half, to be safe)
COLD_START_LOG_BYTES = 700  # INIT_START, the EMF ColdStart line, Powertools' empty-metrics warning
XRAY_RESERVOIR = 1.0  # traces a second Lambda records before the fixed rate (not configurable)
XRAY_RATE = 0.05
ROOTS = ("http", "websocket", "stream", "schedule")  # invocations that start a trace


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


@dataclass
class Poster:
    """A remote actor whose activities reach our inbox."""

    uri: str
    key_id: str
    private_key: Any
    notes: list[str] = field(default_factory=list)  # ids of its notes we hold


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
            for poster in self.rng.sample(self.posters, POSTERS_FOLLOWED):
                remote_id = remote_accounts.find(poster.uri)["id"]
                follows.append(relationships.follow_item(
                    ids.new_id(), member.account_id, remote_id, FollowOptions(),
                    uri=f"http://{DOMAIN}/{ids.new_id()}", remote_target=True))
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
        follows = []
        for member in self.members:
            existing = MEMBERS_FOLLOWED  # about as many members follow each member already
            wanted = max(member.followers - existing, 0)
            local = round(wanted * LOCAL_SHARE)
            for follower in self.rng.sample(local_ids, min(local, len(local_ids))):
                follows.append(relationships.follow_item(ids.new_id(), follower,
                                                         member.account_id, FollowOptions()))
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


# ------------------------------------------------------------------------------------ the mix
@dataclass(frozen=True)
class Kind:
    label: str
    weight: float  # per 100 requests of its class
    samples: int
    send: Callable[[Instance, int], Any]  # (instance, sample index) -> HTTP status(es)


def _status_of(instance: Instance) -> str:
    return instance.rng.choice(instance.rng.choice(instance.members).statuses)


def _post(big: bool) -> Callable[[Instance, int], int]:
    """A post by a big account (each in turn), or by a regular one: the regular members sorted
    by followers, sample i takes one of the pair of quantiles 2i, 2i + 1 (alternately the lower
    and the upper), so REGULAR_MEMBERS / 2 samples stand for the whole distribution."""
    def send(instance: Instance, i: int) -> int:
        if big:
            authors = instance.members[REGULAR_MEMBERS:]
            member = authors[i % len(authors)]
        else:
            authors = sorted(instance.members[:REGULAR_MEMBERS], key=lambda m: m.followers)
            member = authors[(2 * i + i % 2) % len(authors)]
        text = TEXT.format(tag=TAGS[i % 5])
        if i % 5 == 2:
            text += " " + instance.peers.url(f"/article/new{i}")
        status, _, body = instance.request("POST", "/api/v1/statuses", member,
                                           data={"status": text})
        if status == 200:
            member.statuses.append(body["id"])
            instance.status_uris[body["id"]] = body["uri"]
        return status
    return send


def _reply(instance: Instance, i: int) -> int:
    member, other = instance.rng.sample(instance.members[:REGULAR_MEMBERS], 2)
    status, _, body = instance.request("POST", "/api/v1/statuses", member, data={
        "status": f"@{other.username} agreed, see you at the harbour",
        "in_reply_to_id": other.statuses[-1]})
    if status == 200:
        member.statuses.append(body["id"])
        instance.status_uris[body["id"]] = body["uri"]
    return status


def _on_anothers_status(instance: Instance, action: str) -> int:
    """A member likes or boosts a status of another member."""
    member = instance.member()
    others = [m for m in instance.members if m is not member]
    sid = instance.rng.choice(instance.rng.choice(others).statuses)
    return instance.request("POST", f"/api/v1/statuses/{sid}/{action}", member)[0]


def _favourite(instance: Instance, i: int) -> int:
    return _on_anothers_status(instance, "favourite")


def _unfavourite(instance: Instance, i: int) -> int:
    member, sid = instance.liked.pop()  # a like of the history
    return instance.request("POST", f"/api/v1/statuses/{sid}/unfavourite", member)[0]


def _reblog(instance: Instance, i: int) -> int:
    return _on_anothers_status(instance, "reblog")


def _media(instance: Instance, i: int) -> int:
    member = instance.member()
    body, content_type = _multipart({"description": "The harbour at low tide"},
                                    ("harbour.jpg", "image/jpeg", _jpeg(i)))
    status = instance.raw("POST", "/api/v2/media", body, {
        "host": DOMAIN, "authorization": f"Bearer {member.token}",
        "content-type": content_type})
    return status


def _follow(instance: Instance, i: int) -> int:
    member = instance.member()
    if i % 2:
        from stratus.federation import remote_accounts

        target = remote_accounts.find(instance.posters[i % len(instance.posters)].uri)["id"]
    else:
        target = instance.members[(instance.members.index(member) + 7 + i)
                                  % len(instance.members)].account_id
    return instance.request("POST", f"/api/v1/accounts/{target}/follow", member)[0]


def _signup(instance: Instance, i: int) -> int:
    n = instance.next()
    token = instance.app_tokens.pop() if instance.app_tokens else \
        costs.app_token(instance.app)
    return instance.request("POST", "/api/v1/accounts", token=token,
                            ip=f"198.51.100.{n % 250 + 1}",
                            data={"username": f"newcomer{n}", "email": f"newcomer{n}@example.org",
                                  "password": "a long enough password", "agreement": "true",
                                  "locale": "en"})[0]


def _get(path: Callable[[Instance], str], query: str = "",
         who: Callable[[Instance], Member | None] = Instance.member) -> Callable[[Instance, int], int]:
    def send(instance: Instance, i: int) -> int:
        member = who(instance)
        return instance.request("GET", path(instance), member, query=query)[0]
    return send


def _relationships(instance: Instance, i: int) -> int:
    member = instance.member()
    ids = [m.account_id for m in instance.rng.sample(instance.members, 5)]
    return instance.request("GET", "/api/v1/accounts/relationships", member,
                            query=urlencode({"id[]": ids}, doseq=True))[0]


def _markers(instance: Instance, i: int) -> int:
    member = instance.member()
    return instance.request("POST", "/api/v1/markers", member,
                            data={"home[last_read_id]": member.statuses[-1]})[0]


def _context(instance: Instance) -> str:
    member = instance.rng.choice(instance.members)
    return f"/api/v1/statuses/{member.statuses[1]}/context"  # replied to in the history


def _activitypub_get(instance: Instance, i: int) -> int:
    member = instance.rng.choice(instance.members)
    if i % 2:
        return instance.raw("GET", "/.well-known/webfinger", b"", {"host": DOMAIN},
                            query=f"resource={quote(f'acct:{member.username}@{DOMAIN}')}")
    return instance.raw("GET", f"/users/{member.username}", b"",
                        {"host": DOMAIN, "accept": "application/activity+json"})


def _inbound(kind: str) -> Callable[[Instance, int], int]:
    return lambda instance, i: instance.inbound(kind)


BIG_POST = "POST /api/v1/statuses (author >= 10k followers)"
def _per_100(action: str) -> float:
    """A write's weight per 100 client requests, from its count per MAU a month."""
    return 100 * PROFILE["actions"][action] / PROFILE["client_requests"]


CLIENT_MIX = [
    Kind("GET /api/v1/timelines/home", 23, 12,
         _get(lambda x: "/api/v1/timelines/home", "limit=20")),
    Kind("GET /api/v1/notifications", 7, 6, _get(lambda x: "/api/v1/notifications")),
    Kind("GET /api/v2/notifications (grouped)", 7, 6, _get(lambda x: "/api/v2/notifications")),
    Kind("GET /api/v1/markers", 3, 3,
         _get(lambda x: "/api/v1/markers", "timeline[]=home&timeline[]=notifications")),
    Kind("GET /api/v1/statuses/:id/context", 7, 6, _get(_context)),
    Kind("GET /api/v1/statuses/:id", 4, 4, _get(lambda x: f"/api/v1/statuses/{_status_of(x)}")),
    Kind("GET /api/v1/accounts/:id", 4, 4,
         _get(lambda x: f"/api/v1/accounts/{x.rng.choice(x.members).account_id}")),
    Kind("GET /api/v1/accounts/:id/statuses", 5, 5,
         _get(lambda x: f"/api/v1/accounts/{x.rng.choice(x.members).account_id}/statuses",
              "limit=20")),
    Kind("GET /api/v1/accounts/relationships", 5, 4, _relationships),
    Kind("GET /api/v1/accounts/verify_credentials", 5, 4,
         _get(lambda x: "/api/v1/accounts/verify_credentials")),
    Kind("GET /api/v2/instance", 2, 3, _get(lambda x: "/api/v2/instance", who=lambda x: None)),
    Kind("GET /api/v1/custom_emojis", 1, 2,
         _get(lambda x: "/api/v1/custom_emojis", who=lambda x: None)),
    Kind("GET /api/v2/filters", 1, 2, _get(lambda x: "/api/v2/filters")),
    Kind("GET /api/v1/timelines/public?local=true", 3, 4,
         _get(lambda x: "/api/v1/timelines/public", "local=true&limit=20")),
    Kind("GET /api/v1/timelines/tag/:tag", 2, 3,
         _get(lambda x: f"/api/v1/timelines/tag/{x.rng.choice(TAGS)}", "limit=20")),
    Kind("GET /api/v1/timelines/list/:id", 1, 2,
         lambda x, i: (m := x.member()) and x.request(
             "GET", f"/api/v1/timelines/list/{m.list_id}", m)[0]),
    Kind("GET /api/v2/search", 2, 3, _get(lambda x: "/api/v2/search", "q=tide&limit=20")),
    Kind("GET /api/v1/trends/statuses", 1, 2, _get(lambda x: "/api/v1/trends/statuses")),
    Kind("GET /api/v1/conversations", 1, 2, _get(lambda x: "/api/v1/conversations")),
    Kind("GET /api/v1/announcements", 1, 2, _get(lambda x: "/api/v1/announcements")),
    Kind("GET /api/v1/lists", 1, 2, _get(lambda x: "/api/v1/lists")),
    Kind("GET /api/v1/accounts/:id/followers", 1, 2,
         _get(lambda x: f"/api/v1/accounts/{x.rng.choice(x.members).account_id}/followers")),
    Kind("POST /api/v1/markers", _per_100("markers"), 3, _markers),
    Kind("POST /api/v1/statuses/:id/favourite", _per_100("likes"), 8, _favourite),
    Kind("POST /api/v1/statuses/:id/unfavourite", _per_100("unlikes"), 2, _unfavourite),
    Kind("POST /api/v1/statuses/:id/reblog", _per_100("boosts"), 3, _reblog),
    Kind("POST /api/v1/statuses (author < 10k followers)", _per_100("posts") * (1 - big_share()),
         REGULAR_MEMBERS // 2, _post(big=False)),
    Kind(BIG_POST, _per_100("posts") * big_share(), len(BIG_FOLLOWERS), _post(big=True)),
    Kind("POST /api/v1/statuses (reply, mention)", _per_100("replies"), 4, _reply),
    Kind("POST /api/v2/media (a 1280x960 photo)", _per_100("media"), 2, _media),
    Kind("POST /api/v1/accounts/:id/follow", _per_100("follows"), 4, _follow),
    Kind("POST /api/v1/accounts (sign-up, e-mail)", _per_100("sign-ups"), 1, _signup),
]
INBOUND_MIX = [
    Kind("POST /inbox Create (a followed account's note)", 58, 12, _inbound("Create")),
    Kind("POST /inbox Announce (of a local status)", 10, 3, _inbound("Announce")),
    Kind("POST /inbox Like (of a local status)", 14, 4, _inbound("Like")),
    Kind("POST /inbox Delete (of a note)", 8, 3, _inbound("Delete")),
    Kind("POST /inbox Update (an edit)", 5, 2, _inbound("Update")),
    Kind("POST /inbox Follow", 1, 2, _inbound("Follow")),
    Kind("GET /users/:name, /.well-known/webfinger", 2, 4, _activitypub_get),
]
CONNECT = "WebSocket $connect + $disconnect"


# ------------------------------------------------------------------------------------ measuring
@dataclass
class Measured:
    """What the samples of one kind caused."""

    samples: int = 0
    invocations: list[Invocation] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)  # SQS, e-mails, S3, messages, ...
    unreported_read: float = 0.0  # DynamoDB units charged but in no response (failed conditions)
    unreported_write: float = 0.0
    statuses: Counter[Any] = field(default_factory=Counter)
    seconds: float = 0.0


def _sample(instance: Instance, recorder: Recorder, kind: Kind, i: int,
            measured: Measured) -> None:
    """One request of `kind` and everything it causes, charged to it."""
    _, unreported = emulator.CONSUMED.snapshot()
    recorder.cause = recorder.label = kind.label
    started = time.perf_counter()
    try:
        answer = kind.send(instance, i)
        recorder.label = None
        recorder.api_requests += 1
        instance.drain()
    finally:
        recorder.cause = recorder.label = None
        measured.seconds += time.perf_counter() - started
    _, after = emulator.CONSUMED.snapshot()
    measured.unreported_read += after.read - unreported.read
    measured.unreported_write += after.write + after.index_write - unreported.write - \
        unreported.index_write
    measured.samples += 1
    measured.statuses[answer] += 1


def measure(instance: Instance, log: Callable[[str], None]
            ) -> tuple[dict[str, Measured], Recorder]:
    """Every kind once unmeasured (warm functions and caches: INIT is priced apart), then its
    samples, in a seeded order, then the WebSocket reconnections."""
    kinds = CLIENT_MIX + INBOUND_MIX
    for kind in kinds:
        # The sign-up is sampled once and warms on its sample; a big account's post warms
        # nothing a regular post does not.
        if kind.samples > 1 and kind.label != BIG_POST:
            kind.send(instance, 10_000)
    instance.drain()
    order = [(kind, i) for kind in kinds for i in range(kind.samples)]
    instance.rng.shuffle(order)
    found: dict[str, Measured] = {kind.label: Measured() for kind in kinds}
    found[CONNECT] = Measured()
    recorder = Recorder(instance.runtime)
    started = time.perf_counter()
    with recorder:
        for n, (kind, i) in enumerate(order):
            _sample(instance, recorder, kind, i, found[kind.label])
            if (n + 1) % 40 == 0:
                log(f"  {n + 1} of {len(order)} requests ({time.perf_counter() - started:.0f} s)")
        _connects(instance, recorder, found[CONNECT])
    for invocation in recorder.invocations:
        found[invocation.cause or CONNECT].invocations.append(invocation)
    for label, counts in recorder.by_cause.items():
        found[label or CONNECT].counts.update(counts)
    return found, recorder


def _connects(instance: Instance, recorder: Recorder, measured: Measured) -> None:
    """Members' WebSockets connecting (to `user`) and going: what each reconnection costs."""
    from local.lambda_runtime import invoke
    from local.websocket import _connection_id, _event, websocket_function

    function = websocket_function(instance.runtime.stack.template)
    recorder.cause = CONNECT
    try:
        for member in instance.members[:3]:
            connection_id = _connection_id()
            scope = {"headers": [(b"host", DOMAIN.encode()),
                                 (b"authorization", f"Bearer {member.token}".encode())],
                     "query_string": b"stream=user", "client": ("127.0.0.1", 1)}
            invoke(instance.runtime.stack, function,
                   _event("$connect", "CONNECT", connection_id, scope))
            invoke(instance.runtime.stack, function,
                   _event("$disconnect", "DISCONNECT", connection_id, scope))
            instance.drain()
            measured.samples += 1
    finally:
        recorder.cause = None


# ------------------------------------------------------------------------------------- pricing
def _resolve(value: Any, template: dict[str, Any]) -> Any:
    """A template value with the parameters at their defaults: Ref, Fn::If, Fn::Equals, Fn::Not
    (what Tracing or an environment variable may be made of)."""
    params = {k: v.get("Default") for k, v in template.get("Parameters", {}).items()}
    if isinstance(value, dict) and len(value) == 1:
        (name, arg), = value.items()
        if name == "Ref":
            return params.get(arg, arg)
        if name == "Fn::If":
            condition = template.get("Conditions", {}).get(arg[0])
            return _resolve(arg[1] if _resolve(condition, template) else arg[2], template)
        if name == "Fn::Equals":
            return str(_resolve(arg[0], template)) == str(_resolve(arg[1], template))
        if name == "Fn::Not":
            return not _resolve(arg[0], template)
        if name == "Condition":
            return _resolve(template.get("Conditions", {}).get(arg), template)
    return value


@dataclass(frozen=True)
class Deployment:
    """What the template says that prices depend on, per function."""

    memory: dict[str, int]
    traced: dict[str, bool]  # Tracing: Active
    secret: dict[str, bool]  # holds the instance secret's ARN (reads it once per environment)

    @classmethod
    def of(cls, template: dict[str, Any]) -> Deployment:
        shared = template.get("Globals", {}).get("Function", {})
        shared_env = (shared.get("Environment") or {}).get("Variables") or {}
        traced, secret = {}, {}
        for name, res in template["Resources"].items():
            if res.get("Type") != "AWS::Serverless::Function":
                continue
            props = res.get("Properties", {})
            tracing = _resolve(props.get("Tracing", shared.get("Tracing", "PassThrough")),
                               template)
            traced[name] = tracing == "Active"
            env = {**shared_env, **((props.get("Environment") or {}).get("Variables") or {})}
            secret[name] = "INSTANCE_SECRET_ARN" in env
        return cls(costs.memory_sizes(template), traced, secret)


DURATIONS = {
    "measured": lambda i: i.measured,
    "corrected": lambda i: i.corrected(),
    "corrected, CPU-scaled": lambda i: i.corrected(cpu_scaled=True),
}
HEADLINE = "corrected, CPU-scaled"


@dataclass
class PerEvent:
    """One event of a kind (a request and what it causes, or a reconnection), averaged over
    its samples: dollars by service that do not depend on the instance's size, and what the
    size-dependent parts (cold starts, X-Ray) are computed from."""

    dollars: dict[str, float]
    compute: dict[str, float]  # Lambda compute by duration variant
    invocations: Counter[str]  # by function
    seconds: dict[str, float]  # mean billed duration by function (the headline variant)
    roots: dict[str, float]  # trace roots, by function
    http_requests: float
    read_units: float
    write_units: float
    log_bytes: float
    # by function: Lambda (requests and compute, the headline variant) and DynamoDB dollars
    lambda_by_function: dict[str, float] = field(default_factory=dict)
    dynamodb_by_function: dict[str, float] = field(default_factory=dict)

    @staticmethod
    def of(measured: Measured) -> PerEvent:
        n = max(measured.samples, 1)
        invocations = measured.invocations
        counts = measured.counts
        p = PRICES

        def gb_seconds(duration: Callable[[Invocation], float]) -> float:
            return sum(math.ceil(duration(i) * 1000) / 1000 * i.memory_mb / 1024
                       for i in invocations)

        reads = sum(i.dynamodb.read for i in invocations) + measured.unreported_read
        table_writes = sum(i.dynamodb.write for i in invocations)
        index_writes = sum(i.dynamodb.index_write for i in invocations)
        writes = table_writes + index_writes + measured.unreported_write
        http = [i for i in invocations if i.trigger == "http"]
        logs = sum(i.log_bytes for i in invocations) + \
            costs.PLATFORM_LOG_BYTES * len(invocations)
        out_bytes = sum(i.answer_bytes + i.outbound_bytes for i in invocations) + \
            counts["ws_bytes"]
        dollars = {
            "API Gateway HTTP API": len(http) * p["http_api_request"],
            "API Gateway WebSocket messages": counts["ws_messages"] * p["websocket_message"],
            "Lambda requests": len(invocations) * p["lambda_request"],
            "DynamoDB reads": reads * p["dynamodb_read_unit"],
            "DynamoDB writes (tables)": (table_writes + measured.unreported_write)
            * p["dynamodb_write_unit"],
            "DynamoDB writes (GSIs)": index_writes * p["dynamodb_write_unit"],
            "DynamoDB Streams": 0.0,  # GetRecords by a Lambda trigger is free
            "SQS": counts["sqs"] * p["sqs_request"],
            "S3": counts["s3_put"] * p["s3_put"] + counts["s3_get"] * p["s3_get"],
            "SES": counts["emails"] * p["ses_email"],
            "CloudWatch Logs": logs / 1e9 * p["logs_ingested_gb"],
            "Secrets Manager / SSM": counts["secrets"] * p["secrets_call"],
            "Data transfer out": out_bytes / 1e9 * p["transfer_out_gb"],
        }
        by_function: dict[str, list[Invocation]] = defaultdict(list)
        for i in invocations:
            by_function[i.function].append(i)
        headline = DURATIONS[HEADLINE]
        lambda_by_function = {
            f: (len(group) * p["lambda_request"] + sum(
                math.ceil(headline(i) * 1000) / 1000 * i.memory_mb / 1024 for i in group)
                * p["lambda_gb_second"]) / n for f, group in by_function.items()}
        dynamodb_by_function = {
            f: sum(i.dynamodb.read * p["dynamodb_read_unit"]
                   + (i.dynamodb.write + i.dynamodb.index_write) * p["dynamodb_write_unit"]
                   for i in group) / n for f, group in by_function.items()}
        return PerEvent(
            dollars={k: v / n for k, v in dollars.items()},
            compute={name: gb_seconds(fn) * p["lambda_gb_second"] / n
                     for name, fn in DURATIONS.items()},
            invocations=Counter({f: len(group) / n for f, group in by_function.items()}),
            seconds={f: statistics.mean(headline(i) for i in group)
                     for f, group in by_function.items()},
            roots={f: c / n for f, c in Counter(i.function for i in invocations
                                                if i.trigger in ROOTS).items()},
            http_requests=len(http) / n, read_units=reads / n, write_units=writes / n,
            log_bytes=logs / n, lambda_by_function=lambda_by_function,
            dynamodb_by_function=dynamodb_by_function)


def blend(events: list[tuple[float, PerEvent]]) -> PerEvent:
    """The weighted mean of several kinds' events (weights need not add up to 1)."""
    total = sum(w for w, _ in events) or 1.0

    def mean(get: Callable[[PerEvent], dict[str, float]]) -> dict[str, float]:
        found: dict[str, float] = defaultdict(float)
        for weight, event in events:
            for key, value in get(event).items():
                found[key] += weight * value / total
        return dict(found)

    invocations = mean(lambda e: dict(e.invocations))
    seconds: dict[str, float] = {}
    for function, count in invocations.items():  # invocation-weighted mean durations
        seconds[function] = sum(w * e.invocations.get(function, 0) * e.seconds.get(function, 0)
                                for w, e in events) / total / count if count else 0.0
    return PerEvent(
        dollars=mean(lambda e: e.dollars), compute=mean(lambda e: e.compute),
        invocations=Counter(invocations), seconds=seconds, roots=mean(lambda e: e.roots),
        http_requests=sum(w * e.http_requests for w, e in events) / total,
        read_units=sum(w * e.read_units for w, e in events) / total,
        write_units=sum(w * e.write_units for w, e in events) / total,
        log_bytes=sum(w * e.log_bytes for w, e in events) / total,
        lambda_by_function=mean(lambda e: e.lambda_by_function),
        dynamodb_by_function=mean(lambda e: e.dynamodb_by_function))


def cold_starts(invocations: float, seconds: float) -> float:
    """Cold starts a month of a function invoked `invocations` times a month, each taking
    `seconds`: every invocation after an idle gap longer than IDLE_LIFETIME (Poisson
    arrivals), and while warm, each environment once every RECYCLE_SECONDS."""
    if invocations <= 0:
        return 0.0
    rate = invocations / SECONDS_PER_MONTH
    idle = math.exp(-rate * IDLE_LIFETIME)
    environments = max(1.0, rate * seconds)  # Little's law: invocations in flight
    recycled = environments * SECONDS_PER_MONTH / RECYCLE_SECONDS
    return invocations * idle + min(invocations * (1 - idle), recycled)


def traced_share(roots: float) -> float:
    """Of `roots` trace roots a month, the share X-Ray records with Lambda's sampling."""
    if roots <= 0:
        return 0.0
    reservoir = XRAY_RESERVOIR * SECONDS_PER_MONTH
    return (min(roots, reservoir) + XRAY_RATE * max(roots - reservoir, 0)) / roots


def idle_per_month() -> tuple[float | None, str]:
    """The stack's cost a month with no traffic, from `python -m bench idle`."""
    try:
        from .idle import compute
    except ImportError:
        return None, "bench/idle.py is not there: idle cost not added"
    try:
        return float(compute().per_month), "python -m bench idle"
    except Exception as exc:  # noqa: BLE001 - another part's failure is reported, not fatal
        return None, f"python -m bench idle failed ({type(exc).__name__}: {exc})"


@dataclass
class Month:
    """An instance of `mau` monthly active users for a month."""

    mau: int
    client: float  # client API requests
    inbound: float  # requests from other servers
    connection_minutes: float
    dollars: dict[str, float]  # variable cost by service
    compute_variants: dict[str, float]  # Lambda compute by duration variant
    idle: float | None

    @property
    def requests(self) -> float:
        return self.client + self.inbound

    @property
    def variable(self) -> float:
        return sum(self.dollars.values())

    @property
    def total(self) -> float:
        return self.variable + (self.idle or 0.0)

    def per_million(self) -> dict[str, float]:
        return {k: v / self.requests * 1e6 for k, v in self.dollars.items()}


def month(mau: int, client: PerEvent, inbound: PerEvent, connect: PerEvent,
          deployment: Deployment, idle: float | None) -> Month:
    key = str(mau)
    volumes = [(mau * PROFILE["client_requests"], client),
               (mau * PROFILE["inbound_requests"][key], inbound),
               (mau * PROFILE["connection_minutes"] / SESSION_MINUTES, connect)]
    dollars: dict[str, float] = defaultdict(float)
    variants: dict[str, float] = defaultdict(float)
    invocations: Counter[str] = Counter()
    busy: dict[str, float] = defaultdict(float)  # invocation-seconds, for mean durations
    roots: dict[str, float] = defaultdict(float)
    for events, event in volumes:
        for service, value in event.dollars.items():
            dollars[service] += events * value
        for variant, value in event.compute.items():
            variants[variant] += events * value
        for function, count in event.invocations.items():
            invocations[function] += events * count
            busy[function] += events * count * event.seconds.get(function, 0.0)
        for function, count in event.roots.items():
            roots[function] += events * count
    dollars["Lambda compute"] = variants[HEADLINE]
    dollars["API Gateway WebSocket connection-minutes"] = \
        mau * PROFILE["connection_minutes"] * PRICES["websocket_connection_minute"]
    p = PRICES
    init = cold_logs = cold_secrets = 0.0
    for function, count in invocations.items():
        cold = cold_starts(count, busy[function] / count if count else 0.0)
        init += cold * INIT_SECONDS * deployment.memory.get(function, 512) / 1024
        cold_logs += cold * COLD_START_LOG_BYTES
        cold_secrets += cold if deployment.secret.get(function) else 0.0
    dollars["Lambda INIT (cold starts)"] = init * p["lambda_gb_second"]
    dollars["CloudWatch Logs"] += cold_logs / 1e9 * p["logs_ingested_gb"]
    dollars["Secrets Manager / SSM"] += cold_secrets * p["secrets_call"]
    traced_roots = sum(c for f, c in roots.items() if deployment.traced.get(f))
    share = traced_share(traced_roots)
    dollars["X-Ray"] = traced_roots * share * p["xray_trace"]
    # Every invocation of a recorded trace adds Lambda's XRAY line to its logs.
    traced_invocations = sum(c for f, c in invocations.items() if deployment.traced.get(f))
    dollars["CloudWatch Logs"] += traced_invocations * share * costs.XRAY_LOG_BYTES / 1e9 \
        * p["logs_ingested_gb"]
    return Month(mau, volumes[0][0], volumes[1][0], mau * PROFILE["connection_minutes"],
                 dict(dollars), dict(variants), idle)


# ------------------------------------------------------------------------------------- the run
def start_in_process() -> tuple[Any, Any]:
    """The stack on moto in this process (as the tests run it: the same botocore calls, without
    the loopback HTTP server, which makes each call ~10 times slower here)."""
    import os

    os.environ.update(POWERTOOLS_SERVICE_NAME="bench", POWERTOOLS_METRICS_DISABLED="true",
                      POWERTOOLS_TRACE_DISABLED="true", POWERTOOLS_LOG_LEVEL="WARNING")
    from moto import mock_aws

    from local.emulator import prepare
    from local.runtime import AWS_DEFAULTS, STATE_DIR, start

    for key, value in AWS_DEFAULTS.items():
        os.environ[key] = value
    os.environ.pop("AWS_ENDPOINT_URL", None)
    prepare()
    mock = mock_aws()
    mock.start()
    runtime = start(DOMAIN, f"http://{DOMAIN}", mail_dir=STATE_DIR / "bench-mail",
                    keep_clients=True, extra_env={"POWERTOOLS_LOG_LEVEL": "WARNING",
                                                  "POWERTOOLS_SERVICE_NAME": "bench"})
    return runtime, mock


@dataclass
class Result:
    kinds: dict[str, Measured]
    events: dict[str, PerEvent]
    client: PerEvent
    inbound: PerEvent
    connect: PerEvent
    months: dict[str, Month]
    deployment: Deployment
    idle_source: str
    seconds: float

    @property
    def headline(self) -> Month:
        return self.months[MIX_SIZE]

    def by_service(self) -> dict[str, float]:
        return dict(sorted(self.headline.per_million().items(), key=lambda kv: -kv[1]))

    def as_json(self) -> dict[str, Any]:
        def rounded(values: dict[str, float], digits: int = 4) -> dict[str, float]:
            return {k: round(v, digits) for k, v in values.items()}

        headline = self.headline
        return {
            "per_million_requests": round(sum(headline.per_million().values()), 4),
            "per_mau_month": {k: round(m.total / m.mau, 5) for k, m in self.months.items()},
            "by_service": rounded(self.by_service()),
            "per_million_requests_by_size": {
                k: round(sum(m.per_million().values()), 4) for k, m in self.months.items()},
            "month": {k: {"mau": m.mau, "client_requests": m.client,
                          "inbound_requests": m.inbound,
                          "connection_minutes": m.connection_minutes,
                          "variable": round(m.variable, 2),
                          "idle": None if m.idle is None else round(m.idle, 2),
                          "total": round(m.total, 2)} for k, m in self.months.items()},
            "lambda_compute_per_million": rounded(
                {k: v / headline.requests * 1e6 for k, v in headline.compute_variants.items()}),
            "client_request": round(sum(self.client.dollars.values())
                                    + self.client.compute[HEADLINE], 9),
            "inbound_request": round(sum(self.inbound.dollars.values())
                                     + self.inbound.compute[HEADLINE], 9),
            "kinds": {label: {"weight": round(kind.weight, 5), "samples": kind.samples,
                              "dollars_per_million": round(
                                  (sum(self.events[label].dollars.values())
                                   + self.events[label].compute[HEADLINE]) * 1e6, 3),
                              "invocations": round(sum(self.events[label].invocations.values()),
                                                   2),
                              "read_units": round(self.events[label].read_units, 2),
                              "write_units": round(self.events[label].write_units, 2)}
                      for label, kind in ((k.label, k) for k in CLIENT_MIX + INBOUND_MIX)},
            "tracing": {f: t for f, t in self.deployment.traced.items() if t} or "off",
            "idle_source": self.idle_source,
            "profile": PROFILE,
            "seconds": round(self.seconds),
        }


def price(kinds: dict[str, Measured], deployment: Deployment, seconds: float) -> Result:
    events = {label: PerEvent.of(measured) for label, measured in kinds.items()}
    client = blend([(k.weight, events[k.label]) for k in CLIENT_MIX])
    inbound = blend([(k.weight, events[k.label]) for k in INBOUND_MIX])
    connect = events[CONNECT]
    idle, source = idle_per_month()
    months = {str(size): month(size, client, inbound, connect, deployment, idle)
              for size in SIZES}
    return Result(kinds, events, client, inbound, connect, months, deployment, source, seconds)


def report(result: Result, out: Any) -> None:
    def line(text: str = "") -> None:
        print(text, file=out)

    line(f"\nCost of a realistic mix (issue #22): {REGULAR_MEMBERS + len(BIG_FOLLOWERS)} members "
         f"(followers: median {FOLLOWERS_MEDIAN}, lognormal sigma {FOLLOWERS_SIGMA}, and "
         f"{', '.join(f'{n:,}' for n in BIG_FOLLOWERS)}), {LISTENERS + PUBLIC_LISTENERS} "
         f"WebSockets, {REMOTE_POSTERS} remote posters; one drain per request")
    line(f"{'request (per event: the request and all it causes)':58} {'weight':>6} {'n':>3} "
         f"{'answers':>9} {'Lambda':>6} {'ms':>7} {'RRU':>8} {'WRU':>7} {'SQS':>5} {'WS':>4} "
         f"{'$/M':>9}")
    for kind in CLIENT_MIX + [None] + INBOUND_MIX + [None]:
        if kind is None:
            line()
            continue
        measured, event = result.kinds[kind.label], result.events[kind.label]
        n = max(measured.samples, 1)
        answers = ",".join(f"{k}x{v}" if v > 1 else str(k)
                           for k, v in sorted(measured.statuses.items(), key=str))
        lambda_ms = sum(math.ceil(costs.Invocation.corrected(i, cpu_scaled=True) * 1000)
                        for i in measured.invocations) / n
        dollars = sum(event.dollars.values()) + event.compute[HEADLINE]
        line(f"{kind.label[:58]:58} {kind.weight:6.3f} {measured.samples:3d} {answers:>9} "
             f"{sum(event.invocations.values()):6.1f} {lambda_ms:7.0f} {event.read_units:8.1f} "
             f"{event.write_units:7.1f} {measured.counts['sqs'] / n:5.1f} "
             f"{measured.counts['ws_messages'] / n:4.1f} {dollars * 1e6:9.2f}")
    connect = result.connect
    line(f"{CONNECT:58} {'':6} {result.kinds[CONNECT].samples:3d} {'':9} "
         f"{sum(connect.invocations.values()):6.1f} {'':7} {connect.read_units:8.1f} "
         f"{connect.write_units:7.1f} {'':5} {'':4} "
         f"{(sum(connect.dollars.values()) + connect.compute[HEADLINE]) * 1e6:9.2f}")
    client = sum(result.client.dollars.values()) + result.client.compute[HEADLINE]
    inbound = sum(result.inbound.dollars.values()) + result.inbound.compute[HEADLINE]
    line(f"a client request ${client * 1e6:.2f} per million (with what it causes), a request "
         f"from another server ${inbound * 1e6:.2f} per million (before cold starts, X-Ray, "
         f"connection-minutes)")
    headline = result.headline
    total = sum(headline.per_million().values())
    share = headline.inbound / headline.requests
    line(f"\nDollars per million API requests: the {int(MIX_SIZE):,}-MAU instance's mix "
         f"({1 - share:.0%} client requests, {share:.0%} from other servers, "
         f"{PROFILE['connection_minutes'] / (PROFILE['client_requests'] + PROFILE['inbound_requests'][MIX_SIZE]):.2f}"
         f" connection-minutes a request) at its rates")
    for service, dollars in result.by_service().items():
        line(f"  {service:44} {dollars:8.3f}")
    line(f"  {'total':44} {total:8.3f}   (goal $2.50: "
         f"{'met' if total <= 2.5 else f'missed by ${total - 2.5:.2f}'})")
    line("\n  where Lambda and DynamoDB go, by function ($ per million API requests of the mix; "
         "invocations per 1,000 requests):")
    requests = headline.requests
    client_share, inbound_share = headline.client / requests, headline.inbound / requests
    functions = set(result.client.lambda_by_function) | set(result.inbound.lambda_by_function)
    rows = []
    for function in functions:
        def mixed(get: Callable[[PerEvent], dict[str, Any]]) -> float:
            return client_share * get(result.client).get(function, 0.0) + \
                inbound_share * get(result.inbound).get(function, 0.0)
        rows.append((function, mixed(lambda e: e.invocations) * 1000,
                     mixed(lambda e: e.lambda_by_function) * 1e6,
                     mixed(lambda e: e.dynamodb_by_function) * 1e6))
    line(f"  {'function':28} {'invocations':>11} {'Lambda $':>9} {'DynamoDB $':>10}")
    for function, invocations, lam, ddb in sorted(rows, key=lambda r: -(r[2] + r[3]))[:14]:
        line(f"  {function:28} {invocations:11.0f} {lam:9.2f} {ddb:10.2f}")
    variants = ", ".join(f"{k} ${v / headline.requests * 1e6:.2f}"
                         for k, v in headline.compute_variants.items())
    line(f"  Lambda compute by duration: {variants} (the total uses {HEADLINE})")
    traced = sorted(f for f, t in result.deployment.traced.items() if t)
    line(f"  X-Ray: {'Tracing: Active on ' + str(len(traced)) + ' functions' if traced else 'tracing off in the template: no traces'}")
    line(f"\nPer monthly active user (a month of one MAU: {PROFILE['client_requests']:,} client "
         f"requests, {PROFILE['connection_minutes']} connection-minutes, requests from other "
         f"servers by size; idle: {result.idle_source})")
    line(f"{'MAU':>10} {'requests':>14} {'from servers':>13} {'variable $':>11} {'idle $':>7} "
         f"{'total $':>10} {'$ per MAU':>10} {'$/M req':>8}")
    for key, m in result.months.items():
        idle = "-" if m.idle is None else f"{m.idle:.2f}"
        line(f"{m.mau:10,} {m.requests:14,.0f} {m.inbound:13,.0f} {m.variable:11,.2f} "
             f"{idle:>7} {m.total:10,.2f} {m.total / m.mau:10.4f} "
             f"{sum(m.per_million().values()):8.2f}")
    for name, note in ANCHORS.items():
        line(f"  {name}: {note}")
    line(f"({result.seconds:.0f} s)")


def run(as_json: bool = False) -> Result:
    out = sys.stderr if as_json else sys.stdout
    started = time.perf_counter()

    def log(text: str) -> None:
        print(text, file=out, flush=True)

    import warnings

    warnings.filterwarnings("ignore", message="No application metrics to publish")
    runtime, mock = start_in_process()
    peers = Peers()
    instance = None
    try:
        log("Cost bench: building the instance…")
        instance = Instance(runtime, peers, log).build()
        log("Measuring the mix…")
        kinds, _ = measure(instance, log)
        result = price(kinds, Deployment.of(runtime.stack.template),
                       time.perf_counter() - started)
    finally:
        if instance is not None:
            instance.close()
        peers.close()
        mock.stop()
    report(result, out)
    return result


def cli(args: list[str]) -> int:
    """`python -m bench cost [--json]`."""
    if any(a != "--json" for a in args):
        print("usage: python -m bench cost [--json]", file=sys.stderr)
        return 2
    as_json = "--json" in args
    if not as_json:
        run()
        return 0
    from .output import stdout_to_stderr

    with stdout_to_stderr():
        result = run(as_json=True)
    print(json.dumps(result.as_json()))
    return 0
