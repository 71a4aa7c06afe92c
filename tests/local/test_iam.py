"""The local stack enforces each function's execution role (local/iam.py): a call its policies in
template.yaml do not allow fails locally exactly as it would after `sam deploy`.

That every function's real traffic is allowed is the rest of the suite: it runs with the check on.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta

import pytest
from botocore.exceptions import ClientError

from local import iam
from local import stack as local_stack
from local.gateway import Gateway
from local.lambda_runtime import invoke
from stratus.repo import base, keys, media, queues, scheduler, secrets
from stratus.repo.client import client as aws
from tests.conftest import BASE_URL

ACCOUNT, REGION = "123456789012", "us-east-1"
TABLE = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/stratus-local-MainTable"


def edited(runtime, function, edit):
    """The running stack as a template would make it in which `edit` changed the list of
    `function`'s policies."""
    template = copy.deepcopy(runtime.stack.template)
    edit(template["Resources"][function]["Properties"]["Policies"])
    return local_stack.build(runtime.stack.resolver.parameters, create=False, template=template)


def without(runtime, function, drop):
    """... in which `function`'s policies lack every statement (or policy-template entry) for
    which `drop` is true."""
    def edit(policies):
        kept = []
        for policy in policies:
            if "Statement" in policy:
                statements = [s for s in policy["Statement"] if not drop(s)]
                if statements:
                    kept.append({**policy, "Statement": statements})
            elif not drop(policy):
                kept.append(policy)
        policies[:] = kept

    return edited(runtime, function, edit)


def actions(statement) -> list[str]:
    found = statement.get("Action", [])
    return found if isinstance(found, list) else [found]


def denied(excinfo) -> tuple[str, str]:
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


def sample(name: str) -> dict:
    from local import cfn

    return json.loads((cfn.ROOT / "events" / f"{name}.json").read_text())


# --- a missing permission fails locally ------------------------------------------------------
def test_a_call_the_role_does_not_allow_is_denied_before_it_reaches_the_table(runtime):
    no_writes = without(runtime, "AccountsFunction",
                        lambda s: "dynamodb:PutItem" in actions(s))
    item = {"PK": keys.INSTANCE_PK, "SK": "PROBE"}
    with iam.acting_as(no_writes, "AccountsFunction"), pytest.raises(ClientError) as excinfo:
        base.put(item)
    code, message = denied(excinfo)
    assert code == "AccessDeniedException"
    assert message == (
        f"User: arn:aws:sts::{ACCOUNT}:assumed-role/stratus-local-AccountsFunctionRole/"
        f"AccountsFunction is not authorized to perform: dynamodb:PutItem on resource: {TABLE} "
        "because no identity-based policy allows the dynamodb:PutItem action")
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert base.get(item) is None  # the emulator never saw the write
    with iam.acting_as(runtime.stack, "AccountsFunction"):  # the real role may
        base.put(item)
    assert base.get(item) is not None


def test_an_http_function_without_its_table_permission_answers_500(runtime):
    from starlette.testclient import TestClient

    blind = without(runtime, "InstanceFunction", lambda s: any(
        a.startswith("dynamodb:") for a in actions(s)))
    with TestClient(Gateway(blind), base_url=BASE_URL) as broken:
        response = broken.get("/api/v1/instance")
    assert response.status_code == 500
    assert response.json() == {"error": "Internal server error"}
    with TestClient(Gateway(runtime.stack), base_url=BASE_URL) as working:
        assert working.get("/api/v1/instance").status_code == 200


def test_a_worker_without_its_permissions_fails_its_batch(runtime):
    powerless = without(runtime, "CountersFunction", lambda s: True)
    event = sample("CountersFunction")
    base.put({**keys.account_user("117657226599751600"), "type": "user",
              "account_id": "117657226599751600"})
    failed = invoke(powerless, "CountersFunction", event)  # Lambda redelivers the batch
    assert failed == {"batchItemFailures": [{"itemIdentifier": r["messageId"]}
                                            for r in event["Records"]]}
    assert base.get(keys.instance_stats()) is None
    assert invoke(runtime.stack, "CountersFunction", event) == {"batchItemFailures": []}
    assert base.get(keys.instance_stats())["user_count"] == 1


