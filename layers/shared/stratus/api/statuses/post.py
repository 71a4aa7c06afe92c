"""`POST /api/v1/statuses`: post a status now (actions/posting builds it); with an
Idempotency-Key, one status per key and user for an hour."""

from __future__ import annotations

import time
from typing import Any

from stratus.actions.posting import after_create, build, prepare
from stratus.api.oauth import oauth
from stratus.core.errors import Busy
from stratus.model.viewer import Viewer
from stratus.repo import search as search_repo


def create(viewer: Viewer, params: dict[str, Any]) -> str:
    """Post a status now; returns its id."""
    prepared = prepare(viewer, params)
    app = oauth.get_app(viewer.token.get("client_id"))
    application = {"name": app["name"], "website": app.get("website")} if app else None
    item, write = build(viewer, prepared, application=application)
    write()
    after_create(item)
    if item.get("tags"):  # a tag is searchable as soon as it is used (Mastodon makes the Tag
        search_repo.index_tags(item["tags"])  # in the request); the search worker does the rest
    return item["id"]


def create_idempotent(viewer: Viewer, params: dict[str, Any], key: str | None,
                      lambda_context: Any = None) -> str:
    """With an Idempotency-Key, the same key from the same user within an hour returns the
    same status (Powertools idempotency on the Idempotency table)."""
    if not key:
        return create(viewer, params)
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
    )

    run, config = _idempotent_create()
    if lambda_context is not None:
        config.register_lambda_context(lambda_context)
    # A duplicate that arrives while the first request is still posting waits for its result
    # (or, if the first one fails, posts itself); after a few seconds it is told to retry.
    for _ in range(IDEMPOTENCY_WAITS):
        try:
            return run(request={"account_id": viewer.account_id, "key": key}, viewer=viewer,
                       params=params)
        except IdempotencyAlreadyInProgressError:
            time.sleep(IDEMPOTENCY_WAIT_SECONDS)
    raise Busy("A request with this Idempotency-Key is still in progress; try again in a moment")


_idempotent = None
IDEMPOTENCY_WAITS = 12
IDEMPOTENCY_WAIT_SECONDS = 0.25


def _idempotent_create():
    global _idempotent
    if _idempotent is None:
        from aws_lambda_powertools.utilities.idempotency import (
            IdempotencyConfig,
            idempotent_function,
        )

        from stratus.repo import idempotency

        persistence = idempotency.persistence_layer()
        config = IdempotencyConfig(event_key_jmespath="[account_id, key]",
                                   expires_after_seconds=3600)

        @idempotent_function(data_keyword_argument="request", persistence_store=persistence,
                             config=config)
        def run(request: dict, viewer: Viewer, params: dict) -> str:
            return create(viewer, params)

        _idempotent = (run, config)
    return _idempotent
