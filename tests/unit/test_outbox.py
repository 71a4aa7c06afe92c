"""The outbox registry: which item change produces which job, and that every job it produces
has a consumer on its queue."""

from __future__ import annotations

import pytest
from stratus.jobs import messages as jobs
from stratus.jobs.outbox import RULES, route
from stratus.repo import keys

from tests.rig import STATUS, record, routed

FAV = {"type": "fav", "account_id": "3", "status_id": "10", "status_account_id": "1"}


FOLLOW = {"type": "follow", "id": "20", "account_id": "3", "target_id": "1"}


def test_a_new_status_is_counted_and_has_effects():
    assert routed(record("INSERT", STATUS)) == [("counters", "count"),
                                                ("effects", "status_created"),
                                                ("fanout", "fan_out"),
                                                ("search", "status_search_scope"),
                                                ("stream", "stream_status"),
                                                ("federation", "federate")]
    assert ("fanout", "fan_out") not in routed(record("INSERT", {**STATUS,
                                                                 "visibility": "direct"}))


def test_a_removed_status_is_uncounted_and_cascades():
    [(_, count), (_, removed), (_, unfan), (_, unsearch), (_, unstream), (_, deleted)] = route(
        record("REMOVE", old={**STATUS, "counted": True}))
    assert isinstance(deleted, jobs.Federate) and deleted.kind == "delete"
    assert isinstance(unsearch, jobs.StatusSearchScope) and unsearch.account_ids is None
    assert isinstance(unstream, jobs.StreamStatus) and unstream.event == "delete"
    assert count.item["counted"] is True and count.event == "REMOVE"
    assert isinstance(removed, jobs.StatusRemoved) and removed.tags == ["a"]
    assert isinstance(unfan, jobs.FanOut) and unfan.removal is True


def test_the_counting_guard_itself_triggers_nothing():
    assert routed(record("MODIFY", {**STATUS, "counted": True}, STATUS)) == []
    assert routed(record("MODIFY", {**FAV, "counted": True}, FAV)) == []
    user = {"type": "user", "account_id": "1", "confirmation_nonce": "n"}
    assert routed(record("MODIFY", {**user, "counted": True}, user)) == []


def test_likes_count_notify_and_undo():
    assert routed(record("INSERT", FAV)) == [("counters", "count"), ("effects", "favourited"),
                                             ("search", "status_search_scope"),
                                             ("federation", "federate")]
    assert routed(record("REMOVE", old=FAV)) == [("counters", "count"),
                                                  ("effects", "unfavourited"),
                                                  ("search", "status_search_scope"),
                                                  ("federation", "federate")]


def test_follows_count_notify_and_take_their_notification_back():
    assert routed(record("INSERT", FOLLOW)) == [("counters", "count"), ("effects", "followed"),
                                                ("fanout", "merge_into_home")]
    assert routed(record("REMOVE", old=FOLLOW)) == [("counters", "count"),
                                                     ("effects", "unfollowed"),
                                                     ("fanout", "clear_from_home"),
                                                     ("fanout", "leave_lists")]
    # An accepted request notifies nobody (Mastodon): it is counted all the same.
    assert routed(record("INSERT", {**FOLLOW, "authorized": True})) == [
        ("counters", "count"), ("fanout", "merge_into_home")]
    # Changing a follow's options, or counting it, has no side effect.
    assert routed(record("MODIFY", {**FOLLOW, "notify": True}, FOLLOW)) == []
    assert routed(record("MODIFY", {**FOLLOW, "counted": True}, FOLLOW)) == []


def test_follow_requests_count_and_notify_until_they_go():
    request = {**FOLLOW, "type": "follow_request"}
    assert routed(record("INSERT", request)) == [("counters", "count"),
                                                 ("effects", "follow_requested")]
    [_, (_, removed)] = route(record("REMOVE", old={**request, "counted": True}))
    assert isinstance(removed, jobs.FollowRequestRemoved) and removed.request_id == "20"


