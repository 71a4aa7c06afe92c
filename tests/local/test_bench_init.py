"""`python -m bench init` (bench/init.py): the environment it gives each function (what
Lambda would: the template's variables, the runtime's, tracing as the template says), the first
request it times, and the ratio table. No timings here: those are the bench's, never a test's.

And what keeps INIT short staying so: importing any function's handler module, as Lambda does
with tracing on, loads neither the X-Ray SDK, nor boto3, nor pydantic v1, nor the emoji tables.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from bench import init as bench_init
from local import cfn
from local.gateway import Router

TEMPLATE = cfn.load_template()
FUNCTIONS = {fn.logical_id: fn for fn in cfn.functions(TEMPLATE)}


@pytest.fixture
def resolver():
    return cfn.Resolver(TEMPLATE, {"InstanceDomain": "social.example"})


# --- tracing and the environment ------------------------------------------------------------
def test_tracing_comes_from_globals_unless_the_function_says_otherwise():
    template = {"Parameters": {"Mode": {"Type": "String", "Default": "Active"}},
                "Globals": {"Function": {"Tracing": "Active"}},
                "Resources": {"A": {"Properties": {}},
                              "B": {"Properties": {"Tracing": "PassThrough"}},
                              "C": {"Properties": {"Tracing": {"Ref": "Mode"}}}}}
    resolver = cfn.Resolver(template, {})
    assert bench_init.tracing_mode(template, "A", resolver) == "Active"
    assert bench_init.tracing_mode(template, "B", resolver) == "PassThrough"
    assert bench_init.tracing_mode(template, "C", resolver) == "Active"  # a parameter's default
    assert bench_init.tracing_mode({"Resources": {"A": {}}}, "A", resolver) == "PassThrough"


def test_the_template_traces_every_function(resolver):
    assert {bench_init.tracing_mode(TEMPLATE, name, resolver) for name in FUNCTIONS} == {"Active"}


def test_active_tracing_sets_what_lambda_sets_for_the_x_ray_sdk():
    env = bench_init.runtime_env("TimelinesFunction", memory=512, tracing="Active",
                                 task_root="/var/task", xray_daemon="127.0.0.1:4000")
    assert env["AWS_XRAY_DAEMON_ADDRESS"] == "127.0.0.1:4000"
    assert (env["_AWS_XRAY_DAEMON_ADDRESS"], env["_AWS_XRAY_DAEMON_PORT"]) == ("127.0.0.1", "4000")
    assert env["AWS_XRAY_CONTEXT_MISSING"] == "LOG_ERROR"
    # Powertools traces only where LAMBDA_TASK_ROOT is set (it is Lambda's mark).
    assert env["LAMBDA_TASK_ROOT"] == "/var/task"
    assert env["AWS_LAMBDA_FUNCTION_NAME"] == "TimelinesFunction"
    assert env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "512"
    untraced = bench_init.runtime_env("X", memory=128, tracing="PassThrough", task_root="/t")
    assert not any(key.startswith(("AWS_XRAY", "_AWS_XRAY")) for key in untraced)


def test_a_function_gets_its_template_variables_and_nothing_of_the_bench_process(
        resolver, monkeypatch):
    # The bench process itself runs with tracing and metrics off (bench/main.py sets these).
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    fn = FUNCTIONS["TimelinesFunction"]
    env = bench_init.function_env(fn, TEMPLATE, resolver, task_root="/ship/functions/timelines",
                                  layer_root="/ship/layer", xray_daemon="127.0.0.1:4000",
                                  plumbing={"AWS_ENDPOINT_URL": "http://127.0.0.1:5000"})
    assert "POWERTOOLS_TRACE_DISABLED" not in env
    assert "POWERTOOLS_METRICS_DISABLED" not in env
    assert env["POWERTOOLS_SERVICE_NAME"] == "timelines"  # the function's own
    assert env["POWERTOOLS_METRICS_NAMESPACE"] == "Stratus"  # Globals'
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"  # Globals': nothing compiled at run time
    assert env["INSTANCE_DOMAIN"] == "social.example"  # resolved against the stack
    assert env["AWS_XRAY_DAEMON_ADDRESS"] == "127.0.0.1:4000"  # Tracing: Active, from Globals
    assert env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "512"  # Globals' MemorySize
    assert env["AWS_ENDPOINT_URL"] == "http://127.0.0.1:5000"
    assert env["PYTHONPATH"] == "/ship/layer"
    assert env["LAMBDA_TASK_ROOT"] == "/ship/functions/timelines"
    variables = set(fn.environment)
    assert variables <= set(env)
    # Only what Lambda or the template sets, the plumbing, PATH and PYTHONPATH.
    runtime = bench_init.runtime_env(fn.logical_id, memory=512, tracing="Active", task_root="/")
    assert set(env) == variables | set(runtime) | {"AWS_ENDPOINT_URL", "PATH", "PYTHONPATH"}


def test_the_anchor_has_the_globals_and_the_main_table(resolver, tmp_path):
    anchor = bench_init.anchor_function(TEMPLATE, tmp_path)
    env = bench_init.function_env(anchor, TEMPLATE, resolver, task_root=str(tmp_path),
                                  layer_root="/ship/layer")
    assert env["MAIN_TABLE"] == resolver.ref("MainTable")
    assert env["POWERTOOLS_SERVICE_NAME"] == "anchor"
    assert env["POWERTOOLS_METRICS_NAMESPACE"] == "Stratus"
    assert "AWS_XRAY_DAEMON_ADDRESS" in env  # the template's tracing, as for the functions
    compile(bench_init.ANCHOR, "app.py", "exec")


def test_what_lambda_does_not_have_cannot_be_imported_in_the_measured_process():
    have = bench_init.lambda_distributions(cfn.ROOT / "layers/shared/requirements.txt")
    assert {"fastapi", "mangum", "aws-lambda-powertools", "aws-xray-sdk", "boto3",
            "botocore"} <= have
    blocked = set(bench_init.not_on_lambda(have, own={"stratus"}))
    assert {"httpx", "moto", "pytest", "yaml"} <= blocked  # the dev virtualenv's
    assert not blocked & {"fastapi", "starlette", "pydantic", "aws_xray_sdk", "boto3",
                          "botocore", "stratus", "json", "os"}


# --- the first request ------------------------------------------------------------------------
HTTP = [fn for fn in FUNCTIONS.values() if fn.routes and fn.handler != "run.sh"]


@pytest.mark.parametrize("fn", HTTP, ids=lambda fn: fn.logical_id)
def test_each_http_function_is_first_asked_an_authenticated_request_of_its_own(fn):
    event = bench_init.first_event(fn, token="t0ken", username="bench", domain="social.example")
    method = event["requestContext"]["http"]["method"]
    path = event["rawPath"]
    # API Gateway would send it to this function, by the route the event names.
    everyone = Router(SimpleNamespace(functions=FUNCTIONS)).match(method, path)
    assert everyone is not None and everyone[0].function == fn.logical_id
    assert event["routeKey"] == f"{everyone[0].method} {everyone[0].template}"
    assert event["headers"]["authorization"] == "Bearer t0ken"
    assert event["headers"]["host"] == "social.example"
    assert method == "GET" or fn.logical_id == "InboxFunction"  # federation only POSTs


def test_a_function_without_routes_gets_its_sample_event():
    fn = FUNCTIONS["FanoutFunction"]
    assert bench_init.first_event(fn, token="t", username="u", domain="d") == json.loads(
        (cfn.ROOT / "events" / "FanoutFunction.json").read_text())


def test_a_function_without_a_plain_get_must_be_named():
    fn = cfn.Function("NewFunction", cfn.ROOT, "app.handler", {},
                      routes=[cfn.Route("POST", "/api/v1/new")])
    with pytest.raises(LookupError, match="FIRST_REQUESTS"):
        bench_init.first_request(fn)


# --- the ratio table --------------------------------------------------------------------------
def test_ratios_are_to_the_anchor_of_the_same_run_slowest_first():
    anchor = bench_init.Figures(init=[500.0], first=[50.0])
    figures = {"Fast": bench_init.Figures([200.0], [150.0]),
               "Slow": bench_init.Figures([450.0], [200.0]),
               "Edge": bench_init.Figures([400.0], [0.0])}
    rows = bench_init.ratio_table(anchor, figures)
    assert [row.name for row in rows] == ["Slow", "Edge", "Fast"]
    slow, edge, fast = rows
    assert slow.init_ratio == pytest.approx(0.9) and not slow.meets
    assert edge.init_ratio == pytest.approx(0.8) and edge.meets  # at most 0.8× meets
    assert fast.init_ratio == pytest.approx(0.4) and fast.meets
    # INIT + first request, against the anchor's: moved work shows here.
    assert fast.total_ratio == pytest.approx(350 / 550)
    assert slow.total_ratio == pytest.approx(650 / 550)
    line = bench_init.summary(rows)
    assert line.startswith("2 of 3 functions at most 0.8× the anchor's INIT (slowest Slow 0.90×")
    assert "slowest Slow 1.18×" in line


def test_figures_are_medians_of_the_runs():
    figures = bench_init.Figures(init=[200.0, 900.0, 210.0, 205.0, 195.0],  # one busy moment
                                 first=[20.0, 30.0, 20.0, 20.0, 40.0])
    assert (figures.init_ms, figures.first_ms) == (205.0, 20.0)
    assert figures.total_ms == 230.0  # the median of INIT + first request, not 205 + 20


def test_the_json_has_the_anchor_and_every_function():
    anchor = bench_init.Figures(init=[512.34, 500.0, 520.0], first=[20.0, 20.0, 30.0])
    figures = {"A": bench_init.Figures([300.0], [120.55]),
               "B": bench_init.Figures([100.04], [80.0])}
    assert bench_init.as_json(anchor, figures) == {
        "anchor_ms": 512.3, "functions": {"A": 300.0, "B": 100.0},
        "anchor_first_request_ms": 20.0, "first_request_ms": {"A": 120.5, "B": 80.0}}


# --- what stays off INIT ----------------------------------------------------------------------
OFF_INIT = ("aws_xray_sdk", "boto3", "botocore.client", "pydantic.v1", "emoji")
IMPORT_ALL = textwrap.dedent("""
    import importlib.util, json, os, sys
    loaded = {}
    for name, handler, code_dir in json.loads(sys.argv[1]):
        module_name, attribute = handler.rsplit(".", 1)
        spec = importlib.util.spec_from_file_location(f"fn_{name}",
                                                      f"{code_dir}/{module_name}.py")
        module = importlib.util.module_from_spec(spec)
        before = set(sys.modules)
        sys.path.insert(0, code_dir)  # Lambda's code directory: sibling modules
        spec.loader.exec_module(module)
        getattr(module, attribute)
        sys.path.remove(code_dir)
        for new in set(sys.modules) - before:  # another function's sibling of the same name
            if (getattr(sys.modules[new], "__file__", None) or "").startswith(code_dir + os.sep):
                del sys.modules[new]
        loaded[name] = sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)
    print(json.dumps(loaded))
