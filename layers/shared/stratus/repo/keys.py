"""Every DynamoDB key format of Stratus, and nothing else.

Grammar (see docs/data-model.md): `PK = <ENTITY>#<id>` or a fixed partition name,
`SK = <KIND>` or `<KIND>#<id20>`. Ids inside keys are zero-padded to 20 digits so that
lexicographic order is numeric order. No other module builds key strings.
"""

from __future__ import annotations

ID_WIDTH = 20


def pad(snowflake: str | int) -> str:
    return str(int(snowflake)).zfill(ID_WIDTH)


def unpad(padded: str) -> str:
    return str(int(padded))


def key(pk: str, sk: str) -> dict[str, str]:
    return {"PK": pk, "SK": sk}


# --- instance -----------------------------------------------------------------------------
INSTANCE_PK = "INSTANCE"


def instance_settings() -> dict[str, str]:
    return key(INSTANCE_PK, "SETTINGS")


def instance_stats() -> dict[str, str]:
    return key(INSTANCE_PK, "STATS")


RULE_PREFIX = "RULE#"


def rule(rule_id: str) -> dict[str, str]:
    return key(INSTANCE_PK, RULE_PREFIX + pad(rule_id))


EMOJI_PREFIX = "EMOJI#"


def emoji(shortcode: str) -> dict[str, str]:
    return key(INSTANCE_PK, EMOJI_PREFIX + shortcode)


DOMAIN_BLOCK_PREFIX = "DOMBLOCK#"


def domain_block(domain: str) -> dict[str, str]:
    return key(INSTANCE_PK, DOMAIN_BLOCK_PREFIX + domain.lower())


PEERS_PK = "PEERS"


def peer(domain: str) -> dict[str, str]:
    return key(PEERS_PK, domain.lower())


# Weekly activity counters (GET /api/v1/instance/activity); the week is its Monday, yyyymmdd.
ACTIVITY_PK = "INSTANCE#ACTIVITY"
WEEK_PREFIX = "WEEK#"


def activity_week(monday_yyyymmdd: str) -> dict[str, str]:
    return key(ACTIVITY_PK, WEEK_PREFIX + monday_yyyymmdd)


# Sign-in activity: one item per account per UTC day it used the API.
def active_day_pk(yyyymmdd: str) -> str:
    return "ACTIVE#" + yyyymmdd


def active_day(yyyymmdd: str, account_id: str) -> dict[str, str]:
    return key(active_day_pk(yyyymmdd), pad(account_id))


# --- accounts ----------------------------------------------------------------------------
def account_pk(account_id: str) -> str:
    return "ACCT#" + pad(account_id)


def account_user(account_id: str) -> dict[str, str]:
    return key(account_pk(account_id), "USER")


# --- statuses ----------------------------------------------------------------------------
def status(status_id: str) -> dict[str, str]:
    return key("STATUS#" + pad(status_id), "STATUS")


# --- background jobs ---------------------------------------------------------------------
def dedupe(scope: str, event_id: str) -> dict[str, str]:
    """A sentinel that makes a redelivered stream/SQS message a no-op."""
    return key(f"DEDUPE#{scope}#{event_id}", "DEDUPE")
