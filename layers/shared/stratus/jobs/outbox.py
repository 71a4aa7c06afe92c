"""The outbox: which Main-table item change produces which job, declared in one table.

Services only write data. Every committed write reaches the Main table stream as a change
(INSERT, MODIFY or REMOVE of one item, with its old and new images); `RULES` below says, top to
bottom, which changes have side effects, on which queue and as which typed job. The dispatcher
(functions/dispatch) sends what `route()` returns. Pure: no AWS calls, tested directly.

Add a side effect by adding a rule; a removal rule is how deletes cascade (a removed status
takes its edges, boosts, notifications, edits and the hashtag entries its own write left over
with it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stratus.core import ids
from stratus.jobs import messages as jobs
from stratus.repo import stream
from stratus.text.links import has_link
from stratus.text.words import account_words


@dataclass(frozen=True)
class Change:
    """One stream record, decoded."""

    event_id: str
    event: str  # INSERT | MODIFY | REMOVE
    new: dict[str, Any]
    old: dict[str, Any]
    by_ttl: bool = False  # removed by DynamoDB's TTL sweeper, not by our code
    record: dict[str, Any] = field(default_factory=dict, repr=False)  # as the stream sent it

    @property
    def item_type(self) -> str | None:
        return (self.new or self.old).get("type")

    @property
    def owner_id(self) -> str:
        """The account (or other owner) whose partition holds the item."""
        return stream.owner_id(self.record)

    @property
    def image(self) -> dict[str, Any]:
        """The item as it is now, or as it was when it was removed."""
        return self.new or self.old


Condition = Callable[[Change], bool]


def inserted(change: Change) -> bool:
    return change.event == "INSERT"


def removed(change: Change) -> bool:
    return change.event == "REMOVE"


def inserted_or_removed(change: Change) -> bool:
    return change.event in ("INSERT", "REMOVE")


def changed(*attributes: str) -> Condition:
    def test(change: Change) -> bool:
        return change.event == "MODIFY" and any(
            change.new.get(a) != change.old.get(a) for a in attributes)
    return test


def became_true(attribute: str) -> Condition:
    def test(change: Change) -> bool:
        return bool(change.new.get(attribute)) and not change.old.get(attribute)
    return test


def expired(change: Change) -> bool:
    return change.event == "REMOVE" and change.by_ttl


def both(*conditions: Condition) -> Condition:
    return lambda change: all(c(change) for c in conditions)


# --- job builders: what a job carries, from the change ------------------------------------------
def confirmation_requested(change: Change) -> bool:
    """A confirmation mail is due: a new unconfirmed user, a new nonce, or a resend request."""
    new, old = change.new, change.old
    return bool(new.get("confirmation_nonce")) and not new.get("confirmed_at") and (
        change.event == "INSERT" or new["confirmation_nonce"] != old.get("confirmation_nonce")
        or new.get("confirmation_requested_at") != old.get("confirmation_requested_at"))


def confirmation_mail(change: Change) -> jobs.Job:
    return jobs.ConfirmationMail(event_id=change.event_id, account_id=change.new["account_id"],
                                 nonce=change.new["confirmation_nonce"])


def actor_key(change: Change) -> jobs.Job:
    return jobs.GenerateActorKey(event_id=change.event_id, account_id=change.new["account_id"])


def trends_review_mail(change: Change) -> jobs.Job:
    return jobs.TrendsReviewMail(event_id=change.event_id, review_id=change.new["id"])


def trends_review_notice(change: Change) -> jobs.Job:
    return jobs.TrendsReviewNotice(event_id=change.event_id, review_id=change.new["id"])


def terms_of_service_mail(change: Change) -> jobs.Job:
    return jobs.TermsOfServiceMail(event_id=change.event_id, terms_id=change.new["id"])


def warning_mail(change: Change) -> jobs.Job:
    """actions: a staff action asked to mail its warning (`send_email_notification`)."""
    return jobs.WarningMail(event_id=change.event_id,
                            account_id=change.new["target_account_id"],
                            warning_id=change.new["id"])


def active(user: dict[str, Any]) -> bool:
    return bool(user.get("confirmed_at")) and bool(user.get("approved", True))


def became_active(change: Change) -> bool:
    """A local user can now sign in: confirmed and approved (at sign-up or later)."""
    return change.event in ("INSERT", "MODIFY") and active(change.new) and not active(change.old)


def grouped_or_requested(change: Change) -> bool:
    """A notification that counts somewhere: in its group's head, or (a filtered mention) in
    its sender's notification request."""
    image = change.image
    return change.event in ("INSERT", "REMOVE") and bool(
        image.get("group_key") or (image.get("filtered")
                                   and image.get("notification_type") == "mention"))


