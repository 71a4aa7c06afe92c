"""Reports: filing one (Mastodon's ReportService), the staff API over them (Admin::Report,
assign, resolve, reopen, update). The Report entity that `admin.report` notifications carry is
rendered with them (read/notifications.py).

Staff hear of a report through the outbox: filing writes the report only, and its insert
becomes a `ReportFiled` job for the effects worker (workers/effects.py), which notifies every
local user whose role may manage reports — unless another unresolved report against the same
account already exists (Mastodon's `unresolved_siblings?`), decided when the report is filed
and kept on the item (`notify_staff`).

`forward` is recorded but forwards nothing: every account is local until federation exists,
and Mastodon forwards only reports of remote accounts (`forwarded` stays false)."""

from __future__ import annotations

from typing import Any

from stratus.convert import accounts as convert_accounts
from stratus.convert import instance as convert_instance
from stratus.convert import reports as convert
from stratus.core import clock, ids
from stratus.core.errors import NotFound, Unprocessable
from stratus.core.paging import EXAMINED_PER_PAGE, Budget, Page, fill_page
from stratus.core.params import flag
from stratus.http import ratelimit
from stratus.model.viewer import Viewer
from stratus.policy import visibility
from stratus.read import accounts as accounts_read
from stratus.read import relationships, settings, status_views
from stratus.read import roles as roles_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import audit, transaction
from stratus.repo import reports as repo
from stratus.repo import statuses as statuses_repo

CATEGORIES = ("other", "spam", "legal", "violation")
COMMENT_LIMIT = 1000  # Mastodon's Report::COMMENT_SIZE_LIMIT
INVALID_RULES = "Validation failed: Rule ids does not reference valid rules"
RULES_NOT_BLANK = "Validation failed: Rule ids must be blank"
INVALID_CATEGORY = "Validation failed: Category is not included in the list"
COMMENT_TOO_LONG = (f"Validation failed: Comment is too long (maximum is {COMMENT_LIMIT} "
                    "characters)")


def _id_list(value: Any) -> list[str]:
    """`status_ids[]` / `rule_ids[]` as given (a single value, a list, or an indexed hash)."""
    if value is None or value == "":
        return []
    if isinstance(value, dict):
        value = list(value.values())
    values = value if isinstance(value, list) else [value]
    return [str(v) for v in values if v not in (None, "")]


def _checked_rules(rule_ids: list[str]) -> list[str]:
    """The rule ids, if each names an existing instance rule (once); else 422 as Mastodon."""
    existing = {str(r["id"]) for r in settings.rules()}
    normal = [str(int(r)) if ids.is_id(r) else r for r in rule_ids]
    if not normal or len(set(normal)) != len(normal) or not set(normal) <= existing:
        raise Unprocessable(INVALID_RULES)
    return normal


def _category(value: Any) -> str:
    if value not in CATEGORIES:
        raise Unprocessable(INVALID_CATEGORY)
    return value


def _reported_statuses(viewer: Viewer, target_id: str, status_ids: list[str]) -> list[str]:
    """The reported statuses, each of which must be the target's and visible to the reporter
    (Mastodon finds them among the statuses the reporter may see of that account: any other
    id is a 404)."""
    wanted = list(dict.fromkeys(status_ids))
    if not wanted:
        return []
    if not all(ids.is_id(s) for s in wanted):
        raise NotFound()
    found = statuses_repo.get_many(wanted)
    if len(found) != len(wanted) or any(s["account_id"] != target_id for s in found.values()):
        raise NotFound()
    view = relationships.loader(viewer.account_id).statuses(found.values())
    if len(visibility.filter_visible(found.values(), view)) != len(found):
        raise NotFound()
    return [str(int(s)) for s in wanted]


