"""Blocks, written once for the local and the federated path: a block and what it ends, an
unblock, and whether a user blocks a domain; a user's mutes and domain blocks by their ends.

A block ends, in the transaction that writes it, what it cannot coexist with both ways — the
follows, the pending follow requests and the endorsements that went with the follows —
as Mastodon's BlockService and ActivityPub::Activity::Block do (UnfollowService both ways,
RejectFollowService; a follow's endorsement goes with it), and the counts of the follows and
requests it ends with them. A follow is written with checks that neither block exists, so the
two never interleave. What follows from the stream is the outbox's: the notifications those
edges made, telling the other server.
"""

from __future__ import annotations

from typing import Any

from stratus.core import ids
from stratus.model.relationships import Mute
from stratus.repo import base, counters, keys
from stratus.repo.relationships import (
    block_item,
    create_op,
    domain_block_item,
    get,
    mute_item,
    put,
    put_new,
    remove,
    remove_op,
)


def _ends(blocker_id: str, target_id: str) -> list[tuple[str, dict[str, str]]]:
    """What a block ends, both ways: (kind, key) of each follow, endorsement and request."""
    ends = []
    for follower, followed in ((blocker_id, target_id), (target_id, blocker_id)):
        ends += [("follow", keys.follow(follower, followed)),
                 ("endorsement", keys.endorsement(follower, followed)),
                 ("follow_request", keys.follow_request(followed, follower))]
    return ends


def block(blocker_id: str, target_id: str, *, uri: str | None = None) -> bool:
    """Block (`uri`: the id of the Block activity that made it, for one from another server)
    in one transaction: the block edge, written only if there is none yet, and the removal of
    the follows, requests and endorsements both ways — the follows' and requests' counts with
    them (repo/counters.write_counted), so the next request sees them. False when the block
    existed already (then nothing is written: the transaction that made it ended the same
    edges)."""
    item = block_item(ids.new_id(), blocker_id, target_id)
    if uri:
        item["uri"] = uri
    ends = _ends(blocker_id, target_id)
    for _ in range(3):
        found = {(i["PK"], i["SK"]): base.record(i) for i in
                 base.batch_get([key for kind, key in ends if kind != "endorsement"],
                                consistent=True)}

        def build(now: bool) -> list[base.Op]:
            ops = [create_op(item)]
            for kind, key in ends:
                read = found.get((key["PK"], key["SK"]))
                ops.append(counters.delete_read(key, read) if now and read else
                           remove_op(key))
            return ops

        try:
            counters.write_counted(build, removed=[(r["type"], r) for r in found.values()])
            return True
        except base.ConditionFailed as failed:
            if 0 in failed.failed:
                return False  # blocked already
            # an edge read was replaced meanwhile: read again
    return False


def unblock(blocker_id: str, target_id: str) -> dict[str, Any] | None:
    """Remove a block; returns its record as it was (None if there was none)."""
    return remove(keys.block(blocker_id, target_id))


def blocks_domain(account_id: str, domain: str) -> bool:
    """Whether a user blocks a domain (a user domain block; a consistent read)."""
    return get(keys.user_domain_block(account_id, domain)) is not None


def block_domain(account_id: str, domain: str) -> bool:
    """A user blocks a domain; False if it did already."""
    return put_new(domain_block_item(ids.new_id(), account_id, domain))


def unblock_domain(account_id: str, domain: str) -> None:
    remove(keys.user_domain_block(account_id, domain))


def mute_of(account_id: str, target_id: str) -> dict[str, Any] | None:
    """An account's mute of another, as a record (expired or not)."""
    return get(keys.mute(account_id, target_id))


def mute(mute_id: str, account_id: str, target_id: str, value: Mute) -> None:
    """Mute an account, or change the mute of it (`mute_id`: the existing mute's id, so that
    it keeps its place in the list of mutes)."""
    put(mute_item(mute_id, account_id, target_id, value))


def unmute(account_id: str, target_id: str) -> None:
    remove(keys.mute(account_id, target_id))
