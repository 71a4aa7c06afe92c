"""The local pipeline neither loses nor invents a side effect, whatever the emulator does.

Each test drives a fault through the public API (a refused sign-up, a worker that fails once, a
restart with work still pending) and then proves that the next side effects arrive exactly once:
the confirmation mail in the mailbox, the user and post counts in NodeInfo.
"""

from __future__ import annotations

import re
from email import message_from_bytes
from email.policy import default

import pytest

from tests.rig import app_token, auth, make_app

PASSWORD = "a good password"


@pytest.fixture
def token(client):
    return app_token(client, make_app(client), scope="read write")


def sign_up(client, token, username: str):
    return client.post("/api/v1/accounts", headers=auth(token), data={
        "username": username, "email": f"{username}@example.org", "password": PASSWORD,
        "agreement": "true", "locale": "en"})


def mails(runtime) -> list:
    """Every message in the local mailbox so far (the .eml files)."""
    runtime.mailbox.collect()
    return [message_from_bytes(path.read_bytes(), policy=default)
            for path in sorted(runtime.mailbox.folder.glob("*.eml"))]


def mails_to(runtime, username: str) -> list:
    return [m for m in mails(runtime) if m["To"] == f"{username}@example.org"]


def usage(client) -> dict:
    return client.get("/nodeinfo/2.0").json()["usage"]


def confirm_and_post(client, runtime, username: str, access_token: str) -> None:
    [message] = mails_to(runtime, username)
    link = re.search(r"http://[^/\s]+(/auth/confirmation\?confirmation_token=\S+)",
                     message.get_body(("plain",)).get_content()).group(1)
    assert client.get(link, follow_redirects=False).status_code == 200  # confirmed (oob app)
    posted = client.post("/api/v1/statuses", headers=auth(access_token),
                         data={"status": f"hello from {username}"})
    assert posted.status_code == 200, posted.text


def test_a_refused_sign_up_leaves_no_trace_and_the_next_one_mails_and_counts(
        client, runtime, drain, token):
    assert sign_up(client, token, "carol").status_code == 200
    drain()  # the pipeline is reading the stream from here on
    assert len(mails_to(runtime, "carol")) == 1

    refused = sign_up(client, token, "carol")
    assert refused.status_code == 422
    assert refused.json()["details"]["username"][0]["error"] == "ERR_TAKEN"
    drain()
    dave = sign_up(client, token, "dave")
    assert dave.status_code == 200, dave.text
    drain()

    assert len(mails_to(runtime, "dave")) == 1
    assert len(mails(runtime)) == 2  # carol's and dave's, nothing for the refused one
    assert usage(client)["users"]["total"] == 2
    assert usage(client)["localPosts"] == 0

    confirm_and_post(client, runtime, "dave", dave.json()["access_token"])
    drain()
    assert usage(client)["localPosts"] == 1
    assert usage(client)["users"]["total"] == 2
    assert len(mails(runtime)) == 2


def test_a_worker_failing_once_is_retried_and_mails_exactly_once(
        client, runtime, drain, token, monkeypatch):
    from stratus.repo import mail

    real_send, calls = mail.send, []

    def send_failing_once(message):
        calls.append(message["To"])
        if len(calls) == 1:
            raise ConnectionError("SES endpoint unreachable")
        return real_send(message)

    monkeypatch.setattr(mail, "send", send_failing_once)
    erin = sign_up(client, token, "erin")
    assert erin.status_code == 200
    drain()
    assert calls == ["erin@example.org", "erin@example.org"]
    assert len(mails_to(runtime, "erin")) == 1

    # The failure held nothing back: the next sign-up mails and counts too.
    assert sign_up(client, token, "frank").status_code == 200
    drain()
    assert len(mails_to(runtime, "frank")) == 1
    assert len(mails(runtime)) == 2
    assert usage(client)["users"]["total"] == 2
    confirm_and_post(client, runtime, "erin", erin.json()["access_token"])
    drain()
    assert usage(client)["localPosts"] == 1


