"""A status as stored, with its counters, its earlier versions, its media and its poll —
what repo/ returns and takes (no storage keys); an attribute a record does not have is simply
absent. Index entries (timelines, threads, an account's statuses) carry a subset."""

from __future__ import annotations

from typing import Any, Required, TypedDict


class StatusStats(TypedDict, total=False):
    type: str  # "status_stats"
    replies_count: int
    reblogs_count: int
    favourites_count: int
    quotes_count: int


class Status(TypedDict, total=False):
    id: Required[str]
    type: str  # "status"
    account_id: str
    uri: str
    url: str
    local: bool
    created_at: str
    edited_at: str
    visibility: str
    text: str  # what the author wrote (local statuses)
    content: str  # the HTML shown
    content_type: str
    spoiler_text: str
    sensitive: bool
    language: str
    application: dict[str, Any]
    thread_id: str
    in_reply_to_id: str
    in_reply_to_account_id: str
    in_reply_to_uri: str
    reblog_of_id: str
    reblog_of_account_id: str
    mention_ids: list[str]
    remote_mention_ids: list[str]
    tags: list[str]
    emojis: list[Any]
    remote_emojis: list[dict[str, Any]]
    media_ids: list[str]
    poll_id: str
    card_url: str
    remote_updated_at: str
    counted: bool
    tallied: bool  # its live counters were written with it (model/counting.py)
    # flags the indexes filter by (repo.statuses.status_item)
    is_reply: bool
    is_reblog: bool
    has_media: bool
    # added by the read, not stored with the status
    stats: StatusStats
    # index entries of a hashtag or a link: the tag and the status they point to
    status_id: str
    tag: str


class Edit(TypedDict, total=False):
    """An earlier version of a status (GET /api/v1/statuses/:id/history)."""

    type: str
    created_at: str
    content: str
    spoiler_text: str
    sensitive: bool
    media_ids: list[str]
    poll_options: list[str]
    emojis: list[Any]


class Media(TypedDict, total=False):
    id: Required[str]
    type: str  # "media_attachment"
    account_id: str
    status_id: str
    scheduled_status_id: str
    media_type: str
    mime_type: str
    content_type: str
    created_at: str
    description: str
    blurhash: str
    meta: dict[str, Any]
    focus: dict[str, Any]
    file_key: str
    small_key: str
    thumbnail_key: str
    processing: bool | str
    remote_url: str
    cached_from: str
    ttl: int


class Poll(TypedDict, total=False):
    id: Required[str]
    type: str  # "poll"
    account_id: str
    status_id: str
    options: list[str]
    votes: list[int]
    voters_count: int
    multiple: bool
    hide_totals: bool
    expires_at: str
    closed: bool
    remote: bool


class Vote(TypedDict, total=False):
    type: str  # "poll_vote"
    poll_id: str
    account_id: str
    choices: list[int]
    created_at: str
