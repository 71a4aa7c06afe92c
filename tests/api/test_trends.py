"""Trends: hashtags and statuses ranked on a schedule with Mastodon's formulas, shown once
allowed, reviewed by staff (approve/reject), and review mail sent once per item."""

from __future__ import annotations

from email import message_from_bytes
from email.policy import default as default_policy

from stratus.read import settings
from stratus.repo import base, keys

from local.lambda_runtime import invoke
from tests.rig import (
    app_token,
    auth,
    deliver_twice,
    dispatch_only,
    make_app,
    make_user,
    post,
    user_token,
)
from tests.rig.sites import article, png


def run(runtime, task):
    """The schedule fires (through the local runtime, under the function's IAM role)."""
    return invoke(runtime.stack, "TrendsScheduleFunction", {"task": task})


def users(client, names, *, discoverable=True):
    app = make_app(client)
    tokens = {}
    for name in names:
        headers = auth(user_token(app, make_user(name), scopes=("read", "write", "follow")))
        if discoverable:
            response = client.patch("/api/v1/accounts/update_credentials", headers=headers,
                                    data={"discoverable": "true"})
            assert response.status_code == 200, response.text
        tokens[name] = headers
    return tokens


def staff(client):
    app = make_app(client, scopes="read write admin:read admin:write")
    admin_id = make_user("boss", role="Admin")
    return admin_id, auth(user_token(app, admin_id, scopes=("read", "write", "admin:read",
                                                           "admin:write")))


def silence(account_id):
    """As a moderator's silence leaves the account (api/admin/moderation.py)."""
    base.update(keys.account_profile(account_id), "SET silenced_at = :t",
                vals={":t": "2026-01-01T00:00:00.000Z"})


def test_a_hashtag_used_by_five_accounts_today_ranks_and_shows_once_approved(
        client, runtime, drain, entity):
    tokens = users(client, [f"u{n}" for n in range(5)])
    for name, headers in tokens.items():
        post(client, headers, status=f"all about #Rising from {name}")
    post(client, tokens["u0"], status="#Rising again: the same account counts once")
    drain()
    assert run(runtime, "refresh")["ranked"]["tags"] == 1
    # Not reviewed, and the instance does not allow trends by default: not shown yet.
    assert client.get("/api/v1/trends/tags").json() == []
    _, admin = staff(client)
    listed = client.get("/api/v1/admin/trends/tags", headers=admin)
    assert listed.status_code == 200
    (tag,) = listed.json()
    assert (tag["name"], tag["trendable"], tag["requires_review"], tag["usable"]) == (
        "rising", False, False, True)
    assert tag["history"][0]["accounts"] == "5" and tag["history"][0]["uses"] == "6"

    approved = client.post(f"/api/v1/admin/trends/tags/{tag['id']}/approve", headers=admin)
    assert approved.status_code == 200 and approved.json()["trendable"] is True
    shown = client.get("/api/v1/trends/tags")
    assert [t["name"] for t in shown.json()] == ["rising"]
    entity("Tag", shown.json()[0])
    # ... and stays so after the next refresh; the deprecated alias answers the same.
    run(runtime, "refresh")
    assert [t["name"] for t in client.get("/api/v1/trends").json()] == ["rising"]

    rejected = client.post(f"/api/v1/admin/trends/tags/{tag['id']}/reject", headers=admin)
    assert rejected.json()["trendable"] is False
    assert client.get("/api/v1/trends/tags").json() == []
    # Each decision is in the moderation log, written with the review itself.
    logged = client.get("/api/v1/admin/action_logs", headers=admin).json()
    assert [(e["action"], e["target_type"], e["target_id"], e["human_identifier"])
            for e in logged] == [("reject", "Tag", tag["id"], "rising"),
                                 ("approve", "Tag", tag["id"], "rising")]


