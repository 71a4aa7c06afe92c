"""Staff actions on accounts: the listings (v1 flags, v2 enums), approve and reject — each
action written to the audit log in the same transaction as the change it records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from stratus.auth.confirmation import confirmation_token
from stratus.auth.tokens import digest
from stratus.convert import accounts as convert
from stratus.core import clock, ids
from stratus.core.errors import Forbidden, NotFound
from stratus.core.paging import EXAMINED_PER_PAGE, Budget, Page, fill_page
from stratus.core.params import flag
from stratus.model.viewer import Viewer
from stratus.read import roles as roles_read
from stratus.repo import accounts as repo
from stratus.repo import audit, transaction
from stratus.repo import moderation as moderation_repo
from stratus.repo import oauth as oauth_repo

# Listing states, each an index partition (repo/moderation.py keeps them in step).
STATUSES = ("active", "pending", "disabled", "silenced", "suspended", "sensitized")
NOT_ALLOWED = "This action is not allowed"


def v1_filters(params: dict[str, Any]) -> dict[str, Any]:
    """Mastodon's v1 presence flags, with its defaults: local and active unless told otherwise."""
    origin = "remote" if flag(params.get("remote")) else "local"
    # As Mastodon translates them, the last flag present wins (sensitized, a state of its own
    # here, ranks first).
    order = ("sensitized", "active", "pending", "disabled", "silenced", "suspended")
    status = next((s for s in reversed(order) if flag(params.get(s))), "active")
    return {"origin": origin, "status": status, "staff": flag(params.get("staff")),
            **{k: params.get(k) for k in ("username", "display_name", "email", "ip", "by_domain")}}


def v2_filters(params: dict[str, Any]) -> dict[str, Any]:
    origin = params.get("origin") if params.get("origin") in ("local", "remote") else None
    status = params.get("status") if params.get("status") in STATUSES else None
    role_ids = params.get("role_ids") or []
    return {"origin": origin, "status": status, "staff": params.get("permissions") == "staff",
            "role_ids": [str(r) for r in role_ids] if isinstance(role_ids, list) else [],
            **{k: params.get(k) for k in ("username", "display_name", "email", "ip", "by_domain")}}


def _entries(filters: dict[str, Any], page: Page, budget: Budget
             ) -> Iterator[dict[str, Any]]:
    low, high = page.id_range()
    return moderation_repo.listing(filters.get("origin"), filters.get("status"), low=low,
                                   high=high, descending=not page.ascending, budget=budget,
                                   step=page.step)


def _matches(bundle: dict[str, dict[str, Any]], filters: dict[str, Any]) -> bool:
    profile, user = bundle.get(repo.PROFILE), bundle.get(repo.USER) or {}
    if profile is None:
        return False
    text = lambda v: str(v).lower() if isinstance(v, str) and v else None  # noqa: E731
    if text(filters.get("username")) and not profile["username"].lower().startswith(
            text(filters["username"])):
        return False
    if text(filters.get("display_name")) and text(filters["display_name"]) not in \
            profile.get("display_name", "").lower():
        return False
    if text(filters.get("email")) and text(filters["email"]) not in user.get("email", "").lower():
        return False
    if text(filters.get("ip")) and user.get("sign_up_ip") != filters["ip"]:
        return False
    if text(filters.get("by_domain")) and (profile.get("domain") or "") != text(filters["by_domain"]):
        return False
    role = roles_read.role_for(user.get("role_id"))
    if filters.get("staff") and not role.staff:
        return False
    if filters.get("role_ids") and str(user.get("role_id")) not in filters["role_ids"]:
        return False
    return True


def list_accounts(filters: dict[str, Any], page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """Admin::Account entities, newest first, filtered, one page (loops to fill it, within
    the examination budget), and the ids its Link header continues from."""
    def hydrate(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ids_ = [e["account_id"] for e in entries]
        bundles = repo.get_many(ids_, (repo.PROFILE, repo.STATS, repo.USER))
        return [_render(bundles[a]) for a in ids_ if a in bundles and _matches(bundles[a], filters)]

    budget = Budget(entries=max(EXAMINED_PER_PAGE, 2 * page.limit))
    filled = fill_page(_entries(filters, page, budget), hydrate, page, budget=budget,
                       id_of=lambda e: e["account_id"], result_id=lambda a: a["id"])
    return filled.items, filled.link_ids


def _render(bundle: dict[str, dict[str, Any]]) -> dict[str, Any]:
    user = bundle.get(repo.USER)
    return convert.admin_account(bundle[repo.PROFILE], bundle.get(repo.STATS), user,
                                 roles_read.role_for((user or {}).get("role_id")))


def _bundle(account_id: str) -> dict[str, dict[str, Any]]:
    if not ids.is_id(account_id):
        raise NotFound()
    bundle = repo.get_bundle(account_id)
    if repo.PROFILE not in bundle:
        raise NotFound()
    return bundle


def get_account(account_id: str) -> dict[str, Any]:
    return _render(_bundle(account_id))


def _audit(actor: Viewer, action: str, profile: dict[str, Any]) -> transaction.Op:
    return audit.entry_op({"id": ids.new_id(), "account_id": actor.account_id, "action": action,
                           "target_type": "User", "target_id": str(profile["id"]),
                           "human_identifier": profile["username"],
                           "created_at": clock.iso(clock.now())})


def approve(actor: Viewer, account_id: str) -> dict[str, Any]:
    bundle = _bundle(account_id)
    profile, user = bundle[repo.PROFILE], bundle.get(repo.USER)
    if user is None or profile.get("domain") or user.get("approved", True):
        raise Forbidden(NOT_ALLOWED)
    # Conditional: two staff approving at once (or approve racing reject) cannot both win.
    transaction.write([*moderation_repo.approve_ops(profile, user,
                                                    on_conflict=Forbidden(NOT_ALLOWED)),
                       _audit(actor, "approve", profile)])
    return get_account(account_id)


def reject(actor: Viewer, account_id: str) -> None:
    """Reject a pending sign-up: the account is deleted and its username freed (Mastodon)."""
    bundle = _bundle(account_id)
    profile, user = bundle[repo.PROFILE], bundle.get(repo.USER)
    if user is None or profile.get("domain") or user.get("approved", True):
        raise Forbidden(NOT_ALLOWED)
    nonce = user.get("confirmation_nonce")
    confirmation_hash = digest(confirmation_token(account_id, nonce)) if nonce else None
    transaction.write([*moderation_repo.reject_ops(profile, user, confirmation_hash,
                                                   on_conflict=Forbidden(NOT_ALLOWED)),
                       _audit(actor, "reject", profile)])
    for token in oauth_repo.account_tokens(account_id):
        oauth_repo.delete_token(token)
