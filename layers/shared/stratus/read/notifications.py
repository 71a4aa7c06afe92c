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
from stratus.policy import visibility
from stratus.read import filters, relationships, status_views
from stratus.repo import reports as reports_repo
from stratus.repo import statuses as statuses_repo


def status_id_of(item: dict[str, Any]) -> str | None:
    """The status a notification is about, if its type has one."""
    return item.get("status_id") if item.get("notification_type") in convert.STATUS_TYPES \
        else None


class Shown:
    """The statuses of a list request's notifications, rendered once for the viewer with
    their filters for notifications (compiled once)."""

    def __init__(self, viewer_id: str) -> None:
        self.viewer_id = viewer_id
        self.matcher = filters.compiled(viewer_id, "notifications")
        self.rendered: dict[str, dict[str, Any]] = {}
        self.hidden: set[str] = set()

    def keep(self, statuses: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Those a `hide` filter does not remove (rendering the new ones)."""
        new = [s for s in statuses if s["id"] not in self.rendered and s["id"] not in self.hidden]
        shown = status_views.render(new, self.viewer_id, matcher=self.matcher) if new else []
        self.rendered.update((e["id"], e) for e in shown)
        self.hidden.update(s["id"] for s in new if s["id"] not in self.rendered)
        return [s for s in statuses if s["id"] in self.rendered]


def visible_statuses(viewer_id: str, items: Iterable[dict[str, Any]],
                     shown: Shown | None = None) -> dict[str, dict[str, Any]]:
    """The statuses of these items the viewer may (still) see, by id: one batched read; with
    `shown`, not those the viewer's filters hide."""
    wanted = [s for s in (status_id_of(i) for i in items) if s]
    if not wanted:
        return {}
    found = list(statuses_repo.get_many(wanted).values())
    view = relationships.loader(viewer_id).statuses(found)
    visible = visibility.filter_visible(found, view)
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
    accounts = status_views.load_accounts([i["from_account_id"] for i, _ in pairs])
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
