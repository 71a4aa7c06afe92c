"""What this server says about itself to other servers: WebFinger and host-meta, actor
documents, the outbox and the other collections of a local account, and its statuses as
ActivityPub objects — in Mastodon's shapes (convert/activitypub.py; docs/federation.md).

Who reads: anyone (`reader=None`: an unsigned GET, or any GET while authorized fetch is off),
or, with authorized fetch on, the signing remote account (federation/authorized_fetch.py,
Mastodon's `signed_request_account`). Anyone reads public and unlisted statuses. A signing
account reads what Mastodon's StatusPolicy#show? lets it (policy/visibility.can_see): also the
followers-only statuses of an author it follows, and direct ones that mention it. An account the
author blocks, or of a domain the author blocks (a user's domain block), reads nothing of the
author: its actor, collections and statuses are 404, as for an unknown account. Mastodon 404s
the statuses (StatusPolicy#show?) and empties the outbox, `featured` and `tags` for it, but
still serves the actor and the follow collections; GoToSocial refuses the actor and
collections too (403). Peers fetch keys signed as their instance actor, which an account
block does not refuse, so a blocked account's server can still verify the author's Block; a
domain-blocked server verifies the Reject of its follows with the key it stored then.

Unknown, unconfirmed and unapproved accounts are 404; a suspended account's actor is served
with `suspended: true` and its collections and statuses are 403, as Mastodon does for a
temporary suspension."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from stratus.convert import activitypub as convert
from stratus.core import hosts, ids, parallel, urls
from stratus.core.config import settings
from stratus.core.errors import BadRequest, Forbidden, NotFound
from stratus.core.paging import Budget, Page, fill_page
from stratus.federation import actor_keys, replies
from stratus.policy import visibility
from stratus.read import accounts as accounts_read
from stratus.read import relationships, status_views
from stratus.repo import accounts as accounts_repo
from stratus.repo import actor_keys as keys_repo
from stratus.repo import featured_tags as featured_tags_repo
from stratus.repo import follows as follows_repo
from stratus.repo import instance as instance_repo
from stratus.repo import relationships as graph_repo
from stratus.repo import statuses as statuses_repo

OUTBOX_LIMIT = 20  # ActivityPub::OutboxesController::LIMIT
FOLLOW_PER_PAGE = 12  # Mastodon's FOLLOW_PER_PAGE
Reader = dict[str, Any] | None  # the signing remote account's profile, None for anyone


class Local:
    """A local account as federation sees it: its items, read in one batch, and what the
    reader has to do with it (`relations`, the reader's relationship loader)."""

    def __init__(self, account_id: str, bundle: dict[str, dict[str, Any]],
                 relations: relationships.Loader) -> None:
        self.id = account_id
        self.profile = bundle[accounts_repo.PROFILE]
        self.stats = bundle.get(accounts_repo.STATS) or {}
        self.key = bundle.get(keys_repo.SK)
        self.relations = relations

    @property
    def username(self) -> str:
        return self.profile["username"]

    @property
    def uri(self) -> str:
        return convert.actor_url(self.username)

    @property
    def suspended(self) -> bool:
        return bool(self.profile.get("suspended_at"))


def local_account(username: str, reader: Reader = None) -> Local:
    """The local account named `username` (any case) as `reader` may see it, or 404 (unknown,
    unconfirmed, unapproved, or refusing the reader)."""
    account_id = accounts_repo.id_by_handle(username) if username else None
    if account_id is None:
        raise NotFound()
    bundle = accounts_repo.get_bundle(account_id, (accounts_repo.PROFILE, accounts_repo.STATS,
                                                   accounts_repo.USER, keys_repo.SK))
    if not accounts_read.is_visible(bundle) or bundle[accounts_repo.PROFILE].get("domain"):
        raise NotFound()
    return Local(account_id, bundle, _relations(account_id, reader))


def _relations(author_id: str, reader: Reader) -> relationships.Loader:
    """The reader's relationships with the author (follows, blocks both ways), from one
    batched read that also reads the author's block of the reader's domain; 404 when the
    author blocks the reader (Account#blocking?) or its domain (Account#domain_blocking?, by
    host name: the reader's domain may carry a port, a block never does)."""
    loader = relationships.loader(reader["id"] if reader else None)
    if reader is None:
        return loader
    domain = reader.get("domain") or ""
    view, alongside = graph_repo.load(
        reader["id"], [author_id], full=False,
        domains_blocked_by=(author_id, [domain] if domain else []))
    if author_id in view.blocked_by or alongside.domain_blocks:
        raise NotFound()
    loader.view.merge(view)
    return loader


def profile_url(account: Local) -> str:
    return convert.profile_url(account.username)


def _available(account: Local) -> Local:
    """Collections and statuses of a suspended account are refused (Mastodon's
    temporary_suspension_response)."""
    if account.suspended:
        raise Forbidden()
    return account


# --- discovery -------------------------------------------------------------------------------
_ACCT = re.compile(r"^(?:acct:)?@?([^@\s]+)@([^@\s]+)$", re.IGNORECASE)


def _username_from_resource(resource: str) -> str:
    """Mastodon's WebfingerResource: `acct:user@domain` (or `user@domain`) of this domain, or
    the https URL of an actor or profile page here; 404 for anything else of ours or others'."""
    domain = settings().domain.lower()
    if re.match(r"^https?://", resource, re.IGNORECASE):
        url = urls.parse(resource)
        if url is None or not hosts.ours(url.host):
            raise NotFound()
        path = unquote(url.target.split("?", 1)[0]).rstrip("/")
        if path == "/actor":
            return domain
        match = re.fullmatch(r"/users/([^/]+)|/@([^/]+)", path)
        if not match:
            raise NotFound()
        return match.group(1) or match.group(2)
    match = _ACCT.match(resource)
    if not match:
        raise BadRequest()
    username, host = match.groups()
    if not hosts.ours(host):
        raise NotFound()
    return username


def webfinger(resource: str | None) -> dict[str, Any]:
    if not resource or not resource.strip():
        raise BadRequest()
    username = _username_from_resource(resource.strip())
    if username.lower() == settings().domain.lower():
        return convert.instance_webfinger()
    return convert.webfinger(local_account(username).username)


def host_meta_xml() -> str:
    """host-meta (XRD): where WebFinger is, for peers that look there first."""
    return convert.host_meta_xml()


def host_meta_json() -> dict[str, Any]:
    return convert.host_meta_json()


# --- actors ----------------------------------------------------------------------------------
def actor(username: str, *, may_write: bool = True, reader: Reader = None
          ) -> dict[str, Any] | None:
    """The actor document of a local account. Its key pair is made here if the outbox has not
    made it yet — unless the caller may not write (`may_write=False`: None then)."""
    account = local_account(username, reader)
    key = account.key
    if key is None:
        if not may_write:
            return None
        key = actor_keys.ensure(account.id)
    return convert.actor(account.profile, key["public_key_pem"])


def instance_actor() -> dict[str, Any]:
    return convert.instance_actor(actor_keys.ensure(None)["public_key_pem"])


def instance_outbox() -> dict[str, Any]:
    """The instance actor posts nothing: an empty outbox."""
    uri = f"{convert.instance_actor_url()}/outbox"
    return convert.with_context(convert.ordered_collection(
        uri, 0, first=f"{uri}?page=true", last=f"{uri}?min_id=0&page=true"))


# --- statuses --------------------------------------------------------------------------------
def _served(account: Local, item: dict[str, Any], original: dict[str, Any] | None) -> bool:
    """Whether the reader may see the status (and, for a boost, what it boosted): the one
    visibility policy, with the relationships `account.relations` has loaded for the authors
    (`_load_authors` first)."""
    view = account.relations.view
    if not visibility.can_see(item, view):
        return False
    return not item.get("reblog_of_id") or (original is not None and
                                            visibility.can_see(original, view))


def _load_authors(account: Local, statuses: list[dict[str, Any] | None]) -> None:
    """The reader's relationships with the authors of `statuses` and what they boost (one
    batched read for those not known yet; none for anyone)."""
    account.relations.statuses(statuses)


def _render(account: Local, items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], list[str]]]:
    """(activity, context extensions) for each status of `account` that renders, in order: a
    Create of its Note, or an Announce of what it boosted. Batched reads only."""
    entities = {e["id"]: e for e in status_views.render(items, None)}
    parents = statuses_repo.get_many(list({i["in_reply_to_id"] for i in items
                                           if i.get("in_reply_to_id")}))
    remote_mentions = [m["id"] for e in entities.values() for m in e["mentions"]
                       if "@" in m["acct"]]
    remote = status_views.load_accounts(remote_mentions) if remote_mentions else {}
    emoji_updated: dict[str, str] = {}
    if any(e.get("emojis") for e in entities.values()):
        emoji_updated = {e["shortcode"]: e.get("updated_at") for e in
                         instance_repo.list_emojis()}
    notes = [i for i in items if i["id"] in entities and not i.get("reblog_of_id")]
    collections = dict(zip([i["id"] for i in notes], parallel.gather(
        *(lambda i=i: replies.note_replies(i) for i in notes))))
    rendered = []
    for item in items:
        entity = entities.get(item["id"])
        if entity is None:
            continue
        if entity.get("reblog"):
            original = entity["reblog"]
            rendered.append((convert.activity(
                item, author_uri=account.uri, note_object=None, original_uri=original["uri"],
                original_author_uri=original["account"]["uri"]), []))
            continue
        mention_uris = {m["id"]: (remote[m["id"]]["uri"] if m["id"] in remote
                                  else convert.actor_url(m["username"]))
                        for m in entity["mentions"] if "@" not in m["acct"] or m["id"] in remote}
        parent = parents.get(item.get("in_reply_to_id") or "")
        obj, extensions = convert.note(item, entity, author_uri=account.uri,
                                       mention_uris=mention_uris,
                                       in_reply_to_uri=parent["uri"] if parent else None,
                                       emoji_updated=emoji_updated,
                                       replies=collections.get(item["id"]))
        rendered.append((convert.activity(item, author_uri=account.uri, note_object=obj,
                                          original_uri=None, original_author_uri=None),
                         extensions))
    return rendered


