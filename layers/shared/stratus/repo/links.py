"""The link index: for each normalised URL, the public statuses whose preview card would be
made from it, by status id (one partition per URL, named by its digest), and a marker that
some status linked it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from stratus.core.paging import Budget
from stratus.repo import base, keys


def index(url: str, status_id: str, fields: dict[str, Any]) -> None:
    base.put({**keys.linked_status(url, status_id), "type": "linked_status",
              "status_id": status_id, **fields})
    base.put({**keys.link(url), "type": "link", "url": url},
             condition="attribute_not_exists(PK)")


def unindex(url: str, status_id: str) -> None:
    base.delete(keys.linked_status(url, status_id))


def known(url: str) -> bool:
    """Whether any status ever linked `url`."""
    return base.get(keys.link(url)) is not None


def entries(url: str, low: int | None, high: int | None, descending: bool, *, budget: Budget,
            step: int) -> Iterator[dict[str, Any]]:
    """The statuses linking `url` with ids in [low, high] (None: unbounded; index entries,
    `{"id": ...}`)."""
    partition, bounds = keys.linked_range(url, *keys.id_range(low, high))
    for item in base.query(partition, sk_between=bounds, descending=descending, budget=budget,
                           step=step):
        yield {**base.record(item), "id": item["status_id"]}
