"""The mix `python -m bench cost` measures (bench/cost.py), and how it measures it.

**The mix** (`CLIENT_MIX`, `INBOUND_MIX`): what a Mastodon client sends, per 100 requests (the
writes weighed by the profile's counts per MAU a month: bench/profile.py), and what other servers
send (deliveries to the shared inbox, ActivityPub and WebFinger GETs; weighed per instance size
by the profile's inbound counts, `Kind.key`). Posts are sent by 14 regular members, one from
each pair of neighbouring follower quantiles, and by each big one; the big ones weighed as their
share of posters (`big_share()`: the lognormal's tail above 10,000).

**Quiet** (`measure(..., busy=1)`): each kind is sent `samples` times in a seeded order, each
followed by a drain of the pipeline: every Lambda invocation the request causes (the HTTP
function, then the stream's dispatch, the queues' workers, fan-out, federation, deliveries,
pushes, WebSocket messages) is charged to it (costs.Recorder), one request's records to a
stream batch, SQS batch or asynchronous invocation: an instance with less than a request a
second. **Busy** (`busy=k`): each kind's requests are sent k at a time, the pipeline drained
after each k, with the stream's records batched per shard as Lambda's DynamoDB stream mapping
batches them (bench/busy.py): k requests in the mapping's batching window share its batches, an
SQS batch or an asynchronous invocation carries the jobs of several. A kind's cost is the mean
over its requests; the mix's, the weighted mean. With `scan`, each writing kind's requests are
bracketed by a measure of what the tables hold (bench/storage.py): the bytes they store.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from local import emulator

from . import costs, profile
from . import instance as fixture
from .costs import Invocation, Recorder
from .instance import DOMAIN, TAGS, TEXT, Instance, Member, _jpeg, _multipart, big_share
from .profile import INPUTS


@dataclass(frozen=True)
class Kind:
    label: str
    weight: float  # per 100 requests of its class (inbound: at the 10,000-MAU instance)
    samples: int
    send: Callable[[Instance, int], Any]  # (instance, sample index) -> HTTP status(es)
    key: str | None = None  # inbound: the profile's count it is weighed by (profile.inbound)
    busy: bool = True  # sent k at a time in busy mode (False: its samples, once, together)


def _status_of(instance: Instance) -> str:
    return instance.rng.choice(instance.rng.choice(instance.members).statuses)


def _post(big: bool) -> Callable[[Instance, int], int]:
    """A post by a big account (each in turn), or by a regular one: the regular members sorted
    by followers, sample i takes one of the pair of quantiles 2j, 2j + 1 (alternately the lower
    and the upper), j = 3i mod the pairs: REGULAR_MEMBERS / 2 samples stand for the whole
    distribution, and further ones (busy mode) repeat pairs spread over it."""
    def send(instance: Instance, i: int) -> int:
        if big:
            authors = instance.members[fixture.REGULAR_MEMBERS:]
            member = authors[i % len(authors)]
        else:
            authors = sorted(instance.members[:fixture.REGULAR_MEMBERS],
                             key=lambda m: m.followers)
            pairs = max(len(authors) // 2, 1)
            pair = (3 * i) % pairs if pairs % 3 else i % pairs
            member = authors[(2 * pair + i % 2) % len(authors)]
        instance.receivers = member.receivers
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
    member, other = instance.rng.sample(instance.members[:fixture.REGULAR_MEMBERS], 2)
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
REGULAR_POST = "POST /api/v1/statuses (author < 10k followers)"
INBOUND_CREATE = "POST /inbox Create (a followed account's note)"
SIGN_UP = "POST /api/v1/accounts (sign-up, e-mail)"


def _per_100(action: str) -> float:
    """A write's weight per 100 client requests, from its count per MAU a month."""
    return 100 * INPUTS.actions[action] / INPUTS.client_requests


def _list_timeline(instance: Instance, i: int) -> int:
    member = instance.member()
    return instance.request("GET", f"/api/v1/timelines/list/{member.list_id}", member)[0]


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
    Kind("GET /api/v1/timelines/list/:id", 1, 2, _list_timeline),
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
    Kind(REGULAR_POST, _per_100("posts") * (1 - big_share()), 14, _post(big=False)),
    # 10k-follower posts and sign-ups are rare and slow: in busy mode, their samples once.
    Kind(BIG_POST, _per_100("posts") * big_share(), 2, _post(big=True), busy=False),
    Kind("POST /api/v1/statuses (reply, mention)", _per_100("replies"), 4, _reply),
    Kind("POST /api/v2/media (a 1280x960 photo)", _per_100("media"), 2, _media),
    Kind("POST /api/v1/accounts/:id/follow", _per_100("follows"), 4, _follow),
    Kind(SIGN_UP, _per_100("sign-ups"), 1, _signup, busy=False),
]


def _inbound_weight(key: str) -> float:
    """An inbound kind's weight per 100 requests from other servers at the 10,000-MAU
    instance (the weights are the profile's, size by size, when priced)."""
    counts = profile.at(10_000).inbound
    return 100 * counts[key] / sum(counts.values())


