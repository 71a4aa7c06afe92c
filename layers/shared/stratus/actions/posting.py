"""Building a status to post: its parameters checked (text, content type, visibility, spoiler,
language, poll, media, reply), its text rendered with mentions (remote ones resolved by
WebFinger) and hashtags, and the item with every write that creating it takes, for one
transaction. Shared by `POST /api/v1/statuses` (api/statuses/post.py), editing, scheduling
(api/statuses/scheduled.py) and the timers worker that publishes a scheduled status when its
time comes (workers/timers.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from stratus.convert import statuses as convert_statuses
from stratus.core import clock, hosts, ids, limits
from stratus.core.config import settings
from stratus.core.errors import NotFound, Unprocessable
from stratus.core.params import flag, indexed_values
from stratus.model.viewer import Viewer
from stratus.read import status_views
from stratus.read import statuses as statuses_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import counters as counters_repo
from stratus.repo import instance as instance_repo
from stratus.repo import polls as polls_repo
from stratus.repo import scheduler, status_writes, transaction
from stratus.repo import statuses as repo
from stratus.text import formatter

VISIBILITIES = ("public", "unlisted", "private", "direct")
CONTENT_TYPES = limits.STATUS_SUPPORTED_MIME_TYPES


def _error(message: str) -> Unprocessable:
    return Unprocessable(f"Validation failed: {message}")


MAX_RESOLVED_MENTIONS = 5  # unknown remote addresses looked up by WebFinger in one post


def mentioned_accounts(parsed: formatter.Parsed) -> dict[tuple[str, str | None], dict[str, Any]]:
    """The accounts among the text's mentions, keyed as written (lower-cased): local ones by
    username, remote ones (`@user@host`) stored or, as Mastodon's ProcessMentionsService does,
    resolved by WebFinger now (at most MAX_RESOLVED_MENTIONS per post; an unreachable address
    stays plain text). A suspended account, local or remote, is left out as Mastodon's
    ProcessMentionsService leaves it: its `@handle` stays plain text, and with no mention it
    gets no notification and no delivery."""
    wanted = {}
    lookups = 0
    for username, domain in parsed.mentions:
        key = (username.lower(), domain.lower() if domain else None)
        if domain is None or hosts.ours(domain):
            account_id = accounts_repo.id_by_handle(username)
        else:
            account_id = accounts_repo.id_by_handle(username, domain)
            if account_id is None and lookups < MAX_RESOLVED_MENTIONS:
                from stratus.federation import remote_accounts

                lookups += 1
                found = remote_accounts.resolve_acct(f"{username}@{domain}")
                account_id = found["id"] if found else None
        if account_id:
            wanted[key] = account_id
    rendered = status_views.load_accounts(list(wanted.values()))
    return {key: rendered[aid] for key, aid in wanted.items()
            if aid in rendered and not rendered[aid].get("suspended")}


def validate_poll(raw: Any) -> dict[str, Any] | None:
    if raw in (None, "", {}):
        return None
    if not isinstance(raw, dict):
        raise _error("Poll is invalid")
    options = raw.get("options") or []
    if isinstance(options, dict):
        options = indexed_values(options)
    # Like Rails' `options: []`: an array of scalars, anything else is not there.
    options = options if isinstance(options, list) else []
    options = [str(o).strip() for o in options
               if isinstance(o, (str, int, float)) and not isinstance(o, bool) and str(o).strip()]
    if len(options) < 2:
        raise _error("Poll must have at least 2 options")
    if len(options) > limits.POLL_MAX_OPTIONS:
        raise _error(f"Poll can't contain more than {limits.POLL_MAX_OPTIONS} options")
    if any(len(o) > limits.POLL_MAX_CHARACTERS_PER_OPTION for o in options):
        raise _error(f"Poll options can't be longer than {limits.POLL_MAX_CHARACTERS_PER_OPTION} characters")
    if len(set(options)) != len(options):
        raise _error("Poll options must be unique")
    try:
        expires_in = int(raw.get("expires_in"))
    except (TypeError, ValueError):
        raise _error("Poll expiration can't be blank") from None
    if expires_in < limits.POLL_MIN_EXPIRATION:
        raise _error("Poll duration is too short")
    if expires_in > limits.POLL_MAX_EXPIRATION:
        raise _error("Poll duration is too long")
    return {"options": options, "expires_in": expires_in,
            "multiple": flag(raw.get("multiple")), "hide_totals": flag(raw.get("hide_totals"))}


def _media_ids(raw: Any) -> list[str]:
    """The request's media ids, each checked where it enters (`ids.is_id`): one that is not an
    id names no medium (422 as not found), so no later read or key ever sees it, on the
    scheduled path as on the immediate one."""
    if raw in (None, ""):
        return []
    values = [str(v) for v in (raw if isinstance(raw, list) else [raw]) if str(v).strip()]
    malformed = [v for v in values if not ids.is_id(v)]
    if malformed:
        raise _error("Media attachments could not be found: " + ", ".join(malformed))
    return values


def _check_hashtags(text: str) -> None:
    """Mastodon's DisallowedHashtagsValidator: a local status may not carry a tag staff made
    unusable (api/admin/tags.py), whether posted, scheduled or edited."""
    if "#" not in text:
        return
    from stratus.read import tag_policy

    refused = tag_policy.disallowed([formatter.normalize_tag(t)
                                     for t in formatter.parse(text).tags])
    if len(refused) == 1:
        raise _error(f"Text contained a disallowed hashtag: {refused[0]}")
    if refused:
        raise _error("Text contained the disallowed hashtags: " + ", ".join(refused))


def prepare(viewer: Viewer, params: dict[str, Any], *, for_schedule: bool = False
            ) -> dict[str, Any]:
    """Validate a new status's parameters; returns the normalised parameters."""
    text = params.get("status")
    text = text if isinstance(text, str) else ""
    spoiler = params.get("spoiler_text") if isinstance(params.get("spoiler_text"), str) else ""
    media_ids = _media_ids(params.get("media_ids"))
    poll = validate_poll(params.get("poll"))
    if not text.strip() and not media_ids and not poll:
        raise _error("Text can't be blank")
    if media_ids and poll:
        raise _error("Media attachments and polls cannot be combined")
    if len(media_ids) > limits.MAX_MEDIA_ATTACHMENTS:
        raise _error(f"Media attachments can't be more than {limits.MAX_MEDIA_ATTACHMENTS}")
    length = formatter.count_characters(text, settings().domain) + len(spoiler)
    if length > limits.MAX_STATUS_CHARACTERS:
        raise _error(f"Text character limit of {limits.MAX_STATUS_CHARACTERS} exceeded")
    _check_hashtags(text)
    user_settings = viewer.user.get("settings", {})
    visibility_ = params.get("visibility") or user_settings.get("default_privacy", "public")
    if visibility_ not in VISIBILITIES:
        raise _error("Visibility is not included in the list")
    content_type = params.get("content_type") or "text/plain"
    if content_type not in CONTENT_TYPES:
        raise _error("Content type is not supported")
    language = params.get("language") or user_settings.get("default_language") or None
    if language is not None and (not isinstance(language, str) or len(language) > 8):
        raise _error("Language is invalid")
    sensitive = flag(params.get("sensitive"), user_settings.get("default_sensitive", False))
    return {"status": text, "spoiler_text": spoiler, "media_ids": media_ids, "poll": poll,
            "visibility": visibility_, "content_type": content_type, "language": language,
            "sensitive": sensitive or bool(spoiler), "in_reply_to_id": params.get("in_reply_to_id"),
            "allowed_mentions": params.get("allowed_mentions")}


