"""Create the template's stateful resources in the AWS emulator and resolve every function's
environment against them. Used by `make dev` (moto server) and by the tests (in-process moto)."""

from __future__ import annotations

import importlib.util
import json
import os
import secrets as pysecrets
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from . import cfn, states

STACK = "stratus-local"

# Every resource type the template may hold, and what plays it locally. A type missing here stops
# the local stack (UnsupportedResource) rather than being skipped: a resource nobody emulates
# would make the local stack silently differ from what deploys.
RESOURCE_TYPES = {
    "AWS::Serverless::Function": "run in-process by local/lambda_runtime.py, IAM-checked",
    "AWS::Serverless::LayerVersion": "the shared package is imported from layers/shared",
    "AWS::Serverless::HttpApi": "local/gateway.py (routes from the functions' HttpApi events)",
    "AWS::Serverless::StateMachine": "moto stores it; local/states.py runs its executions",
    "AWS::DynamoDB::Table": "moto (streams read by local/pipeline.py)",
    "AWS::SQS::Queue": "moto (queues read by local/pipeline.py)",
    "AWS::S3::Bucket": "moto",
    "AWS::SecretsManager::Secret": "moto",
    "AWS::IAM::Role": "enforced on every AWS call a function makes (local/iam.py)",
    "AWS::ApiGatewayV2::Api": "the WebSocket API: local/websocket.py on the REST port",
    "AWS::ApiGatewayV2::Route": "local/websocket.py",
    "AWS::ApiGatewayV2::Integration": "local/websocket.py",
    "AWS::ApiGatewayV2::RouteResponse": "local/websocket.py",
    "AWS::ApiGatewayV2::Stage": "local/websocket.py",
    "AWS::ApiGatewayV2::DomainName": "one local host serves REST and WebSocket",
    "AWS::ApiGatewayV2::ApiMapping": "one local host serves REST and WebSocket",
    "AWS::CloudFront::Distribution": "local/gateway.py serves the media bucket at /system",
    "AWS::CloudFront::OriginAccessControl": "local/gateway.py reads the bucket itself",
    "AWS::CloudFront::ResponseHeadersPolicy": "local/gateway.py sends the policy's headers",
    "AWS::S3::BucketPolicy": "local/gateway.py reads the bucket itself",
    "AWS::Lambda::Permission": "local callers invoke functions directly",
    "AWS::CloudWatch::Alarm": "none: alarms watch metrics the local stack does not emit",
}


class UnsupportedResource(RuntimeError):
    """template.yaml has a resource the local stack cannot emulate."""
# Imported handlers, kept for the life of the process like a warm Lambda environment.
_HANDLERS: dict[str, Any] = {}
# One import at a time: each moves sys.path and sys.modules about (HTTP requests and the
# pipeline's threads may each be the first to call a function).
_IMPORTING = threading.RLock()


