"""local/states.py: the Step Functions subset the local stack runs, with AWS's semantics, and
what it refuses to run."""

from __future__ import annotations

import copy

import pytest

from local import stack as local_stack
from local import states

FN = "arn:aws:lambda:us-east-1:123456789012:function:Worker"


def functions(resource: str) -> str | None:
    return "Worker" if resource == FN else None


LOOP = {
    "StartAt": "Step",
    "States": {
        "Step": {"Type": "Task", "Resource": FN, "Next": "Done?",
                 "Retry": [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 2,
                            "MaxAttempts": 2, "BackoffRate": 2}]},
        "Done?": {"Type": "Choice", "Default": "Step",
                  "Choices": [{"Variable": "$.done", "BooleanEquals": True, "Next": "Finished"}]},
        "Finished": {"Type": "Succeed"},
    },
}


def run_to_end(definition, call, doc, *, max_rounds=1000):
    run = states.Run("arn:x", "M", definition.start_at, doc)
    for _ in range(max_rounds):
        if run.outcome:
            return run
        run.advance(definition, call, max_wait=0, now=0)
    raise AssertionError("did not finish")


def test_a_task_choice_loop_runs_until_the_function_says_done():
    seen = []

    def call(resource, doc):
        seen.append(doc["cursor"])
        return {"cursor": doc["cursor"] + 1, "done": doc["cursor"] + 1 == 3}

    run = run_to_end(states.load("M", LOOP, functions), call, {"cursor": 0})
    assert run.outcome == ("SUCCEEDED", {"cursor": 3, "done": True})
    assert seen == [0, 1, 2]


def test_a_failing_step_is_retried_with_the_same_input_then_the_execution_goes_on():
    calls = []

    def call(resource, doc):
        calls.append(dict(doc))
        if len(calls) <= 2:  # killed twice midway
            raise TimeoutError("Task timed out")
        return {"done": True}

    definition = states.load("M", LOOP, functions)
    run = states.Run("arn:x", "M", definition.start_at, {"cursor": 7})
    run.advance(definition, call, max_wait=60, now=100)
    assert run.state == "Step" and run.not_before == 102  # IntervalSeconds
    assert not run.due(101)
    run.advance(definition, call, max_wait=60, now=102)
    assert run.not_before == 106  # × BackoffRate
    run.advance(definition, call, max_wait=60, now=106)
    assert run.state == "Done?" and run.attempts == {}
    assert calls == [{"cursor": 7}] * 3


def test_retries_exhausted_fail_the_execution_with_the_functions_error():
    def call(resource, doc):
        raise KeyError("boom")

    run = run_to_end(states.load("M", LOOP, functions), call, {})
    status, (error, cause) = run.outcome
    assert status == "FAILED" and error == "KeyError" and "boom" in cause


def test_catch_routes_the_error_into_the_document():
    definition = copy.deepcopy(LOOP)
    definition["States"]["Step"]["Retry"] = [{"ErrorEquals": ["TimeoutError"]}]
    definition["States"]["Step"]["Catch"] = [{"ErrorEquals": ["States.TaskFailed"],
                                              "ResultPath": "$.error", "Next": "Failed"}]
    definition["States"]["Failed"] = {"Type": "Fail", "Error": "Gave.Up", "Cause": "see error"}

    def call(resource, doc):
        raise ValueError("bad input")

    run = run_to_end(states.load("M", definition, functions), call, {"a": 1})
    assert run.outcome == ("FAILED", ("Gave.Up", "see error"))
    assert run.doc["a"] == 1 and run.doc["error"]["Error"] == "ValueError"


def test_result_path_keeps_the_input_and_choice_on_a_missing_variable_fails():
    definition = {"StartAt": "T", "States": {
        "T": {"Type": "Task", "Resource": FN, "ResultPath": "$.result", "Next": "C"},
        "C": {"Type": "Choice", "Choices": [{"Variable": "$.nope", "NumericEquals": 1,
                                             "Next": "E"}], "Default": "E"},
        "E": {"Type": "Succeed"}}}
    run = run_to_end(states.load("M", definition, functions), lambda r, d: 5, {"in": 1})
    assert run.doc == {"in": 1, "result": 5}
    assert run.outcome[0] == "FAILED" and run.outcome[1][0] == "States.Runtime"


def test_the_history_limit_stops_a_runaway_loop_as_aws_does():
    run = run_to_end(states.load("M", LOOP, functions), lambda r, d: {"done": False}, {},
                     max_rounds=20_000)
    assert run.outcome[0] == "FAILED" and run.outcome[1][0] == "States.Runtime"
    assert run.events > states.HISTORY_LIMIT


@pytest.mark.parametrize("change, message", [
    (lambda d: d["States"].__setitem__("P", {"Type": "Parallel", "Branches": [], "End": True}),
     "state type"),
    (lambda d: d["States"]["Step"].__setitem__("Parameters", {"a.$": "$"}), "unsupported fields"),
    (lambda d: d["States"]["Step"].__setitem__("Resource", "arn:aws:states:::sqs:sendMessage"),
     "not a function"),
    (lambda d: d["States"]["Step"].__setitem__("Next", "Nowhere"), "is not a state"),
    (lambda d: d["States"]["Step"].__setitem__("ResultPath", "$.a[0]"), None),
    (lambda d: d["States"]["Done?"]["Choices"][0].__setitem__("StringMatches", "x*"),
     "unsupported comparison"),
])
def test_definitions_outside_the_subset_are_refused(change, message):
    definition = copy.deepcopy(LOOP)
    change(definition)
    with pytest.raises(states.UnsupportedDefinition, match=message):
        states.load("M", definition, functions)


def test_the_local_stack_refuses_a_template_resource_it_cannot_emulate(runtime):
    template = copy.deepcopy(runtime.stack.template)
    template["Resources"]["Feed"] = {"Type": "AWS::Kinesis::Stream",
                                     "Properties": {"ShardCount": 1}}
    with pytest.raises(local_stack.UnsupportedResource, match=r"Feed \(AWS::Kinesis::Stream\)"):
        local_stack.build(runtime.stack.resolver.parameters, create=False, template=template)


def test_every_resource_type_of_the_template_is_accounted_for(runtime):
    kinds = {r["Type"] for r in runtime.stack.template["Resources"].values()}
    assert kinds <= set(local_stack.RESOURCE_TYPES)
