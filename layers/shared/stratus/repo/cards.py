"""Preview cards and link shares.

One card item per normalised URL (`keys.card`, in the URL's partition beside the link index),
shared by every status that links it; a status names its card by that URL (`card_url` on the
status item), so a page of statuses reads its cards in one batch. A link's daily share counters
live on its `STATS` item (`uses_<yyyymmdd>`, `accounts_<yyyymmdd>`, kept by the counters worker
from the stream), with a `link_use` item per account and day that makes `accounts` distinct —
the way a hashtag's history is kept (repo/tags.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stratus.repo import base, keys

CARD, LINK_USE, LINK_STATS = "preview_card", "link_use", "link_stats"
USE_TTL = 14 * 86400  # as a hashtag's per-day marks


def get(url: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.card(url)))


def get_many(urls: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{url: card} for the URLs that have a card, in one batched read (per 100)."""
    wanted = list(dict.fromkeys(u for u in urls if u))
    if not wanted:
        return {}
    return {item["url"]: base.record(item)
            for item in base.batch_get([keys.card(u) for u in wanted])}


def put(url: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Write (or refresh) the card of `url`; returns the card."""
    item = {**keys.card(url), "type": CARD, "url": url, **fields}
    base.put(item)
    return base.record(item)


def status_item(status_id: str) -> dict[str, Any] | None:
    """The status as it is now (a consistent read: the job follows an edit closely, and a
    stale copy would name the old text's card)."""
    return base.record(base.get(keys.status(status_id), consistent=True))


def attach(status_id: str, url: str, text: str) -> bool:
    """Name the card on the status, if the status still has the text the card was chosen
    for (a later edit's own job attaches its card); False if it does not."""
    try:
        base.update(keys.status(status_id), "SET card_url = :u",
                    vals={":u": url, ":t": text},
                    condition="attribute_exists(PK) AND #text = :t", names={"#text": "text"})
    except base.dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    return True


def detach(status_id: str, text: str) -> bool:
    """Remove the status's card, if its text is still `text`."""
    try:
        base.update(keys.status(status_id), "REMOVE card_url", vals={":t": text},
                    condition="attribute_exists(PK) AND #text = :t", names={"#text": "text"})
    except base.dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    return True


# --- shares ---------------------------------------------------------------------------------------
def record_use(url: str, day: str, account_id: str, expires_at: int) -> bool:
    """Note that an account shared `url` on a day; False if it had already (its insert is what
    the counters worker counts as one more distinct account)."""
    return base.put({**keys.link_use(url, day, account_id), "type": LINK_USE, "url": url,
                     "day": day, "account_id": account_id, "ttl": expires_at},
                    condition="attribute_not_exists(PK)")


def link_use_key(item: dict[str, Any]) -> dict[str, str]:
    """The key of a `link_use` item, from its attributes (the counters' guard)."""
    return keys.link_use(item["url"], item["day"], item["account_id"])


def shared_status_key(item: dict[str, Any]) -> dict[str, str]:
    """The key of a link index entry that counts as a share (the counters' guard)."""
    return keys.linked_status(item["url"], item["status_id"])


def stats_key(url: str) -> dict[str, str]:
    return keys.link_stats(url)


def stats(urls: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{url: STATS record} of links, in one batched read."""
    wanted = list(dict.fromkeys(urls))
    return {item["url"]: base.record(item)
            for item in base.batch_get([keys.link_stats(u) for u in wanted]) if item.get("url")}


def save_max_score(url: str, max_score: float, max_score_at: float) -> None:
    """A link's best trend score and when it was reached (api/trends/ranking.py)."""
    base.update(keys.link_stats(url), "SET max_score = :m, max_score_at = :a, #t = :t, #u = :u",
                names={"#t": "type", "#u": "url"},
                vals={":m": str(max_score), ":a": str(max_score_at), ":t": LINK_STATS, ":u": url})
