"""Every function of template.yaml keeps its work inside its invocation (docs/security.md,
"Limits"): an HTTP function's outbound requests end before its timeout (`http_handler`), and
every other function — the workers, the stream's dispatch, the schedules, the state machines'
steps, the WebSocket routes — has a JobLimits budget whose seconds and margin stay below its
Timeout. A function that is neither runs no jobs and can reach no outbound request."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from local import cfn

OUTBOUND = "stratus.core.outbound"


def _reaches_outbound(code_dir: Path) -> list[str]:
    """The stratus modules a function's code imports that lead to outbound requests."""
    import grimp

    graph = grimp.build_graph("stratus")
    imported = set()
    for source in code_dir.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.startswith("stratus"):
                imported |= {f"{node.module}.{a.name}" for a in node.names} | {node.module}
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names if a.name.startswith("stratus")}
    return sorted(m for m in imported if m in graph.modules and (
        m == OUTBOUND or graph.find_shortest_chain(importer=m, imported=OUTBOUND)))


def budget_problems(functions: list[Any], handler_of: Callable[[str], Any],
                    reaches_outbound: Callable[[Path], list[str]] = _reaches_outbound
                    ) -> list[str]:
    """What the rule finds wrong, one line per function."""
    from stratus.core.observability import JobLimits

    problems = []
    for fn in functions:
        name, timeout = fn.logical_id, fn.timeout
        if fn.handler == "run.sh":  # the web adapter runs the app itself: no handler of ours
            reached = reaches_outbound(Path(fn.code_dir))
            if reached:
                problems.append(f"{name}: no budget, and {', '.join(reached)} make requests")
            continue
        handler = handler_of(name)
        margin = getattr(handler, "http_margin", None)
        limits = getattr(handler, "limits", None)
        if margin is not None:
            if margin >= timeout:
                problems.append(f"{name}: keeps {margin} s of a {timeout} s timeout")
        elif not isinstance(limits, JobLimits):
            problems.append(f"{name}: no JobLimits budget")
        elif limits.seconds + limits.margin >= timeout:
            problems.append(f"{name}: a job may take {limits.seconds + limits.margin:g} s, "
                            f"past its {timeout} s timeout")
        elif limits.seconds <= 0 or limits.margin <= 0:
            problems.append(f"{name}: a budget of {limits.seconds} s and {limits.margin} s")
    return problems


def test_every_function_has_a_budget_below_its_timeout(runtime):
    functions = cfn.functions(cfn.load_template())
    assert len(functions) > 30
    assert budget_problems(functions, runtime.stack.handler) == []


def test_the_budgets_the_docs_list_are_the_handlers(runtime):
    """docs/security.md's table of job budgets names every function with a JobLimits, with its
    figures (seconds / requests / margin, timeout)."""
    text = (cfn.ROOT / "docs/security.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| job budgets"))
    for fn in cfn.functions(cfn.load_template()):
        if fn.handler == "run.sh":
            continue
        limits = getattr(runtime.stack.handler(fn.logical_id), "limits", None)
        if limits is None:
            continue
        requests = "-" if limits.requests is None else str(limits.requests)
        figures = f"{limits.seconds:g} / {requests} / {limits.margin:g} ({fn.timeout} s)"
        assert f"{fn.logical_id} {figures}" in row, f"{fn.logical_id} {figures}"


def test_the_rule_finds_what_it_forbids():
    """A rule that can find nothing passes for the wrong reason."""
    from stratus.core.observability import JobLimits

    def fn(name: str, timeout: int, handler: str = "handler.handler") -> SimpleNamespace:
        return SimpleNamespace(logical_id=name, timeout=timeout, handler=handler,
                               code_dir=Path(name))

    handlers = {
        "Bare": SimpleNamespace(),
        "Outlives": SimpleNamespace(limits=JobLimits(seconds=25, margin=5)),
        "Equal": SimpleNamespace(limits=JobLimits(seconds=25, margin=5)),
        "Fine": SimpleNamespace(limits=JobLimits(seconds=10, margin=5)),
        "Http": SimpleNamespace(http_margin=1.5),
        "NotLimits": SimpleNamespace(limits={"seconds": 1}),
    }
    functions = [fn("Bare", 30), fn("Outlives", 10), fn("Equal", 30), fn("Fine", 30),
                 fn("Http", 10), fn("NotLimits", 30), fn("Adapter", 900, "run.sh"),
                 fn("QuietAdapter", 900, "run.sh")]
    found = budget_problems(functions, handlers.__getitem__,
                            lambda code_dir: ["stratus.federation.http"]
                            if code_dir == Path("Adapter") else [])
    assert [line.split(":")[0] for line in found] == ["Bare", "Outlives", "Equal", "NotLimits",
                                                      "Adapter"]


def test_the_outbound_check_sees_an_import_that_makes_requests(tmp_path):
    (tmp_path / "app.py").write_text("from stratus.federation import http\n"
                                     "from stratus.core import clock\n")
    assert _reaches_outbound(tmp_path) == ["stratus.federation.http"]
    (tmp_path / "app.py").write_text("from stratus.core import clock\n")
    assert _reaches_outbound(tmp_path) == []
