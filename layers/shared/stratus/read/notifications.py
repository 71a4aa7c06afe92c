"""Notification entities for their recipient: what the notification lists (v1, grouped, the
requests) and the stream worker render.

A notification about a status the viewer may no longer see is dropped after one batched read
of the statuses; the statuses render through `status_views.render` and the senders through
`status_views.load_accounts`, so a page renders with a constant number of batched reads. With
the viewer's filters for notifications (`Shown`, compiled once per request), a notification
whose status a `hide` filter removes is dropped too. An `admin.report` notification carries
its Report entity (its subject), and goes when the report is gone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stratus.convert import notifications as convert
from stratus.convert import reports as convert_reports
from stratus.core import parallel
from stratus.policy import visibility
from stratus.read import filters, relationships, status_views
from stratus.repo import reports as reports_repo


def status_id_of(item: dict[str, Any]) -> str | None:
    """The status a notification is about, if its type has one."""
    return item.get("status_id") if item.get("notification_type") in convert.STATUS_TYPES \
        else None


class Shown:
    """The statuses of a list request's notifications, rendered once for the viewer with
    their filters for notifications (compiled once, beside the request's first read), and
    the accounts that sent them (read with the statuses)."""

    def __init__(self, viewer_id: str) -> None:
        self.viewer_id = viewer_id
        self._matcher = parallel.start(lambda: filters.compiled(viewer_id, "notifications"))
        self.relations = relationships.loader(viewer_id)
        self.rendered: dict[str, dict[str, Any]] = {}
        self.hidden: set[str] = set()
        self.senders: dict[str, dict[str, Any]] = {}
        self.batch: status_views.Batch | None = None  # set by visible_statuses

    @property
    def matcher(self) -> filters.Matcher:
        return self._matcher.result()

    def keep(self, statuses: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Those a `hide` filter does not remove (rendering the new ones)."""
        new = [s for s in statuses if s["id"] not in self.rendered and s["id"] not in self.hidden]
        batch = self.batch  # what the last read read for these statuses, if it did
        if batch is not None and not {s["id"] for s in new} <= {s["id"] for s in batch.statuses}:
            batch = None
        shown = status_views.render(new, self.viewer_id, relations=self.relations,
                                    matcher=self.matcher,
                                    originals=batch.originals if batch else None,
                                    loaded=batch.loaded if batch else None) if new else []
        self.rendered.update((e["id"], e) for e in shown)
        self.hidden.update(s["id"] for s in new if s["id"] not in self.rendered)
        return [s for s in statuses if s["id"] in self.rendered]


Ready = tuple[set[str], "parallel.Later[status_views.Batch]"]


def read_ahead(viewer_id: str, status_ids: list[str], shown: Shown) -> Ready:
    """`status_views.read_batch` of statuses a page's index entries name, started before the
    notifications themselves are read (for `visible_statuses(..., ready=)`)."""
    wanted = list(dict.fromkeys(status_ids))
    return set(wanted), parallel.start(lambda: status_views.read_batch(
        [{"id": s} for s in wanted], viewer_id, shown.relations))


def visible_statuses(viewer_id: str, items: Iterable[dict[str, Any]],
                     shown: Shown | None = None, ready: Ready | None = None
                     ) -> dict[str, dict[str, Any]]:
    """The statuses of these items the viewer may (still) see, by id: two round trips for the
    statuses and what renders them (status_views.read_batch; `ready`: already under way), the
    senders read beside them when `shown` keeps them; with `shown`, not those the viewer's
    filters hide."""
    items = list(items)
    wanted = [s for s in (status_id_of(i) for i in items) if s]
    relations = shown.relations if shown is not None else relationships.loader(viewer_id)
    senders = [a for i in items for a in (i.get("from_account_id"),
                                          *(m.get("from_account_id")
                                            for m in i.get("samples", []))) if a]
    if shown is not None:
        senders = [a for a in senders if a not in shown.senders]
    if not wanted:
        if shown is not None and senders:
            shown.senders.update(status_views.load_accounts(senders))
        return {}
    if ready is not None and set(wanted) <= ready[0]:
        read = ready[1].result
    else:
        def read() -> status_views.Batch:
            return status_views.read_batch([{"id": s} for s in wanted], viewer_id, relations)
    batch, accounts = parallel.gather(
        read,
        lambda: status_views.load_accounts(senders) if shown is not None and senders else {})
    if shown is not None:
        shown.senders.update(accounts)
        shown.batch = batch
    visible = visibility.filter_visible(batch.statuses, relations.statuses(batch.statuses))
    if shown is not None:
        visible = shown.keep(visible)
    return {s["id"]: s for s in visible}


def keep_visible(viewer_id: str, items: list[dict[str, Any]], shown: Shown | None = None
                 ) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(item, its status) for the items whose status, if they have one, the viewer may see."""
    statuses = visible_statuses(viewer_id, items, shown)
    kept = []
    for item in items:
        status_id = status_id_of(item)
        if status_id is None or status_id in statuses:
            kept.append((item, statuses.get(status_id) if status_id else None))
    return kept


def render_statuses(viewer_id: str, statuses: Iterable[dict[str, Any] | None],
                    shown: Shown | None = None) -> dict[str, dict[str, Any]]:
    """The Status entities of these statuses for the viewer, by id (with `shown`: as its
    filters left them)."""
    unique = list({s["id"]: s for s in statuses if s}.values())
    if shown is not None:
        return {s["id"]: shown.rendered[s["id"]] for s in shown.keep(unique)}
    return {s["id"]: s for s in status_views.render(unique, viewer_id)} if unique else {}


def report_entities(report_ids: list[str]) -> dict[str, dict[str, Any]]:
    """{id: Report} for the reports that still exist (one batched read for the reports and
    one for their target accounts)."""
    found = reports_repo.get_many(report_ids) if report_ids else {}
    targets = status_views.load_accounts([r["target_id"] for r in found.values()])
    return {rid: convert_reports.report(r, target_account=targets[r["target_id"]])
            for rid, r in found.items() if r["target_id"] in targets}


def reports_of(items: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The Report entities of `admin.report` notifications (their subject), by id: one
    batched read, none without such notifications."""
    wanted = [i["subject_id"] for i in items if i["notification_type"] == convert.REPORT_TYPE]
    return report_entities(wanted) if wanted else {}


def render(viewer_id: str, pairs: list[tuple[dict[str, Any], dict[str, Any] | None]],
           shown: Shown | None = None) -> list[dict[str, Any]]:
    """Notification entities for (item, its visible status) pairs; those from suspended
    accounts, about a status the filters hide, or about a report that is gone are left out."""
    senders = [i["from_account_id"] for i, _ in pairs]
    known = shown.senders if shown is not None else {}
    accounts = {**known, **status_views.load_accounts([a for a in senders if a not in known])}
    statuses = render_statuses(viewer_id, (s for _, s in pairs), shown)
    found_reports = reports_of(i for i, _ in pairs)
    rendered = []
    for item, status in pairs:
        account = accounts.get(item["from_account_id"])
        entity = statuses.get(status["id"]) if status else None
        if account is None or account.get("suspended") or (status is not None and
                                                           entity is None):
            continue  # Mastodon leaves out notifications from suspended accounts
        report = found_reports.get(item["subject_id"]) \
            if item["notification_type"] == convert.REPORT_TYPE else None
        if item["notification_type"] == convert.REPORT_TYPE and report is None:
            continue  # the report is gone
        rendered.append(convert.notification(item, account=account, status=entity,
                                             report=report))
    return rendered


def render_for(viewer_id: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Notification entities for these items of the viewer's (those it may still see), as the
    list renders them, with the viewer's filters for notifications (a `hide` filter drops
    the notification); the stream worker sends them one at a time."""
    shown = Shown(viewer_id)
    return render(viewer_id, keep_visible(viewer_id, items, shown), shown)
