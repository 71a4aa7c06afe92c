"""The purge (and later domain-block) state machines run end to end on the local stack: the
outbox starts an execution from the request's insert, local/states.py drives the moderation
function through it, and a step killed midway is retried without doing anything twice."""

from __future__ import annotations

import json

from stratus.repo import accounts as accounts_repo
from stratus.repo import base, machines
from stratus.repo import moderation as moderation_repo
from stratus.repo.client import client as aws
from tests.workers.test_purge_account import app, world  # noqa: F401,F811 - fixtures


def executions(runtime, machine="PurgeAccountStateMachine"):
    arn = runtime.stack.state_machines[machine][0]
    found = aws("stepfunctions").list_executions(stateMachineArn=arn)["executions"]
    return [aws("stepfunctions").describe_execution(executionArn=e["executionArn"])
            for e in found]


def test_a_purge_runs_as_a_state_machine_and_a_killed_step_is_retried(
        client, drain, runtime, world, monkeypatch):  # noqa: F811
    ids_, h, statuses, other_post = world
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
    from stratus.services import purge

    def broken(state):
        raise RuntimeError("the table is gone")

    monkeypatch.setattr(purge, "step", broken)
    machines.start("purge_account", "doomed", {"account_id": "1"})
    runtime.pipeline.drain()
    (execution,) = executions(runtime)
    assert execution["status"] == "FAILED" and execution["error"] == "RuntimeError"
    assert "the table is gone" in execution["cause"]
