"""The rule the whole suite runs under (tests/rig/records.py): a repo verb hands the code
outside repo/ records without storage keys, shaped as its model declares. These tests make the
guard meet what it forbids."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from stratus.model.statuses import Status
from tests.rig import records


def _leaky(status_id: str) -> dict:
    return {"PK": f"STATUS#{status_id}", "SK": "STATUS", "id": status_id}


def _declared(status_id: str) -> Status | None:
    return {"id": status_id, "visibility": "public", "shown_to": ["everyone"]}


def _mistyped(status_id: str) -> Status | None:
    return {"id": status_id, "sensitive": "yes"}


def _entries(count: int) -> Iterator[Status]:
    yield {"id": "1"}
    yield {"id": "2", "GSI1PK": "ACCOUNT#1"}


def test_a_verb_that_hands_out_storage_keys_fails_the_test():
    with pytest.raises(AssertionError, match=r"storage keys \['PK', 'SK'\]"):
        records._guard("stratus.repo.example.leaky", _leaky)("1")


def test_an_attribute_the_model_does_not_name_fails_the_test():
    with pytest.raises(AssertionError, match='unexpected extra key.*"shown_to"'):
        records._guard("stratus.repo.example.declared", _declared)("1")


def test_an_attribute_of_the_wrong_type_fails_the_test():
    with pytest.raises(AssertionError, match="'sensitive' is not an instance of bool"):
        records._guard("stratus.repo.example.mistyped", _mistyped)("1")


def test_each_entry_of_a_listing_is_checked():
    listing = records._guard("stratus.repo.example.entries", _entries)(2)
    assert next(listing) == {"id": "1"}
    with pytest.raises(AssertionError, match="GSI1PK"):
        next(listing)


def test_a_record_as_declared_passes_and_repo_itself_may_see_keys():
    conforming = records._guard("stratus.repo.example.ok", lambda: {"id": "1"})
    assert conforming() == {"id": "1"}
    inside = records._guard("stratus.repo.example.leaky", _leaky)
    assert eval("verb('1')", {"__name__": "stratus.repo.example", "verb": inside})["PK"]


def test_code_outside_repo_calls_verbs_through_their_module():
    """`from stratus.repo.x import verb` would bind the function before the guard wraps it:
    outside repo/ a verb is called as `module.verb` (constants and classes may be imported)."""
    import ast
    import importlib
    import inspect
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = []
    for path in [*(root / "layers/shared/stratus").rglob("*.py"),
                 *(root / "functions").rglob("*.py")]:
        if "repo" in path.relative_to(root).parts[:4] and path.parent.name == "repo":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "stratus.repo."):
                module = importlib.import_module(node.module)
                found += [f"{path.relative_to(root)}:{node.lineno} {alias.name}"
                          for alias in node.names
                          if inspect.isfunction(getattr(module, alias.name, None))]
    assert found == []
