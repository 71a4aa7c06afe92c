"""Every DynamoDB key format of Stratus, and nothing else.

Grammar (see docs/data-model.md): `PK = <ENTITY>#<id>` or a fixed partition name,
`SK = <KIND>` or `<KIND>#<id20>`. Ids inside keys are zero-padded to 20 digits so that
lexicographic order is numeric order. No other module builds key strings.
"""

from __future__ import annotations

import hashlib
import time

from stratus.core import hosts

ID_WIDTH = 20
MAX_SK = "~"  # sorts after every digit and letter
# The attributes that place an item in the table and its indexes: repo/ sets and reads them;
# a record handed to the rest of the code has none of them (base.record).
KEY_ATTRIBUTES = frozenset({"PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "GSI3PK",
                            "GSI3SK"})


def pad(snowflake: str | int) -> str:
    return str(int(snowflake)).zfill(ID_WIDTH)


def unpad(padded: str) -> str:
    return str(int(padded))


def id_range(low: int | None, high: int | None) -> tuple[str, str]:
    """Sort-key bounds for ids in [low, high] (None = unbounded)."""
    return (pad(low) if low is not None else pad(0),
            pad(high) if high is not None else MAX_SK)


def id_in(key_part: str) -> str:
    """The id a key part ends with: `STATUS#000…123` → `123`."""
    return unpad(key_part.rsplit("#", 1)[1])


def id_from_sk(sort_key: str) -> str:
    """The id a listing's sort key ends with: `000…123`, `S#000…123` → `123`."""
    return unpad(sort_key.rsplit("#", 1)[-1])


def prefix_of(key_part: str) -> str:
    """The kind a key part starts with: `FAV#000…123` → `FAV#`."""
    return key_part.split("#", 1)[0] + "#"


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


def status_translation(status_id: str, version: str, target: str) -> dict[str, str]:
    """A translation of one version of a status (`version`: when it was last edited, or made)
    into a language, kept a day (repo/translate.py)."""
    return key("TRANSLATION#" + pad(status_id), f"{version}#{target}")


TERMS_PREFIX = "TOS#"


def terms_of_service(terms_id: str) -> dict[str, str]:
    """A version of the terms of service (drafts too), by its id."""
    return key(INSTANCE_PK, TERMS_PREFIX + pad(terms_id))


EMOJI_PREFIX = "EMOJI#"


def emoji(shortcode: str) -> dict[str, str]:
    return key(INSTANCE_PK, EMOJI_PREFIX + shortcode)


DOMAIN_BLOCK_PREFIX = "DOMBLOCK#"


def domain_block(domain: str) -> dict[str, str]:
    return key(INSTANCE_PK, DOMAIN_BLOCK_PREFIX + domain.lower())


PEERS_PK = "PEERS"


def peer(domain: str) -> dict[str, str]:
    return key(PEERS_PK, domain.lower())


def signing_scheme(host: str) -> dict[str, str]:
    """The signature scheme a peer host (with any port) accepted last (repo/peers.py)."""
    return key("HOST#" + host.lower(), "SIGNING")


def after_domain(domain: str) -> str:
    """The lowest sort key after `domain` in the peers partition (no domain contains `!`, which
    sorts below every character a domain has)."""
    return domain.lower() + "!"


# The accounts of each remote domain, one item per account (a domain block acts on all of them).
def domain_accounts_pk(domain: str) -> str:
    return "DOMACCTS#" + domain.lower()


def domain_account(domain: str, account_id: str) -> dict[str, str]:
    return key(domain_accounts_pk(domain), pad(account_id))


def after_id(account_id: str | None) -> str:
    """The lowest padded-id sort key after `account_id` (the first one when None)."""
    return pad(int(account_id) + 1) if account_id else pad(0)


MAX_SK = "~"


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


# --- moderation (actions): account state memberships, warnings, purge requests ---------------
ADMIN_FLAG_PREFIX = "ADMIN#"


def account_admin_flag(account_id: str, status: str) -> dict[str, str]:
    """A second staff index entry for a state an account has besides its main status (silenced,
    sensitized): Mastodon's filters overlap (a silenced account is also active)."""
    return key(account_pk(account_id), ADMIN_FLAG_PREFIX + status)


def admin_flag_index_keys(account_id: str, origin: str, status: str) -> dict[str, str]:
    return {"GSI1PK": f"ADMACCTS#{origin}#{status}", "GSI1SK": pad(account_id)}


WARNING_PREFIX = "WARNING#"


def account_warning(account_id: str, warning_id: str) -> dict[str, str]:
    """Mastodon's AccountWarning (a strike): what staff did to the account, and why."""
    return key(account_pk(account_id), WARNING_PREFIX + pad(warning_id))


def purge_request(account_id: str) -> dict[str, str]:
    """A staff request to purge an account's data (its insert starts the purge state machine)."""
    return key("PURGE#" + pad(account_id), "PURGE")


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


ACTOR_KEY_SK = "ACTORKEY"


def actor_key(account_id: str | None) -> dict[str, str]:
    """The RSA key pair of a local account's actor, or of the instance actor (None)."""
    return key(account_pk(account_id) if account_id is not None else INSTANCE_PK, ACTOR_KEY_SK)


def handle(username: str, domain: str | None = None) -> dict[str, str]:
    """`user@domain`, the domain as core/hosts.py writes it (a remote account is stored under
    its normalised host, so `a@Пример.РФ` finds `a@xn--e1afmkfd.xn--p1ai`)."""
    place = (hosts.normalize(domain) or domain.lower()) if domain else "local"
    return key(f"HANDLE#{username.lower()}@{place}", "HANDLE")


