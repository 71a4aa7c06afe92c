"""`python -m bench reads [--json]` (and part of `make bench`): sequential DynamoDB round
trips and calls of every read page issue #22 names, at 20 and 40 items, on a realistic fixture.

The fixture is written through the product's own use cases (and, for link cards, the card
repository's verbs, so that no page is fetched from the network), then the pipeline is drained
so feeds, lists, notifications and counters exist: a viewer following 40 authors who post (with
media attachments, polls, link cards, custom emoji, hashtags and mentions of the viewer), boost,
reply and like; a list of 20 of them; a thread of 400 replies; notifications of mixed types
(mentions, likes, boosts, follows, new posts of accounts the viewer asked to be told about).

Each request goes through the local API Gateway with the viewer's token: one warm-up, then one
measured request. Every DynamoDB call is timed on the process's shared boto3 client (botocore's
`before-call`/`after-call` events). *Rounds* are the sequential round trips: the longest chain
of calls each started after the one before it ended (`chain()`), so calls made in parallel
count once and calls made one after another once each. The call log printed for each page
groups the calls by overlap (`rounds()`: a call started before every call of the group so far
had finished joins it), which shows what ran together. While measuring, every call is held
back `NETWORK_SECONDS` before it is sent, as a network would: without it, the emulator's
few-millisecond answers race the Python work between steps, and the chain would depend on
scheduling luck. Only the measured request's own calls count (those made in its context and
in the tasks it starts and waits for): a background refresh (a kept viewer or role table
renewed ahead of expiry, auth/identity.py, core/warm.py: `parallel.detached`) is no round
trip of any request.

With `--json`, stdout carries exactly one JSON object:
`{"<METHOD> <path> <n items>": {"rounds": R, "calls": C}, ...}` (everything else goes to stderr).
Endpoints that are not pages (verify_credentials, the instance document) are keyed with n = 1,
the thread's context with n = its 400 replies.
"""

from __future__ import annotations

import contextvars
import io
import json
import sys
import threading
import time
from typing import Any

from .output import on_stack
from .timelines import _what

AUTHORS = 40
POSTS_PER_AUTHOR = 3  # 120 posts by followed accounts, plus boosts and the thread's replies
THREAD_REPLIES = 400
LIST_MEMBERS = 20
SIZES = (20, 40)
# Each measured call waits this long before it is sent, as if the network were between the
# function and DynamoDB: the emulator answers in a few milliseconds, no slower than the Python
# work between two steps of a page, so two independent calls could otherwise end up one after
# the other by chance and look like two round trips (or overlap by chance and look like one).
NETWORK_SECONDS = 0.1
PREFIX = "rd"  # usernames of this bench (the default `make bench` run shares one stack)


# --- rounds -------------------------------------------------------------------------------------
def rounds(spans: list[tuple[float, float]]) -> list[list[int]]:
    """Group calls, given as (start, end) times, into rounds: in order of start, a call that
    starts before the calls of the current round have all finished joins it (they overlap:
    they were in flight together); one that starts after begins the next round. Returns the
    indices of `spans` in each round."""
    grouped: list[list[int]] = []
    round_end = float("-inf")
    for index in sorted(range(len(spans)), key=lambda i: spans[i]):
        start, end = spans[index]
        if grouped and start < round_end:
            grouped[-1].append(index)
            round_end = max(round_end, end)
        else:
            grouped.append([index])
            round_end = end
    return grouped


def chain(spans: list[tuple[float, float]]) -> int:
    """Sequential round trips: the longest chain of calls, given as (start, end) times, each
    starting after the one before it ended. Calls in flight together never chain; a call that
    ran beside others of a later step (a read started early and needed late) does not merge
    two steps into one, as grouping by overlap alone would."""
    return len(chain_of(spans))


def chain_of(spans: list[tuple[float, float]]) -> list[int]:
    """The indices of `spans` in one longest chain (`chain`), in order."""
    best: dict[int, list[int]] = {}
    for index in sorted(range(len(spans)), key=lambda i: spans[i]):
        before = [best[j] for j in best if spans[j][1] <= spans[index][0]]
        best[index] = [*max(before, key=len, default=[]), index]
    return max(best.values(), key=len, default=[])


# Which measured request the current context belongs to (0: none).
_measured: contextvars.ContextVar[int] = contextvars.ContextVar("bench_reads_measured",
                                                                default=0)


