"""Trends storage: candidates (what had activity on a day, written by the counters worker),
trend records (an item's best score and its review state) and each kind's ranking."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys

CANDIDATE_TTL = 3 * 86400  # a day's candidates matter for today's and tomorrow's refreshes


def candidate_item(kind: str, day: str, ident: str, now_epoch: int) -> dict[str, Any]:
    return {"type": "trend_candidate", "kind": kind, "ident": ident,
            "ttl": now_epoch + CANDIDATE_TTL}


def candidates(kind: str, day: str) -> list[str]:
    return [item["SK"] for item in base.query(keys.trend_candidates_pk(kind, day),
                                              projection="SK")]


def records(kind: str, idents: list[str], *, consistent: bool = False
            ) -> dict[str, dict[str, Any]]:
    found = base.batch_get([keys.trend_record(kind, i) for i in idents], consistent=consistent)
    return {item["ident"]: base.record(item) for item in found}


def record(kind: str, ident: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.trend_record(kind, ident), consistent=True))


def name_record(kind: str, ident: str, extra: dict[str, Any]) -> None:
    """Create an item's trend record (what staff review) if it has none."""
    names = {"#t": "type", "#k": "kind", "#i": "ident"}
    vals: dict[str, Any] = {":t": "trend", ":k": kind, ":i": ident}
    sets = ["#t = :t", "#k = :k", "#i = :i"]
    for n, (name, value) in enumerate(extra.items()):
        names[f"#x{n}"], vals[f":x{n}"] = name, value
        sets.append(f"#x{n} = :x{n}")
    base.update(keys.trend_record(kind, ident), "SET " + ", ".join(sets), names=names, vals=vals)


def review_op(kind: str, ident: str, trendable: bool, reviewed_at: str,
              extra: dict[str, Any] | None = None) -> base.Op:
    """Staff approved (trendable) or rejected an item; the record exists from then on (an op,
    written with the audit log entry that records who decided)."""
    names = {"#t": "type", "#k": "kind", "#i": "ident", "#tr": "trendable", "#r": "reviewed_at"}
    vals: dict[str, Any] = {":t": "trend", ":k": kind, ":i": ident, ":tr": trendable,
                            ":r": reviewed_at}
    sets = ["#t = :t", "#k = :k", "#i = :i", "#tr = :tr", "#r = :r"]
    for n, (name, value) in enumerate((extra or {}).items()):
        names[f"#x{n}"], vals[f":x{n}"] = name, value
        sets.append(f"#x{n} = if_not_exists(#x{n}, :x{n})")
    return base.Op("Update", key=keys.trend_record(kind, ident),
                   expression="SET " + ", ".join(sets), names=names, vals=vals)


REVIEW_TTL = 14 * 86400


def _request_op(kind: str, ident: str, at: str, extra: dict[str, Any]) -> base.Op:
    names = {"#t": "type", "#k": "kind", "#i": "ident", "#q": "requested_review_at"}
    vals: dict[str, Any] = {":t": "trend", ":k": kind, ":i": ident, ":q": at}
    sets = ["#t = :t", "#k = :k", "#i = :i", "#q = :q"]
    for n, (name, value) in enumerate(extra.items()):
        names[f"#x{n}"], vals[f":x{n}"] = name, value
        sets.append(f"#x{n} = :x{n}")
    return base.Op("Update", key=keys.trend_record(kind, ident), expression="SET " + ", ".join(sets),
                   names=names, vals=vals,
                   condition="attribute_not_exists(#q) AND attribute_not_exists(reviewed_at)")


def request_reviews(wanted: list[tuple[str, str, dict[str, Any]]], review_id: str, at: str,
                    expires_at: int, reviewers: list[str]) -> list[tuple[str, str, dict[str, Any]]]:
    """Mark items (kind, ident, attributes) as awaiting review and record the review that asks
    for them, in one transaction; items marked already (or reviewed meanwhile) are left out.
    Returns the items this review asks about (none: nothing written)."""
    live = list(wanted)
    while live:
        ops = [_request_op(kind, ident, at, extra) for kind, ident, extra in live]
        ops.append(base.put_new({**keys.trend_review(review_id), "type": "trends_review",
                                 "id": review_id, "created_at": at, "ttl": expires_at,
                                 "reviewers": reviewers,
                                 "items": [{"kind": k, "id": i, **e} for k, i, e in live]}))
        try:
            base.transact(ops)
            return live
        except base.ConditionFailed as failed:
            stale = set(failed.failed)
            if len(live) in stale:  # the review itself exists: written by a run before
                return []
            live = [entry for n, entry in enumerate(live) if n not in stale]
    return []


def review_record(review_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.trend_review(review_id)))


def ranking(kind: str) -> dict[str, Any]:
    return base.record(base.get(keys.trend_ranking(kind))) or {"items": []}


def save_ranking(kind: str, items: list[dict[str, Any]], refreshed_at: str) -> None:
    base.put({**keys.trend_ranking(kind), "type": "trend_ranking", "kind": kind,
              "items": items, "refreshed_at": refreshed_at})


def set_allowed(kind: str, ident: str, allowed: bool) -> None:
    """Show a review's outcome in the ranking at once (the next refresh would): rewritten only
    if no refresh replaced the ranking meanwhile (that one read the review, or the next will)."""
    current = base.get(keys.trend_ranking(kind), consistent=True)
    if current is None or not any(i["id"] == ident for i in current.get("items", [])):
        return
    items = [{**i, "allowed": allowed} if i["id"] == ident else i for i in current["items"]]
    try:
        base.transact([base.Op("Put", item={**current, "items": items},
                               condition="refreshed_at = :r",
                               vals={":r": current["refreshed_at"]})])
    except base.ConditionFailed:
        pass
