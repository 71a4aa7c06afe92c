"""The moderation log through the API (`GET /api/v1/admin/action_logs`, beyond Mastodon, which
shows it only in its web UI): newest first, by actor or by target account, each entry with the
acting account rendered."""

from __future__ import annotations

from typing import Any

from stratus.convert import admin as convert_admin
from stratus.core import ids
from stratus.core.paging import Budget, Page, fill_page
from stratus.read import status_views
from stratus.repo import audit


def _param_id(value: Any) -> str | None:
    return str(value) if value is not None and ids.is_id(str(value)) else None


def page(params: dict[str, Any], page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """A page of log entries and the ids its Link header continues from. `account_id`: who
    acted; `target_account_id`: the account acted on (entries on it as Account or as User)."""
    actor = _param_id(params.get("account_id"))
    target = _param_id(params.get("target_account_id"))
    if (params.get("account_id") and not actor) or (params.get("target_account_id")
                                                    and not target):
        return [], []  # an id that cannot exist matches nothing
    targets = [("Account", target), ("User", target)] if target else []
    low, high = page.id_range()
    budget = Budget(entries=max(400, 2 * page.limit))
    stream = audit.entries(actor_id=None if targets else actor, targets=targets, low=low,
                           high=high, descending=not page.ascending, budget=budget,
                           step=page.step)

    def hydrate(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = audit.get_many(batch)
        chosen = [found[str(e["id"])] for e in batch if str(e.get("id")) in found]
        if actor:
            chosen = [e for e in chosen if str(e["account_id"]) == actor]
        accounts = status_views.load_accounts([str(e["account_id"]) for e in chosen])
        return [convert_admin.action_log(e, accounts) for e in chosen]

    filled = fill_page(stream, hydrate, page, budget=budget, id_of=lambda e: str(e["id"]),
                       result_id=lambda e: e["id"])
    return filled.items, filled.link_ids
