"""Featured hashtags (Mastodon's FeaturedTag): the hashtags a profile shows, at most 10, each
with how many public or unlisted statuses of the account use it and the day of the latest.

Counts are kept on write for every tag an account uses (the counters worker, from the stream:
workers/counters.py), so featuring a tag shows its past use at once and never counts
statuses; deleting the latest status with a tag moves `last_status_at` back (the effects
worker: workers/tags.py). Suggestions are the account's most used tags that
it does not feature yet.
"""

from __future__ import annotations

from typing import Any

from stratus.api.tags import tags
from stratus.convert import tags as convert
from stratus.core import clock, ids, limits
from stratus.core.errors import NotFound, Unprocessable
from stratus.model.viewer import Viewer
from stratus.read import accounts as accounts_read
from stratus.repo import featured_tags as repo
from stratus.repo import tags as tags_repo
from stratus.text import formatter

LIMIT = limits.MAX_FEATURED_TAGS
SUGGESTIONS = 10  # Api::V1::FeaturedTags::SuggestionsController

LIMIT_MESSAGE = "You have already featured the maximum number of hashtags"


def _failed(*messages: str) -> Unprocessable:
    return Unprocessable("Validation failed: " + ", ".join(messages))


def _render(account_id: str, username: str, items: list[dict[str, Any]]
            ) -> list[dict[str, Any]]:
    counters = repo.account_tags(account_id, [i["tag"] for i in items]) if items else {}
    return [convert.featured_tag(i, username, counters.get(i["tag"])) for i in items]


def _by_count(rendered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mastodon orders a user's featured tags by statuses_count, most used first."""
    return sorted(rendered, key=lambda t: (-int(t["statuses_count"]), int(t["id"])))


def listed(viewer: Viewer) -> list[dict[str, Any]]:
    """GET /api/v1/featured_tags."""
    items = repo.featured_of(viewer.account_id)
    return _by_count(_render(viewer.account_id, viewer.account["username"], items))


def of_account(account_id: str) -> list[dict[str, Any]]:
    """GET /api/v1/accounts/:id/featured_tags: public; none for a suspended account."""
    account = accounts_read.get_account(account_id)  # 404 for unknown or hidden accounts
    if account.get("suspended"):
        return []
    items = sorted(repo.featured_of(account_id), key=lambda i: int(i["id"]))
    return _render(account_id, account["username"], items)


def featured_for_profile(account_id: str, username: str) -> list[dict[str, Any]]:
    """The profile page's featured tags, most used first."""
    return _by_count(_render(account_id, username, repo.featured_of(account_id)))


def _validated_name(raw: Any) -> str:
    """The name as given, without spaces around it or a leading `#` (FeaturedTag#strip_name);
    422 with Mastodon's messages when it is blank or not a hashtag."""
    name = raw.strip().removeprefix("#") if isinstance(raw, str) else ""
    if not name:
        raise _failed("Name can't be blank", "Name is invalid")
    if not formatter.HASHTAG.fullmatch("#" + name):
        raise _failed("Name is invalid")
    return name


def feature(viewer: Viewer, raw: Any) -> dict[str, Any]:
    """POST /api/v1/featured_tags: the new FeaturedTag; an already featured tag is 422 (`Name
    has already been taken`), the eleventh is 422 (the limit, checked in the transaction)."""
    name = _validated_name(raw)
    tag = formatter.normalize_tag(name)
    item = _create(viewer.account_id, tag, name)
    return _render(viewer.account_id, viewer.account["username"], [item])[0]


def _create(account_id: str, tag: str, name: str) -> dict[str, Any]:
    item = repo.featured_item(ids.new_id(), account_id, tag, name, clock.iso(clock.now()))
    repo.create(item, LIMIT, taken=_failed("Name has already been taken"),
                full=_failed(LIMIT_MESSAGE))
    return item


def unfeature(viewer: Viewer, featured_id: str) -> dict[str, Any]:
    """DELETE /api/v1/featured_tags/:id: `{}`; another account's or an unknown id is 404."""
    if not ids.is_id(featured_id):
        raise NotFound()
    found = next((i for i in repo.featured_of(viewer.account_id) if i["id"] == featured_id),
                 None)
    if found is None or not repo.remove(viewer.account_id, found["tag"]):
        raise NotFound()
    return {}


def suggestions(viewer: Viewer) -> list[dict[str, Any]]:
    """GET /api/v1/featured_tags/suggestions: the account's most used tags that it does not
    feature, as Tags (with `following` and `featuring`), at most 10. Mastodon ranks the tags of
    the account's latest 1,000 statuses; here every public or unlisted status counts."""
    me = viewer.account_id
    featured = {i["tag"] for i in repo.featured_of(me)}
    used = [u for u in repo.most_used(me)
            if u["tag"] not in featured and int(u.get("statuses_count", 0)) > 0]
    used.sort(key=lambda u: (-int(u["statuses_count"]), u["tag"]))
    chosen = [u["tag"] for u in used[:SUGGESTIONS]]
    stats, edges, _ = tags_repo.load_for_viewer(chosen, me)
    now = clock.now()
    return [convert.hashtag(t, t, stats.get(t), t in edges, False, now=now) for t in chosen]


def feature_tag(viewer: Viewer, raw: str) -> dict[str, Any]:
    """POST /api/v1/tags/:name/feature (4.4): the Tag, `featuring` true; featuring it again
    changes nothing; the eleventh is 422."""
    tag = tags.normalized(raw)
    me = viewer.account_id
    stats, edges, featured = tags_repo.load_for_viewer([tag], me, consistent=True)
    if tag not in featured:
        _create(me, tag, raw)
    return convert.hashtag(tag, raw, stats.get(tag), tag in edges, True, now=clock.now())


def unfeature_tag(viewer: Viewer, raw: str) -> dict[str, Any]:
    """POST /api/v1/tags/:name/unfeature (4.4): the Tag, `featuring` false."""
    tag = tags.normalized(raw)
    repo.remove(viewer.account_id, tag)
    stats, edges, _ = tags_repo.load_for_viewer([tag], viewer.account_id)
    return convert.hashtag(tag, raw, stats.get(tag), tag in edges, False, now=clock.now())
