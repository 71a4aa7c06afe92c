"""Instance domain blocks and allows (Mastodon's DomainBlock and DomainAllow).

A block is one item per domain, `INSTANCE/DOMBLOCK#<domain>` with `type: domain_block`: its
stream INSERT, MODIFY and REMOVE carry the old and new `severity`, which is what applying or
undoing a block on a domain's accounts starts from. An allow is `INSTANCE/DOMALLOW#<domain>`
(`type: domain_allow`). Both are listed by id through GSI1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stratus.repo import base, keys

BLOCK = "domain_block"
ALLOW = "domain_allow"
SAME_ID_NAME = "#item_id"
SAME_ID = f"{SAME_ID_NAME} = :expected_id"  # still the item that was read (not re-created)


def _block_item(fields: dict[str, Any]) -> dict[str, Any]:
    return {**keys.domain_block(fields["domain"]), "type": BLOCK,
            **keys.domain_block_index_keys(fields["id"]), **fields}


def _allow_item(fields: dict[str, Any]) -> dict[str, Any]:
    return {**keys.domain_allow(fields["domain"]), "type": ALLOW,
            **keys.domain_allow_index_keys(fields["id"]), **fields}


def blocks_for(domains: Sequence[str]) -> list[dict[str, Any]]:
    """The blocks of exactly these domains (one BatchGetItem per 100)."""
    return list(base.records(base.batch_get([keys.domain_block(d) for d in domains])))


def block(domain: str, *, consistent: bool = False) -> dict[str, Any] | None:
    return base.record(base.get(keys.domain_block(domain), consistent=consistent))


def allow(domain: str, *, consistent: bool = False) -> dict[str, Any] | None:
    return base.record(base.get(keys.domain_allow(domain), consistent=consistent))


def _by_id(index_pk: str, item_id: str) -> dict[str, Any] | None:
    sk = keys.pad(item_id)
    entry = next(base.query(index_pk, index="GSI1", sk_between=(sk, sk), limit=1), None)
    return base.record(base.get({"PK": entry["PK"], "SK": entry["SK"]})) if entry else None


def block_by_id(block_id: str) -> dict[str, Any] | None:
    return _by_id(keys.DOMAIN_BLOCKS_INDEX, block_id)


def allow_by_id(allow_id: str) -> dict[str, Any] | None:
    return _by_id(keys.DOMAIN_ALLOWS_INDEX, allow_id)


def _page(index_pk: str, lo: str, hi: str, *, descending: bool, limit: int
          ) -> list[dict[str, Any]]:
    """Up to `limit` items whose ids lie in [lo, hi], in index order: one Query of the index,
    one BatchGetItem of the items."""
    entries = list(base.query(index_pk, index="GSI1", sk_between=(lo, hi),
                              descending=descending, limit=limit))
    found = {(i["PK"], i["SK"]): i for i in
             base.batch_get([{"PK": e["PK"], "SK": e["SK"]} for e in entries])}
    return [base.record(found[(e["PK"], e["SK"])]) for e in entries
            if (e["PK"], e["SK"]) in found]


def block_page(low: int | None, high: int | None, *, descending: bool, limit: int
               ) -> list[dict[str, Any]]:
    """Up to `limit` blocks with ids in [low, high] (None: unbounded), in id order."""
    return _page(keys.DOMAIN_BLOCKS_INDEX, *keys.id_range(low, high), descending=descending,
                 limit=limit)


def allow_page(low: int | None, high: int | None, *, descending: bool, limit: int
               ) -> list[dict[str, Any]]:
    """Up to `limit` allows with ids in [low, high] (None: unbounded), in id order."""
    return _page(keys.DOMAIN_ALLOWS_INDEX, *keys.id_range(low, high), descending=descending,
                 limit=limit)


def put_block_op(item: dict[str, Any], *, replace: bool = False) -> base.Op:
    """A new block; fails (ConditionFailed) when the domain has one already — unless
    `replace`: then written over it."""
    return base.Op("Put", item=_block_item(item)) if replace else \
        base.put_new(_block_item(item))


def update_block_op(domain: str, block_id: str, changes: dict[str, Any]) -> base.Op:
    """Change a block in place (an Update: the stream's MODIFY carries old and new severity),
    only while it is still the block that was read."""
    op = base.set_op(keys.domain_block(domain), changes, condition=SAME_ID)
    op.names[SAME_ID_NAME] = "id"
    return op.with_vals({":expected_id": block_id})


def delete_block_op(domain: str, block_id: str) -> base.Op:
    return base.Op("Delete", key=keys.domain_block(domain), condition=SAME_ID,
                   names={SAME_ID_NAME: "id"}, vals={":expected_id": block_id})


def put_allow_op(item: dict[str, Any], *, replace: bool = False) -> base.Op:
    """A new allow; fails (ConditionFailed) when the domain has one already — unless
    `replace`: then written over it."""
    return base.Op("Put", item=_allow_item(item)) if replace else \
        base.put_new(_allow_item(item))


def delete_allow_op(domain: str, allow_id: str) -> base.Op:
    return base.Op("Delete", key=keys.domain_allow(domain), condition=SAME_ID,
                   names={SAME_ID_NAME: "id"}, vals={":expected_id": allow_id})
