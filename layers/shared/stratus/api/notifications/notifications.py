"""The notifications API: the list (v1) and the grouped list (v2, Mastodon 4.3), single
notifications and groups, dismissing and clearing, unread counts against the notifications
marker, the notification policy and notification requests.

Lists examine a bounded number of entries (`stratus.core.paging.Budget`): type, sender and policy
filters are applied by DynamoDB on the recipient's partition; a notification about a status the
viewer may no longer see is dropped after one batched read of the page's statuses. A page renders
with a constant number of batched reads (read/notifications.py renders the notifications).

The grouped list reads the grouped listing (GSI3): one entry per group head (kept by the counters
worker: count, newest members, place at the latest) and per ungrouped notification, so a status
liked ten thousand times is one entry, not ten thousand, and a page needs no read per group.
When the request wants a grouping the heads do not have (`grouped_types[]` leaving a grouped
type out, `account_id`, `include_filtered`) or no grouped type at all, groups are formed on the
page as Mastodon forms them, from the recipient's notifications by id.

The viewer's filters for notifications are compiled once per list request (read/notifications
`Shown`): the statuses of each batch are rendered as the page fills, and a notification whose
status a `hide` filter removes is dropped there, so the page fills from further entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from itertools import islice
from typing import Any

from stratus.convert import notifications as convert
from stratus.core import clock, ids
from stratus.core.errors import BadRequest, NotFound, Unprocessable
from stratus.core.paging import EXAMINED_PER_PAGE, Budget, Page, fill_page
from stratus.core.params import flag
from stratus.model.viewer import Viewer
from stratus.read import notification_rules, status_views
from stratus.read import notifications as notes
from stratus.repo import notifications as repo

# Mastodon 4.3's notification types (`Notification::TYPES`): what `types[]` can name.
TYPES = ("mention", "status", "reblog", "follow", "follow_request", "favourite", "poll",
         "update", "admin.sign_up", "admin.report", "severed_relationships",
         "moderation_warning")
GROUPABLE = ("favourite", "reblog", "follow", "admin.sign_up")  # what `grouped_types[]` can name
SAMPLE_ACCOUNTS = 8  # Mastodon's NotificationGroup::SAMPLE_ACCOUNTS_SIZE
COUNT_LIMIT, COUNT_MAX = 100, 1000  # unread_count's `limit`
INLINE_REMOVALS = 400  # removed by the request; a sweep job removes the rest
SWEEP_TTL = timedelta(days=1)
REQUEST_SUMMARY_LIMIT = 100  # Mastodon's NotificationPolicy::MAX_MEANINGFUL_COUNT


def _list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, dict):
        value = list(value.values())
    return [str(v) for v in (value if isinstance(value, list) else [value])]


@dataclass(frozen=True)
class Browse:
    """What a list request asks for (Mastodon's `browserable`)."""

    types: tuple[str, ...] | None  # None: every type
    exclude: tuple[str, ...]
    from_id: str | None
    include_filtered: bool
    nothing: bool  # the filters leave nothing (no known type, a sender that cannot exist)

    def wants(self, kind: str) -> bool:
        return (self.types is None or kind in self.types) and kind not in self.exclude

    def listing_filter(self):
        return repo.listing_filter(types=self.types, exclude=self.exclude, from_id=self.from_id,
                                   include_filtered=self.include_filtered)


def browse(params: dict[str, Any]) -> Browse:
    asked = _list(params.get("types"))
    excluded = tuple(t for t in TYPES if t in _list(params.get("exclude_types")))
    wanted = [t for t in TYPES if (not asked or t in asked)]
    types = None if len(wanted) == len(TYPES) else tuple(wanted)
    sender = params.get("account_id")
    from_id = str(sender) if sender not in (None, "") and not isinstance(sender, (list, dict)) \
        else None
    nothing = (types is not None and not [t for t in types if t not in excluded]) or \
        (sender not in (None, "") and (from_id is None or not ids.is_id(from_id)))
    # A sender's notifications include the filtered ones (the requests view lists them so).
    include_filtered = flag(params.get("include_filtered")) or from_id is not None
    return Browse(types, excluded, from_id, include_filtered, nothing)


def list_notifications(viewer: Viewer, params: dict[str, Any], page: Page
                       ) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/notifications: (Notification entities, the ids the Link header uses)."""
    wanted = browse(params)
    if wanted.nothing:
        return [], []
    budget = Budget()
    found = repo.entries(viewer.account_id, *page.id_range(), not page.ascending, budget=budget,
                         step=page.step, filter=wanted.listing_filter())
    shown = notes.Shown(viewer.account_id)
    filled = fill_page(found, lambda batch: notes.keep_visible(viewer.account_id, batch, shown),
                       page, budget=budget, id_of=lambda i: i["id"],
                       result_id=lambda p: p[0]["id"])
    return notes.render(viewer.account_id, filled.items, shown), filled.link_ids


def _own(viewer: Viewer, notification_id: str) -> dict[str, Any]:
    item = repo.get(viewer.account_id, notification_id) if ids.is_id(notification_id) else None
    if item is None:
        raise NotFound()
    return item


def show(viewer: Viewer, notification_id: str) -> dict[str, Any]:
    item = _own(viewer, notification_id)
    rendered = notes.render(viewer.account_id, notes.keep_visible(viewer.account_id, [item]))
    if not rendered:
        raise NotFound()
    return rendered[0]


def dismiss(viewer: Viewer, notification_id: str) -> dict[str, Any]:
    repo.remove([_own(viewer, notification_id)])
    return {}


def _sweep(viewer: Viewer, *, up_to_id: str | None = None, group_key: str | None = None) -> None:
    repo.start_sweep(viewer.account_id, ids.new_id(), up_to_id=up_to_id, group_key=group_key,
                     expires=int((clock.now() + SWEEP_TTL).timestamp()))


def clear(viewer: Viewer) -> dict[str, Any]:
    """Remove every notification: the newest at once, any beyond that by the effects worker."""
    newest = repo.newest_first(viewer.account_id, INLINE_REMOVALS + 1)
    repo.remove(newest[:INLINE_REMOVALS])
    if len(newest) > INLINE_REMOVALS:
        _sweep(viewer, up_to_id=newest[INLINE_REMOVALS]["id"])
    return {}


def _marker_position(viewer: Viewer) -> str | None:
    marker = repo.get_markers(viewer.account_id, ["notifications"]).get("notifications")
    return marker["last_read_id"] if marker else None


def _count_limit(params: dict[str, Any]) -> int:
    try:
        limit = int(params.get("limit", COUNT_LIMIT))
    except (TypeError, ValueError):
        limit = COUNT_LIMIT
    return min(max(abs(limit), 1), COUNT_MAX)


def unread_count(viewer: Viewer, params: dict[str, Any], *, grouped: bool = False
                 ) -> dict[str, int]:
    """How many notifications (v2: groups) are newer than the notifications marker, up to
    `limit` (default 100, at most 1000)."""
    limit = _count_limit(params)
    wanted = browse(params)
    if wanted.nothing:
        return {"count": 0}
    after = _marker_position(viewer)
    budget = Budget(max(2 * limit, EXAMINED_PER_PAGE))
    if grouped and wanted.types is None and not wanted.exclude and \
            _heads_serve(wanted, grouped_types(params)):
        # Every entry of the grouped listing is a group (types would need reading each one).
        return {"count": len(repo.count_heads_since(viewer.account_id, after, limit, budget))}
    found = repo.entries(viewer.account_id, int(after) + 1 if after else None, None, False,
                         budget=budget,
                         step=min(limit, 100), filter=wanted.listing_filter())
    if not grouped:
        return {"count": sum(1 for _ in islice(found, limit))}
    kinds = grouped_types(params)
    seen: set[str] = set()
    for item in found:
        seen.add(_effective_key(item, kinds))
        if len(seen) >= limit:
            break
    return {"count": len(seen)}


# --- grouped notifications -----------------------------------------------------------------------
def grouped_types(params: dict[str, Any]) -> frozenset[str]:
    """The types grouped in this answer: `grouped_types[]`, or all Mastodon groups."""
    asked = [t for t in _list(params.get("grouped_types")) if t in GROUPABLE]
    return frozenset(asked) if asked else frozenset(GROUPABLE)


def _heads_serve(wanted: Browse, kinds: frozenset[str]) -> bool:
    """Whether the grouped listing's entries give this answer: the groups asked for are the
    stored ones, and neither a sender nor filtered notifications are asked for. When no grouped
    type is asked for (mentions only, say), the list by id with DynamoDB's type filter is the
    cheaper read."""
    stored = {k for k in notification_rules.GROUPED if wanted.wants(k)}
    return bool(stored) and stored <= kinds and wanted.from_id is None and \
        not wanted.include_filtered


def _effective_key(item: dict[str, Any], kinds: frozenset[str]) -> str:
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
                        shown: notes.Shown | None = None) -> list[_Candidate]:
    statuses = notes.visible_statuses(viewer_id, (c.item for c in candidates), shown)
    kept = []
    for candidate in candidates:
        status_id = notes.status_id_of(candidate.item)
        if status_id is not None:
            if status_id not in statuses:
                continue
            candidate.status = statuses[status_id]
        kept.append(candidate)
    return kept


def _from_heads(viewer: Viewer, wanted: Browse, page: Page, budget: Budget, shown: notes.Shown):
    entries = repo.head_entries(viewer.account_id, *page.id_range(), not page.ascending,
                                budget=budget, step=page.step)

    def hydrate(batch: list[dict[str, Any]]) -> list[_Candidate]:
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
        return _visible_candidates(viewer.account_id, candidates, shown)

    return fill_page(entries, hydrate, page, budget=budget, id_of=repo.head_position,
                     result_id=lambda c: c.position)


def _from_notifications(viewer: Viewer, wanted: Browse, kinds: frozenset[str], page: Page,
                        budget: Budget, shown: notes.Shown):
    """Mastodon's own grouping of a page: walk the notifications by id, the first one met of
    each group stands for it."""
    found = repo.entries(viewer.account_id, *page.id_range(), not page.ascending,
                         budget=budget, step=page.step, filter=wanted.listing_filter())
    seen: set[str] = set()

    def hydrate(batch: list[dict[str, Any]]) -> list[_Candidate]:
        candidates = []
        for item in batch:
            key = _effective_key(item, kinds)
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


def _group_entity(candidate: _Candidate, wanted: Browse, page_low: str | None
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


def _results(viewer: Viewer, candidates: list[_Candidate], wanted: Browse, expand: str,
             page_low: str | None, shown: notes.Shown | None = None) -> dict[str, Any]:
    _load_members(viewer, candidates)
    groups = []
    kept = []
    for candidate in candidates:
        entity = _group_entity(candidate, wanted, page_low)
        if entity is not None:
            groups.append(entity)
            kept.append(candidate)
    accounts = status_views.load_accounts([a for g in groups for a in g["sample_account_ids"]])
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
    wanted = browse(params)
    if wanted.nothing:
        return convert.grouped_results([], [], [], [] if expand == "partial_avatars" else None), []
    kinds = grouped_types(params)
    budget = Budget()
    shown = notes.Shown(viewer.account_id)
    if _heads_serve(wanted, kinds):
        filled = _from_heads(viewer, wanted, page, budget, shown)
    else:
        filled = _from_notifications(viewer, wanted, kinds, page, budget, shown)
    candidates: list[_Candidate] = filled.items
    page_low = min((c.position for c in candidates), key=int) if candidates else None
    return _results(viewer, candidates, wanted, expand, page_low, shown), filled.link_ids


def _group_candidate(viewer: Viewer, group_key: str) -> _Candidate:
    if group_key.startswith("ungrouped-"):
        item = _own(viewer, group_key[len("ungrouped-"):])
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
    results = _results(viewer, visible, browse({}), "full", None)
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
    members = repo.members(viewer.account_id, group_key, limit=INLINE_REMOVALS + 1)
    repo.remove(members[:INLINE_REMOVALS])
    if len(members) > INLINE_REMOVALS:
        _sweep(viewer, group_key=group_key)
    return {}


# --- notification policy and requests ------------------------------------------------------------
def _requests_summary(viewer: Viewer) -> tuple[int, int]:
    entries = list(repo.request_entries(viewer.account_id, None, None, True,
                                        limit=REQUEST_SUMMARY_LIMIT))
    requests = repo.requests_of(entries)
    return len(requests), sum(max(int(r.get("notifications_count", 0)), 0) for r in requests)


def get_policy(viewer: Viewer) -> dict[str, Any]:
    values = notification_rules.policy_of(repo.get_policy(viewer.account_id))
    return convert.policy(values, *_requests_summary(viewer))


def update_policy(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    changes = {}
    for name in notification_rules.POLICY_FIELDS:
        value = params.get(name)
        if value is None:
            continue
        if value not in (notification_rules.ACCEPT, notification_rules.FILTER,
                         notification_rules.DROP):
            label = name.replace("_", " ").capitalize()
            raise Unprocessable(f"Validation failed: {label} is not included in the list")
        changes[name] = value
    if changes:
        repo.set_policy(viewer.account_id, changes, clock.iso(clock.now()))
    return get_policy(viewer)


def _render_requests(viewer: Viewer, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    accounts = status_views.load_accounts([r["from_account_id"] for r in requests])
    last = notes.visible_statuses(viewer.account_id, ({"notification_type": "mention",
                                                       "status_id": r.get("last_status_id")}
                                                      for r in requests))
    statuses = notes.render_statuses(viewer.account_id, last.values())
    return [convert.request(r, account=accounts[r["from_account_id"]],
                            last_status=statuses.get(r.get("last_status_id") or ""))
            for r in requests if r["from_account_id"] in accounts]


def list_requests(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    entries = list(repo.request_entries(viewer.account_id, *page.id_range(), not page.ascending,
                                        limit=page.limit))
    if page.ascending:
        entries.reverse()
    rendered = _render_requests(viewer, repo.requests_of(entries))
    return rendered, [r["id"] for r in rendered]


def _request(viewer: Viewer, request_id: str) -> dict[str, Any]:
    found = repo.request_by_id(viewer.account_id, request_id) if ids.is_id(request_id) else None
    if found is None:
        raise NotFound()
    return found


def show_request(viewer: Viewer, request_id: str) -> dict[str, Any]:
    rendered = _render_requests(viewer, [_request(viewer, request_id)])
    if not rendered:
        raise NotFound()
    return rendered[0]


def accept_request(viewer: Viewer, request_id: str) -> dict[str, Any]:
    """Accept: the sender's filtered notifications join the lists (the effects worker merges
    them; `merged` says when) and theirs are never filtered again."""
    request = _request(viewer, request_id)
    repo.accept_request(viewer.account_id, request["from_account_id"], clock.iso(clock.now()))
    return {}


def dismiss_request(viewer: Viewer, request_id: str) -> dict[str, Any]:
    """Dismiss: the request and the sender's filtered notifications go."""
    request = _request(viewer, request_id)
    repo.dismiss_request(viewer.account_id, request["from_account_id"])
    return {}


def _bulk_ids(params: dict[str, Any]) -> list[str]:
    return [i for i in dict.fromkeys(_list(params.get("id"))) if ids.is_id(i)]


def accept_requests(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    now = clock.iso(clock.now())
    for request_id in _bulk_ids(params):
        request = repo.request_by_id(viewer.account_id, request_id)
        if request is not None:
            repo.accept_request(viewer.account_id, request["from_account_id"], now)
    return {}


def dismiss_requests(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    for request_id in _bulk_ids(params):
        request = repo.request_by_id(viewer.account_id, request_id)
        if request is not None:
            repo.dismiss_request(viewer.account_id, request["from_account_id"])
    return {}


def requests_merged(viewer: Viewer) -> dict[str, bool]:
    """Whether every accepted request's notifications have joined the lists."""
    policy = repo.get_policy(viewer.account_id) or {}
    return {"merged": int(policy.get("pending_merges", 0)) <= 0}
