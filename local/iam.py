"""IAM for the local stack: a function may make only the AWS calls its execution role allows.

On AWS each function signs its calls with its execution role, and IAM decides every call against
that role's policies. Locally all functions share one process and one set of boto3 clients, so
this module plays IAM (docs/local-stack.md says why here and not in moto):

- **The roles** come from template.yaml through the AWS SAM transform (aws-sam-translator, the
  library behind CloudFormation's `AWS::Serverless-2016-10-31` transform), so policy templates
  (`SQSSendMessagePolicy`, ...), the managed policies SAM attaches and the permissions event
  sources add are exactly what `sam deploy` creates. Intrinsics resolve against the local stack.
- **The requests**: `authorizations()` maps an API call to the IAM actions and resource ARNs AWS
  authorises for it (a TransactWriteItems is one PutItem/UpdateItem/... per item, a Query on an
  index is authorised on `table/NAME/index/INDEX`, CreateSchedule also needs `iam:PassRole` on the
  role it hands over, ...). A call this module has no mapping for is authorised on resource `*`,
  so a policy scoped to ARNs denies it: a missing mapping shows up as a denial, never as a pass.
- **The check**: `invoke()` runs a handler inside `acting_as(stack, function)`; a botocore
  `before-parameter-build` hook on every client (repo/client.py's `on_create` seam, which
  nothing uses on Lambda) evaluates the call before the emulator sees it. With no Allow, or with
  an explicit Deny, the call raises the ClientError AWS would (AccessDeniedException, or
  AccessDenied for S3, SQS and SES). Calls made outside any function (test fixtures, the local
  pipeline's own polling, stratusctl, snapshots) are not checked: on AWS they are not made with
  a function's role either.
"""

from __future__ import annotations

import contextvars
import copy
import functools
import re
import threading
import uuid
import weakref
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from . import cfn

ALLOW, DENY, IMPLICIT_DENY = "allow", "deny", "implicit"

# The AWS managed policies SAM attaches to function roles (documents as AWS publishes them). A
# role naming any other managed policy makes the local stack fail loudly until it is added here.
_LOGS = ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
AWS_MANAGED_POLICIES: dict[str, list[dict[str, Any]]] = {
    "service-role/AWSLambdaBasicExecutionRole": [
        {"Effect": "Allow", "Action": _LOGS, "Resource": "*"}],
    "AWSXrayWriteOnlyAccess": [
        {"Effect": "Allow", "Resource": "*",
         "Action": ["xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules",
                    "xray:GetSamplingTargets", "xray:GetSamplingStatisticSummaries"]}],
    "service-role/AWSLambdaSQSQueueExecutionRole": [
        {"Effect": "Allow", "Resource": "*",
         "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", *_LOGS]}],
    "service-role/AWSLambdaDynamoDBExecutionRole": [
        {"Effect": "Allow", "Resource": "*",
         "Action": ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator",
                    "dynamodb:ListStreams", *_LOGS]}],
}


class TemplateRoleError(RuntimeError):
    """A function's role cannot be known from template.yaml (so it cannot be enforced)."""


# --------------------------------------------------------------------------- the SAM transform
_transformed: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (template, transformed)
_transform_lock = threading.Lock()


class _BundledManagedPolicies:
    """SAM asks IAM for the ARNs of managed policies named without one; the translator's bundled
    map of AWS managed policies answers instead (an empty map from here)."""

    def load(self) -> dict[str, str]:
        return {}


def sam_transform(template: dict[str, Any]) -> dict[str, Any]:
    """The CloudFormation template `sam deploy` would create (cached per template object)."""
    with _transform_lock:
        for source, result in _transformed:
            if source is template:
                return result
        from samtranslator.translator.transform import transform

        packaged = copy.deepcopy(template)
        for resource in packaged.get("Resources", {}).values():
            props = resource.get("Properties") or {}
            for key in ("CodeUri", "ContentUri", "DefinitionUri"):
                if isinstance(props.get(key), str):  # what `sam package` does before the transform
                    props[key] = f"s3://stratus-local-package/{props[key]}"
        # Parameters stay unresolved here; they resolve with the rest against the local stack.
        result = transform(packaged, {}, _BundledManagedPolicies())
        _transformed.append((template, result))
        del _transformed[:-4]
        return result