def test_below_the_threshold_and_silenced_accounts_never_trend(client, runtime, drain, people):
    settings.set_value("trendable_by_default", True)
    tokens = users(client, [f"u{n}" for n in range(5)])
    ids_ = {name: client.get("/api/v1/accounts/verify_credentials", headers=h).json()["id"]
            for name, h in tokens.items()}
    silence(ids_["u4"])
    for headers in tokens.values():
        post(client, headers, status="#quiet")
    for headers in list(tokens.values())[:4]:
        post(client, headers, status="#almost")
    drain()
    run(runtime, "refresh")
    # Four accounts is below Mastodon's threshold of five (the silenced fifth does not count).
    assert client.get("/api/v1/trends/tags").json() == []


def test_statuses_trend_on_favourites_and_boosts_when_eligible(client, runtime, drain, people,
                                                                entity):
    settings.set_value("trendable_by_default", True)
    fans = users(client, [f"fan{n}" for n in range(5)])
    authors = users(client, ["star", "shy"])
    authors.update(users(client, ["hidden"], discoverable=False))
    hot = post(client, authors["star"], status="a hot take")
    reply = post(client, authors["star"], status="a reply", in_reply_to_id=hot["id"])
    warned = post(client, authors["star"], status="behind a warning", spoiler_text="cw")
    private = post(client, authors["hidden"], status="undiscoverable author")
    for headers in fans.values():
        for status in (hot, reply, warned, private):
            assert client.post(f"/api/v1/statuses/{status['id']}/favourite",
                               headers=headers).status_code == 200
    quiet = post(client, authors["shy"], status="four likes only")
    for headers in list(fans.values())[:4]:
        client.post(f"/api/v1/statuses/{quiet['id']}/favourite", headers=headers)
    drain()
    assert run(runtime, "refresh")["ranked"]["statuses"] == 1
    found = client.get("/api/v1/trends/statuses")
    assert [s["id"] for s in found.json()] == [hot["id"]]
    entity("Status", found.json()[0])
    # A viewer who blocks the author does not see it.
    alice = people[1]["alice"]
    star_id = hot["account"]["id"]
    client.post(f"/api/v1/accounts/{star_id}/block", headers=alice)
    assert client.get("/api/v1/trends/statuses", headers=alice).json() == []


def test_offset_paging_with_link_headers(client, runtime, drain):
    settings.set_value("trendable_by_default", True)
    tokens = users(client, [f"u{n}" for n in range(5)])
    for headers in tokens.values():
        post(client, headers, status="#one #two #three")
    drain()
    run(runtime, "refresh")
    first = client.get("/api/v1/trends/tags", params={"limit": 2})
    assert len(first.json()) == 2
    assert first.headers["link"] == (
        '<http://localhost:8000/api/v1/trends/tags?limit=2&offset=2>; rel="next"')
    rest = client.get("/api/v1/trends/tags", params={"limit": 2, "offset": 2})
    assert len(rest.json()) == 1 and "link" not in rest.headers
    names = {t["name"] for t in first.json() + rest.json()}
    assert names == {"one", "two", "three"}
    settings.set_value("trends", False)
    assert client.get("/api/v1/trends/tags").json() == []


def test_review_mail_goes_to_reviewers_once_per_item(client, runtime, drain):
    _, admin = staff(client)
    make_user("mod", role="Moderator")  # moderators may review trends too (Manage Taxonomies)
    make_user("nobody")
    tokens = users(client, [f"u{n}" for n in range(5)])
    for headers in tokens.values():
        post(client, headers, status="#fresh")
    drain()
    run(runtime, "refresh")
    assert run(runtime, "review") == {"asked": 1}
    dispatch_only(runtime)
    assert deliver_twice(runtime, "MailerFunction:async") == 1
    deliver_twice(runtime, "EffectsFunction:async")
    drain()
    mails = [message_from_bytes(path.read_bytes(), policy=default_policy)
             for path in runtime.mailbox.collect()]
    assert sorted(m["To"] for m in mails) == ["boss@example.org", "mod@example.org"]
    assert all("#fresh" in m.get_body().get_content() for m in mails)
    # ... and an `admin.trends` notification each, once (the effects job was delivered twice).
    dispatch_only(runtime)
    notes = client.get("/api/v1/notifications", headers=admin).json()
    assert [n["type"] for n in notes].count("admin.trends") == 1
    (notice,) = [n for n in notes if n["type"] == "admin.trends"]
    assert notice["account"]["username"] == "boss" and "status" not in notice
    (tag,) = client.get("/api/v1/admin/trends/tags", headers=admin).json()
    assert tag["requires_review"] is True
    # The next run, and the one after, ask about nothing new.
    run(runtime, "refresh")
    assert run(runtime, "review") == {"asked": 0}
    drain()
    assert runtime.mailbox.collect() == []
    client.post(f"/api/v1/admin/trends/tags/{tag['id']}/approve", headers=admin)
    assert client.get("/api/v1/admin/trends/tags", headers=admin).json()[0][
        "requires_review"] is False


