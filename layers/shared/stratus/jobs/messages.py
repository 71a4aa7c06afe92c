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


@dataclass(frozen=True, kw_only=True)
class StatusChanged(Job):
    name: ClassVar[str] = "status_changed"
    status_id: str
    account_id: str
    visibility: str | None = None
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
class StatusEdited(Job):
    """A status was edited: those who boosted it are notified (`update`), a page of boosts per
    job; `after` is the boost edge id the next job continues from."""

    name: ClassVar[str] = "status_edited"
    status_id: str
    account_id: str
    edited_at: str
    after: str | None = None


@dataclass(frozen=True, kw_only=True)
class AccountActivated(Job):
    """A local user became usable (confirmed and approved): staff are notified
    (`admin.sign_up`)."""

    name: ClassVar[str] = "account_activated"
    account_id: str


@dataclass(frozen=True, kw_only=True)
class NotificationRequestClosed(Job):
    """A notification request was accepted (its sender's filtered notifications are let in) or
    dismissed (they are deleted); the worker tells which by the permission accepting leaves."""

    name: ClassVar[str] = "notification_request_closed"
    account_id: str
    from_account_id: str


@dataclass(frozen=True, kw_only=True)
class SweepNotifications(Job):
    """Remove an account's notifications (up to an id, or one group's) that a request left."""

    name: ClassVar[str] = "sweep_notifications"
    account_id: str
    sweep_id: str
    group_key: str | None = None
    up_to_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class MediaExpired(Job):
    name: ClassVar[str] = "media_expired"
    media_id: str
    keys: list[str] = field(default_factory=list)


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
