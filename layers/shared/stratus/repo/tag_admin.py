"""What staff set on hashtags (Mastodon's Admin::Tag): every tag ever used, listed by its id
(GSI1 of the tags' markers, `TAGS`, which repo/tags.py writes with the marker), and each
tag's `display_name`, `usable`, `listable` and `reviewed_at` on its marker. Whether a tag may
trend is its trend record's (repo/trends.py), as trends read it.

The names of the tags that are not usable or not listed are also kept together on one item
(`INSTANCE/TAGPOLICY`, string sets), changed in the transaction that changes a marker: what
posting and hashtag search check is then one item a warm process keeps (read/tag_policy.py),
not a read per tag."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys

MARKER = "TAG"
UNUSABLE, UNLISTED = "unusable", "unlisted"


def page(low: int | None, high: int | None, *, descending: bool, limit: int) -> list[str]:
    """The names of up to `limit` tags with ids in [low, high] (None: unbounded), in id
    order."""
    entries = base.query(keys.TAGS_LISTING, index="GSI1", sk_between=keys.id_range(low, high),
                         descending=descending, limit=limit)
    return [keys.tag_name_in(entry["PK"]) for entry in entries]


def name_of(tag_id: str) -> str | None:
    """The tag with this id, if one was ever used (its listing entry)."""
    padded = keys.tag_listing_keys(tag_id)["GSI1SK"]
    for entry in base.query(keys.TAGS_LISTING, index="GSI1", sk_between=(padded, padded),
                            limit=1):
        return keys.tag_name_in(entry["PK"])
    return None


def markers(names: list[str]) -> dict[str, dict[str, Any]]:
    """The tags' markers (records: name, id and what staff set), by name; one batched read."""
    found = base.batch_get([keys.tag(n) for n in dict.fromkeys(names)])
    return {item["name"]: base.record(item) for item in found if item.get("name")}


def change_ops(name: str, changes: dict[str, Any]) -> list[base.Op]:
    """Staff's changes to a tag's marker (`display_name`, `usable`, `listable`,
    `reviewed_at`), and the policy item's sets when `usable` or `listable` is among them."""
    names = {f"#a{n}": attribute for n, attribute in enumerate(changes)}
    vals = {f":a{n}": value for n, value in enumerate(changes.values())}
    ops = [base.Op("Update", key=keys.tag(name),
                   expression="SET " + ", ".join(f"#a{n} = :a{n}" for n in range(len(changes))),
                   names=names, vals=vals, condition="attribute_exists(PK)")]
    for attribute, kept in (("usable", UNUSABLE), ("listable", UNLISTED)):
        if attribute in changes:
            verb = "DELETE" if changes[attribute] else "ADD"
            ops.append(base.Op("Update", key=keys.tag_policy(),
                               expression=f"{verb} #s :n SET #t = :t",
                               names={"#s": kept, "#t": "type"},
                               vals={":n": {name}, ":t": "tag_policy"}))
    return ops


def policy() -> dict[str, set[str]]:
    """{"unusable": names, "unlisted": names}."""
    item = base.record(base.get(keys.tag_policy())) or {}
    return {UNUSABLE: set(item.get(UNUSABLE) or ()), UNLISTED: set(item.get(UNLISTED) or ())}
