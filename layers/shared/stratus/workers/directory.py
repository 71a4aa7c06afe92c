"""The profile directory's index, kept by the effects worker from the stream: one entry per
listed account (read/directory.py says who is), ordered by creation, by last status and, for
local accounts, by followers; the directory and popular suggestions (api/directory/) read it."""

from __future__ import annotations

from stratus.jobs import messages as jobs
from stratus.read import directory as directory_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import directory as repo

DIRECTORY = "DIRECTORY"  # an account's entry, in what repo.account_state reads


def touch(job: jobs.DirectoryTouch) -> int:
    """Make an account's entry what its items say now (the effects worker; a redelivery or a
    change that does not move it writes nothing). Returns 1 when the entry changed."""
    state = repo.account_state(job.account_id)
    current = state.get(DIRECTORY)
    if not directory_read.listable(state):
        if current is None:
            return 0
        repo.delete_entry(job.account_id)
        return 1
    profile, stats = state[accounts_repo.PROFILE], state.get(accounts_repo.STATS) or {}
    local = not profile.get("domain")
    followers = int(stats.get("followers_count", 0))
    # Popular suggestions rank local accounts somebody follows (FollowRecommendation).
    wanted = repo.entry_item(job.account_id, local=local,
                             last_status_at=stats.get("last_status_at"),
                             followers=followers if local and followers > 0 else None)
    if current == wanted:
        return 0
    repo.put_entry(wanted)
    return 1
