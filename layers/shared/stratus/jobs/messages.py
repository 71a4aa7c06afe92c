"""Typed job messages carried by SQS (and by one-off schedules): one frozen dataclass per job,
named by its `job` field. Messages from the stream carry the event id they came from; consumers
use it (or a flag on the item itself) to make a redelivery change nothing."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

_JOBS: dict[str, type[Job]] = {}


@dataclass(frozen=True, kw_only=True)
class Job:
    name: ClassVar[str] = ""
    event_id: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name:
            _JOBS[cls.name] = cls

    def to_dict(self) -> dict[str, Any]:
        return {"job": self.name, **asdict(self)}


def decode(body: str | dict[str, Any]) -> Job:
    """The job a message body holds; ValueError for anything else (a poison message)."""
    data = json.loads(body) if isinstance(body, str) else body
    if not isinstance(data, dict) or data.get("job") not in _JOBS:
        raise ValueError(f"unknown job {data.get('job') if isinstance(data, dict) else data!r}")
    cls = _JOBS[data["job"]]
    try:
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})
    except TypeError as exc:
        raise ValueError(f"malformed {cls.name} job: {exc}") from None


# --- mail ----------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ConfirmationMail(Job):
    name: ClassVar[str] = "confirmation_mail"
    account_id: str
    nonce: str


# --- counters ------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Count(Job):
    """An item that counters depend on was inserted or removed (`item`: the attributes the
    counting rules read, from the new image or, for a removal, the old one)."""

    name: ClassVar[str] = "count"
    event: str  # INSERT | REMOVE
    item_type: str
    item: dict[str, Any] = field(default_factory=dict)


# --- effects -------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class StatusCreated(Job):
    name: ClassVar[str] = "status_created"
    status_id: str
    account_id: str
    visibility: str | None = None
    tags: list[str] = field(default_factory=list)
    mention_ids: list[str] = field(default_factory=list)
    reblog_of_id: str | None = None
    reblog_of_account_id: str | None = None
    local: bool = True
    has_media: bool = False


@dataclass(frozen=True, kw_only=True)
class StatusChanged(Job):
    name: ClassVar[str] = "status_changed"
    status_id: str
    account_id: str
    visibility: str | None = None
    local: bool = True
    has_media: bool = False
    added_tags: list[str] = field(default_factory=list)
    removed_tags: list[str] = field(default_factory=list)
    added_mention_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class StatusRemoved(Job):
    """A status is gone: remove everything that points at it. A large cascade continues in a
    copy of the job (what was removed is not found again)."""

    name: ClassVar[str] = "status_removed"
    status_id: str
    account_id: str
    tags: list[str] = field(default_factory=list)
    reblog_of_id: str | None = None
    reblog_of_account_id: str | None = None
    poll_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class Favourited(Job):
    name: ClassVar[str] = "favourited"
    account_id: str
    status_id: str
    status_account_id: str


@dataclass(frozen=True, kw_only=True)
class Unfavourited(Job):
    name: ClassVar[str] = "unfavourited"
    account_id: str
    status_id: str
    status_account_id: str


@dataclass(frozen=True, kw_only=True)
class PollClosed(Job):
    name: ClassVar[str] = "poll_closed"
    poll_id: str
    status_id: str
    account_id: str


@dataclass(frozen=True, kw_only=True)
class MediaExpired(Job):
    name: ClassVar[str] = "media_expired"
    media_id: str
    keys: list[str] = field(default_factory=list)


# --- the social graph (effects) ------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Followed(Job):
    """A follow was made (not by accepting a request): notify the followed account."""

    name: ClassVar[str] = "followed"
    follow_id: str
    account_id: str  # the follower
    target_id: str


@dataclass(frozen=True, kw_only=True)
class Unfollowed(Job):
    """A follow ended (unfollow, removed follower, block): its notification goes with it."""

    name: ClassVar[str] = "unfollowed"
    follow_id: str
    account_id: str
    target_id: str


@dataclass(frozen=True, kw_only=True)
class FollowRequested(Job):
    name: ClassVar[str] = "follow_requested"
    request_id: str
    account_id: str  # the requester
    target_id: str


@dataclass(frozen=True, kw_only=True)
class FollowRequestRemoved(Job):
    """A request was accepted, rejected, withdrawn or ended by a block: its notification goes."""

    name: ClassVar[str] = "follow_request_removed"
    request_id: str
    account_id: str
    target_id: str


@dataclass(frozen=True, kw_only=True)
class Blocked(Job):
    """The blocker's notifications from the blocked account go (Mastodon's AfterBlockService).
    A long sweep continues in a copy of the job, below `before_id`."""

    name: ClassVar[str] = "blocked"
    account_id: str  # the blocker
    target_id: str
    before_id: str | None = None


# --- conversations, hashtags, links (effects) ----------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class DirectStatusPosted(Job):
    """A direct status goes into its author's and its mentioned users' conversations; `only`
    (an edit that mentions more accounts): just these newly mentioned ones."""

    name: ClassVar[str] = "direct_status_posted"
    status_id: str
    account_id: str  # the author
    thread_id: str
    mention_ids: list[str] = field(default_factory=list)
    in_reply_to_account_id: str | None = None
    local: bool = True
    only: list[str] | None = None


@dataclass(frozen=True, kw_only=True)
class DirectStatusRemoved(Job):
    """A deleted direct status leaves the conversations it was in."""

    name: ClassVar[str] = "direct_status_removed"
    status_id: str
    account_id: str
    thread_id: str
    mention_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class LinksChanged(Job):
    """A public original status was posted, edited or deleted: its entry in the link index
    follows the link its text now has (`old_text`/`new_text`: None before a post, after a
    deletion)."""

    name: ClassVar[str] = "links_changed"
    status_id: str
    account_id: str
    old_text: str | None = None
    new_text: str | None = None
    local: bool = True


# --- media ---------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ProcessMedia(Job):
    name: ClassVar[str] = "process_media"
    media_id: str


# --- timers (one-off schedules put these on the timers queue) ------------------------------------
@dataclass(frozen=True, kw_only=True)
class PollExpired(Job):
    name: ClassVar[str] = "poll_expired"
    poll_id: str


@dataclass(frozen=True, kw_only=True)
class PublishScheduled(Job):
    name: ClassVar[str] = "publish_scheduled"
    scheduled_status_id: str


# --- fan-out (home and list feeds) ---------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class FanOut(Job):
    """A status to put into (or, `removal`, take out of) its receivers' feeds: its followers,
    a page at a time from the follow-id cursor `after`, each page in `Deliver` batches."""

    name: ClassVar[str] = "fan_out"
    status: dict[str, Any] = field(default_factory=dict)
    removal: bool = False
    after: str | None = None


@dataclass(frozen=True, kw_only=True)
class Deliver(Job):
    name: ClassVar[str] = "deliver"
    status: dict[str, Any] = field(default_factory=dict)
    receivers: list[str] = field(default_factory=list)
    removal: bool = False


@dataclass(frozen=True, kw_only=True)
class MergeIntoHome(Job):
    """A new follow: the followed account's recent statuses go into the follower's home."""

    name: ClassVar[str] = "merge_into_home"
    account_id: str
    target_id: str


@dataclass(frozen=True, kw_only=True)
class ClearFromHome(Job):
    """An unfollow, block or mute: the target's statuses and boosts leave the owner's home."""

    name: ClassVar[str] = "clear_from_home"
    account_id: str
    target_id: str


@dataclass(frozen=True, kw_only=True)
class RegenerateHome(Job):
    """Rebuild a returning user's home from their own and followed accounts' statuses, a page
    of followed accounts per job (`after`: the follow-id cursor; `started`: own ones done)."""

    name: ClassVar[str] = "regenerate_home"
    account_id: str
    after: str | None = None
    started: bool = False