def _table_args(name: str, props: dict[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": props["AttributeDefinitions"],
        "KeySchema": props["KeySchema"],
        "BillingMode": props.get("BillingMode", "PAY_PER_REQUEST"),
    }
    if props.get("GlobalSecondaryIndexes"):
        args["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
    if props.get("StreamSpecification"):
        args["StreamSpecification"] = {"StreamEnabled": True, **props["StreamSpecification"]}
    return args


@dataclass
class Stack:
    template: dict[str, Any]
    resolver: cfn.Resolver
    functions: dict[str, cfn.Function]
    queue_urls: dict[str, str] = field(default_factory=dict)  # logical -> url
    table_names: dict[str, str] = field(default_factory=dict)
    bucket_names: dict[str, str] = field(default_factory=dict)
    stream_arns: dict[str, str] = field(default_factory=dict)  # table logical -> stream arn
    secret_arns: dict[str, str] = field(default_factory=dict)
    function_names: dict[str, str] = field(default_factory=dict)  # physical name -> logical
    # logical -> (ARN, checked definition)
    state_machines: dict[str, tuple[str, states.Definition]] = field(default_factory=dict)

    def env(self, overrides: dict[str, str] | None = None) -> dict[str, str]:
        """The union of every function's resolved environment (names must not conflict)."""
        merged: dict[str, str] = {}
        for fn in self.functions.values():
            for key, raw in fn.environment.items():
                if key == "POWERTOOLS_SERVICE_NAME":
                    continue
                value = str(self.resolver.resolve(raw))
                if key in merged and merged[key] != value:
                    raise RuntimeError(f"functions disagree on {key}: {merged[key]!r} / {value!r}")
                merged[key] = value
        merged.update(overrides or {})
        return merged

    def function_for_arn(self, arn: str) -> cfn.Function | None:
        """The function an ARN (or a name) names."""
        name = arn.rsplit(":", 1)[-1]
        return self.functions.get(self.function_names.get(name, name))

    def handler(self, logical_id: str) -> Any:
        """Import the function's real handler from its CodeUri, as Lambda would."""
        found = _HANDLERS.get(logical_id)
        if found is not None:
            return found
        with _IMPORTING:
            return self._import(logical_id)

    def _import(self, logical_id: str) -> Any:
        if logical_id not in _HANDLERS:
            fn = self.functions[logical_id]
            module_name, attribute = fn.handler.rsplit(".", 1)
            path = fn.code_dir / (module_name.replace(".", "/") + ".py")
            unique = f"stratus_fn_{logical_id}"
            spec = importlib.util.spec_from_file_location(unique, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[unique] = module
            # Lambda puts the code directory on sys.path, so a handler imports its sibling
            # modules by name (`from reports import router`). Every function shares this
            # process: siblings are imported with the directory on the path, then taken out of
            # sys.modules, so another function's module of the same name is its own.
            before = set(sys.modules)
            sys.path.insert(0, str(fn.code_dir))
            try:
                spec.loader.exec_module(module)
            finally:
                sys.path.remove(str(fn.code_dir))
                for name in set(sys.modules) - before:
                    origin = getattr(sys.modules[name], "__file__", None) or ""
                    if origin.startswith(str(fn.code_dir) + os.sep):
                        del sys.modules[name]
            _HANDLERS[logical_id] = getattr(module, attribute)
        return _HANDLERS[logical_id]


def build(parameters: dict[str, str], *, create: bool = True, template: dict | None = None
          ) -> Stack:
    """Create tables, queues and buckets from template.yaml (boto3 must point at an emulator)."""
    from stratus.repo.client import client

    template = template or cfn.load_template()
    resolver = cfn.Resolver(template, parameters)
    resources = template.get("Resources", {})
    stack = Stack(template, resolver, {f.logical_id: f for f in cfn.functions(template)})
    for logical, fn in stack.functions.items():
        name = str(resolver.resolve(fn.function_name)) if fn.function_name else logical
        resolver.attributes[(logical, "Arn")] = (
            f"arn:aws:lambda:{cfn.REGION}:{cfn.ACCOUNT}:function:{name}")
        resolver.physical[logical] = name
        stack.function_names[name] = logical

    unsupported = sorted({f"{logical} ({r.get('Type')})" for logical, r in resources.items()
                          if r.get("Type") not in RESOURCE_TYPES})
    if unsupported:
        raise UnsupportedResource(
            "the local stack cannot emulate these resources of template.yaml: "
            + ", ".join(unsupported) + " (see RESOURCE_TYPES in local/stack.py)")
    ddb, sqs, s3 = client("dynamodb"), client("sqs"), client("s3")
    machines = []
    for logical, resource in resources.items():
        kind, props = resource.get("Type"), resource.get("Properties", {})
        if kind == "AWS::Serverless::StateMachine":
            machines.append((logical, props))  # after the functions' ARNs are all known
            arn = f"arn:aws:states:{cfn.REGION}:{cfn.ACCOUNT}:stateMachine:{STACK}-{logical}"
            resolver.physical[logical] = arn
            resolver.attributes[(logical, "Arn")] = arn
            resolver.attributes[(logical, "Name")] = f"{STACK}-{logical}"
        elif kind == "AWS::DynamoDB::Table":
            name = f"{STACK}-{logical}"
            resolver.physical[logical] = name
            stack.table_names[logical] = name
            resolver.attributes[(logical, "Arn")] = (
                f"arn:aws:dynamodb:{cfn.REGION}:{cfn.ACCOUNT}:table/{name}")
            if create:
                ddb.create_table(**_table_args(name, props))
                ttl = props.get("TimeToLiveSpecification")
                if ttl and ttl.get("Enabled"):
                    ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
                        "AttributeName": ttl["AttributeName"], "Enabled": True})
            if props.get("StreamSpecification"):
                arn = ddb.describe_table(TableName=name)["Table"].get("LatestStreamArn", "")
                stack.stream_arns[logical] = arn
                resolver.attributes[(logical, "StreamArn")] = arn
        elif kind == "AWS::SQS::Queue":
            name = f"{STACK}-{logical}"
            url = (sqs.create_queue(QueueName=name, Attributes={
                "VisibilityTimeout": str(props.get("VisibilityTimeout", 30)),
                "MessageRetentionPeriod": str(props.get("MessageRetentionPeriod", 345600)),
            }) if create else sqs.get_queue_url(QueueName=name))["QueueUrl"]
            resolver.physical[logical] = url
            stack.queue_urls[logical] = url
            resolver.attributes[(logical, "QueueName")] = name
            resolver.attributes[(logical, "Arn")] = f"arn:aws:sqs:{cfn.REGION}:{cfn.ACCOUNT}:{name}"
        elif kind == "AWS::SecretsManager::Secret":
            name = f"{STACK}-{logical}"
            sm = client("secretsmanager")
            if create:
                generate = props.get("GenerateSecretString", {})
                value = json.loads(generate.get("SecretStringTemplate", "{}"))
                if generate.get("GenerateStringKey"):
                    value[generate["GenerateStringKey"]] = pysecrets.token_urlsafe(
                        int(generate.get("PasswordLength", 32)))[:int(generate.get("PasswordLength", 32))]
                arn = sm.create_secret(Name=name, SecretString=json.dumps(value))["ARN"]
            else:
                arn = sm.describe_secret(SecretId=name)["ARN"]
            resolver.physical[logical] = arn
            stack.secret_arns[logical] = arn
        elif kind == "AWS::IAM::Role":
            resolver.attributes[(logical, "Arn")] = (
                f"arn:aws:iam::{cfn.ACCOUNT}:role/{STACK}-{logical}")
        elif kind == "AWS::S3::Bucket":
            name = f"{STACK}-{logical}".lower()
            if create:
                s3.create_bucket(Bucket=name)
            resolver.physical[logical] = name
            stack.bucket_names[logical] = name
            resolver.attributes[(logical, "Arn")] = f"arn:aws:s3:::{name}"
            resolver.attributes[(logical, "RegionalDomainName")] = f"{name}.s3.amazonaws.com"
    # Redrive policies refer to DLQ ARNs, which exist only once every queue does.
    for logical, resource in resources.items():
        props = resource.get("Properties", {})
        policy = props.get("RedrivePolicy") if resource.get("Type") == "AWS::SQS::Queue" else None
        if not policy:
            continue
        dlq_arn = resolver.resolve(policy["deadLetterTargetArn"])
        if create:  # moto then moves a message to the DLQ after maxReceiveCount receives
            sqs.set_queue_attributes(QueueUrl=stack.queue_urls[logical], Attributes={
                "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn,
                                             "maxReceiveCount": str(policy["maxReceiveCount"])})})
    for logical, props in machines:
        _state_machine(stack, logical, props, create)
    for logical, fn in stack.functions.items():
        if fn.invoke_config is not None:
            _async_queue(stack, logical, fn, create)
    return stack