# --------------------------------------------------------------------------- policy evaluation
def _glob(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(re.escape(pattern).replace(r"\*", ".*").replace(r"\?", "."), flags)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


class _ResourcePattern:
    """IAM matches an ARN segment by segment; `*` and `?` never reach into the next segment,
    except in the last one (the resource, which may hold `/` and `:`)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        parts = pattern.split(":", 5)
        self.segments = [_glob(p) for p in parts] if len(parts) == 6 else None

    def matches(self, resource: str) -> bool:
        if self.pattern == "*":
            return True
        parts = resource.split(":", 5)
        if self.segments is None or len(parts) != 6:
            return resource == self.pattern  # e.g. an action that has no resource: "*"
        return all(rx.fullmatch(part) for rx, part in zip(self.segments, parts))


@dataclass
class Statement:
    effect: str
    actions: list[re.Pattern[str]]
    not_actions: list[re.Pattern[str]]
    resources: list[_ResourcePattern]
    not_resources: list[_ResourcePattern]
    conditional: bool

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Statement:
        def patterns(key: str) -> list[re.Pattern[str]]:
            return [_glob(str(a), re.IGNORECASE) for a in _as_list(raw.get(key, []))]

        def arns(key: str) -> list[_ResourcePattern]:
            return [_ResourcePattern(str(r)) for r in _as_list(raw.get(key, []))]

        return cls(raw.get("Effect", "Allow"), patterns("Action"), patterns("NotAction"),
                   arns("Resource"), arns("NotResource"), bool(raw.get("Condition")))

    def applies(self, action: str, resource: str) -> bool:
        if self.actions:
            if not any(p.fullmatch(action) for p in self.actions):
                return False
        elif not self.not_actions or any(p.fullmatch(action) for p in self.not_actions):
            return False
        if self.resources:
            return any(p.matches(resource) for p in self.resources)
        return bool(self.not_resources) and not any(p.matches(resource)
                                                    for p in self.not_resources)


@dataclass
class Role:
    """A function's execution role, compiled; decisions are cached."""

    function: str
    name: str
    account: str
    statements: list[Statement]
    secret_arns: dict[str, str] = field(default_factory=dict)  # secret name -> ARN
    _decisions: dict[tuple[str, str], str] = field(default_factory=dict, repr=False)

    @property
    def principal(self) -> str:
        return f"arn:aws:sts::{self.account}:assumed-role/{self.name}/{self.function}"

    def decide(self, action: str, resource: str) -> str:
        """IAM's answer for an identity-based policy: an explicit Deny wins, then any Allow.
        Conditions are not evaluated: a conditional Allow grants nothing and a conditional
        Deny always applies, so what cannot be judged here fails loudly instead of passing."""
        key = (action, resource)
        found = self._decisions.get(key)
        if found is None:
            found = IMPLICIT_DENY
            for statement in self.statements:
                if not statement.applies(action, resource):
                    continue
                if statement.effect == "Deny":
                    found = DENY
                    break
                if not statement.conditional:
                    found = ALLOW
            if len(self._decisions) > 4096:  # object keys are unbounded in a long dev session
                self._decisions.clear()
            self._decisions[key] = found
        return found


def _role_logical(function: str, props: dict[str, Any]) -> str:
    ref = props.get("Role")
    if isinstance(ref, dict) and "Fn::GetAtt" in ref:
        target = ref["Fn::GetAtt"]
        return target.split(".")[0] if isinstance(target, str) else target[0]
    raise TemplateRoleError(f"{function}'s role ({ref!r}) is not defined in template.yaml, so "
                            "the local stack cannot enforce its permissions")


def role_statements(transformed: dict[str, Any], function: str, resolve: Callable[[Any], Any]
                    ) -> tuple[str, list[dict[str, Any]]]:
    """The role a function runs as, and every statement of its identity-based policies."""
    resources = transformed.get("Resources", {})
    role_id = _role_logical(function, resources[function].get("Properties", {}))
    role = resources[role_id].get("Properties", {})
    documents = [p["PolicyDocument"] for p in role.get("Policies", [])]
    for resource in resources.values():
        props = resource.get("Properties", {})
        if (resource.get("Type") in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")
                and {"Ref": role_id} in _as_list(props.get("Roles", []))):
            documents.append(props["PolicyDocument"])
    for managed in role.get("ManagedPolicyArns", []):
        if isinstance(managed, dict) and resources.get(managed.get("Ref"), {}).get("Type") \
                == "AWS::IAM::ManagedPolicy":
            documents.append(resources[managed["Ref"]]["Properties"]["PolicyDocument"])
            continue
        arn = str(resolve(managed))
        name = arn.split(":policy/", 1)[-1]
        if name not in AWS_MANAGED_POLICIES:
            raise TemplateRoleError(f"{function}'s role uses the managed policy {arn}; add its "
                                    "document to AWS_MANAGED_POLICIES in local/iam.py")
        documents.append({"Statement": AWS_MANAGED_POLICIES[name]})
    statements = [resolve(s) for d in documents for s in _as_list(d.get("Statement", []))]
    return role_id, statements


_roles: dict[int, dict[str, Role]] = {}  # id(stack) -> function -> role, dropped with the stack
_roles_lock = threading.Lock()


def role_for(stack: Any, function: str) -> Role:
    """`function`'s execution role in `stack`, compiled once per stack."""
    role = _roles.get(id(stack), {}).get(function)
    if role is not None:
        return role
    with _roles_lock:
        roles = _roles.get(id(stack))
        if roles is None:
            roles = _roles[id(stack)] = {}
            weakref.finalize(stack, _roles.pop, id(stack), None)
        if function not in roles:
            role_id, statements = role_statements(sam_transform(stack.template), function,
                                                  stack.resolver.resolve)
            secrets = {arn.split(":secret:", 1)[1].rsplit("-", 1)[0]: arn
                       for arn in stack.secret_arns.values() if ":secret:" in arn}
            roles[function] = Role(function, f"{stack_name(stack)}-{role_id}", cfn.ACCOUNT,
                                   [Statement.parse(s) for s in statements], secrets)
        return roles[function]


def stack_name(stack: Any) -> str:
    return str(stack.resolver.pseudo("AWS::StackName"))


# --------------------------------------------------------------------------- calls -> requests
def authorizations(service: str, operation: str, params: dict[str, Any], *, region: str,
                   account: str, prefix: str | None = None,
                   secret_arns: dict[str, str] | None = None, endpoint: str | None = None
                   ) -> list[tuple[str, str]]:
    """The (IAM action, resource ARN) pairs AWS authorises for one API call; all must be allowed."""
    mapper = _MAPPERS.get(service)
    if service == "apigatewaymanagementapi":
        return _execute_api(operation, params, region, account, None, endpoint or "")
    if mapper is not None:
        return mapper(operation, params, region, account, secret_arns or {})
    return [(f"{prefix or service}:{operation}", "*")]


def _dynamodb(op: str, params: dict[str, Any], region: str, account: str, _: Any
              ) -> list[tuple[str, str]]:
    def table(name: str) -> str:  # TableName may be the table's ARN
        if name.startswith("arn:"):
            return name
        return f"arn:aws:dynamodb:{region}:{account}:table/{name}"

    if op == "TransactWriteItems":  # there is no TransactWriteItems action: each item is checked
        kinds = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                 "ConditionCheck": "ConditionCheckItem"}
        return [(f"dynamodb:{kinds[kind]}", table(body["TableName"]))
                for item in params.get("TransactItems", []) for kind, body in item.items()]
    if op == "TransactGetItems":
        return [("dynamodb:GetItem", table(item["Get"]["TableName"]))
                for item in params.get("TransactItems", [])]
    if op in ("BatchGetItem", "BatchWriteItem"):
        return [(f"dynamodb:{op}", table(name)) for name in params.get("RequestItems", {})]
    if "TableName" in params:
        resource = table(params["TableName"])
        if params.get("IndexName"):
            resource += f"/index/{params['IndexName']}"
        return [(f"dynamodb:{op}", resource)]
    if "StreamArn" in params:
        return [(f"dynamodb:{op}", params["StreamArn"])]
    return [(f"dynamodb:{op}", "*")]