def test_a_block_sweeps_the_blocked_accounts_notifications():
    [(queue, job), *home, (federation, block)] = route(record("INSERT", {**FOLLOW,
                                                                          "type": "block"}))
    assert queue == "effects" and (job.account_id, job.target_id) == ("3", "1")
    assert federation == "federation" and block.kind == "block"
    # Both stop seeing each other at home.
    assert {(q, j.account_id, j.target_id) for q, j in home} == {("fanout", "3", "1"),
                                                                  ("fanout", "1", "3")}
    assert routed(record("REMOVE", old={**FOLLOW, "type": "block"})) == [
        ("federation", "federate")]


def test_a_users_domain_block_ends_its_follows_with_the_domain():
    """AfterBlockDomainFromAccountService: the block's insert, not its removal, starts the
    walk of the user's follows, on the effects worker."""
    blocked = {"type": "user_domain_block", "id": "9", "account_id": "3",
               "domain": "example.net"}
    [(queue, job)] = route(record("INSERT", blocked))
    assert queue == "effects" and job == jobs.UserDomainBlocked(
        event_id=job.event_id, account_id="3", domain="example.net")
    assert route(record("REMOVE", old=blocked)) == []


def test_confirmation_mail_on_sign_up_and_on_request_only():
    user = {"type": "user", "account_id": "1", "confirmation_nonce": "n"}
    assert ("mail", "confirmation_mail") in routed(record("INSERT", user))
    asked = {**user, "confirmation_requested_at": "2026-11-22T10:00:00.000Z"}
    assert routed(record("MODIFY", asked, user)) == [("mail", "confirmation_mail")]
    confirmed = {**user, "confirmed_at": "2026-11-22T10:00:00.000Z", "confirmation_nonce": None}
    assert ("mail", "confirmation_mail") not in routed(record("MODIFY", confirmed, user))


def test_a_new_user_gets_its_actor_key_pair_from_the_effects_worker():
    user = {"type": "user", "account_id": "1", "confirmation_nonce": "n"}
    made = [job for queue, job in route(record("INSERT", user)) if queue == "effects"
            and isinstance(job, jobs.GenerateActorKey)]
    assert [job.account_id for job in made] == ["1"]
    changed = {**user, "confirmed_at": "2026-11-22T10:00:00.000Z"}
    assert not any(isinstance(job, jobs.GenerateActorKey)
                   for _, job in route(record("MODIFY", changed, user)))


def test_ttl_expiry_of_unattached_media_removes_its_files():
    media = {"type": "media_attachment", "id": "5", "file_key": "f", "small_key": "s"}
    by_ttl = record("REMOVE", old=media,
                    userIdentity={"type": "Service", "principalId": "dynamodb.amazonaws.com"})
    [(queue, job)] = route(by_ttl)
    assert queue == "effects" and job.keys == ["f", "s"]
    assert route(record("REMOVE", old=media)) == []