class Timed:
    """Every DynamoDB call on the shared client while recording: operation, what it touched,
    start and end (`time.perf_counter()`), from any thread."""

    def __init__(self) -> None:
        from stratus.repo.client import dynamodb

        self.lock = threading.Lock()
        self.calls: list[dict[str, Any]] = []
        self.measuring = 0
        self.client = dynamodb()
        events = self.client.meta.events
        events.register("before-parameter-build.dynamodb", self._params,
                        unique_id="bench-reads-params")
        events.register("before-call.dynamodb", self._before, unique_id="bench-reads-before")
        events.register("after-call.dynamodb", self._after, unique_id="bench-reads-after")
        events.register("after-call-error.dynamodb", self._after,
                        unique_id="bench-reads-error")

    def _params(self, params: Any = None, context: Any = None, **_: Any) -> None:
        if isinstance(context, dict):  # the call's own parameters (before-call has the request)
            context["bench_reads_what"] = _what(params or {})

    def _before(self, model: Any = None, context: Any = None, **_: Any) -> None:
        from stratus.core import parallel

        if _measured.get() != self.measuring or parallel.is_detached():
            return  # another request's, or background work nobody waits for
        what = context.get("bench_reads_what", "") if isinstance(context, dict) else ""
        call = {"operation": model.name, "what": what,
                "start": time.perf_counter(), "end": None}
        if isinstance(context, dict):
            context["bench_reads_call"] = call
        with self.lock:
            self.calls.append(call)
        time.sleep(NETWORK_SECONDS)

    def _after(self, context: Any = None, **_: Any) -> None:
        call = context.get("bench_reads_call") if isinstance(context, dict) else None
        if call is not None:
            call["end"] = time.perf_counter()

    def reset(self) -> int:
        """Forget the calls so far and record those of the next request: the calls made in
        the context the caller runs it in (`_measured` set to the number returned), and in
        the tasks that request hands to other threads (they run in copies of its context)."""
        with self.lock:
            self.calls = []
            self.measuring += 1
            return self.measuring

    def measured(self) -> tuple[int, list[list[int]], list[dict[str, Any]]]:
        """(sequential round trips, the calls grouped by overlap, the calls) of what was
        recorded since the last reset."""
        with self.lock:
            calls = list(self.calls)
        now = time.perf_counter()
        spans = [(c["start"], c["end"] if c["end"] is not None else now) for c in calls]
        return chain(spans), rounds(spans), calls

    def close(self) -> None:
        events = self.client.meta.events
        events.unregister("before-parameter-build.dynamodb", unique_id="bench-reads-params")
        events.unregister("before-call.dynamodb", unique_id="bench-reads-before")
        events.unregister("after-call.dynamodb", unique_id="bench-reads-after")
        events.unregister("after-call-error.dynamodb", unique_id="bench-reads-error")


# --- the fixture --------------------------------------------------------------------------------
class Fixture:
    """Who and what the measured requests read (ids and the viewer's token)."""

    viewer_id: str
    token: str
    list_id: str
    author_id: str  # an author with posts, boosts and replies of its own
    thread_id: str
    tag: str = f"{PREFIX}bench"
    query: str = f"{PREFIX}author"  # finds accounts (their names) and statuses (their text:
    # the viewer's likes, mentions and own posts are what its full-text search may find)


def _person(app: dict[str, Any], name: str) -> tuple[str, str, Any]:
    from stratus.api.accounts import operator
    from stratus.api.oauth import oauth
    from stratus.auth import identity
    from stratus.repo import oauth as oauth_repo

    account_id, _ = operator.operator_create(name, f"{name}@example.org", "bench password",
                                             role=None, confirmed=True)
    token, raw = oauth.new_token(app, account_id, ["read", "write", "follow"])
    oauth_repo.put_token(token)
    return account_id, raw, identity.viewer_for_token(raw)


def _get(runtime: Any, path: str, query: str, token: str) -> tuple[int, Any]:
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "client": ("127.0.0.1", 1),
             "headers": [(b"host", b"localhost:8000"),
                         (b"authorization", f"Bearer {token}".encode())]}
    status, _, body = runtime.gateway.handle(scope, b"")
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


def _image(shade: int) -> Any:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 48), (shade % 256, 90, 160)).save(out, "PNG")
    out.seek(0)
    return out


