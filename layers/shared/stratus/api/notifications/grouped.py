"""GET /api/v2/notifications (Mastodon 4.3's grouped notifications): the grouped list, one
group, its accounts, and dismissing a group.

The grouped list reads the grouped listing (GSI3): one entry per group head (kept by the counters
worker: count, newest members, place at the latest) and per ungrouped notification, so a status
liked ten thousand times is one entry, not ten thousand, and a page needs no read per group.
When the request wants a grouping the heads do not have (`grouped_types[]` leaving a grouped
type out, `account_id`, `include_filtered`) or no grouped type at all, groups are formed on the
page as Mastodon forms them, from the recipient's notifications by id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stratus.api.notifications import listing
from stratus.convert import notifications as convert
from stratus.core import ids
from stratus.core.errors import BadRequest, NotFound
from stratus.core.paging import Budget, Page, fill_page
from stratus.model.viewer import Viewer
from stratus.read import notification_rules, status_views
from stratus.read import notifications as notes
from stratus.repo import notifications as repo

GROUPABLE = ("favourite", "reblog", "follow", "admin.sign_up")  # what `grouped_types[]` can name
SAMPLE_ACCOUNTS = 8  # Mastodon's NotificationGroup::SAMPLE_ACCOUNTS_SIZE


def grouped_types(params: dict[str, Any]) -> frozenset[str]:
    """The types grouped in this answer: `grouped_types[]`, or all Mastodon groups."""
    asked = [t for t in listing.values(params.get("grouped_types")) if t in GROUPABLE]
    return frozenset(asked) if asked else frozenset(GROUPABLE)


def heads_serve(wanted: listing.Browse, kinds: frozenset[str]) -> bool:
    """Whether the grouped listing's entries give this answer: the groups asked for are the
    stored ones, and neither a sender nor filtered notifications are asked for. When no grouped
    type is asked for (mentions only, say), the list by id with DynamoDB's type filter is the
    cheaper read."""
    stored = {k for k in notification_rules.GROUPED if wanted.wants(k)}
    return bool(stored) and stored <= kinds and wanted.from_id is None and \
        not wanted.include_filtered


def effective_key(item: dict[str, Any], kinds: frozenset[str]) -> str:
    """The group a notification counts in when `kinds` are grouped (`ungrouped-<id>`: none)."""
    if item.get("group_key") and item["notification_type"] in kinds:
        return item["group_key"]
    return f"ungrouped-{item['id']}"


@dataclass
class _Candidate:
    """One group of a page: `item` is the group's head (grouped listing) or its newest
    notification in the page's range (ungrouped, or a group formed on the page)."""

    position: str  # its place in the listing (an id)
    key: str
    item: dict[str, Any]
    head: dict[str, Any] | None = None
    status: dict[str, Any] | None = None
    members: list[dict[str, Any]] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.item["notification_type"]


def _visible_candidates(viewer_id: str, candidates: list[_Candidate],
                        shown: notes.Shown | None = None, ready: notes.Ready | None = None
                        ) -> list[_Candidate]:
    statuses = notes.visible_statuses(viewer_id, (c.item for c in candidates), shown, ready)
    kept = []
    for candidate in candidates:
        status_id = notes.status_id_of(candidate.item)
        if status_id is not None:
            if status_id not in statuses:
                continue
            candidate.status = statuses[status_id]
        kept.append(candidate)
    return kept


def _from_heads(viewer: Viewer, wanted: listing.Browse, page: Page, budget: Budget,
                shown: notes.Shown):
    entries = repo.head_entries(viewer.account_id, *page.id_range(), not page.ascending,
                                budget=budget, step=page.step)

    def hydrate(batch: list[dict[str, Any]]) -> list[_Candidate]:
        # The statuses the entries name, read beside the notifications behind the entries.
        named = [e["status_id"] for e in batch if e.get("status_id")]
        ready = notes.read_ahead(viewer.account_id, named, shown) if named else None
        found = repo.items_of(batch)
        candidates = []
        for entry in batch:
            item = found.get(repo.entry_key(entry))
            if item is None or not wanted.wants(item["notification_type"]):
                continue
            if item.get("type") == "notification_group":
                if int(item.get("notifications_count", 0)) <= 0:
                    continue  # its last member just went; the counters worker removes it
                candidates.append(_Candidate(repo.head_position(entry), item["group_key"],
                                             item, head=item,
                                             members=list(item.get("samples", []))))
            else:
                candidates.append(_Candidate(item["id"], convert.group_key(item), item))
        return _visible_candidates(viewer.account_id, candidates, shown, ready)

    return fill_page(entries, hydrate, page, budget=budget, id_of=repo.head_position,
                     result_id=lambda c: c.position)