def test_every_job_the_registry_produces_has_a_consumer():
    from stratus.workers import effects, search_index

    from functions.workers.fanout.handler import HANDLERS as FANOUT
    from functions.workers.stream.handler import HANDLERS as STREAM

    consumers = {"effects": set(effects.HANDLERS), "counters": {jobs.Count},
                 "mail": {jobs.ConfirmationMail, jobs.TrendsReviewMail, jobs.TermsOfServiceMail,
                          jobs.WarningMail},  # warnings
                 "media": {jobs.ProcessMedia},
                 "fanout": set(FANOUT), "stream": set(STREAM), "push": {jobs.PushNotification},
                 "purge_account": {jobs.PurgeAccount}, "domain_block": {jobs.ApplyDomainBlock},
                 "search": set(search_index.HANDLERS), "federation": {jobs.Federate},
                 "inbox": {jobs.FetchReplies}}  # what the outbox sends the inbox worker
    consumers["cards"] = {jobs.FetchCard}  # cards area
    samples = {"status": {**STATUS, "edited_at": "2026-11-22T10:00:00.000Z"}, "fav": FAV,
               "reblog": {**FAV, "type": "reblog"},
               "user": {"type": "user", "account_id": "1", "confirmation_nonce": "n"},
               "poll": {"type": "poll", "id": "7", "status_id": "10", "account_id": "1"},
               "media_attachment": {"type": "media_attachment", "id": "5"},
               "follow": FOLLOW, "follow_request": {**FOLLOW, "type": "follow_request"},
               "block": {**FOLLOW, "type": "block"}, "mute": {**FOLLOW, "type": "mute"},
               "user_domain_block": {"type": "user_domain_block", "id": "9", "account_id": "3",
                                     "domain": "example.net"},
               "list": {"type": "list", "id": "5", "owner_id": "3"},
               "list_member": {"type": "list_member", "list_id": "5", "owner_id": "3",
                               "account_id": "1"},
               "notification": {"type": "notification", "id": "8", "account_id": "1",
                                "notification_type": "favourite", "group_key": "favourite-10-1",
                                "from_account_id": "3"},
               "notification_request": {"type": "notification_request", "account_id": "1",
                                        "from_account_id": "2"},
               "notification_sweep": {"type": "notification_sweep", "id": "9",
                                      "account_id": "1"},
               "tag_use": {"type": "tag_use", "tag": "a", "day": "20250101", "account_id": "1"},
               "account_conversation": {"type": "account_conversation", "id": "c",
                                        "account_id": "1"},
               "filters_rev": {"type": "filters_rev", "account_id": "1", "rev": 1},
               "token": {"type": "token", "id": "7", "account_id": "1"},
               "trends_review": {"type": "trends_review", "id": "12"},
               "terms_of_service": {"type": "terms_of_service", "id": "13",
                                    "notification_sent_at": "2026-01-01T00:00:00.000Z"},
               "report": {"type": "report", "id": "4", "account_id": "1", "target_id": "2",
                          "notify_staff": True, "created_at": "2025-01-01T00:00:00Z"},
               "purge_request": {"type": "purge_request", "account_id": "1"},
               "actor_key": {"type": "actor_key", "account_id": "1", "public_key_pem": "k"},
               "poll_vote": {"type": "poll_vote", "poll_id": "7", "account_id": "1",
                             "choices": [0]},
               "domain_block": {"type": "domain_block", "domain": "example.net",
                                "severity": "silence", "created_at": "2026-11-23T00:00:00Z"},
               # a moderation warning that asked for its mail
               "account_warning": {"type": "account_warning", "id": "4",
                                   "target_account_id": "1", "email": True},
               # profiles: the directory entry follows the account's items
               "account": {"type": "account", "id": "1", "discoverable": True,
                           "username": "a"},  # (and search)
               "bmk": {**FAV, "type": "bmk"},  # search
               "account_stats": {**keys.account_stats("1"), "type": "account_stats",
                                 "followers_count": 1},
               # announce area
               "announcement": {"type": "announcement", "id": "4", "published": True},
               "announcement_reactions": {"type": "announcement_reactions",
                                          "announcement_id": "4", "name": "x", "count": 1},
               "announcement_reaction": {"type": "announcement_reaction", "id": "6",
                                         "account_id": "1", "announcement_id": "4",
                                         "name": "x"},
               "activity": {"type": "activity", "account_id": "1", "day": "20250101"},
               "async_refresh": {"type": "async_refresh", "name": "context:9:refresh",
                                 "status": "running", "replies_of": "9",
                                 "fetched_at": "2026-12-03T10:00:00.000Z"}}
    samples.update({  # link shares
        "linked_status": {"type": "linked_status", "url": "https://a.example/",
                          "status_id": "10", "day": "20250101", "shared": True},
        "link_use": {"type": "link_use", "url": "https://a.example/", "day": "20250101",
                     "account_id": "1"}})
    from stratus.jobs.outbox import decode

    for rule in RULES:
        image = samples[rule.item_type]  # decoded from a stream record, as Dispatch does
        job = rule.job(decode(record("INSERT", new=image, old=image)))
        assert type(job) in consumers[rule.queue], (rule.queue, job.name)


