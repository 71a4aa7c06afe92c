"""What the translation backends share (Mastodon's TranslationService): the answers a backend
gives besides a translation, and the client of a LibreTranslate-compatible server (Mastodon's
TranslationService::LibreTranslate; Amazon Translate's is repo/translate.py, being AWS).

The server is the operator's (template.yaml's `LibreTranslateUrl`), not a URL anyone else
chose, so it may live on a private network as Mastodon's may (`allow_local`); what it answers
is still bounded: a deadline for the whole request and a cap on the body, and an answer that is
not the JSON it should be is `Unexpected`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

TIMEOUT = 10.0  # seconds, the whole request
MAX_BYTES = 1024 * 1024
PROVIDER = "LibreTranslate"


class TranslationError(Exception):
    """A backend could not translate (TranslationService::Error)."""


class TooManyRequests(TranslationError):
    """The service asks us to slow down (429)."""


class QuotaExceeded(TranslationError):
    """The server-wide quota is spent (LibreTranslate's 403)."""


class Unexpected(TranslationError):
    """Any other failure: unreachable, an error status, an answer that is not one."""


@dataclass(frozen=True)
class Translated:
    text: str
    detected_source_language: str | None
    provider: str


def _call(method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    import urllib3

    http = urllib3.PoolManager(timeout=urllib3.Timeout(total=TIMEOUT), retries=False)
    try:
        response = http.request(method, url, body=json.dumps(body).encode() if body else None,
                                headers={"Content-Type": "application/json",
                                         "Accept": "application/json"},
                                preload_content=False)
        try:
            data = response.read(MAX_BYTES + 1, decode_content=True)
        finally:
            response.release_conn()
    except urllib3.exceptions.HTTPError as exc:
        raise Unexpected(f"{type(exc).__name__}: {exc}") from None
    if response.status == 429:
        raise TooManyRequests()
    if response.status == 403:
        raise QuotaExceeded()
    if not 200 <= response.status < 300 or len(data) > MAX_BYTES:
        raise Unexpected(f"answered {response.status}")
    try:
        return json.loads(data)
    except ValueError:
        raise Unexpected("not JSON") from None


def libretranslate_languages(base_url: str, api_key: str = "") -> dict[str | None, list[str]]:
    """{source: its targets} from GET /languages, and under None every target (for a status
    whose language is not known), as Mastodon builds it."""
    data = _call("GET", f"{base_url}/languages")
    if not isinstance(data, list):
        raise Unexpected("/languages is not a list")
    languages: dict[str | None, list[str]] = {}
    for entry in data:
        if isinstance(entry, dict) and isinstance(entry.get("code"), str):
            targets = entry.get("targets") if isinstance(entry.get("targets"), list) else []
            languages[entry["code"]] = [t for t in targets
                                        if isinstance(t, str) and t != entry["code"]]
    languages[None] = sorted({t for targets in languages.values() for t in targets})
    return languages


def libretranslate(base_url: str, api_key: str, texts: list[str], source: str | None,
                   target: str) -> list[Translated]:
    """POST /translate of HTML texts, one answer per text, in order."""
    data = _call("POST", f"{base_url}/translate", {
        "q": texts, "source": source or "auto", "target": target, "format": "html",
        "api_key": api_key})
    translated = data.get("translatedText") if isinstance(data, dict) else None
    if not isinstance(translated, list) or len(translated) != len(texts) \
            or not all(isinstance(t, str) for t in translated):
        raise Unexpected("translatedText is not one text per text sent")
    detected = data.get("detectedLanguage")
    detected = detected if isinstance(detected, list) else []

    def language(index: int) -> str | None:
        entry = detected[index] if index < len(detected) else None
        found = entry.get("language") if isinstance(entry, dict) else None
        return found if isinstance(found, str) else source

    return [Translated(text, language(n), PROVIDER) for n, text in enumerate(translated)]
