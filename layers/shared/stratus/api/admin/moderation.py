"""Moderating accounts: the staff actions that suspend, silence ("limited"), sensitize and
disable accounts, and undo that (Mastodon's Admin::AccountAction and Admin::AccountsController,
checked as its AccountPolicy and UserPolicy), warnings, and purge requests.

The state and its writes are repo/moderation.py's (the domain-block state machine applies the
same writes); each staff action adds its audit entry (and warning) to the same transaction.
The warning's mail is the mail worker's (workers/mail.py)."""

from __future__ import annotations

from typing import Any

from stratus.core import clock, ids
from stratus.core.errors import Forbidden, NotFound, Unprocessable
from stratus.core.params import flag
from stratus.model import roles
from stratus.model.viewer import Viewer
from stratus.read import roles as roles_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import audit, transaction
from stratus.repo import moderation as repo

TYPES = ("none", "disable", "sensitive", "silence", "suspend")
NOT_ALLOWED = "This action is not allowed"
INVALID_TYPE = "Validation failed: Type is not included in the list"


# --- staff actions -------------------------------------------------------------------------------
def _target(account_id: str) -> tuple[dict[str, Any], dict[str, Any] | None, roles.Role | None]:
    if not ids.is_id(str(account_id)):
        raise NotFound()
    bundle = accounts_repo.get_bundle(account_id, (accounts_repo.PROFILE, accounts_repo.USER))
    profile = bundle.get(accounts_repo.PROFILE)
    if profile is None:
        raise NotFound()
    user = bundle.get(accounts_repo.USER)
    return profile, user, roles_read.role_for(user.get("role_id")) if user else None


def _overrides(actor: Viewer, target_role: roles.Role | None) -> bool:
    """Mastodon's UserRole#overrides?: a role acts on roles below its position only (so nobody
    acts on themselves, nor a moderator on an admin)."""
    return target_role is None or actor.role.position > target_role.position


def _authorize(allowed: bool) -> None:
    if not allowed:
        raise Forbidden(NOT_ALLOWED)


def _audit(actor: Viewer, action: str, profile: dict[str, Any], target_type: str = "Account",
           target_id: str | None = None, human: str | None = None) -> transaction.Op:
    return audit.entry_op({"id": ids.new_id(), "account_id": actor.account_id, "action": action,
                           "target_type": target_type,
                           "target_id": str(target_id or profile["id"]),
                           "human_identifier": human or _acct(profile),
                           "created_at": clock.iso(clock.now())})


def _acct(profile: dict[str, Any]) -> str:
    return f"{profile['username']}@{profile['domain']}" if profile.get("domain") \
        else profile["username"]


def perform(actor: Viewer, account_id: str, params: dict[str, Any]) -> None:
    """POST /api/v1/admin/accounts/:id/action (Admin::AccountAction): apply `type`, record a
    warning (a strike) and, with `send_email_notification`, mail it to a local user."""
    profile, user, target_role = _target(account_id)
    kind = params.get("type")
    if kind not in TYPES:
        raise Unprocessable(INVALID_TYPE)
    preset_id = params.get("warning_preset_id")
    if preset_id not in (None, ""):
        # Warning presets have no API in Mastodon nor here: none can exist (Mastodon finds it
        # or answers 404).
        raise NotFound()
    report_id = params.get("report_id")
    if report_id not in (None, "") and not ids.is_id(str(report_id)):
        raise NotFound()
    if kind in ("disable",) and user is None:
        raise Forbidden(NOT_ALLOWED)  # remote accounts have no user to disable
    if kind != "none":
        _authorize(_overrides(actor, target_role))
    text = params.get("text") if isinstance(params.get("text"), str) else ""
    now = clock.iso(clock.now())
    warning = {"id": ids.new_id(), "target_account_id": account_id,
               "account_id": actor.account_id, "action": kind, "text": text,
               "report_id": str(report_id) if report_id not in (None, "") else None,
               "created_at": now,
               "email": bool(flag(params.get("send_email_notification")) and user is not None
                             and not profile.get("domain"))}
    warning = {k: v for k, v in warning.items() if v is not None}
    also = [repo.warning_op(warning), *_resolved_reports(actor, account_id, kind, report_id)]
    if text and kind == "none":
        also.append(_audit(actor, "create", profile, "AccountWarning", warning["id"]))
    action = {"disable": "disable", "sensitive": "sensitive", "silence": "silence",
              "suspend": "suspend"}.get(kind)
    if action == "disable":
        also.append(_audit(actor, "disable", profile, "User", human=profile["username"]))
    elif action:
        also.append(_audit(actor, action, profile))
    changed = {
        "none": lambda: False,
        "disable": lambda: repo.disable(account_id, also=also),
        "sensitive": lambda: repo.sensitize(account_id, at=now, also=also),
        "silence": lambda: repo.silence(account_id, at=now, also=also),
        "suspend": lambda: repo.suspend(account_id, at=now, origin="local", also=also),
    }[kind]()
    if not changed:
        # Already in that state (or a warning only): the strike and the log entry still stand.
        transaction.write(also)