# What the counting rules (workers/counters.py) read of each counted item.
COUNTED = {
    "user": ("account_id", "created_at", "counted"),
    "status": ("id", "account_id", "created_at", "local", "visibility", "in_reply_to_id",
               "reblog_of_id", "tags", "counted", "tallied"),
    "fav": ("id", "account_id", "status_id", "counted", "tallied"),
    "reblog": ("id", "account_id", "status_id", "counted", "tallied"),
    "follow": ("id", "account_id", "target_id", "counted", "tallied"),
    "follow_request": ("id", "account_id", "target_id", "counted", "tallied"),
    "notification": ("id", "account_id", "notification_type", "from_account_id", "status_id",
                     "group_key", "filtered", "created_at", "counted"),
    "tag_use": ("tag", "day", "account_id", "counted"),
    # link shares: a share by a discoverable account, and its first of the day
    "linked_status": ("url", "status_id", "day", "shared", "counted"),
    "link_use": ("url", "day", "account_id", "counted"),
    # reactions per name, and the admin metrics' day counters
    "announcement_reaction": ("id", "account_id", "announcement_id", "name", "custom_emoji",
                              "counted"),
    "activity": ("account_id", "day", "counted"),
    "report": ("id", "created_at", "action_taken_at"),
}
# What the metrics' day counters also read of a status (languages, sources, interactions).
COUNTED["status"] += ("language", "application")
COUNTED["fav"] += ("created_at",)
COUNTED["reblog"] += ("created_at",)


def count(change: Change) -> jobs.Job:
    image = change.image
    return jobs.Count(event_id=change.event_id, event=change.event, item_type=change.item_type,
                      item={k: image[k] for k in COUNTED[change.item_type] if k in image})


# --- profiles -----------------------------------------------------------------------
def distributable(change: Change) -> bool:
    return change.image.get("visibility") in ("public", "unlisted")


def count_retag(change: Change) -> jobs.Job:
    """An edit changed a status's tags: the account's use of each tag changes (FeaturedTag)."""
    item = {k: change.new[k] for k in COUNTED["status"] if k in change.new}
    return jobs.Count(event_id=change.event_id, event="MODIFY", item_type="status",
                      item={**item, "old_tags": list(change.old.get("tags", []))})


DIRECTORY_PROFILE = ("discoverable", "suspended_at", "silenced_at", "username", "domain")
DIRECTORY_USER = ("confirmed_at", "approved", "disabled")
DIRECTORY_STATS = ("last_status_at", "followers_count")


def directory_changed(attributes: tuple[str, ...]) -> Condition:
    """An account item changed in a way its directory entry depends on: removed, or changed
    in one of `attributes`. A new account is listed once its profile says it is discoverable
    (at sign-up it is not), so inserts of its other items change nothing."""
    def test(change: Change) -> bool:
        if change.event == "INSERT":
            return change.item_type == "account" and bool(change.new.get("discoverable"))
        return change.event == "REMOVE" or any(
            change.new.get(a) != change.old.get(a) for a in attributes)
    return test


def directory_touch(change: Change) -> jobs.Job:
    image = change.image  # a profile has `id`, a user `account_id`, the stats item only its key
    account_id = image.get("account_id") or (image.get("id") if change.item_type == "account"
                                             else change.owner_id)
    return jobs.DirectoryTouch(event_id=change.event_id, account_id=str(account_id))


def count_resolution(change: Change) -> jobs.Job:
    """A report resolved (`action_taken_at` set) or reopened: the day it was resolved gains or
    loses one (the job's `old` carries the earlier resolution, if any)."""
    return jobs.Count(event_id=change.event_id, event="MODIFY", item_type="report",
                      item={"id": change.new.get("id"),
                            "action_taken_at": change.new.get("action_taken_at"),
                            "previous_action_taken_at": change.old.get("action_taken_at")})


def status_created(change: Change) -> jobs.Job:
    new = change.new
    return jobs.StatusCreated(event_id=change.event_id, status_id=new["id"],
                              account_id=new["account_id"], visibility=new.get("visibility"),
                              tags=new.get("tags", []), mention_ids=new.get("mention_ids", []),
                              reblog_of_id=new.get("reblog_of_id"),
                              reblog_of_account_id=new.get("reblog_of_account_id"),
                              local=bool(new.get("local", True)),
                              has_media=bool(new.get("media_ids")))


def status_changed(change: Change) -> jobs.Job:
    """An edit changed tags or mentions. `added_tags` (in the new order) and `removed_tags` (in
    the old order) are the lists whose first TAGS_IN_WRITE entries the edit's own write indexed
    and unindexed (repo/status_writes): the worker does the rest, so their order matters."""
    new, old = change.new, change.old
    return jobs.StatusChanged(
        event_id=change.event_id, status_id=new["id"], account_id=new["account_id"],
        visibility=new.get("visibility"), local=bool(new.get("local", True)),
        has_media=bool(new.get("media_ids")),
        added_tags=[t for t in new.get("tags", []) if t not in old.get("tags", [])],
        removed_tags=[t for t in old.get("tags", []) if t not in new.get("tags", [])],
        added_mention_ids=[m for m in new.get("mention_ids", [])
                           if m not in old.get("mention_ids", [])])


def status_edited(change: Change) -> jobs.Job:
    new = change.new
    return jobs.StatusEdited(event_id=change.event_id, status_id=new["id"],
                             account_id=new["account_id"], edited_at=new["edited_at"])


def account_activated(change: Change) -> jobs.Job:
    return jobs.AccountActivated(event_id=change.event_id, account_id=change.new["account_id"])


