"""The words search matches: of account names, of status texts, and of queries — one
tokenisation for what is indexed and what is asked, so they meet (docs/search.md)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

WORD = re.compile(r"\w+", re.UNICODE)
MAX_WORD_LENGTH = 64  # longer runs are cut (a key stays small; a prefix still finds them)
MAX_STATUS_WORDS = 200  # distinct words indexed per status (500 characters hold fewer)


def words(text: str | None) -> list[str]:
    """Distinct words of `text` in order: compatibility-normalised, case-folded runs of letters,
    digits and underscores (`@alice@example.com` → alice, example, com)."""
    if not text:
        return []
    folded = unicodedata.normalize("NFKC", text).casefold()
    return list(dict.fromkeys(w[:MAX_WORD_LENGTH] for w in WORD.findall(folded)))


def account_words(profile: dict[str, Any] | None) -> list[str]:
    """What finds an account: its username, the words of its display name, and for a remote
    account its domain (whole, as Mastodon's text search sees a host name)."""
    if not profile or not profile.get("username"):
        return []
    found = [profile["username"].casefold()[:MAX_WORD_LENGTH],
             *words(profile.get("display_name"))]
    domain = (profile.get("domain") or "").casefold()
    if domain:
        found.append(domain[:MAX_WORD_LENGTH])
    return list(dict.fromkeys(found))


def status_words(status: dict[str, Any] | None) -> set[str]:
    """What finds a status: the words of its text and content warning."""
    if not status:
        return set()
    found = words(status.get("spoiler_text")) + words(status.get("text"))
    return set(list(dict.fromkeys(found))[:MAX_STATUS_WORDS])
