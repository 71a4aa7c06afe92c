"""Mastodon.py over real HTTP: featured hashtags (create, list, suggestions, an account's,
delete), follow suggestions (v2, v1, dismissing one) and the profile directory."""

from __future__ import annotations

from stratus.read import settings as settings_service

from tests.rig import mastodon_py_users


def test_profiles_with_mastodon_py(live_server):
    base = live_server.base_url
    ann, ben, cat = mastodon_py_users(base, "ann", "ben", "cat", app="profiles test")

    ann.status_post("knitting again #Knitting #yarn")
    ann.status_post("more #knitting", visibility="unlisted")
    live_server.pipeline.drain()
    assert [t.name for t in ann.featured_tag_suggestions()] == ["knitting", "yarn"]
    knitting = ann.featured_tag_create("Knitting")
    assert knitting.name == "Knitting" and knitting.statuses_count == "2"
    assert knitting.url == f"{base}/@ann/tagged/knitting"
    assert [t.id for t in ann.featured_tags()] == [knitting.id]
    assert [t.name for t in ann.featured_tag_suggestions()] == ["yarn"]
    assert [t.name for t in ben.account_featured_tags(ann.me().id)] == ["Knitting"]
    ann.featured_tag_delete(knitting.id)
    assert ann.featured_tags() == []

    for api in (ann, ben, cat):
        api.account_update_credentials(discoverable=True)
    ben.status_post("ben is around")
    cat.status_post("cat too")
    ann.account_follow(cat.me().id)
    ben.account_follow(cat.me().id)
    settings_service.set_value("bootstrap_timeline_accounts", "ben")
    live_server.pipeline.drain()
    [staff] = ann.suggestions_v2()
    assert (staff.account.acct, staff.sources, staff.source) == ("ben", ["featured"], "staff")
    assert [a.acct for a in ann.suggestions()] == ["ben"]
    assert [a.acct for a in ann.suggestions_v1()] == ["ben"]
    # ann follows cat; cat is popular for ben too, who follows her: ben gets nothing else.
    assert [s.account.acct for s in ben.suggestions_v2()] == []
    ann.suggestion_delete(ben.me().id)
    assert ann.suggestions_v2() == []

    assert [a.acct for a in ann.directory(order="new")] == ["cat", "ben", "ann"]
    assert [a.acct for a in ann.directory(order="active", local=True, limit=2)] == ["cat", "ben"]
    assert [a.acct for a in ann.directory(offset=2)] == ["ann"]