# SQS batch calls are authorised as their single-message action (there is no ...Batch action).
_SQS_BATCH = {"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage",
              "ChangeMessageVisibilityBatch": "ChangeMessageVisibility"}


def _sqs(op: str, params: dict[str, Any], region: str, account: str, _: Any
         ) -> list[tuple[str, str]]:
    action = "sqs:" + _SQS_BATCH.get(op, op)
    if "QueueUrl" in params:
        url = params["QueueUrl"]
        path = urlsplit(url).path.strip("/").split("/") if "://" in url else [url]
        owner, name = (path[-2], path[-1]) if len(path) >= 2 else (account, path[-1])
        return [(action, f"arn:aws:sqs:{region}:{owner}:{name}")]
    if "QueueName" in params:
        owner = params.get("QueueOwnerAWSAccountId") or account
        return [(action, f"arn:aws:sqs:{region}:{owner}:{params['QueueName']}")]
    return [(action, "*")]


_S3_OBJECT_ACTIONS = {"HeadObject": "GetObject", "CopyObject": "PutObject",
                      "CreateMultipartUpload": "PutObject",
                      "UploadPart": "PutObject", "UploadPartCopy": "PutObject",
                      "CompleteMultipartUpload": "PutObject",
                      "ListParts": "ListMultipartUploadParts"}
