"""Instance settings (Mastodon's Setting model): typed, validated, with defaults.

Read by the instance endpoints and NodeInfo, written by `stratusctl settings set` (and the admin
API later). Rules are a list kept as their own items but set and read through the same API.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from stratus.core import clock, ids, mail
from stratus.core.config import settings as config
from stratus.core.errors import Unprocessable
from stratus.core.limits import MAX_RULE_LENGTH, MAX_RULES
from stratus.repo import instance as repo

REGISTRATION_MODES = ("open", "approved", "none")
VISIBILITY_MODES = ("disabled", "users", "all")


@dataclass(frozen=True)
class Setting:
    default: Any
    kind: str = "text"  # text | bool | choice | email
    choices: tuple[str, ...] = ()
    max_length: int = 10_000
    help: str = ""
    # Only for development and test stacks: refused in production, and read there as the
    # default whatever is stored (a copied table or a changed parameter cannot turn it on).
    development_only: bool = False


SETTINGS: dict[str, Setting] = {
    "site_title": Setting("Stratus", max_length=255, help="the server's name"),
    "site_description": Setting("", max_length=2000, help="a short description (plain text)"),
    "contact_email": Setting("", kind="email", help="public contact e-mail address"),
    "contact_username": Setting("", max_length=30, help="username of the contact account"),
    "registrations_mode": Setting("open", kind="choice", choices=REGISTRATION_MODES,
                                  help="who can sign up: open, approved or none"),
    "closed_registrations_message": Setting("", help="shown when registrations are closed"),
    "require_invite_text": Setting(False, kind="bool",
                                   help="ask for a reason when sign-ups need approval"),
    "extended_description": Setting("", max_length=100_000,
                                    help="the about page text (Markdown; HTML allowed, "
                                         "sanitised)"),
    # Mastodon's `site_terms`: empty serves Mastodon's default policy (read/documents.py)
    "privacy_policy": Setting("", max_length=100_000,
                              help="the privacy policy (Markdown; %{domain} is this server's "
                                   "domain); empty: Mastodon's default"),
    "show_domain_blocks": Setting("disabled", kind="choice", choices=VISIBILITY_MODES,
                                  help="who sees the list of moderated servers"),
    "show_domain_blocks_rationale": Setting("disabled", kind="choice",
                                            choices=VISIBILITY_MODES,
                                            help="who sees why servers are moderated"),
    "peers_api_enabled": Setting(True, kind="bool", help="serve /api/v1/instance/peers"),
    "activity_api_enabled": Setting(True, kind="bool",
                                    help="serve /api/v1/instance/activity"),
    # trends (api/trends/trends.py)
    "trends": Setting(True, kind="bool", help="show trending hashtags, statuses and links"),
    "trendable_by_default": Setting(False, kind="bool",
                                    help="let hashtags, statuses and links trend without review"),
    # profiles: the directory, and the accounts staff feature as suggestions
    # (Mastodon's Setting.profile_directory and bootstrap_timeline_accounts)
    "profile_directory": Setting(True, kind="bool", help="serve /api/v1/directory"),
    "bootstrap_timeline_accounts": Setting(
        "", max_length=2000, help="usernames of local accounts suggested to everyone "
                                  "(comma-separated; the `featured` suggestions)"),
    # domains: Mastodon's LIMITED_FEDERATION_MODE (an environment variable there).
    "limited_federation_mode": Setting(False, kind="bool",
                                       help="allowlist mode: federate only with the domains "
                                            "staff allow (enforced once federation exists)"),
    # federation: Mastodon's AUTHORIZED_FETCH ("secure mode"; federation/authorized_fetch.py)
    "authorized_fetch": Setting(False, kind="bool",
                                help="serve actors, collections and statuses only to signed "
                                     "requests from servers we federate with"),
    "instant_signups": Setting(False, kind="bool", development_only=True,
                               help="development and test stacks only: API sign-ups are "
                                    "confirmed at once and not rate-limited"),
}

RULES_KEY = "rules"


def current() -> dict[str, Any]:
    """All settings with defaults filled in, plus `<name>_updated_at` where known."""
    stored = repo.get_settings()
    production = config().is_production
    values = {name: spec.default if spec.development_only and production
              else stored.get(name, spec.default) for name, spec in SETTINGS.items()}
    for name in SETTINGS:
        values[f"{name}_updated_at"] = stored.get(f"{name}_updated_at")
    return values


def _coerce(name: str, spec: Setting, raw: Any) -> Any:
    if spec.kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise Unprocessable(f"{name} must be true or false")
    value = str(raw)
    if len(value) > spec.max_length:
        raise Unprocessable(f"{name} is too long (maximum is {spec.max_length} characters)")
    if spec.kind == "choice" and value not in spec.choices:
        raise Unprocessable(f"{name} must be one of: {', '.join(spec.choices)}")
    if spec.kind == "email" and value and not mail.is_address(value):
        raise Unprocessable(f"{name} is not a valid e-mail address")
    return value


def set_value(name: str, raw: Any) -> Any:
    if name == RULES_KEY:
        return set_rules(raw)
    spec = SETTINGS.get(name)
    if spec is None:
        raise Unprocessable(f"unknown setting {name!r}; known: "
                            + ", ".join([*SETTINGS, RULES_KEY]))
    value = _coerce(name, spec, raw)
    if spec.development_only and value != spec.default and config().is_production:
        raise Unprocessable(f"{name} is only for development and test stacks; this stack's "
                            "Environment is production")
    repo.set_setting(name, value, clock.iso(clock.now()))
    return value


def get_value(name: str) -> Any:
    if name == RULES_KEY:
        return rules()
    if name not in SETTINGS:
        raise Unprocessable(f"unknown setting {name!r}; known: "
                            + ", ".join([*SETTINGS, RULES_KEY]))
    return current()[name]


def rules() -> list[dict[str, Any]]:
    """Rules in their display order (by position, then id)."""
    items = repo.list_rules()
    items.sort(key=lambda r: (int(r.get("position", 0)), int(r["id"])))
    return [{"id": r["id"], "text": r["text"], "hint": r.get("hint", ""),
             "position": int(r.get("position", 0))} for r in items]


def _parse_rules(raw: Any) -> list[dict[str, str]]:
    data = raw
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith("["):
            try:
                data = json.loads(text)
            except ValueError as exc:
                raise Unprocessable("rules must be a JSON list or one rule per line") from exc
        else:
            data = [line.strip() for line in text.splitlines() if line.strip()]
    if not isinstance(data, list):
        raise Unprocessable("rules must be a list")
    parsed = []
    for entry in data:
        if isinstance(entry, str):
            entry = {"text": entry}
        if not isinstance(entry, dict) or not str(entry.get("text", "")).strip():
            raise Unprocessable("each rule needs a text")
        text, hint = str(entry["text"]).strip(), str(entry.get("hint", "")).strip()
        if len(text) > MAX_RULE_LENGTH:
            raise Unprocessable(f"rule text is too long (maximum is {MAX_RULE_LENGTH} characters)")
        parsed.append({"text": text, "hint": hint})
    if len(parsed) > MAX_RULES:
        raise Unprocessable(f"too many rules (maximum is {MAX_RULES})")
    return parsed


def set_rules(raw: Any) -> list[dict[str, Any]]:
    """Replace the rules; a rule whose text is unchanged keeps its id (clients cache rule ids)."""
    parsed = _parse_rules(raw)
    existing = {r["text"]: r["id"] for r in rules()}
    stamp = clock.iso(clock.now())
    items = []
    for position, rule in enumerate(parsed):
        items.append({"id": existing.pop(rule["text"], None) or ids.new_id(),
                      "text": rule["text"], "hint": rule["hint"], "position": position,
                      "updated_at": stamp})
    repo.replace_rules(items)
    return rules()
