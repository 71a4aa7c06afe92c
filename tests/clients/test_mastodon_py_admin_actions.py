"""Mastodon.py as staff: moderation actions and their undoing, the v2
listing by status, and deleting a suspended account, against the local stack."""

from __future__ import annotations

import importlib.util
import json
import uuid
from pathlib import Path
from types import SimpleNamespace

from mastodon import Mastodon

from local.lambda_runtime import isolated
from tests.rig import make_user

SCOPES = ["read", "write", "follow", "admin:read", "admin:write"]


def _staff_and_users(base: str) -> tuple[Mastodon, dict[str, str]]:
    make_user("boss", "boss@example.org", "boss password long", role="Admin")
    users = {n: make_user(n, f"{n}@example.org", f"{n} password long")
             for n in ("target", "other")}
    client_id, secret = Mastodon.create_app("staff client", api_base_url=base, scopes=SCOPES)
    staff = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base)
    staff.log_in("boss@example.org", "boss password long", scopes=SCOPES, allow_http=True)
    return staff, users


def _purge_steps(account_id: str) -> None:
    """What the purge state machine does: the moderation function's steps until done."""
    path = Path(__file__).resolve().parents[2] / "functions/workers/moderation/app.py"
    spec = importlib.util.spec_from_file_location("moderation_worker_for_client", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    context = SimpleNamespace(function_name="ModerationFunction", function_version="$LATEST",
                              invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:"
                                                   "function:ModerationFunction",
                              memory_limit_in_mb=512, aws_request_id=str(uuid.uuid4()),
                              get_remaining_time_in_millis=lambda: 60_000)
    state = {"account_id": account_id}
    handler = isolated(module.handler)  # its log keys stay in each call
    for _ in range(100):
        state = handler(json.loads(json.dumps(state)), context)
        if state["done"]:
            return
    raise AssertionError("the purge did not finish")


def test_staff_moderate_accounts(live_server):
    staff, users = _staff_and_users(live_server.base_url)
    target = users["target"]

    staff.admin_account_moderate(target, "sensitive", text="mark your media")
    assert staff.admin_account(target).sensitized is True
    assert staff.admin_account_unsensitive(target).sensitized is False

    staff.admin_account_moderate(target, "silence", send_email_notification=False)
    silenced = staff.admin_accounts_v2(status="silenced")
    assert [a.id for a in silenced] == [target]
    assert silenced[0].account.limited is True
    assert staff.admin_account_unsilence(target).silenced is False
    assert staff.admin_accounts_v2(status="silenced") == []

    staff.admin_account_moderate(target, "disable")
    assert [a.id for a in staff.admin_accounts_v2(status="disabled")] == [target]
    assert staff.admin_account_enable(target).disabled is False

    staff.admin_account_moderate(target)  # a warning only
    staff.admin_account_moderate(target, "suspend")
    suspended = staff.admin_accounts_v2(status="suspended", origin="local")
    assert [a.id for a in suspended] == [target]
    assert suspended[0].account.suspended is True
    assert target not in [a.id for a in staff.admin_accounts_v2(status="active")]
    assert staff.admin_account_unsuspend(target).suspended is False
    assert target in [a.id for a in staff.admin_accounts_v2(status="active")]

    live_server.pipeline.drain()
    subjects = sorted(m.read_text().split("Subject: ", 1)[1].split("\n", 1)[0].strip()
                      for m in live_server.mailbox.collect() if "target@example.org" in
                      m.read_text())
    # Mastodon.py asks for the mail unless told not to; the silence was told not to.
    assert len(subjects) == 4


def test_staff_delete_a_suspended_account(live_server):
    staff, users = _staff_and_users(live_server.base_url)
    target = users["target"]
    staff.admin_account_moderate(target, "suspend", send_email_notification=False)
    staff.admin_account_delete(target)
    _purge_steps(target)
    live_server.pipeline.drain()
    gone = staff.admin_account(target)
    assert gone.suspended is True and gone.email == ""