def request_closed(change: Change) -> jobs.Job:
    old = change.old
    return jobs.NotificationRequestClosed(event_id=change.event_id, account_id=old["account_id"],
                                          from_account_id=old["from_account_id"])


def sweep_notifications(change: Change) -> jobs.Job:
    new = change.new
    return jobs.SweepNotifications(event_id=change.event_id, account_id=new["account_id"],
                                   sweep_id=new["id"], group_key=new.get("group_key"),
                                   up_to_id=new.get("up_to_id"))


def status_removed(change: Change) -> jobs.Job:
    old = change.old
    return jobs.StatusRemoved(event_id=change.event_id, status_id=old["id"],
                              account_id=old["account_id"], tags=old.get("tags", []),
                              reblog_of_id=old.get("reblog_of_id"),
                              reblog_of_account_id=old.get("reblog_of_account_id"),
                              poll_id=old.get("poll_id"))


def favourited(change: Change) -> jobs.Job:
    new = change.new
    return jobs.Favourited(event_id=change.event_id, account_id=new["account_id"],
                           status_id=new["status_id"],
                           status_account_id=new["status_account_id"])


def unfavourited(change: Change) -> jobs.Job:
    old = change.old
    return jobs.Unfavourited(event_id=change.event_id, account_id=old["account_id"],
                             status_id=old["status_id"],
                             status_account_id=old["status_account_id"])


def not_authorized(change: Change) -> bool:
    """A follow made directly, not by accepting a request (Mastodon notifies only those)."""
    return not change.new.get("authorized")


def followed(change: Change) -> jobs.Job:
    new = change.new
    return jobs.Followed(event_id=change.event_id, follow_id=new["id"],
                         account_id=new["account_id"], target_id=new["target_id"])


def unfollowed(change: Change) -> jobs.Job:
    old = change.old
    return jobs.Unfollowed(event_id=change.event_id, follow_id=old["id"],
                           account_id=old["account_id"], target_id=old["target_id"])


def follow_requested(change: Change) -> jobs.Job:
    new = change.new
    return jobs.FollowRequested(event_id=change.event_id, request_id=new["id"],
                                account_id=new["account_id"], target_id=new["target_id"])


def follow_request_removed(change: Change) -> jobs.Job:
    old = change.old
    return jobs.FollowRequestRemoved(event_id=change.event_id, request_id=old["id"],
                                     account_id=old["account_id"], target_id=old["target_id"])


def blocked(change: Change) -> jobs.Job:
    new = change.new
    return jobs.Blocked(event_id=change.event_id, account_id=new["account_id"],
                        target_id=new["target_id"])


def user_domain_blocked(change: Change) -> jobs.Job:
    new = change.new
    return jobs.UserDomainBlocked(event_id=change.event_id, account_id=new["account_id"],
                                  domain=new["domain"])


def poll_closed(change: Change) -> jobs.Job:
    new = change.new
    return jobs.PollClosed(event_id=change.event_id, poll_id=new["id"],
                           status_id=new["status_id"], account_id=new["account_id"])


def process_media(change: Change) -> jobs.Job:
    return jobs.ProcessMedia(event_id=change.event_id, media_id=change.new["id"])


def media_expired(change: Change) -> jobs.Job:
    old = change.old
    return jobs.MediaExpired(event_id=change.event_id, media_id=old["id"],
                             keys=[k for k in (old.get("file_key"), old.get("small_key")) if k])


def processing(change: Change) -> bool:
    return bool(change.new.get("processing"))


def not_direct(change: Change) -> bool:
    return change.image.get("visibility") != "direct"


# What fan-out reads of a status (the rules of workers/fanout.py).
FANNED_OUT = ("id", "account_id", "visibility", "reblog_of_id", "reblog_of_account_id",
              "in_reply_to_id", "in_reply_to_account_id", "mention_ids", "language",
              "created_at", "tags", "local")


# Follows made up to this long after the event are in its fan-out (a Lambda's clock may be a
# little ahead of another's; a later follow merges the author's recent statuses in itself).
FAN_OUT_MARGIN_MS = 60_000


def fan_out(change: Change) -> jobs.Job:
    """The status's fan-out to the followers whose follows existed when the change happened:
    their follow ids are at most `until`, derived from the stream record's time, so the job and
    every redelivery of it split its followers into the same parallel parts."""
    image = change.image
    created = (change.record.get("dynamodb") or {}).get("ApproximateCreationDateTime")
    until = ids.id_at(int(float(created) * 1000) + FAN_OUT_MARGIN_MS, upper=True) \
        if created is not None else None
    return jobs.FanOut(event_id=change.event_id, removal=change.event == "REMOVE",
                       status={k: image[k] for k in FANNED_OUT if image.get(k) is not None},
                       until=until)


def account_active(change: Change) -> jobs.Job:
    """An account's first API request of a day: fan-out keeps feeding it for a week."""
    return jobs.AccountActive(event_id=change.event_id, account_id=change.new["account_id"],
                              day=change.new["day"])