def test_a_query_on_an_index_needs_the_index_in_the_resource(runtime):
    def table_only(policies):  # MainTable.Arn stays, "${MainTable.Arn}/index/*" goes
        for policy in policies:
            for statement in policy.get("Statement", []):
                resources = statement["Resource"]
                statement["Resource"] = [r for r in (resources if isinstance(resources, list)
                                                     else [resources])
                                         if "/index/" not in str(r)]

    table_only = edited(runtime, "AdminFunction", table_only)
    with iam.acting_as(table_only, "AdminFunction"):
        assert list(base.query("nobody", index=None)) == []
        with pytest.raises(ClientError) as excinfo:
            list(base.query("nobody", index="GSI1"))
    assert f"dynamodb:Query on resource: {TABLE}/index/GSI1 " in denied(excinfo)[1]


def test_sending_to_a_queue_needs_that_queue(runtime):
    no_counters = without(runtime, "DispatchFunction", lambda s: s.get(
        "SQSSendMessagePolicy", {}).get("QueueName") == {"Fn::GetAtt": ["CountersQueue",
                                                                          "QueueName"]})
    with iam.acting_as(no_counters, "DispatchFunction"):
        queues.send("fanout", [{"job": "probe"}])
        with pytest.raises(ClientError) as excinfo:
            queues.send("counters", [{"job": "probe"}])
    code, message = denied(excinfo)
    assert code == "AccessDenied"  # SQS's code (the SDK sees the query-compatible one)
    assert (f"sqs:SendMessage on resource: arn:aws:sqs:{REGION}:{ACCOUNT}:"
            "stratus-local-CountersQueue ") in message


def test_a_job_sent_by_asynchronous_invocation_needs_invoke_on_that_function(runtime):
    effects = {"Fn::Sub": "${AWS::StackName}-EffectsFunction"}
    no_effects = without(runtime, "DispatchFunction", lambda s: s.get(
        "LambdaInvokePolicy", {}).get("FunctionName") == effects)
    with iam.acting_as(no_effects, "DispatchFunction"):
        queues.send("mail", [{"job": "probe"}])
        with pytest.raises(ClientError) as excinfo:
            queues.send("effects", [{"job": "probe"}])
    code, message = denied(excinfo)
    assert code == "AccessDeniedException"
    assert (f"lambda:InvokeFunction on resource: arn:aws:lambda:{REGION}:{ACCOUNT}:"
            "function:stratus-local-EffectsFunction ") in message


def test_a_schedule_needs_pass_role_on_the_role_it_hands_over(runtime):
    no_pass_role = without(runtime, "StatusesFunction",
                           lambda s: "iam:PassRole" in actions(s))
    when = datetime.now(UTC).replace(tzinfo=None) + timedelta(hours=1)
    with iam.acting_as(no_pass_role, "StatusesFunction"), pytest.raises(ClientError) as excinfo:
        scheduler.schedule("probe", when, {"job": "probe"})
    code, message = denied(excinfo)
    assert code == "AccessDeniedException"
    assert f"iam:PassRole on resource: arn:aws:iam::{ACCOUNT}:role/stratus-local-SchedulerRole" \
        in message
    assert aws("scheduler").list_schedules()["Schedules"] == []
    with iam.acting_as(runtime.stack, "StatusesFunction"):
        scheduler.schedule("probe", when, {"job": "probe"})
    assert [s["Name"] for s in aws("scheduler").list_schedules()["Schedules"]] == ["probe"]


def test_each_function_fetches_the_secret_with_its_own_permission(runtime):
    with iam.acting_as(runtime.stack, "AccountsFunction"):
        secret = secrets.instance_secret()
    # WebFunction has no AWSSecretsManagerGetSecretValuePolicy; on AWS its environments never
    # share AccountsFunction's cached copy, so it would have to fetch the secret and be refused.
    with iam.acting_as(runtime.stack, "WebFunction"), pytest.raises(ClientError) as excinfo:
        secrets.instance_secret()
    assert denied(excinfo)[0] == "AccessDeniedException"
    assert "secretsmanager:GetSecretValue" in denied(excinfo)[1]
    with iam.acting_as(runtime.stack, "MailerFunction"):
        assert secrets.instance_secret() == secret


def test_s3_keys_outside_the_policy_prefix_are_denied(runtime):
    with iam.acting_as(runtime.stack, "MediaFunction"):
        media.put_object("media_attachments/probe.png", b"x", "image/png")
        with pytest.raises(ClientError) as excinfo:
            media.put_object("accounts/probe.png", b"x", "image/png")
    code, message = denied(excinfo)
    assert (code, excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]) == \
        ("AccessDenied", 403)
    bucket = runtime.stack.bucket_names["MediaBucket"]
    assert f"s3:PutObject on resource: arn:aws:s3:::{bucket}/accounts/probe.png " in message


