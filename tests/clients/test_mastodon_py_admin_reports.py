"""Mastodon.py filing a report and a moderator working it with the `admin_report*` methods:
the `admin.report` notification, the listing and its filters, one report, assignment,
resolving and reopening."""

from __future__ import annotations

from mastodon import Mastodon
from stratus.read import settings

from tests.rig import make_user, mastodon_py_users

STAFF_SCOPES = ["read", "write", "follow", "admin:read", "admin:write"]


def moderator(base_url: str) -> Mastodon:
    make_user("moderator", "moderator@example.org", "moderator password long", role="Moderator")
    client_id, secret = Mastodon.create_app("moderation desk", api_base_url=base_url,
                                            scopes=STAFF_SCOPES)
    api = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base_url)
    api.log_in("moderator@example.org", "moderator password long", scopes=STAFF_SCOPES,
               allow_http=True)
    return api


def test_reports_with_mastodon_py(live_server):
    base = live_server.base_url
    drain = live_server.pipeline.drain
    rules = settings.set_rules([{"text": "No spam"}])
    reporter, spammer, bystander = mastodon_py_users(base, "reporter", "spammer", "bystander",
                                                     app="reports test")
    desk = moderator(base)
    drain()
    desk.notifications_clear()

    spam = spammer.status_post("Buy now!")
    filed = reporter.report(spammer.me(), status_ids=[spam], comment="spam",
                            rule_ids=[rules[0]["id"]])
    assert filed.category == "violation" and filed.rule_ids == [rules[0]["id"]]
    assert filed.status_ids == [spam.id] and filed.target_account.acct == "spammer"
    other = bystander.report(reporter.me(), category="other", comment="just because")
    drain()

    told = desk.notifications(types=["admin.report"])
    assert [n.report.id for n in told] == [other.id, filed.id]
    assert told[1].account.acct == "reporter" and told[1].report.comment == "spam"

    assert [r.id for r in desk.admin_reports()] == [other.id, filed.id]
    assert [r.id for r in desk.admin_reports(account_id=reporter.me())] == [filed.id]
    assert [r.id for r in desk.admin_reports(target_account_id=reporter.me())] == [other.id]
    one = desk.admin_report(filed)
    assert one.account.username == "reporter" and one.target_account.username == "spammer"
    assert [s.id for s in one.statuses] == [spam.id] and one.rules[0].text == "No spam"

    me = desk.me()
    assert desk.admin_report_assign(filed).assigned_account.id == me.id
    assert desk.admin_report_unassign(filed).assigned_account is None
    resolved = desk.admin_report_resolve(filed)
    assert resolved.action_taken and resolved.action_taken_by_account.id == me.id
    assert [r.id for r in desk.admin_reports()] == [other.id]
    assert [r.id for r in desk.admin_reports(resolved=True)] == [filed.id]
    reopened = desk.admin_report_reopen(filed)
    assert not reopened.action_taken and reopened.action_taken_at is None
    assert [r.id for r in desk.admin_reports()] == [other.id, filed.id]
