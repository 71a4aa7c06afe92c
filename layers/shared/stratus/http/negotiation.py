"""Content negotiation between HTML (browsers) and ActivityPub JSON (servers), as Rails picks
a format from `Accept` for Mastodon's account and status pages."""

from __future__ import annotations

ACTIVITYPUB_TYPES = ("application/activity+json", "application/ld+json", "application/json")
HTML_TYPES = ("text/html", "application/xhtml+xml")


def wants_activitypub(accept: str | None) -> bool:
    """Whether the best-ranked type of `Accept` that we serve is a JSON-LD one
    (`application/activity+json`, `application/ld+json; profile="…activitystreams"`, or plain
    JSON, which Mastodon registers under the same format). No `Accept`, `*/*` or HTML: a
    browser."""
    best: tuple[float, int] | None = None
    chosen = False
    for position, part in enumerate((accept or "").split(",")):
        media, *params = [p.strip() for p in part.split(";")]
        media = media.lower()
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality <= 0 or media not in ACTIVITYPUB_TYPES + HTML_TYPES:
            continue
        rank = (quality, -position)
        if best is None or rank > best:
            best, chosen = rank, media in ACTIVITYPUB_TYPES
    return chosen


def activity_json(document: dict, *, cache: str, vary: str | None = None):
    """A JSON-LD document as Mastodon serves it: `application/activity+json; charset=utf-8`."""
    from stratus.http.app import JSONResponse

    headers = {"Cache-Control": cache}
    if vary:
        headers["Vary"] = vary
    return JSONResponse(document, media_type="application/activity+json; charset=utf-8",
                        headers=headers)
