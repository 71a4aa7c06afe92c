"""Admin measures and dimensions: counted per day on write by the counters worker, exactly once,
read with a few calls per request."""

from __future__ import annotations

from datetime import timedelta

import pytest
from stratus.auth import activity as stats
from stratus.core import clock
from stratus.jobs.outbox import route
from stratus.repo import base, keys
from stratus.repo.base import serialize
from stratus.workers import counters

from tests.rig import auth, make_app, make_user, user_token


@pytest.fixture
def app(client):
    return make_app(client, scopes="read write admin:read admin:write", name="Tusky")


@pytest.fixture
def staff(app):
    return auth(user_token(app, make_user("boss", role="Owner"), scopes=("admin:read",)))


def today() -> str:
    return clock.now().date().isoformat()


def measure(client, staff, *names, start=None, end=None):
    response = client.post("/api/v1/admin/measures", headers=staff, json={
        "keys": list(names), "start_at": start or today(), "end_at": end or today()})
    assert response.status_code == 200, response.text
    return {m["key"]: m for m in response.json()}


def report_item(report_id: str, **fields) -> dict:
    """A report as the reports area writes it (`type: "report"`); only its type and times
    matter to the metrics."""
    return {**keys.key(f"TESTREPORT#{report_id}", "REPORT"), "type": "report", "id": report_id,
            "created_at": clock.iso(clock.now()), **fields}


def test_measures_count_sign_ups_activity_interactions_and_reports(client, staff, app, drain,
                                                                    entity):
    alice, bob = make_user("alice"), make_user("bob")
    token = auth(user_token(app, alice, scopes=("read", "write")))
    posted = client.post("/api/v1/statuses", headers=token,
                         data={"status": "hello", "language": "en"}).json()
    bob_token = auth(user_token(app, bob, scopes=("read", "write")))
    client.post(f"/api/v1/statuses/{posted['id']}/favourite", headers=bob_token)
    client.post(f"/api/v1/statuses/{posted['id']}/reblog", headers=bob_token)
    client.post("/api/v1/statuses", headers=bob_token,
                data={"status": "@alice hi", "in_reply_to_id": posted["id"]})
    base.put(report_item("1"))
    base.put(report_item("2"))
    drain()
    base.put(report_item("2", action_taken_at=clock.iso(clock.now())))  # resolved
    drain()
    found = measure(client, staff, "new_users", "active_users", "interactions",
                    "opened_reports", "resolved_reports", "unknown_key")
    assert set(found) == {"new_users", "active_users", "interactions", "opened_reports",
                          "resolved_reports"}
    for entity_ in found.values():
        entity("AdminMeasure", entity_)
    assert found["new_users"]["total"] == "3"  # boss, alice, bob
    assert found["new_users"]["data"] == [{"date": today() + "T00:00:00Z", "value": "3"}]
    assert found["active_users"]["total"] == "3"  # every token used today (boss included)
    assert found["interactions"]["total"] == "3"  # a like, a boost, a reply
    assert found["opened_reports"]["total"] == "2"
    assert found["resolved_reports"]["total"] == "1"
    assert found["new_users"]["previous_total"] == "0"
    assert found["new_users"]["unit"] is None


def test_active_users_are_distinct_over_the_range(client, staff, drain):
    alice = make_user("alice")
    yesterday = clock.now() - timedelta(days=1)
    stats.record_sign_in(alice, at=yesterday)
    stats.record_sign_in(alice)
    stats.record_sign_in(alice)  # the same day again: one item, counted once
    drain()
    start = yesterday.date().isoformat()
    found = measure(client, staff, "active_users", start=start)["active_users"]
    by_day = [d["value"] for d in found["data"]]
    assert by_day[0] == "1" and found["total"] == "2"  # alice both days, boss today


def test_a_redelivered_count_counts_once(client, staff):
    report = report_item("9")
    record = {"eventID": "ev-9", "eventName": "INSERT",
              "dynamodb": {"NewImage": serialize(report), "SequenceNumber": "1"}}
    (job,) = [j for q, j in route(record) if q == "counters"]
    assert counters.apply_batch([("m1", job), ("m2", job)]) == []
    assert counters.apply_batch([("m3", job)]) == []
    assert measure(client, staff, "opened_reports")["opened_reports"]["total"] == "1"


def test_dimensions_languages_sources_and_servers(client, staff, app, drain, entity):
    alice = make_user("alice")
    token = auth(user_token(app, alice, scopes=("read", "write")))
    for language in ("en", "en", "de"):
        client.post("/api/v1/statuses", headers=token,
                    data={"status": "words", "language": language})
    drain()
    response = client.post("/api/v1/admin/dimensions", headers=staff, json={
        "keys": ["languages", "sources", "servers", "nope"], "start_at": today(),
        "end_at": today(), "limit": 1})
    assert response.status_code == 200
    found = {d["key"]: d for d in response.json()}
    for dimension in found.values():
        entity("AdminDimension", dimension)
    assert found["languages"]["data"] == [{"key": "en", "human_key": "en", "value": "2"}]
    assert found["sources"]["data"] == [{"key": "Tusky", "human_key": "Tusky", "value": "3"}]
    assert found["servers"]["data"] == []


