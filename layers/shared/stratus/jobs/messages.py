"""Typed job messages carried by SQS (and by one-off schedules): one frozen dataclass per job,
named by its `job` field. Messages from the stream carry the event id they came from; consumers
use it (or a flag on the item itself) to make a redelivery change nothing."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from stratus.core import jsondoc
from stratus.core.errors import Permanent

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


class Poison(Permanent):
    """A message that holds no job this code can run (not JSON, nested too deeply, an unknown
    job, missing or unknown fields): running it again cannot succeed, so it is dropped
    (observability.sqs_batch_handler), not retried until it is dead-lettered."""


# A job wraps what it carries (an activity checked to jsondoc.MAX_DEPTH at the inbox) in a
# level or two of its own.
MAX_DEPTH = jsondoc.MAX_DEPTH + 4


def decode(body: str | dict[str, Any]) -> Job:
    """The job a message body holds; Poison for anything else."""
    try:
        data = jsondoc.loads(body, max_depth=MAX_DEPTH) if isinstance(body, str) \
            else jsondoc.check(body, MAX_DEPTH)
    except ValueError as exc:
        raise Poison(f"not a job: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("job"), str) or \
            data["job"] not in _JOBS:
        shown = data.get("job") if isinstance(data, dict) else type(data).__name__
        raise Poison(f"unknown job {str(shown)[:100]!r}")
    cls = _JOBS[data["job"]]
    try:
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})
    except TypeError as exc:
        raise Poison(f"malformed {cls.name} job: {exc}") from None


# --- mail ----------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ConfirmationMail(Job):
    name: ClassVar[str] = "confirmation_mail"
    account_id: str
    nonce: str


@dataclass(frozen=True, kw_only=True)
class TrendsReviewMail(Job):
    """Tell the staff who review trends what awaits them (api/trends/trends.py)."""

    name: ClassVar[str] = "trends_review_mail"
    review_id: str


@dataclass(frozen=True, kw_only=True)
class TermsOfServiceMail(Job):
    """Tell the users of a new version of the terms of service (api/instance/terms.py), a page
    of users at a time: `after` is the last account of the pages done; `event_id` stays the
    stream record's, so each user is mailed once however the pages are delivered."""

    name: ClassVar[str] = "terms_of_service_mail"
    terms_id: str
    after: str | None = None


# a moderation warning mailed to the user (Mastodon's UserMailer#warning)
@dataclass(frozen=True, kw_only=True)
class WarningMail(Job):
    name: ClassVar[str] = "warning_mail"
    account_id: str
    warning_id: str


# --- counters ------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Count(Job):
    """An item that counters depend on was inserted or removed (`item`: the attributes the
    counting rules read, from the new image or, for a removal, the old one)."""

    name: ClassVar[str] = "count"
    event: str  # INSERT | REMOVE (| MODIFY: a status's tags changed, `old_tags` in `item`)
    item_type: str
    item: dict[str, Any] = field(default_factory=dict)


# --- effects -------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class DirectoryTouch(Job):
    """profiles: an account's profile, user or stats changed; its directory entry
    (and popular-suggestion entry) is made again from what they are now."""

    name: ClassVar[str] = "directory_touch"
    account_id: str


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
class GenerateActorKey(Job):
    """A new local user: its actor's RSA key pair is made (federation/actor_keys.py), off the
    sign-up request."""

    name: ClassVar[str] = "generate_actor_key"
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


@dataclass(frozen=True, kw_only=True)
class DomainMediaRejected(Job):
    """A domain block now rejects a domain's media (or suspends it): the copies of its remote
    media already in our bucket are removed (federation/remote_media.py)."""

    name: ClassVar[str] = "domain_media_rejected"
    domain: str


# --- reports -------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ReportFiled(Job):
    """A report was filed: staff who may manage reports are notified (`admin.report`)."""

    name: ClassVar[str] = "report_filed"
    report_id: str
    account_id: str  # the reporter


@dataclass(frozen=True, kw_only=True)
class TrendsReviewNotice(Job):
    """Trends await review: each reviewer gets an `admin.trends` notification (services/
    trends.py; the mail goes on the mail queue)."""

    name: ClassVar[str] = "trends_review_notice"
    review_id: str


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