def file(viewer: Viewer, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """POST /api/v1/reports: (Report, rate-limit headers)."""
    target_id = str(params.get("account_id") or "")
    if not ids.is_id(target_id):
        raise NotFound()
    target_id = str(int(target_id))
    bundle = accounts_repo.get_many([target_id], (accounts_repo.PROFILE, accounts_repo.STATS,
                                                  accounts_repo.USER)).get(target_id, {})
    if not accounts_read.is_visible(bundle) or \
            bundle[accounts_repo.PROFILE].get("suspended_at"):
        raise NotFound()  # Mastodon: an unavailable account cannot be reported
    status_ids = _reported_statuses(viewer, target_id, _id_list(params.get("status_ids")))
    comment = params.get("comment")
    if isinstance(comment, (int, float)) and not isinstance(comment, bool):
        comment = str(comment)  # a JSON number, as Rails stores it in a text column
    comment = comment if isinstance(comment, str) else ""
    if len(comment) > COMMENT_LIMIT:
        raise Unprocessable(COMMENT_TOO_LONG)
    rule_ids = _id_list(params.get("rule_ids"))
    category = "violation" if rule_ids else _category(params.get("category") or "other")
    if category == "violation":
        rule_ids = _checked_rules(rule_ids)
    headers = ratelimit.check(ratelimit.REPORTS, viewer.account_id)
    now = clock.iso(clock.now())
    report = {"id": ids.new_id(), "account_id": viewer.account_id, "target_id": target_id,
              "status_ids": status_ids, "comment": comment, "category": category,
              "forward": flag(params.get("forward")), "forwarded": False,
              "notify_staff": not repo.has_open_against(target_id),
              "created_at": now, "updated_at": now}
    if category == "violation":
        report["rule_ids"] = rule_ids
    transaction.write([repo.create_op(report)])
    target = accounts_read.render(bundle)
    return convert.report(report, target_account=target), headers


# --- the staff API -------------------------------------------------------------------------------
def _admin_accounts(account_ids: list[str]) -> dict[str, dict[str, Any]]:
    found = accounts_repo.get_many(list(dict.fromkeys(a for a in account_ids if a)),
                                   (accounts_repo.PROFILE, accounts_repo.STATS,
                                    accounts_repo.USER))
    rendered = {}
    for account_id, bundle in found.items():
        profile = bundle.get(accounts_repo.PROFILE)
        if profile is None:
            continue
        user = bundle.get(accounts_repo.USER)
        rendered[account_id] = convert_accounts.admin_account(
            profile, bundle.get(accounts_repo.STATS), user,
            roles_read.role_for((user or {}).get("role_id")))
    return rendered


def _render_admin(items: list[dict[str, Any]], viewer_id: str) -> list[dict[str, Any]]:
    """Admin::Report entities, with a constant number of batched reads for the page: the
    accounts, the reported statuses (rendered for the staff member; a status deleted since is
    left out) and the rules (a rule removed since is left out)."""
    if not items:
        return []
    accounts = _admin_accounts([a for r in items for a in (
        r["account_id"], r["target_id"], r.get("assigned_account_id"),
        r.get("action_taken_by_account_id"))])
    status_items = statuses_repo.get_many([s for r in items for s in r.get("status_ids", [])])
    statuses = {s["id"]: s for s in status_views.render(list(status_items.values()), viewer_id)}
    rules = {str(r["id"]): convert_instance.rule(r) for r in settings.rules()} \
        if any(r.get("rule_ids") for r in items) else {}
    rendered = []
    for item in items:
        if item["account_id"] not in accounts or item["target_id"] not in accounts:
            continue  # an account purged since; its reports go with it
        rendered.append(convert.admin_report(
            item, account=accounts[item["account_id"]],
            target_account=accounts[item["target_id"]],
            assigned_account=accounts.get(item.get("assigned_account_id") or ""),
            action_taken_by_account=accounts.get(item.get("action_taken_by_account_id") or ""),
            statuses=[statuses[s] for s in item.get("status_ids", []) if s in statuses],
            rules=[rules[r] for r in item.get("rule_ids") or [] if r in rules]))
    return rendered


def _filter_id(params: dict[str, Any], name: str) -> tuple[str | None, bool]:
    """(the account id a listing is filtered by, whether the filter can match anything)."""
    value = params.get(name)
    if value in (None, ""):
        return None, True
    value = str(value)
    return (str(int(value)), True) if ids.is_id(value) else (None, False)


def list_reports(viewer: Viewer, params: dict[str, Any], page: Page
                 ) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/admin/reports: unresolved reports unless `resolved` is true, by reporter
    (`account_id`) and reported account (`target_account_id`), newest first."""
    account_id, account_ok = _filter_id(params, "account_id")
    target_id, target_ok = _filter_id(params, "target_account_id")
    if not (account_ok and target_ok):
        return [], []
    state = repo.RESOLVED if flag(params.get("resolved")) else repo.OPEN
    low, high = page.id_range()
    budget = Budget(entries=max(EXAMINED_PER_PAGE, 2 * page.limit))
    entries = repo.entries(state, account_id=account_id, target_id=target_id, low=low,
                           high=high, descending=not page.ascending, budget=budget,
                           step=page.step)

    def hydrate(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = repo.get_many([str(e["id"]) for e in batch])
        # An entry read from an index that lags a resolve or reopen is not the report's state.
        items = [found[str(e["id"])] for e in batch if str(e["id"]) in found
                 and repo.state_of(found[str(e["id"])]) == state]
        return _render_admin(items, viewer.account_id)

    filled = fill_page(entries, hydrate, page, budget=budget, id_of=lambda e: str(e["id"]),
                       result_id=lambda r: r["id"])
    return filled.items, filled.link_ids


def _report(report_id: str, *, consistent: bool = False) -> dict[str, Any]:
    item = repo.get(report_id, consistent=consistent) if ids.is_id(str(report_id)) else None
    if item is None:
        raise NotFound()
    return item


def _show(viewer: Viewer, report_id: str) -> dict[str, Any]:
    rendered = _render_admin([_report(report_id, consistent=True)], viewer.account_id)
    if not rendered:
        raise NotFound()
    return rendered[0]


def show(viewer: Viewer, report_id: str) -> dict[str, Any]:
    return _show(viewer, report_id)


def _audit(actor: Viewer, action: str, report: dict[str, Any]) -> transaction.Op:
    return audit.entry_op({"id": ids.new_id(), "account_id": actor.account_id, "action": action,
                           "target_type": "Report", "target_id": str(report["id"]),
                           "human_identifier": str(report["id"]),
                           "created_at": clock.iso(clock.now())})


def _change(actor: Viewer, report_id: str, action: str, changes: dict[str, Any]
            ) -> dict[str, Any]:
    report = _report(report_id, consistent=True)
    transaction.write([repo.update_op(report, {**changes, "updated_at": clock.iso(clock.now())}),
                       _audit(actor, action, report)])
    return _show(actor, report_id)


def resolve(actor: Viewer, report_id: str, *, action_taken: bool = True) -> list[transaction.Op]:
    """The writes that set a report's `action_taken` — resolved by `actor` now (True), or
    reopened (False) — with their audit log entry (`resolve` / `reopen`), for the caller's
    transaction: an account action taken with `report_id` resolves it in the transaction
    that applies the action. 404 if there is no such report."""
    report = _report(report_id, consistent=True)
    now = clock.iso(clock.now())
    if action_taken:
        changes = {"action_taken_at": now, "action_taken_by_account_id": actor.account_id}
    else:
        changes = {"action_taken_at": None, "action_taken_by_account_id": None}
    return [repo.update_op(report, {**changes, "updated_at": now}),
            _audit(actor, "resolve" if action_taken else "reopen", report)]


def unresolved_against(target_id: str) -> list[str]:
    """Ids of the unresolved reports against an account (Mastodon's account actions other
    than `none` resolve all of them)."""
    return repo.open_against(target_id) if ids.is_id(str(target_id)) else []


def mark_resolved(actor: Viewer, report_id: str) -> dict[str, Any]:
    """POST /api/v1/admin/reports/:id/resolve."""
    transaction.write(resolve(actor, report_id))
    return _show(actor, report_id)


def reopen(actor: Viewer, report_id: str) -> dict[str, Any]:
    """POST /api/v1/admin/reports/:id/reopen."""
    transaction.write(resolve(actor, report_id, action_taken=False))
    return _show(actor, report_id)


def assign_to_self(actor: Viewer, report_id: str) -> dict[str, Any]:
    return _change(actor, report_id, "assigned_to_self",
                   {"assigned_account_id": actor.account_id})


def unassign(actor: Viewer, report_id: str) -> dict[str, Any]:
    return _change(actor, report_id, "unassigned", {"assigned_account_id": None})


def update(actor: Viewer, report_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """PUT /api/v1/admin/reports/:id: `category` and `rule_ids[]`, with Mastodon's rules —
    rules only for a violation, and then existing ones."""
    report = _report(report_id, consistent=True)
    category = report.get("category", "other")
    if params.get("category") not in (None, ""):
        category = _category(params["category"])
    rule_ids = report.get("rule_ids")
    if "rule_ids" in params:
        rule_ids = _id_list(params["rule_ids"])
    changed = category != report.get("category", "other") or \
        (rule_ids or []) != (report.get("rule_ids") or [])
    if changed:
        if category != "violation" and rule_ids:
            raise Unprocessable(RULES_NOT_BLANK)
        if category == "violation":
            rule_ids = _checked_rules(rule_ids or [])
    changes: dict[str, Any] = {}
    if changed:
        changes = {"category": category, "rule_ids": rule_ids or None,
                   "updated_at": clock.iso(clock.now())}
    transaction.write([*([repo.update_op(report, changes)] if changes else []),
                       _audit(actor, "update", report)])
    return _show(actor, report_id)
