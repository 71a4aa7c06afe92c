"""Reports: filing one (who and what may be reported, categories and rules, the comment), the
`admin.report` notifications staff get (once, only those who may manage reports, not again
while the account has an unresolved report), and the staff API (listing filters and pages,
one report, update, assignment, resolve and reopen, permissions, the audit log)."""

from __future__ import annotations

import pytest
from stratus.api.accounts import accounts
from stratus.api.graph import reports
from stratus.core import clock
from stratus.model.roles import Permission
from stratus.read import settings
from stratus.repo import audit, base, keys

from tests.rig import auth, deliver_twice, dispatch_only, make_app, make_user, post, user_token

ADMIN_SCOPES = ("read", "write", "admin:read", "admin:write")


@pytest.fixture
def app(client):
    return make_app(client, scopes="read write follow admin:read admin:write")


@pytest.fixture
def staff(app):
    """An Owner and a Moderator (both may manage reports): {name: (id, auth headers)}."""
    found = {}
    for name, role in (("owner", "Owner"), ("mod", "Moderator")):
        account_id = make_user(name, role=role)
        found[name] = (account_id, auth(user_token(app, account_id, scopes=ADMIN_SCOPES)))
    return found


@pytest.fixture
def rules():
    return settings.set_rules([{"text": "Be kind"}, {"text": "No spam"}])


def report(client, headers, status=200, path="/api/v1/reports", **data):
    response = client.post(path, headers=headers, json=data)
    assert response.status_code == status, response.text
    return response.json()


def same_report(shown, filed):
    """The same Report (its target's counters may have moved on since it was filed)."""
    without = lambda r: {k: v for k, v in r.items() if k != "target_account"}  # noqa: E731
    return without(shown) == without(filed) and \
        shown["target_account"]["id"] == filed["target_account"]["id"]


