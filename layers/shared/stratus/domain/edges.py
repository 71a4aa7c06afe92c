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