def test_a_missing_object_is_403_without_list_bucket(runtime):
    """S3 answers 404 only to callers allowed s3:ListBucket; MediaWorkerFunction is not."""
    with iam.acting_as(runtime.stack, "MediaWorkerFunction"), \
            pytest.raises(ClientError) as excinfo:
        media.get_object("media_attachments/missing.png")
    assert denied(excinfo)[0] == "AccessDenied"
    with pytest.raises(ClientError) as outside:  # no role: the emulator's own answer
        media.get_object("media_attachments/missing.png")
    assert denied(outside)[0] == "NoSuchKey"


def test_calls_outside_any_function_are_not_checked(runtime):
    assert iam.current() is None
    # No function may Scan; fixtures, the pipeline and stratusctl act as the operator instead.
    scan = {"TableName": runtime.stack.table_names["MainTable"], "Limit": 1}
    aws("dynamodb").scan(**scan)
    aws("sqs").receive_message(QueueUrl=runtime.stack.queue_urls["CountersQueue"])
    with iam.acting_as(runtime.stack, "AdminFunction"):
        assert iam.current().function == "AdminFunction"
        with pytest.raises(ClientError) as excinfo:
            aws("dynamodb").scan(**scan)
    assert f"dynamodb:Scan on resource: {TABLE} " in denied(excinfo)[1]
    assert iam.current() is None
    aws("dynamodb").scan(**scan)


# --- the roles are the ones `sam deploy` creates ---------------------------------------------
def test_sam_policy_templates_and_managed_policies_expand_as_on_deploy(runtime):
    dispatch = iam.role_for(runtime.stack, "DispatchFunction")
    queue = f"arn:aws:sqs:{REGION}:{ACCOUNT}:stratus-local-"
    # SQSSendMessagePolicy is `sqs:SendMessage*` on the named queue only.
    assert dispatch.decide("sqs:SendMessage", queue + "CountersQueue") == iam.ALLOW
    assert dispatch.decide("sqs:SendMessage", queue + "DeliveryQueue") == iam.IMPLICIT_DENY
    assert dispatch.decide("sqs:ReceiveMessage", queue + "CountersQueue") == iam.IMPLICIT_DENY
    # The stream's on-failure destination adds sqs:SendMessage on the DLQ.
    assert dispatch.decide("sqs:SendMessage", queue + "DispatchDLQ") == iam.ALLOW
    # AWSLambdaDynamoDBExecutionRole / AWSLambdaSQSQueueExecutionRole come with the events.
    assert dispatch.decide("dynamodb:GetRecords", "*") == iam.ALLOW
    counters = iam.role_for(runtime.stack, "CountersFunction")
    assert counters.decide("sqs:DeleteMessage", queue + "CountersQueue") == iam.ALLOW
    assert counters.decide("dynamodb:BatchWriteItem", TABLE) == iam.IMPLICIT_DENY
    # AWSSecretsManagerGetSecretValuePolicy is GetSecretValue on that secret.
    mailer = iam.role_for(runtime.stack, "MailerFunction")
    secret = runtime.stack.secret_arns["InstanceSecret"]
    assert mailer.decide("secretsmanager:GetSecretValue", secret) == iam.ALLOW
    assert mailer.decide("secretsmanager:GetSecretValue", secret + "x") == iam.IMPLICIT_DENY
    assert mailer.decide("secretsmanager:PutSecretValue", secret) == iam.IMPLICIT_DENY


def test_every_function_has_a_role_the_local_stack_can_enforce(runtime):
    for function in runtime.stack.functions:
        role = iam.role_for(runtime.stack, function)
        assert role.name == f"stratus-local-{function}Role"
        assert role.statements


def test_an_unknown_managed_policy_fails_loudly(runtime):
    transformed = copy.deepcopy(iam.sam_transform(runtime.stack.template))
    role = transformed["Resources"]["WebFunctionRole"]["Properties"]
    role["ManagedPolicyArns"].append("arn:aws:iam::aws:policy/AmazonDynamoDBFullAccess")
    with pytest.raises(iam.TemplateRoleError, match="AmazonDynamoDBFullAccess"):
        iam.role_statements(transformed, "WebFunction", runtime.stack.resolver.resolve)


# --- policy evaluation ------------------------------------------------------------------------
def role(*statements) -> iam.Role:
    return iam.Role("Fn", "stack-FnRole", ACCOUNT, [iam.Statement.parse(s) for s in statements])


