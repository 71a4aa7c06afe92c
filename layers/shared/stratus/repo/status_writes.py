"""The writes of a status that the local and the federated path share, one layout for both: its
creation (item and counters, hashtag index entries, a remote status's attachments by
reference), an edit (the new fields, the edit history, the entries of tags added and removed)
and its removal (the status, its counters, hashtag entries, poll and media).

Each verb returns ops for the use case's one transaction (repo/transaction.write), so a use
case adds what is its own (the local path's unpin, the federated path's URI entry claim).
What a change sets off — feeds, notifications, counters, the likes and boosts and edits of a
removed status — follows from the stream (jobs/outbox.py).

Hashtag entries are written with the status, so a hashtag timeline shows a post as soon as
its request returns (Mastodon writes `statuses_tags` in the request). A transaction holds at
most 100 ops and Mastodon does not cap a status's tags (a remote one may carry hundreds), so
a write holds the entries of the first TAGS_IN_WRITE tags — of the status's tags on creation
and removal, of the tags added and of those removed on an edit, each list in its order — and
the effects worker writes the rest (`left_to_worker`, from the same lists in the same order:
jobs/outbox.py). The budget: a tag costs at most 2 ops on creation (its entry, and its marker
when the tag is new here) and 3 on an edit (a removal, an addition and its marker), so a
creation holds ≤ 50 tag ops beside at most 16 attachments, a poll, the status, its counters,
the URI claim and 4 more for the use case (≤ 74); an edit ≤ 75 beside its history (2), the
new fields, 4 attachment descriptions, a replaced poll (2) and 4 more (≤ 88)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stratus.core import clock, ids
from stratus.core.errors import ApiError
from stratus.repo import base, item_size, keys, polls, tags, uris
from stratus.repo.statuses import edits, stats_item, status_item

TAGS_IN_WRITE = 25  # hashtag entries a status's own write holds (see above)
# What a status item keeps free of DynamoDB's 400 KB for the attributes later writes add to it
# (an edit's `edited_at`, a card, a pin's flags...).
HEADROOM = 16 * 1024


def excess(status: dict[str, Any]) -> int:
    """By how many bytes a status's item (with its keys and flags) would pass what a status may
    take (DynamoDB's 400 KB less HEADROOM); 0 when it fits. A remote status's content is cut
    by that much (federation/remote_statuses.py); a write that does not fit is refused
    (item_size.TooLarge)."""
    return max(0, -item_size.room(status_item(status), headroom=HEADROOM))


def left_to_worker(names: list[str]) -> list[str]:
    """Of a list of tags whose entries a write adds or removes (a status's tags, an edit's
    added or removed tags, in their order), those the write left to the effects worker."""
    return list(names[TAGS_IN_WRITE:])


def tag_fields(item: dict[str, Any]) -> dict[str, Any]:
    """The fields of a status's hashtag entries (what hashtag timelines filter by)."""
    return tags.entry_fields(visibility=item.get("visibility"), account_id=item["account_id"],
                             local=bool(item.get("local", True)),
                             has_media=bool(item.get("media_ids")))


def create_ops(item: dict[str, Any], *, media: Iterable[dict[str, Any]] = ()
               ) -> list[base.Op]:
    """The ops that create a status: its item and its counters, written only while neither
    exists, its hashtag entries (the first TAGS_IN_WRITE tags), and the media items of `media`
    (a remote status's attachments, by their remote URLs: nothing is copied), written only if
    new."""
    ops = [base.put_new({**keys.media(each["id"]), "type": "media_attachment", **each})
           for each in media]
    ops += [base.put_new(status_item(item)), base.put_new(stats_item(item["id"]))]
    written = list(item.get("tags") or [])[:TAGS_IN_WRITE]
    return ops + (tags.index_ops(item["id"], written, tag_fields(item)) if written else [])


def _version(data: dict[str, Any], at: str, media_ids: list[str],
             poll_options: list[str] | None) -> dict[str, Any]:
    """One version in the edit history (Mastodon's StatusEdit)."""
    return {"type": "status_edit", "content": data.get("content", ""),
            "spoiler_text": data.get("spoiler_text", ""),
            "sensitive": bool(data.get("sensitive", False)), "created_at": at,
            "media_ids": media_ids, "poll_options": poll_options}


def edit_ops(item: dict[str, Any], changes: dict[str, Any], *,
             poll_options_before: list[str] | None, poll_options_after: list[str] | None
             ) -> list[base.Op]:
    """The ops of an edit of `item`: its new fields (`changes`, with `edited_at`), and its edit
    history — on the first edit the original version first (dated and ordered at the status's
    creation), then the new one; the hashtag entries of the tags it adds and removes (and, when
    what the entries carry changes, of the tags it keeps), TAGS_IN_WRITE of each list. Reads
    whether the status has been edited before."""
    status_id = item["id"]
    media_ids = list(item.get("media_ids", []))
    ops: list[base.Op] = []
    if not edits(status_id):
        first_id = ids.id_at(int(clock.parse_iso(item["created_at"]).timestamp() * 1000))
        ops.append(base.Op("Put", item={**keys.status_edit(status_id, first_id),
                                        **_version(item, item["created_at"], media_ids,
                                                   poll_options_before)}))
    ops.append(base.Op("Put", item={**keys.status_edit(status_id, ids.new_id()),
                                    **_version(changes, changes["edited_at"], media_ids,
                                               poll_options_after)}))
    ops.append(base.set_op(keys.status(status_id), changes))
    return ops + _retag_ops(item, {**item, **changes})


def _retag_ops(old: dict[str, Any], new: dict[str, Any]) -> list[base.Op]:
    """An edit's hashtag entries: the tags removed (in the old order) and added (in the new
    order), the first TAGS_IN_WRITE of each — the outbox's `removed_tags` and `added_tags` are
    the same lists, the worker does their rest — and, when the entries' fields change (media
    attached), the entries of kept tags, within the same budget (only this write refreshes
    them)."""
    before, after = list(old.get("tags") or []), list(new.get("tags") or [])
    removed = [t for t in before if t not in after][:TAGS_IN_WRITE]
    added = [t for t in after if t not in before][:TAGS_IN_WRITE]
    fields = tag_fields(new)
    kept: list[str] = []
    if fields != tag_fields(old):
        kept = [t for t in after if t in before][:TAGS_IN_WRITE - len(added)]
    ops = tags.unindex_ops(old["id"], removed)
    if added or kept:
        ops += tags.index_ops(old["id"], added + kept, fields, new=added)
    return ops


def removal_ops(item: dict[str, Any], *, gone: ApiError | None = None,
                media_kept_until: int | None = None, uri: str | None = None
                ) -> list[base.Op]:
    """The ops that remove a status: the item, only while it exists (else `gone` is raised,
    or ConditionFailed), its counters and its poll; its media deleted or, with
    `media_kept_until` (epoch seconds), back in the unattached pool until then (a local
    delete-and-redraft attaches them again); `uri`: the URI index entry of a remote status,
    released only while it names this status; its hashtag entries (the first TAGS_IN_WRITE
    tags; a tag's marker stays: the tag was used)."""
    status_id = item["id"]
    ops = [base.Op("Delete", key=keys.status(status_id), condition="attribute_exists(PK)",
                   on_conflict=gone),
           base.Op("Delete", key=keys.status_stats(status_id)),
           *tags.unindex_ops(status_id, list(item.get("tags") or [])[:TAGS_IN_WRITE])]
    for media_id in item.get("media_ids", []):
        if media_kept_until is None:
            ops.append(base.Op("Delete", key=keys.media(media_id)))
        else:
            ops.append(base.Op("Update", key=keys.media(media_id),
                               expression="REMOVE status_id SET #ttl = :ttl",
                               names={"#ttl": "ttl"}, vals={":ttl": media_kept_until}))
    if item.get("poll_id"):
        ops.append(polls.remove_op(item["poll_id"]))
    if uri:
        ops.append(uris.release_op(uri, "status", status_id))
    return ops