def test_new_notifications_are_pushed_unless_filtered():
    note = {"type": "notification", "id": "8", "account_id": "1", "from_account_id": "3",
            "notification_type": "mention"}
    [push] = [job for queue, job in route(record("INSERT", note)) if queue == "push"]
    assert push == jobs.PushNotification(event_id="e1", account_id="1", notification_id="8",
                                         notification_type="mention", from_account_id="3")
    filtered = {**note, "filtered": True}
    assert ("push", "push_notification") not in routed(record("INSERT", filtered))
    # Let in later (an accepted request) or removed: not pushed (Mastodon pushes on creation).
    assert ("push", "push_notification") not in routed(record("MODIFY", note, filtered))
    assert ("push", "push_notification") not in routed(record("REMOVE", old=note))


def test_messages_round_trip_and_poison_is_refused():
    job = jobs.StatusRemoved(event_id="e", status_id="1", account_id="2", tags=["x"])
    assert jobs.decode(job.to_dict()) == job
    for poison in ('"text"', '{"job": "nope"}', '{"job": "status_removed"}'):
        with pytest.raises(ValueError):
            jobs.decode(poison)


def test_a_new_report_tells_staff_unless_the_account_had_an_open_one():
    # whether staff are told was decided when the report was filed
    filed = {"type": "report", "id": "4", "account_id": "1", "target_id": "2",
             "notify_staff": True}
    staff = [j for q, j in route(record("INSERT", filed)) if q == "effects"]
    assert staff == [jobs.ReportFiled(event_id="e1", report_id="4", account_id="1")]
    assert [q for q, _ in route(record("INSERT", {**filed, "notify_staff": False}))] == [
        "counters"]  # the dashboard's opened reports still count it
    resolved = {**filed, "action_taken_at": "2026-11-22T10:00:00.000Z"}
    assert [q for q, _ in route(record("MODIFY", resolved, filed))] == ["counters"]
    assert [q for q, _ in route(record("REMOVE", old=filed))] == ["counters"]


def test_a_warning_is_mailed_only_when_asked():  # actions
    warning = {"type": "account_warning", "id": "4", "target_account_id": "1",
               "action": "silence", "email": True}
    assert route(record("INSERT", warning)) == [
        ("mail", jobs.WarningMail(event_id="e1", account_id="1", warning_id="4"))]
    assert route(record("INSERT", {**warning, "email": False})) == []
    assert route(record("REMOVE", old=warning)) == []


# --- search (api/search/search.py) -----------------------------------------------------------------
def test_search_indexes_follow_accounts_and_who_may_find_a_status():
    account = {"type": "account", "id": "1", "username": "alice", "display_name": "Alice A"}
    [(queue, job), (federation, _)] = route(record("MODIFY", {**account, "display_name": "Al"},
                                                   account))
    assert queue == "search" and job.old_words == ["alice", "a"]
    assert federation == "federation"  # an Update of the actor
    assert routed(record("MODIFY", {**account, "note": "hi"}, account)) == [
        ("federation", "federate")]  # no name changed: nothing to index
    [(_, created)] = [(q, j) for q, j in route(record("INSERT", STATUS))
                      if isinstance(j, jobs.StatusSearchScope)]
    assert created.account_ids == ["1", "2"] and created.tags == ["a"]  # author, mentioned
    edited = route(record("MODIFY", {**STATUS, "text": "new"}, {**STATUS, "text": "old"}))
    assert [j.account_ids for _, j in edited if isinstance(j, jobs.StatusSearchScope)] == [None]
    boost = {**STATUS, "id": "11", "reblog_of_id": "10"}
    assert not [j for _, j in route(record("INSERT", boost))
                if isinstance(j, jobs.StatusSearchScope)]
    for kind in ("bmk", "reblog"):
        [(_, job)] = [(q, j) for q, j in route(record("REMOVE", old={**FAV, "type": kind}))
                      if isinstance(j, jobs.StatusSearchScope)]
        assert (job.status_id, job.account_ids) == ("10", ["3"])



