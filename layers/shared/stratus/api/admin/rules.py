"""The server rules as staff and the operator manage them, one at a time (beyond Mastodon's
API: its admin has them only in the web UI). Staff need Manage Rules and each change is in the
audit log (`create`, `update`, `destroy` on `Rule`, as Mastodon's Admin::RulesController logs
them); `stratusctl rules` makes the same changes without an actor, unaudited. Replacing the
whole list at once stays `stratusctl settings set rules` (read/settings.py).

The admin entity is the Rule (`id`, `text`, `hint`, `translations`) with `priority`, its place
in the list (Mastodon's column: lower first, then by id)."""

from __future__ import annotations

from typing import Any

from stratus.convert import instance as convert
from stratus.core import clock, ids
from stratus.core.errors import NotFound, ValidationFailed
from stratus.core.limits import MAX_RULE_LENGTH, MAX_RULES
from stratus.core.params import to_i
from stratus.model.viewer import Viewer
from stratus.read import settings
from stratus.repo import audit, transaction
from stratus.repo import instance as repo


def entity(rule: dict[str, Any]) -> dict[str, Any]:
    return {**convert.rule(rule), "priority": int(rule.get("position", 0))}


def listing() -> list[dict[str, Any]]:
    return [entity(r) for r in settings.rules()]


def _get(rule_id: str) -> dict[str, Any]:
    rule = repo.get_rule(rule_id) if ids.is_id(rule_id) else None
    if rule is None:
        raise NotFound()
    return rule


def show(rule_id: str) -> dict[str, Any]:
    return entity(_get(rule_id))


def _text(raw: Any, field: str, *, required: bool) -> str:
    value = raw.strip() if isinstance(raw, str) else ""
    if required and not value:
        raise ValidationFailed({field: [("ERR_BLANK", "can't be blank")]})
    if field == "text" and len(value) > MAX_RULE_LENGTH:
        raise ValidationFailed({field: [("ERR_TOO_LONG", f"is too long (maximum is "
                                                         f"{MAX_RULE_LENGTH} characters)")]})
    return value


def _log(actor: Viewer | None, action: str, rule: dict[str, Any]) -> list[transaction.Op]:
    if actor is None:
        return []
    return [audit.entry_op({"id": ids.new_id(), "account_id": actor.account_id,
                            "action": action, "target_type": "Rule",
                            "target_id": str(rule["id"]), "human_identifier": rule["text"],
                            "created_at": clock.iso(clock.now())})]


def create(actor: Viewer | None, params: dict[str, Any]) -> dict[str, Any]:
    """A new rule (`text`, `hint`, `priority`; by default after the others)."""
    existing = settings.rules()
    if len(existing) >= MAX_RULES:
        raise ValidationFailed({"base": [("ERR_TOO_MANY",
                                          f"too many rules (maximum is {MAX_RULES})")]})
    now = clock.iso(clock.now())
    position = to_i(params["priority"]) if params.get("priority") not in (None, "") else \
        max((r["position"] for r in existing), default=-1) + 1
    rule = {"id": ids.new_id(), "text": _text(params.get("text"), "text", required=True),
            "hint": _text(params.get("hint"), "hint", required=False), "position": position,
            "created_at": now, "updated_at": now}
    transaction.write([repo.rule_put_op(rule, new=True), *_log(actor, "create", rule)])
    return entity(rule)


def update(actor: Viewer | None, rule_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """Change a rule's `text`, `hint` or `priority` (each only when given); its id stays, so
    reports that name it keep naming it."""
    rule = dict(_get(rule_id))
    if "text" in params:
        rule["text"] = _text(params["text"], "text", required=True)
    if "hint" in params:
        rule["hint"] = _text(params["hint"], "hint", required=False)
    if params.get("priority") not in (None, ""):
        rule["position"] = to_i(params["priority"])
    rule["updated_at"] = clock.iso(clock.now())
    transaction.write([repo.rule_put_op(rule, new=False, missing=NotFound()),
                       *_log(actor, "update", rule)])
    return entity(rule)


def destroy(actor: Viewer | None, rule_id: str) -> None:
    """Remove a rule. Reports that named it no longer show it (Mastodon keeps it, discarded)."""
    rule = _get(rule_id)
    transaction.write([repo.rule_remove_op(rule["id"], NotFound()),
                       *_log(actor, "destroy", rule)])