def _from_notifications(viewer: Viewer, wanted: listing.Browse, kinds: frozenset[str], page: Page,
                        budget: Budget, shown: notes.Shown):
    """Mastodon's own grouping of a page: walk the notifications by id, the first one met of
    each group stands for it."""
    found = repo.entries(viewer.account_id, *page.id_range(), not page.ascending,
                         budget=budget, step=page.step, filter=wanted.listing_filter())
    seen: set[str] = set()

    def hydrate(batch: list[dict[str, Any]]) -> list[_Candidate]:
        candidates = []
        for item in batch:
            key = effective_key(item, kinds)
            if key in seen:
                continue
            seen.add(key)
            candidates.append(_Candidate(item["id"], key, item))
        return _visible_candidates(viewer.account_id, candidates, shown)

    return fill_page(found, hydrate, page, budget=budget, id_of=lambda i: i["id"],
                     result_id=lambda c: c.position)


def _load_members(viewer: Viewer, candidates: list[_Candidate]) -> None:
    """The newest members of each grouped candidate that does not carry them (a group formed on
    the page), at or below its place: one query per group (in parallel), then one batched read
    of them all. Group heads carry theirs (workers/notification_groups.py)."""
    grouped = [c for c in candidates if not c.key.startswith("ungrouped-") and not c.members]
    if not grouped:
        return
    found = repo.members_of_groups(viewer.account_id, [(c.key, c.position) for c in grouped],
                                   SAMPLE_ACCOUNTS)
    items = repo.items_of([e for entries in found.values() for e in entries])
    heads = repo.get_groups(viewer.account_id, [c.key for c in grouped if c.head is None])
    for candidate in grouped:
        candidate.members = [items[repo.entry_key(e)] for e in found[candidate.key]
                             if repo.entry_key(e) in items]
        candidate.head = candidate.head or heads.get(candidate.key)


def _group_entity(candidate: _Candidate, wanted: listing.Browse, page_low: str | None
                  ) -> dict[str, Any] | None:
    item = candidate.item
    if candidate.key.startswith("ungrouped-"):
        members = [item]
        count = 1
    else:
        members = candidate.members
        if wanted.from_id is not None:
            members = [m for m in members if m["from_account_id"] == wanted.from_id] or [item]
            count = len(members)
        else:
            count = int((candidate.head or {}).get("notifications_count") or len(members))
        if not members:
            return None  # a group whose members all went a moment ago
    newest = members[0]
    samples = list(dict.fromkeys(m["from_account_id"] for m in members))
    page = None
    if page_low is not None:
        oldest = min((m["id"] for m in members), key=int)
        page = (max(oldest, page_low, key=int), newest["id"], newest["created_at"])
    return convert.notification_group(
        key=candidate.key, kind=candidate.kind, count=max(count, 1),
        most_recent_id=newest["id"], sample_account_ids=samples,
        status_id=notes.status_id_of(item), page=page)


def _results(viewer: Viewer, candidates: list[_Candidate], wanted: listing.Browse, expand: str,
             page_low: str | None, shown: notes.Shown | None = None) -> dict[str, Any]:
    _load_members(viewer, candidates)
    groups = []
    kept = []
    for candidate in candidates:
        entity = _group_entity(candidate, wanted, page_low)
        if entity is not None:
            groups.append(entity)
            kept.append(candidate)
    known = shown.senders if shown is not None else {}
    accounts = {**known, **status_views.load_accounts(
        [a for g in groups for a in g["sample_account_ids"] if a not in known])}
    statuses = notes.render_statuses(viewer.account_id, (c.status for c in kept), shown)
    found_reports = notes.reports_of(c.item for c in kept)
    final = []
    for group, candidate in zip(groups, kept):
        group["sample_account_ids"] = [a for a in group["sample_account_ids"]
                                       if a in accounts and not accounts[a].get("suspended")]
        if not group["sample_account_ids"] or (group.get("status_id") is not None and
                                               group["status_id"] not in statuses):
            continue
        if candidate.kind == convert.REPORT_TYPE:
            group["report"] = found_reports.get(candidate.item.get("subject_id"))
            if group["report"] is None:
                continue  # the report is gone
        final.append(group)
    firsts = list(dict.fromkeys(g["sample_account_ids"][0] for g in final))
    everyone = list(dict.fromkeys(a for g in final for a in g["sample_account_ids"]))
    rendered_statuses = list(dict.fromkeys(g["status_id"] for g in final if g.get("status_id")))
    if expand == "partial_avatars":
        return convert.grouped_results(
            final, [accounts[a] for a in firsts], [statuses[s] for s in rendered_statuses],
            [convert.partial_account(accounts[a]) for a in everyone if a not in firsts])
    return convert.grouped_results(final, [accounts[a] for a in everyone],
                                   [statuses[s] for s in rendered_statuses])


