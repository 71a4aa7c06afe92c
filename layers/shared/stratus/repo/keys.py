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


def account_profile(account_id: str) -> dict[str, str]:
    return key(account_pk(account_id), "PROFILE")


def account_stats(account_id: str) -> dict[str, str]:
    return key(account_pk(account_id), "STATS")


def account_user(account_id: str) -> dict[str, str]:
    return key(account_pk(account_id), "USER")


def account_admin(account_id: str) -> dict[str, str]:
    """The staff index entry of an account (GSI keys by origin and moderation status)."""
    return key(account_pk(account_id), "ADMIN")


def admin_index_keys(account_id: str, origin: str, status: str) -> dict[str, str]:
    sk = pad(account_id)
    return {"GSI1PK": f"ADMACCTS#{origin}#{status}", "GSI1SK": sk,
            "GSI2PK": f"ADMACCTS#{origin}", "GSI2SK": sk,
            "GSI3PK": "ADMACCTS", "GSI3SK": sk}


def admin_index_partition(origin: str | None, status: str | None) -> tuple[str | None, str]:
    """(index name, partition) for an admin account listing."""
    if origin and status:
        return "GSI1", f"ADMACCTS#{origin}#{status}"
    if origin:
        return "GSI2", f"ADMACCTS#{origin}"
    return "GSI3", "ADMACCTS"


NOTE_PREFIX = "NOTE#"


def account_note(account_id: str, target_id: str) -> dict[str, str]:
    return key(account_pk(account_id), NOTE_PREFIX + pad(target_id))


def handle(username: str, domain: str | None = None) -> dict[str, str]:
    return key(f"HANDLE#{username.lower()}@{(domain or 'local').lower()}", "HANDLE")


def email(address: str) -> dict[str, str]:
    return key("EMAIL#" + address.strip().lower(), "EMAIL")


def confirmation(token_hash: str) -> dict[str, str]:
    return key("CONFIRM#" + token_hash, "CONFIRM")


# --- roles and moderation ------------------------------------------------------------------
ROLES_PK = "ROLES"


def role(role_id: str) -> dict[str, str]:
    return key(ROLES_PK, "ROLE#" + str(role_id))


def audit(month: str, log_id: str) -> dict[str, str]:
    return key("AUDIT#" + month, pad(log_id))


def audit_index_keys(actor_id: str, target_type: str, target_id: str, log_id: str
                     ) -> dict[str, str]:
    return {"GSI1PK": "AUDITBY#" + pad(actor_id), "GSI1SK": pad(log_id),
            "GSI2PK": f"AUDITON#{target_type}#{target_id}", "GSI2SK": pad(log_id)}


# --- OAuth -------------------------------------------------------------------------------
def app(client_id: str) -> dict[str, str]:
    return key("APP#" + client_id, "APP")


def token(token_hash: str) -> dict[str, str]:
    return key("TOKEN#" + token_hash, "TOKEN")


def token_index_keys(account_id: str, token_id: str) -> dict[str, str]:
    return {"GSI1PK": "TOKENS#" + pad(account_id), "GSI1SK": pad(token_id)}


def tokens_of(account_id: str) -> str:
    return "TOKENS#" + pad(account_id)


def refresh_token(token_hash: str) -> dict[str, str]:
    return key("REFRESH#" + token_hash, "REFRESH")


def authorization_code(code_hash: str) -> dict[str, str]:
    return key("AUTHCODE#" + code_hash, "CODE")


# --- rate limits -------------------------------------------------------------------------
def rate_window(family: str, discriminator: str, window_start: int) -> dict[str, str]:
    return key(f"RATE#{family}#{discriminator}#{window_start}", "RATE")


# --- statuses ----------------------------------------------------------------------------
def status(status_id: str) -> dict[str, str]:
    return key("STATUS#" + pad(status_id), "STATUS")


# --- background jobs ---------------------------------------------------------------------
def dedupe(scope: str, event_id: str) -> dict[str, str]:
    """A sentinel that makes a redelivered stream/SQS message a no-op."""
    return key(f"DEDUPE#{scope}#{event_id}", "DEDUPE")
