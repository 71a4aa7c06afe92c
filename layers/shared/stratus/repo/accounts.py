"""Accounts: profile, stats, the local user, uniqueness sentinels, the staff index, notes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stratus.core.paging import Budget
from stratus.model.accounts import Bundle, Profile, User
from stratus.repo import base, keys

PROFILE, STATS, USER, ADMIN = "PROFILE", "STATS", "USER", "ADMIN"


def _profile_item(profile: dict[str, Any]) -> dict[str, Any]:
    return {**keys.account_profile(profile["id"]), "type": "account", **profile}


def profile_op(profile: dict[str, Any], *, new: bool = False) -> base.Op:
    """Put a profile as given: a new one (only if the account has none), or over the stored
    one."""
    return base.put_new(_profile_item(profile)) if new else \
        base.Op("Put", item=_profile_item(profile))


def put_profiles(profiles: Sequence[dict[str, Any]]) -> None:
    """Write profiles as given over what is stored, 25 per BatchWriteItem (not atomic):
    seeding and fixtures."""
    base.write_many(puts=[_profile_item(p) for p in profiles])


def admin_record(account_id: str, origin: str, status: str) -> dict[str, Any]:
    """The account's entry in the staff index (by origin and listing status), to write with
    `create_ops` or `admin_entry_op`."""
    return {"type": "admin_index", "account_id": account_id, "origin": origin,
            "status": status}


def _admin_item(admin: dict[str, Any]) -> dict[str, Any]:
    """The stored staff index entry of an `admin_record`: keyed by its account, indexed by
    its origin and status."""
    account_id = admin["account_id"]
    return {**keys.account_admin(account_id), **admin,
            **keys.admin_index_keys(account_id, admin["origin"], admin["status"])}


def get_bundle(account_id: str, parts: tuple[str, ...] = (PROFILE, STATS, USER)
               ) -> Bundle:
    """Several items of one account in one BatchGetItem, by SK."""
    items = base.batch_get([{"PK": keys.account_pk(account_id), "SK": p} for p in parts])
    return {item["SK"]: base.record(item) for item in items}


def get_many(account_ids: list[str], parts: tuple[str, ...] = (PROFILE, STATS)
             ) -> dict[str, Bundle]:
    """Items of many accounts in as few round trips as possible: {account_id: {SK: item}}."""
    return bundles(base.batch_get(bundle_keys(account_ids, parts)))


def bundle_keys(account_ids: list[str], parts: tuple[str, ...]) -> list[dict[str, str]]:
    """Keys of several items of many accounts, to read with other keys in one batch."""
    return [{"PK": keys.account_pk(a), "SK": p} for a in account_ids for p in parts]


def bundles(items: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Account items read by `bundle_keys`, as {account_id: {SK: item}}."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for item in items:
        found.setdefault(keys.id_in(item["PK"]), {})[item["SK"]] = base.record(item)
    return found


def get_profile(account_id: str) -> Profile | None:
    return base.record(base.get(keys.account_profile(account_id)))


def get_user(account_id: str) -> User | None:
    return base.record(base.get(keys.account_user(account_id), consistent=True))


def id_by_handle(username: str, domain: str | None = None) -> str | None:
    item = base.get(keys.handle(username, domain))
    return item["account_id"] if item else None


def id_by_email(address: str) -> str | None:
    item = base.get(keys.email(address))
    return item["account_id"] if item else None


def id_by_confirmation(token_hash: str) -> str | None:
    item = base.get(keys.confirmation(token_hash), consistent=True)
    return item["account_id"] if item else None


def create_ops(profile: dict[str, Any], user: dict[str, Any], admin: dict[str, Any],
               confirmation_hash: str | None, *, username_taken: Exception,
               email_taken: Exception) -> list[base.Op]:
    """Everything a local account is, written together; sentinels make the handle and e-mail unique."""
    account_id = profile["id"]
    ops = [
        base.put_new(_profile_item(profile)),
        base.put_new({**keys.account_stats(account_id), "type": "account_stats",
                      "followers_count": 0, "following_count": 0, "statuses_count": 0}),
        base.put_new({**keys.account_user(account_id), "type": "user", **user,
                      **_role_index(account_id, user.get("role_id"))}),
        base.put_new(_admin_item(admin)),
        base.put_new({**keys.handle(profile["username"]), "type": "handle",
                      "account_id": account_id}, on_conflict=username_taken),
        base.put_new({**keys.email(user["email"]), "type": "email", "account_id": account_id},
                     on_conflict=email_taken),
    ]
    if confirmation_hash:
        ops.append(base.put_new({**keys.confirmation(confirmation_hash), "type": "confirmation",
                                 "account_id": account_id}))
    return ops


def _role_index(account_id: str, role_id: str | None) -> dict[str, str | None]:
    """The USER item's entry in the index of users by role (None values remove it)."""
    if role_id:
        return keys.role_member_keys(role_id, account_id)
    return {name: None for name in keys.role_member_keys("0", account_id)}


def members_of_roles(role_ids: list[str]) -> list[str]:
    """Ids of the local users holding any of these roles (one index query per role)."""
    found: list[str] = []
    for role_id in role_ids:
        found += [i["account_id"] for i in base.query(keys.role_members(role_id), index="GSI1")]
    return list(dict.fromkeys(found))


def list_roles() -> list[dict[str, Any]]:
    """Custom roles (the built-in ones live in code: model/roles.py)."""
    return list(base.records(base.query(keys.ROLES_PK)))


