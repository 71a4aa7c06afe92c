"""The counters a request keeps itself: Mastodon writes these counter caches in the request that
makes the change (a like, a reply, a post, a follow), so the next request sees them. Everything
else that is counted (instance and tag statistics, notification groups, metrics) follows from
the stream (workers/counters.py), as it does in Mastodon (Sidekiq).

`live(item_type, item)` is the rule, used on both sides: by the request that writes the item
together with its counters (repo/counters.write_counted), and by the counters worker, which
applies the same increments for an item the request could not count (its counter items were
contended) and takes them back when such an item is removed by anything but a request.
"""

from __future__ import annotations

from typing import Any

# Counter items, by kind: (kind, id).
STATUS, ACCOUNT = "status", "account"
Target = tuple[str, Any]
DISTRIBUTABLE = ("public", "unlisted")
# The items whose counters a request keeps; `tallied` on such an item says it did.
LIVE_TYPES = ("status", "fav", "reblog", "follow", "follow_request")
TALLIED = "tallied"


def live(item_type: str, item: dict[str, Any]) -> dict[Target, dict[str, int]]:
    """The counter increments an inserted item stands for ({target: {counter: +1}}; a removal
    takes them back). Mastodon's rules: direct statuses count nowhere; a boost is a status of
    the booster's; a reply counts on its parent only when public or unlisted; a follow counts
    on both accounts, a pending request on its target."""
    if item_type == "status":
        if item.get("visibility") == "direct":
            return {}
        adds: dict[Target, dict[str, int]] = {(ACCOUNT, item["account_id"]):
                                              {"statuses_count": 1}}
        if item.get("in_reply_to_id") and item.get("visibility") in DISTRIBUTABLE:
            adds[(STATUS, item["in_reply_to_id"])] = {"replies_count": 1}
        return adds
    if item_type == "fav":
        return {(STATUS, item["status_id"]): {"favourites_count": 1}}
    if item_type == "reblog":
        return {(STATUS, item["status_id"]): {"reblogs_count": 1}}
    if item_type == "follow":
        return {(ACCOUNT, item["account_id"]): {"following_count": 1},
                (ACCOUNT, item["target_id"]): {"followers_count": 1}}
    if item_type == "follow_request":
        return {(ACCOUNT, item["target_id"]): {"follow_requests_count": 1}}
    return {}


def stamps(item_type: str, item: dict[str, Any]) -> dict[Target, dict[str, Any]]:
    """What a new item sets beside its counts: a status the author's `last_status_at`
    (Mastodon's AccountStats, written with `statuses_count`)."""
    if item_type == "status" and item.get("visibility") != "direct" and item.get("created_at"):
        return {(ACCOUNT, item["account_id"]): {"last_status_at": item["created_at"]}}
    return {}


def incarnation(item_type: str, item: dict[str, Any]) -> str:
    """One life of a counted item (liked, unliked and liked again are two): what the marker of
    a removal a request counted down is named by."""
    owner = item.get("account_id", "")
    subject = item.get("status_id") or item.get("target_id") or ""
    return f"{item_type}:{owner}:{subject}:{item.get('id', '')}"
