"""Step Functions for the local stack: the state machines of template.yaml run against the real
functions.

moto stores state machines and executions (so `StartExecution` from our code goes to the same
API it calls on AWS, under the same IAM policy), but it cannot run a Lambda task without Docker
(docs/local-stack.md). This module runs them instead: `load()` reads a definition and refuses
anything outside the subset below (a state machine that used more would be silently wrong here,
so the local stack does not start), and `Run.advance()` executes one state at a time, so the
pipeline interleaves executions with the stream and the queues as AWS would and a restart can
carry a running execution across (local/snapshot.py).

The subset, with AWS's semantics:
- States: Task (Resource = a Lambda function's ARN: the state's input is the event, the function's
  return value the result), Choice, Pass, Wait (Seconds), Succeed, Fail.
- Paths: `ResultPath` ("$", null, or "$.field"), Choice `Variable` as "$.a.b".
- Retry (ErrorEquals, IntervalSeconds, MaxAttempts, BackoffRate, MaxDelaySeconds) and Catch
  (ErrorEquals, Next, ResultPath) on Task; error names are the exception's class name,
  `States.TaskFailed` and `States.ALL` match any task failure.
- Choice rules: BooleanEquals, StringEquals, NumericEquals, NumericGreaterThan(Equals),
  NumericLessThan(Equals), IsPresent, IsNull, And, Or, Not.
- An execution's history is limited to 25,000 events, as on AWS (a Task counts 5, any other
  state 2): beyond it the execution fails with `States.Runtime`.
Waits and retry intervals are capped by the pipeline's retry delay (0 in the tests), so a test
does not sleep; the order of attempts is unchanged.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

HISTORY_LIMIT = 25_000
_TASK_KEYS = {"Type", "Resource", "Next", "End", "Retry", "Catch", "ResultPath", "Comment",
              "TimeoutSeconds"}
_KEYS = {
    "Task": _TASK_KEYS,
    "Choice": {"Type", "Choices", "Default", "Comment"},
    "Pass": {"Type", "Result", "ResultPath", "Next", "End", "Comment"},
    "Wait": {"Type", "Seconds", "Next", "End", "Comment"},
    "Succeed": {"Type", "Comment"},
    "Fail": {"Type", "Error", "Cause", "Comment"},
}
_COMPARISONS = {
    "BooleanEquals": lambda v, x: isinstance(v, bool) and v == x,
    "StringEquals": lambda v, x: isinstance(v, str) and v == x,
    "NumericEquals": lambda v, x: _number(v) and v == x,
    "NumericGreaterThan": lambda v, x: _number(v) and v > x,
    "NumericGreaterThanEquals": lambda v, x: _number(v) and v >= x,
    "NumericLessThan": lambda v, x: _number(v) and v < x,
    "NumericLessThanEquals": lambda v, x: _number(v) and v <= x,
    "IsNull": lambda v, x: (v is None) == x,
}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class UnsupportedDefinition(ValueError):
    """A definition the local stack cannot run faithfully."""


class TaskError(Exception):
    def __init__(self, error: str, cause: str) -> None:
        super().__init__(f"{error}: {cause}")
        self.error, self.cause = error, cause


_MISSING = object()
_PATH = re.compile(r"^\$(\.[A-Za-z_][A-Za-z0-9_-]*)+$")


def _path(doc: Any, path: str) -> Any:
    if path == "$":
        return doc
    if not _PATH.match(path):
        raise UnsupportedDefinition(f"path {path!r}: only $ and $.a.b are supported")
    for part in path[2:].split("."):
        if not isinstance(doc, dict) or part not in doc:
            return _MISSING
        doc = doc[part]
    return doc


def _place(doc: Any, result: Any, result_path: Any) -> Any:
    if result_path is None:
        return doc
    if result_path == "$":
        return result
    if not isinstance(doc, dict):
        raise TaskError("States.ResultPathMatchFailure", f"cannot apply {result_path} to {doc!r}")
    out = json.loads(json.dumps(doc))
    node = out
    parts = result_path[2:].split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = result
    return out


def _check_rule(rule: dict[str, Any], top: bool) -> None:
    if "And" in rule or "Or" in rule:
        for sub in rule.get("And") or rule.get("Or"):
            _check_rule(sub, False)
    elif "Not" in rule:
        _check_rule(rule["Not"], False)
    else:
        ops = [k for k in rule if k not in ("Variable", "Next")]
        if len(ops) != 1 or (ops[0] not in _COMPARISONS and ops[0] != "IsPresent"):
            raise UnsupportedDefinition(f"choice rule {rule}: unsupported comparison")
        _path({}, rule["Variable"])
    if top and "Next" not in rule:
        raise UnsupportedDefinition(f"choice rule {rule} has no Next")


def _matches(rule: dict[str, Any], doc: Any) -> bool:
    if "And" in rule:
        return all(_matches(r, doc) for r in rule["And"])
    if "Or" in rule:
        return any(_matches(r, doc) for r in rule["Or"])
    if "Not" in rule:
        return not _matches(rule["Not"], doc)
    value = _path(doc, rule["Variable"])
    if "IsPresent" in rule:
        return (value is not _MISSING) == rule["IsPresent"]
    if value is _MISSING:  # AWS: a comparison on a missing variable is a runtime error
        raise TaskError("States.Runtime", f"invalid path {rule['Variable']!r}: not found")
    op = next(k for k in rule if k in _COMPARISONS)
    return _COMPARISONS[op](value, rule[op])


def _error_matches(names: list[str], error: str) -> bool:
    if "States.ALL" in names:
        return True
    task_failure = not error.startswith("States.") or error == "States.TaskFailed"
    return error in names or ("States.TaskFailed" in names and task_failure)


@dataclass(frozen=True)
class Definition:
    name: str
    start_at: str
    states: dict[str, dict[str, Any]]


def load(name: str, definition: dict[str, Any], functions: Callable[[str], str | None]
         ) -> Definition:
    """A definition checked against the subset; `functions` maps a Task's Resource (an ARN) to
    the local function that plays it (None: not a function of this stack)."""
    states = definition.get("States") or {}
    start = definition.get("StartAt")
    if start not in states:
        raise UnsupportedDefinition(f"{name}: StartAt {start!r} is not a state")
    for state_name, state in states.items():
        kind = state.get("Type")
        if kind not in _KEYS:
            raise UnsupportedDefinition(f"{name}.{state_name}: state type {kind!r}")
        extra = set(state) - _KEYS[kind]
        if extra:
            raise UnsupportedDefinition(f"{name}.{state_name}: unsupported fields {sorted(extra)}")
        targets = [state.get("Next"), state.get("Default"),
                   *(r.get("Next") for r in state.get("Choices", [])),
                   *(c.get("Next") for c in state.get("Catch", []))]
        for target in filter(None, targets):
            if target not in states:
                raise UnsupportedDefinition(f"{name}.{state_name}: Next {target!r} is not a state")
        if kind in ("Task", "Pass", "Wait") and not (state.get("Next") or state.get("End")):
            raise UnsupportedDefinition(f"{name}.{state_name}: needs Next or End")
        if kind == "Task" and functions(str(state.get("Resource"))) is None:
            raise UnsupportedDefinition(
                f"{name}.{state_name}: Resource {state.get('Resource')!r} is not a function of "
                "this stack (only direct Lambda tasks run locally)")
        for path in (state.get("ResultPath"), *(c.get("ResultPath") for c in state.get("Catch", []))):
            if path is not None and path != "$":
                _path({}, path)
        for rule in state.get("Choices", []):
            _check_rule(rule, True)
        if kind == "Wait" and not isinstance(state.get("Seconds"), int):
            raise UnsupportedDefinition(f"{name}.{state_name}: Wait needs integer Seconds")
    return Definition(name, start, states)


@dataclass
class Run:
    """One execution in progress: where it is and what it carries."""

    arn: str
    machine: str  # the state machine's logical id
    state: str
    doc: Any
    attempts: dict[str, int] = field(default_factory=dict)  # "<state>#<retrier>" -> retries used
    not_before: float = 0.0
    events: int = 2  # ExecutionStarted, ExecutionSucceeded/Failed
    outcome: tuple[str, Any] | None = None  # ("SUCCEEDED", output) | ("FAILED", (error, cause))

    def to_dict(self) -> dict[str, Any]:
        return {"arn": self.arn, "machine": self.machine, "state": self.state, "doc": self.doc,
                "attempts": self.attempts, "events": self.events}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Run:
        return cls(data["arn"], data["machine"], data["state"], data["doc"],
                   dict(data.get("attempts") or {}), events=int(data.get("events", 2)))

    def due(self, now: float) -> bool:
        return self.outcome is None and now >= self.not_before

    def advance(self, definition: Definition, call: Callable[[str, Any], Any], *,
                max_wait: float, now: float | None = None) -> None:
        """Run the current state once: a Task calls its function (`call(resource, input)`)."""
        now = time.monotonic() if now is None else now
        state = definition.states[self.state]
        kind = state["Type"]
        self.events += 5 if kind == "Task" else 2
        if self.events > HISTORY_LIMIT:
            self.outcome = ("FAILED", ("States.Runtime",
                                       f"the execution reached the limit of {HISTORY_LIMIT} "
                                       "history events"))
            return
        try:
            if kind == "Task":
                self._task(state, call, max_wait, now)
            elif kind == "Choice":
                target = next((r["Next"] for r in state["Choices"] if _matches(r, self.doc)),
                              state.get("Default"))
                if target is None:
                    raise TaskError("States.NoChoiceMatched", f"no choice matched in {self.state}")
                self.state = target
            elif kind == "Pass":
                if "Result" in state:
                    self.doc = _place(self.doc, state["Result"], state.get("ResultPath", "$"))
                self._next(state)
            elif kind == "Wait":
                self.not_before = now + min(state["Seconds"], max_wait)
                self._next(state)
            elif kind == "Succeed":
                self.outcome = ("SUCCEEDED", self.doc)
            elif kind == "Fail":
                self.outcome = ("FAILED", (state.get("Error", ""), state.get("Cause", "")))
        except TaskError as exc:
            self.outcome = ("FAILED", (exc.error, exc.cause))

    def _next(self, state: dict[str, Any]) -> None:
        if state.get("End"):
            self.outcome = ("SUCCEEDED", self.doc)
        else:
            self.state = state["Next"]

    def _task(self, state: dict[str, Any], call: Callable[[str, Any], Any], max_wait: float,
              now: float) -> None:
        try:
            result = call(state["Resource"], self.doc)
        except Exception as exc:  # noqa: BLE001 - the function failed: Retry, Catch or fail
            error, cause = type(exc).__name__, json.dumps(
                {"errorMessage": str(exc), "errorType": type(exc).__name__})
            for index, retrier in enumerate(state.get("Retry", [])):
                if not _error_matches(retrier["ErrorEquals"], error):
                    continue
                key = f"{self.state}#{index}"
                used = self.attempts.get(key, 0)
                if used < int(retrier.get("MaxAttempts", 3)):
                    self.attempts[key] = used + 1
                    delay = float(retrier.get("IntervalSeconds", 1)) * float(
                        retrier.get("BackoffRate", 2.0)) ** used
                    delay = min(delay, float(retrier.get("MaxDelaySeconds", delay)))
                    self.not_before = now + min(delay, max_wait)
                    return
                break  # the first matching retrier decides (AWS)
            for catcher in state.get("Catch", []):
                if _error_matches(catcher["ErrorEquals"], error):
                    self.doc = _place(self.doc, {"Error": error, "Cause": cause},
                                      catcher.get("ResultPath", "$"))
                    self.attempts = {}
                    self.state = catcher["Next"]
                    return
            raise TaskError(error, cause) from None
        self.attempts = {k: v for k, v in self.attempts.items()
                         if not k.startswith(f"{self.state}#")}
        self.doc = _place(self.doc, result, state.get("ResultPath", "$"))
        self._next(state)
