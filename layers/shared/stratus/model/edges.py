"""Edges as stored — an account's favourite, boost, bookmark or pin of a status, its follow or
follow request of another account — and what a viewer has done to the statuses of a page (the
viewer flags of Status entities). Records as repo/ returns them (no storage keys); an
attribute a record does not have is simply absent, and index entries carry a subset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict


class Edge(TypedDict, total=False):
    """A favourite, boost, bookmark or pin (`type` says which) of `status_id` by
    `account_id`."""

    id: str
    type: str
    account_id: str
    status_id: str
    status_account_id: str
    reblog_id: str  # a boost: the reblog status
    uri: str  # a remote Like or Announce: its activity id
    created_at: str
    counted: bool
    tallied: bool  # its live counters were written with it (model/counting.py)


class Follow(TypedDict, total=False):
    """A follow, or a follow request (`type` "follow_request"), of `target_id` by
    `account_id`."""

    id: str
    type: str
    account_id: str
    target_id: str
    created_at: str
    show_reblogs: bool
    notify: bool
    languages: list[str] | None
    authorized: bool
    uri: str  # the Follow activity's id (remote follows)
    remote_target: bool
    counted: bool
    tallied: bool  # its live counters were written with it (model/counting.py)


@dataclass
class ViewerEdges:
    favourited: set[str] = field(default_factory=set)  # status ids
    reblogged: set[str] = field(default_factory=set)
    bookmarked: set[str] = field(default_factory=set)
    pinned: set[str] = field(default_factory=set)
    muted_threads: set[str] = field(default_factory=set)  # thread (root status) ids
    # A like or boost whose status was contended is counted from the stream a moment later:
    # the viewer's own that are not counted yet (or un-done and not yet taken back) are added
    # here, so a client sees
    # its own action in the counts it gets back. {status id: {counter: delta}}
    pending: dict[str, dict[str, int]] = field(default_factory=dict)

    def expect(self, status_id: str, counter: str, delta: int) -> None:
        counters = self.pending.setdefault(status_id, {})
        counters[counter] = counters.get(counter, 0) + delta
