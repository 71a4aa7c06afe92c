"""Instance-wide items: settings, rules, custom emoji, stats, weekly activity, peers, blocks."""

from __future__ import annotations

from typing import Any

from stratus.core.errors import ApiError
from stratus.repo import base, keys


# --- settings --------------------------------------------------------------------------
def get_settings() -> dict[str, Any]:
    return base.record(base.get(keys.instance_settings())) or {}


def set_setting(name: str, value: Any, updated_at: str) -> None:
    base.update(keys.instance_settings(),
                "SET #v = :v, #u = :u, #t = :t",
                names={"#v": name, "#u": f"{name}_updated_at", "#t": "type"},
                vals={":v": value, ":u": updated_at, ":t": "settings"})


# --- rules -----------------------------------------------------------------------------
def list_rules() -> list[dict[str, Any]]:
    return list(base.records(base.query(keys.INSTANCE_PK, sk_prefix=keys.RULE_PREFIX)))


def replace_rules(rules: list[dict[str, Any]]) -> None:
    """Replace the whole rule list in one transaction (at most MAX_RULES + existing items)."""
    existing = list_rules()
    ops: list[base.Op] = [base.Op("Delete", key=keys.rule(r["id"])) for r in existing
                          if r["id"] not in {n["id"] for n in rules}]
    for rule in rules:
        ops.append(base.Op("Put", item={**keys.rule(rule["id"]), "type": "rule", **rule}))
    for start in range(0, len(ops), 100):
        base.transact(ops[start:start + 100])


def get_rule(rule_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.rule(rule_id), consistent=True))


def rule_put_op(rule: dict[str, Any], *, new: bool, missing: ApiError | None = None
                ) -> base.Op:
    """Write one rule: a new one (its id unused), or a change of one that must still exist
    (`missing` otherwise)."""
    item = {**keys.rule(rule["id"]), "type": "rule", **rule}
    if new:
        return base.put_new(item)
    return base.Op("Put", item=item, condition="attribute_exists(PK)", on_conflict=missing)


def rule_remove_op(rule_id: str, missing: ApiError) -> base.Op:
    return base.Op("Delete", key=keys.rule(rule_id), condition="attribute_exists(PK)",
                   on_conflict=missing)


# --- terms of service ------------------------------------------------------------------
def list_terms() -> list[dict[str, Any]]:
    """Every version of the terms of service, drafts too (a handful: one Query)."""
    return list(base.records(base.query(keys.INSTANCE_PK, sk_prefix=keys.TERMS_PREFIX)))


def get_terms(terms_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.terms_of_service(terms_id), consistent=True))


def put_terms(terms: dict[str, Any], *, new: bool) -> bool:
    """Write a version: a new one (its id unused), or a change of one that still exists;
    False when that condition failed."""
    item = {**keys.terms_of_service(terms["id"]), "type": "terms_of_service", **terms}
    return base.put(item, condition="attribute_not_exists(PK)" if new else "attribute_exists(PK)")


def remove_terms(terms_id: str) -> None:
    base.delete(keys.terms_of_service(terms_id))


# --- custom emoji ----------------------------------------------------------------------
def list_emojis() -> list[dict[str, Any]]:
    return list(base.records(base.query(keys.INSTANCE_PK, sk_prefix=keys.EMOJI_PREFIX)))


def get_emoji(shortcode: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.emoji(shortcode)))


def put_emoji(emoji: dict[str, Any]) -> None:
    base.put({**keys.emoji(emoji["shortcode"]), "type": "custom_emoji", **emoji})


# --- stats -----------------------------------------------------------------------------
def get_stats() -> dict[str, Any]:
    return base.record(base.get(keys.instance_stats())) or {}


def set_activity_stats(active_month: int, active_halfyear: int, computed_at: str) -> None:
    base.update(keys.instance_stats(), "SET active_month = :m, active_halfyear = :h, "
                "activity_computed_at = :c, #t = :t",
                names={"#t": "type"},
                vals={":m": active_month, ":h": active_halfyear, ":c": computed_at,
                      ":t": "instance_stats"})


def set_week_logins(week: str, logins: int) -> None:
    base.update(keys.activity_week(week), "SET logins = :l", vals={":l": logins})


def weeks(first_monday: str, last_monday: str) -> dict[str, dict[str, Any]]:
    """Weekly activity records between two Mondays, keyed by their Monday (yyyymmdd)."""
    items = base.query(keys.ACTIVITY_PK, sk_between=(keys.WEEK_PREFIX + first_monday,
                                                     keys.WEEK_PREFIX + last_monday))
    return {item["SK"][len(keys.WEEK_PREFIX):]: base.record(item) for item in items}


# --- sign-in activity ------------------------------------------------------------------
def record_active(day: str, account_id: str, ttl: int) -> bool:
    return base.put({**keys.active_day(day, account_id), "type": "activity",
                     "account_id": account_id, "day": day, "ttl": ttl},
                    condition="attribute_not_exists(PK)")


def active_accounts(day: str) -> set[str]:
    return {keys.unpad(item["SK"]) for item in
            base.query(keys.active_day_pk(day))}


# --- federation peers and domain blocks -------------------------------------------------
def list_peers() -> list[str]:
    return [item["SK"] for item in base.query(keys.PEERS_PK, projection="SK")]


def peers_starting_with(prefix: str, limit: int, *, leaving_out: set[str]) -> list[str]:
    """Up to `limit` known peer domains that begin with `prefix`, in name order, without those
    in `leaving_out` (one Query: at most `limit` more than those can be left out)."""
    found: list[str] = []
    for item in base.query(keys.PEERS_PK, sk_prefix=prefix.lower(), projection="SK",
                           limit=limit + len(leaving_out)):
        if item["SK"] not in leaving_out:
            found.append(item["SK"])
            if len(found) == limit:
                break
    return found


def list_domain_blocks() -> list[dict[str, Any]]:
    return list(base.records(base.query(keys.INSTANCE_PK, sk_prefix=keys.DOMAIN_BLOCK_PREFIX)))