def merge_followed(change: Change) -> jobs.Job:
    return jobs.MergeIntoHome(event_id=change.event_id, account_id=change.new["account_id"],
                              target_id=change.new["target_id"])


def clear_target(change: Change) -> jobs.Job:
    """The edge's owner stops seeing its target at home (block, mute: FeedManager's
    clear_from_home)."""
    image = change.image
    return jobs.ClearFromHome(event_id=change.event_id, account_id=image["account_id"],
                              target_id=image["target_id"])


def leave_lists(change: Change) -> jobs.Job:
    old = change.old
    return jobs.LeaveLists(event_id=change.event_id, account_id=old["account_id"],
                           target_id=old["target_id"])


def merge_member(change: Change) -> jobs.Job:
    new = change.new
    return jobs.MergeIntoList(event_id=change.event_id, list_id=new["list_id"],
                              owner_id=new["owner_id"], account_id=new["account_id"])


def clear_member(change: Change) -> jobs.Job:
    old = change.old
    return jobs.ClearFromList(event_id=change.event_id, list_id=old["list_id"],
                              account_id=old["account_id"])


def drop_list(change: Change) -> jobs.Job:
    return jobs.DropList(event_id=change.event_id, list_id=change.old["id"])


def unmerge_target(change: Change) -> jobs.Job:
    """An unfollow: the unfollowed account's own statuses leave the home (unmerge_from_home)."""
    image = change.image
    return jobs.ClearFromHome(event_id=change.event_id, account_id=image["account_id"],
                              target_id=image["target_id"], unmerge=True)


def clear_blocker(change: Change) -> jobs.Job:
    """A block works both ways: the blocked account stops seeing the blocker at home. Mastodon
    unfollows the blocker for them (unmerge_from_home: the blocker's own statuses); what
    others boost of the blocker is left out when read."""
    new = change.new
    return jobs.ClearFromHome(event_id=change.event_id, account_id=new["target_id"],
                              target_id=new["account_id"], unmerge=True)


def direct(change: Change) -> bool:
    return change.image.get("visibility") == "direct"


def _direct_status(change: Change, only: list[str] | None = None) -> jobs.DirectStatusPosted:
    image = change.image
    return jobs.DirectStatusPosted(
        event_id=change.event_id, status_id=image["id"], account_id=image["account_id"],
        thread_id=image.get("thread_id") or image["id"],
        mention_ids=list(image.get("mention_ids", [])),
        in_reply_to_account_id=image.get("in_reply_to_account_id"),
        local=bool(image.get("local", True)), only=only)


def direct_status_posted(change: Change) -> jobs.Job:
    return _direct_status(change)


def direct_mentions_added(change: Change) -> jobs.Job:
    added = [m for m in change.new.get("mention_ids", [])
             if m not in change.old.get("mention_ids", [])]
    return _direct_status(change, only=added)


def direct_status_removed(change: Change) -> jobs.Job:
    old = change.old
    return jobs.DirectStatusRemoved(event_id=change.event_id, status_id=old["id"],
                                    account_id=old["account_id"],
                                    thread_id=old.get("thread_id") or old["id"],
                                    mention_ids=list(old.get("mention_ids", [])))


def _public_original(image: dict[str, Any]) -> bool:
    return image.get("visibility") == "public" and not image.get("reblog_of_id")


def link_may_change(change: Change) -> bool:
    """A public original status with something like a link was posted or deleted, or its
    text was edited (the link its card would come from may have changed)."""
    new, old = change.new, change.old
    if change.event == "INSERT":
        return _public_original(new) and has_link(new.get("text"))
    if change.event == "REMOVE":
        return _public_original(old) and has_link(old.get("text"))
    return _public_original(new) and new.get("text") != old.get("text") and (
        has_link(new.get("text")) or has_link(old.get("text")))


def links_changed(change: Change) -> jobs.Job:
    image = change.image
    return jobs.LinksChanged(event_id=change.event_id, status_id=image["id"],
                             account_id=image["account_id"],
                             old_text=change.old.get("text") if change.old else None,
                             new_text=change.new.get("text") if change.new else None,
                             local=bool(image.get("local", True)))


# --- preview cards (workers/cards.py, the cards queue) -----------------------------------------
def card_may_change(change: Change) -> bool:
    """A local original status with something like a link was posted, or its text was edited
    (Mastodon's LinkCrawlWorker after posting, and after an edit that changed the text)."""
    new = change.new
    if change.event == "REMOVE" or not new.get("local", True) or new.get("reblog_of_id"):
        return False
    if change.event == "MODIFY" and new.get("text") == change.old.get("text"):
        return False
    return has_link(new.get("text"))


def fetch_card(change: Change) -> jobs.Job:
    return jobs.FetchCard(event_id=change.event_id, status_id=change.new["id"])


# --- search: the indexes of api/search/search.py follow accounts and statuses ----------------------
def account_renamed(change: Change) -> bool:
    return change.event in ("INSERT", "REMOVE") or changed("username", "display_name",
                                                           "domain")(change)


def account_words_changed(change: Change) -> jobs.Job:
    return jobs.AccountWordsChanged(event_id=change.event_id, account_id=change.image["id"],
                                    old_words=account_words(change.old))


