"""Every non-HTTP handler, fed its sample event from events/ exactly as Lambda would."""

from __future__ import annotations

import json

import pytest
from stratus.repo import base, keys

from local import cfn
from local.lambda_runtime import invoke
from tests.rig import sample

NON_HTTP = [f.logical_id for f in cfn.functions(cfn.load_template()) if not f.routes]


@pytest.mark.parametrize("name", NON_HTTP)
def test_every_job_function_has_a_sample_event(name):
    assert (cfn.ROOT / "events" / f"{name}.json").exists()


def test_counters_worker(runtime):
    base.put({**keys.account_user("117657226599751600"), "type": "user",
              "account_id": "117657226599751600"})
    result = invoke(runtime.stack, "CountersFunction", sample("CountersFunction"))
    assert result == {"batchItemFailures": []}
    assert base.get(keys.instance_stats())["user_count"] == 1
    invoke(runtime.stack, "CountersFunction", sample("CountersFunction"))  # redelivery
    assert base.get(keys.instance_stats())["user_count"] == 1


def test_mailer_skips_stale_confirmations(runtime):
    assert invoke(runtime.stack, "MailerFunction", sample("MailerFunction")) == \
        {"batchItemFailures": []}
    assert runtime.mailbox.collect() == []


def test_mailer_drops_unknown_jobs(runtime):
    """A job no code knows can never be run: dropped, not retried until dead-lettered."""
    event = sample("MailerFunction")
    event["jobs"][0] = {"job": "mystery"}
    assert invoke(runtime.stack, "MailerFunction", event) == {"batchItemFailures": []}


def test_dispatch_routes_to_the_counters_queue(runtime, drain):
    """The sample record routes to the counters queue; the same insert seen again (the put's
    own stream record) counts once: the guard is the status's `counted` flag."""
    base.put({**keys.status("117657226599751660"), "type": "status", "local": True,
              "id": "117657226599751660", "account_id": "117657226599751600"})
    assert invoke(runtime.stack, "DispatchFunction", sample("DispatchFunction")) == \
        {"batchItemFailures": []}
    drain()
    assert base.get(keys.instance_stats())["local_posts"] == 1


def test_activity_schedule(runtime):
    assert invoke(runtime.stack, "ActivityFunction", sample("ActivityFunction")) == \
        {"active_month": 0, "active_halfyear": 0}


def test_effects_worker_records_hashtag_uses(runtime):
    """A new public status's tag is a use by its account that day; its index entry is the
    status's own write's (repo/status_writes), not the worker's."""
    from stratus.core import clock
    from stratus.repo import statuses as statuses_repo

    assert invoke(runtime.stack, "EffectsFunction", sample("EffectsFunction")) == \
        {"batchItemFailures": []}
    day = clock.day_of_id("117657226599751661")
    assert base.get(keys.tag_use("clouds", day, "117657226599751660")) is not None
    assert statuses_repo.tag_status_ids("clouds", keys.pad(0), keys.MAX_SK) == []


def test_timers_worker_ignores_unknown_polls(runtime):
    assert invoke(runtime.stack, "TimersFunction", sample("TimersFunction")) == \
        {"batchItemFailures": []}


def test_fanout_worker_delivers_to_the_author(runtime, drain):
    from stratus.repo import base as repo_base

    assert invoke(runtime.stack, "FanoutFunction", sample("FanoutFunction")) == \
        {"batchItemFailures": []}
    drain()  # the Deliver batch it queued
    entry = repo_base.get(keys.feed_entry(keys.home_feed("117657226599751660"),
                                          "117657226599751661"),
                          table_name=runtime.env["FEED_TABLE"])
    assert entry["author_id"] == "117657226599751660"


def test_stream_worker_and_websocket_routes(runtime):
    assert invoke(runtime.stack, "StreamWorkerFunction", sample("StreamWorkerFunction")) == \
        {"batchItemFailures": []}  # nobody listening: nothing posted
    refused = invoke(runtime.stack, "StreamingFunction", sample("StreamingFunction"))
    assert refused["statusCode"] == 401  # the sample's sub-protocol is no token
    assert json.loads(refused["body"]) == {"error": "Invalid access token"}


def test_push_worker_with_nobody_subscribed(runtime):
    """A notification for a user without push subscriptions: one Query, nothing sent."""
    assert invoke(runtime.stack, "PushWorkerFunction", sample("PushWorkerFunction")) == \
        {"batchItemFailures": []}


def test_trends_schedule_ranks_from_its_constant_input(runtime):
    # EventBridge hands the rule's Input ({"task": ...}) to the function, not a scheduled event.
    assert invoke(runtime.stack, "TrendsScheduleFunction", sample("TrendsScheduleFunction")) == \
        {"ranked": {"tags": 0, "statuses": 0, "links": 0}}
    with pytest.raises(ValueError):
        invoke(runtime.stack, "TrendsScheduleFunction", sample("ActivityFunction"))


def test_moderation_step_on_an_account_without_a_purge_request_finishes(runtime):
    # The purge machine's first step: no request stands (or the account was unsuspended).
    assert invoke(runtime.stack, "ModerationFunction", sample("ModerationFunction")) == {
        "step": "purge", "account_id": "117657226599751600", "done": True, "purged": False}


def test_cards_worker_skips_a_status_that_is_gone(runtime):
    """Cards area: a job for a deleted status does nothing, and is not retried."""
    assert invoke(runtime.stack, "CardsFunction", sample("CardsFunction")) == \
        {"batchItemFailures": []}


def test_search_index_worker(runtime):
    """The sample job indexes its status's tag (the status itself is gone: nothing else), and
    again changes nothing."""
    from stratus.repo import search as search_repo

    event = sample("SearchIndexFunction")
    assert invoke(runtime.stack, "SearchIndexFunction", event) == {"batchItemFailures": []}
    assert search_repo.unindexed_tags(["clouds"]) == []
    assert invoke(runtime.stack, "SearchIndexFunction", event) == {"batchItemFailures": []}


def test_federation_worker_drops_an_event_of_an_unknown_author(runtime):
    assert invoke(runtime.stack, "FederationFunction", sample("FederationFunction")) == \
        {"batchItemFailures": []}


def test_delivery_worker_retries_an_unreachable_inbox_later(runtime):
    """The sample's inbox refuses connections: the attempt fails and is sent on for later
    (not reported failed: the retry is a new, delayed message)."""
    from stratus.repo import delivery as delivery_repo

    assert invoke(runtime.stack, "DeliveryFunction", sample("DeliveryFunction")) == \
        {"batchItemFailures": []}
    assert delivery_repo.host_state("127.0.0.1")["failures"] == 1
