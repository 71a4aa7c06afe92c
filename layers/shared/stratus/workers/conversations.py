"""Conversations of direct statuses, kept by the effects worker from the stream (the API,
api/conversations/conversations.py, lists and manages them; Mastodon's AccountConversation).

A user's conversation is one thread (Mastodon's `conversation_id`; ours is the thread's root)
with one set of other participants (the status's author and mentioned accounts, less the user):
a reply that mentions someone else starts another conversation. It holds its statuses' ids, the
last of which orders the list and is shown, and an `unread` flag set by each new status (false
when the user wrote it). Its id is derived from (thread, participants), so every delivery of a
status finds the same conversation without a lookup item.

The effects worker keeps them from the stream (jobs/outbox.py): a new direct status goes into
its author's conversation and into those of the mentioned local users that Mastodon's
NotifyService would notify — not to users who block the author or its domain, mute it with
notifications, muted the thread, or block or mute-with-notifications another account the
status mentions or answers (FeedManager#filter_from_mentions?); a staff author's message gets
through all of those. An edit that adds mentions delivers to the newly mentioned; a deleted
status leaves every conversation it was in, and a conversation left empty goes. Every step is
idempotent: a status already in a conversation is not added again.
"""

from __future__ import annotations

import hashlib

from stratus.core.errors import Busy
from stratus.jobs import messages as jobs
from stratus.read import roles as roles_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import conversations as repo

ATTEMPTS = 8  # optimistic writes of one conversation before the job is retried by SQS


def conversation_id(thread_id: str, participant_ids: list[str]) -> str:
    """The id of the conversation of `thread_id` among `participant_ids` (sorted): a positive
    63-bit integer derived from both, the same for every status of the conversation."""
    digest = hashlib.sha256(f"{thread_id}:{','.join(participant_ids)}".encode()).digest()
    return str(int.from_bytes(digest[:8], "big") >> 1 or 1)


def participants(recipient_id: str, author_id: str, mention_ids: list[str]) -> list[str]:
    """Mastodon's participants_from_status: the author and the mentioned, less the recipient,
    in id order."""
    return sorted({*mention_ids, author_id} - {recipient_id}, key=int)


def add_status(recipient_id: str, status_id: str, author_id: str, thread_id: str,
               mention_ids: list[str]) -> bool:
    """Put a status into the recipient's conversation (made if needed), unread unless the
    recipient wrote it; False if it was there already (a redelivery)."""
    others = participants(recipient_id, author_id, mention_ids)
    cid = conversation_id(thread_id, others)
    unread = author_id != recipient_id
    for _ in range(ATTEMPTS):
        current = repo.get(recipient_id, cid, consistent=True)
        if current is None:
            if repo.create(recipient_id, cid, thread_id, others, [status_id], unread):
                return True
            continue
        held = [str(s) for s in current.get("status_ids", [])]
        if status_id in held:
            return False
        if repo.set_statuses(current, sorted([*held, status_id], key=int), unread):
            return True
    raise Busy()


def remove_status(recipient_id: str, status_id: str, author_id: str, thread_id: str,
                  mention_ids: list[str]) -> bool:
    """Take a deleted status out of the recipient's conversation: its last status moves back
    to the one before, and a conversation left empty goes. False if it was not there."""
    cid = conversation_id(thread_id, participants(recipient_id, author_id, mention_ids))
    for _ in range(ATTEMPTS):
        current = repo.get(recipient_id, cid, consistent=True)
        held = [str(s) for s in (current or {}).get("status_ids", [])]
        if current is None or status_id not in held:
            return False
        rest = [s for s in held if s != status_id]
        done = repo.set_statuses(current, rest, bool(current.get("unread"))) if rest \
            else repo.remove(current)
        if done:
            return True
    raise Busy()


def receivers(author_id: str, mention_ids: list[str], thread_id: str,
              in_reply_to_account_id: str | None, only: list[str] | None = None) -> list[str]:
    """The mentioned local users a direct status reaches (Mastodon's NotifyService's dismiss
    rules for a mention), from two batched reads."""
    wanted = [m for m in dict.fromkeys(mention_ids)
              if m != author_id and (only is None or m in only)]
    if not wanted:
        return []
    author = accounts_repo.get_bundle(author_id, (accounts_repo.PROFILE, accounts_repo.USER))
    domain = (author.get(accounts_repo.PROFILE) or {}).get("domain")
    staff = roles_read.role_for((author.get(accounts_repo.USER) or {}).get("role_id")).staff
    involved = [author_id, *mention_ids, *([in_reply_to_account_id]
                                           if in_reply_to_account_id else [])]
    seen = repo.recipients(wanted, author_id, involved, thread_id, domain)
    reached = []
    for recipient in wanted:
        view = seen[recipient]
        if not view.user:
            continue
        # It blocks, or mutes with notifications, the author or anyone the status mentions
        # or answers; blocks the author's domain without following the author; muted the
        # thread. A staff member's message gets through.
        dismissed = not staff and (bool(view.excluded) or view.muted_thread
                                   or (view.blocks_domain and not view.follows_author))
        if not dismissed:
            reached.append(recipient)
    return reached


def direct_status_posted(job: jobs.DirectStatusPosted) -> int:
    """A direct status (or an edit that mentions more accounts): into the conversations of its
    author (unless an edit) and of the mentioned users it reaches."""
    made = 0
    if job.only is None and job.local:
        made += add_status(job.account_id, job.status_id, job.account_id, job.thread_id,
                           job.mention_ids)
    for recipient in receivers(job.account_id, job.mention_ids, job.thread_id,
                               job.in_reply_to_account_id, job.only):
        made += add_status(recipient, job.status_id, job.account_id, job.thread_id,
                           job.mention_ids)
    return made


def direct_status_removed(job: jobs.DirectStatusRemoved) -> int:
    """A deleted direct status leaves its author's and the mentioned users' conversations."""
    return sum(int(remove_status(r, job.status_id, job.account_id, job.thread_id,
                                 job.mention_ids))
               for r in dict.fromkeys([job.account_id, *job.mention_ids]))
