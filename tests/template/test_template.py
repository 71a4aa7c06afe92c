"""template.yaml is the source of truth: check the promises it makes to the code and to ops."""

from __future__ import annotations

import ast
from pathlib import Path

from local import cfn
from local.routes import route_table

TEMPLATE = cfn.load_template()
RESOURCES = TEMPLATE["Resources"]
FUNCTIONS = cfn.functions(TEMPLATE)


def test_runtime_and_architecture():
    globals_ = TEMPLATE["Globals"]["Function"]
    assert globals_["Runtime"] == "python3.13" and globals_["Architectures"] == ["arm64"]
    assert TEMPLATE["Transform"] == "AWS::Serverless-2016-10-31"


def test_main_table_is_the_outbox():
    props = RESOURCES["MainTable"]["Properties"]
    assert props["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert props["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}
    assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    assert [g["IndexName"] for g in props["GlobalSecondaryIndexes"]] == ["GSI1", "GSI2", "GSI3"]
    for table in ("FeedTable", "ConnectionsTable", "IdempotencyTable"):
        assert RESOURCES[table]["Type"] == "AWS::DynamoDB::Table"


def test_every_queue_has_a_dead_letter_queue_with_an_alarm():
    queues = {k for k, v in RESOURCES.items() if v["Type"] == "AWS::SQS::Queue"}
    dlqs = {q for q in queues if q.endswith("DLQ")}
    for queue in queues - dlqs:
        target = RESOURCES[queue]["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]
        assert target["Fn::GetAtt"][0] in dlqs
    alarmed = {v["Properties"]["Dimensions"][0]["Value"]["Fn::GetAtt"][0]
               for v in RESOURCES.values() if v["Type"] == "AWS::CloudWatch::Alarm"}
    assert alarmed == dlqs


def test_handlers_exist_and_only_import_what_the_layer_ships():
    layer_requirements = (cfn.ROOT / "layers/shared/requirements.txt").read_text().lower()
    allowed = {"stratus", "fastapi", "starlette", "pydantic", "mangum", "aws_lambda_powertools",
               "boto3", "botocore", "__future__"}
    for fn in FUNCTIONS:
        if fn.handler == "run.sh":  # the Lambda Web Adapter starts uvicorn with app.py's app
            assert (Path(fn.code_dir) / "run.sh").exists(), fn.logical_id
            module, attribute = "app", "app"
        else:
            module, attribute = fn.handler.rsplit(".", 1)
        path = Path(fn.code_dir) / f"{module}.py"
        assert path.exists(), fn.logical_id
        tree = ast.parse(path.read_text())
        assert any(isinstance(n, ast.Assign) and any(getattr(t, "id", None) == attribute
                                                      for t in n.targets) for n in tree.body)
        # The handler and its sibling modules (Lambda puts the code directory on sys.path).
        siblings = {p.stem for p in Path(fn.code_dir).glob("*.py")}
        for source in Path(fn.code_dir).glob("*.py"):
            for node in ast.walk(ast.parse(source.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    assert top in allowed or top in siblings or \
                        top in __import__("sys").stdlib_module_names, \
                        f"{fn.logical_id} imports {name}"
    assert "fastapi" in layer_requirements and "mangum" in layer_requirements


def test_function_environments_do_not_conflict(runtime):
    # The local stack runs every function in one process with the union of their variables.
    assert runtime.stack.env()["MAIN_TABLE"] == "stratus-local-MainTable"


def test_only_the_repo_layer_talks_to_aws():
    """boto3, botocore and the client factory are used in stratus/repo only."""
    package = cfn.ROOT / "layers/shared/stratus"
    offenders = []
    for path in [*package.rglob("*.py"), *(cfn.ROOT / "functions").rglob("*.py")]:
        if path.parent == package / "repo":
            continue
        source = path.read_text()
        if any(marker in source for marker in ("import boto3", "from boto3", "import botocore",
                                               "repo.client", "from .client")):
            offenders.append(str(path.relative_to(cfn.ROOT)))
    assert offenders == []


def test_key_strings_are_built_only_in_keys_module():
    """Every key prefix keys.py defines, and key parsing, appear nowhere else in the package."""
    import re

    package = cfn.ROOT / "layers/shared/stratus"
    prefixes = set(re.findall(r'"([A-Z][A-Z0-9_]*#)', (package / "repo/keys.py").read_text()))
    assert {"ACCT#", "STATUS#", "TOKEN#", "TAG#", "AUDITON#"} <= prefixes
    for path in package.rglob("*.py"):
        if path.name == "keys.py":
            continue
        source = path.read_text()
        for prefix in prefixes:
            assert f'"{prefix}' not in source, f"{path.name} builds a key: {prefix}"
        assert 'split("#"' not in source and 'partition("#")' not in source, \
            f"{path.name} parses a key"


def test_every_app_route_is_reachable_through_the_template(runtime):
    """Each FastAPI route of a function must be routed to that same function by template.yaml
    (what API Gateway will do), or it would work locally in tests and 404 on AWS."""
    import re

    from local.gateway import Router

    router = Router(runtime.stack)
    checked = 0
    for info in route_table(runtime.stack):  # every function's app, included routers too
        found = router.match(info.method, re.sub(r"\{[^}]+\}", "123", info.path))
        assert found is not None, f"{info.method} {info.path} is not routed"
        assert found[0].function == info.function, \
            f"{info.method} {info.path} goes to {found[0].function}, not {info.function}"
        checked += 1
    assert checked > 50


def test_business_layers_do_not_need_the_web_framework():
    """Everything below the HTTP plumbing (`http/`, `auth/deps`, `web/`) imports without FastAPI
    or Starlette: use cases, workers, federation, the read side, storage and the pure packages
    are used by workers and the operator CLI, and stay testable on their own."""
    import subprocess
    import sys

    package = cfn.ROOT / "layers/shared"
    layers = ("api", "workers", "federation", "read", "repo", "convert", "policy", "model",
              "imaging", "text", "jobs", "core")
    modules = [".".join(p.relative_to(package).with_suffix("").parts) for layer in layers
               for p in (package / "stratus" / layer).rglob("*.py") if p.stem != "__init__"]
    code = ("import importlib, sys\n"
            f"for name in {modules!r}: importlib.import_module(name)\n"
            "print(sorted(m for m in ('fastapi', 'starlette', 'mangum') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=cfn.ROOT, env={"PYTHONPATH": f"{cfn.ROOT / 'layers/shared'}"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_media_is_served_as_stored_and_never_runs_script():
    """User files come from CloudFront: a response headers policy adds `nosniff` (the stored
    content type is final) and Mastodon's no-script CSP for /system, to every response."""
    behaviour = RESOURCES["MediaDistribution"]["Properties"]["DistributionConfig"][
        "DefaultCacheBehavior"]
    policy = RESOURCES[behaviour["ResponseHeadersPolicyId"]["Ref"]]
    assert policy["Type"] == "AWS::CloudFront::ResponseHeadersPolicy"
    security = policy["Properties"]["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    assert security["ContentTypeOptions"] == {"Override": True}
    assert security["ContentSecurityPolicy"] == {
        "ContentSecurityPolicy": "default-src 'none'; form-action 'none'", "Override": True}
