"""The link index the effects worker keeps (the link timeline, api/timelines/links.py, reads
it): for every public original status, the link its card comes from (stratus.text.links.
card_link: Mastodon's first non-local http(s) URL, normalised), moved when an edit changes that
link or the status goes. A new entry is also a share of the link, counted for link trends."""

from __future__ import annotations

from stratus.core import clock
from stratus.core.config import settings
from stratus.jobs import messages as jobs
from stratus.repo import accounts as accounts_repo
from stratus.repo import cards as cards_repo
from stratus.repo import links as repo
from stratus.text.links import card_link


def _card_link(text: str | None) -> str | None:
    return card_link(text, settings().domain) if text is not None else None


def links_changed(job: jobs.LinksChanged) -> int:
    """Move a status's link index entry to the link its text now has; idempotent. A new entry
    is also a share of the link (what link trends will rank), counted when the
    author may be discovered."""
    old, new = _card_link(job.old_text), _card_link(job.new_text)
    if old == new:
        return 0
    changed = 0
    if old is not None:
        repo.unindex(old, job.status_id)
        changed += 1
    if new is not None:
        # A post shares the link on the day it was posted, an edit on the day of the edit.
        day = clock.day_of_id(job.status_id) if job.old_text is None \
            else clock.day_key(clock.now())
        shared = _counts_shares(job.account_id)
        repo.index(new, job.status_id, {"account_id": job.account_id, "local": job.local,
                                        "url": new, "day": day, "shared": shared})
        if shared:
            cards_repo.record_use(new, day, job.account_id,
                                  int(clock.now().timestamp()) + cards_repo.USE_TTL)
        changed += 1
    return changed


def _counts_shares(account_id: str) -> bool:
    """Whether an account's links count towards link trends: it opted into discovery (as
    Mastodon's link feeds require) and is neither silenced nor suspended (Trends::Links)."""
    profile = accounts_repo.get_profile(account_id) or {}
    return profile.get("discoverable") is True and not profile.get("silenced_at") \
        and not profile.get("suspended_at")