""")


def test_no_function_loads_the_x_ray_sdk_boto3_pydantic_v1_or_emoji_at_init(tmp_path):
    """Imported as on Lambda with `Tracing: Active` (LAMBDA_TASK_ROOT set, tracing not
    disabled), one function after another in one process: what any of them loads at import
    stays loaded, so a module listed here after a function's name is that function's or an
    earlier one's — each of them is work moved off INIT by docs/performance.md's measures."""
    functions = [(fn.logical_id, fn.handler, str(fn.code_dir).rstrip("/"))
                 for fn in FUNCTIONS.values() if fn.handler != "run.sh"]
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(cfn.ROOT / "layers/shared"),
           "LAMBDA_TASK_ROOT": str(tmp_path), "AWS_LAMBDA_FUNCTION_NAME": "test",
           "AWS_REGION": cfn.REGION, "AWS_DEFAULT_REGION": cfn.REGION,
           "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:9", "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
           "POWERTOOLS_METRICS_NAMESPACE": "Stratus", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL, json.dumps(functions),
                           json.dumps(OFF_INIT)], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(loaded) == {name for name, _, _ in functions}
    assert {name: found for name, found in loaded.items() if found} == {}


def test_fastapi_still_refuses_a_pydantic_v1_model_without_importing_it_for_others():
    from fastapi import APIRouter
    from fastapi._compat import shared
    from fastapi.exceptions import FastAPIError

    import stratus.http

    stratus.http.no_pydantic_v1_import()  # as when a function module imports it after FastAPI
    assert shared.is_pydantic_v1_model_class is stratus.http._v1_model_class
    assert not shared.is_pydantic_v1_model_class(int)
    import warnings

    with warnings.catch_warnings():  # pydantic warns of v1 on some Python versions
        warnings.simplefilter("ignore")
        from pydantic import v1

    class Old(v1.BaseModel):
        name: str

    assert shared.is_pydantic_v1_model_class(Old)
    def route(body):
        return {}

    route.__annotations__ = {"body": Old}  # a class, not this module's postponed string
    with pytest.raises(FastAPIError, match="pydantic.v1 models are no longer supported"):
        APIRouter().post("/old")(route)

