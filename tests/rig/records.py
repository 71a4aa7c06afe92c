"""The repository boundary, checked in every test: what a `stratus.repo` verb hands to code
outside `repo/` carries no storage key (PK, SK, GSI*)."""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import os
import pkgutil
import re
import sys
from collections.abc import Iterator

import pytest

KEY = re.compile(r"^(PK|SK|GSI\d+(PK|SK))$")
PRIVATE = {"stratus.repo.base", "stratus.repo.keys", "stratus.repo.client"}
SURVEY = os.environ.get("STRATUS_RECORDS_SURVEY")
# Verbs that still hand out items with their keys (the records work of the core-shape issue is
# under way): each one converted leaves this list, and the list only shrinks.
NOT_YET = frozenset(f"stratus.repo.{name}" for name in (
    "access_blocks.all_ip_blocks", "access_blocks.canonical_match",
    "access_blocks.email_domain_matches", "accounts.list_roles", "accounts.profile_item",
    "accounts.role_index", "actor_keys.get", "actor_keys.item", "announcements.everything",
    "announcements.get", "announcements.viewer_marks", "announcements.with_reactions",
    "audit.by_target", "audit.entries", "audit.get_many", "blocks.mute_of", "blocks.unblock",
    "cards.get", "cards.get_many", "cards.put", "cards.stats", "cards.status_item",
    "connections.get", "connections.listeners", "connections.of_account",
    "connections.open_connection", "conversations.get", "conversations.item",
    "conversations.page", "conversations.set_unread", "delivery.host_state",
    "directory.account_state", "directory.entry_item", "directory.suggestion_keys",
    "domain_blocks.allow", "domain_blocks.allow_by_id", "domain_blocks.allow_item",
    "domain_blocks.allow_page", "domain_blocks.block", "domain_blocks.block_by_id",
    "domain_blocks.block_item", "domain_blocks.block_page", "domain_blocks.blocks_for",
    "effects.edge_key", "effects.edges_after", "effects.edges_at", "effects.leftovers",
    "effects.notifications", "effects.notifications_about", "effects.notifications_from",
    "featured_tags.account_tags", "featured_tags.featured_item", "featured_tags.featured_of",
    "featured_tags.most_used", "feeds.entries", "feeds.entries_by", "feeds.meta",
    "feeds.metas", "filters.filter_item", "filters.filter_key", "filters.keyword_item",
    "filters.keyword_key", "filters.records", "filters.status_item", "filters.status_key",
    "follows.followers_between", "follows.followings_between", "follows.requests_between",
    "instance.get_emoji", "instance.get_settings", "instance.get_stats",
    "instance.list_domain_blocks", "instance.list_emojis", "instance.list_rules",
    "instance.weeks", "interactions.by_status", "interactions.edge", "interactions.of_account",
    "interactions.remove", "interactions.unboost", "interactions.unfavourite", "links.entries",
    "lists.get", "lists.get_many", "lists.list_item", "lists.member_item", "lists.members",
    "lists.of_owner", "metrics.days", "moderation.follower_edge_keys",
    "moderation.get_purge_request", "moderation.get_warning",
    "moderation.list_membership_keys", "moderation.listing",
    "moderation.notification_group_keys", "moderation.notification_keys",
    "moderation.partition_keys", "moderation.status_entries", "moderation.token_items",
    "notifications.count_heads_since", "notifications.entries", "notifications.existing",
    "notifications.filtered_from", "notifications.filtered_items", "notifications.get",
    "notifications.get_group", "notifications.get_groups", "notifications.get_markers",
    "notifications.get_policy", "notifications.group_for_update", "notifications.head_entries",
    "notifications.items_of", "notifications.members", "notifications.members_of_groups",
    "notifications.permission", "notifications.policy_inputs", "notifications.request_by_id",
    "notifications.request_entries", "notifications.requests_of", "notifications.save_markers",
    "notifications.set_policy", "notifications.status", "oauth.account_tokens",
    "oauth.get_app", "oauth.get_code", "oauth.get_refresh", "oauth.get_token",
    "polls.own_vote", "polls.poll_item", "push.get", "push.of_account", "push.update_data",
    "relationships.domain_block_item", "relationships.endorsements",
    "relationships.follow_item", "relationships.follow_request_item",
    "relationships.follow_requests_made", "relationships.followers",
    "relationships.followings_after", "relationships.follows_of", "relationships.get",
    "relationships.get_follow", "relationships.get_follow_request", "relationships.listed",
    "relationships.mute_item", "relationships.remove_follow_request",
    "remote_follows.followers_after", "remote_media.get", "remote_media.get_many",
    "remote_media.stored_before", "remote_media.stored_for_domain", "reports.entries",
    "reports.get", "reports.get_many", "roles.get", "roles.role_item", "scheduled.get",
    "scheduled.page", "search.account_entries", "search.status_entries", "statuses.stats_item",
    "statuses.status_item", "stream.images", "tags.followed_entries", "tags.followed_item",
    "tags.load", "tags.load_for_viewer", "tags.unfollow", "trends.ranking", "trends.record",
    "trends.records", "trends.review_record",
))
_seen: dict[str, dict] = {}


