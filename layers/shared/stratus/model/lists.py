"""A list and its members as stored — records as repo/ returns them (no storage keys)."""

from __future__ import annotations

from typing import TypedDict


class List(TypedDict, total=False):
    id: str
    type: str  # "list"
    owner_id: str
    title: str
    replies_policy: str
    exclusive: bool


class ListMember(TypedDict, total=False):
    id: str
    type: str  # "list_member"
    owner_id: str
    list_id: str
    account_id: str