def _own_status(account: Local, status_id: str) -> dict[str, Any]:
    """The account's status if the reader may see it, else 404 (StatusesController: a status
    StatusPolicy#show? refuses is not found)."""
    item = statuses_repo.get(status_id) if ids.is_id(status_id) else None
    if item is None or item["account_id"] != account.id:
        raise NotFound()
    original = statuses_repo.get(item["reblog_of_id"]) if item.get("reblog_of_id") else None
    _load_authors(account, [item, original])
    if not _served(account, item, original):
        raise NotFound()
    return item


def status_object(username: str, status_id: str, reader: Reader = None
                  ) -> dict[str, Any] | str:
    """The Note (or Question) at a status's `uri`; for a boost, the URL of what it boosted (a
    redirect, as Mastodon's StatusesController)."""
    account = _available(local_account(username, reader))
    item = _own_status(account, status_id)
    if item.get("reblog_of_id"):
        original = statuses_repo.get(item["reblog_of_id"])
        return (original or {}).get("url") or (original or {}).get("uri") or ""
    rendered = _render(account, [item])
    if not rendered:
        raise NotFound()
    activity, extensions = rendered[0]
    return convert.with_context(activity["object"], (), extensions)


def status_replies(username: str, status_id: str, params: dict[str, Any],
                   reader: Reader = None) -> tuple[dict[str, Any], bool]:
    """`<status uri>/replies` (federation/replies.py) of a status the reader may see, and
    whether anyone may read it (public or unlisted: the answer may be cached publicly)."""
    account = _available(local_account(username, reader))
    item = _own_status(account, status_id)
    if item.get("reblog_of_id"):
        raise NotFound()
    return (convert.with_context(replies.collection(item, params)),
            item.get("visibility") in ("public", "unlisted"))