MAX_RESOLVED = 40  # reports resolved with one action (two writes each, one transaction)


def _resolved_reports(actor: Viewer, account_id: str, kind: str, report_id: Any
                      ) -> list[transaction.Op]:
    """Admin::AccountAction#process_reports!: a warning (`none`) resolves the report it names;
    any other action resolves every unresolved report against the account. An unknown
    `report_id` is 404."""
    from stratus.api.graph import reports

    wanted = [str(report_id)] if report_id not in (None, "") else []
    if kind != "none":
        wanted += reports.unresolved_against(account_id)
    ops: list[transaction.Op] = []
    for rid in list(dict.fromkeys(wanted))[:MAX_RESOLVED]:
        ops += reports.resolve(actor, rid)
    return ops


def _render(account_id: str) -> dict[str, Any]:
    from stratus.api.admin import admin

    return admin.get_account(account_id)


def undo(actor: Viewer, account_id: str, action: str) -> dict[str, Any]:
    """enable, unsilence, unsensitive, unsuspend: each logged when it changed something
    (unsuspend always, as Mastodon); answers the Admin::Account."""
    profile, user, _ = _target(account_id)
    if action == "enable":
        _authorize(user is not None and not profile.get("domain"))  # local accounts only
        repo.enable(account_id, also=[_audit(actor, "enable", profile, "User",
                                        human=profile["username"])])
    elif action == "unsilence":
        repo.unsilence(account_id, also=[_audit(actor, "unsilence", profile)])
    elif action == "unsensitive":
        repo.unsensitize(account_id, also=[_audit(actor, "unsensitive", profile)])
    elif action == "unsuspend":
        _authorize(profile.get("suspension_origin", "local") == "local")
        entry = _audit(actor, "unsuspend", profile)
        if not repo.unsuspend(account_id, also=[entry]):
            transaction.write([entry])
    else:
        raise NotFound()
    return _render(account_id)


def request_purge(actor: Viewer, account_id: str) -> dict[str, Any]:
    """DELETE /api/v1/admin/accounts/:id: only a suspended account whose suspension can still
    be purged (Mastodon's `suspended_temporarily?`), by a role that may delete user data. The
    request item's insert starts the purge state machine (workers/moderation); the request
    answers at once, as Mastodon queues its AccountDeletionWorker."""
    profile, _, _ = _target(account_id)
    _authorize(bool(profile.get("suspended_at")) and bool(profile.get("deletion_requested_at"))
               and actor.can(roles.Permission.DELETE_USER_DATA))
    request = {"account_id": account_id, "requested_by": actor.account_id,
               "suspended_at": profile["suspended_at"], "created_at": clock.iso(clock.now())}
    try:
        transaction.write([repo.purge_request_op(request), _audit(actor, "destroy", profile)])
    except transaction.ConditionFailed:
        pass  # already requested: the purge under way does it
    return {}
