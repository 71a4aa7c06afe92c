"""Moderating accounts: suspend, silence ("limited"), sensitize and disable, their undoing, the
staff actions that apply them (Mastodon's Admin::AccountAction and Admin::AccountsController,
checked as its AccountPolicy and UserPolicy), warnings and their mail, and purge requests.

The state lives on the items every render path already reads (contract 2): `suspended_at`,
`suspension_origin`, `silenced_at`, `sensitized_at` (and `deletion_requested_at`, Mastodon's
deletion request: a local suspension can be purged until it is undone) on the PROFILE item,
`disabled` on the USER item. Each change is one transaction with the staff index entries that
list the account by state and, for staff actions, the audit entry.

`suspend`, `unsuspend`, `silence` and `unsilence` are also what the domain-block state machine
calls: each is idempotent, and an undo given `at` only undoes the state set at that moment (a
domain block undoes only what it did)."""

from __future__ import annotations

from typing import Any

from stratus.api.accounts import accounts
from stratus.auth import identity
from stratus.core import clock, ids
from stratus.core.errors import Forbidden, NotFound, Unprocessable
from stratus.core.params import flag
from stratus.model import roles
from stratus.model.viewer import Viewer
from stratus.repo import accounts as accounts_repo
from stratus.repo import audit, base, keys
from stratus.repo import moderation as repo

TYPES = ("none", "disable", "sensitive", "silence", "suspend")
NOT_ALLOWED = "This action is not allowed"
INVALID_TYPE = "Validation failed: Type is not included in the list"


# --- the state ------------------------------------------------------------------------------------
def _origin(profile: dict[str, Any]) -> str:
    return "remote" if profile.get("domain") else "local"


def index_ops(profile: dict[str, Any], user: dict[str, Any] | None) -> list[base.Op]:
    """The staff index entries for an account in this state (main status and flags)."""
    main = accounts.admin_entry(profile, user or {})
    flags = {name for name, attribute in repo.FLAGS.items() if profile.get(attribute)}
    return repo.index_ops(profile["id"], _origin(profile), main["status"], flags)


class _Unchanged(Exception):
    """The state was already what the change asks for (or not what an undo expects)."""


def _change(account_id: str, *, profile: dict[str, Any] | None = None,
            user: dict[str, Any] | None = None, condition: str, names: dict[str, str],
            vals: dict[str, Any], on_user: bool = False, also: list[base.Op] = ()) -> bool:
    """Apply `profile` / `user` attribute changes (None removes) under `condition` (on the
    PROFILE item, or the USER item with `on_user`), with the index entries that follow and
    `also`. False when the condition did not hold: nothing was written."""
    bundle = accounts_repo.get_bundle(account_id, (accounts_repo.PROFILE, accounts_repo.USER))
    current_profile, current_user = bundle.get(accounts_repo.PROFILE), bundle.get(accounts_repo.USER)
    if current_profile is None:
        raise NotFound()
    new_profile = {k: v for k, v in {**current_profile, **(profile or {})}.items()
                   if v is not None}
    new_user = ({k: v for k, v in {**current_user, **(user or {})}.items() if v is not None}
                if current_user else None)
    ops: list[base.Op] = []
    for key, changes, guarded in ((keys.account_profile(account_id), profile, not on_user),
                                  (keys.account_user(account_id), user, on_user)):
        if changes is None and not guarded:
            continue
        op = base.set_op(key, changes or {}, condition=None)
        if guarded:
            op.condition = condition
            op.names.update(names)
            op.vals.update(vals)
            op.on_conflict = None
            if not op.expression:  # a condition check alone
                op = base.Op("ConditionCheck", key=key, condition=condition, names=names,
                             vals=vals)
        ops.append(op)
    ops += index_ops(new_profile, new_user)
    ops += list(also)
    try:
        base.transact(ops)
    except base.ConditionFailed:
        return False
    return True


def suspend(account_id: str, *, at: str, origin: str, also: list[base.Op] = ()) -> bool:
    """Suspend (once): the account disappears from the API; a local suspension of a local
    account can be purged (its deletion request) until it is undone."""
    changes: dict[str, Any] = {"suspended_at": at, "suspension_origin": origin}
    if origin == "local":
        changes["deletion_requested_at"] = at
    return _change(account_id, profile=changes, condition="attribute_not_exists(suspended_at)",
                   names={}, vals={}, also=also)


def unsuspend(account_id: str, *, at: str | None = None, also: list[base.Op] = ()) -> bool:
    changes = {"suspended_at": None, "suspension_origin": None, "deletion_requested_at": None}
    if at is None:
        return _change(account_id, profile=changes, condition="attribute_exists(suspended_at)",
                       names={}, vals={}, also=also)
    return _change(account_id, profile=changes, condition="suspended_at = :was",
                   names={}, vals={":was": at}, also=also)


def silence(account_id: str, *, at: str, also: list[base.Op] = ()) -> bool:
    return _change(account_id, profile={"silenced_at": at},
                   condition="attribute_not_exists(silenced_at)", names={}, vals={}, also=also)


def unsilence(account_id: str, *, at: str | None = None, also: list[base.Op] = ()) -> bool:
    if at is None:
        return _change(account_id, profile={"silenced_at": None},
                       condition="attribute_exists(silenced_at)", names={}, vals={}, also=also)
    return _change(account_id, profile={"silenced_at": None}, condition="silenced_at = :was",
                   names={}, vals={":was": at}, also=also)


def sensitize(account_id: str, *, at: str, also: list[base.Op] = ()) -> bool:
    return _change(account_id, profile={"sensitized_at": at},
                   condition="attribute_not_exists(sensitized_at)", names={}, vals={}, also=also)


