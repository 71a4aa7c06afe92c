"""The shape of the shared package (docs/architecture.md, "Layers"), as rules a change cannot
break unnoticed: the import direction and the circles are `make lint`'s (import-linter and
local/import_cycles.py); the size of modules and where storage details may appear are here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "layers/shared/stratus"
MAX_LINES = 450
# One coherent registry each: every key; every outbox rule; every job message.
WHOLE = {"repo/keys.py", "jobs/outbox.py", "jobs/messages.py"}
# DynamoDB's own vocabulary: condition and update expressions, key condition functions, the
# names of the table's keys and indexes. Only repo/ speaks it.
STORAGE = [re.compile(p) for p in (
    r"\battribute_(not_)?exists\(", r"\bbegins_with\(", r"^\s*(SET|ADD|REMOVE|DELETE)\s+[#:\w]",
    r"^GSI\d+(PK|SK)?$", r"^(PK|SK)$")]


def _modules() -> list[tuple[str, Path]]:
    return sorted((str(p.relative_to(PACKAGE)), p) for p in PACKAGE.rglob("*.py")
                  if "__pycache__" not in p.parts)


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants that are code, not docstrings."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def test_no_module_is_over_450_lines():
    """A module that grows past this mixes reasons to change: split it by use case."""
    long = {name: n for name, path in _modules()
            if name not in WHOLE and (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_storage_vocabulary_stays_in_repo():
    """Use cases, workers and the read side call repository verbs; expressions, conditions,
    key and index names are the repository's to write."""
    found = []
    for name, path in _modules():
        if name.startswith("repo/"):
            continue
        for line, value in _strings(ast.parse(path.read_text())):
            if any(p.search(value) for p in STORAGE):
                found.append(f"{name}:{line}: {value!r}")
    assert found == []


def test_the_rules_see_what_they_look_for():
    """The storage rule finds the vocabulary it forbids (a rule that can find nothing passes
    for the wrong reason)."""
    code = 'x = base.Op("Update", expression="ADD n :one", condition="attribute_exists(PK)")\n' \
           'y = query("GSI2", index="GSI1PK")\nz = item["SK"]\n"""not this: SET a = b"""'
    hits = [v for _, v in _strings(ast.parse(code)) if any(p.search(v) for p in STORAGE)]
    assert sorted(hits) == sorted(["ADD n :one", "attribute_exists(PK)", "GSI2", "GSI1PK", "SK"])


def test_the_tests_contract_finds_a_test_module_importing_another():
    """The custom import-linter contract (tests/template/import_contracts.py) on a small
    graph: a test importing the rig is kept, one test importing another is broken."""
    import grimp

    from tests.template.import_contracts import NoTestImportsTestContract

    graph = grimp.ImportGraph()
    for module in ("tests", "tests.rig", "tests.rig.accounts", "tests.api",
                   "tests.api.test_a", "tests.api.test_b"):
        graph.add_module(module)
    graph.add_import(importer="tests.api.test_a", imported="tests.rig.accounts",
                     line_number=1, line_contents="from tests.rig import accounts")
    contract = NoTestImportsTestContract(name="tests", session_options={},
                                         contract_options={"packages": ["tests"]})
    assert contract.check(graph, verbose=False).kept
    graph.add_import(importer="tests.api.test_b", imported="tests.api.test_a",
                     line_number=7, line_contents="from tests.api.test_a import helper")
    check = contract.check(graph, verbose=False)
    assert not check.kept
    assert check.metadata["violations"] == [
        {"importer": "tests.api.test_b", "imported": "tests.api.test_a", "lines": [7]}]
