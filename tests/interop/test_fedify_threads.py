"""Threads across servers with a real Fedify peer: the peer reads our `replies` collection as a
Mastodon 4.5 server backfilling a thread does, and a thread of the peer's whose replies never
reached us is complete in `/context` after the refresh reading it starts
(federation/replies.py, federation/reply_fetch.py)."""

from __future__ import annotations

import httpx

from tests.interop.harness import wait_for
from tests.rig import mastodon_py_users

AN_HOUR_AGO = "2026-01-01T10:00:00Z"


def test_the_peer_reads_our_replies_collection(stratus_live, fedify_peer):
    alice, bob = mastodon_py_users(stratus_live.base_url, "alice", "bob")
    root = alice.status_post("a thread of mine")
    own = alice.status_post("and more of it", in_reply_to_id=root.id)
    other = bob.status_post("an answer", in_reply_to_id=root.id)
    alice.status_post("not for everyone", in_reply_to_id=root.id, visibility="private")
    answer = fedify_peer.ctl("replies", object=root.uri)
    assert answer == {"id": f"{root.uri}/replies", "items": [own.uri, other.uri]}


def test_a_peers_thread_is_complete_in_context_after_the_refresh(stratus_live, fedify_peer):
    [alice] = mastodon_py_users(stratus_live.base_url, "alice")
    root = fedify_peer.ctl("post", content="<p>a thread on Fedify</p>", quiet=True,
                           published=AN_HOUR_AGO)
    first = fedify_peer.ctl("post", content="<p>first reply</p>", inReplyTo=root["object"],
                            quiet=True, published=AN_HOUR_AGO)
    fedify_peer.ctl("post", content="<p>second reply</p>", inReplyTo=root["object"], quiet=True,
                    published=AN_HOUR_AGO)
    fedify_peer.ctl("post", content="<p>a reply to the first</p>", inReplyTo=first["object"],
                    quiet=True, published=AN_HOUR_AGO)
    [status] = alice.search_v2(root["object"], resolve=True, result_type="statuses").statuses
    assert alice.status_context(status.id).descendants == []

    headers = {"Authorization": f"Bearer {alice.access_token}"}
    answer = httpx.get(f"{stratus_live.base_url}/api/v1/statuses/{status.id}/context",
                       headers=headers)
    assert answer.headers["mastodon-async-refresh"].endswith("retry=3, result_count=0")
    refresh = answer.headers["mastodon-async-refresh"].split('"')[1]

    def finished():
        state = httpx.get(f"{stratus_live.base_url}/api/v1_alpha/async_refreshes/{refresh}",
                          headers=headers).json()["async_refresh"]
        return state if state["status"] == "finished" else None
    assert wait_for(finished, "the refresh to finish")["result_count"] == 3
    thread = alice.status_context(status.id).descendants
    assert [s.content for s in thread] == ["<p>first reply</p>", "<p>a reply to the first</p>",
                                           "<p>second reply</p>"]