def test_permission_and_bad_ranges(client, staff, app):
    moderator_without = auth(user_token(app, make_user("plain"), scopes=("admin:read",)))
    assert client.post("/api/v1/admin/measures", headers=moderator_without,
                       json={"keys": ["new_users"], "start_at": today(),
                             "end_at": today()}).status_code == 403
    moderator = auth(user_token(app, make_user("mod", role="Moderator"), scopes=("admin:read",)))
    assert client.post("/api/v1/admin/measures", headers=moderator,
                       json={"keys": ["new_users"], "start_at": today(),
                             "end_at": today()}).status_code == 200  # VIEW_DASHBOARD
    bad = client.post("/api/v1/admin/measures", headers=staff,
                      json={"keys": ["new_users"], "start_at": "banana", "end_at": today()})
    assert bad.status_code == 422
    long = client.post("/api/v1/admin/measures", headers=staff,
                       json={"keys": ["new_users"], "start_at": "2020-01-01",
                             "end_at": "2024-01-01"})
    assert long.status_code == 422


# --- retention (Admin::Metrics::Retention) --------------------------------------------------
def _through_counters(kind: str, item: dict) -> None:
    """An item written as the product writes it, then counted from its stream record."""
    base.put(item)
    record = {"eventID": f"ev-{item['PK']}-{item['SK']}", "eventName": "INSERT",
              "dynamodb": {"NewImage": serialize(item), "SequenceNumber": "1"}}
    jobs = [j for q, j in route(record) if q == "counters"]
    assert jobs, kind
    assert counters.apply_batch([(f"m-{item['SK']}", j) for j in jobs]) == []


def signed_up(account_id: str, day) -> None:
    created = clock.iso(clock.now().replace(year=day.year, month=day.month, day=day.day))
    _through_counters("user", {**keys.account_user(account_id), "type": "user",
                               "account_id": account_id, "created_at": created})


def active(account_id: str, day) -> None:
    yyyymmdd = day.strftime("%Y%m%d")
    _through_counters("activity", {**keys.active_day(yyyymmdd, account_id), "type": "activity",
                                   "account_id": account_id, "day": yyyymmdd})


def test_retention_cohorts_by_day_and_month(client, staff, entity):
    d0 = clock.now().date()
    d2, d1 = d0 - timedelta(days=2), d0 - timedelta(days=1)
    for account_id, joined in (("901", d2), ("902", d2), ("903", d2), ("911", d1),
                               ("912", d1), ("921", d0)):
        signed_up(account_id, joined)
    for account_id, day in (("901", d2), ("902", d2), ("902", d0), ("911", d1), ("912", d0),
                            ("921", d0)):
        active(account_id, day)
    response = client.post("/api/v1/admin/retention", headers=staff, json={
        "start_at": d2.isoformat(), "end_at": d0.isoformat(), "frequency": "day"})
    assert response.status_code == 200, response.text
    cohorts = response.json()
    midnight = lambda d: f"{d.isoformat()}T00:00:00Z"  # noqa: E731
    assert [(c["period"], c["frequency"]) for c in cohorts] == [
        (midnight(d2), "day"), (midnight(d1), "day"), (midnight(d0), "day")]
    values = [[(p["date"], p["value"], round(p["rate"], 3)) for p in c["data"]] for c in cohorts]
    # Retained in a period: last active in it or later (Mastodon's current_sign_in_at).
    assert values == [
        [(midnight(d2), "2", 0.667), (midnight(d1), "1", 0.333), (midnight(d0), "1", 0.333)],
        [(midnight(d1), "2", 1.0), (midnight(d0), "1", 0.5)],
        [(midnight(d0), "1", 1.0)]]
    monthly = client.post("/api/v1/admin/retention", headers=staff, json={
        "start_at": d0.isoformat(), "end_at": d0.isoformat(), "frequency": "month"}).json()
    (month,) = monthly
    assert month["frequency"] == "month" and month["period"] == midnight(d0.replace(day=1))
    joined_this_month = sum(1 for d in (d2, d1, d1, d2, d2, d0) if d.month == d0.month)
    assert month["data"][0]["value"] == str(
        sum(1 for a, d in (("901", d2), ("902", d2), ("903", d2), ("911", d1), ("912", d1),
                           ("921", d0)) if d.month == d0.month and a != "903"))
    assert joined_this_month >= 1
    assert client.post("/api/v1/admin/retention", headers=staff, json={
        "start_at": "yesterday", "end_at": d0.isoformat()}).status_code == 422