def unsensitize(account_id: str, *, also: list[base.Op] = ()) -> bool:
    return _change(account_id, profile={"sensitized_at": None},
                   condition="attribute_exists(sensitized_at)", names={}, vals={}, also=also)


def disable(account_id: str, *, also: list[base.Op] = ()) -> bool:
    """The user can no longer sign in or use its tokens (they work again once enabled)."""
    return _change(account_id, user={"disabled": True}, on_user=True,
                   condition="attribute_exists(PK) AND (attribute_not_exists(disabled) "
                             "OR disabled = :no)", names={}, vals={":no": False}, also=also)


def enable(account_id: str, *, also: list[base.Op] = ()) -> bool:
    return _change(account_id, user={"disabled": False}, on_user=True,
                   condition="disabled = :yes", names={}, vals={":yes": True}, also=also)


# --- staff actions -------------------------------------------------------------------------------
def _target(account_id: str) -> tuple[dict[str, Any], dict[str, Any] | None, roles.Role | None]:
    if not ids.is_id(str(account_id)):
        raise NotFound()
    bundle = accounts_repo.get_bundle(account_id, (accounts_repo.PROFILE, accounts_repo.USER))
    profile = bundle.get(accounts_repo.PROFILE)
    if profile is None:
        raise NotFound()
    user = bundle.get(accounts_repo.USER)
    return profile, user, identity.role_for(user.get("role_id")) if user else None


def _overrides(actor: Viewer, target_role: roles.Role | None) -> bool:
    """Mastodon's UserRole#overrides?: a role acts on roles below its position only (so nobody
    acts on themselves, nor a moderator on an admin)."""
    return target_role is None or actor.role.position > target_role.position


def _authorize(allowed: bool) -> None:
    if not allowed:
        raise Forbidden(NOT_ALLOWED)


def _audit(actor: Viewer, action: str, profile: dict[str, Any], target_type: str = "Account",
           target_id: str | None = None, human: str | None = None) -> base.Op:
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
        "disable": lambda: disable(account_id, also=also),
        "sensitive": lambda: sensitize(account_id, at=now, also=also),
        "silence": lambda: silence(account_id, at=now, also=also),
        "suspend": lambda: suspend(account_id, at=now, origin="local", also=also),
    }[kind]()
    if not changed:
        # Already in that state (or a warning only): the strike and the log entry still stand.
        base.transact(also)


MAX_RESOLVED = 40  # reports resolved with one action (two writes each, one transaction)


def _resolved_reports(actor: Viewer, account_id: str, kind: str, report_id: Any
                      ) -> list[base.Op]:
    """Admin::AccountAction#process_reports!: a warning (`none`) resolves the report it names;
    any other action resolves every unresolved report against the account. An unknown
    `report_id` is 404."""
    from stratus.api.graph import reports

    wanted = [str(report_id)] if report_id not in (None, "") else []
    if kind != "none":
        wanted += reports.unresolved_against(account_id)
    ops: list[base.Op] = []
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
        enable(account_id, also=[_audit(actor, "enable", profile, "User",
                                        human=profile["username"])])
    elif action == "unsilence":
        unsilence(account_id, also=[_audit(actor, "unsilence", profile)])
    elif action == "unsensitive":
        unsensitize(account_id, also=[_audit(actor, "unsensitive", profile)])
    elif action == "unsuspend":
        _authorize(profile.get("suspension_origin", "local") == "local")
        entry = _audit(actor, "unsuspend", profile)
        if not unsuspend(account_id, also=[entry]):
            base.transact([entry])
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
        base.transact([repo.purge_request_op(request), _audit(actor, "destroy", profile)])
    except base.ConditionFailed:
        pass  # already requested: the purge under way does it
    return {}


# --- warning mail ----------------------------------------------------------------------------
SUBJECTS = {
    "none": "Warning for {acct}",
    "disable": "Your account {acct} has been frozen",
    "sensitive": "Your account {acct} posting media has been marked as sensitive",
    "silence": "Your account {acct} has been limited",
    "suspend": "Your account {acct} has been suspended",
}
EXPLANATIONS = {
    "none": "A moderator has sent you a warning.",
    "disable": "You can no longer use your account, but your profile and other data remain "
               "intact.",
    "sensitive": "From now on, all your uploaded media files will be marked as sensitive and "
                 "hidden behind a click-through warning.",
    "silence": "Your account has been limited: only people who already follow you will see "
               "your posts on this server, and you may be excluded from public listings.",
    "suspend": "You can no longer use your account, and your profile and other data are no "
               "longer accessible.",
}


def warning_mail(account_id: str, warning_id: str) -> tuple[str, str, str] | None:
    """(to, subject, body) of a warning's mail (Mastodon's UserMailer#warning), or None when
    the user or the warning is gone."""
    from stratus.core.config import settings
    from stratus.read import settings as settings_service

    warning = repo.get_warning(account_id, warning_id)
    user = accounts_repo.get_user(account_id)
    profile = accounts_repo.get_profile(account_id)
    if warning is None or user is None or profile is None:
        return None
    title = settings_service.current()["site_title"]
    acct = f"@{profile['username']}@{settings().domain}"
    body = f"Hello @{profile['username']},\n\n{EXPLANATIONS[warning['action']]}\n"
    if warning.get("text"):
        body += f"\nNote from the moderators of {title}:\n\n{warning['text']}\n"
    body += f"\n{title} ({settings().base_url})\n"
    return user["email"], SUBJECTS[warning["action"]].format(acct=acct), body