def expand_accounts(params: dict[str, Any]) -> str:
    value = params.get("expand_accounts")
    if value in (None, "", "full"):
        return "full"
    if value == "partial_avatars":
        return value
    raise BadRequest(f"Invalid value for 'expand_accounts': '{value}', allowed values are "
                     "'full' and 'partial_avatars'")


def list_grouped(viewer: Viewer, params: dict[str, Any], page: Page
                 ) -> tuple[dict[str, Any], list[str]]:
    """GET /api/v2/notifications: (GroupedNotificationsResults, the ids the Link header uses)."""
    expand = expand_accounts(params)
    wanted = listing.browse(params)
    if wanted.nothing:
        return convert.grouped_results([], [], [], [] if expand == "partial_avatars" else None), []
    kinds = grouped_types(params)
    budget = Budget()
    shown = notes.Shown(viewer.account_id)
    if heads_serve(wanted, kinds):
        filled = _from_heads(viewer, wanted, page, budget, shown)
    else:
        filled = _from_notifications(viewer, wanted, kinds, page, budget, shown)
    candidates: list[_Candidate] = filled.items
    page_low = min((c.position for c in candidates), key=int) if candidates else None
    return _results(viewer, candidates, wanted, expand, page_low, shown), filled.link_ids


def _group_candidate(viewer: Viewer, group_key: str) -> _Candidate:
    if group_key.startswith("ungrouped-"):
        item = listing.own(viewer, group_key[len("ungrouped-"):])
        return _Candidate(item["id"], group_key, item)
    head = repo.get_group(viewer.account_id, group_key)
    if head is None or int(head.get("notifications_count", 0)) <= 0 or not head.get("samples"):
        raise NotFound()
    return _Candidate(head["latest_id"], group_key, head, head=head,
                      members=list(head["samples"]))


def show_group(viewer: Viewer, group_key: str) -> dict[str, Any]:
    """GET /api/v2/notifications/:group_key (no page data, as Mastodon)."""
    candidate = _group_candidate(viewer, group_key)
    visible = _visible_candidates(viewer.account_id, [candidate])
    results = _results(viewer, visible, listing.browse({}), "full", None)
    if not results["notification_groups"]:
        raise NotFound()
    return results


def group_accounts(viewer: Viewer, group_key: str, page: Page
                   ) -> tuple[list[dict[str, Any]], list[str]]:
    """The accounts behind a group's notifications, newest first, paginated by notification
    (an `ungrouped-` key names no group: none, as Mastodon)."""
    if group_key.startswith("ungrouped-"):
        return [], []
    low, high = page.id_range()
    members = repo.members(viewer.account_id, group_key, up_to=str(high) if high else None,
                           after=str(low - 1) if low else None, limit=page.limit)
    accounts = status_views.load_accounts([m["from_account_id"] for m in members])
    kept = [m for m in members if m["from_account_id"] in accounts]
    return [accounts[m["from_account_id"]] for m in kept], [m["id"] for m in kept]


def dismiss_group(viewer: Viewer, group_key: str) -> dict[str, Any]:
    if group_key.startswith("ungrouped-"):
        notification_id = group_key[len("ungrouped-"):]
        item = repo.get(viewer.account_id, notification_id) if ids.is_id(notification_id) \
            else None
        if item is not None:
            repo.remove([item])
        return {}
    members = repo.members(viewer.account_id, group_key, limit=listing.INLINE_REMOVALS + 1)
    repo.remove(members[:listing.INLINE_REMOVALS])
    if len(members) > listing.INLINE_REMOVALS:
        listing.sweep(viewer, group_key=group_key)
    return {}
