"""Side effects of status and graph activity, applied by the effects worker from the outbox's
jobs: the hashtag index entries a status's own write left over (repo/status_writes: a write
holds the first TAGS_IN_WRITE), notification records (mention, reblog, favourite, poll,
update, follow, follow_request, admin.sign_up) and their removal when the action is undone, the
cascade that follows a deleted status, the notifications a block takes away, the follows a
user's domain block ends (federation/follows.py), the work
notification requests and sweeps leave behind, conversations of direct statuses
(workers/conversations.py), the link index (workers/links.py), hashtag uses and featured tags
(workers/tags.py) and the profile directory (workers/directory.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from typing import Any

from stratus.core import clock, ids, memo
from stratus.core.paging import Budget
from stratus.federation import actor_keys, follows
from stratus.jobs import messages as jobs
from stratus.model.roles import Permission
from stratus.read import notification_rules, relationships
from stratus.read import roles as roles_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import dedupe
from stratus.repo import effects as repo
from stratus.repo import media as storage
from stratus.repo import notifications as notifications_repo
from stratus.repo import polls as polls_repo
from stratus.repo import queues, status_writes
from stratus.repo import statuses as statuses_repo
from stratus.repo import tags as tags_repo
from stratus.workers import conversations, directory, links, tags

CASCADE_PAGE = 100  # items removed per query
CASCADE_PAGES = 20  # pages removed per job; a bigger cascade continues in a follow-up job
BLOCK_SWEEP = 1000  # notifications a block examines per job; a longer sweep continues
USER_DOMAIN_BLOCK = "user_domain_block"  # the once-markers' scope of a domain block's steps


def _notify(recipients: Iterable[str], kind: str, actor: str, subject: str,
            status_id: str | None) -> int:
    """The one place notifications are made: none to the actor (but its own poll's end), none
    to recipients who block the actor or its domain or mute it with notifications (their
    relationships to the actor read in one batch for all recipients), and each recipient's
    notification policy decides how the rest arrive (dropped, filtered, grouped)."""
    wanted = [r for r in dict.fromkeys(recipients) if r and (r != actor or kind == "poll")]
    silenced = relationships.silenced(wanted, actor, kind)
    created = 0
    for recipient in wanted:
        if recipient in silenced:
            continue
        decision = notification_rules.decide(recipient, kind, actor, status_id)
        if decision.drop:
            continue
        created += int(repo.notify(recipient, kind, actor, subject,
                                   {"id": ids.new_id(), "status_id": status_id,
                                    "created_at": clock.iso(clock.now())},
                                   group_key=decision.group_key, filtered=decision.filtered,
                                   request_status_id=decision.request_status_id))
    return created


def _tag_fields(job: jobs.StatusCreated | jobs.StatusChanged) -> dict[str, Any]:
    """What hashtag timelines filter their index entries by (as the status's write sets it)."""
    return tags_repo.entry_fields(visibility=job.visibility, account_id=job.account_id,
                                  local=job.local, has_media=job.has_media)


def _index_rest(job: jobs.StatusCreated | jobs.StatusChanged, names: list[str]) -> None:
    """The hashtag entries of the tags beyond those the status's own write held."""
    tags_repo.index(job.status_id, status_writes.left_to_worker(names), _tag_fields(job))


def status_created(job: jobs.StatusCreated) -> int:
    if job.tags:
        _index_rest(job, job.tags)
        if job.visibility == "public" and not job.reblog_of_id and not _silenced(job.account_id):
            tags.record_uses(job.tags, job.status_id, job.account_id)  # the tags' history
    if job.visibility == "public" and not job.reblog_of_id:
        _register_public_hour(job.status_id, job.local)
    created = 0
    if job.reblog_of_id:
        created += _notify([job.reblog_of_account_id], "reblog", job.account_id,
                           job.reblog_of_id, job.reblog_of_id)
    return created + _notify(job.mention_ids, "mention", job.account_id, job.status_id,
                             job.status_id)


def _silenced(account_id: str) -> bool:
    """Trends::Tags#register: a silenced (limited) account's posts do not count towards a
    hashtag's history, so they never make it trend."""
    profile = accounts_repo.get_profile(account_id) or {}
    return bool(profile.get("silenced_at") or profile.get("suspended_at"))


_registered_hours = memo.Done()


def _register_public_hour(status_id: str, local: bool) -> None:
    """Note that an hour has public statuses: the public timeline skips quiet hours with it
    (once per hour and scope per process; the write is idempotent anyway)."""
    scope, hour = ("LOCAL" if local else "REMOTE"), statuses_repo.public_hour(status_id)
    if (scope, hour) not in _registered_hours:
        statuses_repo.register_public_hour(scope, hour)
        _registered_hours.add((scope, hour))


def status_changed(job: jobs.StatusChanged) -> int:
    tags_repo.unindex(job.status_id, status_writes.left_to_worker(job.removed_tags))
    tags.featured_status_removed(job.account_id, job.status_id, job.removed_tags)
    _index_rest(job, job.added_tags)
    return _notify(job.added_mention_ids, "mention", job.account_id, job.status_id,
                   job.status_id)


def status_removed(job: jobs.StatusRemoved) -> int:
    """Remove what points at a deleted status: the hashtag entries its removal's write left
    over; others' likes, bookmarks, pins and boosts of it (a boost is a status: its removal
    cascades in turn); notifications about it; its edit history and poll votes. A boost takes its own notification with it.
    Returns how many items were removed; a cascade too big for one job continues in another."""
    tags_repo.unindex(job.status_id, status_writes.left_to_worker(job.tags))
    tags.featured_status_removed(job.account_id, job.status_id, job.tags)
    if job.reblog_of_id and job.reblog_of_account_id:
        repo.unnotify(job.reblog_of_account_id, "reblog", job.account_id, job.reblog_of_id)
        repo.remove_edge("REBLOG", job.account_id, job.reblog_of_id)
    sources = [*((partial(repo.edges_at, kind, job.status_id),
                  partial(repo.remove_edges, kind, job.status_id)) for kind in repo.EDGE_KINDS),
               (partial(repo.notifications_about, job.status_id), repo.remove_notifications),
               (partial(repo.leftovers, job.status_id, job.poll_id), repo.remove)]
    removed = pages = 0
    for fetch, remove in sources:
        while True:
            found = fetch(CASCADE_PAGE)
            if not found:
                break
            if pages == CASCADE_PAGES:
                queues.send("effects", [job.to_dict()])  # the rest, in a new job
                return removed
            remove(found)
            removed += len(found)
            pages += 1
            if len(found) < CASCADE_PAGE:
                break
    return removed


def notify_status(recipient: str, author: str, status_id: str) -> int:
    """A followed account posted and the follow asked to be told (fan-out delivers it)."""
    return _notify([recipient], "status", author, status_id, status_id)


def favourited(job: jobs.Favourited) -> int:
    return _notify([job.status_account_id], "favourite", job.account_id, job.status_id,
                   job.status_id)


def unfavourited(job: jobs.Unfavourited) -> int:
    return int(repo.unnotify(job.status_account_id, "favourite", job.account_id, job.status_id))


def poll_closed(job: jobs.PollClosed) -> int:
    return _notify([*polls_repo.voter_ids(job.poll_id), job.account_id], "poll", job.account_id,
                   job.poll_id, job.status_id)


def followed(job: jobs.Followed) -> int:
    return _notify([job.target_id], "follow", job.account_id, job.follow_id, None)


def unfollowed(job: jobs.Unfollowed) -> int:
    return int(repo.unnotify(job.target_id, "follow", job.account_id, job.follow_id))


def follow_requested(job: jobs.FollowRequested) -> int:
    return _notify([job.target_id], "follow_request", job.account_id, job.request_id, None)


def follow_request_removed(job: jobs.FollowRequestRemoved) -> int:
    return int(repo.unnotify(job.target_id, "follow_request", job.account_id, job.request_id))


def blocked(job: jobs.Blocked) -> int:
    """Remove the blocker's notifications from the blocked account, newest first, at most
    BLOCK_SWEEP examined per job (the rest in a copy of the job)."""
    budget = Budget(entries=BLOCK_SWEEP)
    found = repo.notifications_from(job.account_id, job.target_id, job.before_id, budget)
    if found:
        repo.remove_notifications(found)
    if budget.spent and budget.last_id:
        queues.send("effects", [replace(job, before_id=budget.last_id).to_dict()])
    return len(found)


def user_domain_blocked(job: jobs.UserDomainBlocked) -> int:
    """A user blocked a domain: one bounded step of ending its follows with the domain
    (federation/follows.end_follows_with_domain), the next step in a copy of the job. Each step
    runs once however often its job comes (a once-marker per event and step), so a redelivery
    never starts a second walk."""
    once = f"{job.event_id}#{job.part}"
    if not dedupe.claim(USER_DOMAIN_BLOCK, once):
        return 0
    try:
        ended, cursor = follows.end_follows_with_domain(job.account_id, job.domain, job.cursor)
        if cursor is not None:
            queues.send("effects", [replace(job, cursor=cursor, part=job.part + 1).to_dict()])
    except Exception:
        dedupe.release(USER_DOMAIN_BLOCK, once)
        raise
    return ended


def status_edited(job: jobs.StatusEdited) -> int:
    """Those who boosted an edited status hear of the edit (Mastodon's `update`: boosts, not
    likes), one notification per edit; a page of boosts per job. Boosts made after the edit
    (before this job ran) are not told of it."""
    edited_ms = int(clock.parse_iso(job.edited_at).timestamp() * 1000)
    boosts = repo.edges_after("REBLOG", job.status_id, job.after, CASCADE_PAGE,
                              until=ids.id_at(edited_ms, upper=True))
    if len(boosts) == CASCADE_PAGE:
        queues.send("effects", [jobs.StatusEdited(
            event_id=job.event_id, status_id=job.status_id, account_id=job.account_id,
            edited_at=job.edited_at, after=boosts[-1]["id"]).to_dict()])
    return _notify([b["account_id"] for b in boosts], "update", job.account_id,
                   f"{job.status_id}@{job.edited_at}", job.status_id)


def account_activated(job: jobs.AccountActivated) -> int:
    """Staff who may approve accounts hear of a new user (Mastodon's `admin.sign_up`)."""
    return _notify(roles_read.accounts_who_can(Permission.MANAGE_USERS), "admin.sign_up",
                   job.account_id, job.account_id, None)


def report_filed(job: jobs.ReportFiled) -> int:
    """Staff who may manage reports hear of a new report (Mastodon's `admin.report`; the
    notification's subject is the report, its account the reporter)."""
    return _notify(roles_read.accounts_who_can(Permission.MANAGE_REPORTS), "admin.report",
                   job.account_id, job.report_id, None)


def trends_review_notice(job: jobs.TrendsReviewNotice) -> int:
    """Reviewers hear in the app too that trends await review (`admin.trends`, ours: Mastodon
    only mails). A system notice: its subject is the review and its account the reviewer
    (no one else did anything), so no notification policy applies; once per reviewer."""
    from stratus.read import trends

    created = 0
    for reviewer in trends.review_recipients(job.review_id):
        created += int(repo.notify(reviewer, "admin.trends", reviewer, job.review_id,
                                   {"id": ids.new_id(), "status_id": None,
                                    "created_at": clock.iso(clock.now())}))
    return created


def _in_pages(fetch: Callable[[int], list], apply: Callable[[list], None], job: jobs.Job
              ) -> tuple[int, bool]:
    """Apply `apply` to what `fetch` finds until nothing is left (what was applied is not
    found again); past CASCADE_PAGES the rest continues in a copy of the job. Returns how many
    were done and whether a copy continues."""
    done = 0
    for _ in range(CASCADE_PAGES):
        found = fetch(CASCADE_PAGE)
        if not found:
            return done, False
        apply(found)
        done += len(found)
        if len(found) < CASCADE_PAGE:
            return done, False
    queues.send("effects", [job.to_dict()])
    return done, True


def notification_request_closed(job: jobs.NotificationRequestClosed) -> int:
    """An accepted request (it left a permission) lets the sender's filtered notifications in;
    a dismissed one deletes them."""
    accepted = notifications_repo.permission(job.account_id, job.from_account_id) is not None

    def fetch(limit: int) -> list:
        return notifications_repo.filtered_from(job.account_id, job.from_account_id, limit)

    apply = notifications_repo.unfilter if accepted else notifications_repo.remove
    done, continued = _in_pages(fetch, apply, job)
    if accepted and not continued:
        notifications_repo.merged(job.account_id, job.from_account_id)
    return done


def sweep_notifications(job: jobs.SweepNotifications) -> int:
    """Remove the notifications a clear or a group dismissal left to the worker."""
    def fetch(limit: int) -> list:
        if job.group_key:
            return notifications_repo.members(job.account_id, job.group_key, limit=limit)
        return notifications_repo.oldest_first(job.account_id, job.up_to_id, limit)

    done, continued = _in_pages(fetch, notifications_repo.remove, job)
    if not continued:
        notifications_repo.end_sweep(job.account_id, job.sweep_id)
    return done


def media_expired(job: jobs.MediaExpired) -> int:
    for key in job.keys:
        storage.delete_object(key)  # unattached media that nobody posted
    return len(job.keys)


def domain_media_rejected(job: jobs.DomainMediaRejected) -> int:
    """Remove the copies of remote media of the domain and its subdomains; past
    CASCADE_PAGES pages the rest continues in a copy of the job (removed copies are not
    found again)."""
    from stratus.federation import remote_media

    return _in_pages(lambda limit: remote_media.copies_of_block(job.domain, limit),
                     remote_media.forget_all, job)[0]


HANDLERS: dict[type[jobs.Job], Callable[[Any], int]] = {
    jobs.StatusCreated: status_created,
    jobs.StatusChanged: status_changed,
    jobs.StatusRemoved: status_removed,
    jobs.Favourited: favourited,
    jobs.Unfavourited: unfavourited,
    jobs.PollClosed: poll_closed,
    jobs.Followed: followed,
    jobs.Unfollowed: unfollowed,
    jobs.FollowRequested: follow_requested,
    jobs.FollowRequestRemoved: follow_request_removed,
    jobs.Blocked: blocked,
    jobs.UserDomainBlocked: user_domain_blocked,
    jobs.StatusEdited: status_edited,
    jobs.AccountActivated: account_activated,
    jobs.ReportFiled: report_filed,
    jobs.TrendsReviewNotice: trends_review_notice,
    jobs.NotificationRequestClosed: notification_request_closed,
    jobs.SweepNotifications: sweep_notifications,
    jobs.MediaExpired: media_expired,
    jobs.DomainMediaRejected: domain_media_rejected,
    jobs.DirectStatusPosted: conversations.direct_status_posted,
    jobs.DirectStatusRemoved: conversations.direct_status_removed,
    jobs.LinksChanged: links.links_changed,
    jobs.DirectoryTouch: directory.touch,
    jobs.GenerateActorKey: actor_keys.generate,
}


def handle(job: jobs.Job) -> int:
    """Apply one job; returns how many records it created or removed (0 on redelivery)."""
    handler = HANDLERS.get(type(job))
    if handler is None:
        raise ValueError(f"not an effects job: {job.name}")
    return handler(job)