def _leaks(value, depth: int = 0) -> set[str]:
    if depth > 3:
        return set()
    if isinstance(value, dict):
        found = {k for k in value if isinstance(k, str) and KEY.match(k)}
        for v in value.values():
            if isinstance(v, (dict, list, tuple, set)):
                found |= _leaks(v, depth + 1)
        return found
    if isinstance(value, (list, tuple)):
        found = set()
        for v in value[:50]:
            found |= _leaks(v, depth + 1)
        return found
    return set()


def _fields(value) -> set[str]:
    records = []
    if isinstance(value, dict):
        if value and all(isinstance(v, dict) for v in value.values()) and "id" not in value:
            records = list(value.values())
        else:
            records = [value]
    elif isinstance(value, (list, tuple)):
        records = [v for v in value if isinstance(v, dict)]
    found = set()
    for record in records[:20]:
        found |= {str(k) for k in record}
    return found


def _check(name: str, value) -> None:
    leaked = _leaks(value)
    if SURVEY:
        entry = _seen.setdefault(name, {"calls": 0, "leaks": [], "fields": []})
        entry["calls"] += 1
        entry["leaks"] = sorted(set(entry["leaks"]) | leaked)
        entry["fields"] = sorted(set(entry["fields"]) | _fields(value))
        return
    if leaked and name not in NOT_YET:
        raise AssertionError(f"{name} handed storage keys {sorted(leaked)} outside repo/")


def _outside(frame_depth: int = 2) -> bool:
    caller = sys._getframe(frame_depth).f_globals.get("__name__", "")
    return not caller.startswith("stratus.repo")


def _guard(name: str, fn):
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def generator(*args, **kwargs):
            outside = _outside()
            for item in fn(*args, **kwargs):
                if outside:
                    _check(name, item)
                yield item
        return generator

    @functools.wraps(fn)
    def plain(*args, **kwargs):
        result = fn(*args, **kwargs)
        if _outside():
            if isinstance(result, Iterator):
                return _checked_iter(name, result)
            _check(name, result)
        return result
    return plain


def _checked_iter(name, iterator):
    for item in iterator:
        _check(name, item)
        yield item


def _verbs():
    import stratus.repo as package

    for info in pkgutil.iter_modules(package.__path__, "stratus.repo."):
        if info.name in PRIVATE:
            continue
        module = importlib.import_module(info.name)
        for attr, fn in vars(module).items():
            if (not attr.startswith("_") and inspect.isfunction(fn)
                    and fn.__module__ == info.name):
                yield module, attr, fn


@pytest.fixture(scope="session", autouse=True)
def repository_boundary():
    patched = []
    for module, attr, fn in list(_verbs()):
        setattr(module, attr, _guard(f"{module.__name__}.{attr}", fn))
        patched.append((module, attr, fn))
    yield
    for module, attr, fn in patched:
        setattr(module, attr, fn)
    if SURVEY:
        path = f"{SURVEY}/{os.getpid()}.json"
        with open(path, "w") as out:
            json.dump(_seen, out)
