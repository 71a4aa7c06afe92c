"""Filters as a viewer sees them applied: the viewer's filters loaded (their entities are
convert/filters.py's), and the matcher compiled once per request from one Query of the viewer's
filter records.

`compiled(account_id, context)` is Mastodon's `CustomFilter.cached_filters_for` +
`apply_cached_filters`: every active (unexpired) filter with a keyword or a status; its keywords
become one case-insensitive pattern (whole words get `\\b` where the keyword starts or ends with
a word character); `Matcher.apply(status)` matches the pattern against the status's searchable
text (spoiler text, text without HTML, poll options, media descriptions — of the boosted status
for a boost) and its status filters against the status's id and the boosted one's. Like Mastodon,
the FilterResult list names every matching filter whatever its context (a client compares
`filter.context` with where it shows the status); a `hide` filter whose context is the request's
removes the status (`hidden`), `warn` and `blur` only mark it. The matching text reported in
`keyword_matches` is the text matched, as Mastodon reports it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from stratus.convert.filters import filter_entity
from stratus.core import clock
from stratus.model.filters import Stored
from stratus.repo import filters as repo

CONTEXTS = ("home", "notifications", "public", "thread", "account")
ACTIONS = ("warn", "hide", "blur")


# --- records -------------------------------------------------------------------------------------
def load(account_id: str, filter_id: str | None = None) -> dict[str, Stored]:
    """The account's filters (or one) with their keywords and statuses, by filter id in id
    order: one Query."""
    found: dict[str, Stored] = {}
    rules: list[dict[str, Any]] = []
    for record in repo.records(account_id, filter_id):
        if record.get("type") == "filter":
            found[record["id"]] = Stored(record, [], [])
        else:
            rules.append(record)
    for record in rules:
        owner = found.get(record.get("filter_id", ""))
        if owner is None:
            continue  # left behind by a deleted filter, on its way out
        (owner.keywords if record["type"] == "filter_keyword" else owner.statuses).append(record)
    for stored in found.values():
        stored.keywords.sort(key=lambda k: int(k["id"]))
        stored.statuses.sort(key=lambda s: int(s["id"]))
    return dict(sorted(found.items(), key=lambda pair: int(pair[0])))


# --- the searchable text of a status ----------------------------------------------------------------
class _Text(HTMLParser):
    """Text of status HTML: line breaks for `<br>` and paragraph ends, entities decoded."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "br":
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "p":
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def plain_text(markup: str) -> str:
    if "<" not in markup and "&" not in markup:
        return markup
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return html.unescape("".join(parser.parts)).strip()


def searchable_text(status: dict[str, Any]) -> str:
    """Mastodon's `Status#searchable_text`: spoiler text, the text, poll options and media
    descriptions."""
    poll = status.get("poll") or {}
    parts = [status.get("spoiler_text") or "", plain_text(status.get("content") or ""),
             "\n\n".join(o.get("title", "") for o in poll.get("options", [])),
             "\n\n".join(m.get("description") or "" for m in status.get("media_attachments", []))]
    return "\n\n".join(p for p in parts if p)


def keyword_pattern(keyword: str, whole_word: bool) -> str:
    """CustomFilterKeyword#to_regex: `\\b` on a side where the keyword has a word character."""
    escaped = re.escape(keyword)
    if not whole_word:
        return escaped
    start = r"\b" if re.match(r"\w", keyword) else ""
    end = r"\b" if re.search(r"\w\Z", keyword) else ""
    return start + escaped + end


# --- the matcher -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """One active filter, compiled."""

    entity: dict[str, Any]  # the Filter as a FilterResult shows it
    action: str
    contexts: frozenset[str]
    pattern: re.Pattern[str] | None
    status_ids: frozenset[str]


class Matcher:
    """The viewer's active filters for one request context (None: mark, never hide)."""

    def __init__(self, rules: list[Rule], context: str | None) -> None:
        self.rules = rules
        self.context = context

    def apply(self, status: dict[str, Any]) -> tuple[bool, list[dict[str, Any]]]:
        """(hidden, the FilterResult list) for a rendered Status; a boost is matched on the
        status it boosts (and its own id)."""
        if not self.rules:
            return False, []
        proper = status.get("reblog") or status
        own_ids = list(dict.fromkeys([status["id"], proper["id"]]))
        text: str | None = None
        hidden = False
        results = []
        for rule in self.rules:
            keyword_matches = None
            if rule.pattern is not None:
                if text is None:
                    text = searchable_text(proper)
                found = rule.pattern.search(text)
                keyword_matches = [found.group(0)] if found else None
            status_matches = [i for i in own_ids if i in rule.status_ids] or None
            if not keyword_matches and not status_matches:
                continue
            results.append({"filter": dict(rule.entity), "keyword_matches": keyword_matches,
                            "status_matches": status_matches})
            hidden = hidden or (rule.action == "hide" and self.context in rule.contexts)
        return hidden, results

    def keep(self, statuses: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The statuses not hidden, each with its `filtered` (a boost's original too): new
        entities, so one rendered for many viewers (a public stream event) is never changed."""
        kept = []
        for status in statuses:
            hidden, results = self.apply(status)
            if hidden:
                continue
            marked = {**status, "filtered": results}
            if status.get("reblog"):
                marked["reblog"] = {**status["reblog"], "filtered": [dict(r) for r in results]}
            kept.append(marked)
        return kept


def compile_rules(stored: dict[str, Stored]) -> list[Rule]:
    now = clock.iso(clock.now())
    rules = []
    for one in stored.values():
        if one.expired(now) or not (one.keywords or one.statuses):
            continue
        pattern = None
        if one.keywords:
            pattern = re.compile("|".join(
                f"(?:{keyword_pattern(k['keyword'], bool(k.get('whole_word', True)))})"
                for k in one.keywords), re.IGNORECASE)
        rules.append(Rule(filter_entity(one, rules=False), one.item.get("filter_action", "warn"),
                          frozenset(one.item.get("context", [])), pattern,
                          frozenset(s["status_id"] for s in one.statuses)))
    return rules


def compiled(account_id: str | None, context: str | None) -> Matcher:
    """The viewer's matcher for a request (one Query; none for an anonymous viewer)."""
    if account_id is None:
        return Matcher([], context)
    return Matcher(compile_rules(load(account_id)), context)
