"""Which translation backend the stack has (template.yaml's `Translation`: Amazon Translate, a
LibreTranslate-compatible server, or none) and what it offers: Mastodon's
TranslationService.configured, its languages (kept an hour by each warm process; Mastodon keeps
them seven days) and translate. The use case is api/statuses/translate.py."""

from __future__ import annotations

from stratus.core import translation as service
from stratus.core import warm
from stratus.core.config import settings
from stratus.repo import translate as amazon

LANGUAGES_TTL = 3600


class NotConfigured(Exception):
    """No backend: Mastodon answers 404 (TranslationService::NotConfiguredError)."""


def configured() -> bool:
    return bool(settings().translation_backend)


def _languages() -> dict[str | None, list[str]]:
    backend = settings().translation_backend
    if backend == "amazon":
        return amazon.amazon_languages()
    if backend == "libretranslate":
        return service.libretranslate_languages(settings().libretranslate_url,
                                                settings().libretranslate_api_key)
    raise NotConfigured()


_kept = warm.Keyed[str, dict](LANGUAGES_TTL)


def languages() -> dict[str | None, list[str]]:
    """{source language: the languages it translates to}; None: any source."""
    backend = settings().translation_backend
    if not backend:
        raise NotConfigured()
    found = _kept.get(backend, ahead=_languages)
    if found is None:
        generation = _kept.generation
        found = _languages()
        _kept.put(backend, found, generation)
    return found


def translate(texts: list[tuple[str, bool]], source: str | None, target: str
              ) -> list[service.Translated]:
    """Each (text, is_html) into `target`, by the configured backend."""
    backend = settings().translation_backend
    if backend == "amazon":
        return amazon.amazon_translate(texts, source, target)
    if backend == "libretranslate":
        from html import escape

        return service.libretranslate(settings().libretranslate_url,
                                      settings().libretranslate_api_key,
                                      [t if is_html else escape(t) for t, is_html in texts],
                                      source, target)
    raise NotConfigured()


def forget() -> None:
    _kept.forget()
