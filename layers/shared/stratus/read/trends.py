"""Trends as they are read: each kind's ranking (what the schedule ranked, api/trends/ranking.py)
and which of its items are shown (`allowed_ids`: once staff allowed them, or by default, by
setting), and the reviews the schedule asked for (who is asked, the reviewers' mail), which
the mail and effects workers read. Candidates, rankings and review records are in
repo/trends.py."""

from __future__ import annotations

from typing import Any

from stratus.read import settings
from stratus.repo import trends as repo

TAGS, STATUSES, LINKS, PUBLISHERS = "tags", "statuses", "links", "publishers"
KINDS = (TAGS, STATUSES, LINKS)


def enabled() -> bool:
    return bool(settings.get_value("trends"))


def allowed(record: dict[str, Any] | None, default: bool | None = None) -> bool:
    """Mastodon's `trendable?`: what staff decided, else the instance's default (pass it when
    deciding for many items: it is one read)."""
    if record is not None and record.get("trendable") is not None:
        return bool(record["trendable"])
    return bool(settings.get_value("trendable_by_default") if default is None else default)


def allowed_ids(kind: str) -> list[dict[str, Any]]:
    """The ranking's allowed items, best first (empty when trends are off)."""
    if not enabled():
        return []
    return [i for i in repo.ranking(kind)["items"] if i.get("allowed")]


def ranked(kind: str) -> list[dict[str, Any]]:
    """Every ranked item, allowed or not (staff review)."""
    return list(repo.ranking(kind)["items"])


# --- reviews -----------------------------------------------------------------------------
def review_recipients(review_id: str) -> list[str]:
    """The reviewers a review run asked (none once the review record expired)."""
    review = repo.review_record(review_id)
    return list((review or {}).get("reviewers") or [])


def review_mail(review_id: str) -> tuple[list[str], str, str] | None:
    """(reviewer account ids, subject, body) of a review's mail (AdminMailer#new_trends)."""
    review = repo.review_record(review_id)
    if review is None or not review.get("items"):
        return None
    from stratus.core.config import settings as config

    title = settings.current()["site_title"]
    lines = [f"New trends are up for review on {title} ({config().domain}):", ""]
    for kind, label in ((TAGS, "Hashtags"), (STATUSES, "Posts"), (LINKS, "Links")):
        items = [i for i in review["items"] if i["kind"] == kind]
        if not items:
            continue
        lines.append(f"{label}:")
        for item in items:
            lines.append(f"- #{item['name']}" if kind == TAGS else f"- {item['url']}"
                         if kind == LINKS else f"- {config().base_url}/statuses/{item['id']}")
        lines.append("")
    lines.append(f"Review them: GET {config().base_url}/api/v1/admin/trends/tags, "
                 "/api/v1/admin/trends/statuses and /api/v1/admin/trends/links (approve or "
                 "reject each).")
    return (list(review.get("reviewers") or []), f"New trends up for review on {title}",
            "\n".join(lines) + "\n")
