"""Outbound activities in Mastodon's shapes (its ActivityPub serializers: Create/Update/Delete
of a status, Announce, Like, Follow, Accept/Reject, Block, their Undo, Update and Delete of an
actor, Flag, poll votes). Ids are under our domain, built as Mastodon builds them (the actor's
URI + a fragment naming the record), so a peer that sees an activity twice knows it. Pure: every
input is already read; `federation/delivery.py` reads and delivers."""

from __future__ import annotations

from typing import Any

from stratus.convert import activitypub as ap
from stratus.core import clock

PUBLIC = ap.PUBLIC


def document(activity: dict[str, Any], extensions: list[str] | tuple[str, ...] = (), *,
             security: bool = False) -> dict[str, Any]:
    """The activity as posted, with its JSON-LD context: ActivityStreams, the security
    vocabulary when it carries a key (an actor's Update), and the extension terms used."""
    return ap.with_context(activity, (ap.SECURITY,) if security else (), extensions)


def _seconds(value: str) -> str:
    return clock.parse_iso(value).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- statuses ------------------------------------------------------------------------------------
def create(note_object: dict[str, Any], actor: str) -> dict[str, Any]:
    """Create of a Note (or Question): Mastodon's ActivitySerializer, id `<status uri>/activity`."""
    return {"id": f"{note_object['id']}/activity", "type": "Create", "actor": actor,
            "published": note_object["published"], "to": note_object["to"],
            "cc": note_object["cc"], "object": note_object}


def update(note_object: dict[str, Any], actor: str, edited_at: str) -> dict[str, Any]:
    """Update of an edited Note: id `<status uri>#updates/<edit time, epoch seconds>`."""
    epoch = int(clock.parse_iso(edited_at).timestamp())
    return {"id": f"{note_object['id']}#updates/{epoch}", "type": "Update", "actor": actor,
            "published": _seconds(edited_at), "to": note_object["to"],
            "cc": note_object["cc"], "object": note_object}


def delete(status_uri: str, actor: str) -> dict[str, Any]:
    """Delete of a status (DeleteSerializer): a Tombstone, addressed to Public."""
    return {"id": f"{status_uri}#delete", "type": "Delete", "actor": actor, "to": [PUBLIC],
            "object": {"id": status_uri, "type": "Tombstone", "atomUri": status_uri}}


def announce(boost_uri: str, actor: str, published: str, original_uri: str, visibility: str,
             original_author_uri: str) -> dict[str, Any]:
    """Announce of a boosted status (ActivitySerializer): id = the boost's own URI."""
    to, cc = ap.addressing(visibility, actor, [], original_author_uri)
    return {"id": boost_uri, "type": "Announce", "actor": actor,
            "published": _seconds(published), "to": to, "cc": cc, "object": original_uri}


def undo_announce(announce_activity: dict[str, Any], boost_id: str) -> dict[str, Any]:
    """UndoAnnounceSerializer: id `<actor>#announces/<boost id>/undo`, to Public."""
    actor = announce_activity["actor"]
    return {"id": f"{actor}#announces/{boost_id}/undo", "type": "Undo", "actor": actor,
            "to": [PUBLIC], "object": announce_activity}


def like(favourite_id: str, actor: str, status_uri: str) -> dict[str, Any]:
    return {"id": f"{actor}#likes/{favourite_id}", "type": "Like", "actor": actor,
            "object": status_uri}


def undo_like(favourite_id: str, actor: str, status_uri: str) -> dict[str, Any]:
    return {"id": f"{actor}#likes/{favourite_id}/undo", "type": "Undo", "actor": actor,
            "object": like(favourite_id, actor, status_uri)}


# --- the social graph ----------------------------------------------------------------------------
def follow(follow_uri: str, actor: str, target_uri: str) -> dict[str, Any]:
    """Follow (FollowSerializer): its id is the one stored on the request (`uri`)."""
    return {"id": follow_uri, "type": "Follow", "actor": actor, "object": target_uri}


def undo_follow(follow_id: str, follow_uri: str, actor: str, target_uri: str) -> dict[str, Any]:
    return {"id": f"{actor}#follows/{follow_id}/undo", "type": "Undo", "actor": actor,
            "object": follow(follow_uri, actor, target_uri)}


def accept_follow(follow_id: str, follow_uri: str, follower_uri: str, actor: str
                  ) -> dict[str, Any]:
    """Accept of a remote account's Follow (AcceptFollowSerializer): the object is their
    Follow, with its original id."""
    return {"id": f"{actor}#accepts/follows/{follow_id}", "type": "Accept", "actor": actor,
            "object": follow(follow_uri, follower_uri, actor)}


def reject_follow(follow_id: str, follow_uri: str, follower_uri: str, actor: str
                  ) -> dict[str, Any]:
    return {"id": f"{actor}#rejects/follows/{follow_id}", "type": "Reject", "actor": actor,
            "object": follow(follow_uri, follower_uri, actor)}


def block(block_id: str, actor: str, target_uri: str) -> dict[str, Any]:
    return {"id": f"{actor}#blocks/{block_id}", "type": "Block", "actor": actor,
            "object": target_uri}


def undo_block(block_id: str, actor: str, target_uri: str) -> dict[str, Any]:
    return {"id": f"{actor}#blocks/{block_id}/undo", "type": "Undo", "actor": actor,
            "object": block(block_id, actor, target_uri)}


# --- actors --------------------------------------------------------------------------------------
def update_actor(actor_document: dict[str, Any], updated_at: str) -> dict[str, Any]:
    """Update of a profile (UpdateSerializer): id `<actor>#updates/<epoch seconds>`; the
    object is the whole actor (its context is the activity's)."""
    actor = actor_document["id"]
    body = {k: v for k, v in actor_document.items() if k != "@context"}
    epoch = int(clock.parse_iso(updated_at).timestamp())
    return {"id": f"{actor}#updates/{epoch}", "type": "Update", "actor": actor,
            "to": [PUBLIC], "object": body}


def delete_actor(actor: str) -> dict[str, Any]:
    """DeleteActorSerializer: the account is gone."""
    return {"id": f"{actor}#delete", "type": "Delete", "actor": actor, "to": [PUBLIC],
            "object": actor}


def flag(report_uri: str, comment: str, target_uri: str, status_uris: list[str]
         ) -> dict[str, Any]:
    """FlagSerializer: a report forwarded to the reported account's server, by the instance
    actor (the reporter stays anonymous)."""
    return {"id": report_uri, "type": "Flag", "actor": ap.instance_actor_url(),
            "content": comment, "object": [target_uri, *status_uris]}


def vote(vote_id: str, actor: str, option_title: str, poll_uri: str, poll_author_uri: str
         ) -> dict[str, Any]:
    """A vote in a remote poll (VoteSerializer): Create of a Note whose `name` is the option."""
    note = {"id": f"{actor}#votes/{vote_id}", "type": "Note", "name": option_title,
            "attributedTo": actor, "to": [poll_author_uri], "inReplyTo": poll_uri}
    return {"id": f"{actor}#votes/{vote_id}/activity", "type": "Create", "actor": actor,
            "to": [poll_author_uri], "object": note}