def test_actions_match_case_insensitively_with_wildcards():
    r = role({"Effect": "Allow", "Action": ["sqs:SendMessage*", "dynamodb:Get?tem"],
              "Resource": "*"})
    assert r.decide("sqs:sendmessage", "arn:aws:sqs:us-east-1:1:q") == iam.ALLOW
    assert r.decide("dynamodb:GetItem", TABLE) == iam.ALLOW
    assert r.decide("dynamodb:GetItems", TABLE) == iam.IMPLICIT_DENY
    assert r.decide("sqs:ReceiveMessage", "arn:aws:sqs:us-east-1:1:q") == iam.IMPLICIT_DENY


def test_resources_match_segment_by_segment():
    r = role({"Effect": "Allow", "Action": "dynamodb:*",
              "Resource": ["arn:aws:dynamodb:*:*:table/T", "arn:aws:dynamodb:*:*:table/T/index/*"]})
    assert r.decide("dynamodb:Query", "arn:aws:dynamodb:us-east-1:1:table/T") == iam.ALLOW
    assert r.decide("dynamodb:Query", "arn:aws:dynamodb:us-east-1:1:table/T/index/G") == iam.ALLOW
    assert r.decide("dynamodb:Query", "arn:aws:dynamodb:us-east-1:1:table/U") == iam.IMPLICIT_DENY
    # `*` stays within its segment: this is no region:account wildcard for another service.
    assert role({"Effect": "Allow", "Action": "*", "Resource": "arn:aws:*:table/T"}).decide(
        "dynamodb:Query", "arn:aws:dynamodb:us-east-1:1:table/T") == iam.IMPLICIT_DENY
    # An action that has no resource is authorised on "*", which only "*" covers.
    assert r.decide("dynamodb:ListTables", "*") == iam.IMPLICIT_DENY


