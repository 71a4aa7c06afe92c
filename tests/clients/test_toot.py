"""toot, the command-line client: `toot login_cli` then `toot whoami --json`."""

from __future__ import annotations

import json
import os
import subprocess

from tests.rig import TOOT, make_user


def test_toot_login_cli_and_whoami(live_server, tmp_path):
    make_user("tina", "tina@example.org", "tina's long password")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}

    def toot(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([TOOT, *args], env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)

    login = toot("login_cli", "-i", live_server.base_url, "-e", "tina@example.org",
                 "-p", "tina's long password")
    assert login.returncode == 0, login.stdout + login.stderr
    whoami = toot("whoami", "--json")
    assert whoami.returncode == 0, whoami.stderr
    me = json.loads(whoami.stdout)
    assert me["username"] == "tina" and me["acct"] == "tina"
    posted = toot("post", "Hello from toot #cli", "--visibility", "unlisted", "--json")
    assert posted.returncode == 0, posted.stderr
    status = json.loads(posted.stdout)
    assert status["visibility"] == "unlisted" and "#<span>cli</span>" in status["content"]
    config = json.loads((tmp_path / "toot" / "config.json").read_text())
    assert config["active_user"] == f"tina@{live_server.base_url.split('://')[1]}"


def test_toot_notifications(live_server, tmp_path):
    import httpx

    from tests.rig import auth, make_app, user_token

    make_user("tina", "tina@example.org", "tina's long password")
    fan = make_user("fan", "fan@example.org", "fan's long password")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}

    def toot(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([TOOT, *args], env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)

    assert toot("login_cli", "-i", live_server.base_url, "-e", "tina@example.org",
                "-p", "tina's long password").returncode == 0
    posted = json.loads(toot("post", "Like this", "--json").stdout)
    fan_auth = auth(user_token(make_app(_Http(live_server.base_url)), fan))
    httpx.post(f"{live_server.base_url}/api/v1/statuses/{posted['id']}/favourite",
               headers=fan_auth).raise_for_status()
    httpx.post(f"{live_server.base_url}/api/v1/statuses", headers=fan_auth,
               data={"status": "@tina hello"}).raise_for_status()
    live_server.pipeline.drain()

    shown = toot("notifications", "--json")
    assert shown.returncode == 0, shown.stderr
    assert [n["type"] for n in json.loads(shown.stdout)] == ["mention", "favourite"]
    mentions = toot("notifications", "--type", "mention", "--json")
    assert [n["type"] for n in json.loads(mentions.stdout)] == ["mention"]
    others = toot("notifications", "--exclude-type", "mention", "--json")
    assert [n["type"] for n in json.loads(others.stdout)] == ["favourite"]
    text = toot("notifications")
    assert text.returncode == 0, text.stderr
    assert "fan" in text.stdout and "Like this" in text.stdout
    assert toot("notifications", "--clear").returncode == 0
    assert json.loads(toot("notifications", "--json").stdout) == []


class _Http:
    """Just enough of a test client for tests.rig.make_app against the live server."""

    def __init__(self, base: str) -> None:
        self.base = base

    def post(self, path: str, data: dict):
        import httpx

        return httpx.post(self.base + path, data=data)


def test_toot_timeline_shows_home_and_public(live_server, tmp_path):
    import requests

    names = ("tia", "tom", "tess")
    for name in names:
        make_user(name, f"{name}@example.org", f"{name}'s long password")

    def toot_as(name: str):
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / name)}

        def run(*args: str) -> subprocess.CompletedProcess:
            done = subprocess.run([TOOT, *args], env=env, capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=60)
            assert done.returncode == 0, done.stdout + done.stderr
            return done
        run("login_cli", "-i", live_server.base_url, "-e", f"{name}@example.org",
            "-p", f"{name}'s long password")
        return run

    tia, tom, tess = (toot_as(name) for name in names)
    # tia's first look at home builds it (206 while it is built); she is an active user then.
    tia("timeline", "--once")
    live_server.pipeline.drain()
    config = json.loads((tmp_path / "tia" / "toot" / "config.json").read_text())
    [user] = config["users"].values()
    tom_id = json.loads(tom("whoami", "--json").stdout)["id"]
    followed = requests.post(f"{live_server.base_url}/api/v1/accounts/{tom_id}/follow",
                             headers={"Authorization": f"Bearer {user['access_token']}"})
    assert followed.status_code == 200 and followed.json()["following"] is True
    live_server.pipeline.drain()

    def posted(run, text: str) -> str:
        return json.loads(run("post", text, "--json").stdout)["id"]

    from_tom = posted(tom, "Tom says hello")
    from_tess = posted(tess, "Tess is not followed")
    from_tia = posted(tia, "Tia's own words")
    live_server.pipeline.drain()
    home = tia("timeline", "--once").stdout
    assert "Tia's own words" in home and "Tom says hello" in home
    assert home.index(from_tia) < home.index(from_tom)  # newest first
    assert from_tess not in home and "Tess is not followed" not in home
    public = tia("timeline", "--public", "--once").stdout
    assert public.index(from_tia) < public.index(from_tess) < public.index(from_tom)