def object_uri(uri: str) -> dict[str, str]:
    """A remote object's ActivityPub id in the URI index (repo/uris.py). URIs may be longer
    than a key may be, so the key holds their SHA-256; the item keeps the URI itself."""
    return key("URI#" + hashlib.sha256(uri.encode()).hexdigest(), "URI")


def email(address: str) -> dict[str, str]:
    return key("EMAIL#" + address.strip().lower(), "EMAIL")


def confirmation(token_hash: str) -> dict[str, str]:
    return key("CONFIRM#" + token_hash, "CONFIRM")


# --- roles and moderation ------------------------------------------------------------------
ROLES_PK = "ROLES"


def role(role_id: str) -> dict[str, str]:
    return key(ROLES_PK, "ROLE#" + str(role_id))


# --- sign-up and access blocks: e-mail domains, canonical e-mails, IP ranges ------
# Each block is an item in its kind's partition by id (listing, lookup by id) and, for e-mail
# blocks, a sentinel named by what it blocks (uniqueness, and the sign-up check by key).
EMAIL_DOMAIN_BLOCKS_PK = "EMAILDOMBLOCKS"
CANONICAL_EMAIL_BLOCKS_PK = "CANONBLOCKS"
IP_BLOCKS_PK = "IPBLOCKS"


def email_domain_block(block_id: str) -> dict[str, str]:
    return key(EMAIL_DOMAIN_BLOCKS_PK, pad(block_id))


def email_domain_blocked(domain: str) -> dict[str, str]:
    return key("EMAILDOMAIN#" + domain, "EMAILDOMAIN")


def canonical_email_block(block_id: str) -> dict[str, str]:
    return key(CANONICAL_EMAIL_BLOCKS_PK, pad(block_id))


def canonical_email_blocked(email_hash: str) -> dict[str, str]:
    return key("CANONHASH#" + email_hash, "CANONHASH")


def ip_block(block_id: str) -> dict[str, str]:
    return key(IP_BLOCKS_PK, pad(block_id))


def audit(month: str, log_id: str) -> dict[str, str]:
    return key("AUDIT#" + month, pad(log_id))


def audit_on(target_type: str, target_id: str) -> str:
    return f"AUDITON#{target_type}#{target_id}"


def audit_index_keys(actor_id: str, target_type: str, target_id: str, log_id: str
                     ) -> dict[str, str]:
    return {"GSI1PK": "AUDITBY#" + pad(actor_id), "GSI1SK": pad(log_id),
            "GSI2PK": audit_on(target_type, target_id), "GSI2SK": pad(log_id),
            "GSI3PK": AUDIT_ALL, "GSI3SK": pad(log_id)}  # the whole log, newest first


AUDIT_ALL = "AUDITLOG"


def audit_by(actor_id: str) -> str:
    return "AUDITBY#" + pad(actor_id)


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
def status_pk(status_id: str) -> str:
    return "STATUS#" + pad(status_id)


def status(status_id: str) -> dict[str, str]:
    return key(status_pk(status_id), "STATUS")


def status_stats(status_id: str) -> dict[str, str]:
    return key(status_pk(status_id), "STATS")


EDIT_PREFIX = "EDIT#"


def status_edit(status_id: str, edit_id: str) -> dict[str, str]:
    return key(status_pk(status_id), EDIT_PREFIX + pad(edit_id))


def status_index_keys(account_id: str, status_id: str, thread_id: str,
                      public_scope: str | None) -> dict[str, str]:
    """GSI1: an account's statuses; GSI2: a thread; GSI3: the public timeline of its scope
    (LOCAL or REMOTE), in the hour bucket and shard its id falls in."""
    sk = pad(status_id)
    keys_ = {"GSI1PK": "ASTAT#" + pad(account_id), "GSI1SK": sk,
             "GSI2PK": "THREAD#" + pad(thread_id), "GSI2SK": sk}
    if public_scope:
        keys_.update({"GSI3PK": public_partition(public_scope, public_hour(status_id),
                                                 int(status_id) % PUBLIC_SHARDS),
                      "GSI3SK": sk})
    return keys_


# The public timelines: statuses of one hour are spread over PUBLIC_SHARDS partitions by id (a
# Snowflake's low bits are a sequence, so consecutive posts land on different shards); a
# directory partition lists the hours that have any, so a reader skips quiet hours in one call.
PUBLIC_SHARDS = 4


