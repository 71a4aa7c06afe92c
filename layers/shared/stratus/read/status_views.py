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
from dataclasses import dataclass
from typing import Any

from stratus.convert import cards as convert_cards
from stratus.convert import instance as convert_instance
from stratus.convert import remote_media
from stratus.convert import statuses as convert
from stratus.core import clock, parallel
from stratus.model.edges import ViewerEdges
from stratus.policy import visibility
from stratus.read import accounts as accounts_read
from stratus.read import custom_emojis, filters, relationships
from stratus.repo import accounts as accounts_repo
from stratus.repo import cards as cards_repo
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
    return {e["shortcode"]: convert_instance.custom_emoji(e) for e in custom_emojis.stored()
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


@dataclass
class Loaded:
    """What rendering a page of statuses reads besides the statuses (`load`)."""

    accounts: dict[str, dict[str, Any]]
    sensitized: set[str]
    media: dict[str, dict[str, Any]]
    polls: dict[str, dict[str, Any]]
    votes: dict[str, dict[str, Any]]
    edges: ViewerEdges
    emojis: dict[str, dict[str, Any]]
    emoji_copies: dict[str, dict[str, Any]]
    cards: dict[str, dict[str, Any]]


def load(everything: list[dict[str, Any]], viewer_id: str | None,
         shared: Shared | None = None) -> Loaded:
    """Everything `everything` (status items, boosted originals included) needs to render,
    read at once (core/parallel.py): one round trip for authors and mentioned accounts, media,
    polls and the viewer's votes, the viewer's edges, our copies of remote custom emoji and
    preview cards (the local custom emoji come from a cache). What does not depend on the
    viewer is kept in `shared` when given."""
    account_ids = [s["account_id"] for s in everything] + \
        [m for s in everything for m in (*s.get("mention_ids", []),
                                         *s.get("remote_mention_ids", []))]
    media_ids = [m for s in everything for m in s.get("media_ids", [])]
    poll_ids = [s["poll_id"] for s in everything if s.get("poll_id")]
    card_urls = [s["card_url"] for s in everything if s.get("card_url")]
    remote_emoji = any(s.get("remote_emojis") for s in everything)
    loads: dict[str, Callable[[], Any]] = {
        "authors": lambda: _once(shared, ("accounts", *account_ids),
                                 lambda: _load_authors(account_ids)),
        "emojis": lambda: _once(shared, ("emojis", *(s["id"] for s in everything)),
                                lambda: _emoji_map(everything))}
    if media_ids:
        loads["media"] = lambda: _once(shared, ("media", *media_ids),
                                       lambda: repo.get_media(media_ids))
    if poll_ids:
        loads["polls"] = lambda: repo.get_polls_and_votes(poll_ids, viewer_id)
    if viewer_id:
        loads["edges"] = lambda: repo.viewer_edges(viewer_id, everything)
    if remote_emoji:
        loads["emoji_copies"] = lambda: _once(
            shared, ("emoji_copies", *(s["id"] for s in everything)),
            lambda: _emoji_copies(everything))
    if card_urls:
        loads["cards"] = lambda: _once(shared, ("cards", *card_urls),
                                       lambda: _cards(everything))
    got = dict(zip(loads, parallel.gather(*loads.values()), strict=True))
    accounts, sensitized = got["authors"]
    polls, votes = got.get("polls", ({}, {}))
    return Loaded(accounts=accounts, sensitized=sensitized, media=got.get("media", {}),
                  polls=polls, votes=votes, edges=got.get("edges") or ViewerEdges(),
                  emojis=got["emojis"], emoji_copies=got.get("emoji_copies", {}),
                  cards=got.get("cards", {}))


def prepare(statuses: list[dict[str, Any]], originals: dict[str, dict[str, Any]],
            viewer_id: str | None, relations: relationships.Loader) -> Loaded:
    """For a page whose statuses and boosted originals were read together: in one round trip,
    the viewer's relationships with every author (into `relations`, so the visibility checks
    that follow read nothing) and everything `render` needs (`loaded=`). Statuses the checks
    then leave out were read for nothing: cheaper than a round trip more."""
    everything = list(statuses) + list(originals.values())
    return parallel.gather(lambda: relations.statuses(everything),
                           lambda: load(everything, viewer_id))[1]


@dataclass
class Batch:
    """Statuses read for a page with the originals they boost and what rendering them needs
    (`read_batch`)."""

    statuses: list[dict[str, Any]]
    originals: dict[str, dict[str, Any]]
    loaded: Loaded


def read_batch(entries: list[dict[str, Any]], viewer_id: str | None,
               relations: relationships.Loader,
               keep: Callable[[dict[str, Any]], bool] = lambda status: True) -> Batch:
    """The statuses of index entries (`id`, with `reblog_of_id` and the author as
    `author_id`/`account_id` when the entry carries them), in the entries' order, those `keep`
    accepts, ready to check and render in two round trips: the statuses with the originals
    they boost beside the viewer's relationships with the entries' authors, then `prepare`.
    After it, the visibility checks and `render(..., originals=, loaded=)` read nothing."""
    wanted = [e["id"] for e in entries] + \
        [e["reblog_of_id"] for e in entries if e.get("reblog_of_id")]
    authors = [a for e in entries for a in (e.get("author_id") or e.get("account_id"),) if a]
    found, _ = parallel.gather(lambda: repo.get_many(wanted),
                               lambda: relations.accounts(authors))
    statuses = [found[e["id"]] for e in entries if e["id"] in found and keep(found[e["id"]])]
    missing = [s["reblog_of_id"] for s in statuses
               if s.get("reblog_of_id") and s["reblog_of_id"] not in found]
    if missing:  # entries that did not name what their status boosts
        found.update(repo.get_many(missing))
    originals = {o: found[o] for o in (s.get("reblog_of_id") for s in statuses)
                 if o and o in found}
    return Batch(statuses, originals, prepare(statuses, originals, viewer_id, relations))


def render(items: list[dict[str, Any]], viewer_id: str | None,
           pending: dict[str, dict[str, int]] | None = None,
           relations: relationships.Loader | None = None,
           matcher: filters.Matcher | None = None,
           shared: Shared | None = None,
           originals: dict[str, dict[str, Any]] | None = None,
           loaded: Loaded | None = None) -> list[dict[str, Any]]:
    """Entities for `items` (status items with `stats`), in order, dropping broken ones and
    those the viewer's filters hide. `pending`: counter changes of the viewer's own that the
    stream has yet to apply. `relations`: the request's relationship loader (what it knows is
    not read again). `matcher`: the request's compiled filters. `shared`: a dict kept across
    renders of the same statuses for several viewers (a stream event to each recipient): what
    does not depend on the viewer (originals, accounts, media, custom emoji) is read once.
    `originals`: the boosted statuses, when the caller read them with the boosts; `loaded`:
    what `prepare` read for these statuses and originals (then nothing is read here).

    Two round trips at most: the boosted originals (none when given), then at once the
    viewer's relationships with their authors and everything the page renders (`load`)."""
    if not items:
        return []
    originals_wanted = [i["reblog_of_id"] for i in items if i.get("reblog_of_id")]
    if originals is not None:
        originals = {o: originals[o] for o in originals_wanted if o in originals}
    elif originals_wanted:
        originals = _once(shared, ("originals", *originals_wanted),
                          lambda: repo.get_many(originals_wanted))
    else:
        originals = {}
    everything = list(items) + list(originals.values())
    relations = relations or relationships.loader(viewer_id)

    def visible_originals() -> dict[str, dict[str, Any]]:
        # The one visibility policy guards what is embedded too: a boost of a status the viewer
        # may not see is not shown (whatever the boost's own visibility says).
        if not originals:
            return {}
        view = relations.statuses(originals.values())
        return {o["id"]: o for o in visibility.filter_visible(originals.values(), view)}

    compile_filters = (lambda: filters.compiled(viewer_id, None)) if matcher is None and \
        viewer_id else (lambda: matcher)
    given = loaded
    originals, loaded, matcher = parallel.gather(
        visible_originals, lambda: given or load(everything, viewer_id, shared), compile_filters)
    accounts, sensitized, media = loaded.accounts, loaded.sensitized, loaded.media
    polls, votes, edges = loaded.polls, loaded.votes, loaded.edges
    emojis, emoji_copies, cards = loaded.emojis, loaded.emoji_copies, loaded.cards
    for status_id, counters in (pending or {}).items():
        for counter, delta in counters.items():
            edges.expect(status_id, counter, delta)
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
    return rendered if matcher is None else matcher.keep(rendered)


def render_one(item: dict[str, Any], viewer_id: str | None,
               relations: relationships.Loader | None = None) -> dict[str, Any]:
    """One status; a single status is never removed by a filter (only marked)."""
    return render([item], viewer_id, relations=relations)[0]
