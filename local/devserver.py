"""`make dev`: the whole Stratus stack on http://127.0.0.1:$PORT with no Docker and no AWS.

An embedded moto server plays AWS (DynamoDB with streams, SQS, S3, SES, Scheduler); resources
come from template.yaml; HTTP requests reach the real handlers through a local API Gateway;
background loops feed the stream, queue and schedule consumers; mail lands in .stratus/mail/.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import threading
import time
import warnings

logger = logging.getLogger("stratus.local")
# The shared boto3 clients keep 10 connections to the emulator; with the HTTP threads and the
# pipeline's threads (one per event source) busy at once, a burst opens and drops a few more.
logging.getLogger("urllib3.connectionpool").setLevel(logging.ERROR)

# Before anything imports Powertools: one service name for the whole local process.
os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "stratus-local")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
warnings.filterwarnings("ignore", message="No application metrics to publish")
warnings.filterwarnings("ignore", message="There is no current event loop")

from .runtime import AWS_DEFAULTS, STATE_DIR, describe, start  # noqa: E402


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _loop(runtime, stop: threading.Event) -> None:
    """The event source mappings: woken by the emulator when there is work (local/pipeline.py
    `run`), asleep otherwise; mail sent in a round lands in .stratus/mail/ after it."""
    runtime.pipeline.run(stop, after_round=runtime.mailbox.collect)


def main() -> None:
    started = time.perf_counter()
    port = int(os.environ.get("PORT", "8000"))
    host = "127.0.0.1"
    domain = f"localhost:{port}"
    base_url = f"http://{domain}"
    STATE_DIR.mkdir(exist_ok=True)
    for key, value in AWS_DEFAULTS.items():
        os.environ.setdefault(key, value)

    from moto.server import ThreadedMotoServer

    moto_port = _free_port()
    os.environ["MOTO_PORT"] = str(moto_port)
    emulator = ThreadedMotoServer(ip_address="127.0.0.1", port=moto_port, verbose=False)
    from werkzeug.serving import WSGIRequestHandler

    WSGIRequestHandler.log_request = lambda *args, **kwargs: None  # the emulator's access log
    from .emulator import prepare

    prepare()
    emulator.start()
    endpoint = f"http://127.0.0.1:{moto_port}"
    os.environ["AWS_ENDPOINT_URL"] = endpoint

    from .translator import Translator

    translator = Translator()  # what translates statuses here: no Amazon Translate locally
    runtime = start(domain, base_url, mail_dir=STATE_DIR / "mail", extra_env={
        "TRANSLATION_BACKEND": "libretranslate", "LIBRETRANSLATE_URL": translator.url})
    from . import snapshot

    snapshot_file = STATE_DIR / "snapshot.json"
    # Restored data does not run its side effects again; the work pending at the stop does.
    snapshot.restore(runtime.stack, snapshot_file, runtime.pipeline)
    endpoint_file = STATE_DIR / "endpoint.json"
    endpoint_file.write_text(json.dumps(describe(runtime, endpoint), indent=2))

    stop = threading.Event()
    loop = threading.Thread(target=_loop, args=(runtime, stop), name="pipeline", daemon=True)
    loop.start()

    import uvicorn

    config = uvicorn.Config(runtime.gateway, host=host, port=port, log_level="warning",
                            lifespan="off")
    server = uvicorn.Server(config)
    print(f"Stratus is up at {base_url}  (AWS emulator {endpoint}, "
          f"functions: {', '.join(runtime.stack.functions)}; "
          f"started in {time.perf_counter() - started:.1f}s). Ctrl-C stops it.", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass  # uvicorn re-raises the Ctrl-C it already handled
    finally:
        stop.set()
        runtime.pipeline.wake()
        loop.join(timeout=5)
        # Finish the side effects already on their way (their mail lands now); whatever is
        # left (a job failing, waiting for its retry) is kept in the snapshot and runs next time.
        try:
            runtime.pipeline.drain(max_rounds=100)
            runtime.mailbox.collect()
        except Exception:  # noqa: BLE001 - a failing job must not cost the snapshot
            logger.exception("could not finish pending jobs before stopping")
        counts = snapshot.save(runtime.stack, snapshot_file, runtime.pipeline)
        pending = counts["pending records"] + counts["queued messages"]
        print(f"Saved the local data to {snapshot_file} ({counts.get('MainTable', 0)} items"
              + (f", {pending} pending jobs" if pending else "")
              + "; delete it to start afresh).", flush=True)
        emulator.stop()
        endpoint_file.unlink(missing_ok=True)
        print("Stratus stopped.", flush=True)


if __name__ == "__main__":
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("local: %(message)s"))
    logger.addHandler(_handler)
    logger.setLevel(logging.INFO)
    sys.exit(main())
