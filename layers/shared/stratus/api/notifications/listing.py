"""What the notification lists share: the request's filters (Mastodon's `browserable`: types,
excluded types, a sender, filtered notifications), the viewer's own notification, and removal
beyond what one request removes (a sweep job the effects worker finishes).

Lists examine a bounded number of entries (`stratus.core.paging.Budget`): type, sender and policy
filters are applied by DynamoDB on the recipient's partition; a notification about a status the
viewer may no longer see is dropped after one batched read of the page's statuses, and a page
renders with a constant number of batched reads (read/notifications.py). The viewer's filters
for notifications are compiled once per list request (read/notifications `Shown`): the
statuses of each batch are rendered as the page fills, and a notification whose status a `hide`
filter removes is dropped there, so the page fills from further entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from stratus.core import clock, ids
from stratus.core.errors import NotFound
from stratus.core.params import flag
from stratus.model.viewer import Viewer
from stratus.repo import notifications as repo

# Mastodon 4.3's notification types (`Notification::TYPES`): what `types[]` can name.
TYPES = ("mention", "status", "reblog", "follow", "follow_request", "favourite", "poll",
         "update", "admin.sign_up", "admin.report", "severed_relationships",
         "moderation_warning")
INLINE_REMOVALS = 400  # removed by the request; a sweep job removes the rest
SWEEP_TTL = timedelta(days=1)


def values(value: Any) -> list[str]:
    """A list parameter's values as strings (`types[]=a&types[]=b`, `types[0]=a`, or one
    value)."""
    if value is None or value == "":
        return []
    if isinstance(value, dict):
        value = list(value.values())
    return [str(v) for v in (value if isinstance(value, list) else [value])]


@dataclass(frozen=True)
class Browse:
    """What a list request asks for (Mastodon's `browserable`)."""

    types: tuple[str, ...] | None  # None: every type
    exclude: tuple[str, ...]
    from_id: str | None
    include_filtered: bool
    nothing: bool  # the filters leave nothing (no known type, a sender that cannot exist)

    def wants(self, kind: str) -> bool:
        return (self.types is None or kind in self.types) and kind not in self.exclude

    def listing_filter(self):
        return repo.listing_filter(types=self.types, exclude=self.exclude, from_id=self.from_id,
                                   include_filtered=self.include_filtered)


def browse(params: dict[str, Any]) -> Browse:
    asked = values(params.get("types"))
    excluded = tuple(t for t in TYPES if t in values(params.get("exclude_types")))
    wanted = [t for t in TYPES if (not asked or t in asked)]
    types = None if len(wanted) == len(TYPES) else tuple(wanted)
    sender = params.get("account_id")
    from_id = str(sender) if sender not in (None, "") and not isinstance(sender, (list, dict)) \
        else None
    nothing = (types is not None and not [t for t in types if t not in excluded]) or \
        (sender not in (None, "") and (from_id is None or not ids.is_id(from_id)))
    # A sender's notifications include the filtered ones (the requests view lists them so).
    include_filtered = flag(params.get("include_filtered")) or from_id is not None
    return Browse(types, excluded, from_id, include_filtered, nothing)


def own(viewer: Viewer, notification_id: str) -> dict[str, Any]:
    """The viewer's notification with this id, or 404."""
    item = repo.get(viewer.account_id, notification_id) if ids.is_id(notification_id) else None
    if item is None:
        raise NotFound()
    return item


def sweep(viewer: Viewer, *, up_to_id: str | None = None, group_key: str | None = None) -> None:
    """Leave the rest of a removal to the effects worker (a sweep job)."""
    repo.start_sweep(viewer.account_id, ids.new_id(), up_to_id=up_to_id, group_key=group_key,
                     expires=int((clock.now() + SWEEP_TTL).timestamp()))
