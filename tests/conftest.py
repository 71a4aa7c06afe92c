"""Test rig: every test gets a fresh in-process AWS (moto) with the stack built from
template.yaml, a client that goes through the local API Gateway to the real handlers, and
`drain()` that runs stream → dispatch → queues → workers until quiet."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pytest

from local.runtime import AWS_DEFAULTS

# The rig's helpers report failed asserts as test modules do; its fixtures are named by every
# test without an import (tests/rig/__init__.py).
pytest.register_assert_rewrite("tests.rig")
pytest_plugins = ["tests.rig.accounts", "tests.rig.timelines", "tests.rig.federation",
                  "tests.rig.moderation", "tests.rig.sites", "tests.rig.hostile",
                  "tests.rig.records", "tests.rig.faults", "tests.rig.browser"]

# Copies of the public reference files (sources and licences in tests/reference/README.md).
REFERENCE = Path(__file__).resolve().parent / "reference"
DOMAIN = "localhost:8000"
BASE_URL = f"http://{DOMAIN}"

for _key, _value in AWS_DEFAULTS.items():
    os.environ[_key] = _value
os.environ.pop("AWS_ENDPOINT_URL", None)
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "stratus-test")


@pytest.fixture
def aws():
    from moto import mock_aws

    from local.emulator import prepare

    prepare()
    with mock_aws():
        yield


def _start(domain: str, base_url: str, tmp_path: Path):
    from local.runtime import start

    # boto3 clients outlive each test's emulator: moto intercepts them whenever it is active.
    return start(domain, base_url, mail_dir=tmp_path / "mail", retry_delay=0,
                 run_schedules_now=False, keep_clients=True, environment="test")


@pytest.fixture
def runtime(aws, tmp_path):
    return _start(DOMAIN, BASE_URL, tmp_path)


@pytest.fixture
def client(runtime):
    from starlette.testclient import TestClient

    with TestClient(runtime.gateway, base_url=BASE_URL) as test_client:
        yield test_client


@pytest.fixture
def drain(runtime):
    return runtime.pipeline.drain


@pytest.fixture
def live_server(aws, tmp_path):
    """The stack behind a real HTTP server on loopback, for real clients (Mastodon.py, toot)."""
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    domain = f"localhost:{port}"
    runtime = _start(domain, f"http://{domain}", tmp_path)
    server = uvicorn.Server(uvicorn.Config(runtime.gateway, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.01)
    runtime.base_url = f"http://{domain}"
    yield runtime
    server.should_exit = True
    thread.join(5)


@pytest.fixture(scope="session")
def openapi():
    return json.loads((REFERENCE / "mastodon-openapi.json").read_text())


@pytest.fixture(scope="session")
def entity(openapi):
    """`entity("Instance", data)` validates data against the OpenAPI component schema."""
    from tests.rig.contract import validator_for

    def check(name: str, data) -> None:
        errors = sorted(validator_for(openapi, name).iter_errors(data), key=str)
        assert not errors, f"{name}: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])

    return check


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing():
    """Argon2 is deliberately slow; fixtures reuse one hash per password (verification still
    runs the real check)."""
    import functools

    from stratus.auth import passwords

    original = passwords.hash_password
    passwords.hash_password = functools.lru_cache(maxsize=None)(original)
    yield
    passwords.hash_password = original


@pytest.fixture(autouse=True, scope="session")
def _fast_actor_keys():
    """RSA-2048 generation takes ~100 ms and every new user gets a key from the outbox: tests
    take keys from a small pool made once (any 8 consecutive keys differ)."""
    import itertools

    from stratus.federation import actor_keys

    original = actor_keys.new_key_pair
    pool: list = []

    def pooled(counter=itertools.count()):
        index = next(counter) % 8
        while len(pool) <= index:
            pool.append(original())
        return pool[index]

    actor_keys.new_key_pair = pooled
    yield
    actor_keys.new_key_pair = original


# --- per-process caches (stratus.core.warm) start empty in every test ------------------
@pytest.fixture(autouse=True)
def _fresh_warm_caches():
    from stratus.core import warm

    warm.forget_all()
    yield
    warm.forget_all()