def original(change: Change) -> bool:
    return not change.image.get("reblog_of_id")


def status_searchable_by(change: Change) -> jobs.Job:
    """A new original status: its author and the accounts it mentions may find it; its tags
    become searchable."""
    new = change.new
    return jobs.StatusSearchScope(event_id=change.event_id, status_id=new["id"],
                                  account_ids=[new["account_id"], *new.get("mention_ids", [])],
                                  tags=list(new.get("tags", [])))


def status_words_changed(change: Change) -> jobs.Job:
    return jobs.StatusSearchScope(event_id=change.event_id, status_id=change.image["id"],
                                  tags=list(change.new.get("tags", [])))


def searcher_changed(change: Change) -> jobs.Job:
    """A like, bookmark or boost was made or undone: whether its account may find the status."""
    image = change.image
    return jobs.StatusSearchScope(event_id=change.event_id, status_id=image["status_id"],
                                  account_ids=[image["account_id"]])


# --- streaming: what connections are told (workers/stream.py, the stream queue) -------------------
def streamed_status(event: str) -> Callable[[Change], jobs.Job]:
    def job(change: Change) -> jobs.Job:
        image = change.image
        return jobs.StreamStatus(
            event_id=change.event_id, event=event, status_id=image["id"],
            account_id=image["account_id"], visibility=image.get("visibility"),
            local=bool(image.get("local", True)), has_media=bool(image.get("media_ids")),
            tags=list(image.get("tags", [])), in_reply_to_id=image.get("in_reply_to_id"),
            in_reply_to_account_id=image.get("in_reply_to_account_id"),
            reblog=bool(image.get("reblog_of_id")))
    return job


def public_original(change: Change) -> bool:
    """What Mastodon broadcasts on the public and hashtag streams (FanOutOnWriteService's
    broadcastable?): public statuses that are not boosts."""
    return _public_original(change.image)


def was_edited(change: Change) -> bool:
    return bool(change.new.get("edited_at"))


def unfiltered(change: Change) -> bool:
    """A notification that reached the list (a filtered one waits in a request, unstreamed)."""
    return not change.new.get("filtered")


def stream_notification(change: Change) -> jobs.Job:
    new = change.new
    return jobs.StreamNotification(event_id=change.event_id, account_id=new["account_id"],
                                   notification_id=new["id"])


def conversation_touched(change: Change) -> bool:
    return change.event == "INSERT" or changed("last_status_id", "unread")(change)


def stream_conversation(change: Change) -> jobs.Job:
    new = change.new
    return jobs.StreamConversation(event_id=change.event_id, account_id=new["account_id"],
                                   conversation_id=new["id"])


def inserted_or_modified(change: Change) -> bool:
    return change.event in ("INSERT", "MODIFY")


def filters_changed(change: Change) -> jobs.Job:
    return jobs.StreamFiltersChanged(event_id=change.event_id,
                                     account_id=change.new["account_id"])


def user_token(change: Change) -> bool:
    return bool(change.old.get("account_id"))


def close_connections(change: Change) -> jobs.Job:
    old = change.old
    return jobs.CloseConnections(event_id=change.event_id, account_id=old["account_id"],
                                 token_id=old["id"])


# --- web push: what a new notification's push job carries ------------------------------------
# --- announcements ----------------------------------------------------------------
def announcement_shown(change: Change) -> bool:
    """Published now, or edited while published (Mastodon re-sends `announcement` on update)."""
    new, old = change.new, change.old
    return bool(new.get("published")) and (
        not old.get("published") or new.get("updated_at") != old.get("updated_at"))


def announcement_withdrawn(change: Change) -> bool:
    """Unpublished or deleted while published."""
    return bool(change.old.get("published")) and not change.new.get("published")


def stream_announcement(event: str) -> Callable[[Change], jobs.Job]:
    def job(change: Change) -> jobs.Job:
        return jobs.StreamAnnouncement(event_id=change.event_id, event=event,
                                       announcement_id=str(change.image["id"]))
    return job


def reaction_count_changed(change: Change) -> bool:
    return change.event in ("INSERT", "MODIFY") and \
        change.new.get("count") != change.old.get("count")


def stream_reaction(change: Change) -> jobs.Job:
    new = change.new
    return jobs.StreamAnnouncementReaction(
        event_id=change.event_id, announcement_id=str(new["announcement_id"]),
        reaction=new["name"], count=int(new.get("count", 0)),
        custom_emoji=new.get("custom_emoji"))


def push_notification(change: Change) -> jobs.Job:
    new = change.new
    return jobs.PushNotification(event_id=change.event_id, account_id=new["account_id"],
                                 notification_id=new["id"],
                                 notification_type=new["notification_type"],
                                 from_account_id=new["from_account_id"])


# Destinations that are Step Functions state machines (statemachines/), not queues: the job is
# the execution's input, started under a name taken from the change (so once per change).
STATE_MACHINES = ("purge_account", "domain_block")
# --- reports: staff hear of a new report ---------------------------------------
def staff_to_notify(change: Change) -> bool:
    """A new report that staff are told of (not when another unresolved report against the
    same account already existed: decided when it was filed, api/graph/reports.py)."""
    return change.event == "INSERT" and bool(change.new.get("notify_staff"))