_S3_BUCKET_ACTIONS = {"ListObjects": "ListBucket", "ListObjectsV2": "ListBucket",
                      "HeadBucket": "ListBucket", "ListObjectVersions": "ListBucketVersions",
                      "ListMultipartUploads": "ListBucketMultipartUploads"}


def _copy_source(source: Any) -> str:
    if isinstance(source, dict):
        return f"arn:aws:s3:::{source['Bucket']}/{source['Key']}"
    return "arn:aws:s3:::" + unquote(str(source).lstrip("/").split("?versionId=")[0])


def _s3(op: str, params: dict[str, Any], region: str, account: str, _: Any
        ) -> list[tuple[str, str]]:
    bucket = params.get("Bucket")
    if op == "ListBuckets":
        return [("s3:ListAllMyBuckets", "*")]
    if op == "DeleteObjects":
        return [("s3:DeleteObject", f"arn:aws:s3:::{bucket}/{o['Key']}")
                for o in params.get("Delete", {}).get("Objects", [])]
    found = []
    if op in ("CopyObject", "UploadPartCopy"):
        found.append(("s3:GetObject", _copy_source(params.get("CopySource", ""))))
    if bucket and "Key" in params:
        found.insert(0, ("s3:" + _S3_OBJECT_ACTIONS.get(op, op),
                         f"arn:aws:s3:::{bucket}/{params['Key']}"))
    elif bucket:
        found.insert(0, ("s3:" + _S3_BUCKET_ACTIONS.get(op, op), f"arn:aws:s3:::{bucket}"))
    return found or [("s3:" + op, "*")]


def _secretsmanager(op: str, params: dict[str, Any], region: str, account: str,
                    secret_arns: dict[str, str]) -> list[tuple[str, str]]:
    def arn(secret_id: str) -> str:  # a call may name the secret; IAM sees its full ARN
        if secret_id.startswith("arn:"):
            return secret_id
        return secret_arns.get(secret_id,
                               f"arn:aws:secretsmanager:{region}:{account}:secret:{secret_id}")

    if "SecretId" in params:
        return [(f"secretsmanager:{op}", arn(params["SecretId"]))]
    if op == "BatchGetSecretValue":
        return [("secretsmanager:BatchGetSecretValue", "*")] + [
            ("secretsmanager:GetSecretValue", arn(s)) for s in params.get("SecretIdList", [])]
    return [(f"secretsmanager:{op}", "*")]


