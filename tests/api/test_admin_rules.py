"""The server rules one at a time: the admin API (Manage Rules, audited) and `stratusctl
rules`, as `/api/v1/instance/rules` and reports then see them."""

from __future__ import annotations

from stratus.read import settings as settings_service

from tests.rig import auth, make_app, make_user, staff_headers, user_token


def _rules(client):
    return [(r["text"], r["hint"]) for r in client.get("/api/v1/instance/rules").json()]


def test_staff_manage_rules(client, entity):
    staff = staff_headers(client)
    made = client.post("/api/v1/admin/rules", headers=staff,
                       json={"text": "Be kind", "hint": "Really"})
    assert made.status_code == 200, made.text
    kind = made.json()
    assert (kind["text"], kind["hint"], kind["priority"], kind["translations"]) == \
        ("Be kind", "Really", 0, {})
    spam = client.post("/api/v1/admin/rules", headers=staff, data={"text": "No spam"}).json()
    assert spam["priority"] == 1
    first = client.post("/api/v1/admin/rules", headers=staff,
                        json={"text": "Read these", "priority": -1}).json()
    assert _rules(client) == [("Read these", ""), ("Be kind", "Really"), ("No spam", "")]
    for rule in client.get("/api/v1/instance/rules").json():
        entity("Rule", rule)
    assert client.get(f"/api/v1/admin/rules/{spam['id']}", headers=staff).json() == spam
    assert [r["id"] for r in client.get("/api/v1/admin/rules", headers=staff).json()] == \
        [first["id"], kind["id"], spam["id"]]
    changed = client.put(f"/api/v1/admin/rules/{spam['id']}", headers=staff,
                         json={"text": "No spam, ever", "priority": 5})
    assert changed.json()["id"] == spam["id"] and changed.json()["text"] == "No spam, ever"
    assert client.delete(f"/api/v1/admin/rules/{first['id']}", headers=staff).json() == {}
    assert _rules(client) == [("Be kind", "Really"), ("No spam, ever", "")]
    assert client.get(f"/api/v1/admin/rules/{first['id']}", headers=staff).status_code == 404
    logged = client.get("/api/v1/admin/action_logs", headers=staff).json()
    assert [(e["action"], e["target_type"]) for e in logged][:2] == \
        [("destroy", "Rule"), ("update", "Rule")]
    assert {e["action"] for e in logged if e["target_type"] == "Rule"} == \
        {"create", "update", "destroy"}


def test_rule_validation(client):
    staff = staff_headers(client)
    blank = client.post("/api/v1/admin/rules", headers=staff, json={"text": " "})
    assert blank.status_code == 422
    assert blank.json()["details"] == {"text": [{"error": "ERR_BLANK",
                                                 "description": "can't be blank"}]}
    long = client.post("/api/v1/admin/rules", headers=staff, json={"text": "x" * 301})
    assert long.status_code == 422
    assert client.put("/api/v1/admin/rules/123", headers=staff, json={"text": "x"}).status_code \
        == 404
    assert client.delete("/api/v1/admin/rules/nope", headers=staff).status_code == 404


def test_rules_need_manage_rules(client):
    app = make_app(client, scopes="read write admin:read admin:write")
    moderator = auth(user_token(app, make_user("mod", role="Moderator"),
                                scopes=("admin:read", "admin:write")))
    plain = auth(user_token(app, make_user("pat"), scopes=("admin:read", "admin:write")))
    assert client.get("/api/v1/admin/rules", headers=plain).status_code == 403
    from stratus.model import roles

    allowed = roles.BY_NAME["moderator"].can(roles.Permission.MANAGE_RULES)
    assert client.get("/api/v1/admin/rules", headers=moderator).status_code == \
        (200 if allowed else 403)


def test_stratusctl_rules(runtime, monkeypatch, capsys):
    from stratusctl import cli

    monkeypatch.setattr(cli, "connect", lambda stack: "a stack")
    assert cli.main(["rules", "add", "Be kind", "--hint", "Really"]) == 0
    rule_id = __import__("json").loads(capsys.readouterr().out)["id"]
    assert cli.main(["rules", "add", "No spam"]) == 0
    assert cli.main(["rules", "update", rule_id, "--priority", "9"]) == 0
    capsys.readouterr()
    assert cli.main(["rules", "list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[2] for line in listed] == ["No spam", "Be kind (Really)"]
    assert cli.main(["rules", "remove", rule_id]) == 0
    assert [r["text"] for r in settings_service.rules()] == ["No spam"]
    assert cli.main(["rules", "remove", rule_id]) == 1
