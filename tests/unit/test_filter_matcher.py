"""The compiled filter matcher, pure: Mastodon's keyword rules (whole words where the keyword
starts or ends with a word character, case-insensitive, the text matched reported), the
searchable text (no HTML, spoiler text, poll options, media descriptions), boosts, contexts,
expiry."""

from __future__ import annotations

from stratus.model.filters import Stored
from stratus.read.filters import Matcher, compile_rules, plain_text


def stored(filter_id, keywords=(), statuses=(), action="warn", context=("home",),
           expires_at=None) -> Stored:
    item = {"id": filter_id, "title": f"f{filter_id}", "context": list(context),
            "filter_action": action, "expires_at": expires_at}
    return Stored(item, [{"id": str(100 + i), "keyword": k, "whole_word": w}
                         for i, (k, w) in enumerate(keywords)],
                  [{"id": str(200 + i), "status_id": s} for i, s in enumerate(statuses)])


def matcher(*filters, context="home") -> Matcher:
    return Matcher(compile_rules({f.id: f for f in filters}), context)


def status(content="", spoiler="", sid="1", **extra) -> dict:
    return {"id": sid, "content": content, "spoiler_text": spoiler, "reblog": None,
            "media_attachments": [], "poll": None, **extra}


def matches(m: Matcher, entity: dict) -> list[list[str] | None]:
    return [r["keyword_matches"] for r in m.apply(entity)[1]]


def test_whole_words_and_case():
    m = matcher(stored("1", [("cat", True)]))
    assert matches(m, status("<p>My Cat sleeps</p>")) == [["Cat"]]
    assert matches(m, status("<p>concatenate cats</p>")) == []
    loose = matcher(stored("1", [("cat", False)]))
    assert matches(loose, status("<p>conCATenate</p>")) == [["CAT"]]
    # No word boundary on a side where the keyword has no word character.
    sign = matcher(stored("1", [("#tag!", True)]))
    assert matches(sign, status("<p>x#tag!y</p>")) == [["#tag!"]]
    assert matches(matcher(stored("1", [("über", True)])), status("Ein Übermensch")) == []
    assert matches(matcher(stored("1", [("über", True)])), status("Ein ÜBER Mensch")) == [["ÜBER"]]


def test_searchable_text_not_html():
    m = matcher(stored("1", [("href", False), ("a & b", True)]))
    assert matches(m, status('<p><a href="https://x.example/">link</a></p>')) == []
    assert matches(m, status("<p>a &amp; b</p>")) == [["a & b"]]
    assert plain_text("<p>one<br>two</p><p>three</p>") == "one\ntwo\n\nthree"
    m = matcher(stored("1", [("secret", True)]))
    assert matches(m, status(spoiler="Secret stuff")) == [["Secret"]]
    assert matches(m, status(poll={"options": [{"title": "a secret"}]})) == [["secret"]]
    assert matches(m, status(media_attachments=[{"description": "SECRET photo"}])) == \
        [["SECRET"]]


def test_boosts_status_filters_and_results():
    original = status("<p>boring</p>", sid="5")
    boost = status(sid="6", reblog=original)
    m = matcher(stored("1", statuses=["5"]), stored("2", [("boring", True)], action="hide"))
    hidden, results = m.apply(boost)
    assert hidden is True
    assert results == [
        {"filter": {"id": "1", "title": "f1", "context": ["home"], "expires_at": None,
                    "filter_action": "warn"}, "keyword_matches": None, "status_matches": ["5"]},
        {"filter": {"id": "2", "title": "f2", "context": ["home"], "expires_at": None,
                    "filter_action": "hide"}, "keyword_matches": ["boring"],
         "status_matches": None}]
    kept = m.keep([status("<p>fine</p>", sid="7"), boost])
    assert [s["id"] for s in kept] == ["7"] and kept[0]["filtered"] == []


def test_contexts_expiry_and_empty_filters():
    hide = stored("1", [("x", True)], action="hide", context=("public",))
    assert matcher(hide, context="home").apply(status("x"))[0] is False
    assert matcher(hide, context="public").apply(status("x"))[0] is True
    assert matcher(hide, context=None).apply(status("x")) == \
        (False, matcher(hide).apply(status("x"))[1])
    blur = stored("1", [("x", True)], action="blur", context=("public",))
    assert matcher(blur, context="public").apply(status("x"))[0] is False
    expired = stored("1", [("x", True)], expires_at="2020-01-01T00:00:00.000Z")
    assert matcher(expired).apply(status("x")) == (False, [])
    future = stored("1", [("x", True)], expires_at="2999-01-01T00:00:00.000Z")
    assert matches(matcher(future), status("x")) == [["x"]]
    assert matcher(stored("1")).rules == []