def status_activity(username: str, status_id: str, reader: Reader = None) -> dict[str, Any]:
    """`<uri>/activity`: the Create of a status, or the Announce that is a boost."""
    account = _available(local_account(username, reader))
    rendered = _render(account, [_own_status(account, status_id)])
    if not rendered:
        raise NotFound()
    activity, extensions = rendered[0]
    return convert.with_context(activity, (), extensions)


# --- collections -----------------------------------------------------------------------------
def _page_url(uri: str, **params: str) -> str:
    # Rails orders query parameters by name (Hash#to_query).
    return uri + "?" + "&".join(f"{k}={v}" for k, v in sorted(params.items()))


def outbox(username: str, params: dict[str, Any], reader: Reader = None) -> dict[str, Any]:
    """The account's statuses and boosts the reader may see, newest first, 20 a page: public
    and unlisted ones for anyone; for a signing follower the followers-only ones too, and the
    direct ones that mention the signer (Mastodon's AccountStatusesFilter)."""
    account = _available(local_account(username, reader))
    uri = f"{account.uri}/outbox"
    if str(params.get("page", "")).lower() not in ("true", "1", "on", "t"):
        return convert.with_context(convert.ordered_collection(
            uri, max(int(account.stats.get("statuses_count", 0)), 0),
            first=_page_url(uri, page="true"), last=_page_url(uri, min_id="0", page="true")))

    def cursor(name: str) -> str | None:
        value = params.get(name)
        return str(value) if value is not None and ids.is_id(str(value)) else None

    page = Page(max_id=cursor("max_id"), min_id=cursor("min_id"), limit=OUTBOX_LIMIT)
    budget = Budget()
    entries = statuses_repo.account_statuses_between(account.id, *page.id_range(),
                                                     not page.ascending, budget=budget,
                                                     step=page.step)

    def hydrate(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = statuses_repo.get_many([e["id"] for e in batch])
        originals = statuses_repo.get_many([s["reblog_of_id"] for s in found.values()
                                            if s.get("reblog_of_id")])
        _load_authors(account, [*found.values(), *originals.values()])
        return [found[e["id"]] for e in batch if e["id"] in found and _served(
            account, found[e["id"]], originals.get(found[e["id"]].get("reblog_of_id") or ""))]

    filled = fill_page(entries, hydrate, page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda s: s["id"])
    rendered = _render(account, filled.items)
    extensions = [x for _, used in rendered for x in used]
    page_params = {k: v for k, v in (("max_id", page.max_id), ("min_id", page.min_id)) if v}
    items = filled.items
    return convert.with_context(convert.ordered_page(
        _page_url(uri, page="true", **page_params), uri, [a for a, _ in rendered],
        next_=(_page_url(uri, max_id=items[-1]["id"], page="true")
               if len(items) == OUTBOX_LIMIT else None),
        prev=_page_url(uri, min_id=items[0]["id"], page="true") if items else None),
        (), extensions)


def _follow_collection(username: str, params: dict[str, Any], followers: bool,
                       reader: Reader) -> dict[str, Any]:
    """Followers or following: the total, and pages of actor URIs, newest follow first.
    Mastodon's rules: hidden collections (`hide_collections`) show only their total, and
    their pages are 403. Pages continue from a follow id (`max_id`), not an offset."""
    account = _available(local_account(username, reader))
    name = "followers" if followers else "following"
    uri = f"{account.uri}/{name}"
    total = max(int(account.stats.get(f"{name}_count", 0)), 0)
    hidden = bool(account.profile.get("hide_collections"))
    if "page" not in params:
        if hidden:
            return convert.with_context({"id": uri, "type": "OrderedCollection",
                                         "totalItems": total})
        return convert.with_context(convert.ordered_collection(
            uri, total, first=_page_url(uri, page="1")))
    if hidden:
        raise Forbidden()
    max_id = params.get("max_id")
    max_id = str(max_id) if max_id is not None and ids.is_id(str(max_id)) else None
    listing = follows_repo.followers_between if followers else follows_repo.followings_between
    entries = []
    for entry in listing(account.id, None, int(max_id) - 1 if max_id else None, True,
                         budget=Budget(), step=FOLLOW_PER_PAGE):
        entries.append(entry)
        if len(entries) == FOLLOW_PER_PAGE:
            break
    other = [(e["account_id"] if followers else e["target_id"]) for e in entries]
    profiles = accounts_repo.get_many(other, (accounts_repo.PROFILE,))
    uris = []
    for account_id in other:
        profile = profiles.get(account_id, {}).get(accounts_repo.PROFILE)
        if profile is not None:
            uris.append(profile.get("uri") or convert.actor_url(profile["username"]))
    page_id = _page_url(uri, page="1", **({"max_id": max_id} if max_id else {}))
    return convert.with_context(convert.ordered_page(
        page_id, uri, uris, total=total,
        next_=(_page_url(uri, max_id=entries[-1]["id"], page="1")
               if len(entries) == FOLLOW_PER_PAGE else None)))


def followers(username: str, params: dict[str, Any], reader: Reader = None) -> dict[str, Any]:
    return _follow_collection(username, params, True, reader)


def following(username: str, params: dict[str, Any], reader: Reader = None) -> dict[str, Any]:
    return _follow_collection(username, params, False, reader)


def featured(username: str, reader: Reader = None) -> dict[str, Any]:
    """Pinned statuses the reader may see (public and unlisted ones for anyone) as Notes,
    newest pin first."""
    account = _available(local_account(username, reader))
    pinned_ids = statuses_repo.pinned_status_ids(account.id)
    found = statuses_repo.get_many(pinned_ids)
    _load_authors(account, list(found.values()))
    items = [found[s] for s in pinned_ids if s in found and _served(account, found[s], None)]
    rendered = _render(account, items)
    return convert.with_context(convert.ordered_collection(
        f"{account.uri}/collections/featured", len(rendered),
        items=[a["object"] for a, _ in rendered]), (), [x for _, used in rendered for x in used])


def featured_tags(username: str, reader: Reader = None) -> dict[str, Any]:
    """Featured hashtags (Mastodon's `tags` collection): an unordered Collection of Hashtags,
    in the order they were featured."""
    account = _available(local_account(username, reader))
    featured = sorted(featured_tags_repo.featured_of(account.id), key=lambda i: int(i["id"]))
    return convert.with_context(convert.collection(
        f"{account.uri}/collections/tags",
        [convert.featured_hashtag(account.username, i["tag"], i["name"]) for i in featured]),
        (), ["hashtag"] if featured else [])
