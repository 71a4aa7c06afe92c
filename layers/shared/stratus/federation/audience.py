"""Who hears of a local event, and what it is told (docs/federation.md, "Delivery"): the
activity the outbox's `Federate` job stands for, built once, and its audience — the actor's
followers' servers for a status, the one account an interaction is for (Mastodon's
addressing). Fanning it out to inboxes, and each delivery attempt, is federation/delivery.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stratus.convert import activitypub as ap
from stratus.core import clock
from stratus.federation import activities
from stratus.jobs import messages as jobs
from stratus.read import status_views
from stratus.repo import accounts as accounts_repo
from stratus.repo import relationships as relationships_repo
from stratus.repo import statuses as statuses_repo


@dataclass
class Plan:
    """An activity and its audience: `followers` (the actor's followers' servers),
    `accounts` (remote accounts whose own inbox gets it), `shared` (those accounts may be
    reached through their server's shared inbox, as for statuses). `to_suspended`: a
    Reject(Follow), the one activity an account we no longer federate with still gets."""

    activity: dict[str, Any]
    signer: str | None
    followers: bool = False
    accounts: list[str] = field(default_factory=list)
    shared: bool = True
    more: list[dict[str, Any]] = field(default_factory=list)  # further activities, same audience
    to_suspended: bool = False


def profiles(account_ids: list[str]) -> dict[str, dict[str, Any]]:
    found = accounts_repo.get_many([a for a in dict.fromkeys(account_ids) if a],
                                   (accounts_repo.PROFILE,))
    return {a: parts[accounts_repo.PROFILE] for a, parts in found.items()
            if accounts_repo.PROFILE in parts}


def _uri(profile: dict[str, Any]) -> str:
    return profile.get("uri") if profile.get("domain") else ap.actor_url(profile["username"])


def is_remote(profile: dict[str, Any] | None) -> bool:
    return bool(profile and profile.get("domain"))


def is_local(profile: dict[str, Any] | None) -> bool:
    return bool(profile) and not profile.get("domain")


def _note(item: dict[str, Any], author: dict[str, Any], *, new: bool
          ) -> tuple[dict[str, Any], list[str], list[str]] | None:
    """The Note of a local status as its author's followers see it: (object, context
    extensions, remote account ids it mentions). Rendered for the author (who sees every one
    of its statuses, private and direct too). A `new` status has no replies yet: its
    `replies` collection is not read."""
    from stratus.federation import replies
    from stratus.repo import instance as instance_repo

    rendered = status_views.render([item], item["account_id"])
    if not rendered:
        return None
    entity = rendered[0]
    mentioned = [m["id"] for m in entity["mentions"]]
    people = profiles(mentioned)
    mention_uris = {m: _uri(p) for m, p in people.items()}
    parent = statuses_repo.get(item["in_reply_to_id"]) if item.get("in_reply_to_id") else None
    emoji_updated: dict[str, str] = {}
    if entity.get("emojis"):
        emoji_updated = {e["shortcode"]: e.get("updated_at") for e in
                         instance_repo.list_emojis()}
    obj, extensions = ap.note(item, entity, author_uri=_uri(author), mention_uris=mention_uris,
                              in_reply_to_uri=parent["uri"] if parent else None,
                              emoji_updated=emoji_updated,
                              replies=replies.note_replies(item, [] if new else None))
    remote = [m for m, p in people.items() if is_remote(p)]
    if parent and parent.get("account_id") not in remote and parent.get("account_id"):
        replied = profiles([parent["account_id"]]).get(parent["account_id"])
        if is_remote(replied) and item.get("visibility") != "direct":
            remote.append(parent["account_id"])
    return obj, extensions, remote


def _status_plan(kind: str, item: dict[str, Any], author: dict[str, Any]) -> Plan | None:
    actor = _uri(author)
    if item.get("reblog_of_id"):
        original = statuses_repo.get(item["reblog_of_id"])
        if original is None:
            return None
        original_author = profiles([original["account_id"]]).get(original["account_id"])
        if original_author is None:
            return None
        announce = activities.announce(item["uri"], actor, item["created_at"], original["uri"],
                                       item.get("visibility", "public"), _uri(original_author))
        activity = announce if kind == "create" else activities.undo_announce(announce,
                                                                             item["id"])
        # A boost of a remote status goes to its author too (Mastodon's StatusReachFinder).
        authors = [original["account_id"]] if is_remote(original_author) else []
        return Plan(activities.document(activity), item["account_id"], followers=True,
                    accounts=authors)
    direct = item.get("visibility") == "direct"
    if kind == "delete":
        mentioned = [m for m, p in profiles(list(item.get("mention_ids") or [])).items()
                     if is_remote(p)]
        return Plan(activities.document(activities.delete(item["uri"], actor)),
                    item["account_id"], followers=not direct, accounts=mentioned)
    built = _note(item, author, new=kind == "create")
    if built is None:
        return None
    obj, extensions, mentioned = built
    activity = (activities.create(obj, actor) if kind == "create"
                else activities.update(obj, actor, item.get("edited_at") or item["created_at"]))
    return Plan(activities.document(activity, extensions), item["account_id"],
                followers=not direct, accounts=mentioned)


def plan(job: jobs.Federate) -> Plan | None:
    """The activity of a local event and its audience; None when nobody elsewhere hears of it
    (a local interaction, an actor that is not ours)."""
    item, kind = job.item, job.kind
    if kind in ("create", "update", "delete"):
        author = profiles([item["account_id"]]).get(item["account_id"])
        if not is_local(author) or item.get("local") is False:
            return None
        if kind != "delete":  # rendered from what it is now (gone: its Delete follows)
            item = statuses_repo.get(item["id"])
            if item is None:
                return None
        return _status_plan(kind, item, author)
    if kind in ("like", "undo_like"):
        people = profiles([item["account_id"], item["status_account_id"]])
        actor, author = people.get(item["account_id"]), people.get(item["status_account_id"])
        if not is_local(actor) or not is_remote(author):
            return None  # Mastodon tells only a remote author (FavouriteService)
        status_uri = (statuses_repo.get(item["status_id"]) or {}).get("uri")
        if status_uri is None:
            return None
        build = activities.like if kind == "like" else activities.undo_like
        return Plan(activities.document(build(item["id"], _uri(actor), status_uri)),
                    actor["id"], accounts=[author["id"]], shared=False)
    if kind in ("follow", "undo_follow"):
        people = profiles([item["account_id"], item["target_id"]])
        actor, target = people.get(item["account_id"]), people.get(item["target_id"])
        if not is_local(actor) or not is_remote(target) or not item.get("uri"):
            return None
        if kind == "undo_follow" and job.item.get("type") == "follow_request" and \
                relationships_repo.get_follow(actor["id"], target["id"]):
            return None  # the request was accepted, not withdrawn
        activity = (activities.follow(item["uri"], _uri(actor), _uri(target)) if kind == "follow"
                    else activities.undo_follow(item["id"], item["uri"], _uri(actor),
                                                _uri(target)))
        return Plan(activities.document(activity), actor["id"], accounts=[target["id"]],
                    shared=False)
    if kind in ("accept", "reject"):
        people = profiles([item["account_id"], item["target_id"]])
        follower, actor = people.get(item["account_id"]), people.get(item["target_id"])
        if not is_local(actor) or not is_remote(follower) or not item.get("uri"):
            return None
        if kind == "reject" and item.get("type") == "follow_request" and \
                relationships_repo.get_follow(follower["id"], actor["id"]):
            return None  # the request was authorized: its follow sends the Accept
        build = activities.accept_follow if kind == "accept" else activities.reject_follow
        # A Reject reaches a suspended follower (or one of a suspended domain): it ends the
        # follow on its side, so its server stops showing it our followers-only posts
        # (Mastodon's SuspendAccountService#reject_remote_follows!). It carries nothing else.
        return Plan(activities.document(build(item["id"], item["uri"], _uri(follower),
                                              _uri(actor))),
                    actor["id"], accounts=[follower["id"]], shared=False,
                    to_suspended=kind == "reject")
    if kind in ("block", "undo_block"):
        people = profiles([item["account_id"], item["target_id"]])
        actor, target = people.get(item["account_id"]), people.get(item["target_id"])
        if not is_local(actor) or not is_remote(target):
            return None
        build = activities.block if kind == "block" else activities.undo_block
        return Plan(activities.document(build(item["id"], _uri(actor), _uri(target))),
                    actor["id"], accounts=[target["id"]], shared=False)
    if kind in ("update_actor", "delete_actor"):
        actor = profiles([job.account_id]).get(job.account_id)
        if not is_local(actor):
            return None
        if kind == "delete_actor":
            return Plan(activities.document(activities.delete_actor(_uri(actor))), actor["id"],
                        followers=True)
        from stratus.core.errors import NotFound
        from stratus.federation import activitypub

        try:
            document = activitypub.actor(actor["username"])
        except NotFound:  # not shown to peers (unconfirmed, unapproved): nothing to update
            return None
        if document is None:
            return None
        updated = item.get("updated_at") or item.get("created_at") or clock.iso(clock.now())
        return Plan(activities.document(activities.update_actor(document, updated),
                                        ap.ACTOR_EXTENSIONS, security=True),
                    actor["id"], followers=True)
    if kind == "flag":
        target = profiles([item["target_id"]]).get(item["target_id"])
        if not is_remote(target):
            return None
        found = statuses_repo.get_many(list(item.get("status_ids") or []))
        uris = [s["uri"] for s in found.values() if s.get("account_id") == target["id"]]
        report_uri = item.get("uri") or f"{ap.base()}/reports/{item['id']}"
        return Plan(activities.document(activities.flag(report_uri, item.get("comment") or "",
                                                        _uri(target), uris)),
                    None, accounts=[target["id"]])
    if kind == "vote":
        # One Create per choice, as Mastodon's VoteService delivers each vote record.
        poll = statuses_repo.get_poll(item["poll_id"])
        status = statuses_repo.get(poll["status_id"]) if poll and poll.get("status_id") else None
        people = profiles([item["account_id"], (status or {}).get("account_id", "")])
        actor = people.get(item["account_id"])
        author = people.get((status or {}).get("account_id", ""))
        if poll is None or status is None or not is_local(actor) or not is_remote(author):
            return None
        votes = [activities.document(activities.vote(
            f"{poll['id']}-{choice}", _uri(actor), str(poll["options"][int(choice)]),
            status["uri"], _uri(author))) for choice in item.get("choices") or []
            if 0 <= int(choice) < len(poll["options"])]
        if not votes:
            return None
        return Plan(votes[0], actor["id"], accounts=[author["id"]], shared=False,
                    more=votes[1:])
    raise ValueError(f"unknown activity kind {kind!r}")
