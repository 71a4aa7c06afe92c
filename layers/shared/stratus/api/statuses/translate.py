"""POST /api/v1/statuses/:id/translate (Mastodon's TranslateStatusService): a status the viewer
may see, public or unlisted, translated by the configured backend (read/translation.py) into
the language asked for (`lang`), else the user's, else the browser's, else the server's.

What is translated: the content (HTML, custom emoji kept out of it), the content warning, the
poll's options and the media descriptions; the answer is Mastodon's Translation entity. A
translation is kept a day per status version (its last edit) and target language
(repo/translate.py), so asking again reads it instead of translating again.

Errors are Mastodon's: no backend 404 (`Not Found`), a status one may not see 404 (`Record not
found`), a private or direct status or a language pair the backend cannot do 403, and the
backend's own failures 503."""

from __future__ import annotations

import html
import re
from typing import Any

from stratus.core import clock
from stratus.core import translation as service
from stratus.core.config import settings
from stratus.core.errors import Forbidden, NotFound, ServiceUnavailable
from stratus.model.viewer import Viewer
from stratus.read import statuses as statuses_read
from stratus.read import translation
from stratus.repo import statuses as statuses_repo
from stratus.repo import translate as store
from stratus.text import languages
from stratus.text.sanitize import clean

QUOTA = "The server-wide usage quota for the translation service has been exceeded."
TOO_MANY = "There have been too many requests to the translation service recently."
_TAG = re.compile(r"<[^>]*>")
_KEPT_OUT = re.compile(r'<span translate="no">(:[a-zA-Z0-9_]+:)</span>')


def target_language(requested: Any, user_locale: Any, accept_language: str | None) -> str:
    """Mastodon's `requested_locale`: `lang` when it is one of the interface's languages, else
    the user's, else the best of the browser's, else the server's default."""
    for candidate in (requested, user_locale):
        if isinstance(candidate, str) and candidate in languages.UI_LOCALES:
            return candidate
    for part in (accept_language or "").split(","):
        tag = part.split(";")[0].strip()
        for candidate in (tag, tag.split("-")[0]):
            if candidate in languages.UI_LOCALES:
                return candidate
    return settings().default_language


def _sources(item: dict[str, Any], media: list[dict[str, Any]],
             options: list[str] | None) -> list[tuple[str, str, bool]]:
    """(what, text, is_html) of everything to translate, in the entity's order."""
    texts: list[tuple[str, str, bool]] = []
    if item.get("content"):
        content = item["content"]
        for code in item.get("emojis") or []:
            content = content.replace(f":{code}:", f'<span translate="no">:{code}:</span>')
        texts.append(("content", content, True))
    if item.get("spoiler_text"):
        texts.append(("spoiler_text", item["spoiler_text"], False))
    texts += [("option", option, False) for option in options or []]
    texts += [(f"media:{m['id']}", m["description"], False) for m in media
              if m.get("description")]
    return texts


def _plain(translated: str) -> str:
    """What a translated text says, without markup (Mastodon takes the node's content)."""
    return html.unescape(_TAG.sub("", _KEPT_OUT.sub(r"\1", translated)))


def _entity(item: dict[str, Any], sources: list[tuple[str, str, bool]],
            answers: list[service.Translated], target: str) -> dict[str, Any]:
    first = answers[0] if answers else None
    entity: dict[str, Any] = {
        "detected_source_language": first.detected_source_language if first else None,
        "language": target, "provider": first.provider if first else None,
        "spoiler_text": "", "content": "", "media_attachments": []}
    options = []
    for (what, _, _), answer in zip(sources, answers, strict=True):
        if what == "content":
            entity["content"] = clean(_KEPT_OUT.sub(r"\1", answer.text))
        elif what == "spoiler_text":
            entity["spoiler_text"] = _plain(answer.text)
        elif what == "option":
            options.append({"title": _plain(answer.text)})
        else:
            entity["media_attachments"].append({"id": what.removeprefix("media:"),
                                                "description": _plain(answer.text)})
    if item.get("poll_id"):
        entity["poll"] = {"id": str(item["poll_id"]), "options": options}
    return entity


def _backend(call: Any) -> Any:
    try:
        return call()
    except translation.NotConfigured:
        raise NotFound("Not Found") from None
    except service.QuotaExceeded:
        raise ServiceUnavailable(QUOTA) from None
    except service.TooManyRequests:
        raise ServiceUnavailable(TOO_MANY) from None
    except service.TranslationError:
        raise ServiceUnavailable() from None


def translate(viewer: Viewer, status_id: str, target: str) -> dict[str, Any]:
    item = statuses_read.visible_item(status_id, viewer.account_id)
    if not translation.configured():
        raise NotFound("Not Found")
    known = _backend(translation.languages)
    source = item.get("language") or None
    targets = known.get(source) or []
    if target not in targets:
        target = re.split(r"[_-]", target)[0]
    if item.get("visibility") not in ("public", "unlisted") or target not in targets:
        raise Forbidden()
    version = item.get("edited_at") or item["created_at"]
    kept = store.cached(item["id"], version, target)
    if kept is not None:
        return kept
    media = list(statuses_repo.get_media(list(item.get("media_ids") or [])).values())
    sources = _sources(item, media, statuses_read.poll_options(item))
    answers = _backend(lambda: translation.translate(
        [(text, is_html) for _, text, is_html in sources], source, target)) if sources else []
    entity = _entity(item, sources, answers, target)
    store.keep(item["id"], version, target, entity, int(clock.now().timestamp()))
    return entity