def build(runtime: Any, log: Any = print) -> Fixture:
    from types import SimpleNamespace

    from stratus.api.accounts import accounts
    from stratus.api.graph import follows
    from stratus.api.instance import emojis
    from stratus.api.lists import lists
    from stratus.api.media import media
    from stratus.api.oauth import oauth
    from stratus.api.statuses import interactions
    from stratus.api.statuses import post as posting
    from stratus.api.statuses import polls
    from stratus.core import clock
    from stratus.core.config import settings
    from stratus.repo import cards
    from stratus.text.links import card_link

    started = time.perf_counter()
    fixture = Fixture()
    app, _ = oauth.create_app(f"{PREFIX} bench", "urn:ietf:wg:oauth:2.0:oob",
                              "read write follow", None)
    fixture.viewer_id, fixture.token, viewer = _person(app, f"{PREFIX}viewer")
    viewer_name = f"{PREFIX}viewer"
    for i in range(4):
        try:
            emojis.import_emoji(f"{PREFIX}blob{i}", _image(40 * i).getvalue())
        except Exception:  # noqa: BLE001 - already there from an earlier run on this stack
            pass
    # The viewer's home and list feeds are active (a reader has opened them lately).
    _get(runtime, "/api/v1/timelines/home", "", fixture.token)
    fixture.list_id = lists.create(viewer, {"title": "bench authors"})["id"]
    _get(runtime, f"/api/v1/timelines/list/{fixture.list_id}", "", fixture.token)
    authors = []
    for i in range(AUTHORS):
        account_id, raw, who = _person(app, f"{PREFIX}author{i}")
        if i % 4 == 0:  # custom emoji in names (the account's emojis)
            accounts.update_credentials(who, {"display_name": f":{PREFIX}blob{i % 4}: "
                                                              f"Author {i}",
                                              "note": f"I write about #{fixture.tag}"})
        follows.follow(viewer, account_id, {"notify": "true"} if i < 5 else {})
        if i % 2 == 0:  # follow back: a follow notification for the viewer
            follows.follow(who, fixture.viewer_id, {})
        authors.append((account_id, raw, who))
    lists.add(viewer, fixture.list_id, [a[0] for a in authors[:LIST_MEMBERS]])
    fixture.author_id = authors[1][0]
    runtime.pipeline.drain()
    log(f"  accounts, follows, list: {time.perf_counter() - started:.0f} s")

    # The viewer's own posts, which the authors like, boost and answer.
    own = [posting.create(viewer, {"status": f"viewer's note {i} #{fixture.tag}"})
           for i in range(12)]
    domain = settings().domain
    posted: list[str] = []
    # Each author posts POSTS_PER_AUTHOR statuses; author 1 (whose statuses are measured)
    # thirty more, of every kind.
    plan = [(i, j) for j in range(POSTS_PER_AUTHOR) for i in range(AUTHORS)] + \
        [(1, j) for j in range(POSTS_PER_AUTHOR, POSTS_PER_AUTHOR + 30)]
    for i, j in plan:
        account_id, _raw, who = authors[i]
        kind = (i + j) % 6
        params: dict[str, Any] = {"status": f"{PREFIX}author {i} says: post {j} "
                                            f"#{fixture.tag} :{PREFIX}blob{(i + j) % 4}:"}
        if kind == 0:  # media attachments
            ids = [media.upload(who, SimpleNamespace(file=_image(i * 7 + j + k)),
                                f"picture {k}", None)[0]["id"] for k in range(2)]
            params["media_ids"] = ids
        elif kind == 1:  # a poll
            params["poll"] = {"options": ["tea", "coffee", "water"], "expires_in": 86400}
        elif kind == 2:  # a link card (written as the card worker would have made it)
            url = f"https://news.example/{PREFIX}/story-{i}-{j}"
            params["status"] += f" read {url}"
            link = card_link(params["status"], domain) or url
            cards.put(link, {"title": f"Story {i}-{j}", "description": "What happened",
                             "type": "link", "link_type": "article",
                             "provider_name": "The Example", "canonical_url": link,
                             "fetched_at": clock.iso(clock.now())})
        elif kind == 3:  # a mention of the viewer
            params["status"] = f"@{viewer_name} " + params["status"]
        elif kind == 4:  # a reply to the viewer
            params["in_reply_to_id"] = own[(i + j) % len(own)]
            params["status"] = f"@{viewer_name} " + params["status"]
        status_id = posting.create(who, params)
        posted.append(status_id)
    for n, (account_id, _raw, who) in enumerate(authors):
        interactions.favourite(who, own[n % len(own)])
        interactions.favourite(who, posted[(n * 7) % len(posted)])
        if n % 3 == 0:
            interactions.reblog(who, own[(n + 1) % len(own)], None)
        if n % 2 == 0:  # boosts of each other's posts reach the viewer's home
            interactions.reblog(who, posted[(n * 5 + 3) % len(posted)], None)
    for n in range(0, len(posted), 4):  # the viewer liked some (its search finds them)
        interactions.favourite(viewer, posted[n])
    runtime.pipeline.drain()
    log(f"  {len(posted)} posts, boosts, likes: {time.perf_counter() - started:.0f} s")
    _votes(viewer, posted, polls)

    # A thread of 400 replies by the authors: half answer the root, half the reply before.
    root = posting.create(authors[1][2], {"status": f"a long thread #{fixture.tag}"})
    fixture.thread_id = root
    parent = root
    for r in range(THREAD_REPLIES):
        who = authors[(r * 3) % AUTHORS][2]
        target = root if r % 2 == 0 else parent
        parent = posting.create(who, {"status": f"reply {r} in the thread", "in_reply_to_id":
                                      target})
        if r % 50 == 0:
            runtime.pipeline.drain()
    runtime.pipeline.drain(max_rounds=10_000)
    log(f"  thread of {THREAD_REPLIES} replies: {time.perf_counter() - started:.0f} s")
    return fixture


