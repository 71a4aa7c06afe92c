"""Turning status items into Status entities for a viewer, with a constant number of batched
reads per page: statuses, boosted originals, accounts, media, polls + votes, viewer edges,
custom emoji (and our copies of remote ones), preview cards. Never one read per status. Every
status embedded in another (a boost's original today) passes the visibility policy here, so no
route can render one the viewer may not see.

The viewer's filters are applied here too (read/filters.py): each status gets its `filtered`
list, and a status a `hide` filter removes in the request's context is not rendered. A caller
with a context passes the request's `matcher` (compiled once); without one, the viewer's
filters are compiled for no context (statuses are marked, never removed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stratus.convert import cards as convert_cards
from stratus.convert import instance as convert_instance
from stratus.convert import remote_media
from stratus.convert import statuses as convert
from stratus.core import clock
from stratus.model.edges import ViewerEdges
from stratus.policy import visibility
from stratus.read import accounts as accounts_read
from stratus.read import filters, relationships
from stratus.repo import accounts as accounts_repo
from stratus.repo import cards as cards_repo
from stratus.repo import instance as instance_repo
from stratus.repo import remote_media as remote_media_repo
from stratus.repo import statuses as repo


def load_accounts(account_ids: list[str]) -> dict[str, dict[str, Any]]:
    return _load_authors(account_ids)[0]


def _load_authors(account_ids: list[str]) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """{id: Account} and the ids of sensitized accounts (moderation state is on the PROFILE
    items read here: no other read)."""
    found = accounts_repo.get_many(list(dict.fromkeys(account_ids)),
                                   (accounts_repo.PROFILE, accounts_repo.STATS,
                                    accounts_repo.USER))
    present = {aid: bundle for aid, bundle in found.items() if accounts_repo.PROFILE in bundle}
    return ({aid: accounts_read.render(bundle) for aid, bundle in present.items()},
            {aid for aid, bundle in present.items()
             if bundle[accounts_repo.PROFILE].get("sensitized_at")})


def _emoji_map(statuses: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    if not any(s.get("emojis") for s in statuses):
        return {}
    return {e["shortcode"]: convert_instance.custom_emoji(e) for e in instance_repo.list_emojis()
            if not e.get("disabled")}


def _emoji_copies(statuses: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{URL digest: copy item} for the remote custom emoji of `statuses` (one batched read)."""
    refs = [remote_media.digest(e["url"]) for s in statuses for e in s.get("remote_emojis", [])
            if isinstance(e, dict) and isinstance(e.get("url"), str)]
    return remote_media_repo.get_many("emoji", refs) if refs else {}