def test_a_domain_block_starts_its_state_machine_when_severity_acts_on_accounts():
    block = {"type": "domain_block", "domain": "example.net", "severity": "silence",
             "created_at": "2026-11-23T00:00:00.000Z", "id": "5"}
    assert route(record("INSERT", block)) == [("domain_block", jobs.ApplyDomainBlock(
        event_id="e1", domain="example.net", at="2026-11-23T00:00:00.000Z",
        severity="silence", previous=None))]
    suspended = {**block, "severity": "suspend"}
    [(_, moved)] = [(q, j) for q, j in route(record("MODIFY", suspended, block))
                    if q == "domain_block"]
    assert (moved.severity, moved.previous) == ("suspend", "silence")
    assert route(record("MODIFY", {**block, "public_comment": "x"}, block)) == []
    assert route(record("INSERT", {**block, "severity": "noop"})) == []
    [(_, lifted)] = route(record("REMOVE", old=suspended))
    assert (lifted.severity, lifted.previous) == (None, "suspend")


def test_a_block_coming_to_reject_media_removes_the_domains_copies():
    """reject_media set, or a suspension, asks the effects worker to remove the copies of the
    domain's remote media (federation/remote_media.py); lifting or re-saving the block does not."""
    block = {"type": "domain_block", "domain": "example.net", "severity": "noop",
             "reject_media": True, "created_at": "2026-11-23T00:00:00.000Z", "id": "5"}
    assert route(record("INSERT", block)) == [("effects", jobs.DomainMediaRejected(
        event_id="e1", domain="example.net"))]
    plain = {**block, "reject_media": False}
    assert route(record("INSERT", plain)) == []
    assert [q for q, _ in route(record("MODIFY", block, plain))] == ["effects"]
    assert route(record("MODIFY", {**block, "public_comment": "x"}, block)) == []
    suspended = {**plain, "severity": "suspend"}
    assert "effects" in [q for q, _ in route(record("MODIFY", suspended, plain))]
    assert "effects" not in [q for q, _ in route(record("REMOVE", old=block))]


# --- federation (federation/delivery.py) ------------------------------------------------------------
def test_follows_across_servers_are_announced_not_notified():
    asked = {**FOLLOW, "type": "follow_request", "uri": "https://here/1", "remote_target": True}
    assert routed(record("INSERT", asked)) == [("counters", "count"), ("federation", "federate")]
    [(_, undo)] = [(q, j) for q, j in route(record("REMOVE", old=asked)) if q == "federation"]
    assert undo.kind == "undo_follow" and undo.item["uri"] == "https://here/1"
    # An end the other server made (Reject, Undo) is not answered.
    assert not [q for q, _ in route(record("REMOVE", old={**asked, "quiet": True}))
                if q == "federation"]
    theirs = {**FOLLOW, "uri": "https://there/f"}
    [(_, accept)] = [(q, j) for q, j in route(record("INSERT", theirs)) if q == "federation"]
    assert (accept.kind, accept.account_id) == ("accept", "1")  # by the followed account
    [(_, again)] = [(q, j) for q, j in route(record("MODIFY", {**theirs, "uri": "https://there/g"},
                                                    theirs)) if q == "federation"]
    assert again.kind == "accept"
    [(_, reject)] = [(q, j) for q, j in route(record("REMOVE", old=theirs)) if q == "federation"]
    assert reject.kind == "reject"
    assert not [q for q, _ in route(record("INSERT", FOLLOW)) if q == "federation"]  # local


def test_a_thread_refresh_fetches_replies_when_it_starts_or_restarts():
    running = {"type": "async_refresh", "name": "context:9:refresh", "status": "running",
               "replies_of": "9", "fetched_at": "2026-12-03T10:00:00.000Z"}
    [(queue, job)] = route(record("INSERT", running))
    assert queue == "inbox" and job == jobs.FetchReplies(event_id="e1", refresh=running["name"],
                                                         status_id="9")
    finished = {**running, "status": "finished"}
    assert route(record("MODIFY", finished, running)) == []  # the walk ended
    assert route(record("MODIFY", {**running, "result_count": 3}, running)) == []  # counted
    restarted = {**running, "fetched_at": "2026-12-03T10:20:00.000Z"}
    assert [q for q, _ in route(record("MODIFY", restarted, finished))] == ["inbox"]