def test_review_routes_need_the_permission(client, people):
    _, tokens = people
    app = make_app(client, scopes="read admin:read admin:write")
    user_id = make_user("plain")
    headers = auth(user_token(app, user_id, scopes=("admin:read", "admin:write")))
    assert client.get("/api/v1/admin/trends/tags", headers=headers).status_code == 403
    assert client.post("/api/v1/admin/trends/statuses/1/approve",
                       headers=headers).status_code == 403
    assert client.get("/api/v1/admin/trends/tags").status_code == 401
    _, admin = staff(client)
    assert client.post("/api/v1/admin/trends/tags/123/approve", headers=admin).status_code == 404
    assert client.post("/api/v1/admin/trends/statuses/99999/reject",
                       headers=admin).status_code == 404
    token = app_token(client, make_app(client))
    assert client.get("/api/v1/trends/tags", headers=auth(token)).status_code == 200


# --- links (issue 12: an article card shared by at least 15 distinct accounts in a day) ----
def test_a_link_trends_at_15_distinct_accounts_and_only_as_an_article(client, runtime, drain,
                                                                      site):
    site.serve("/image.png", png(), "image/png")
    story = site.serve("/story", article("A story"))
    website = site.serve("/home", article("A home page").replace(
        'content="article"', 'content="website"'))
    tokens = users(client, [f"s{n}" for n in range(15)])
    sharers = list(tokens.values())
    for headers in sharers[:14]:
        post(client, headers, status=f"read {story}")
        post(client, headers, status=f"see {website}")
    drain()
    assert run(runtime, "refresh")["ranked"]["links"] == 0  # 14 accounts: below the threshold
    post(client, sharers[14], status=f"me too {story}")
    post(client, sharers[14], status=f"me too {website}")
    drain()
    assert run(runtime, "refresh")["ranked"]["links"] == 1  # the article, not the website
    assert client.get("/api/v1/trends/links").json() == []  # awaiting review

    _, admin = staff(client)
    (listed,) = client.get("/api/v1/admin/trends/links", headers=admin).json()
    assert listed["url"] == story and listed["requires_review"] is False
    (publisher,) = client.get("/api/v1/admin/trends/links/publishers", headers=admin).json()
    assert publisher["domain"] == "127.0.0.1" and publisher["trendable"] is False
    # Approving the publisher lets its links trend.
    approved = client.post(f"/api/v1/admin/trends/links/publishers/{publisher['id']}/approve",
                           headers=admin)
    assert approved.status_code == 200 and approved.json()["trendable"] is True
    (shown,) = client.get("/api/v1/trends/links").json()
    assert shown["url"] == story and shown["title"] == "A story"
    assert (shown["history"][0]["accounts"], shown["history"][0]["uses"]) == ("15", "15")
    # A link rejected on its own stays out, whatever its publisher.
    client.post(f"/api/v1/admin/trends/links/{listed['id']}/reject", headers=admin)
    assert client.get("/api/v1/trends/links").json() == []
    run(runtime, "refresh")
    assert client.get("/api/v1/trends/links").json() == []
    # A link of a domain the instance silences never trends, whatever was approved.
    client.post(f"/api/v1/admin/trends/links/{listed['id']}/approve", headers=admin)
    assert len(client.get("/api/v1/trends/links").json()) == 1
    blocked = client.post("/api/v1/admin/domain_blocks", headers=admin,
                          data={"domain": "127.0.0.1", "severity": "silence"})
    assert blocked.status_code == 200, blocked.text
    run(runtime, "refresh")
    assert client.get("/api/v1/trends/links").json() == []
