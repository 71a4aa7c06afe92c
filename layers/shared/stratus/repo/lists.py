"""Lists: a user's lists (in their partition) and their members (one partition per list, with
GSI1 `LISTEDIN#<account>` so fan-out finds the lists an author is in)."""

from __future__ import annotations

from typing import Any

from stratus.model.lists import List, ListMember
from stratus.repo import base, keys


def list_item(owner_id: str, list_id: str, fields: dict[str, Any]) -> List:
    """A new list's record (`create` writes it)."""
    return {"type": "list", "id": list_id, "owner_id": owner_id, **fields}


def get(owner_id: str, list_id: str) -> List | None:
    return base.record(base.get(keys.list_item(owner_id, list_id), consistent=True))


def of_owner(owner_id: str) -> list[List]:
    return list(base.records(base.query(keys.account_pk(owner_id),
                                        sk_prefix=keys.LIST_PREFIX)))


def create(record: dict[str, Any]) -> None:
    """Write a new list (a record from `list_item`)."""
    base.put({**keys.list_item(record["owner_id"], record["id"]), **record},
             condition="attribute_not_exists(PK)")


def update(owner_id: str, list_id: str, fields: dict[str, Any]) -> None:
    base.transact([base.set_op(keys.list_item(owner_id, list_id), fields)])


def delete(owner_id: str, list_id: str) -> None:
    base.delete(keys.list_item(owner_id, list_id))


def member_item(list_id: str, owner_id: str, account_id: str, member_id: str
                ) -> ListMember:
    """A new member's record (`add_members` writes it)."""
    return {"type": "list_member", "id": member_id, "list_id": list_id, "owner_id": owner_id,
            "account_id": account_id}


def members(list_id: str) -> list[ListMember]:
    """A list's members, in account id order (records)."""
    return list(base.records(base.query(keys.list_members_pk(list_id),
                                        sk_prefix=keys.MEMBER_PREFIX)))


def memberships(list_id: str, account_ids: list[str]) -> set[str]:
    """Which of `account_ids` are in the list."""
    found = base.batch_get([keys.list_member(list_id, a) for a in account_ids])
    return {item["account_id"] for item in found}


def add_members(records: list[dict[str, Any]]) -> None:
    """Write members (records from `member_item`) with their keys and index keys."""
    base.write_many(puts=[{**keys.list_member(r["list_id"], r["account_id"]), **r,
                           **keys.list_member_index_keys(r["list_id"], r["account_id"])}
                          for r in records])


def remove_members(list_id: str, account_ids: list[str]) -> None:
    base.write_many(deletes=[keys.list_member(list_id, a) for a in account_ids])


def lists_containing(account_id: str, after: str | None, limit: int
                     ) -> tuple[list[dict[str, Any]], str | None]:
    """The lists an account is in ({"list_id", "owner_id"}), a page at a time by list id."""
    low = keys.pad(int(after) + 1) if after else keys.pad(0)
    entries = [{"list_id": keys.id_from_sk(e["GSI1SK"]), "owner_id": e["owner_id"]}
               for e in base.query(keys.lists_containing(account_id), index="GSI1",
                                   sk_between=(low, keys.MAX_SK), limit=limit)]
    return entries, (entries[-1]["list_id"] if len(entries) == limit else None)


def get_many(pairs: list[tuple[str, str]]) -> list[List]:
    """Lists by (owner id, list id), as records."""
    return list(base.records(base.batch_get([keys.list_item(owner, list_id)
                                             for owner, list_id in pairs])))