INBOUND_MIX = [
    Kind(INBOUND_CREATE, _inbound_weight("create"), 12, _inbound("Create"), "create"),
    Kind("POST /inbox Announce (of a local status)", _inbound_weight("announce"), 3,
         _inbound("Announce"), "announce"),
    Kind("POST /inbox Like (of a local status)", _inbound_weight("like"), 4, _inbound("Like"),
         "like"),
    Kind("POST /inbox Delete (of a note)", _inbound_weight("delete"), 3, _inbound("Delete"),
         "delete"),
    Kind("POST /inbox Update (an edit)", _inbound_weight("update"), 2, _inbound("Update"),
         "update"),
    Kind("POST /inbox Follow", _inbound_weight("follow"), 2, _inbound("Follow"), "follow"),
    Kind("GET /users/:name, /.well-known/webfinger", _inbound_weight("get"), 4,
         _activitypub_get, "get"),
]
CONNECT = "WebSocket $connect + $disconnect"


# ------------------------------------------------------------------------------------ measuring
@dataclass
class Measured:
    """What the requests of one kind caused."""

    samples: int = 0
    invocations: list[Invocation] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)  # SQS, e-mails, S3, messages, ...
    unreported_read: float = 0.0  # DynamoDB units charged but in no response (failed conditions)
    unreported_write: float = 0.0
    statuses: Counter[Any] = field(default_factory=Counter)
    seconds: float = 0.0
    receivers: float = 0.0  # local receivers of the statuses sent, summed over the samples
    groups: int = 0  # drains (busy mode: samples / k)
    stored: dict[tuple[str, int], float] = field(default_factory=dict)  # bytes (storage.scan)

    @property
    def mean_receivers(self) -> float:
        return self.receivers / self.samples if self.samples else 0.0


def sample(instance: Instance, recorder: Recorder, kind: Kind, indices: list[int],
           measured: Measured) -> None:
    """Requests of `kind` one after another, then a drain: everything they cause, charged to
    the kind."""
    _, unreported = emulator.CONSUMED.snapshot()
    recorder.cause = kind.label
    started = time.perf_counter()
    answers = []
    try:
        for i in indices:
            recorder.label = kind.label
            instance.receivers = 0
            answers.append(kind.send(instance, i))
            measured.receivers += instance.receivers
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
    measured.samples += len(indices)
    measured.groups += 1
    for answer in answers:
        measured.statuses[answer] += 1


def groups(kind: Kind, busy: int) -> list[list[int]]:
    """A kind's sample indices as the drains take them: one each when quiet; k at a time when
    busy, its samples rounded up to a multiple of k (a kind that is not sent in busy mode: its
    samples, together)."""
    if busy <= 1:
        return [[i] for i in range(kind.samples)]
    if not kind.busy:
        return [list(range(kind.samples))]
    count = busy * math.ceil(kind.samples / busy)
    return [list(range(start, start + busy)) for start in range(0, count, busy)]


def writes(kind: Kind) -> bool:
    """Whether a kind's requests may store anything (what the storage line measures)."""
    return kind.label.startswith("POST")


def warm(instance: Instance, kinds: list[Kind]) -> None:
    """Every kind once unmeasured (warm functions and caches: INIT is priced apart). The
    sign-up is sampled once and warms on its sample; a big account's post warms nothing a
    regular post does not."""
    for kind in kinds:
        if kind.samples > 1 and kind.label != BIG_POST:
            kind.send(instance, 10_000)
    instance.drain()


def measure(instance: Instance, log: Callable[[str], None], *, busy: int = 1,
            scan: Callable[[], dict[tuple[str, int], float]] | None = None,
            kinds: list[Kind] | None = None, shuffle: bool | None = None,
            connects: bool = True) -> tuple[dict[str, Measured], Recorder]:
    """The mix's kinds (module docstring): quiet, single requests in a seeded order (`shuffle`,
    the default when quiet); busy, kind after kind, k requests a drain; then the WebSocket
    reconnections. With `scan` and kinds sent one after another, each writing kind's requests
    are bracketed by two scans (`Measured.stored`)."""
    kinds = kinds if kinds is not None else CLIENT_MIX + INBOUND_MIX
    order = [(kind, group) for kind in kinds for group in groups(kind, busy)]
    if busy <= 1 if shuffle is None else shuffle:
        instance.rng.shuffle(order)
        scan = None  # kinds interleave: nothing to bracket
    found: dict[str, Measured] = {kind.label: Measured() for kind in kinds}
    found[CONNECT] = Measured()
    recorder = Recorder(instance.runtime)
    started = time.perf_counter()
    before: dict[tuple[str, int], float] | None = None  # the last scan, if nothing ran since
    with recorder:
        for n, (kind, group) in enumerate(order):
            scanned = scan is not None and writes(kind)
            if scanned and before is None:
                before = scan()
            elif not scanned:
                before = None
            sample(instance, recorder, kind, group, found[kind.label])
            if scanned and (n + 1 == len(order) or order[n + 1][0] is not kind):
                after = scan()
                found[kind.label].stored = difference(after, before or {})
                before = after  # the next writing kind starts from here
            if (n + 1) % 40 == 0:
                log(f"  {n + 1} of {len(order)} drains ({time.perf_counter() - started:.0f} s)")
        if connects:
            _connects(instance, recorder, found[CONNECT])
    for invocation in recorder.invocations:
        found[invocation.cause or CONNECT].invocations.append(invocation)
    for label, counts in recorder.by_cause.items():
        found[label or CONNECT].counts.update(counts)
    return found, recorder


def difference(after: dict[tuple[str, int], float], before: dict[tuple[str, int], float]
               ) -> dict[tuple[str, int], float]:
    """What a scan holds more than an earlier one, by store and lifetime (negative: less)."""
    keys = set(after) | set(before)
    return {k: after.get(k, 0.0) - before.get(k, 0.0) for k in keys
            if after.get(k, 0.0) != before.get(k, 0.0)}


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
