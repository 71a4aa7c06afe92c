"""Preview cards (Mastodon's FetchLinkCardService, LinkCrawlWorker, PreviewCard): the card of the
first link of a local status, made once per normalised URL and shared by every status that
links it.

The cards worker takes a `FetchCard` job from the outbox when a local status with a link is
posted or its text edited. It reads the status as it is now and finds its card link
(`text.links.card_link`: the first http(s) URL that is not on this server; mentions and hashtags
are not URLs). A card younger than two weeks is reused; otherwise the page is fetched under the
outbound rules (`stratus.core.outbound`: public addresses only in production, redirects re-checked,
size and time bounded, robots.txt honoured), its oEmbed endpoint asked if it names one, else its
own metadata read (`text.cards`), and its image fetched, re-encoded by the image pipeline
(`imaging/images.py`) and stored in the media bucket with a blurhash. The card is then named on
the status (`card_url`) if the status still has the text the card was chosen for, so a later
edit is never overwritten by an earlier job. A failed fetch makes no card (Mastodon's too), and
a stale card whose refresh fails is still used.

Every effect is idempotent: a redelivered job finds the card named on the status and does
nothing; a job that stopped halfway writes the same card item and the same image key again.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from stratus.core import clock, outbound
from stratus.core.config import settings
from stratus.core.observability import logger
from stratus.imaging import images
from stratus.jobs import messages as jobs
from stratus.repo import cards as repo
from stratus.repo import media as storage
from stratus.text import cards as parse
from stratus.text.links import card_link

STALE_AFTER = timedelta(weeks=2)  # Mastodon refetches a card this old
JOB_SECONDS = 45.0  # every request of one job together (robots.txt, page, oEmbed, image)
HTML_MAX_BYTES = 1024 * 1024  # Mastodon's body_with_limit
OEMBED_MAX_BYTES = 1024 * 1024
IMAGE_MAX_BYTES = 5 * 1024 * 1024
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
IMAGE_BOX = 640  # Mastodon stores card images within 640×640 (`640x640>`)
JSON_TYPES = ("application/json", "text/json", "+json", "+oembed")
BLURHASH_COMPONENTS = (4, 4)  # PreviewCard's blurhash options


def _stale(card: dict[str, Any]) -> bool:
    fetched = card.get("fetched_at")
    return not fetched or clock.parse_iso(fetched) <= clock.now() - STALE_AFTER


# --- the job ------------------------------------------------------------------------------------
def fetch_for_status(job: jobs.FetchCard) -> int:
    """Give the status the card of its first link (made or reused); returns 1 if the status
    changed (a card named or removed), 0 otherwise (also on redelivery)."""
    status = repo.status_item(job.status_id)
    if status is None or status.get("reblog_of_id"):
        return 0
    text = status.get("text") or ""
    url = card_link(text, settings().domain)
    if url is None:
        return int(bool(status.get("card_url")) and repo.detach(job.status_id, text))
    if status.get("card_url") == url:
        return 0
    card = repo.get(url)
    if card is None or _stale(card):
        card = make(url) or card
    if card is None:
        return 0
    return int(repo.attach(job.status_id, url, text))


def make(url: str) -> dict[str, Any] | None:
    """Fetch `url` and store its card; None when the page makes none (refused, unreachable,
    not HTML, no title and no player)."""
    deadline = outbound.Deadline(JOB_SECONDS)
    try:
        page = outbound.fetch(url, types=("text/html",), max_bytes=HTML_MAX_BYTES,
                              deadline=deadline)
    except outbound.Refused as exc:
        logger.info("no preview card", extra={"url": url, "reason": str(exc)})
        return None
    details, endpoint = parse.parse_html(page.url, page.body, page.charset)
    if endpoint:
        embedded = _oembed(endpoint, url, deadline)
        details = embedded or details
    if details is None:
        logger.info("no preview card", extra={"url": url, "reason": "no title"})
        return None
    fields = details.fields()
    image_url = fields.pop("image_url")
    fields["canonical_url"] = fields.pop("url")
    fields.update(_image(image_url, url, deadline) if image_url else {})
    if fields["type"] == "link" and fields.get("image_width"):
        # Mastodon gives a link card its image's size.
        fields["width"], fields["height"] = fields["image_width"], fields["image_height"]
    fields["fetched_at"] = clock.iso(clock.now())
    return repo.put(url, fields)


def _oembed(endpoint: str, url: str, deadline: outbound.Deadline) -> parse.Details | None:
    try:
        answer = outbound.fetch(endpoint, types=JSON_TYPES, max_bytes=OEMBED_MAX_BYTES,
                                deadline=deadline, accept="application/json")
    except outbound.Refused as exc:
        logger.info("no oEmbed", extra={"url": url, "reason": str(exc)})
        return None
    return parse.from_oembed(parse.parse_oembed(answer.body), answer.url, url)


def _blurhash(still: Any) -> str:
    import blurhash

    tiny = still.convert("RGB")
    tiny.thumbnail((32, 32))
    pixels = tiny.load()
    rows = [[list(pixels[x, y]) for x in range(tiny.width)] for y in range(tiny.height)]
    return blurhash.encode(rows, components_x=BLURHASH_COMPONENTS[0],
                           components_y=BLURHASH_COMPONENTS[1])


def _within_box(probe: images.Probe) -> int:
    """The pixel count that scales an image into the box (the pipeline bounds by area)."""
    scale = min(1.0, IMAGE_BOX / max(probe.width, 1), IMAGE_BOX / max(probe.height, 1))
    return int(probe.width * probe.height * scale * scale) + 1


def _image(image_url: str, url: str, deadline: outbound.Deadline) -> dict[str, Any]:
    """The card's image, re-encoded and stored: its key, size and blurhash ({} if none)."""
    try:
        got = outbound.fetch(image_url, types=IMAGE_TYPES, max_bytes=IMAGE_MAX_BYTES,
                             deadline=deadline)
        encoded = images.normalize(got.body, IMAGE_TYPES,
                                   max_pixels=_within_box(images.probe(got.body, IMAGE_TYPES)))
    except (outbound.Refused, images.Refused) as exc:
        logger.info("no preview card image", extra={"url": url, "reason": str(exc)})
        return {}
    folder = hashlib.sha256(url.encode()).hexdigest()
    digest = hashlib.sha256(encoded.data).hexdigest()[:16]
    key = f"preview_cards/images/{folder}/original/{digest}.{encoded.extension}"
    storage.put_object(key, encoded.data, encoded.content_type)
    return {"image_key": key, "image_width": encoded.width, "image_height": encoded.height,
            "blurhash": _blurhash(encoded.still)}
