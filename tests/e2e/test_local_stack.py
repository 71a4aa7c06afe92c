"""`make dev` for real: the dev server as its own process, stratusctl against it, curl-like reads."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def dev_stack(tmp_path_factory):
    state = tmp_path_factory.mktemp("state")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MOTO_"))}
    env.update(PORT=str(port), STRATUS_STATE_DIR=str(state))
    log = open(state / "dev.log", "w")
    process = subprocess.Popen([sys.executable, "-m", "local.devserver"], cwd=ROOT, env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    base = f"http://127.0.0.1:{port}"
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(base + "/api/v1/instance", timeout=1)
            break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("dev server did not start: " + (state / "dev.log").read_text())
    yield {"base": base, "env": env, "state": state, "process": process, "port": port}
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=15) == 0
    assert not (state / "endpoint.json").exists()
    assert (state / "snapshot.json").exists()


def get(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, dict(response.headers), response.read()


def ctl(stack, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratusctl.cli", *args], cwd=ROOT,
                          env=stack["env"], capture_output=True, text=True, timeout=60)


def test_serves_the_metadata_endpoints(dev_stack):
    for path in ("/api/v1/instance", "/api/v1/instance/", "/api/v2/instance",
                 "/api/v1/instance/rules", "/api/v1/custom_emojis", "/.well-known/nodeinfo",
                 "/nodeinfo/2.0", "/api/v1/instance/peers", "/api/v1/instance/activity"):
        status, headers, _ = get(dev_stack["base"] + path)
        assert status == 200, path
        assert headers["content-type"].startswith("application/json"), path


def test_stratusctl_settings_flip_open_registrations(dev_stack):
    nodeinfo = dev_stack["base"] + "/nodeinfo/2.0"
    assert json.loads(get(nodeinfo)[2])["openRegistrations"] is True
    result = ctl(dev_stack, "settings", "set", "registrations_mode", "none")
    assert result.returncode == 0, result.stderr
    assert json.loads(get(nodeinfo)[2])["openRegistrations"] is False
    assert ctl(dev_stack, "settings", "get", "registrations_mode").stdout.strip() == "none"
    bad = ctl(dev_stack, "settings", "set", "registrations_mode", "whenever")
    assert bad.returncode == 1 and "must be one of" in bad.stderr
    ctl(dev_stack, "settings", "set", "rules", "Be kind\nNo spam")
    rules = json.loads(get(dev_stack["base"] + "/api/v1/instance/rules")[2])
    assert [r["text"] for r in rules] == ["Be kind", "No spam"]


def test_stratusctl_turns_instant_signups_on_for_the_dev_stack(dev_stack):
    # `make dev` is a development stack: the setting is accepted (a production stack refuses it).
    assert ctl(dev_stack, "settings", "get", "instant_signups").stdout.strip() == "false"
    result = ctl(dev_stack, "settings", "set", "instant_signups", "true")
    assert result.returncode == 0, result.stderr
    assert ctl(dev_stack, "settings", "get", "instant_signups").stdout.strip() == "true"
    assert ctl(dev_stack, "settings", "set", "instant_signups", "false").returncode == 0


def test_stratusctl_emoji_import_serves_the_image(dev_stack, tmp_path):
    from stratus.api.instance.instance import default_thumbnail

    image = tmp_path / "blob.png"
    image.write_bytes(default_thumbnail())
    result = ctl(dev_stack, "emoji", "import", str(image), "--shortcode", "blobcat",
                 "--category", "Blobs")
    assert result.returncode == 0, result.stderr
    # A warm function keeps the rendered list for emojis.CACHE_SECONDS (an earlier test read
    # it): the import shows within that window.
    from stratus.api.instance.emojis import CACHE_SECONDS

    deadline = time.monotonic() + CACHE_SECONDS + 5
    while True:
        emojis = json.loads(get(dev_stack["base"] + "/api/v1/custom_emojis")[2])
        if emojis or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert [(e["shortcode"], e["category"]) for e in emojis] == [("blobcat", "Blobs")]
    status, headers, body = get(emojis[0]["url"].replace("localhost", "127.0.0.1"))
    assert status == 200 and headers["content-type"] == "image/png"
    assert body == image.read_bytes()
    again = ctl(dev_stack, "emoji", "import", str(image), "--shortcode", "blobcat")
    assert again.returncode == 1 and "already been taken" in again.stderr


def test_without_a_stack_stratusctl_says_what_to_do(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["STRATUS_STATE_DIR"] = str(tmp_path)
    result = subprocess.run([sys.executable, "-m", "stratusctl.cli", "settings", "list"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "make dev" in result.stderr


def test_owner_from_stratusctl_approves_a_pending_sign_up(dev_stack):
    import re

    import requests

    base = dev_stack["base"]
    assert ctl(dev_stack, "settings", "set", "registrations_mode", "approved").returncode == 0
    created = ctl(dev_stack, "accounts", "create", "admin", "--email", "admin@example.org",
                  "--role", "Owner", "--confirmed")
    assert created.returncode == 0, created.stderr
    password = re.search(r"New password: (\S+)", created.stdout).group(1)

    app = requests.post(base + "/api/v1/apps", data={
        "client_name": "e2e", "redirect_uris": "urn:ietf:wg:oauth:2.0:oob",
        "scopes": "read write admin:read admin:write"}).json()
    creds = {"client_id": app["client_id"], "client_secret": app["client_secret"]}
    owner = requests.post(base + "/oauth/token", data={
        **creds, "grant_type": "password", "username": "admin@example.org",
        "password": password, "scope": "read write admin:read admin:write"}).json()
    owner_headers = {"Authorization": f"Bearer {owner['access_token']}"}

    app_token = requests.post(base + "/oauth/token", data={
        **creds, "grant_type": "client_credentials", "scope": "write"}).json()["access_token"]
    signed_up = requests.post(base + "/api/v1/accounts", headers={
        "Authorization": f"Bearer {app_token}"}, data={
        "username": "newbie", "email": "newbie@example.org", "password": "newbie password",
        "agreement": "true", "locale": "en"})
    assert signed_up.status_code == 200, signed_up.text
    user_headers = {"Authorization": f"Bearer {signed_up.json()['access_token']}"}

    mail_dir = dev_stack["state"] / "mail"
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not list(mail_dir.glob("*.eml")):
        time.sleep(0.2)
    [mail] = list(mail_dir.glob("*.eml"))
    from email import message_from_bytes
    from email.policy import default

    text = message_from_bytes(mail.read_bytes(), policy=default).get_body(("plain",)).get_content()
    link = re.search(r"(http://\S+confirmation_token=\w+)", text).group(1)
    assert requests.get(link.replace("localhost", "127.0.0.1"), allow_redirects=False).status_code == 200

    me = requests.get(base + "/api/v1/accounts/verify_credentials", headers=user_headers)
    assert me.status_code == 403 and "pending approval" in me.json()["error"]
    pending = requests.get(base + "/api/v2/admin/accounts?status=pending", headers=owner_headers)
    assert [a["username"] for a in pending.json()] == ["newbie"]
    approved = requests.post(base + f"/api/v1/admin/accounts/{pending.json()[0]['id']}/approve",
                             headers=owner_headers)
    assert approved.status_code == 200 and approved.json()["approved"] is True
    me = requests.get(base + "/api/v1/accounts/verify_credentials", headers=user_headers)
    assert me.status_code == 200 and me.json()["username"] == "newbie"


def test_posting_through_the_dev_stack(dev_stack):
    """Statuses, polls, media and schedules against the emulator running as a server."""
    import requests
    from stratus.api.instance.instance import solid_png

    base = dev_stack["base"]
    for name in ("poster", "friend"):
        assert ctl(dev_stack, "accounts", "create", name, "--email", f"{name}@example.org",
                   "--password", f"{name} password!", "--confirmed").returncode == 0
    app = requests.post(base + "/api/v1/apps", data={
        "client_name": "e2e", "redirect_uris": "urn:ietf:wg:oauth:2.0:oob",
        "scopes": "read write"}).json()

    def login(name):
        token = requests.post(base + "/oauth/token", data={
            "client_id": app["client_id"], "client_secret": app["client_secret"],
            "grant_type": "password", "username": f"{name}@example.org",
            "password": f"{name} password!", "scope": "read write"}).json()["access_token"]
        return {"Authorization": f"Bearer {token}"}

    poster, friend = login("poster"), login("friend")
    media = requests.post(base + "/api/v2/media", headers=poster,
                          files={"file": ("p.png", solid_png(20, 20, (1, 2, 3)), "image/png")})
    assert media.status_code == 200, media.text
    status = requests.post(base + "/api/v1/statuses", headers=poster, data={
        "status": "hello @friend #e2e", "media_ids[]": [media.json()["id"]]})
    assert status.status_code == 200, status.text
    assert requests.get(status.json()["media_attachments"][0]["url"].replace(
        "localhost", "127.0.0.1")).status_code == 200
    poll = requests.post(base + "/api/v1/statuses", headers=poster, json={
        "status": "pick one", "poll": {"options": ["a", "b"], "expires_in": 600}})
    assert poll.status_code == 200, poll.text
    vote = requests.post(base + f"/api/v1/polls/{poll.json()['poll']['id']}/votes",
                         headers=friend, json={"choices": [1]})
    assert vote.status_code == 200 and vote.json()["options"][1]["votes_count"] == 1
    later = requests.post(base + "/api/v1/statuses", headers=poster, json={
        "status": "later", "scheduled_at": "2099-01-01T00:00:00.000Z"})
    assert later.status_code == 200, later.text
    assert [s["id"] for s in requests.get(base + "/api/v1/scheduled_statuses",
                                          headers=poster).json()] == [later.json()["id"]]
    fav = requests.post(base + f"/api/v1/statuses/{status.json()['id']}/favourite", headers=friend)
    assert fav.json()["favourites_count"] == 1
    poster_id = status.json()["account"]["id"]
    listed = requests.get(base + f"/api/v1/accounts/{poster_id}/statuses?tagged=e2e").json()
    assert [s["id"] for s in listed] == [status.json()["id"]]



def test_data_survives_a_restart(tmp_path):
    """Stop `make dev` and start it again: accounts, settings and sessions' secret remain."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MOTO_"))}
    env.update(PORT=str(port), STRATUS_STATE_DIR=str(tmp_path))
    base = f"http://127.0.0.1:{port}"

    def run_stack():
        process = subprocess.Popen([sys.executable, "-m", "local.devserver"], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(base + "/api/v1/instance", timeout=1)
                return process
            except OSError:
                time.sleep(0.2)
        process.kill()
        pytest.fail("dev server did not start")

    first = run_stack()
    stack = {"env": env}
    assert ctl(stack, "settings", "set", "site_title", "Persistent").returncode == 0
    assert ctl(stack, "accounts", "create", "keeper", "--email", "keeper@example.org",
               "--password", "keeper password", "--confirmed").returncode == 0
    vapid = json.loads(get(base + "/api/v2/instance")[2])["configuration"]["vapid"]["public_key"]
    first.send_signal(signal.SIGINT)
    assert first.wait(timeout=15) == 0
    second = run_stack()
    try:
        instance = json.loads(get(base + "/api/v2/instance")[2])
        assert instance["title"] == "Persistent"
        assert instance["configuration"]["vapid"]["public_key"] == vapid
        assert json.loads(get(base + "/api/v1/accounts/lookup?acct=keeper")[2])["username"] == "keeper"
        assert json.loads(get(base + "/nodeinfo/2.0")[2])["usage"]["users"]["total"] == 1
    finally:
        second.send_signal(signal.SIGINT)
        second.wait(timeout=15)
