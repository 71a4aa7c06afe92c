"""Polls and their votes: the poll item (a local poll's and a remote Question's alike), a vote,
closing, and the reads of votes."""

from __future__ import annotations

from typing import Any

from stratus.core.errors import ApiError
from stratus.model.statuses import Vote
from stratus.repo import base, keys


def votes(poll_id: str) -> list[dict[str, Any]]:
    return list(base.query(keys.poll(poll_id)["PK"], sk_prefix=keys.VOTE_PREFIX))


def voter_ids(poll_id: str) -> list[str]:
    return [vote["account_id"] for vote in votes(poll_id)]


# --- writes: one per fact, for local polls and the polls of remote Questions ------------------------
def create_op(poll_id: str, status_id: str, account_id: str, *, options: list[str],
              multiple: bool, expires_at: str | None, hide_totals: bool = False,
              votes: list[int] | None = None, voters_count: int = 0, closed: bool = False,
              remote: bool = False) -> base.Op:
    """Write a new poll of a status in its status's transaction: a local one starts with no
    votes; a remote Question's carries the counts its server reports (`remote`)."""
    item = {**keys.poll(poll_id), "type": "poll", "id": poll_id, "status_id": status_id,
            "account_id": account_id, "options": options,
            "votes": votes if votes is not None else [0] * len(options),
            "voters_count": voters_count, "multiple": multiple, "hide_totals": hide_totals,
            "expires_at": expires_at, "closed": closed}
    return base.put_new({**item, "remote": True} if remote else item)


def remove_op(poll_id: str) -> base.Op:
    return base.Op("Delete", key=keys.poll(poll_id))


def counts_op(poll_id: str, changes: dict[str, Any]) -> base.Op:
    """New counts (votes, voters, end, closed) of an existing poll."""
    return base.set_op(keys.poll(poll_id), changes)


def vote(poll_id: str, account_id: str, choices: list[int], now: str, *,
         on_voted: ApiError, on_ended: ApiError) -> None:
    """An account's vote, once per poll (`on_voted`), counted in the poll while it is open
    (`on_ended`), in one transaction."""
    counts = ", ".join(f"votes[{c}] = votes[{c}] + :one" for c in choices)
    try:
        base.transact([
            base.put_new({**keys.poll_vote(poll_id, account_id), "type": "poll_vote",
                          "account_id": account_id, "poll_id": poll_id, "choices": choices,
                          "created_at": now}, on_conflict=on_voted),
            base.Op("Update", key=keys.poll(poll_id),
                    expression=f"SET {counts} ADD voters_count :one",
                    condition="closed = :no AND expires_at > :now",
                    vals={":one": 1, ":no": False, ":now": now}, on_conflict=on_ended)])
    except base.ConditionFailed as exc:
        raise on_ended from exc


def close(poll_id: str) -> bool:
    """Close an open poll; False if it was closed already."""
    try:
        base.transact([base.Op("Update", key=keys.poll(poll_id), expression="SET closed = :yes",
                               condition="closed = :no", vals={":yes": True, ":no": False})])
    except base.ConditionFailed:
        return False
    return True


def own_vote(poll_id: str, account_id: str) -> Vote | None:
    return base.record(base.get(keys.poll_vote(poll_id, account_id), consistent=True))
