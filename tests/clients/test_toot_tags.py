"""toot's hashtag commands (`toot tags follow|followed|unfollow`), as toot's own integration
suite runs them."""

from __future__ import annotations

import json
import os
import re
import subprocess

from tests.rig import TOOT, make_user


def test_toot_follows_and_unfollows_tags(live_server, tmp_path):
    make_user("tina", "tina@example.org", "tina's long password")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}

    def toot(*args: str) -> str:
        done = subprocess.run([TOOT, *args], env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.strip()

    toot("login_cli", "-i", live_server.base_url, "-e", "tina@example.org",
         "-p", "tina's long password")
    assert toot("tags", "followed") == "You're not following any hashtags"
    assert toot("tags", "follow", "foo") == "✓ You are now following #foo"
    followed = json.loads(toot("tags", "follow", "#bar", "--json"))
    assert (followed["name"], followed["following"]) == ("bar", True)
    assert sorted(re.findall(r"#\w+", toot("tags", "followed"))) == ["#bar", "#foo"]
    assert toot("tags", "unfollow", "foo") == "✓ You are no longer following #foo"
    assert [t["name"] for t in json.loads(toot("tags", "followed", "--json"))] == ["bar"]
    toot("tags", "unfollow", "bar")
    assert toot("tags", "followed") == "You're not following any hashtags"