def _scheduler(op: str, params: dict[str, Any], region: str, account: str, _: Any
               ) -> list[tuple[str, str]]:
    name = params.get("Name")
    if name and op.endswith("ScheduleGroup"):
        return [(f"scheduler:{op}", f"arn:aws:scheduler:{region}:{account}:schedule-group/{name}")]
    if name and op.endswith("Schedule"):
        group = params.get("GroupName") or "default"
        found = [(f"scheduler:{op}",
                  f"arn:aws:scheduler:{region}:{account}:schedule/{group}/{name}")]
        role = (params.get("Target") or {}).get("RoleArn")
        if role and op in ("CreateSchedule", "UpdateSchedule"):
            found.append(("iam:PassRole", role))  # the scheduler acts with the role it is given
        return found
    return [(f"scheduler:{op}", "*")]


def _sender(params: dict[str, Any]) -> str:
    sender = params.get("Source") or params.get("FromEmailAddress") or ""
    raw = (params.get("RawMessage") or {}).get("Data")
    if not sender and raw:
        from email.parser import BytesHeaderParser
        from email.utils import parseaddr

        data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
        sender = parseaddr(BytesHeaderParser().parsebytes(data).get("From", ""))[1]
    return sender


def _ses(op: str, params: dict[str, Any], region: str, account: str, _: Any
         ) -> list[tuple[str, str]]:
    if op.startswith("Send") and op.endswith("Email"):
        # Sending is authorised on the identity that sends: the From domain, which the local
        # stack verifies (an address verified on its own would be the identity instead).
        domain = _sender(params).rpartition("@")[2] or "*"
        return [(f"ses:{op}", f"arn:aws:ses:{region}:{account}:identity/{domain}")]
    return [(f"ses:{op}", "*")]


def _execute_api(op: str, params: dict[str, Any], region: str, account: str, _: Any,
                 endpoint: str = "") -> list[tuple[str, str]]:
    """A WebSocket API's @connections calls are authorised as execute-api:ManageConnections on
    `arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/@connections/<id>`."""
    parts = urlsplit(endpoint)
    api = parts.netloc.split(".")[0] or "*"  # (the host as written: hostname lower-cases it)
    stage = parts.path.strip("/") or "*"
    method = {"PostToConnection": "POST", "DeleteConnection": "DELETE"}.get(op, "GET")
    return [("execute-api:ManageConnections",
             f"arn:aws:execute-api:{region}:{account}:{api}/{stage}/{method}/@connections/"
             f"{params.get('ConnectionId', '*')}")]


def _states(op: str, params: dict[str, Any], region: str, account: str, _: Any
            ) -> list[tuple[str, str]]:
    """Step Functions: a call names its state machine or execution by ARN."""
    arn = params.get("stateMachineArn") or params.get("executionArn")
    return [(f"states:{op}", arn or "*")]


def _lambda(op: str, params: dict[str, Any], region: str, account: str, _: Any
            ) -> list[tuple[str, str]]:
    """Lambda: Invoke is authorised as lambda:InvokeFunction on the function (named by name or
    ARN; a qualifier is part of the resource)."""
    name = params.get("FunctionName")
    if not name:
        return [(f"lambda:{op}", "*")]
    arn = name if name.startswith("arn:") else \
        f"arn:aws:lambda:{region}:{account}:function:{name}"
    if params.get("Qualifier"):
        arn += f":{params['Qualifier']}"
    return [("lambda:InvokeFunction" if op == "Invoke" else f"lambda:{op}", arn)]


_MAPPERS: dict[str, Callable[..., list[tuple[str, str]]]] = {
    "dynamodb": _dynamodb, "dynamodbstreams": _dynamodb, "sqs": _sqs, "s3": _s3,
    "stepfunctions": _states, "lambda": _lambda,
    "secretsmanager": _secretsmanager, "scheduler": _scheduler, "ses": _ses, "sesv2": _ses,
}

# How each service says "denied" (error code, HTTP status), as the SDK sees it.
_DENIAL = {"s3": ("AccessDenied", 403), "sqs": ("AccessDenied", 403),
           "ses": ("AccessDenied", 403), "dynamodb": ("AccessDeniedException", 400),
           "dynamodbstreams": ("AccessDeniedException", 400),
           "secretsmanager": ("AccessDeniedException", 400),
           "lambda": ("AccessDeniedException", 403)}


# --------------------------------------------------------------------------- enforcement
_acting: contextvars.ContextVar[Role | None] = contextvars.ContextVar("stratus_iam_role",
                                                                      default=None)