@dataclass(frozen=True, kw_only=True)
class UserDomainBlocked(Job):
    """A user blocked a domain (POST /api/v1/domain_blocks): its follows with the domain's
    accounts end both ways, and the requests to follow it from there, each told to the other
    server (federation/follows.end_follows_with_domain, Mastodon's
    AfterBlockDomainFromAccountService); one bounded step per job, the next in a copy from
    `cursor` (`part` counts the steps: a redelivered step runs once)."""

    name: ClassVar[str] = "user_domain_blocked"
    account_id: str  # the local account that blocks
    domain: str  # as the block names it: a host, lower case, without a port
    cursor: str | None = None
    part: int = 0


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


# --- search (api/search/search.py) -----------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class AccountWordsChanged(Job):
    """An account was created, renamed or removed: its word entries follow its profile as it is
    now (`old_words`: the words of the profile before the change)."""

    name: ClassVar[str] = "account_words_changed"
    account_id: str
    old_words: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class StatusSearchScope(Job):
    """Who may find a status by its words changed (posted, liked, bookmarked, boosted, undone),
    or its words did (edited, deleted): the entries of `account_ids` (None: of everyone it is
    indexed for, and its author and mentions) follow the status as it is now. `tags`: the
    status's hashtags (searchable from their first use)."""

    name: ClassVar[str] = "status_search_scope"
    status_id: str
    account_ids: list[str] | None = None
    tags: list[str] = field(default_factory=list)


# --- media ---------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ProcessMedia(Job):
    name: ClassVar[str] = "process_media"
    media_id: str


# --- preview cards (the cards queue, workers/cards.py) --------------------------------------------
@dataclass(frozen=True, kw_only=True)
class FetchCard(Job):
    """A local status was posted or its text edited: make (or reuse) the preview card of the
    first link its text has now, and name it on the status."""

    name: ClassVar[str] = "fetch_card"
    status_id: str


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
    """A status to put into (or, `removal`, take out of) its receivers' feeds: its followers
    whose follow ids are in (`after`, `until`] (None: unbounded), a page at a time, each page in
    `Deliver` batches; a full page hands the rest of its range on in parallel parts
    (workers/fanout.py)."""

    name: ClassVar[str] = "fan_out"
    status: dict[str, Any] = field(default_factory=dict)
    removal: bool = False
    after: str | None = None
    until: str | None = None  # the highest follow id this job and its parts reach
    exclusive: list[str] = field(default_factory=list)  # owners of exclusive lists with the author


@dataclass(frozen=True, kw_only=True)
class Deliver(Job):
    name: ClassVar[str] = "deliver"
    status: dict[str, Any] = field(default_factory=dict)
    receivers: list[str] = field(default_factory=list)
    removal: bool = False
    exclusive: list[str] = field(default_factory=list)  # receivers whose home skips it
    via_tag: bool = False  # receivers follow one of its hashtags, not (necessarily) its author


@dataclass(frozen=True, kw_only=True)
class FanOutToTag(Job):
    """A public status for the local followers of one of its hashtags, a page at a time."""

    name: ClassVar[str] = "fan_out_to_tag"
    status: dict[str, Any] = field(default_factory=dict)
    tag: str
    removal: bool = False
    after: str | None = None


@dataclass(frozen=True, kw_only=True)
class DeliverToLists(Job):
    """A status for the lists its author is in ({"id", "owner_id", "replies_policy"})."""

    name: ClassVar[str] = "deliver_to_lists"
    status: dict[str, Any] = field(default_factory=dict)
    lists: list[dict[str, Any]] = field(default_factory=list)
    removal: bool = False


@dataclass(frozen=True, kw_only=True)
class MergeIntoList(Job):
    """A new member: their recent statuses go into the list's timeline."""

    name: ClassVar[str] = "merge_into_list"
    list_id: str
    owner_id: str
    account_id: str


@dataclass(frozen=True, kw_only=True)
class ClearFromList(Job):
    """A member left: their statuses leave the list's timeline."""

    name: ClassVar[str] = "clear_from_list"
    list_id: str
    account_id: str


@dataclass(frozen=True, kw_only=True)
class DropList(Job):
    """A list was deleted: its members and timeline go too."""

    name: ClassVar[str] = "drop_list"
    list_id: str


