"""Translations: Amazon Translate (the AWS-native backend; read/translation.py chooses it or a
LibreTranslate-compatible server, core/translation.py) and the translations already made,
kept for a day per status version and target language (Mastodon caches them a day too), so
asking again costs one read, not another translation.

HTML (a status's content) goes through TranslateDocument as `text/html`, which keeps the markup
(mentions, links, paragraphs); the other texts through TranslateText. Amazon Translate's own
answers become core/translation's: throttling is `TooManyRequests`, a spent quota or a
refused language pair `QuotaExceeded` / `Unexpected`."""

from __future__ import annotations

from typing import Any

from stratus.core.translation import (
    QuotaExceeded,
    TooManyRequests,
    Translated,
    Unexpected,
)
from stratus.repo import base, keys
from stratus.repo.client import client

PROVIDER = "Amazon Translate"
CACHE_TTL = 86400


def _amazon(call: str, **kwargs: Any) -> dict[str, Any]:
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return getattr(client("translate"), call)(**kwargs)
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code in ("TooManyRequestsException", "ThrottlingException"):
            raise TooManyRequests() from None
        if code in ("LimitExceededException", "ServiceQuotaExceededException"):
            raise QuotaExceeded() from None
        raise Unexpected(code or "ClientError") from None
    except BotoCoreError as exc:
        raise Unexpected(type(exc).__name__) from None


def amazon_languages() -> dict[str | None, list[str]]:
    """Every language Amazon Translate knows, each to every other (and None: to all)."""
    codes: list[str] = []
    token = None
    while True:
        page = _amazon("list_languages", **({"NextToken": token} if token else {}))
        codes += [entry["LanguageCode"] for entry in page.get("Languages", [])
                  if entry.get("LanguageCode") and entry["LanguageCode"] != "auto"]
        token = page.get("NextToken")
        if not token:
            break
    languages: dict[str | None, list[str]] = {c: [t for t in codes if t != c] for c in codes}
    languages[None] = sorted(codes)
    return languages


def amazon_translate(texts: list[tuple[str, bool]], source: str | None, target: str
                     ) -> list[Translated]:
    """Each (text, is_html) in `source` (None: detected) to `target`."""
    answers = []
    for text, is_html in texts:
        if is_html:
            found = _amazon("translate_document", Document={
                "Content": text.encode("utf-8"), "ContentType": "text/html"},
                SourceLanguageCode=source or "auto", TargetLanguageCode=target)
            content = found.get("TranslatedDocument", {}).get("Content", b"")
            translated = content.decode("utf-8") if isinstance(content, bytes) else str(content)
        else:
            found = _amazon("translate_text", Text=text, SourceLanguageCode=source or "auto",
                            TargetLanguageCode=target)
            translated = found.get("TranslatedText", "")
        answers.append(Translated(translated, found.get("SourceLanguageCode") or source,
                                  PROVIDER))
    return answers


# --- translations made ------------------------------------------------------------------------
def cached(status_id: str, version: str, target: str) -> dict[str, Any] | None:
    """A translation made of this version of the status into `target`, if still kept."""
    item = base.record(base.get(keys.status_translation(status_id, version, target)))
    return item.get("translation") if item else None


def keep(status_id: str, version: str, target: str, translation: dict[str, Any],
         now_epoch: int) -> None:
    base.put({**keys.status_translation(status_id, version, target), "type": "translation",
              "translation": translation, "ttl": now_epoch + CACHE_TTL})