def test_an_explicit_deny_wins_and_conditions_never_grant():
    r = role({"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
             {"Effect": "Deny", "Action": "s3:DeleteObject", "Resource": "arn:aws:s3:::b/*"},
             {"Effect": "Allow", "Action": "sqs:*", "Resource": "*",
              "Condition": {"Bool": {"aws:SecureTransport": "true"}}},
             {"Effect": "Allow", "NotAction": "s3:*", "Resource": "arn:aws:ses:*:*:identity/*"})
    assert r.decide("s3:PutObject", "arn:aws:s3:::b/k") == iam.ALLOW
    assert r.decide("s3:DeleteObject", "arn:aws:s3:::b/k") == iam.DENY
    assert r.decide("sqs:SendMessage", "arn:aws:sqs:us-east-1:1:q") == iam.IMPLICIT_DENY
    assert r.decide("ses:SendRawEmail", "arn:aws:ses:us-east-1:1:identity/x.org") == iam.ALLOW


# --- API calls -> what IAM authorises ----------------------------------------------------------
SECRET = f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:stratus-local-S-Ab12Cd"


def authorized(service, operation, **params):
    return iam.authorizations(service, operation, params, region=REGION, account=ACCOUNT,
                              secret_arns={"stratus-local-S": SECRET})


def test_dynamodb_calls():
    table = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/"
    assert authorized("dynamodb", "GetItem", TableName="T", Key={}) == [
        ("dynamodb:GetItem", table + "T")]
    assert authorized("dynamodb", "Query", TableName="T", IndexName="GSI2") == [
        ("dynamodb:Query", table + "T/index/GSI2")]
    assert authorized("dynamodb", "TransactWriteItems", TransactItems=[
        {"Put": {"TableName": "T"}}, {"Update": {"TableName": "T"}},
        {"Delete": {"TableName": "U"}}, {"ConditionCheck": {"TableName": "T"}}]) == [
        ("dynamodb:PutItem", table + "T"), ("dynamodb:UpdateItem", table + "T"),
        ("dynamodb:DeleteItem", table + "U"), ("dynamodb:ConditionCheckItem", table + "T")]
    assert authorized("dynamodb", "TransactGetItems", TransactItems=[
        {"Get": {"TableName": "T"}}]) == [("dynamodb:GetItem", table + "T")]
    assert authorized("dynamodb", "BatchGetItem", RequestItems={"T": {}, "U": {}}) == [
        ("dynamodb:BatchGetItem", table + "T"), ("dynamodb:BatchGetItem", table + "U")]
    assert authorized("dynamodb", "BatchWriteItem", RequestItems={"T": []}) == [
        ("dynamodb:BatchWriteItem", table + "T")]
    assert authorized("dynamodb", "GetItem", TableName=table + "T") == [
        ("dynamodb:GetItem", table + "T")]
    assert authorized("dynamodb", "ListTables") == [("dynamodb:ListTables", "*")]


def test_sqs_calls():
    queue = f"arn:aws:sqs:{REGION}:{ACCOUNT}:q"
    url = f"http://127.0.0.1:5000/{ACCOUNT}/q"
    assert authorized("sqs", "SendMessageBatch", QueueUrl=url, Entries=[]) == [
        ("sqs:SendMessage", queue)]
    assert authorized("sqs", "SendMessage", QueueUrl=f"https://sqs.{REGION}.amazonaws.com/"
                      f"{ACCOUNT}/q") == [("sqs:SendMessage", queue)]
    assert authorized("sqs", "DeleteMessageBatch", QueueUrl=url) == [("sqs:DeleteMessage", queue)]
    assert authorized("sqs", "GetQueueUrl", QueueName="q") == [("sqs:GetQueueUrl", queue)]


def test_s3_calls():
    assert authorized("s3", "PutObject", Bucket="b", Key="media_attachments/1.png") == [
        ("s3:PutObject", "arn:aws:s3:::b/media_attachments/1.png")]
    assert authorized("s3", "HeadObject", Bucket="b", Key="k") == [
        ("s3:GetObject", "arn:aws:s3:::b/k")]
    assert authorized("s3", "DeleteObjects", Bucket="b", Delete={
        "Objects": [{"Key": "x"}, {"Key": "y"}]}) == [
        ("s3:DeleteObject", "arn:aws:s3:::b/x"), ("s3:DeleteObject", "arn:aws:s3:::b/y")]
    assert authorized("s3", "ListObjectsV2", Bucket="b") == [("s3:ListBucket", "arn:aws:s3:::b")]
    assert authorized("s3", "CopyObject", Bucket="b", Key="new", CopySource="a/old%20key") == [
        ("s3:PutObject", "arn:aws:s3:::b/new"), ("s3:GetObject", "arn:aws:s3:::a/old key")]


def test_scheduler_calls():
    role_arn = f"arn:aws:iam::{ACCOUNT}:role/R"
    assert authorized("scheduler", "CreateSchedule", Name="n", Target={
        "Arn": "arn:aws:sqs:x", "RoleArn": role_arn}) == [
        ("scheduler:CreateSchedule", f"arn:aws:scheduler:{REGION}:{ACCOUNT}:schedule/default/n"),
        ("iam:PassRole", role_arn)]
    assert authorized("scheduler", "DeleteSchedule", Name="n", GroupName="g") == [
        ("scheduler:DeleteSchedule", f"arn:aws:scheduler:{REGION}:{ACCOUNT}:schedule/g/n")]
    assert authorized("scheduler", "ListSchedules") == [("scheduler:ListSchedules", "*")]


def test_secrets_manager_calls():
    assert authorized("secretsmanager", "GetSecretValue", SecretId=SECRET) == [
        ("secretsmanager:GetSecretValue", SECRET)]
    # By name, IAM still sees the secret's full ARN.
    assert authorized("secretsmanager", "GetSecretValue", SecretId="stratus-local-S") == [
        ("secretsmanager:GetSecretValue", SECRET)]


def test_ses_calls():
    message = b"From: Stratus <notifications@social.example>\r\nTo: a@b.c\r\n\r\nhello"
    assert authorized("ses", "SendRawEmail", RawMessage={"Data": message}) == [
        ("ses:SendRawEmail", f"arn:aws:ses:{REGION}:{ACCOUNT}:identity/social.example")]
    assert authorized("ses", "SendEmail", Source="x@mail.example") == [
        ("ses:SendEmail", f"arn:aws:ses:{REGION}:{ACCOUNT}:identity/mail.example")]
    assert authorized("ses", "VerifyDomainIdentity", Domain="x") == [
        ("ses:VerifyDomainIdentity", "*")]


def test_other_services_are_authorised_on_star():
    assert iam.authorizations("kms", "Decrypt", {"KeyId": "k"}, region=REGION,
                              account=ACCOUNT) == [("kms:Decrypt", "*")]


def test_an_invoke_is_authorised_on_the_function():
    assert iam.authorizations("lambda", "Invoke", {"FunctionName": "f"}, region=REGION,
                              account=ACCOUNT) == [
        ("lambda:InvokeFunction", f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:f")]
    arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:g"
    assert iam.authorizations("lambda", "Invoke", {"FunctionName": arn, "Qualifier": "live"},
                              region=REGION, account=ACCOUNT) == [
        ("lambda:InvokeFunction", arn + ":live")]
