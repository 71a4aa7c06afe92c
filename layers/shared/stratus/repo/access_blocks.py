"""E-mail domain blocks, canonical e-mail blocks and IP blocks (Mastodon's EmailDomainBlock,
CanonicalEmailBlock and IpBlock): what keeps people from signing up or in.

E-mail blocks are an item per block in their kind's partition (listed by id) plus a sentinel
named by the blocked domain or hash, which makes them unique and lets a sign-up check a
domain and its parents in one BatchGetItem. IP blocks are few: the whole set is one Query."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stratus.repo import base, keys

EMAIL_DOMAIN, CANONICAL, IP = "email_domain_block", "canonical_email_block", "ip_block"
_PARTITION = {EMAIL_DOMAIN: keys.EMAIL_DOMAIN_BLOCKS_PK, CANONICAL: keys.CANONICAL_EMAIL_BLOCKS_PK,
              IP: keys.IP_BLOCKS_PK}
_KEY = {EMAIL_DOMAIN: keys.email_domain_block, CANONICAL: keys.canonical_email_block,
        IP: keys.ip_block}


def _sentinel(kind: str, block: dict[str, Any]) -> dict[str, str] | None:
    if kind == EMAIL_DOMAIN:
        return keys.email_domain_blocked(block["domain"])
    if kind == CANONICAL:
        return keys.canonical_email_blocked(block["canonical_email_hash"])
    return None


def _record(item: dict[str, Any]) -> dict[str, Any]:
    """A block as the use cases see it: its own fields, without the item's keys and type."""
    return {k: v for k, v in item.items() if k not in ("PK", "SK", "type")}


def get(kind: str, block_id: str) -> dict[str, Any] | None:
    item = base.get(_KEY[kind](block_id))
    return _record(item) if item is not None else None


def page(kind: str, *, low: int | None, high: int | None, descending: bool, limit: int
         ) -> list[dict[str, Any]]:
    """Up to `limit` blocks of a kind with ids in [low, high] (None: unbounded), by id."""
    return [_record(item) for item in base.query(
        _PARTITION[kind], sk_between=keys.id_range(low, high), descending=descending,
        limit=limit)]


def all_ip_blocks() -> list[dict[str, Any]]:
    """Every live IP block: one Query (expired ones are left out)."""
    return list(base.records(base.query(keys.IP_BLOCKS_PK)))


def expired(ttl: int | None) -> bool:
    """Whether a block that ends at `ttl` (epoch seconds; None: never) has ended. TTL deletes
    are late, so a block kept in memory is checked again at each use."""
    return ttl is not None and int(ttl) <= base.now_epoch()


def create_ops(kind: str, block: dict[str, Any], *, taken: Exception) -> list[base.Op]:
    ops = [base.put_new({**_KEY[kind](block["id"]), "type": kind, **block})]
    sentinel = _sentinel(kind, block)
    if sentinel is not None:
        ops.append(base.put_new({**sentinel, "type": kind + "_sentinel", "block_id": block["id"],
                                 **{k: v for k, v in block.items()
                                    if k in ("allow_with_approval",)}},
                                on_conflict=taken))
    return ops


def replace_op(kind: str, block: dict[str, Any], *, gone: Exception) -> base.Op:
    """Write a changed block over the one that exists (404 if it was deleted meanwhile)."""
    return base.Op("Put", item={**_KEY[kind](block["id"]), "type": kind, **block},
                   condition="attribute_exists(PK)", on_conflict=gone)


def delete_ops(kind: str, block: dict[str, Any]) -> list[base.Op]:
    ops = [base.Op("Delete", key=_KEY[kind](block["id"]))]
    sentinel = _sentinel(kind, block)
    if sentinel is not None:
        ops.append(base.Op("Delete", key=sentinel))
    return ops


def email_domain_matches(domains: Sequence[str]) -> list[dict[str, Any]]:
    """The sentinels of blocks on any of `domains` (one BatchGetItem)."""
    return list(base.records(base.batch_get([keys.email_domain_blocked(d) for d in domains])))


def canonical_match(email_hash: str) -> dict[str, Any] | None:
    """The sentinel of the block on this canonical e-mail hash (`block_id`), or None."""
    return base.record(base.get(keys.canonical_email_blocked(email_hash)))


def record_attempt(block_id: str, day: str, ip: str, stale_days: Sequence[str]) -> None:
    """Count a refused sign-up on the block's day history (`uses_<day>`, the set of addresses
    `ips_<day>`), dropping days that fell out of the window."""
    names = {"#u": f"uses_{day}", "#i": f"ips_{day}"}
    removals = []
    for n, old in enumerate(stale_days):
        names[f"#ou{n}"], names[f"#oi{n}"] = f"uses_{old}", f"ips_{old}"
        removals += [f"#ou{n}", f"#oi{n}"]
    expression = "ADD #u :one, #i :ip" + (" REMOVE " + ", ".join(removals) if removals else "")
    try:
        base.update(keys.email_domain_block(block_id), expression, names=names,
                    vals={":one": 1, ":ip": {ip}}, condition="attribute_exists(PK)")
    except base.dynamodb().exceptions.ConditionalCheckFailedException:
        pass  # the block was deleted meanwhile: nothing to count
