"""The outbox rules and counting rules of conversations, hashtag history and the link index,
and how a tag's history is kept and shown."""

from __future__ import annotations

from datetime import timedelta

from stratus.convert import tags
from stratus.core import clock, ids
from stratus.jobs import messages as jobs
from stratus.jobs.outbox import route
from stratus.repo import counters as counters_repo
from stratus.workers.counters import deltas

from tests.rig import STATUS, record, routed

DIRECT = {**STATUS, "visibility": "direct", "thread_id": "8", "mention_ids": ["2", "3"],
          "in_reply_to_account_id": "2", "tags": []}
LINKED = {**STATUS, "text": "see https://news.example/a"}


def jobs_of(rec: dict, queue: str = "effects") -> list[jobs.Job]:
    return [job for q, job in route(rec) if q == queue]


def test_a_direct_status_goes_to_conversations_and_its_deletion_takes_it_out():
    assert ("effects", "direct_status_posted") in routed(record("INSERT", DIRECT))
    [posted] = [j for j in jobs_of(record("INSERT", DIRECT))
                if isinstance(j, jobs.DirectStatusPosted)]
    assert (posted.thread_id, posted.mention_ids, posted.only) == ("8", ["2", "3"], None)
    assert posted.in_reply_to_account_id == "2"
    [removed] = [j for j in jobs_of(record("REMOVE", old=DIRECT))
                 if isinstance(j, jobs.DirectStatusRemoved)]
    assert (removed.status_id, removed.thread_id, removed.mention_ids) == ("10", "8", ["2", "3"])
    assert "direct_status_posted" not in {n for _, n in routed(record("INSERT", STATUS))}
    assert "direct_status_removed" not in {n for _, n in routed(record("REMOVE", old=STATUS))}


def test_an_edit_that_mentions_more_accounts_reaches_only_them():
    more = {**DIRECT, "mention_ids": ["2", "3", "4"]}
    [added] = [j for j in jobs_of(record("MODIFY", more, DIRECT))
               if isinstance(j, jobs.DirectStatusPosted)]
    assert added.only == ["4"]
    counted = {**DIRECT, "counted": True}
    assert not any(isinstance(j, jobs.DirectStatusPosted)
                   for j in jobs_of(record("MODIFY", counted, DIRECT)))


def test_the_link_index_follows_public_originals_with_links():
    [posted] = [j for j in jobs_of(record("INSERT", LINKED)) if isinstance(j, jobs.LinksChanged)]
    assert (posted.old_text, posted.new_text) == (None, LINKED["text"])
    [gone] = [j for j in jobs_of(record("REMOVE", old=LINKED))
              if isinstance(j, jobs.LinksChanged)]
    assert (gone.old_text, gone.new_text) == (LINKED["text"], None)
    edited = {**LINKED, "text": "no link now"}
    assert any(isinstance(j, jobs.LinksChanged) for j in jobs_of(record("MODIFY", edited,
                                                                          LINKED)))
    for quiet in (record("INSERT", STATUS), record("MODIFY", {**LINKED, "counted": True}, LINKED),
                  record("INSERT", {**LINKED, "visibility": "unlisted"}),
                  record("INSERT", {**LINKED, "reblog_of_id": "9"}),
                  record("INSERT", {**LINKED, "visibility": "direct"})):
        assert not any(isinstance(j, jobs.LinksChanged) for j in jobs_of(quiet))


def test_a_first_use_of_a_tag_by_an_account_on_a_day_is_counted():
    use = {"type": "tag_use", "tag": "cats", "day": "20261118", "account_id": "1"}
    assert routed(record("INSERT", use)) == [("counters", "count")]
    expiry = record("REMOVE", old=use,
                    userIdentity={"type": "Service", "principalId": "dynamodb.amazonaws.com"})
    assert routed(expiry) == []


def count(event: str, item_type: str, **item) -> tuple[dict, dict]:
    return deltas(jobs.Count(event_id="e", event=event, item_type=item_type, item=item))


def status_id_on(day: str) -> str:
    moment = clock.parse_iso(f"{day[:4]}-{day[4:6]}-{day[6:]}T12:00:00.000Z")
    return ids.new_id(int(moment.timestamp() * 1000))


def test_public_originals_count_a_use_of_each_tag_on_their_day():
    sid = status_id_on("20261118")
    adds, sets = count("INSERT", "status", id=sid, account_id="1", visibility="public",
                       tags=["cats", "dogs"])
    assert adds[("tag", "cats")] == {"uses_20261118": 1}
    assert adds[("tag", "dogs")] == {"uses_20261118": 1}
    assert sets[("tag", "cats")] == {"type": "tag_stats", "name": "cats"}
    for other in ({"visibility": "unlisted"}, {"visibility": "direct"}, {"reblog_of_id": "9"}):
        adds, _ = count("INSERT", "status", id=sid, account_id="1", tags=["cats"],
                        **{"visibility": "public", **other})
        assert ("tag", "cats") not in adds, other
    adds, _ = count("REMOVE", "status", id=sid, account_id="1", visibility="public",
                    tags=["cats"], counted=True)
    assert ("tag", "cats") not in adds  # history is history
    adds, _ = count("INSERT", "tag_use", tag="cats", day="20261118", account_id="1")
    assert adds == {("tag", "cats"): {"accounts_20261118": 1}}


def test_a_tags_counter_item_keeps_two_weeks_of_days():
    op = counters_repo.change_op(("tag", "cats"), {"uses_20261118": 2, "accounts_20261118": 1},
                                 {"name": "cats"})
    removed = {op.names[alias] for alias in op.expression.split("REMOVE ")[1].split(", ")}
    assert removed == {f"{m}_202611{d:02d}" for m in ("uses", "accounts") for d in range(4, 11)}
    assert op.condition is None  # made by its first use
    account = counters_repo.change_op(("account", "1"), {"statuses_count": 1}, {})
    assert "REMOVE" not in account.expression


def test_history_shows_the_last_seven_days_today_first():
    today = clock.now()
    yesterday = clock.day_key(today - timedelta(days=1))
    week_ago = clock.day_key(today - timedelta(days=7))
    shown = tags.history({f"uses_{clock.day_key(today)}": 3, f"accounts_{clock.day_key(today)}": 2,
                          f"uses_{yesterday}": 5, f"accounts_{yesterday}": 1,
                          f"uses_{week_ago}": 9}, today)
    assert [(h["uses"], h["accounts"]) for h in shown] == [
        ("3", "2"), ("5", "1"), *[("0", "0")] * 5]
    assert int(shown[0]["day"]) - int(shown[1]["day"]) == 86400
    assert clock.day_of_id(status_id_on("20261118")) == "20261118"
    assert tags.tag_id("cats") == tags.tag_id("cats") != tags.tag_id("dogs")
    assert ids.is_id(tags.tag_id("cats"))
