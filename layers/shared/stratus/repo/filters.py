"""Filters: a user's filters (`filter`), their keywords (`filter_keyword`) and status filters
(`filter_status`), all in the account's partition under `FILTER#`, so one Query reads every
filter record of the account. Every change is one transaction that also bumps the account's
`filters_rev` item once (the stream's `filters_changed`, whatever the request touched)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stratus.core.errors import NotFound
from stratus.model.filters import Filter, FilteredStatus, Keyword
from stratus.repo import base, keys

# One transaction holds at most 100 operations; the revision takes one.
MAX_CHANGES = 99


def filter_record(account_id: str, filter_id: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A new filter, to write with `change` (its key comes from its ids there)."""
    return {"type": "filter", "id": filter_id, "account_id": account_id, **fields}


def keyword_record(account_id: str, filter_id: str, keyword_id: str, keyword: str,
                   whole_word: bool) -> dict[str, Any]:
    """A new keyword of a filter, to write with `change`."""
    return {"type": "filter_keyword", "id": keyword_id, "filter_id": filter_id,
            "account_id": account_id, "keyword": keyword, "whole_word": whole_word}


def status_record(account_id: str, filter_id: str, status_filter_id: str, status_id: str
                  ) -> dict[str, Any]:
    """A new status filter of a filter, to write with `change`."""
    return {"type": "filter_status", "id": status_filter_id, "filter_id": filter_id,
            "account_id": account_id, "status_id": status_id}


def records(account_id: str, filter_id: str | None = None) -> list[Filter | Keyword | FilteredStatus]:
    """Every filter record of the account (or of one filter), filters before their rules."""
    return list(base.records(base.query(keys.account_pk(account_id),
                                        sk_prefix=keys.filters_prefix(filter_id))))


def _key(record: dict[str, Any]) -> dict[str, str]:
    """The key of a filter, keyword or status filter record, from its type and ids."""
    if record["type"] == "filter":
        return keys.filter_item(record["account_id"], record["id"])
    if record["type"] == "filter_keyword":
        return keys.filter_keyword(record["account_id"], record["filter_id"], record["id"])
    return keys.filter_status(record["account_id"], record["filter_id"], record["id"])


def _rev(account_id: str) -> base.Op:
    return base.Op("Update", key=keys.filters_rev(account_id),
                   expression="SET #type = :type, #account = :account ADD #rev :one",
                   names={"#type": "type", "#account": "account_id", "#rev": "rev"},
                   vals={":type": "filters_rev", ":account": account_id, ":one": 1},
                   condition=None)


def change(account_id: str, *, puts: Sequence[dict[str, Any]] = (),
           updates: Sequence[tuple[dict[str, Any], dict[str, Any]]] = (),
           deletes: Sequence[dict[str, Any]] = ()) -> None:
    """One transaction: new records (`*_record`), updates (record, changed fields) of existing
    ones (a record gone meanwhile is 404), deletions of records, and the account's filters
    revision bumped once."""
    ops = [base.put_new({**_key(record), **record}) for record in puts]
    for record, fields in updates:
        op = base.set_op(_key(record), fields)
        op.on_conflict = NotFound()
        ops.append(op)
    ops += [base.Op("Delete", key=_key(record)) for record in deletes]
    base.transact([*ops, _rev(account_id)])


def delete_rest(rules: Sequence[dict[str, Any]]) -> None:
    """Records of a deleted filter beyond one transaction (nothing reads them without it)."""
    base.delete_many([_key(record) for record in rules])


def rev(account_id: str) -> int:
    item = base.get(keys.filters_rev(account_id), consistent=True)
    return int(item["rev"]) if item else 0
