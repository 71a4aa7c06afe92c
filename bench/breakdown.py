"""`python -m bench breakdown [--json]`: where one activity's cost goes, for working on it — the
per-activity figures of `python -m bench cost` (an inbound Create of a known actor with 15
local followers, a local like, a local post: bench/activities.py) on a small instance, each
with its invocations by function and trigger, its SQS requests, and its DynamoDB units by what
was read and by the item written (`local/capacity.py`'s ledgers). A few seconds, not minutes:
the cost bench's instance at its `--quick` size."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from typing import Any

from . import activities, costs
from .cost import QUICK, start_in_process
from .instance import Instance, Peers


def _ledgers() -> tuple[dict[str, Counter[str]], Any]:
    from local import capacity

    found: dict[str, Counter[str]] = {"read": Counter(), "write": Counter()}
    capacity.read_ledger = lambda table, what, units: found["read"].update({what: units})
    capacity.write_ledger = lambda table, what, units: found["write"].update({what: units})

    def stop() -> None:
        capacity.read_ledger = capacity.write_ledger = None
    return found, stop


def run(as_json: bool = False) -> dict[str, Any]:
    from . import instance as fixture

    for name, value in QUICK.items():
        setattr(fixture, name, value)
    runtime, mock = start_in_process()
    peers = Peers()
    log = (lambda line: print(line, file=sys.stderr)) if as_json else print
    result: dict[str, Any] = {}
    try:
        instance = Instance(runtime, peers, log).build()
        poster, _ = activities._poster(instance)  # noqa: SLF001
        from stratus.federation import remote_accounts

        remote_id = remote_accounts.find(poster.uri)["id"]
        receivers = [m.account_id for m in instance.members][:activities.RECEIVERS]
        activities._follow(instance, receivers, remote_id, remote=True)  # noqa: SLF001
        poster.receivers = len(receivers)
        author_id, token = instance._account("breakdownposter", ["read", "write"])  # noqa: SLF001
        activities._follow(instance, receivers, author_id, remote=False)  # noqa: SLF001
        from .instance import Member

        author = Member(author_id, "breakdownposter", token, len(receivers),
                        receivers=len(receivers))
        from . import mix

        sends = {
            "inbound_create": lambda: instance.inbound("Create", poster),
            "local_like": lambda: mix._favourite(instance, 0),  # noqa: SLF001
            "local_post": lambda: instance.request("POST", "/api/v1/statuses", author,
                                                   data={"status": "A post #tides"}),
        }
        for send in sends.values():  # warm: keys cached, functions imported
            send()
            instance.drain()
        for name, send in sends.items():
            ledgers, stop = _ledgers()
            with costs.Recorder(runtime) as recorder:
                send()
                instance.drain()
            stop()
            by_function = Counter(f"{i.function} ({i.trigger})" for i in recorder.invocations)
            result[name] = {
                "invocations": sum(by_function.values()), "sqs": recorder.counts["sqs"],
                "read_units": round(sum(ledgers["read"].values()), 2),
                "write_units": round(sum(ledgers["write"].values()), 2),
                "by_function": dict(by_function.most_common()),
                "reads": {k: round(v, 2) for k, v in ledgers["read"].most_common()},
                "writes": {k: round(v, 2) for k, v in ledgers["write"].most_common()}}
        instance.close()
    finally:
        peers.close()
        mock.stop()
    if as_json:
        print(json.dumps(result, indent=2))
    else:
        for name, figures in result.items():
            print(f"\n== {name}: {figures['invocations']} invocations, {figures['sqs']} SQS, "
                  f"{figures['read_units']} RU, {figures['write_units']} WU")
            for part in ("by_function", "reads", "writes"):
                grouped = defaultdict(float)
                for k, v in figures[part].items():
                    grouped[k] += v
                print(f"  {part}:")
                for k, v in sorted(grouped.items(), key=lambda kv: -kv[1]):
                    print(f"    {v:7.2f}  {k}")
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench breakdown")
    parser.add_argument("--json", action="store_true")
    run(parser.parse_args(argv).json)