def _votes(viewer: Any, posted: list[str], polls: Any) -> None:
    """The viewer votes on some polls (its own_votes show on the page)."""
    from stratus.read import statuses as statuses_read

    for status_id in posted[1::12]:
        status = statuses_read.show(None, status_id)
        poll = status.get("poll") if status else None
        if poll:
            try:
                polls.vote(viewer, poll["id"], ["0"])
            except Exception:  # noqa: BLE001 - a vote the rules refuse is no matter here
                pass


# --- the requests -------------------------------------------------------------------------------
def cases(fixture: Fixture) -> list[tuple[str, str, str, int]]:
    """(label path, path, query, n) of every measured request."""
    out = []
    pages = [
        ("/api/v1/timelines/home", "/api/v1/timelines/home", ""),
        ("/api/v1/timelines/list/:id", f"/api/v1/timelines/list/{fixture.list_id}", ""),
        ("/api/v1/timelines/public?local=true", "/api/v1/timelines/public", "local=true"),
        ("/api/v1/timelines/public", "/api/v1/timelines/public", ""),
        ("/api/v1/timelines/tag/:tag", f"/api/v1/timelines/tag/{fixture.tag}", ""),
        ("/api/v1/accounts/:id/statuses", f"/api/v1/accounts/{fixture.author_id}/statuses", ""),
        ("/api/v1/notifications", "/api/v1/notifications", ""),
        ("/api/v2/notifications", "/api/v2/notifications", ""),
        ("/api/v2/search", "/api/v2/search", f"q={fixture.query}"),
    ]
    for label, path, query in pages:
        for n in SIZES:
            out.append((label, path, "&".join(q for q in (query, f"limit={n}") if q), n))
    out.append(("/api/v1/statuses/:id/context", f"/api/v1/statuses/{fixture.thread_id}/context",
                "", THREAD_REPLIES))
    out.append(("/api/v1/accounts/verify_credentials", "/api/v1/accounts/verify_credentials",
                "", 1))
    out.append(("/api/v2/instance", "/api/v2/instance", "", 1))
    return out


def _items(body: Any) -> int:
    if isinstance(body, list):
        return len(body)
    if isinstance(body, dict):
        if "notification_groups" in body:
            return len(body["notification_groups"])
        if "descendants" in body:
            return len(body["descendants"])
        if "statuses" in body and "accounts" in body:
            return len(body["statuses"]) + len(body["accounts"])
    return 1