def public_hour(status_id: str | int) -> str:
    """The hour a status id was minted in, `yyyymmddhh` (UTC)."""
    moment = time.gmtime((int(status_id) >> 16) // 1000)
    return time.strftime("%Y%m%d%H", moment)


def public_partition(scope: str, hour: str, shard: int) -> str:
    return f"PUB#{scope}#{hour}#{shard}"


def public_hours(scope: str) -> str:
    return f"PUBHOURS#{scope}"


def public_hour_entry(scope: str, hour: str) -> dict[str, str]:
    return key(public_hours(scope), hour)


def account_statuses(account_id: str) -> str:
    return "ASTAT#" + pad(account_id)


def thread(thread_id: str) -> str:
    return "THREAD#" + pad(thread_id)


# Viewer edges live in the viewer's partition under deterministic keys, so a page of statuses
# gets all its viewer flags from one BatchGetItem.
FAV, BOOKMARK, REBLOG, PIN, MUTED_THREAD = "FAV#", "BMK#", "REBLOG#", "PIN#", "MUTECONV#"


def favourite(account_id: str, status_id: str) -> dict[str, str]:
    return key(account_pk(account_id), FAV + pad(status_id))


def bookmark(account_id: str, status_id: str) -> dict[str, str]:
    return key(account_pk(account_id), BOOKMARK + pad(status_id))


def reblog_edge(account_id: str, status_id: str) -> dict[str, str]:
    return key(account_pk(account_id), REBLOG + pad(status_id))


def pin(account_id: str, status_id: str) -> dict[str, str]:
    return key(account_pk(account_id), PIN + pad(status_id))


def muted_thread(account_id: str, thread_id: str) -> dict[str, str]:
    return key(account_pk(account_id), MUTED_THREAD + pad(thread_id))


def edge_index_keys(kind: str, owner_id: str, status_id: str, edge_id: str) -> dict[str, str]:
    """GSI1: who did `kind` to a status; GSI2: the owner's list of `kind`, by edge id."""
    return {"GSI1PK": f"{kind}BY#" + pad(status_id), "GSI1SK": pad(edge_id),
            "GSI2PK": f"{kind}S#" + pad(owner_id), "GSI2SK": pad(edge_id)}


def edges_by_status(kind: str, status_id: str) -> str:
    return f"{kind}BY#" + pad(status_id)


def edges_of(kind: str, owner_id: str) -> str:
    return f"{kind}S#" + pad(owner_id)


# --- polls, media, scheduled statuses, hashtags, notifications ----------------------------
def poll(poll_id: str) -> dict[str, str]:
    return key(poll_pk(poll_id), "POLL")


def poll_pk(poll_id: str) -> str:
    return "POLL#" + pad(poll_id)


def poll_vote(poll_id: str, account_id: str) -> dict[str, str]:
    return key(poll_pk(poll_id), VOTE_PREFIX + pad(account_id))


VOTE_PREFIX = "VOTE#"


def media(media_id: str) -> dict[str, str]:
    return key("MEDIA#" + pad(media_id), "MEDIA")


def scheduled_status(scheduled_id: str) -> dict[str, str]:
    return key("SCHED#" + pad(scheduled_id), "SCHED")


def scheduled_index_keys(account_id: str, scheduled_id: str) -> dict[str, str]:
    return {"GSI2PK": "SCHEDS#" + pad(account_id), "GSI2SK": pad(scheduled_id)}


def scheduled_of(account_id: str) -> str:
    return "SCHEDS#" + pad(account_id)


def tag(name: str) -> dict[str, str]:
    return key("TAG#" + name.lower(), "TAG")


TAGS_LISTING = "TAGS"  # GSI1 of the tags' markers: every tag ever used, by its id


def tag_listing_keys(tag_id: str) -> dict[str, str]:
    return {"GSI1PK": TAGS_LISTING, "GSI1SK": pad(tag_id)}


def tag_name_in(partition: str) -> str:
    """The tag a tag's partition key names: `TAG#cats` → `cats`."""
    return partition.removeprefix("TAG#")


def tag_policy() -> dict[str, str]:
    """The names of the tags staff made unusable or unlisted, on one item (a warm cache)."""
    return key(INSTANCE_PK, "TAGPOLICY")


TAGGED_PREFIX = "S#"


def tagged_status(name: str, status_id: str) -> dict[str, str]:
    return key("TAG#" + name.lower(), TAGGED_PREFIX + pad(status_id))


def tagged_range(name: str, lo: str, hi: str) -> tuple[str, tuple[str, str]]:
    """(partition, sort-key bounds) of a hashtag's statuses between two padded ids."""
    return "TAG#" + name.lower(), (TAGGED_PREFIX + lo, TAGGED_PREFIX + hi)


def tag_stats(name: str) -> dict[str, str]:
    """A hashtag's daily use counters (kept by the counters worker)."""
    return key("TAG#" + name.lower(), "STATS")


TAG_USE_PREFIX = "USE#"


def tag_use(name: str, day: str, account_id: str) -> dict[str, str]:
    """Present once an account used a hashtag on a day (`yyyymmdd`): distinct accounts."""
    return key("TAG#" + name.lower(), f"{TAG_USE_PREFIX}{day}#{pad(account_id)}")


# Followed hashtags: the edge lives in the follower's partition under a deterministic key;
# GSI1 lists a tag's followers (fan-out pages through it), GSI2 a user's followed tags, both
# by the follow's id.
FOLLOWED_TAG = "FTAG#"


def followed_tag(account_id: str, name: str) -> dict[str, str]:
    return key(account_pk(account_id), FOLLOWED_TAG + name.lower())


def followed_tag_index_keys(account_id: str, name: str, follow_id: str) -> dict[str, str]:
    return {"GSI1PK": tag_followers(name), "GSI1SK": pad(follow_id),
            "GSI2PK": followed_tags_of(account_id), "GSI2SK": pad(follow_id)}


def tag_followers(name: str) -> str:
    return "TAGFOLLOWERS#" + name.lower()


def followed_tags_of(account_id: str) -> str:
    return "FTAGS#" + pad(account_id)


def followed_tag_name(sort_key: str) -> str:
    """The tag of a followed-tag edge's sort key: `FTAG#cats` → `cats`."""
    return sort_key.removeprefix(FOLLOWED_TAG)


# The link index: public statuses by the link their preview card would be made from. URLs
# can be longer than a partition key may be, so the partition is named by the URL's digest.
def link_partition(url: str) -> str:
    return "LINK#" + hashlib.sha256(url.encode()).hexdigest()


def link(url: str) -> dict[str, str]:
    """Present once any status linked `url` (the link timeline answers 404 before)."""
    return key(link_partition(url), "LINK")


def linked_status(url: str, status_id: str) -> dict[str, str]:
    return key(link_partition(url), TAGGED_PREFIX + pad(status_id))


def linked_range(url: str, lo: str, hi: str) -> tuple[str, tuple[str, str]]:
    """(partition, sort-key bounds) of the statuses linking `url` between two padded ids."""
    return link_partition(url), (TAGGED_PREFIX + lo, TAGGED_PREFIX + hi)


# Preview cards and link shares: one card per normalised URL, in the URL's
# partition, and the URL's daily share counters with the per-account marks that make
# `accounts` distinct (as a hashtag's STATS and USE# items).
def card(url: str) -> dict[str, str]:
    """The PreviewCard made from `url` (shared by every status that links it)."""
    return key(link_partition(url), "CARD")


def link_stats(url: str) -> dict[str, str]:
    """A link's daily share counters (kept by the counters worker)."""
    return key(link_partition(url), "STATS")


def link_use(url: str, day: str, account_id: str) -> dict[str, str]:
    """Present once an account shared `url` on a day (`yyyymmdd`): distinct accounts."""
    return key(link_partition(url), f"{TAG_USE_PREFIX}{day}#{pad(account_id)}")


def notification(account_id: str, notification_id: str) -> dict[str, str]:
    return key("NOTIF#" + pad(account_id), pad(notification_id))


def notification_once(account_id: str, kind: str, from_id: str, subject_id: str
                      ) -> dict[str, str]:
    """One notification per (recipient, type, actor, subject): redelivered jobs add none."""
    return key(f"NOTIFKEY#{pad(account_id)}#{kind}#{pad(from_id)}#{subject_id}", "NOTIFKEY")


def notifications_of(account_id: str) -> str:
    return "NOTIF#" + pad(account_id)


def notification_index_keys(status_id: str, notification_id: str) -> dict[str, str]:
    """GSI1: the notifications about a status (they go when it goes)."""
    return {"GSI1PK": notifications_about(status_id), "GSI1SK": pad(notification_id)}


def notifications_about(status_id: str) -> str:
    return "NOTIFSON#" + pad(status_id)


# A notification of a groupable type (favourite, reblog, follow) belongs to a group: its members
# are indexed by group (GSI2), and the group's head item stands for all of them in the grouped
# listing (GSI3, by its latest member). Every other notification stands for itself there. A
# filtered one is indexed by sender instead (GSI2), and listed nowhere until accepted.
def notification_group(account_id: str, group_key: str) -> dict[str, str]:
    """The head of a notification group: its count and its latest member."""
    return key(notification_groups_of(account_id), group_key)


def notification_groups_of(account_id: str) -> str:
    return "NOTIFGROUPS#" + pad(account_id)


def notification_group_members(account_id: str, group_key: str) -> str:
    return f"NOTIFGROUP#{pad(account_id)}#{group_key}"


def notification_member_keys(account_id: str, group_key: str, notification_id: str
                             ) -> dict[str, str]:
    return {"GSI2PK": notification_group_members(account_id, group_key),
            "GSI2SK": pad(notification_id)}


def notification_heads(account_id: str) -> str:
    return "NOTIFHEADS#" + pad(account_id)


def notification_head_keys(account_id: str, position_id: str) -> dict[str, str]:
    """GSI3: the grouped listing's entry (an ungrouped notification, or a group's head at its
    latest member's id)."""
    return {"GSI3PK": notification_heads(account_id), "GSI3SK": pad(position_id)}


def filtered_notifications_from(account_id: str, from_id: str) -> str:
    return f"NOTIFFILTERED#{pad(account_id)}#{pad(from_id)}"


def filtered_notification_keys(account_id: str, from_id: str, notification_id: str
                               ) -> dict[str, str]:
    return {"GSI2PK": filtered_notifications_from(account_id, from_id),
            "GSI2SK": pad(notification_id)}


def notification_sweep(account_id: str, sweep_id: str) -> dict[str, str]:
    """A removal of notifications too large for one request, finished by the effects worker."""
    return key("NOTIFSWEEP#" + pad(account_id), pad(sweep_id))


NOTIFICATION_POLICY, NOTIFICATION_PERMISSION, NOTIFICATION_REQUEST, MARKER = (
    "NOTIFPOLICY", "NOTIFPERM#", "NOTIFREQ#", "MARKER#")


def notification_policy(account_id: str) -> dict[str, str]:
    return key(account_pk(account_id), NOTIFICATION_POLICY)


def notification_permission(account_id: str, from_id: str) -> dict[str, str]:
    """An accepted notification request: the sender's notifications are never filtered."""
    return key(account_pk(account_id), NOTIFICATION_PERMISSION + pad(from_id))


def notification_request(account_id: str, from_id: str) -> dict[str, str]:
    """Filtered mentions from one sender, waiting for the recipient to accept or dismiss them."""
    return key(account_pk(account_id), NOTIFICATION_REQUEST + pad(from_id))


def notification_request_index_keys(account_id: str, request_id: str) -> dict[str, str]:
    return {"GSI1PK": notification_requests_of(account_id), "GSI1SK": pad(request_id)}


def notification_requests_of(account_id: str) -> str:
    return "NOTIFREQS#" + pad(account_id)


def marker(account_id: str, timeline: str) -> dict[str, str]:
    return key(account_pk(account_id), MARKER + timeline)


# Local users by role (GSI1 of the USER item): staff are found without a Scan.
def role_member_keys(role_id: str, account_id: str) -> dict[str, str]:
    return {"GSI1PK": role_members(role_id), "GSI1SK": pad(account_id)}


def role_members(role_id: str) -> str:
    return "ROLEMEMBERS#" + str(role_id)


# --- relationships ---------------------------------------------------------------------------
# Every edge lives in its source account's partition under a deterministic key, so any
# relationship between a viewer and a page of accounts is one BatchGetItem both ways.
FOLLOWING, FOLLOW_REQUEST, BLOCK, MUTE, DOMAIN_BLOCK_OF_USER, ENDORSEMENT = (
    "FOLLOWING#", "FOLREQ#", "BLOCK#", "MUTE#", "UDOMBLOCK#", "ENDORSE#")


def follow(follower_id: str, followed_id: str) -> dict[str, str]:
    return key(account_pk(follower_id), FOLLOWING + pad(followed_id))


def follow_index_keys(follower_id: str, followed_id: str, follow_id: str) -> dict[str, str]:
    """GSI1: an account's followers; GSI2: whom an account follows — both by follow id."""
    return {"GSI1PK": followers_of(followed_id), "GSI1SK": pad(follow_id),
            "GSI2PK": followings_of(follower_id), "GSI2SK": pad(follow_id)}


def followers_of(account_id: str) -> str:
    return "FOLLOWERS#" + pad(account_id)


def followings_of(account_id: str) -> str:
    return "FOLLOWINGS#" + pad(account_id)


def follow_request(target_id: str, requester_id: str) -> dict[str, str]:
    """A pending request to follow a locked account, in the target's partition."""
    return key(account_pk(target_id), FOLLOW_REQUEST + pad(requester_id))


def follow_request_index_keys(target_id: str, requester_id: str, request_id: str
                              ) -> dict[str, str]:
    """GSI1: the requests an account received; GSI2: the requests an account made (what a
    suspension rejects) — both by request id."""
    return {"GSI1PK": follow_requests_of(target_id), "GSI1SK": pad(request_id),
            "GSI2PK": follow_requests_by(requester_id), "GSI2SK": pad(request_id)}


def follow_requests_of(account_id: str) -> str:
    return "FOLREQS#" + pad(account_id)


def follow_requests_by(account_id: str) -> str:
    return "FOLREQSBY#" + pad(account_id)


def block(blocker_id: str, blocked_id: str) -> dict[str, str]:
    return key(account_pk(blocker_id), BLOCK + pad(blocked_id))


def mute(muter_id: str, muted_id: str) -> dict[str, str]:
    return key(account_pk(muter_id), MUTE + pad(muted_id))


def user_domain_block(account_id: str, domain: str) -> dict[str, str]:
    """A user's block of a domain, named by its host name however the caller spells it: the
    API's `Peer.Example`, a remote account's `peer.example:8443` (ports never matter, as in
    Mastodon's account domain blocks; core/hosts.py)."""
    return key(account_pk(account_id), DOMAIN_BLOCK_OF_USER + blocked_domain(domain))


def blocked_domain(domain: str) -> str:
    """The name a user domain block stores and is looked up by (core/hosts.hostname)."""
    return hosts.hostname(domain) or domain.lower()


def blocked_domain_in(sort_key: str) -> str:
    """The domain of a user domain block's sort key: `UDOMBLOCK#example.com` → `example.com`."""
    return sort_key.removeprefix(DOMAIN_BLOCK_OF_USER)


def endorsement(account_id: str, target_id: str) -> dict[str, str]:
    return key(account_pk(account_id), ENDORSEMENT + pad(target_id))


def edge_list_index_keys(kind: str, owner_id: str, edge_id: str) -> dict[str, str]:
    """GSI1: an account's blocks, mutes, domain blocks or endorsements, by when made."""
    return {"GSI1PK": edge_list_of(kind, owner_id), "GSI1SK": pad(edge_id)}


def edge_list_of(kind: str, owner_id: str) -> str:
    return f"{kind.rstrip('#')}S#" + pad(owner_id)


# --- conversations (direct statuses) -------------------------------------------------------------
# A user's conversation lives in their partition under its id; GSI1 orders a user's
# conversations by their last status (Mastodon pages them by `last_status_id`).
CONVERSATION = "CONV#"


def conversation(account_id: str, conversation_id: str) -> dict[str, str]:
    return key(account_pk(account_id), CONVERSATION + pad(conversation_id))


def conversation_index_keys(account_id: str, last_status_id: str) -> dict[str, str]:
    return {"GSI1PK": conversations_of(account_id), "GSI1SK": pad(last_status_id)}


def conversations_of(account_id: str) -> str:
    return "CONVS#" + pad(account_id)


# --- web push ------------------------------------------------------------------------------
PUSH_SUBSCRIPTION = "PUSHSUB#"


def push_subscription(account_id: str, token_hash: str) -> dict[str, str]:
    """An access token's web push subscription (one per token, named by the token's hash as
    the token item is), in its user's partition: a user's subscriptions are one Query (the push
    worker's), a token's one GetItem, and a deleted or rotated token's known without a read."""
    return key(account_pk(account_id), PUSH_SUBSCRIPTION + token_hash)


def push_subscriptions_of(account_id: str) -> tuple[str, str]:
    """(partition, sort-key prefix) of a user's push subscriptions."""
    return account_pk(account_id), PUSH_SUBSCRIPTION


# --- background jobs ---------------------------------------------------------------------
def async_refresh(name: str) -> dict[str, str]:
    """A background refresh a read started (repo/async_refreshes.py), by its name."""
    return key(f"REFRESH#{name}", "REFRESH")


def dedupe(scope: str, event_id: str) -> dict[str, str]:
    """A sentinel that makes a redelivered stream/SQS message a no-op."""
    return key(f"DEDUPE#{scope}#{event_id}", "DEDUPE")


# --- lists ---------------------------------------------------------------------------------
LIST_PREFIX = "LIST#"


def list_item(owner_id: str, list_id: str) -> dict[str, str]:
    """A list, in its owner's partition (their lists are one Query)."""
    return key(account_pk(owner_id), LIST_PREFIX + pad(list_id))


def list_members_pk(list_id: str) -> str:
    return "LISTM#" + pad(list_id)


MEMBER_PREFIX = "MEMBER#"


def list_member(list_id: str, account_id: str) -> dict[str, str]:
    return key(list_members_pk(list_id), MEMBER_PREFIX + pad(account_id))


def list_member_index_keys(list_id: str, account_id: str) -> dict[str, str]:
    """GSI1: the lists an account is in (fan-out reads it)."""
    return {"GSI1PK": lists_containing(account_id), "GSI1SK": pad(list_id)}


def lists_containing(account_id: str) -> str:
    return "LISTEDIN#" + pad(account_id)


# --- feeds (the Feed table: home and list timelines, ids only) -------------------------------
FEED_ENTRY, FEED_REBLOG = "S#", "R#"


def home_feed(account_id: str) -> str:
    return "HOME#" + pad(account_id)


def list_feed(list_id: str) -> str:
    return "LIST#" + pad(list_id)


def feed_entry(feed: str, status_id: str) -> dict[str, str]:
    return key(feed, FEED_ENTRY + pad(status_id))


def feed_entries(feed: str, lo: str, hi: str) -> tuple[str, tuple[str, str]]:
    """(partition, sort-key bounds) of a feed's entries between two padded ids."""
    return feed, (FEED_ENTRY + lo, FEED_ENTRY + hi)


def feed_reblog_marker(feed: str, original_id: str) -> dict[str, str]:
    """Present while a boost of `original_id` is in the feed: another is not repeated."""
    return key(feed, FEED_REBLOG + pad(original_id))


def feed_meta(feed: str) -> dict[str, str]:
    return key(feed, "META")


# --- filters (a user's filters, their keywords and statuses, in the account partition) -----
FILTER_PREFIX = "FILTER#"
FILTER_KEYWORD, FILTER_STATUS = "#K#", "#S#"


def filter_item(account_id: str, filter_id: str) -> dict[str, str]:
    """A filter; its keywords and status filters sort right after it, so one Query with
    `filters_prefix()` reads every filter record of the account."""
    return key(account_pk(account_id), FILTER_PREFIX + pad(filter_id))


def filter_keyword(account_id: str, filter_id: str, keyword_id: str) -> dict[str, str]:
    return key(account_pk(account_id), FILTER_PREFIX + pad(filter_id) + FILTER_KEYWORD +
               pad(keyword_id))


def filter_status(account_id: str, filter_id: str, status_filter_id: str) -> dict[str, str]:
    return key(account_pk(account_id), FILTER_PREFIX + pad(filter_id) + FILTER_STATUS +
               pad(status_filter_id))


def filters_prefix(filter_id: str | None = None) -> str:
    """Sort-key prefix of all filter records of an account, or of one filter's."""
    return FILTER_PREFIX + (pad(filter_id) if filter_id is not None else "")


def filters_rev(account_id: str) -> dict[str, str]:
    """The account's filters revision (`type: filters_rev`): bumped once by every request that
    changes its filters, so the stream carries one `filters_changed` per request."""
    return key(account_pk(account_id), "FILTERS_REV")


# --- streaming (the Connections table) ------------------------------------------------------
# A connection (WebSocket or SSE) under its id; GSI1 finds an account's connections (a revoked
# token's are closed). Streams of one account (user, user:notification, direct, list:<id>)
# are string sets of connection ids on the account's presence item, so a fan-out batch learns
# who of its receivers listens with one BatchGetItem. Instance-wide streams (public*, hashtag*)
# are one item per connection and stream, found through GSI1 by stream. SSE connections get
# their events through a mailbox in the connection's partition.
CONNECTION_SK = "CONN"
SUBSCRIPTION_PREFIX = "SUB#"
MAILBOX_PREFIX = "EV#"


def connection_pk(connection_id: str) -> str:
    return "CONN#" + connection_id


def connection(connection_id: str) -> dict[str, str]:
    return key(connection_pk(connection_id), CONNECTION_SK)


def connection_index_keys(account_id: str, connection_id: str) -> dict[str, str]:
    return {"GSI1PK": connections_of(account_id), "GSI1SK": connection_pk(connection_id)}


def connections_of(account_id: str) -> str:
    return "ACCTCONNS#" + pad(account_id)


def stream_presence(account_id: str) -> dict[str, str]:
    return key("PRESENCE#" + pad(account_id), "STREAMS")


def stream_subscription(connection_id: str, stream_key: str) -> dict[str, str]:
    return key(connection_pk(connection_id), SUBSCRIPTION_PREFIX + stream_key)


def stream_subscription_index_keys(stream_key: str, connection_id: str) -> dict[str, str]:
    return {"GSI1PK": stream_listeners(stream_key), "GSI1SK": connection_pk(connection_id)}


def stream_listeners(stream_key: str) -> str:
    return "STREAM#" + stream_key


def mailbox_entry(connection_id: str, sequence: str) -> dict[str, str]:
    return key(connection_pk(connection_id), MAILBOX_PREFIX + sequence)


def stream_key(name: str, param: str | None = None) -> str:
    """Where a stream's listeners are kept: `user`, `public:local`, `list#5`, `hashtag#cats`
    (a tag lower-cased: one stream whatever the case clients write it in)."""
    return f"{name}#{param}" if param else name


def stream_name(stream_key_: str) -> list[str]:
    """A stream key's name and parameter: `list#5` → ["list", "5"]."""
    name, _, param = stream_key_.partition("#")
    return [name, param] if param else [name]


# --- trends (api/trends/ranking.py): candidates per kind and day, one record per item that ever
# scored (max score, review state), and the ranking the public endpoints read. -------------
def trend_candidate(kind: str, day: str, ident: str) -> dict[str, str]:
    """An item (tag name, status id, link URL hash) that had activity on a day (`yyyymmdd`)."""
    return key(trend_candidates_pk(kind, day), ident)


def trend_candidates_pk(kind: str, day: str) -> str:
    return f"TRENDCAND#{kind}#{day}"


def trend_record(kind: str, ident: str) -> dict[str, str]:
    return key("TRENDS#" + kind, "I#" + ident)


def trend_ranking(kind: str) -> dict[str, str]:
    return key("TRENDS#" + kind, "RANKING")


def trend_review(review_id: str) -> dict[str, str]:
    """What one review run put before staff (the mail job reads it)."""
    return key("TRENDREVIEW#" + review_id, "REVIEW")


# --- reports --------------------------------------------------------
# A report is one item under its id. Three indexes list reports by state (`open` until
# resolved), newest first: all of them (GSI1), those filed by an account (GSI2) and those
# against an account (GSI3). Resolving or reopening moves the item between the partitions.
REPORT_STATES = ("open", "resolved")


def report(report_id: str) -> dict[str, str]:
    return key("REPORT#" + pad(report_id), "REPORT")


def reports_all(state: str) -> str:
    return "REPORTS#" + state


def reports_by(account_id: str, state: str) -> str:
    return f"REPORTSBY#{pad(account_id)}#{state}"


def reports_on(target_id: str, state: str) -> str:
    return f"REPORTSON#{pad(target_id)}#{state}"


def report_index_keys(report_id: str, account_id: str, target_id: str, state: str
                      ) -> dict[str, str]:
    sk = pad(report_id)
    return {"GSI1PK": reports_all(state), "GSI1SK": sk,
            "GSI2PK": reports_by(account_id, state), "GSI2SK": sk,
            "GSI3PK": reports_on(target_id, state), "GSI3SK": sk}


# --- profiles: featured tags, per-account tag counters, directory, suggestions ---
# A featured tag and an account's use counters of a tag live in the account's partition under
# the normalised tag (deterministic: at most 10 featured, and their counters, are one Query or
# one BatchGetItem). The directory entry is one item per discoverable account: GSI1 orders the
# directory by creation (`new`), GSI2 by last status (`active`), GSI3 local accounts by
# followers (popular suggestions). A dismissed suggestion is an edge in the viewer's partition.
FEATURED_TAG, ACCOUNT_TAG = "FEATTAG#", "TAGSTAT#"
NEVER_POSTED = "0000-00-00T00:00:00"  # sorts below every last-status time (NULLS LAST)


def featured_tag(account_id: str, name: str) -> dict[str, str]:
    return key(account_pk(account_id), FEATURED_TAG + name.lower())


def account_tag(account_id: str, name: str) -> dict[str, str]:
    """How many public/unlisted statuses of an account use a tag, and its latest use."""
    return key(account_pk(account_id), ACCOUNT_TAG + name.lower())


def directory_entry(account_id: str) -> dict[str, str]:
    return key(account_pk(account_id), "DIRECTORY")


def directory_partition(order: str, scope: str) -> str:
    """A directory listing: order `new` or `active`, scope `LOCAL` or `REMOTE`."""
    return f"DIR{order.upper()}#{scope}"


POPULAR = "SUGGEST#POPULAR"


def directory_index_keys(account_id: str, scope: str, last_status_at: str | None,
                         followers: int | None) -> dict[str, str | None]:
    """GSI1 by id (new), GSI2 by last status time (active), GSI3 local accounts by followers
    (None: not in that index)."""
    padded = pad(account_id)
    return {"GSI1PK": directory_partition("new", scope), "GSI1SK": padded,
            "GSI2PK": directory_partition("active", scope),
            "GSI2SK": f"{last_status_at or NEVER_POSTED}#{padded}",
            "GSI3PK": POPULAR if followers is not None else None,
            "GSI3SK": f"{max(int(followers), 0):012d}#{padded}" if followers is not None
            else None}


SUGGESTION_DISMISSED = "SUGGESTMUTE#"


def dismissed_suggestion(account_id: str, target_id: str) -> dict[str, str]:
    return key(account_pk(account_id), SUGGESTION_DISMISSED + pad(target_id))
# --- search (api/search/search.py, docs/search.md) ---------------------------------------------------
# Accounts by word prefix: one entry per account and word of its handle and display name (and its
# domain, for a remote one), in the partition of the word's first character, sorted by word then
# account: a prefix is one begins_with Query, shortest (exact) words first.
ACCOUNT_WORD_SEP = "#"


def account_words(first_char: str) -> str:
    return "ACCTWORDS#" + first_char


def account_word(word: str, account_id: str) -> dict[str, str]:
    return key(account_words(word[0]), word + ACCOUNT_WORD_SEP + pad(account_id))


def account_word_prefix(prefix: str) -> tuple[str, str]:
    """(partition, sort-key prefix) of the account words starting with `prefix`."""
    return account_words(prefix[0]), prefix


# Hashtags by name prefix: one entry per tag and prefix of its name (up to TAG_PREFIX_MAX
# characters), sorted by length then name — Mastodon's order (`length(name), name`) from one
# Query. The marker says a tag's entries are written (tags are indexed once, on first use).
TAG_PREFIX_MAX = 24


def tag_prefix_partition(prefix: str) -> str:
    return "TAGPREFIX#" + prefix[:TAG_PREFIX_MAX]


def tag_prefix_entry(prefix: str, name: str) -> dict[str, str]:
    return key(tag_prefix_partition(prefix), f"{len(name):03d}#{name}")


def tag_search_marker(name: str) -> dict[str, str]:
    return key("TAG#" + name.lower(), "SEARCH")


# Statuses by word, per searching account (the author, the mentioned, those who favourited,
# bookmarked or boosted it): one entry per (account, word, status), by status id — a word is one
# Query in id order, and whether other words are in a page of statuses is one BatchGetItem of
# deterministic keys. A searcher item per status and account lists the words indexed for that
# account, so an edit or a deletion finds every entry to change.
def status_searchers(status_id: str) -> str:
    """The partition of a status's searcher items (its own: the deletion cascade empties the
    status partition, and the searchers must outlive it until their entries are gone)."""
    return "SEARCHERS#" + pad(status_id)


def status_word_partition(account_id: str, word: str) -> str:
    return f"SWORD#{pad(account_id)}#{word}"


def status_word(account_id: str, word: str, status_id: str) -> dict[str, str]:
    return key(status_word_partition(account_id, word), pad(status_id))


def status_searcher(status_id: str, account_id: str) -> dict[str, str]:
    return key(status_searchers(status_id), pad(account_id))


# --- domains: instance domain blocks and allows ----------------------------------
# A block lives at `INSTANCE/DOMBLOCK#<domain>` (`domain_block` above): one item per domain, so
# "is this domain (or a parent) blocked" is one BatchGetItem of deterministic keys. GSI1 lists
# blocks and allows by id (the admin listings, lookups by id).
DOMAIN_BLOCKS_INDEX = "DOMBLOCKS"
DOMAIN_ALLOW_PREFIX = "DOMALLOW#"
DOMAIN_ALLOWS_INDEX = "DOMALLOWS"


def domain_block_index_keys(block_id: str) -> dict[str, str]:
    return {"GSI1PK": DOMAIN_BLOCKS_INDEX, "GSI1SK": pad(block_id)}


def domain_allow(domain: str) -> dict[str, str]:
    return key(INSTANCE_PK, DOMAIN_ALLOW_PREFIX + domain.lower())


def domain_allow_index_keys(allow_id: str) -> dict[str, str]:
    return {"GSI1PK": DOMAIN_ALLOWS_INDEX, "GSI1SK": pad(allow_id)}
# --- announcements -----------------------------------------------------------
# Every announcement and its per-name reaction counters live in one partition (there are few
# announcements): the user listing is one Query. A user's dismissals and reactions live in the
# user's partition under `ANN#<announcement20>#…`, so whether a viewer read or reacted to any
# announcement is one Query of that prefix.
ANNOUNCEMENTS_PK = "ANNOUNCEMENTS"
ANNOUNCEMENT_PREFIX = "ANN#"
REACTION_INFIX = "#R#"


def announcement(announcement_id: str) -> dict[str, str]:
    return key(ANNOUNCEMENTS_PK, ANNOUNCEMENT_PREFIX + pad(announcement_id))


def announcement_reactions(announcement_id: str, name: str) -> dict[str, str]:
    """The counter of one reaction name (count, first reaction's id, custom emoji)."""
    return key(ANNOUNCEMENTS_PK, ANNOUNCEMENT_PREFIX + pad(announcement_id) + REACTION_INFIX
               + name)


def announcement_dismissal(account_id: str, announcement_id: str) -> dict[str, str]:
    return key(account_pk(account_id), ANNOUNCEMENT_PREFIX + pad(announcement_id) + "#READ")


def announcement_reaction(account_id: str, announcement_id: str, name: str) -> dict[str, str]:
    return key(account_pk(account_id),
               ANNOUNCEMENT_PREFIX + pad(announcement_id) + REACTION_INFIX + name)



def announcement_parts(sort_key: str) -> tuple[str, str | None, str | None]:
    """An `ANN#…` sort key as (announcement id, kind, reaction name): kind is None for the
    announcement itself, "READ" for a dismissal, "R" for a reaction (counter or edge)."""
    rest = sort_key[len(ANNOUNCEMENT_PREFIX):]
    padded, _, tail = rest.partition("#")
    if not tail:
        return unpad(padded), None, None
    kind, _, name = tail.partition("#")
    return unpad(padded), kind, (name or None)


# --- admin metrics -------------------------------------------------------------
# One item per UTC day with the day's counters (new users, active users, interactions, reports,
# statuses per language and per app), kept by the counters worker from the stream: a measure or
# dimension over N days is one BatchGetItem of N (and N earlier) items.
def metrics_day(yyyymmdd: str) -> dict[str, str]:
    return key("METRICS#" + yyyymmdd, "DAY")



# --- retention (api/admin/metrics.py): each day's sign-ups, and each account's last active day --
def signups_pk(yyyymmdd: str) -> str:
    return "SIGNUPS#" + yyyymmdd


def signup(yyyymmdd: str, account_id: str) -> dict[str, str]:
    return key(signups_pk(yyyymmdd), pad(account_id))


def account_seen(account_id: str) -> dict[str, str]:
    """The last UTC day an account used the API (Mastodon's users.current_sign_in_at)."""
    return key(account_pk(account_id), "SEEN")


# --- delivery (federation/delivery.py) --------------------------------------------------------------
DELIVERY_HOST_PK = "DELIVERYHOST"


def delivery_host(host: str) -> dict[str, str]:
    """A remote host's circuit breaker: its consecutive delivery failures, when it opened."""
    return key(DELIVERY_HOST_PK, host.lower())


# --- remote media (federation/remote_media.py) --------------------------------------------------
# One item per remote image we keep a copy of (or tried to): an account's avatar or header, a
# media attachment, a custom emoji (by its URL's digest: statuses share them). GSI1 lists the
# stored copies by when they were fetched, oldest first, for expiry.
REMOTE_MEDIA_BY_AGE = "RMEDIA"


def remote_media(kind: str, ref: str) -> dict[str, str]:
    return key(f"RMEDIA#{kind}#{ref}", "RMEDIA")


def remote_media_age(fetched_at: str, kind: str, ref: str) -> dict[str, str]:
    return {"GSI1PK": REMOTE_MEDIA_BY_AGE, "GSI1SK": f"{fetched_at}#{kind}#{ref}"}


def remote_media_of_domain(domain: str) -> str:
    """GSI2: the stored copies of one domain's accounts (a block that rejects its media)."""
    return "RMEDIADOM#" + domain.lower()


def remote_media_domain(domain: str, kind: str, ref: str) -> dict[str, str]:
    return {"GSI2PK": remote_media_of_domain(domain), "GSI2SK": f"{kind}#{ref}"}