@dataclass(frozen=True, kw_only=True)
class LeaveLists(Job):
    """An unfollow: the unfollowed account leaves the follower's lists (Mastodon)."""

    name: ClassVar[str] = "leave_lists"
    account_id: str
    target_id: str


@dataclass(frozen=True, kw_only=True)
class MergeIntoHome(Job):
    """A new follow: the followed account's recent statuses go into the follower's home."""

    name: ClassVar[str] = "merge_into_home"
    account_id: str
    target_id: str


@dataclass(frozen=True, kw_only=True)
class ClearFromHome(Job):
    """An unfollow, block or mute: the target's statuses leave the owner's home. `unmerge` (an
    unfollow, and the blocked side of a block) takes only what the target posted or boosted;
    otherwise (the blocker, a mute) boosts of the target's statuses and statuses mentioning the
    target go too."""

    name: ClassVar[str] = "clear_from_home"
    account_id: str
    target_id: str
    unmerge: bool = False


@dataclass(frozen=True, kw_only=True)
class RegenerateHome(Job):
    """Rebuild a returning user's home from their own and followed accounts' statuses, a page
    of followed accounts per job (`after`: the follow-id cursor; `started`: own ones done)."""

    name: ClassVar[str] = "regenerate_home"
    account_id: str
    after: str | None = None
    started: bool = False


@dataclass(frozen=True, kw_only=True)
class AccountActive(Job):
    """An account used the API on `day` (yyyymmdd; its first request that day inserted the
    day's activity item): its home stays fed for a week, rebuilt first if it had gone idle
    (Mastodon's User#update_sign_in! and regenerate_feed!)."""

    name: ClassVar[str] = "account_active"
    account_id: str
    day: str


# --- streaming (workers/stream.py: events for WebSocket and SSE connections) ----------------------
@dataclass(frozen=True, kw_only=True)
class StreamStatus(Job):
    """A status was posted (`update`), deleted (`delete`) or edited (`status.update`): the
    instance-wide streams it belongs on, and for an edit the homes that hold it."""

    name: ClassVar[str] = "stream_status"
    event: str
    status_id: str
    account_id: str
    visibility: str | None = None
    local: bool = True
    has_media: bool = False
    tags: list[str] = field(default_factory=list)
    in_reply_to_id: str | None = None
    in_reply_to_account_id: str | None = None
    reblog: bool = False


@dataclass(frozen=True, kw_only=True)
class StreamToFeeds(Job):
    """Fan-out put a status into (`update`) or took it out of (`delete`) these homes and lists:
    the same event for whoever of their owners is streaming (`lists`: {"id", "owner_id"})."""

    name: ClassVar[str] = "stream_to_feeds"
    event: str
    status_id: str
    receivers: list[str] = field(default_factory=list)
    lists: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class StreamNotification(Job):
    name: ClassVar[str] = "stream_notification"
    account_id: str
    notification_id: str


@dataclass(frozen=True, kw_only=True)
class StreamConversation(Job):
    name: ClassVar[str] = "stream_conversation"
    account_id: str
    conversation_id: str


@dataclass(frozen=True, kw_only=True)
class StreamFiltersChanged(Job):
    name: ClassVar[str] = "stream_filters_changed"
    account_id: str


@dataclass(frozen=True, kw_only=True)
class CloseConnections(Job):
    """A token was revoked: its streaming connections end."""

    name: ClassVar[str] = "close_connections"
    account_id: str
    token_id: str


# --- web push ------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class PushNotification(Job):
    """A new notification (not a filtered one) to push to its recipient's web push
    subscriptions."""

    name: ClassVar[str] = "push_notification"
    account_id: str  # the recipient
    notification_id: str
    notification_type: str
    from_account_id: str


# --- Step Functions executions (the job is the execution's input) --------------------------
@dataclass(frozen=True, kw_only=True)
class PurgeAccount(Job):
    """Purge a suspended account's data (statemachines/purge_account.asl.json)."""

    name: ClassVar[str] = "purge_account"
    account_id: str


# --- announcements ---------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class PublishAnnouncement(Job):
    """A one-off schedule's job: publish the announcement if it is still due at `scheduled_at`."""

    name: ClassVar[str] = "publish_announcement"
    announcement_id: str
    scheduled_at: str


