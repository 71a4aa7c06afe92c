"""The repository boundary, checked in every test: what a `stratus.repo` verb hands to code
outside `repo/` carries no storage key (PK, SK, GSI*), and a verb whose answer is declared
with the records of `stratus.model` (TypedDicts) answers exactly that — no attribute the
model does not name, each of the declared type (typeguard)."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
import sys
import typing
from collections.abc import Generator, Iterator

import pytest
from typeguard import CollectionCheckStrategy, TypeCheckError, check_type

KEY = re.compile(r"^(PK|SK|GSI\d+(PK|SK))$")
PRIVATE = {"stratus.repo.base", "stratus.repo.keys", "stratus.repo.client"}


def _leaks(value, depth: int = 0) -> set[str]:
    if depth > 3:
        return set()
    if isinstance(value, dict):
        found = {k for k in value if isinstance(k, str) and KEY.match(k)}
        for v in value.values():
            if isinstance(v, (dict, list, tuple, set)):
                found |= _leaks(v, depth + 1)
        return found
    if isinstance(value, (list, tuple)):
        found = set()
        for v in value[:50]:
            found |= _leaks(v, depth + 1)
        return found
    return set()


def _typed(hint) -> bool:
    """Whether a return annotation names a record of stratus.model."""
    if typing.is_typeddict(hint):
        return True
    return any(_typed(arg) for arg in typing.get_args(hint))


def _declared(fn):
    """(the annotation each answer is checked against, whether it is per item of an
    iterator) — None when the verb declares no model record."""
    try:
        hint = typing.get_type_hints(fn).get("return")
    except Exception:  # a name only importable for type checkers
        return None
    if hint is None or not _typed(hint):
        return None
    if typing.get_origin(hint) in (Iterator, Generator):
        return typing.get_args(hint)[0], True
    return hint, False


def _conforms(name: str, value, hint) -> None:
    try:
        check_type(value, hint, collection_check_strategy=CollectionCheckStrategy.ALL_ITEMS)
    except TypeCheckError as error:
        raise AssertionError(f"{name} answered what its model does not say: {error}") from None


def _check(name: str, value, hint=None) -> None:
    if hint is not None:
        _conforms(name, value, hint)
    leaked = _leaks(value)
    if leaked:
        raise AssertionError(f"{name} handed storage keys {sorted(leaked)} outside repo/")


def _outside(frame_depth: int = 2) -> bool:
    caller = sys._getframe(frame_depth).f_globals.get("__name__", "")
    return not caller.startswith("stratus.repo")


def _guard(name: str, fn):
    hint, per_item = _declared(fn) or (None, False)
    whole, item_hint = (None, hint) if per_item else (hint, None)
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def generator(*args, **kwargs):
            outside = _outside()
            for item in fn(*args, **kwargs):
                if outside:
                    _check(name, item, item_hint)
                yield item
        return generator

    @functools.wraps(fn)
    def plain(*args, **kwargs):
        result = fn(*args, **kwargs)
        if _outside():
            if isinstance(result, Iterator):
                return _checked_iter(name, result, item_hint)
            _check(name, result, whole)
        return result
    return plain


def _checked_iter(name, iterator, hint):
    for item in iterator:
        _check(name, item, hint)
        yield item


def _verbs():
    import stratus.repo as package

    for info in pkgutil.iter_modules(package.__path__, "stratus.repo."):
        if info.name in PRIVATE:
            continue
        module = importlib.import_module(info.name)
        for attr, fn in vars(module).items():
            if (not attr.startswith("_") and inspect.isfunction(fn)
                    and fn.__module__ == info.name):
                yield module, attr, fn


@pytest.fixture(scope="session", autouse=True)
def repository_boundary():
    patched = []
    for module, attr, fn in list(_verbs()):
        setattr(module, attr, _guard(f"{module.__name__}.{attr}", fn))
        patched.append((module, attr, fn))
    yield
    for module, attr, fn in patched:
        setattr(module, attr, fn)