def test_a_failed_dispatch_is_retried_without_doubling(client, runtime, drain, token,
                                                      monkeypatch):
    import sys

    runtime.stack.handler("DispatchFunction")  # imported as Lambda would, once per process
    queues = sys.modules["stratus_fn_DispatchFunction"].queues
    real_send, calls = queues.send, []

    def send_failing_once(url, messages):
        calls.append(url)
        if len(calls) == 1:
            raise ConnectionError("SQS endpoint unreachable")
        return real_send(url, messages)

    monkeypatch.setattr(queues, "send", send_failing_once)
    assert sign_up(client, token, "gina").status_code == 200
    drain()
    assert len(calls) > 1
    assert len(mails_to(runtime, "gina")) == 1
    assert usage(client)["users"]["total"] == 1


def test_work_pending_at_a_restart_runs_once_after_it(client, runtime, token, tmp_path,
                                                       monkeypatch):
    """Stop with a stream record not yet dispatched and a mail job failing in its queue; start a
    fresh emulator from the snapshot: each pending side effect happens once, the restored data
    triggers none, and what comes next still works."""
    from moto.core.base_backend import BackendDict
    from starlette.testclient import TestClient
    from stratus.repo import mail

    from local import snapshot
    from local.runtime import start
    from tests.conftest import BASE_URL, DOMAIN

    assert sign_up(client, token, "carol").status_code == 200
    runtime.pipeline.drain()
    assert len(mails_to(runtime, "carol")) == 1

    def ses_down(message):
        raise ConnectionError("SES endpoint unreachable")

    monkeypatch.setattr(mail, "send", ses_down)
    assert sign_up(client, token, "dave").status_code == 200
    runtime.pipeline.pump(schedules=False)  # dispatched and counted; the mail job failed once
    assert mails_to(runtime, "dave") == []
    assert sign_up(client, token, "erin").status_code == 200  # not even dispatched yet
    saved = tmp_path / "snapshot.json"
    counts = snapshot.save(runtime.stack, saved, runtime.pipeline)
    assert counts["pending records"] >= 1 and counts["queued messages"] >= 1

    BackendDict.reset()  # the emulator of a new process: empty
    monkeypatch.undo()  # and SES is reachable again
    again = start(DOMAIN, BASE_URL, mail_dir=runtime.mailbox.folder, retry_delay=0,
                  run_schedules_now=False, keep_clients=True)
    assert snapshot.restore(again.stack, saved, again.pipeline)
    again.pipeline.drain()

    assert [len(mails_to(again, name)) for name in ("carol", "dave", "erin")] == [1, 1, 1]
    assert len(mails(again)) == 3
    with TestClient(again.gateway, base_url=BASE_URL) as fresh:
        assert usage(fresh)["users"]["total"] == 3
        frank = sign_up(fresh, token, "frank")
        assert frank.status_code == 200, frank.text
        again.pipeline.drain()
        assert len(mails_to(again, "frank")) == 1 and len(mails(again)) == 4
        assert usage(fresh)["users"]["total"] == 4
        confirm_and_post(fresh, again, "frank", frank.json()["access_token"])
        again.pipeline.drain()
        assert usage(fresh)["localPosts"] == 1


def test_the_stream_reader_outlives_an_expired_iterator(client, runtime, drain, token,
                                                        monkeypatch):
    """A shard iterator unused for 15 minutes expires (a laptop asleep): the reader goes on
    from its checkpoint, so nothing is skipped and nothing read twice."""
    from local import emulator

    clock = [1000.0]
    monkeypatch.setattr(emulator, "_now", lambda: clock[0])
    assert sign_up(client, token, "carol").status_code == 200
    drain()
    clock[0] += 16 * 60
    assert sign_up(client, token, "dave").status_code == 200
    drain()
    assert [len(mails_to(runtime, name)) for name in ("carol", "dave")] == [1, 1]
    assert usage(client)["users"]["total"] == 2