@dataclass(frozen=True, kw_only=True)
class StreamAnnouncement(Job):
    """`announcement` (published or edited while published) or `announcement.delete`
    (unpublished or deleted), to every `user` stream."""

    name: ClassVar[str] = "stream_announcement"
    event: str
    announcement_id: str


@dataclass(frozen=True, kw_only=True)
class StreamAnnouncementReaction(Job):
    """`announcement.reaction`: a reaction name's count changed (the counter item's new count)."""

    name: ClassVar[str] = "stream_announcement_reaction"
    announcement_id: str
    reaction: str
    count: int
    custom_emoji: str | None = None


@dataclass(frozen=True, kw_only=True)
class ApplyDomainBlock(Job):
    """Apply a domain block's severity to the accounts of the domain (and its subdomains),
    undoing the previous severity's effect first (statemachines/domain_block.asl.json).
    `severity` None: the block was removed."""

    name: ClassVar[str] = "domain_block"
    domain: str
    at: str  # the block's created_at: the stamp its effects carry (Mastodon's undo matches it)
    severity: str | None = None
    previous: str | None = None


# --- federation: the inbox (federation/inbox) --------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class InboxActivity(Job):
    """An activity a remote server POSTed to one of our inboxes, its signature verified:
    `actor_id` is the (remote) account the signing key belongs to, which is the activity's
    actor; `owner_id` the local account whose inbox it came to (None: the shared inbox)."""

    name: ClassVar[str] = "inbox_activity"
    activity: dict[str, Any]
    actor_id: str
    owner_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class MoveFollowers(Job):
    """The rest of a Move: local followers of `origin_id` (after `after`, a follow's sort key)
    follow `target_id` instead, one bounded batch per job (federation/inbox/move.py)."""

    name: ClassVar[str] = "inbox_move_followers"
    origin_id: str
    target_id: str
    after: str | None = None


@dataclass(frozen=True, kw_only=True)
class FetchReplies(Job):
    """The replies of a remote thread, fetched for an async refresh (federation/reply_fetch.py):
    `pending` are the steps still to take (`{"of": status uri}`: a status whose replies to walk,
    `{"collection": url, "of": status uri}`: a page of its replies collection), `seen` digests
    of the statuses walked, `pages` and `walked` what was spent. A job out of budget hands the
    rest to a copy of itself."""

    name: ClassVar[str] = "fetch_replies"
    refresh: str
    status_id: str
    pending: list[dict[str, str]] | None = None  # None: not begun (the root comes first)
    seen: list[str] = field(default_factory=list)
    pages: int = 0
    walked: int = 0
    part: int = 0  # which job of the refresh this is


# --- federation: outbound activities (federation/delivery.py) --------------------------------------
@dataclass(frozen=True, kw_only=True)
class Federate(Job):
    """A local event that peers hear of (the federation queue): `kind` names the activity
    (create, update, delete, announce, undo_announce, like, undo_like, follow, undo_follow,
    accept, reject, block, undo_block, update_actor, delete_actor, flag, vote), `item` the
    stream image it is built from. A long fan-out continues in a copy carrying the activity
    already built (`activity`, `signer`) and the follower cursor `after`."""

    name: ClassVar[str] = "federate"
    kind: str
    account_id: str  # the local actor
    item: dict[str, Any] = field(default_factory=dict)
    activity: dict[str, Any] | None = None
    signer: str | None = None  # the account that signs (None: the instance actor)
    after: str | None = None
    part: int = 0  # which continuation this is (its dedupe scope)
    sent: list[str] = field(default_factory=list)  # digests of the inboxes already sent


@dataclass(frozen=True, kw_only=True)
class DeliverActivity(Job):
    """One activity to one inbox (the delivery queue): `body` is the exact JSON posted,
    `attempt` counts from 1, `due` (epoch seconds) is when it may be tried."""

    name: ClassVar[str] = "deliver_activity"
    inbox: str
    body: str
    account_id: str | None = None  # the signer (None: the instance actor)
    attempt: int = 1
    due: float = 0.0
    # the remote account whose own inbox this is (None: a shared inbox, many accounts'):
    # checked again before each attempt, so an account suspended meanwhile hears nothing
    recipient: str | None = None
