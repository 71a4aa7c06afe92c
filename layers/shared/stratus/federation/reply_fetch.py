"""The replies of a remote thread, fetched from their servers when a user reads it
(Mastodon 4.5's ActivityPub::FetchAllRepliesWorker and FetchAllRepliesService, started by
`GET /api/v1/statuses/:id/context`: api/statuses/context.py).

From the root status, its `replies` collection is walked, then each reply's own, depth first:
a collection's pages are read only on the host of the status they belong to (Mastodon's
`non_matching_uri_hosts?`: a peer cannot make us crawl a third server's collections), and each
reply is fetched by its id (federation/http.fetch_object: believed only where it names itself)
and stored with its author, as any remote status. Bounded as Mastodon bounds it — 1,000
statuses and 500 collection pages in all — and by the job's budget: a job that runs out hands
what is left to a copy of itself (at most MAX_PARTS jobs a refresh). Each status stored counts
one result of the refresh; the refresh is finished when the walk ends."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from stratus.core import outbound
from stratus.core.observability import logger
from stratus.federation import http
from stratus.federation import remote_statuses
from stratus.federation.actor_documents import as_list, host_of, uri_of
from stratus.jobs import messages as jobs
from stratus.repo import async_refreshes, queues
from stratus.repo import statuses as statuses_repo

MAX_STATUSES = 1000  # FetchAllRepliesWorker::MAX_REPLIES
MAX_PAGES = 500  # FetchAllRepliesWorker::MAX_PAGES
MAX_PENDING = 1000  # steps a job carries on (its message stays well under 256 KB)
MAX_PARTS = 50  # jobs one refresh may take
TRIES = 2  # a step whose server timed out is tried this many times
# What a step may need: a status, its author's actor and WebFinger answer, and a little time
# (a slower step is cut by the budget, and taken again by the next job).
STEP_REQUESTS = 4
STEP_SECONDS = 2.0


def _job_budget() -> outbound.Budget | None:
    """The budget the job runs in (the one a nested budget spends from)."""
    with outbound.budget(STEP_SECONDS) as probe:
        return probe.parent


def _room(budget: outbound.Budget | None, requests: int = STEP_REQUESTS) -> bool:
    """Whether the job's budget still has a step's requests and time."""
    each = budget
    while each is not None:
        if each.requests is not None and each.requests - each.made < requests:
            return False
        each = each.parent
    try:
        return budget is None or budget.left() >= STEP_SECONDS
    except outbound.OverBudget:
        return False


def _digest(uri: str) -> str:
    return hashlib.sha256(uri.encode()).hexdigest()[:16]


def _items(page: dict[str, Any]) -> list[Any]:
    kind = page.get("type")
    found = page.get("orderedItems") if kind in ("OrderedCollection", "OrderedCollectionPage") \
        else page.get("items")
    return as_list(found)


class _Walk:
    def __init__(self, job: jobs.FetchReplies) -> None:
        self.job = job
        self.pending: list[dict[str, Any]] = list(job.pending or [])
        self.seen = set(job.seen)
        self.pages, self.walked, self.found = job.pages, job.walked, 0

    def status(self, step: dict[str, Any]) -> None:
        """A status whose replies to walk: fetched (stored if new), its collection queued."""
        uri = step["of"]
        _, obj, stored = remote_statuses.fetch(uri)
        self.found += int(stored)
        if obj is not None:
            self.collection(obj.get("replies"), uri)

    def collection(self, value: Any, of: str) -> None:
        """A replies collection or page, inline or by URL: its items queued, its next page or
        its first page (read on the status's own host only)."""
        if isinstance(value, str):
            if host_of(value) and host_of(value) == host_of(of):
                self.pending.append({"collection": value, "of": of})
            return
        if not isinstance(value, dict):
            return
        first = value.get("first")
        if first is not None and value.get("type") in ("Collection", "OrderedCollection"):
            self.collection(first, of)
        if isinstance(value.get("next"), str):
            self.collection(value["next"], of)
        for item in reversed(_items(value)):  # depth first, in the collection's order
            uri = uri_of(item)
            if uri and _digest(uri) not in self.seen and self.walked < MAX_STATUSES:
                self.seen.add(_digest(uri))
                self.walked += 1
                self.pending.append({"of": uri})

    def page(self, step: dict[str, Any]) -> None:
        if self.pages >= MAX_PAGES:
            return
        self.pages += 1
        self.collection(http.fetch_object(step["collection"]), step["of"])

    def run(self) -> bool:
        """Walk until done (True) or out of budget (False: the rest goes on). A step the
        budget ran out in (its author not fetched, say) is taken again by the next job; one
        whose server timed out is tried TRIES times."""
        budget = _job_budget()
        while self.pending:
            if not _room(budget, STEP_REQUESTS if "of" in self.pending[-1] else 1):
                return False
            step = self.pending.pop()
            try:
                (self.page if "collection" in step else self.status)(step)
            except outbound.TimedOut:
                tries = int(step.get("tries", 0)) + (0 if not _room(budget, 1) else 1)
                if tries < TRIES:
                    self.pending.append({**step, "tries": tries})
                if not _room(budget, 1):
                    return False
            except outbound.Refused as refused:
                logger.info("a reply could not be fetched", extra={
                    "step": step, "reason": str(refused)[:200]})
        return True


def run(job: jobs.FetchReplies) -> None:
    walk = _Walk(job)
    if job.pending is None:  # the root first: its replies collection is read from it
        root = statuses_repo.get(job.status_id)
        if root is None or root.get("local", True) is not False or not root.get("uri"):
            async_refreshes.finish(job.refresh)
            return
        walk.seen.add(_digest(root["uri"]))
        walk.pending.append({"of": root["uri"]})
    done = walk.run()
    async_refreshes.counted(job.refresh, walk.found)
    if done or job.part + 1 >= MAX_PARTS:
        async_refreshes.finish(job.refresh)
        return
    queues.send("inbox", [replace(job, pending=walk.pending[-MAX_PENDING:],
                                  seen=sorted(walk.seen), pages=walk.pages,
                                  walked=walk.walked, part=job.part + 1).to_dict()])