def report_filed(change: Change) -> jobs.Job:
    new = change.new
    return jobs.ReportFiled(event_id=change.event_id, report_id=new["id"],
                            account_id=new["account_id"])


LIMITING = ("silence", "suspend")  # the severities that act on a domain's accounts


def severity_acts(change: Change) -> bool:
    """A domain block was created, changed severity or removed, and accounts are affected:
    the new or the old severity limits them (noop blocks only reject media or reports)."""
    new, old = change.new.get("severity"), change.old.get("severity")
    if change.event == "MODIFY" and new == old:
        return False
    return new in LIMITING or old in LIMITING


def apply_domain_block(change: Change) -> jobs.Job:
    image = change.image
    return jobs.ApplyDomainBlock(event_id=change.event_id, domain=image["domain"],
                                 at=image["created_at"], severity=change.new.get("severity"),
                                 previous=change.old.get("severity"))


def media_rejected(change: Change) -> bool:
    """A domain block came to reject the domain's media: `reject_media` set, or the block
    became a suspension (Mastodon's BlockDomainService clears the domain's files for both)."""
    if change.event == "REMOVE":
        return False
    new, old = change.new, change.old if change.event == "MODIFY" else {}
    rejects = bool(new.get("reject_media")) or new.get("severity") == "suspend"
    rejected = bool(old.get("reject_media")) or old.get("severity") == "suspend"
    return rejects and not rejected


def domain_media_rejected(change: Change) -> jobs.Job:
    return jobs.DomainMediaRejected(event_id=change.event_id, domain=change.new["domain"])


def purge_account(change: Change) -> jobs.Job:
    return jobs.PurgeAccount(event_id=change.event_id, account_id=change.new["account_id"])


# --- federation: what peers hear of (federation/delivery.py, the federation queue) -----------------
# The attributes of an item an activity is built from (a status is read again when it still
# exists: its Note is rendered from what it is now).
FEDERATED = ("id", "type", "uri", "account_id", "target_id", "status_id", "status_account_id",
             "visibility", "reblog_of_id", "created_at", "edited_at", "in_reply_to_id",
             "mention_ids", "local", "comment", "status_ids", "updated_at", "remote_target",
             "poll_id", "choices")
# What an actor document shows (convert/activitypub.actor): a change is an Update(Person).
ACTOR_ATTRIBUTES = ("display_name", "note", "fields", "avatar_key", "header_key", "locked", "bot",
                    "discoverable", "indexable", "memorial", "suspended_at", "hide_collections")


def federate(kind: str, actor: str = "account_id") -> Callable[[Change], jobs.Job]:
    def job(change: Change) -> jobs.Job:
        image = change.image
        return jobs.Federate(event_id=change.event_id, kind=kind, account_id=str(image[actor]),
                             item={k: image[k] for k in FEDERATED if k in image})
    return job


def local_status(change: Change) -> bool:
    return change.image.get("local", True) is not False


def remote_target(change: Change) -> bool:
    """A follow or request of a remote account by a local one (it carries our Follow's id)."""
    return bool(change.image.get("remote_target")) and bool(change.image.get("uri"))


def local_target(change: Change) -> bool:
    return not change.image.get("remote_target")


def remote_follower(change: Change) -> bool:
    """A follow or request by a remote account (it carries their Follow's id)."""
    return not change.image.get("remote_target") and bool(change.image.get("uri"))


def announced(change: Change) -> bool:
    """An end we tell the other server of: not one it made itself (`quiet`,
    api/graph/follows.py)."""
    return not change.old.get("quiet")


def local_profile(change: Change) -> bool:
    return not change.image.get("domain")


def remote_profile(change: Change) -> bool:
    return bool(change.image.get("domain"))


def actor_key_changed(change: Change) -> bool:
    """A local account's key pair was replaced (a rotation): peers must refetch the actor."""
    return change.event == "MODIFY" and change.image.get("account_id") not in (None, "instance") \
        and change.new.get("public_key_pem") != change.old.get("public_key_pem")


def forwarded_report(change: Change) -> bool:
    return change.event == "INSERT" and bool(change.new.get("forward"))


def refresh_started(change: Change) -> bool:
    """An async refresh of a thread's replies began (repo/async_refreshes.start: a new one, or
    one restarted after its cool-down)."""
    new = change.new
    return change.event in ("INSERT", "MODIFY") and new.get("status") == "running" and \
        bool(new.get("replies_of")) and new.get("fetched_at") != change.old.get("fetched_at")


def fetch_replies(change: Change) -> jobs.Job:
    return jobs.FetchReplies(event_id=change.event_id, refresh=change.new["name"],
                             status_id=change.new["replies_of"])


@dataclass(frozen=True)
class Rule:
    item_type: str
    when: Condition
    queue: str  # counters | mail | effects | media | cards | fanout | stream | push | search | a
    # STATE_MACHINES name
    job: Callable[[Change], jobs.Job]


