"""Content negotiation between the profile page and the actor (stratus/http/negotiation.py)."""

from __future__ import annotations

import pytest

from stratus.http.negotiation import wants_activitypub


@pytest.mark.parametrize("accept, json", [
    (None, False),
    ("", False),
    ("*/*", False),
    ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", False),
    ("application/activity+json", True),
    ('application/ld+json; profile="https://www.w3.org/ns/activitystreams"', True),
    ("application/json", True),
    ("application/activity+json, application/ld+json", True),
    ("text/html, application/activity+json;q=0.5", False),
    ("text/html;q=0.1, application/activity+json", True),
    ("application/activity+json;q=0, text/html", False),
    ("image/png, application/activity+json;q=0.2", True),
])
def test_the_best_ranked_type_we_serve_decides(accept, json):
    assert wants_activitypub(accept) is json
