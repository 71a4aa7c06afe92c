"""Mastodon.py over real HTTP: a status's preview card (`status["card"]`, and `status_card`,
which Mastodon.py answers from the status for servers newer than 3.0)."""

from __future__ import annotations

from tests.rig import mastodon_py_users
from tests.rig.sites import article, png


def test_preview_cards_with_mastodon_py(live_server, site):
    ann, ben = mastodon_py_users(live_server.base_url, "ann", "ben", app="cards test")
    site.serve("/image.png", png(1200, 630), "image/png")
    story = site.serve("/story", article("Read me"))
    posted = ann.status_post(f"worth reading {story}")
    assert posted.card is None
    live_server.pipeline.drain()
    card = ben.status_card(posted.id)
    assert (card.url, card.title, card.type) == (story, "Read me", "link")
    assert (card.width, card.height) == (640, 336) and card.image and card.blurhash
    assert ben.status(posted.id)["card"]["description"] == "What happened"
    timeline = ben.timeline_public()
    assert timeline[0].card.url == story