# --- the registry --------------------------------------------------------------------------------
RULES: tuple[Rule, ...] = (
    # accounts
    Rule("user", confirmation_requested, "mail", confirmation_mail),
    Rule("user", inserted_or_removed, "counters", count),
    Rule("user", became_active, "effects", account_activated),
    # federation (federation/actor_keys.py): the actor's key pair, made off the sign-up request
    Rule("user", inserted, "effects", actor_key),
    # trends (api/trends/ranking.py): a review run mails the staff who review trends
    Rule("trends_review", inserted, "mail", trends_review_mail),
    Rule("trends_review", inserted, "effects", trends_review_notice),
    # instance documents (api/instance/terms.py): a new version of the terms of service is
    # mailed to the users once staff ask for it
    Rule("terms_of_service", became_true("notification_sent_at"), "mail",
         terms_of_service_mail),
    # moderation (actions): a warning that asks for its mail
    Rule("account_warning", both(inserted, lambda c: bool(c.new.get("email"))), "mail",
         warning_mail),
    # statuses
    Rule("status", inserted_or_removed, "counters", count),
    Rule("status", inserted, "effects", status_created),
    Rule("status", changed("tags", "mention_ids"), "effects", status_changed),
    Rule("status", both(changed("edited_at"), lambda c: bool(c.new.get("edited_at"))),
         "effects", status_edited),
    Rule("status", removed, "effects", status_removed),
    Rule("status", both(inserted_or_removed, not_direct), "fanout", fan_out),
    Rule("status", both(inserted, direct), "effects", direct_status_posted),
    Rule("status", both(changed("mention_ids"), direct), "effects", direct_mentions_added),
    Rule("status", both(removed, direct), "effects", direct_status_removed),
    Rule("status", link_may_change, "effects", links_changed),
    # preview cards: the first link's card is fetched (or reused) and named on the status
    Rule("status", card_may_change, "cards", fetch_card),
    # profiles: an edit's tags change the account's use counts (FeaturedTag); the
    # directory entry follows the profile, the user and the stats it is made from
    Rule("status", both(changed("tags"), distributable), "counters", count_retag),
    Rule("account", directory_changed(DIRECTORY_PROFILE), "effects", directory_touch),
    Rule("user", directory_changed(DIRECTORY_USER), "effects", directory_touch),
    Rule("account_stats", directory_changed(DIRECTORY_STATS), "effects", directory_touch),
    # hashtags: a first use by an account on a day is one more distinct account that day
    Rule("tag_use", inserted, "counters", count),
    # links: a share (an index entry of a discoverable account's status) is one more use, and
    # an account's first share of the URL on a day one more distinct account
    Rule("linked_status", both(inserted, lambda c: bool(c.new.get("shared"))), "counters",
         count),
    Rule("link_use", inserted, "counters", count),
    # what accounts do to statuses
    Rule("fav", inserted_or_removed, "counters", count),
    Rule("fav", inserted, "effects", favourited),
    Rule("fav", removed, "effects", unfavourited),
    Rule("reblog", inserted_or_removed, "counters", count),
    # the social graph
    Rule("follow", inserted_or_removed, "counters", count),
    Rule("follow", both(inserted, not_authorized), "effects", followed),
    Rule("follow", removed, "effects", unfollowed),
    Rule("follow", inserted, "fanout", merge_followed),
    Rule("follow", removed, "fanout", unmerge_target),
    Rule("follow_request", inserted_or_removed, "counters", count),
    # (a request to a remote account notifies no one here: its server is told, federation)
    Rule("follow_request", both(inserted, local_target), "effects", follow_requested),
    Rule("follow_request", both(removed, local_target), "effects", follow_request_removed),
    Rule("block", inserted, "effects", blocked),
    # a user's domain block ends its follows with the domain's accounts, both ways, and the
    # requests from there, each told to the other server (AfterBlockDomainFromAccountService)
    Rule("user_domain_block", both(inserted, lambda c: bool(c.new.get("domain"))), "effects",
         user_domain_blocked),
    Rule("block", inserted, "fanout", clear_target),
    Rule("block", inserted, "fanout", clear_blocker),
    Rule("mute", inserted, "fanout", clear_target),
    Rule("follow", removed, "fanout", leave_lists),
    # lists
    Rule("list_member", inserted, "fanout", merge_member),
    Rule("list_member", removed, "fanout", clear_member),
    Rule("list", removed, "fanout", drop_list),
    # activity: an account that used the API is fed for a week (workers/fanout.py)
    Rule("activity", inserted, "fanout", account_active),
    # notifications
    Rule("notification", grouped_or_requested, "counters", count),
    Rule("notification_request", removed, "effects", request_closed),
    Rule("notification_sweep", inserted, "effects", sweep_notifications),
    # web push (workers/push.py): a new notification is pushed unless it was filtered
    # (Mastodon's NotifyService pushes only what reaches the list; a filtered one waits in a
    # request)
    Rule("notification", both(inserted, unfiltered), "push", push_notification),
    # polls
    Rule("poll", became_true("closed"), "effects", poll_closed),
    # media
    Rule("media_attachment", both(inserted, processing), "media", process_media),
    Rule("media_attachment", expired, "effects", media_expired),
    # search (api/search/search.py): account words, and who may find a status by its words
    Rule("account", account_renamed, "search", account_words_changed),
    Rule("status", both(inserted, original), "search", status_searchable_by),
    Rule("status", both(changed("text", "spoiler_text", "mention_ids", "tags"), original),
         "search", status_words_changed),
    Rule("status", both(removed, original), "search", status_words_changed),
    Rule("fav", inserted_or_removed, "search", searcher_changed),
    Rule("bmk", inserted_or_removed, "search", searcher_changed),
    Rule("reblog", inserted_or_removed, "search", searcher_changed),
    # streaming (workers/stream.py). Home and list `update`/`delete` events come from the
    # fan-out worker, which knows who got the status (workers/fanout.py).
    Rule("status", both(inserted, public_original), "stream", streamed_status("update")),
    Rule("status", both(removed, public_original), "stream", streamed_status("delete")),
    Rule("status", both(changed("edited_at"), was_edited, not_direct), "stream",
         streamed_status("status.update")),
    Rule("notification", both(inserted, unfiltered), "stream", stream_notification),
    Rule("account_conversation", conversation_touched, "stream", stream_conversation),
    Rule("filters_rev", inserted_or_modified, "stream", filters_changed),
    Rule("token", both(removed, user_token), "stream", close_connections),
    # federation (federation/delivery.py): activities peers hear of, one job per local event
    Rule("status", both(inserted, local_status), "federation", federate("create")),
    Rule("status", both(changed("edited_at"), was_edited, local_status), "federation",
         federate("update")),
    Rule("status", both(removed, local_status), "federation", federate("delete")),
    Rule("fav", inserted, "federation", federate("like")),
    Rule("fav", removed, "federation", federate("undo_like")),
    Rule("follow_request", both(inserted, remote_target), "federation", federate("follow")),
    Rule("follow_request", both(removed, remote_target, announced), "federation",
         federate("undo_follow")),
    Rule("follow", both(removed, remote_target, announced), "federation",
         federate("undo_follow")),
    Rule("follow", both(lambda c: inserted(c) or changed("uri")(c), remote_follower),
         "federation", federate("accept", actor="target_id")),
    Rule("follow_request", both(removed, remote_follower, announced), "federation",
         federate("reject", actor="target_id")),
    Rule("follow", both(removed, remote_follower, announced), "federation",
         federate("reject", actor="target_id")),
    Rule("block", inserted, "federation", federate("block")),
    Rule("block", removed, "federation", federate("undo_block")),
    Rule("account", both(changed(*ACTOR_ATTRIBUTES), local_profile), "federation",
         federate("update_actor", actor="id")),
    # a remote account suspended (by staff or a domain block): its follows of local accounts
    # and its pending requests end, each with a Reject(Follow) (SuspendAccountService)
    Rule("account", both(became_true("suspended_at"), remote_profile), "federation",
         federate("reject_follows", actor="id")),
    Rule("actor_key", actor_key_changed, "federation", federate("update_actor")),
    Rule("purge_request", inserted, "federation", federate("delete_actor")),
    Rule("report", forwarded_report, "federation", federate("flag")),
    Rule("poll_vote", inserted, "federation", federate("vote")),
    # a remote thread's replies, fetched when a user reads it (api/statuses/context.py)
    Rule("async_refresh", refresh_started, "inbox", fetch_replies),
    # long work as Step Functions executions (statemachines/)
    Rule("purge_request", inserted, "purge_account", purge_account),
    Rule("domain_block", severity_acts, "domain_block", apply_domain_block),
    Rule("domain_block", media_rejected, "effects", domain_media_rejected),
    # reports (api/graph/reports.py): `admin.report` notifications to staff
    Rule("report", staff_to_notify, "effects", report_filed),
    # announcements: reactions counted per name; the `announcement*` events
    Rule("announcement_reaction", inserted_or_removed, "counters", count),
    Rule("announcement", announcement_shown, "stream", stream_announcement("announcement")),
    Rule("announcement", announcement_withdrawn, "stream",
         stream_announcement("announcement.delete")),
    Rule("announcement_reactions", reaction_count_changed, "stream", stream_reaction),
    # admin metrics: active users per day, opened and resolved reports
    Rule("activity", inserted, "counters", count),
    Rule("report", inserted_or_removed, "counters", count),
    Rule("report", changed("action_taken_at"), "counters", count_resolution),
)


def decode(record: dict[str, Any]) -> Change:
    new, old = stream.images(record)
    identity = record.get("userIdentity") or {}
    return Change(
        event_id=record["eventID"], event=record["eventName"], new=new, old=old,
        record=record,
        # DynamoDB marks its own TTL deletes as done by the service.
        by_ttl=identity.get("type") == "Service"
        and identity.get("principalId") == "dynamodb.amazonaws.com")


def route(record: dict[str, Any]) -> list[tuple[str, jobs.Job]]:
    """The (queue, job) pairs one stream record produces."""
    change = decode(record)
    return [(rule.queue, rule.job(change)) for rule in RULES
            if rule.item_type == change.item_type and rule.when(change)]
