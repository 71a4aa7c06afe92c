"""The purge (and later domain-block) state machines run end to end on the local stack: the
outbox starts an execution from the request's insert, local/states.py drives the moderation
function through it, and a step killed midway is retried without doing anything twice."""

from __future__ import annotations

import json

from stratus.repo import accounts as accounts_repo
from stratus.repo import base, machines
from stratus.repo import moderation as moderation_repo
from stratus.repo.client import client as aws


def executions(runtime, machine="PurgeAccountStateMachine"):
    arn = runtime.stack.state_machines[machine][0]
    found = aws("stepfunctions").list_executions(stateMachineArn=arn)["executions"]
    return [aws("stepfunctions").describe_execution(executionArn=e["executionArn"])
            for e in found]


def test_a_purge_runs_as_a_state_machine_and_a_killed_step_is_retried(
        client, drain, runtime, purge_world, monkeypatch):
    ids_, h, statuses, other_post = purge_world
    target = ids_["target"]
    client.post(f"/api/v1/admin/accounts/{target}/action", headers=h["admin"],
                data={"type": "suspend"})
    original = base.delete_many
    kills = []

    def killed_midway(item_keys):
        """The step deleting the statuses' bodies dies (a timeout) after half of them."""
        if not kills and item_keys and all(k["SK"] == "STATUS" for k in item_keys):
            original(item_keys[: len(item_keys) // 2])
            kills.append(len(item_keys))
            raise TimeoutError("Task timed out after 60.00 seconds")
        return original(item_keys)

    monkeypatch.setattr(base, "delete_many", killed_midway)
    assert client.delete(f"/api/v1/admin/accounts/{target}", headers=h["admin"]).status_code \
        == 200
    drain()
    assert kills == [25]
    (execution,) = executions(runtime)
    assert execution["status"] == "SUCCEEDED"
    assert json.loads(execution["output"]) == {"step": "purge", "account_id": target,
                                               "done": True, "purged": True}
    for status_id in statuses:
        assert client.get(f"/api/v1/statuses/{status_id}", headers=h["admin"]).status_code \
            == 404
    # Counters others keep went down once each, whatever was retried.
    assert client.get(f"/api/v1/statuses/{other_post}", headers=h["other"]).json()[
        "favourites_count"] == 0
    assert client.get(f"/api/v1/accounts/{ids_['fan']}", headers=h["other"]).json()[
        "following_count"] == 0
    assert client.get(f"/api/v1/accounts/{ids_['other']}", headers=h["other"]).json()[
        "followers_count"] == 0
    assert accounts_repo.USER not in accounts_repo.get_bundle(target)
    assert moderation_repo.get_purge_request(target) is None


def test_a_redelivered_change_starts_no_second_execution(runtime):
    name = machines.execution_name("purge_account", "e1")
    assert machines.start("purge_account", name, {"account_id": "1"}) is True
    runtime.pipeline.drain()
    assert machines.start("purge_account", name, {"account_id": "1"}) is False
    assert len(executions(runtime)) == 1


def test_a_step_that_keeps_failing_fails_the_execution(runtime, monkeypatch):
    from stratus.workers import purge

    def broken(state):
        raise RuntimeError("the table is gone")

    monkeypatch.setattr(purge, "step", broken)
    machines.start("purge_account", "doomed", {"account_id": "1"})
    runtime.pipeline.drain()
    (execution,) = executions(runtime)
    assert execution["status"] == "FAILED" and execution["error"] == "RuntimeError"
    assert "the table is gone" in execution["cause"]


# --- domain blocks: a block's severity acts on every account of the domain ----------------
def profile_of(account_id):
    return accounts_repo.get_profile(account_id)


def test_a_domain_block_moved_from_silence_to_suspend_to_noop(client, runtime, drain,
                                                            monkeypatch):
    from tests.rig import auth, make_app, make_remote_account, make_user, user_token

    staff_app = make_app(client, scopes="read write admin:read admin:write")
    admin = auth(user_token(staff_app, make_user("boss", role="Admin"),
                            scopes=("read", "write", "admin:read", "admin:write")))
    # 120 accounts on the domain (more than one step's page), one on a subdomain, one elsewhere
    on_domain = [make_remote_account("example.net", f"user{n}") for n in range(120)]
    on_sub = make_remote_account("social.example.net", "subby")
    elsewhere = make_remote_account("example.org", "other")
    # A moderator silenced one of them on their own: a domain block does not take that back.
    own = client.post(f"/api/v1/admin/accounts/{on_domain[0]}/action", headers=admin,
                      data={"type": "silence"})
    assert own.status_code == 200
    own_stamp = profile_of(on_domain[0])["silenced_at"]

    domain_steps, kills = [], []
    from stratus.workers import moderation as domain_moderation

    real_apply = domain_moderation.apply

    def killed_once(account_id, **kwargs):
        """The step dies after part of a page (a timeout), once."""
        domain_steps.append(account_id)
        if len(domain_steps) == 50 and not kills:
            kills.append(account_id)
            raise TimeoutError("Task timed out after 60.00 seconds")
        return real_apply(account_id, **kwargs)

    monkeypatch.setattr(domain_moderation, "apply", killed_once)
    created = client.post("/api/v1/admin/domain_blocks", headers=admin,
                          data={"domain": "example.net", "severity": "silence"})
    assert created.status_code == 200, created.text
    block = created.json()
    drain()
    stamp = block["created_at"].replace("Z", "")
    for account_id in on_domain[1:] + [on_sub]:
        profile = profile_of(account_id)
        assert profile["silenced_at"].startswith(stamp[:19]) and "suspended_at" not in profile
    assert profile_of(on_domain[0])["silenced_at"] == own_stamp
    assert "silenced_at" not in profile_of(elsewhere)
    # The step was killed once midway through its page and the page was retried: accounts
    # before the kill were applied twice, with no double effect (checked above).
    assert len(kills) == 1 and len(domain_steps) == 122 + 49

    moved = client.put(f"/api/v1/admin/domain_blocks/{block['id']}", headers=admin,
                       data={"severity": "suspend"})
    assert moved.status_code == 200
    drain()
    for account_id in on_domain[1:] + [on_sub]:
        profile = profile_of(account_id)
        assert "silenced_at" not in profile and profile["suspended_at"].startswith(stamp[:19])
    assert profile_of(on_domain[0])["silenced_at"] == own_stamp  # still the moderator's
    assert profile_of(on_domain[0])["suspended_at"]
    shown = client.get(f"/api/v1/accounts/{on_domain[5]}", headers=admin).json()
    assert shown["suspended"] is True

    client.put(f"/api/v1/admin/domain_blocks/{block['id']}", headers=admin,
               data={"severity": "noop"})
    drain()
    for account_id in on_domain + [on_sub]:
        assert "suspended_at" not in profile_of(account_id)
    assert profile_of(on_domain[0])["silenced_at"] == own_stamp
    assert "silenced_at" not in profile_of(on_domain[1])

    # Deleting a silence block lifts it again.
    client.put(f"/api/v1/admin/domain_blocks/{block['id']}", headers=admin,
               data={"severity": "silence"})
    drain()
    assert profile_of(on_domain[1])["silenced_at"]
    assert client.delete(f"/api/v1/admin/domain_blocks/{block['id']}",
                         headers=admin).status_code == 200
    drain()
    assert "silenced_at" not in profile_of(on_domain[1])
    assert profile_of(on_domain[0])["silenced_at"] == own_stamp
    runs = executions(runtime, "DomainBlockStateMachine")
    assert len(runs) == 5 and {r["status"] for r in runs} == {"SUCCEEDED"}