def _cards(statuses: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{card url: PreviewCard} for the cards a page of status items names: one batched read,
    none when no status has a card."""
    urls = [s["card_url"] for s in statuses if s.get("card_url")]
    return {url: convert_cards.preview_card(item)
            for url, item in cards_repo.get_many(urls).items()} if urls else {}


Shared = dict[tuple[Any, ...], Any]


def _once(shared: Shared | None, key: tuple[Any, ...], load: Callable[[], Any]) -> Any:
    """`load()`, or what it gave before for the same key when renders share their reads."""
    if shared is None:
        return load()
    if key not in shared:
        shared[key] = load()
    return shared[key]


def render(items: list[dict[str, Any]], viewer_id: str | None,
           pending: dict[str, dict[str, int]] | None = None,
           relations: relationships.Loader | None = None,
           matcher: filters.Matcher | None = None,
           shared: Shared | None = None) -> list[dict[str, Any]]:
    """Entities for `items` (status items with `stats`), in order, dropping broken ones and
    those the viewer's filters hide. `pending`: counter changes of the viewer's own that the
    stream has yet to apply. `relations`: the request's relationship loader (what it knows is
    not read again). `matcher`: the request's compiled filters. `shared`: a dict kept across
    renders of the same statuses for several viewers (a stream event to each recipient): what
    does not depend on the viewer (originals, accounts, media, custom emoji) is read once."""
    if not items:
        return []
    originals_wanted = [i["reblog_of_id"] for i in items if i.get("reblog_of_id")]
    originals = _once(shared, ("originals", *originals_wanted),
                      lambda: repo.get_many(originals_wanted)) if originals_wanted else {}
    # The one visibility policy guards what is embedded too: a boost of a status the viewer
    # may not see is not shown (whatever the boost's own visibility says).
    if originals:
        view = (relations or relationships.loader(viewer_id)).statuses(originals.values())
        originals = {o["id"]: o for o in visibility.filter_visible(originals.values(), view)}
    everything = list(items) + list(originals.values())
    account_ids = [s["account_id"] for s in everything] + \
        [m for s in everything for m in (*s.get("mention_ids", []),
                                         *s.get("remote_mention_ids", []))]
    accounts, sensitized = _once(shared, ("accounts", *account_ids),
                                 lambda: _load_authors(account_ids))
    media_ids = [m for s in everything for m in s.get("media_ids", [])]
    media = _once(shared, ("media", *media_ids), lambda: repo.get_media(media_ids)) \
        if media_ids else {}
    poll_ids = [s["poll_id"] for s in everything if s.get("poll_id")]
    polls, votes = repo.get_polls_and_votes(poll_ids, viewer_id) if poll_ids else ({}, {})
    edges = repo.viewer_edges(viewer_id, everything) if viewer_id else ViewerEdges()
    for status_id, counters in (pending or {}).items():
        for counter, delta in counters.items():
            edges.expect(status_id, counter, delta)
    emojis = _once(shared, ("emojis", *(s["id"] for s in everything)),
                   lambda: _emoji_map(everything))
    # Our copies of remote custom emoji: one batched read, none without remote emoji.
    emoji_copies = _once(shared, ("emoji_copies", *(s["id"] for s in everything)),
                         lambda: _emoji_copies(everything)) \
        if any(s.get("remote_emojis") for s in everything) else {}
    # Preview cards: one batched read for the page's cards, none without
    card_urls = [s["card_url"] for s in everything if s.get("card_url")]
    cards = _once(shared, ("cards", *card_urls), lambda: _cards(everything)) \
        if card_urls else {}
    now = clock.now()

    def one(item: dict[str, Any], reblog: dict[str, Any] | None) -> dict[str, Any] | None:
        account = accounts.get(item["account_id"])
        if account is None or account.get("suspended"):
            return None  # a suspended account's statuses are gone from the API
        poll_entity = None
        if item.get("poll_id") and item["poll_id"] in polls:
            poll_entity = convert.poll(polls[item["poll_id"]], votes.get(item["poll_id"]),
                                       viewer_id=viewer_id, emojis=[], now=now)
        if item["account_id"] in sensitized and item["account_id"] != viewer_id:
            # Mastodon's StatusSerializer: others see a sensitized account's posts as sensitive.
            item = {**item, "sensitive": True}
        return convert.status(
            item, account=account, stats=item.get("stats", {}),
            media=[convert.media_attachment(media[m]) for m in item.get("media_ids", [])
                   if m in media],
            poll_entity=poll_entity,
            mentions=[convert.mention(accounts[m]) for m in dict.fromkeys(
                [*item.get("mention_ids", []), *item.get("remote_mention_ids", [])])
                if m in accounts],
            emojis=[emojis[c] for c in item.get("emojis", []) if c in emojis] +
            [convert.remote_emoji(e, item["id"], emoji_copies.get(remote_media.digest_of(e)))
             for e in item.get("remote_emojis", [])],
            reblog=reblog, viewer_id=viewer_id, edges=edges,
            card=cards.get(item["card_url"]) if item.get("card_url") else None)

    rendered = []
    for item in items:
        reblog = None
        if item.get("reblog_of_id"):
            original = originals.get(item["reblog_of_id"])
            reblog = one(original, None) if original else None
            if reblog is None:
                continue
        entity = one(item, reblog)
        if entity is not None:
            rendered.append(entity)
    if viewer_id is None:
        return rendered
    return (matcher or filters.compiled(viewer_id, None)).keep(rendered)


def render_one(item: dict[str, Any], viewer_id: str | None,
               relations: relationships.Loader | None = None) -> dict[str, Any]:
    """One status; a single status is never removed by a filter (only marked)."""
    return render([item], viewer_id, relations=relations)[0]
