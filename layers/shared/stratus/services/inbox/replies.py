"""Activities the inbox answers with itself: the Reject of a Follow it refuses (the follower is
blocked by the account, or its domain is), signed by the local account and POSTed to the
follower's inbox (Mastodon's `reject_follow_request!`). Accept/Reject of follows that the
account decides later are the outbox's (the delivery work)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ...convert import activitypub as ap
from ...federation import http
from ...observability import logger

AS = "https://www.w3.org/ns/activitystreams"


def reject_follow(follow: dict[str, Any], follower: dict[str, Any],
                  target: dict[str, Any]) -> dict[str, Any]:
    """POST a Reject of `follow` (the Follow activity as received) from the local `target` to
    the remote `follower`; the Reject sent. Refused or 5xx answers raise (SQS retries)."""
    actor = ap.actor_url(target["username"])
    digest = hashlib.sha256(str(follow.get("id")).encode()).hexdigest()[:32]
    reject = {"@context": AS, "id": f"{actor}#rejects/follows/{digest}", "type": "Reject",
              "actor": actor,
              "object": {"id": follow.get("id"), "type": "Follow", "actor": follower["uri"],
                         "object": actor}}
    inbox = follower.get("inbox") or follower.get("shared_inbox")
    if not inbox:
        return reject
    response = http.post_activity(inbox, json.dumps(reject).encode(),
                                  username=target["username"], account_id=target["id"])
    if response.status >= 500:
        raise RuntimeError(f"{inbox} answered {response.status} to a Reject")
    if response.status >= 400:
        logger.info("reject refused by the follower's inbox", extra={"status": response.status})
    return reject
