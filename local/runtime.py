"""Bring the stack up against an AWS emulator: environment, resources, pipeline, mailbox.

Shared by the dev server (moto server on loopback) and the tests (in-process moto)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import cfn, websocket
from .gateway import Gateway
from .mailbox import Mailbox
from .pipeline import Pipeline
from .stack import Stack, apply_env, build

# All local runtime state (mail, the endpoint file stratusctl reads); git-ignored.
STATE_DIR = Path(os.environ.get("STRATUS_STATE_DIR") or cfn.ROOT / ".stratus")

AWS_DEFAULTS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": cfn.REGION,
    "AWS_REGION": cfn.REGION,
    # botocore >= 1.44 sends DynamoDB Streams calls to an account endpoint moto does not route.
    "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
}


def local_overrides(base_url: str, domain: str) -> dict[str, str]:
    return {
        "INSTANCE_DOMAIN": domain,
        "INSTANCE_SCHEME": base_url.split("://")[0],
        "MEDIA_BASE_URL": f"{base_url}/system",
        "STREAMING_URL": ("wss" if base_url.startswith("https") else "ws") + f"://{domain}",
        "POWERTOOLS_SERVICE_NAME": "stratus-local",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "STRATUS_LOCAL": "1",
        # The emulator has no Amazon Translate: translation is off unless a LibreTranslate-
        # compatible server is given (the dev server runs local/translator.py's).
        "TRANSLATION_BACKEND": "none",
        "LIBRETRANSLATE_URL": "",
        # SSE responses look for new events this often (on AWS: every half second).
        "SSE_POLL_SECONDS": "0.1",
    }


@dataclass
class Runtime:
    stack: Stack
    gateway: Gateway
    pipeline: Pipeline
    mailbox: Mailbox
    env: dict[str, str]


def start(domain: str, base_url: str, *, mail_dir: Path, retry_delay: int = 1,
          run_schedules_now: bool = True, extra_env: dict[str, str] | None = None,
          keep_clients: bool = False, environment: str = "development") -> Runtime:
    for key, value in AWS_DEFAULTS.items():
        os.environ.setdefault(key, value)
    from stratus.core import config, memo
    from stratus.repo import client

    config.reset()
    memo.forget_all()  # new tables: what the process wrote to the old ones is not in them
    if not keep_clients:
        client.reset()
    # A local stack is never production: development for `make dev`, test for the tests.
    stack = build({"InstanceDomain": domain, "Environment": environment})
    # The bucket is named for the operator CLI, which writes media no function writes yet.
    operator = {"MEDIA_BUCKET": stack.bucket_names.get("MediaBucket", "")}
    env = apply_env(stack, {**local_overrides(base_url, domain), **operator,
                            **(extra_env or {})}, keep_clients=keep_clients)
    sender_domain = config.settings().mail_from.split("@")[-1]
    client.client("ses").verify_domain_identity(Domain=sender_domain)
    media = stack.bucket_names.get("MediaBucket")
    websocket.install()  # PostToConnection answered by this process's open WebSockets
    return Runtime(stack, Gateway(stack, media_bucket=media),
                   Pipeline(stack, retry_delay=retry_delay, run_schedules_now=run_schedules_now),
                   Mailbox(mail_dir), env)


def describe(runtime: Runtime, endpoint_url: str) -> dict[str, Any]:
    """What stratusctl needs to reach this stack (written to .stratus/endpoint.json)."""
    return {"endpoint_url": endpoint_url, "env": {
        k: v for k, v in runtime.env.items()
        if k.endswith(("_TABLE", "_BUCKET", "_QUEUE_URL", "_FUNCTION"))
        or k.startswith(("INSTANCE_", "MEDIA_"))
        or k == "STRATUS_ENVIRONMENT"
    }}
