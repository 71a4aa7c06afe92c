"""toot, the command-line client: `toot login_cli` then `toot whoami --json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.rig import make_user

TOOT = str(Path(sys.executable).parent / "toot")


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