def _media_ops(viewer_id: str, media_ids: list[str], status_id: str,
               scheduled_id: str | None = None) -> list[transaction.Op]:
    """Attach media: only the owner's, only once (a scheduled post's own media may move on)."""
    found = repo.get_media(media_ids)
    missing = [m for m in media_ids if m not in found or found[m]["account_id"] != viewer_id]
    if missing:
        raise _error("Media attachments could not be found: " + ", ".join(missing))
    if any(found[m].get("processing") for m in media_ids):
        raise _error("Cannot attach files that have not finished processing. Try again in a moment!")
    taken = _error("Media attachments are already attached to a post")
    if any(found[m].get("status_id") or
           found[m].get("scheduled_status_id", scheduled_id) != scheduled_id for m in media_ids):
        raise taken
    return repo.attach_media_ops(viewer_id, media_ids, status_id, scheduled_id, taken=taken)


def build(viewer: Viewer, prepared: dict[str, Any], *, application: dict[str, Any] | None,
          status_id: str | None = None, scheduled_id: str | None = None
          ) -> tuple[dict[str, Any], Callable[[Sequence[transaction.Op]], None]]:
    """The status item, and the write that creates it: every op it takes and `also` (the
    caller's own), with the author's `statuses_count` and the parent's `replies_count`, in one
    transaction (`write(also)`)."""
    account = viewer.account
    status_id = status_id or ids.new_id()
    parsed = formatter.parse(prepared["status"])
    mentions = mentioned_accounts(parsed)
    mention_ids = list(dict.fromkeys(a["id"] for a in mentions.values()))
    allowed = prepared.get("allowed_mentions")
    if allowed is not None:
        allowed_ids = {str(a) for a in (allowed if isinstance(allowed, list) else [allowed])}
        unexpected = [a for a in mentions.values() if a["id"] not in allowed_ids]
        if unexpected:
            raise Unprocessable("Validation failed: Unexpected mentioned accounts",
                                extra={"unexpected_accounts": unexpected})
    parent = None
    if prepared.get("in_reply_to_id"):
        parent = statuses_read.visible_item(str(prepared["in_reply_to_id"]), viewer.account_id)
        if parent.get("reblog_of_id"):
            raise NotFound()
    emoji_codes = {e["shortcode"] for e in instance_repo.list_emojis()} if parsed.shortcodes else set()
    now = clock.now()
    username = account["username"]
    item: dict[str, Any] = {
        "id": status_id, "account_id": account["id"],
        "uri": f"{settings().base_url}/users/{username}/statuses/{status_id}",
        "url": f"{settings().base_url}/@{username}/{status_id}",
        "text": prepared["status"], "content_type": prepared["content_type"],
        "content": convert_statuses.render_text(prepared["status"], prepared["content_type"],
                                                mentions),
        "spoiler_text": prepared["spoiler_text"], "visibility": prepared["visibility"],
        "sensitive": prepared["sensitive"], "language": prepared["language"],
        "in_reply_to_id": parent["id"] if parent else None,
        "in_reply_to_account_id": parent["account_id"] if parent else None,
        "thread_id": (parent.get("thread_id") or parent["id"]) if parent else status_id,
        "mention_ids": mention_ids,
        "tags": [formatter.normalize_tag(t) for t in parsed.tags],
        "emojis": [c for c in parsed.shortcodes if c in emoji_codes],
        "media_ids": prepared["media_ids"], "local": True,
        "application": application, "created_at": clock.iso(now),
    }
    ops = _media_ops(account["id"], prepared["media_ids"], status_id, scheduled_id) \
        if prepared["media_ids"] else []
    if prepared.get("poll"):
        poll = prepared["poll"]
        poll_id = ids.new_id()
        item["poll_id"] = poll_id
        expires_at = now + timedelta(seconds=poll["expires_in"])
        ops.append(polls_repo.create_op(
            poll_id, status_id, account["id"], options=poll["options"],
            multiple=poll["multiple"], hide_totals=poll["hide_totals"],
            expires_at=clock.iso(expires_at)))
        item["_poll_expires_at"] = expires_at
    stored = {k: v for k, v in item.items() if not k.startswith("_")}

    def write(also: Sequence[transaction.Op] = ()) -> None:
        # The author's statuses_count and the parent's replies_count are counted with it (a
        # reply to a thread busy enough to be contended is counted by the stream's worker).
        counters_repo.write_counted(
            lambda now: [*also, *ops, *status_writes.create_ops(counters_repo.tallied(stored,
                                                                                     now))],
            [("status", stored)])

    return item, write


def after_create(item: dict[str, Any]) -> None:
    """Timers a new status needs (poll expiry) — the write itself has committed."""
    if item.get("_poll_expires_at"):
        from stratus.jobs import messages as jobs  # lazy: its job classes are ~25 ms of INIT

        scheduler.schedule(f"poll-{item['poll_id']}", item["_poll_expires_at"],
                           jobs.PollExpired(poll_id=item["poll_id"]).to_dict())