def async_queue(logical: str) -> str:
    """The key, in `Stack.queue_urls`, of the queue playing a function's asynchronous-invocation
    queue."""
    return f"{logical}:async"


def _async_queue(stack: Stack, logical: str, fn: cfn.Function, create: bool) -> None:
    """Lambda keeps a queue of its own for each function's asynchronous invocations; locally an
    emulator queue plays it (local/emulator.py, 11), read by local/pipeline.py."""
    from stratus.repo.client import client

    from . import emulator

    name = f"{STACK}-{logical}-async"
    sqs = client("sqs")
    url = (sqs.create_queue(QueueName=name, Attributes={
        "VisibilityTimeout": str(fn.timeout), "MessageRetentionPeriod": str(
            int(fn.invoke_config.get("MaximumEventAgeInSeconds", 21600)))})
        if create else sqs.get_queue_url(QueueName=name))["QueueUrl"]
    stack.queue_urls[async_queue(logical)] = url
    emulator.ASYNC_QUEUES[stack.resolver.physical[logical]] = name


def _state_machine(stack: Stack, logical: str, props: dict[str, Any], create: bool) -> None:
    """Load the definition (DefinitionUri or Definition, with DefinitionSubstitutions), check it
    against what local/states.py runs, and create the state machine in the emulator."""
    resolver = stack.resolver
    if "DefinitionUri" in props:
        with open(cfn.ROOT / props["DefinitionUri"], encoding="utf-8") as fh:
            text = fh.read()
    else:
        text = json.dumps(props["Definition"])
    for name, value in (props.get("DefinitionSubstitutions") or {}).items():
        text = text.replace("${" + name + "}", str(resolver.resolve(value)))
    definition = json.loads(text)

    def function(resource: str) -> str | None:
        fn = stack.function_for_arn(resource) if resource.startswith("arn:aws:lambda:") else None
        return fn.logical_id if fn else None

    try:
        checked = states.load(logical, definition, function)
    except states.UnsupportedDefinition as exc:
        raise UnsupportedResource(f"state machine {logical}: {exc}") from None
    arn = resolver.physical[logical]
    if create:
        from stratus.repo.client import client
        client("stepfunctions").create_state_machine(
            name=resolver.attributes[(logical, "Name")], definition=text,
            roleArn=f"arn:aws:iam::{cfn.ACCOUNT}:role/{STACK}-{logical}Role",
            type=props.get("Type", "STANDARD"))
    stack.state_machines[logical] = (arn, checked)


def apply_env(stack: Stack, overrides: dict[str, str], *, keep_clients: bool = False
              ) -> dict[str, str]:
    env = stack.env(overrides)
    os.environ.update(env)
    from stratus.core import config
    from stratus.repo import client, secrets

    config.reset()
    secrets.reset()
    if not keep_clients:
        client.reset()
    return env
