"""`python -m local.import_cycles` (make lint): no import circle in the shared package, the local
runtime or the benches, and the runtime never imports a bench."""

from __future__ import annotations

from local import import_cycles


def test_the_three_packages_have_no_import_circle_and_the_runtime_no_bench():
    edges = import_cycles.edges_of(import_cycles._graph())
    assert {m.split(".")[0] for m in edges} == {"stratus", "local", "bench"}
    assert import_cycles.cycles(edges) == []
    assert import_cycles.upward(edges) == []


def test_the_check_finds_a_circle_and_an_upward_import():
    edges = {"local.emulator": ["local.capacity"], "local.capacity": ["local.emulator"],
             "local.pipeline": ["bench.cost"], "bench.cost": ["local.emulator"]}
    assert import_cycles.cycles(edges) == [["local.capacity", "local.emulator"]]
    assert import_cycles.upward(edges) == ["local.pipeline -> bench.cost"]