def measure(runtime: Any, fixture: Fixture) -> tuple[dict[str, dict[str, int]],
                                                     dict[str, list[str]], dict[str, int]]:
    """({key: {rounds, calls}}, {key: the call log by round}, {key: items returned})."""
    timed = Timed()
    results: dict[str, dict[str, int]] = {}
    logs: dict[str, list[str]] = {}
    returned: dict[str, int] = {}
    try:
        for label, path, query, n in cases(fixture):
            key = f"GET {label} {n}"
            _get(runtime, path, query, fixture.token)  # warm-up
            measuring = _measured.set(timed.reset())
            try:
                status, body = _get(runtime, path, query, fixture.token)
            finally:
                _measured.reset(measuring)
            sequential, grouped, calls = timed.measured()
            if status != 200:
                raise RuntimeError(f"{key}: HTTP {status}: {str(body)[:300]}")
            results[key] = {"rounds": sequential, "calls": len(calls)}
            returned[key] = _items(body)
            logs[key] = [f"{r + 1:3}. " + " ‖ ".join(f"{calls[i]['operation']} {calls[i]['what']}"
                                                       for i in members)
                         for r, members in enumerate(grouped)]
            if sequential > 3:  # what made it wait: the calls one after another
                spans = [(c["start"], c["end"] or c["start"]) for c in calls]
                logs[key].append("  one after another: " + " → ".join(
                    f"{calls[i]['operation']} {calls[i]['what']}" for i in chain_of(spans)))
    finally:
        timed.close()
    return results, logs, returned


def _table(results: dict[str, dict[str, int]], returned: dict[str, int], out: Any) -> None:
    print(f"{'request':52} {'items':>6} {'rounds':>7} {'calls':>6}", file=out)
    for key, value in results.items():
        print(f"{key:52} {returned[key]:6} {value['rounds']:7} {value['calls']:6}", file=out)
    over = [k for k, v in results.items() if v["rounds"] > 3]
    print(f"{len(over)} of {len(results)} requests take more than 3 rounds", file=out)


def _fixture(runtime: Any, saved: str | None, log: Any) -> Fixture:
    """The fixture: built, or loaded from `saved` (a snapshot of the stack's data and the
    fixture's ids, written there by an earlier run) when it exists."""
    from pathlib import Path

    from local import snapshot

    if saved is None:
        return build(runtime, log=log)
    data, ids = Path(saved), Path(saved + ".ids.json")
    if data.exists() and ids.exists():
        snapshot.restore(runtime.stack, data, runtime.pipeline)
        fixture = Fixture()
        fixture.__dict__.update(json.loads(ids.read_text()))
        log(f"  fixture loaded from {saved}")
        return fixture
    fixture = build(runtime, log=log)
    snapshot.save(runtime.stack, data, runtime.pipeline)
    ids.write_text(json.dumps(fixture.__dict__))
    return fixture


def run(runtime: Any, as_json: bool = False, out: Any = None,
        saved: str | None = None) -> dict[str, dict[str, int]]:
    """Build the fixture (or load it from `saved`), measure, print (a table and each page's
    calls by round; with `as_json` these go to stderr and the caller prints the JSON
    object)."""
    out = out or (sys.stderr if as_json else sys.stdout)
    print(f"\nRead rounds (issue #22): a viewer following {AUTHORS} authors, "
          f"{AUTHORS * POSTS_PER_AUTHOR} posts with media, polls, cards, emoji, mentions, "
          f"boosts; a thread of {THREAD_REPLIES} replies. Building the fixture…",
          file=out, flush=True)
    fixture = _fixture(runtime, saved, lambda line: print(line, file=out, flush=True))
    results, logs, returned = measure(runtime, fixture)
    _table(results, returned, out)
    for key, lines in logs.items():
        if key.endswith(f" {SIZES[0]}") or not any(key.endswith(f" {n}") for n in SIZES):
            print(f"\n{key}: calls by round", file=out)
            print("\n".join(lines), file=out)
    print("", file=out, flush=True)
    return results


def cli(args: list[str], start_stack: Any) -> int:
    """`python -m bench reads [--json] [--fixture PATH]` (`--fixture`: keep the built
    fixture in PATH and load it from there next time, for iterating on the read path)."""
    as_json = "--json" in args
    rest = [a for a in args if a != "--json"]
    fixture_path = None
    if len(rest) == 2 and rest[0] == "--fixture":
        fixture_path = rest[1]
    elif rest:
        print("usage: python -m bench reads [--json] [--fixture PATH]", file=sys.stderr)
        return 2
    return on_stack(start_stack, lambda runtime: run(runtime, as_json=as_json,
                                                     saved=fixture_path), as_json)
