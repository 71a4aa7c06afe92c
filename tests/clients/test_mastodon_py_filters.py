"""Mastodon.py over real HTTP: v2 filters (create with keywords, list, update adding, editing
and deleting keywords in one call, keywords and status filters), the v1 view of them, and the
`filtered` attribute on a timeline."""

from __future__ import annotations


from tests.rig import mastodon_py_users

def test_filters_with_mastodon_py(live_server):
    base = live_server.base_url
    ann, ben = mastodon_py_users(base, "ann", "ben", app="filters test")
    created = ann.create_filter_v2("pets", ["public", "thread"], "warn", keywords_attributes=[
        {"keyword": "cat", "whole_word": True}, {"keyword": "dog", "whole_word": False}])
    assert created.title == "pets" and created.expires_at is None
    assert [(k.keyword, k.whole_word) for k in created.keywords] == \
        [("cat", True), ("dog", False)]
    cat, dog = created.keywords
    updated = ann.update_filter_v2(created, title="animals", keywords_attributes=[
        {"id": cat.id, "keyword": "cats"}, {"id": dog.id, "_destroy": True},
        {"keyword": "parrot", "whole_word": True}])
    assert updated.title == "animals"
    assert [k.keyword for k in updated.keywords] == ["cats", "parrot"]
    assert [f.id for f in ann.filters_v2()] == [created.id]
    assert ann.filter_v2(created.id).title == "animals"
    added = ann.add_filter_keyword_v2(created, "hamster", whole_word=False)
    assert [k.keyword for k in ann.filter_keywords_v2(created)] == ["cats", "parrot", "hamster"]
    ann.delete_filter_keyword_v2(added)
    assert [k.keyword for k in ann.filter_keywords_v2(created)] == ["cats", "parrot"]
    # v1 sees each keyword as a filter.
    assert [(f.phrase, f.context) for f in ann.filters()] == \
        [("cats", ["public", "thread"]), ("parrot", ["public", "thread"])]

    noisy = ben.status_post("My parrot talks")
    quiet = ben.status_post("hello")
    status_filter = ann.add_filter_status_v2(created, quiet)
    assert [s.status_id for s in ann.filter_statuses_v2(created)] == [str(quiet.id)]
    timeline = {s.id: s for s in ann.timeline_public()}
    assert timeline[noisy.id].filtered[0].keyword_matches == ["parrot"]
    assert timeline[quiet.id].filtered[0].status_matches == [str(quiet.id)]
    assert timeline[quiet.id].filtered[0].filter.title == "animals"
    ann.delete_filter_status_v2(status_filter)
    assert ann.filter_statuses_v2(created) == []
    ann.update_filter_v2(created, filter_action="hide")
    assert noisy.id not in {s.id for s in ann.timeline_public()}
    ann.delete_filter_v2(created)
    assert ann.filters_v2() == [] and ann.filters() == []