def notes(client, headers, query=""):
    response = client.get("/api/v1/notifications" + query, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def admin_list(client, headers, query="", status=200):
    response = client.get("/api/v1/admin/reports" + query, headers=headers)
    assert response.status_code == status, response.text
    return response


def listed(client, headers, query=""):
    return [r["id"] for r in admin_list(client, headers, query).json()]


# --- filing ------------------------------------------------------------------------------------
def test_filing_returns_the_report(client, people, entity):
    ids_, tokens = people
    status = post(client, tokens["bob"], status="buy my stuff")
    body = report(client, tokens["alice"], account_id=ids_["bob"], status_ids=[status["id"]],
                  comment="spammer", category="spam", forward=True)
    entity("Report", body)
    assert body["category"] == "spam" and body["comment"] == "spammer"
    assert body["status_ids"] == [status["id"]] and body["rule_ids"] is None
    assert body["action_taken"] is False and body["action_taken_at"] is None
    assert body["forwarded"] is False  # a local account: nothing to forward to
    assert body["target_account"]["id"] == ids_["bob"]
    # Defaults: category other, empty comment, no statuses. Mastodon.py posts to `reports/`.
    plain = report(client, tokens["carol"], path="/api/v1/reports/", account_id=ids_["bob"])
    assert (plain["category"], plain["comment"], plain["status_ids"]) == ("other", "", [])
    # Form-encoded, as most clients send it.
    response = client.post("/api/v1/reports", headers=tokens["dave"],
                           data={"account_id": ids_["bob"], "status_ids[]": status["id"]})
    assert response.status_code == 200 and response.json()["status_ids"] == [status["id"]]


def test_only_existing_available_accounts_can_be_reported(client, people):
    ids_, tokens = people
    assert report(client, tokens["alice"], 404, account_id="12345")["error"]
    report(client, tokens["alice"], 404, account_id="not-an-id")
    report(client, tokens["alice"], 404)  # no account_id at all (Account.find(nil))
    pending = make_user("pending", approved=False)
    report(client, tokens["alice"], 404, account_id=pending)
    base.update(keys.account_profile(ids_["bob"]), "SET suspended_at = :at",
                vals={":at": clock.iso(clock.now())})
    report(client, tokens["alice"], 404, account_id=ids_["bob"])


def test_reported_statuses_must_be_the_accounts_and_visible_to_the_reporter(client, people):
    ids_, tokens = people
    public = post(client, tokens["bob"], status="public")
    private = post(client, tokens["bob"], status="followers only", visibility="private")
    carols = post(client, tokens["carol"], status="not bob's")
    alice, bob = ids_["alice"], ids_["bob"]
    report(client, tokens["alice"], 404, account_id=bob, status_ids=[public["id"], carols["id"]])
    report(client, tokens["alice"], 404, account_id=bob, status_ids=[private["id"]])
    report(client, tokens["alice"], 404, account_id=bob, status_ids=["999999"])
    report(client, tokens["alice"], 404, account_id=bob, status_ids=["x"])
    assert client.post(f"/api/v1/accounts/{bob}/follow", headers=tokens["alice"]).status_code \
        == 200
    body = report(client, tokens["alice"], account_id=bob,
                  status_ids=[private["id"], public["id"], public["id"]])
    assert body["status_ids"] == [private["id"], public["id"]]
    # bob blocks alice: she no longer sees his statuses, so cannot attach them.
    client.post(f"/api/v1/accounts/{alice}/block", headers=tokens["bob"])
    report(client, tokens["alice"], 404, account_id=bob, status_ids=[public["id"]])
    report(client, tokens["alice"], account_id=bob)


def test_rules_make_a_violation_and_must_exist(client, people, rules):
    ids_, tokens = people
    bob = ids_["bob"]
    body = report(client, tokens["alice"], account_id=bob, category="spam",
                  rule_ids=[rules[1]["id"]])
    assert body["category"] == "violation" and body["rule_ids"] == [rules[1]["id"]]
    invalid = "Validation failed: Rule ids does not reference valid rules"
    assert report(client, tokens["alice"], 422, account_id=bob,
                  rule_ids=[rules[0]["id"], "424242"])["error"] == invalid
    assert report(client, tokens["alice"], 422, account_id=bob,
                  rule_ids=[rules[0]["id"], rules[0]["id"]])["error"] == invalid
    assert report(client, tokens["alice"], 422, account_id=bob,
                  category="violation")["error"] == invalid
    assert report(client, tokens["alice"], 422, account_id=bob,
                  category="bogus")["error"].startswith("Validation failed: Category")


def test_comment_limit_and_scope(client, people):
    ids_, tokens = people
    report(client, tokens["alice"], account_id=ids_["bob"], comment="é" * 1000)
    assert report(client, tokens["alice"], 422, account_id=ids_["bob"], comment="é" * 1001
                  )["error"] == \
        "Validation failed: Comment is too long (maximum is 1000 characters)"
    reader = auth(user_token(make_app(client), ids_["alice"], scopes=("read",)))
    report(client, reader, 403, account_id=ids_["bob"])
    report(client, {}, 401, account_id=ids_["bob"])


def test_filing_is_rate_limited_per_account(client, people, monkeypatch):
    from stratus.http import ratelimit

    ids_, tokens = people
    monkeypatch.setattr(ratelimit, "REPORTS", ratelimit.Limit("reports", 2, 24 * 60 * 60))
    first = client.post("/api/v1/reports", headers=tokens["alice"],
                        json={"account_id": ids_["bob"]})
    assert first.headers["X-RateLimit-Limit"] == "2"
    report(client, tokens["alice"], account_id=ids_["bob"])
    assert report(client, tokens["alice"], 429, account_id=ids_["bob"])["error"] == \
        "Too many requests"
    report(client, tokens["carol"], account_id=ids_["bob"])  # per account


# --- admin.report notifications ------------------------------------------------------------------
def test_staff_who_manage_reports_are_told_once_per_open_account(client, people, staff, drain,
                                                                 entity):
    ids_, tokens = people
    owner, mod = staff["owner"][1], staff["mod"][1]
    # A staff role without Manage Reports (custom, Manage Users only) hears nothing.
    base.put({**keys.role("77"), "type": "role", "id": "77", "name": "Greeter", "color": "",
              "position": 5, "highlighted": False, "permissions": Permission.MANAGE_USERS})
    data = accounts.NewAccount(username="greeter", email="greeter@example.org",
                               password="correct horse battery")
    items = accounts.new_account_items(data, approved=True, confirmed=True, role_id="77")
    base.transact(accounts.create_ops(*items))
    greeter = auth(user_token(make_app(client), items[0]["id"]))
    drain()
    for headers in (owner, mod, greeter):
        client.post("/api/v1/notifications/clear", headers=headers)

    status = post(client, tokens["bob"], status="rude")
    filed = report(client, tokens["alice"], account_id=ids_["bob"], status_ids=[status["id"]],
                   comment="rude")
    drain()
    for headers in (owner, mod):
        [note] = notes(client, headers)
        entity("Notification", note)
        assert note["type"] == "admin.report" and note["account"]["id"] == ids_["alice"]
        assert same_report(note["report"], filed)
        entity("Report", note["report"])
    assert notes(client, greeter) == [] and notes(client, tokens["bob"]) == []
    assert notes(client, tokens["alice"]) == []

    # Grouped notifications (v2) carry the report too.
    grouped = client.get("/api/v2/notifications", headers=mod).json()
    entity("GroupedNotificationsResults", grouped)
    [group] = grouped["notification_groups"]
    assert group["type"] == "admin.report" and same_report(group["report"], filed)
    assert [a["id"] for a in grouped["accounts"]] == [ids_["alice"]]

    # Another report against bob while the first is open: no new notification (Mastodon's
    # unresolved siblings); a report against someone else is told.
    report(client, tokens["carol"], account_id=ids_["bob"])
    report(client, tokens["carol"], account_id=ids_["dave"])
    drain()
    assert [n["report"]["target_account"]["id"] for n in notes(client, mod)] == \
        [ids_["dave"], ids_["bob"]]
    # Once bob's reports are resolved, a new one is told again.
    for open_report in admin_list(client, mod, f"?target_account_id={ids_['bob']}").json():
        client.post(f"/api/v1/admin/reports/{open_report['id']}/resolve", headers=mod)
    report(client, tokens["dave"], account_id=ids_["bob"])
    drain()
    assert len(notes(client, mod)) == 3


def test_a_staff_reporter_is_not_told_of_their_own_report(client, people, staff, drain):
    ids_, tokens = people
    drain()
    owner_id, owner = staff["owner"]
    mod_id, mod = staff["mod"]
    client.post("/api/v1/notifications/clear", headers=owner)
    client.post("/api/v1/notifications/clear", headers=mod)
    report(client, mod, account_id=ids_["bob"])
    drain()
    assert notes(client, mod) == []
    assert [n["account"]["id"] for n in notes(client, owner)] == [mod_id]


def test_a_redelivered_job_notifies_once(client, people, staff, runtime, drain):
    ids_, tokens = people
    drain()
    mod = staff["mod"][1]
    client.post("/api/v1/notifications/clear", headers=mod)
    report(client, tokens["alice"], account_id=ids_["bob"])
    dispatch_only(runtime)
    assert deliver_twice(runtime, "EffectsFunction:async") >= 1
    drain()
    assert [n["type"] for n in notes(client, mod)] == ["admin.report"]


# --- the staff API -------------------------------------------------------------------------------
def test_admin_report_entity(client, people, staff, rules, entity):
    ids_, tokens = people
    status = post(client, tokens["bob"], status="against the rules")
    filed = report(client, tokens["alice"], account_id=ids_["bob"], status_ids=[status["id"]],
                   rule_ids=[rules[0]["id"]], comment="see rule 1")
    mod = staff["mod"][1]
    response = client.get(f"/api/v1/admin/reports/{filed['id']}", headers=mod)
    assert response.status_code == 200, response.text
    body = response.json()
    entity("AdminReport", body)
    assert body["id"] == filed["id"] and body["category"] == "violation"
    assert body["account"]["id"] == ids_["alice"] and body["account"]["email"]
    assert body["target_account"]["username"] == "bob"
    assert body["assigned_account"] is None and body["action_taken_by_account"] is None
    assert [s["id"] for s in body["statuses"]] == [status["id"]]
    assert body["rules"] == [{"id": rules[0]["id"], "text": "Be kind", "hint": "",
                              "translations": {}}]
    assert body["updated_at"] == body["created_at"] == filed["created_at"]
    assert client.get("/api/v1/admin/reports/424242", headers=mod).status_code == 404
    assert client.get("/api/v1/admin/reports/nope", headers=mod).status_code == 404


def test_listing_filters_and_pages(client, people, staff):
    ids_, tokens = people
    mod = staff["mod"][1]
    a_b = report(client, tokens["alice"], account_id=ids_["bob"])["id"]
    a_c = report(client, tokens["alice"], account_id=ids_["carol"])["id"]
    d_b = report(client, tokens["dave"], account_id=ids_["bob"])["id"]
    c_b = report(client, tokens["carol"], account_id=ids_["bob"])["id"]
    assert listed(client, mod) == [c_b, d_b, a_c, a_b]  # unresolved, newest first
    client.post(f"/api/v1/admin/reports/{d_b}/resolve", headers=mod)
    assert listed(client, mod) == [c_b, a_c, a_b]
    assert listed(client, mod, "?resolved=true") == [d_b]
    assert listed(client, mod, "?resolved=false") == [c_b, a_c, a_b]
    assert listed(client, mod, f"?account_id={ids_['alice']}") == [a_c, a_b]
    assert listed(client, mod, f"?target_account_id={ids_['bob']}") == [c_b, a_b]
    assert listed(client, mod, f"?target_account_id={ids_['bob']}&resolved=1") == [d_b]
    assert listed(client, mod,
                  f"?account_id={ids_['alice']}&target_account_id={ids_['bob']}") == [a_b]
    assert listed(client, mod, "?account_id=nope") == []
    first = admin_list(client, mod, "?limit=2")
    assert [r["id"] for r in first.json()] == [c_b, a_c]
    link = first.headers["link"]
    next_url = link.split(";")[0].strip("<>").removeprefix("http://localhost:8000")
    assert [r["id"] for r in client.get(next_url, headers=mod).json()] == [a_b]
    newer = admin_list(client, mod, f"?min_id={a_b}&limit=1").json()
    assert [r["id"] for r in newer] == [a_c]


def test_assign_resolve_reopen_and_the_audit_log(client, people, staff, entity):
    ids_, tokens = people
    mod_id, mod = staff["mod"]
    owner_id, owner = staff["owner"]
    report_id = report(client, tokens["alice"], account_id=ids_["bob"])["id"]
    base_path = f"/api/v1/admin/reports/{report_id}"

    assigned = client.post(f"{base_path}/assign_to_self", headers=mod).json()
    entity("AdminReport", assigned)
    assert assigned["assigned_account"]["id"] == mod_id
    assert client.post(f"{base_path}/unassign", headers=mod).json()["assigned_account"] is None

    resolved = client.post(f"{base_path}/resolve", headers=owner).json()
    entity("AdminReport", resolved)
    assert resolved["action_taken"] is True and resolved["action_taken_at"]
    assert resolved["action_taken_by_account"]["id"] == owner_id
    assert resolved["updated_at"] >= resolved["created_at"]
    reopened = client.post(f"{base_path}/reopen", headers=mod).json()
    assert reopened["action_taken"] is False and reopened["action_taken_at"] is None
    assert reopened["action_taken_by_account"] is None
    assert listed(client, mod) == [report_id]

    logged = sorted(audit.by_target("Report", report_id), key=lambda e: int(e["id"]))
    assert [(e["action"], e["account_id"]) for e in logged] == [
        ("assigned_to_self", mod_id), ("unassigned", mod_id), ("resolve", owner_id),
        ("reopen", mod_id)]
    assert {e["human_identifier"] for e in logged} == {report_id}
    for action in ("assign_to_self", "unassign", "resolve", "reopen"):
        assert client.post(f"/api/v1/admin/reports/424242/{action}",
                           headers=mod).status_code == 404


def test_update_category_and_rules(client, people, staff, rules):
    ids_, tokens = people
    mod_id, mod = staff["mod"]
    report_id = report(client, tokens["alice"], account_id=ids_["bob"])["id"]
    path = f"/api/v1/admin/reports/{report_id}"

    def put(status=200, **data):
        response = client.put(path, headers=mod, json=data)
        assert response.status_code == status, response.text
        return response.json()

    assert put(category="spam")["category"] == "spam"
    assert put(422, category="spam", rule_ids=[rules[0]["id"]])["error"] == \
        "Validation failed: Rule ids must be blank"
    assert put(422, category="violation")["error"] == \
        "Validation failed: Rule ids does not reference valid rules"
    assert put(422, category="violation", rule_ids=["424242"])["error"] == \
        "Validation failed: Rule ids does not reference valid rules"
    assert put(422, category="nonsense")["error"].startswith("Validation failed: Category")
    updated = put(category="violation", rule_ids=[rules[1]["id"]])
    assert updated["category"] == "violation"
    assert [r["id"] for r in updated["rules"]] == [rules[1]["id"]]
    # Leaving a violation needs the rules cleared too (Mastodon validates the change).
    put(422, category="other")
    cleared = put(category="other", rule_ids=[])
    assert cleared["category"] == "other" and cleared["rules"] == []
    assert [e["action"] for e in audit.by_target("Report", report_id)].count("update") == 3
    assert client.put("/api/v1/admin/reports/424242", headers=mod,
                      json={"category": "spam"}).status_code == 404


def test_staff_routes_need_manage_reports_and_admin_scopes(client, people, staff, app):
    ids_, tokens = people
    report_id = report(client, tokens["alice"], account_id=ids_["bob"])["id"]
    user = auth(user_token(app, ids_["carol"], scopes=ADMIN_SCOPES))
    mod_id = staff["mod"][0]
    read_only = auth(user_token(app, mod_id, scopes=("admin:read:reports",)))
    other_scope = auth(user_token(app, mod_id, scopes=("admin:read:accounts",
                                                       "admin:write:accounts")))
    path = f"/api/v1/admin/reports/{report_id}"
    calls = [("get", "/api/v1/admin/reports"), ("get", path), ("put", path),
             *(("post", f"{path}/{a}") for a in ("assign_to_self", "unassign", "resolve",
                                                 "reopen"))]
    for method, url in calls:
        denied = getattr(client, method)(url, headers=user)
        assert denied.status_code == 403, url
        assert denied.json() == {"error": "This action is not allowed"}
        assert getattr(client, method)(url, headers=other_scope).status_code == 403, url
        expected = 200 if method == "get" else 403
        assert getattr(client, method)(url, headers=read_only).status_code == expected, url


# --- the hook for account actions ----------------------------------------------------------------
def test_resolve_returns_the_writes_for_the_callers_transaction(client, people, staff):
    from stratus.auth import identity

    ids_, tokens = people
    mod_id, mod = staff["mod"]
    report_id = report(client, tokens["alice"], account_id=ids_["bob"])["id"]
    actor = identity.viewer_for_token(mod["Authorization"].split()[1])
    ops = reports.resolve(actor, report_id)
    assert listed(client, mod) == [report_id]  # nothing written yet
    base.transact(ops)
    resolved = client.get(f"/api/v1/admin/reports/{report_id}", headers=mod).json()
    assert resolved["action_taken"] is True
    assert resolved["action_taken_by_account"]["id"] == mod_id
    assert [e["action"] for e in audit.by_target("Report", report_id)] == ["resolve"]
    assert reports.unresolved_against(ids_["bob"]) == []
    base.transact(reports.resolve(actor, report_id, action_taken=False))
    assert reports.unresolved_against(ids_["bob"]) == [report_id]
    with pytest.raises(Exception) as missing:
        reports.resolve(actor, "424242")
    assert getattr(missing.value, "status", None) == 404


# --- resolved by an account action (issue 11: Admin::AccountAction#process_reports!) ---------
def test_an_account_action_resolves_the_reports_against_the_account(client, people, staff):
    ids_, tokens = people
    _, owner = staff["owner"]
    first = report(client, tokens["alice"], account_id=ids_["dave"], comment="one")
    second = report(client, tokens["bob"], account_id=ids_["dave"], comment="two")
    other = report(client, tokens["alice"], account_id=ids_["carol"], comment="else")
    # A warning with report_id resolves only that report ...
    warned = client.post(f"/api/v1/admin/accounts/{ids_['dave']}/action", headers=owner,
                         data={"type": "none", "report_id": first["id"], "text": "careful"})
    assert warned.status_code == 200, warned.text
    assert set(listed(client, owner)) == {second["id"], other["id"]}
    # ... any other action resolves every open report against the account, and logs it.
    silenced = client.post(f"/api/v1/admin/accounts/{ids_['dave']}/action", headers=owner,
                           data={"type": "silence"})
    assert silenced.status_code == 200, silenced.text
    assert listed(client, owner) == [other["id"]]
    shown = client.get(f"/api/v1/admin/reports/{second['id']}", headers=owner).json()
    assert shown["action_taken"] is True and shown["action_taken_by_account"]["id"] == \
        staff["owner"][0]
    logged = [e["action"] for e in client.get("/api/v1/admin/action_logs", headers=owner).json()]
    assert logged.count("resolve") == 2 and "silence" in logged
    missing = client.post(f"/api/v1/admin/accounts/{ids_['carol']}/action", headers=owner,
                          data={"type": "none", "report_id": "12345"})
    assert missing.status_code == 404
