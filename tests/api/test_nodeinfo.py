"""NodeInfo 2.0: discovery, the draft-04 schema, and real usage numbers kept by the pipeline."""

from __future__ import annotations

import json
from datetime import timedelta

import jsonschema
import pytest
from stratus.auth import activity as stats
from stratus.core import clock
from stratus.read import settings as settings_service
from stratus.repo import base, keys

from tests.conftest import REFERENCE

SCHEMA = json.loads((REFERENCE / "nodeinfo-2.0.schema.json").read_text())


def validate(document):
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    jsonschema.Draft4Validator(SCHEMA).validate(document)


def test_discovery_links_to_2_0(client):
    response = client.get("/.well-known/nodeinfo")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "max-age=259200, public"
    assert response.json() == {"links": [{
        "rel": "http://nodeinfo.diaspora.software/ns/schema/2.0",
        "href": "http://localhost:8000/nodeinfo/2.0"}]}


def test_document_passes_the_schema(client):
    response = client.get("/nodeinfo/2.0")
    assert response.status_code == 200
    assert response.headers["content-type"] == \
        'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"'
    assert response.headers["cache-control"] == "max-age=1800, public"
    document = response.json()
    validate(document)
    assert set(document) == {"version", "software", "protocols", "services",
                             "openRegistrations", "usage", "metadata"}
    assert document["software"]["name"] == "stratus"
    assert document["protocols"] == ["activitypub"]
    assert document["openRegistrations"] is True
    assert document["usage"] == {"users": {"total": 0, "activeMonth": 0, "activeHalfyear": 0},
                                 "localPosts": 0}
    assert document["metadata"]["nodeName"] == "Stratus"
    assert document["metadata"]["upstream"]["name"] == "mastodon"


@pytest.mark.parametrize("mode, open_", [("open", True), ("approved", True), ("none", False)])
def test_open_registrations_follows_the_mode(client, mode, open_):
    """Mastodon: open unless closed; sign-ups that need approval are still open sign-ups."""
    settings_service.set_value("registrations_mode", mode)
    document = client.get("/nodeinfo/2.0").json()
    validate(document)
    assert document["openRegistrations"] is open_


def _user(account_id: str, created_at: str | None = None) -> dict:
    return {**keys.account_user(account_id), "type": "user", "account_id": account_id,
            "created_at": created_at or clock.iso(clock.now())}


def _status(status_id: str, *, local=True, reblog_of_id=None) -> dict:
    return {**keys.status(status_id), "type": "status", "id": status_id, "account_id": "1",
            "local": local, "reblog_of_id": reblog_of_id, "created_at": clock.iso(clock.now())}


def test_usage_counters_come_from_the_stream(client, drain):
    base.put(_user("101"))
    base.put(_user("102"))
    base.put(_status("201"))
    base.put(_status("202"))
    base.put(_status("203", local=False))  # remote posts are not local posts
    base.put(_status("204", reblog_of_id="201"))  # reblogs are not posts
    drain()
    document = client.get("/nodeinfo/2.0").json()
    validate(document)
    assert document["usage"]["users"]["total"] == 2
    assert document["usage"]["localPosts"] == 2
    v1 = client.get("/api/v1/instance").json()
    assert v1["stats"]["user_count"] == 2 and v1["stats"]["status_count"] == 2
    week = client.get("/api/v1/instance/activity").json()[0]
    assert week["registrations"] == "2" and week["statuses"] == "2"

    base.delete(keys.status("202"))
    base.delete(keys.status("201"))
    base.delete(keys.account_user("102"))
    drain()
    document = client.get("/nodeinfo/2.0").json()
    assert document["usage"]["users"]["total"] == 1
    assert document["usage"]["localPosts"] == 0
    # The weekly activity is history: deletions do not rewrite it.
    assert client.get("/api/v1/instance/activity").json()[0]["statuses"] == "2"


def test_redelivered_jobs_count_once(runtime, drain):
    """SQS delivers at least once: the same change applied twice counts once."""
    from stratus.jobs.messages import Count
    from stratus.workers import counters

    base.put(_user("101"))
    job = Count(event_id="evt-1", event="INSERT", item_type="user",
                item={"account_id": "101", "created_at": clock.iso(clock.now())})
    assert counters.apply_batch([("m1", job)]) == []
    assert counters.apply_batch([("m1", job), ("m2", job)]) == []
    assert base.get(keys.instance_stats())["user_count"] == 1


def test_duplicate_sqs_delivery_through_the_worker(runtime, drain):
    from stratus.jobs.messages import Count
    from stratus.repo.queues import send

    base.put(_status("301"))
    message = Count(event_id="evt-9", event="INSERT", item_type="status",
                    item={"id": "301", "account_id": "1", "local": True,
                          "visibility": "public"}).to_dict()
    send("counters", [message, message])
    drain()
    send("counters", [message])
    drain()
    assert base.get(keys.instance_stats())["local_posts"] == 1


def test_poison_jobs_are_dropped_not_retried(runtime, drain):
    """A message that is no job can never succeed: logged and dropped at its first receive
    (observability.sqs_batch_handler), neither retried nor left in the dead-letter queue."""
    from stratus.repo.client import client as aws

    aws("sqs").send_message(QueueUrl=runtime.env["COUNTERS_QUEUE_URL"], MessageBody="not json")
    drain()
    for queue in (runtime.env["COUNTERS_QUEUE_URL"], runtime.stack.queue_urls["CountersDLQ"]):
        left = aws("sqs").receive_message(QueueUrl=queue, MaxNumberOfMessages=10)
        assert left.get("Messages", []) == []


def test_active_users_from_sign_in_activity(client, runtime):
    now = clock.now()
    stats.record_sign_in("1", now)
    stats.record_sign_in("2", now - timedelta(days=3))
    stats.record_sign_in("2", now - timedelta(days=10))
    stats.record_sign_in("3", now - timedelta(days=40))  # outside the month
    stats.record_sign_in("4", now - timedelta(days=200))  # outside the half-year
    # The schedule target, as EventBridge would invoke it.
    runtime.pipeline.pump_schedules(now=float("inf"))
    document = client.get("/nodeinfo/2.0").json()
    validate(document)
    assert document["usage"]["users"]["activeMonth"] == 2
    assert document["usage"]["users"]["activeHalfyear"] == 3
    assert client.get("/api/v2/instance").json()["usage"]["users"]["active_month"] == 2
    weeks = client.get("/api/v1/instance/activity").json()
    this_week_logins = {clock.week_key(now - timedelta(days=d)) for d in (0, 3, 10)}
    assert sum(int(w["logins"]) for w in weeks) >= len(this_week_logins)
    assert weeks[0]["logins"] == str(1 + (clock.week_key(now - timedelta(days=3))
                                          == clock.week_key(now)))


def test_the_schedule_is_declared_in_the_template(runtime):
    schedules = runtime.pipeline.schedules
    assert ("ActivityFunction", 3600) in [(s.function, s.every) for s in schedules]
