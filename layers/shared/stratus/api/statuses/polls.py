"""Polls: reading (with the status's visibility) and voting; closing on time is the timers
worker's (workers/timers.close_poll)."""

from __future__ import annotations

from typing import Any

from stratus.convert import statuses as convert
from stratus.core import clock, ids
from stratus.core.errors import NotFound, Unprocessable
from stratus.model.viewer import Viewer
from stratus.read import statuses as statuses_read
from stratus.repo import polls as polls_repo
from stratus.repo import statuses as repo

# Mastodon's VoteValidator messages (polls.errors in its en.yml), which clients show verbatim.
INVALID_CHOICE = "Validation failed: The chosen vote option does not exist"
ALREADY_VOTED = "Validation failed: You have already voted on this poll"


def _poll_and_status(poll_id: str, viewer_id: str | None) -> dict[str, Any]:
    poll = repo.get_poll(poll_id) if ids.is_id(str(poll_id)) else None
    if poll is None:
        raise NotFound()
    statuses_read.visible_item(poll["status_id"], viewer_id)
    return poll


def render(poll: dict[str, Any], viewer_id: str | None) -> dict[str, Any]:
    vote = polls_repo.own_vote(poll["id"], viewer_id) if viewer_id else None
    return convert.poll(poll, vote, viewer_id=viewer_id, emojis=[], now=clock.now())


def show(viewer_id: str | None, poll_id: str) -> dict[str, Any]:
    return render(_poll_and_status(poll_id, viewer_id), viewer_id)


def vote(viewer: Viewer, poll_id: str, raw_choices: Any) -> dict[str, Any]:
    poll = _poll_and_status(poll_id, viewer.account_id)
    if poll["account_id"] == viewer.account_id:
        raise Unprocessable("Validation failed: You cannot vote in your own polls")
    now = clock.now()
    if poll.get("closed") or clock.parse_iso(poll["expires_at"]) <= now:
        raise Unprocessable("Validation failed: The poll has already ended")
    values = raw_choices if isinstance(raw_choices, list) else \
        ([raw_choices] if raw_choices not in (None, "") else [])
    try:
        given = [int(c) for c in values]
    except (TypeError, ValueError):
        raise Unprocessable("Validation failed: Choice is invalid") from None
    choices = sorted(set(given))
    if not choices:
        raise Unprocessable("Validation failed: You must choose at least one option")
    if any(c < 0 or c >= len(poll["options"]) for c in choices):
        raise Unprocessable(INVALID_CHOICE)
    # Mastodon records the choices one by one: a second choice on a single-choice poll, or the
    # same choice twice, fails as a vote the account already cast.
    if len(given) > 1 and (not poll.get("multiple") or len(choices) < len(given)):
        raise Unprocessable(ALREADY_VOTED)
    polls_repo.vote(poll["id"], viewer.account_id, choices, clock.iso(now),
                    on_voted=Unprocessable(ALREADY_VOTED),
                    on_ended=Unprocessable("Validation failed: The poll has already ended"))
    return render(repo.get_poll(poll["id"]), viewer.account_id)

