"""Reading template.yaml: CloudFormation tags, intrinsic functions, functions and their events.

The local stack and the tests build everything from the template through this module, so the
resources, routes, event sources and environment variables cannot drift from what deploys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "template.yaml"
REGION = "us-east-1"
ACCOUNT = "123456789012"


class _Loader(yaml.SafeLoader):
    pass


def _tag(loader: yaml.Loader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_Loader.add_multi_constructor("!", _tag)


_parsed: dict[tuple[str, float], dict[str, Any]] = {}


def load_template(path: Path = TEMPLATE) -> dict[str, Any]:
    """The parsed template (cached until the file changes; callers must not modify it)."""
    stamp = (str(path), path.stat().st_mtime)
    if stamp not in _parsed:
        with open(path, encoding="utf-8") as fh:
            _parsed[stamp] = yaml.load(fh, Loader=_Loader)  # noqa: S506 - SafeLoader subclass
    return _parsed[stamp]


@dataclass
class Resolver:
    """Resolves Ref / Fn::GetAtt / Fn::Sub / Fn::Join against local physical resources."""

    template: dict[str, Any]
    parameters: dict[str, str]
    physical: dict[str, str] = field(default_factory=dict)  # logical id -> name/url
    attributes: dict[tuple[str, str], str] = field(default_factory=dict)

    def pseudo(self, name: str) -> str | None:
        return {"AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::Partition": "aws",
                "AWS::StackName": "stratus-local", "AWS::URLSuffix": "amazonaws.com"}.get(name)

    def ref(self, name: str) -> str:
        pseudo = self.pseudo(name)
        if pseudo is not None:
            return pseudo
        if name in self.parameters:
            return self.parameters[name]
        params = self.template.get("Parameters", {})
        if name in params:
            return str(params[name].get("Default", ""))
        return self.physical.get(name, f"stratus-local-{name}")

    def getatt(self, logical: str, attribute: str) -> str:
        if (logical, attribute) in self.attributes:
            return self.attributes[(logical, attribute)]
        return f"local-{logical}-{attribute}"

    def sub(self, text: str, variables: dict[str, Any] | None = None) -> str:
        variables = variables or {}

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in variables:
                return str(self.resolve(variables[name]))
            if "." in name and name.split(".")[0] in self.template.get("Resources", {}):
                logical, attribute = name.split(".", 1)
                return self.getatt(logical, attribute)
            return self.ref(name)

        return re.sub(r"\$\{([^}!]+)\}", replace, text)

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            (key, arg), = value.items()
            if key == "Ref":
                return self.ref(arg)
            if key == "Fn::GetAtt":
                return self.getatt(arg[0], arg[1])
            if key == "Fn::Sub":
                if isinstance(arg, list):
                    return self.sub(arg[0], arg[1])
                return self.sub(arg)
            if key == "Fn::Join":
                return arg[0].join(str(self.resolve(v)) for v in arg[1])
        return {k: self.resolve(v) for k, v in value.items()}


@dataclass
class Route:
    method: str  # GET, POST, ... or ANY
    path: str  # /api/v1/instance, /api/v1/instance/{proxy+}, $default


@dataclass
class Function:
    logical_id: str
    code_dir: Path
    handler: str  # module.attribute
    environment: dict[str, Any]
    routes: list[Route] = field(default_factory=list)
    streams: list[dict[str, Any]] = field(default_factory=list)
    queues: list[dict[str, Any]] = field(default_factory=list)
    schedules: list[dict[str, Any]] = field(default_factory=list)
    timeout: int = 3
    function_name: Any = None  # FunctionName as the template gives it (None: CloudFormation's)
    invoke_config: dict[str, Any] | None = None  # EventInvokeConfig: jobs come asynchronously


def functions(template: dict[str, Any]) -> list[Function]:
    globals_ = template.get("Globals", {}).get("Function", {})
    global_env = globals_.get("Environment", {}).get("Variables", {})
    found = []
    for logical, resource in template.get("Resources", {}).items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        props = resource.get("Properties", {})
        env = {**global_env, **props.get("Environment", {}).get("Variables", {})}
        fn = Function(logical, ROOT / props["CodeUri"], props["Handler"], env,
                      timeout=int(props.get("Timeout", globals_.get("Timeout", 3))),
                      function_name=props.get("FunctionName"),
                      invoke_config=props.get("EventInvokeConfig"))
        for event in props.get("Events", {}).values():
            kind, eprops = event.get("Type"), event.get("Properties", {})
            if kind == "HttpApi":
                fn.routes.append(Route(str(eprops.get("Method", "ANY")).upper(),
                                       eprops.get("Path", "$default")))
            elif kind == "DynamoDB":
                fn.streams.append(eprops)
            elif kind == "SQS":
                fn.queues.append(eprops)
            elif kind in ("Schedule", "ScheduleV2"):
                fn.schedules.append(eprops)
        found.append(fn)
    return found
