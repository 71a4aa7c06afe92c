"""Once-markers: a job (or one part of it) that has had its effect, so that SQS redelivering
it has none. One item per (scope, id) under `keys.dedupe`, with a TTL past the longest time
the queue may redeliver. `once_per` is the same item as a cool-down: taken at most once per
period, whoever asks."""

from __future__ import annotations

import hashlib

from stratus.repo import base, keys

REDELIVERY_TTL = 14 * 86400  # SQS keeps a message at most 14 days


def actor_scoped(actor_uri: str, object_uri: str) -> str:
    """The id of a marker about an object as one actor named it (an activity id, the URI of a
    status it deleted before we had it): only that actor's own activities can find it, so no
    other actor can pre-empt or clear it."""
    return hashlib.sha256(f"{actor_uri} {object_uri}".encode()).hexdigest()


def _item(scope: str, job_id: str, ttl: int) -> dict:
    return {**keys.dedupe(scope, job_id), "type": "dedupe", "job_id": job_id,
            "ttl": base.now_epoch() + ttl}


def marked(scope: str, job_ids: list[str], *, table_name: str | None = None) -> set[str]:
    """Which of these have had their effect (strongly consistent)."""
    if not job_ids:
        return set()
    found = base.batch_get([keys.dedupe(scope, j) for j in dict.fromkeys(job_ids)],
                           consistent=True, table_name=table_name)
    return {item["job_id"] for item in found}


def mark(scope: str, job_id: str, *, ttl: int = REDELIVERY_TTL,
         table_name: str | None = None) -> None:
    """Remember that a job had its effect (after it did: a crash before means a retry)."""
    base.put(_item(scope, job_id, ttl), table_name=table_name)


def claim(scope: str, job_id: str, *, ttl: int = REDELIVERY_TTL,
          table_name: str | None = None) -> bool:
    """True the first time (before the effect: `release` gives the claim back on failure)."""
    return base.put(_item(scope, job_id, ttl), condition="attribute_not_exists(PK)",
                    table_name=table_name)


def release(scope: str, job_id: str, *, table_name: str | None = None) -> None:
    base.delete(keys.dedupe(scope, job_id), table_name=table_name)


def claim_op(scope: str, job_id: str, *, ttl: int = REDELIVERY_TTL) -> base.Op:
    """`claim` inside a transaction with the effect itself."""
    return base.put_new(_item(scope, job_id, ttl))


def once_per(scope: str, subject: str, *, seconds: int) -> bool:
    """True at most once every `seconds` for (scope, subject), whichever process asks (a
    cool-down): one conditional write of when it was last taken, which expires with it."""
    now = base.now_epoch()
    try:
        base.update(keys.dedupe(scope, subject), "SET #t = :type, #job = :job, #at = :now, "
                    "#ttl = :ttl", condition="attribute_not_exists(#at) OR #at <= :since",
                    names={"#t": "type", "#job": "job_id", "#at": "taken_at", "#ttl": "ttl"},
                    vals={":type": "dedupe", ":job": subject, ":now": now,
                          ":ttl": now + seconds, ":since": now - seconds})
    except base.dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    return True