_installed = False
_install_lock = threading.Lock()


@contextmanager
def acting_as(stack: Any, function: str) -> Iterator[Role]:
    """Every AWS call made in this block (and in tasks or threads it starts with its context) is
    authorised against `function`'s execution role."""
    install()
    role = role_for(stack, function)
    token = _acting.set(role)
    try:
        yield role
    finally:
        _acting.reset(token)


def current() -> Role | None:
    return _acting.get()


def install() -> None:
    """Attach the check to every boto3 client of the shared factory (once per process)."""
    global _installed
    if _installed:
        return
    with _install_lock:
        if _installed:
            return
        from stratus.repo import client, secrets

        secrets._cache = FunctionScoped()  # noqa: SLF001 - see FunctionScoped
        client.on_create(_attach)
        _installed = True


def _attach(made: Any) -> None:
    made.meta.events.register("before-parameter-build", functools.partial(_authorise, made))
    if made.meta.service_model.service_name == "s3":
        made.meta.events.register("after-call.s3", _missing_object)


def denial(made: Any, operation: str, role: Role, action: str, resource: str, verdict: str
           ) -> Exception:
    why = ("with an explicit deny in an identity-based policy" if verdict == DENY
           else f"because no identity-based policy allows the {action} action")
    service = made.meta.service_model.service_name
    code, status = _DENIAL.get(service, ("AccessDeniedException", 403))
    message = (f"User: {role.principal} is not authorized to perform: {action} on resource: "
               f"{resource} {why}")
    response = {"Error": {"Code": code, "Message": message},
                "ResponseMetadata": {"HTTPStatusCode": status, "RequestId": str(uuid.uuid4())}}
    return made.exceptions.from_code(code)(response, operation)


def _authorise(made: Any, params: dict[str, Any], model: Any,
               context: dict[str, Any] | None = None, **_: Any) -> None:
    role = _acting.get()
    if role is None:
        return
    service = model.service_model
    for action, resource in authorizations(
            service.service_name, model.name, params, region=made.meta.region_name,
            account=role.account, prefix=service.signing_name, secret_arns=role.secret_arns,
            endpoint=made.meta.endpoint_url):
        verdict = role.decide(action, resource)
        if verdict != ALLOW:
            raise denial(made, model.name, role, action, resource, verdict)
    if context is not None and service.service_name == "s3":
        context["stratus_iam_bucket"] = params.get("Bucket")


def _missing_object(http_response: Any, parsed: dict[str, Any], model: Any,
                    context: dict[str, Any] | None = None, **_: Any) -> None:
    """S3 answers a read of a missing key with 404 only to a caller allowed s3:ListBucket on
    the bucket; anyone else gets 403, so as not to reveal which keys exist."""
    role = _acting.get()
    if role is None or http_response.status_code != 404 \
            or model.name not in ("GetObject", "HeadObject"):
        return
    bucket = (context or {}).get("stratus_iam_bucket")
    if role.decide("s3:ListBucket", f"arn:aws:s3:::{bucket}") == ALLOW:
        return
    parsed["Error"] = ({"Code": "403", "Message": "Forbidden"} if model.name == "HeadObject"
                       else {"Code": "AccessDenied", "Message": "Access Denied"})
    parsed.setdefault("ResponseMetadata", {})["HTTPStatusCode"] = 403


class FunctionScoped(MutableMapping):
    """A module-level cache as each function sees it: on AWS every function has warm
    environments of its own, so a value one function fetched (the instance secret) is not there
    for another, which must fetch it - with its own permissions - first."""

    def __init__(self) -> None:
        self._by_function: dict[int | None, dict[Any, Any]] = {}

    def _own(self) -> dict[Any, Any]:
        role = _acting.get()
        return self._by_function.setdefault(id(role) if role else None, {})

    def __getitem__(self, key: Any) -> Any:
        return self._own()[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._own()[key] = value

    def __delitem__(self, key: Any) -> None:
        del self._own()[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._own())

    def __len__(self) -> int:
        return len(self._own())

    def clear(self) -> None:
        self._by_function.clear()
