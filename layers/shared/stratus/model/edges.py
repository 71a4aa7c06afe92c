"""What a viewer has done to the statuses of a page (the viewer flags of Status entities)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ViewerEdges:
    favourited: set[str] = field(default_factory=set)  # status ids
    reblogged: set[str] = field(default_factory=set)
    bookmarked: set[str] = field(default_factory=set)
    pinned: set[str] = field(default_factory=set)
    muted_threads: set[str] = field(default_factory=set)  # thread (root status) ids
    # Counters are kept from the stream a moment later: the viewer's own likes and boosts that
    # are not counted yet (or un-done and not yet taken back) are added here, so a client sees
    # its own action in the counts it gets back. {status id: {counter: delta}}
    pending: dict[str, dict[str, int]] = field(default_factory=dict)

    def expect(self, status_id: str, counter: str, delta: int) -> None:
        counters = self.pending.setdefault(status_id, {})
        counters[counter] = counters.get(counter, 0) + delta