def set_note(account_id: str, target_id: str, comment: str) -> None:
    if comment:
        base.put({**keys.account_note(account_id, target_id), "type": "account_note",
                  "account_id": account_id, "target_id": target_id, "comment": comment})
    else:
        base.delete(keys.account_note(account_id, target_id))


def admin_page(origin: str | None, status: str | None, *, lo: str, hi: str, descending: bool,
               budget: Budget | None = None, step: int = 100):
    """Staff index entries in id order; a status without an origin merges both origins."""
    import heapq

    origins = [origin] if origin or not status else ["local", "remote"]
    streams = []
    for each in origins:
        index, partition = keys.admin_index_partition(each, status)
        streams.append(base.query(partition, index=index, sk_between=(lo, hi),
                                  descending=descending, budget=budget, step=step))
    if len(streams) == 1:
        return streams[0]
    return heapq.merge(*streams, key=lambda e: e["GSI1SK"], reverse=descending)


def active_local_page(after: str | None, limit: int) -> tuple[list[str], str | None]:
    """Up to `limit` active local accounts (approved, neither disabled nor suspended: the staff
    index's `local`/`active` entries) after the id `after`, in id order, and the cursor of the
    next page (None at the end). One Query."""
    lo, hi = keys.id_range(int(after) + 1 if after else None, None)
    index, partition = keys.admin_index_partition("local", "active")
    found = [entry["account_id"] for entry in base.query(
        partition, index=index, sk_between=(lo, hi), limit=limit, projection="account_id")]
    return found, (found[-1] if len(found) == limit else None)


def account_item_keys(account_id: str) -> list[dict[str, str]]:
    return [keys.account_profile(account_id), keys.account_stats(account_id),
            keys.account_user(account_id), keys.account_admin(account_id),
            *(keys.account_admin_flag(account_id, f) for f in ("silenced", "sensitized")),
            keys.actor_key(account_id)]


# --- remote accounts by domain (written with the account; domain blocks page through them) ---
def remote_index_ops(profile: dict[str, Any]) -> list[base.Op]:
    """What makes a remote account findable by its domain: its membership item (written in the
    transaction that creates the account). Its host in the peers partition is noted before
    that transaction, outside it (`repo/peers.remember`): one item all of a domain's new
    accounts would otherwise write, and conflict on."""
    domain = profile["domain"].lower()
    return [base.Op("Put", item={**keys.domain_account(domain, profile["id"]),
                                 "type": "domain_account", "account_id": str(profile["id"])})]


def domain_account_ids(domain: str, *, after: str | None, limit: int) -> list[str]:
    """Ids of a domain's accounts in id order, after `after`, at most `limit`."""
    return [item["account_id"] for item in base.query(
        keys.domain_accounts_pk(domain), sk_between=(keys.after_id(after), keys.MAX_SK),
        limit=limit, projection="account_id")]


def known_domains(*, after: str | None, limit: int) -> list[str]:
    """Hosts we know accounts of, in order, after `after`, at most `limit`."""
    return [item["domain"] for item in base.query(
        keys.PEERS_PK, sk_between=(keys.after_domain(after or ""), keys.MAX_SK), limit=limit)]


# --- a local user's changes (written by api/accounts in one transaction each) ---------------
def user_update_op(account_id: str, changes: dict[str, Any]) -> base.Op:
    """Set `changes` on the USER item (a None value removes the attribute); a change of
    `role_id` moves the user's entry in the index of users by role with it."""
    if "role_id" in changes:
        changes = {**changes, **_role_index(account_id, changes["role_id"])}
    return base.set_op(keys.account_user(account_id), changes)


def profile_update_op(account_id: str, changes: dict[str, Any]) -> base.Op:
    """Set `changes` on the PROFILE item (a None value removes the attribute)."""
    return base.set_op(keys.account_profile(account_id), changes)


def admin_entry_op(admin: dict[str, Any]) -> base.Op:
    """Write the staff index entry (an `admin_record`) as it is now."""
    return base.Op("Put", item=_admin_item(admin))


def confirmation_op(confirmation_hash: str, account_id: str) -> base.Op:
    """The entry that finds a user by its confirmation link's hash."""
    return base.put_new({**keys.confirmation(confirmation_hash), "type": "confirmation",
                         "account_id": account_id})


def confirmation_removal_op(confirmation_hash: str) -> base.Op:
    return base.Op("Delete", key=keys.confirmation(confirmation_hash))


def email_change_ops(account_id: str, old: str, new: str, *, taken: Exception
                     ) -> list[base.Op]:
    """Move the e-mail sentinel: the old address is free, the new one taken only if free."""
    return [base.Op("Delete", key=keys.email(old)),
            base.put_new({**keys.email(new), "type": "email", "account_id": account_id},
                         on_conflict=taken)]


def image_folder(kind: str, account_id: str) -> str:
    """Where an account's avatars or headers (`kind`) are stored in the media bucket."""
    return f"accounts/{kind}s/{keys.pad(account_id)}"


def remote_create_ops(profile: dict[str, Any]) -> list[base.Op]:
    """What a remote account is when first stored: its profile, its counters (what this server
    knows of it: its statuses stored here, its followers here; the stream keeps them as for a
    local account) and its handle on its domain; each written only if absent, so a handle
    another actor holds on the domain fails the transaction."""
    return [base.put_new(_profile_item(profile)),
            base.put_new({**keys.account_stats(profile["id"]), "type": "account_stats",
                          "followers_count": 0, "following_count": 0, "statuses_count": 0}),
            base.put_new({**keys.handle(profile["username"], profile["domain"]),
                          "type": "handle", "account_id": profile["id"]})]
