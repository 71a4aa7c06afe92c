"""Purging a suspended account: DELETE /api/v1/admin/accounts/:id records
the request; the moderation function's steps (driven here in a loop, as the purge state
machine drives them) delete everything of the account, each step idempotent."""

from __future__ import annotations

import importlib.util
import json
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from stratus.repo import accounts as accounts_repo
from stratus.repo import audit
from stratus.repo import moderation as moderation_repo

from local.lambda_runtime import isolated

ROOT = Path(__file__).resolve().parents[2]
SCOPES = ("read", "write", "follow", "admin:read", "admin:write")


def _handler():
    path = ROOT / "functions" / "workers" / "moderation" / "app.py"
    spec = importlib.util.spec_from_file_location("moderation_worker_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return isolated(module.handler)  # its log keys stay in each call (tests/local/test_logging.py)


def _context():
    return SimpleNamespace(function_name="ModerationFunction", function_version="$LATEST",
                           invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:"
                                                "function:ModerationFunction",
                           memory_limit_in_mb=512, aws_request_id=str(uuid.uuid4()),
                           log_group_name="/aws/lambda/ModerationFunction",
                           log_stream_name="local",
                           get_remaining_time_in_millis=lambda: 60_000)


def run_machine(account_id: str, *, twice: bool = False, limit: int = 200) -> list[dict]:
    """Run the steps as the state machine does (Task → Choice until done); `twice`: every
    step runs a second time with the same input (a retry after a lost response)."""
    handler = _handler()
    state = {"job": "purge_account", "event_id": "e1", "account_id": account_id}
    seen = []
    for _ in range(limit):
        result = handler(json.loads(json.dumps(state)), _context())
        if twice:
            again = handler(json.loads(json.dumps(state)), _context())
            assert again["done"] == result["done"]
        seen.append(result)
        if result["done"]:
            return seen
        state = result
    raise AssertionError("the purge did not finish")


def test_suspend_unsuspend_then_purge(client, drain, purge_world):
    ids_, h, statuses, other_post = purge_world
    target = ids_["target"]
    # Not suspended: no purge.
    assert client.delete(f"/api/v1/admin/accounts/{target}", headers=h["admin"]).status_code \
        == 403
    client.post(f"/api/v1/admin/accounts/{target}/action", headers=h["admin"],
                data={"type": "suspend"})
    client.post(f"/api/v1/admin/accounts/{target}/unsuspend", headers=h["admin"])
    # Unsuspended within the grace period: everything is back.
    assert client.get(f"/api/v1/statuses/{statuses[0]}", headers=h["other"]).status_code == 200
    assert client.get(f"/api/v1/statuses/{other_post}", headers=h["other"]).json()[
        "favourites_count"] == 1
    assert client.delete(f"/api/v1/admin/accounts/{target}", headers=h["admin"]).status_code \
        == 403
    client.post(f"/api/v1/admin/accounts/{target}/action", headers=h["admin"],
                data={"type": "suspend"})
    response = client.delete(f"/api/v1/admin/accounts/{target}", headers=h["admin"])
    assert response.status_code == 200 and response.json() == {}
    assert moderation_repo.get_purge_request(target)["requested_by"] is not None
    again = client.delete(f"/api/v1/admin/accounts/{target}", headers=h["admin"])
    assert again.status_code == 200  # already requested: one request, one log entry
    assert [e["action"] for e in audit.by_target("Account", target)].count("destroy") == 1

    steps = run_machine(target)
    assert steps[-1] == {"step": "purge", "account_id": target, "done": True, "purged": True}
    assert len(steps) > 8  # 26 statuses take two batches, then each phase
    drain()
    # Everything of it is gone; the name stays taken by an empty suspended account.
    for status_id in statuses:
        assert client.get(f"/api/v1/statuses/{status_id}", headers=h["admin"]).status_code \
            == 404
    bundle = accounts_repo.get_bundle(target)
    assert accounts_repo.USER not in bundle
    assert bundle[accounts_repo.PROFILE]["suspended_at"]
    assert "deletion_requested_at" not in bundle[accounts_repo.PROFILE]
    assert moderation_repo.get_purge_request(target) is None
    assert moderation_repo.partition_deletions(target, 100) == []
    assert moderation_repo.follower_edge_deletions(target, 100) == []
    assert moderation_repo.list_membership_deletions(target, 100) == []
    assert moderation_repo.token_items(target, 100) == []
    assert client.get(f"/api/v1/statuses/{other_post}", headers=h["other"]).json()[
        "favourites_count"] == 0
    assert client.get(f"/api/v1/accounts/{ids_['fan']}", headers=h["other"]).json()[
        "following_count"] == 0
    assert client.get(f"/api/v1/accounts/{ids_['other']}", headers=h["other"]).json()[
        "followers_count"] == 0
    assert accounts_repo.id_by_handle("target") == target  # the username stays reserved
    view = client.get(f"/api/v1/admin/accounts/{target}", headers=h["admin"]).json()
    assert view["suspended"] is True
    # Purged: it cannot be purged again.
    assert client.delete(f"/api/v1/admin/accounts/{target}", headers=h["admin"]).status_code \
        == 403


def test_every_step_run_twice_has_no_double_effect(client, drain, purge_world):
    ids_, h, statuses, other_post = purge_world
    target = ids_["target"]
    client.post(f"/api/v1/admin/accounts/{target}/action", headers=h["admin"],
                data={"type": "suspend"})
    client.delete(f"/api/v1/admin/accounts/{target}", headers=h["admin"])
    run_machine(target, twice=True)
    drain()
    # The counts others keep went down once, not twice.
    assert client.get(f"/api/v1/accounts/{ids_['fan']}", headers=h["other"]).json()[
        "following_count"] == 0
    assert client.get(f"/api/v1/accounts/{ids_['other']}", headers=h["other"]).json()[
        "followers_count"] == 0
    assert client.get(f"/api/v1/statuses/{other_post}", headers=h["other"]).json()[
        "favourites_count"] == 0
    assert accounts_repo.USER not in accounts_repo.get_bundle(target)
    # A finished machine's last state, run again, stays finished.
    assert _handler()({"step": "purge", "account_id": target, "done": True},
                      _context())["done"] is True


def test_a_purge_after_an_unsuspension_does_nothing(client, purge_world):
    ids_, h, statuses, _ = purge_world
    target = ids_["target"]
    client.post(f"/api/v1/admin/accounts/{target}/action", headers=h["admin"],
                data={"type": "suspend"})
    client.delete(f"/api/v1/admin/accounts/{target}", headers=h["admin"])
    client.post(f"/api/v1/admin/accounts/{target}/unsuspend", headers=h["admin"])
    assert run_machine(target) == [{"step": "purge", "account_id": target, "done": True,
                                    "purged": False}]
    assert client.get(f"/api/v1/statuses/{statuses[0]}", headers=h["other"]).status_code == 200


def test_bad_step_input_fails(client):
    handler = _handler()
    with pytest.raises(ValueError):
        handler({"step": "purge"}, _context())
    with pytest.raises(ValueError):
        handler({"step": "explode", "account_id": "1"}, _context())
