"""What a page says about itself for its preview card (stratus/text/cards.py): OpenGraph and
Twitter tags, JSON-LD, the plain-HTML fallbacks, oEmbed answers and the player allowlist."""

from __future__ import annotations

from stratus.text import cards

URL = "https://news.example/2024/story"


def parse(html: str | bytes, charset: str | None = None, url: str = URL):
    body = html.encode() if isinstance(html, str) else html
    return cards.parse_html(url, body, charset)


def test_opengraph():
    details, endpoint = parse(
        '<html lang="fr"><head><title>Plain</title>'
        '<meta property="og:title" content="Big &amp; bold">'
        '<meta property="og:description" content="What happened">'
        '<meta property="og:type" content="article">'
        '<meta property="og:image" content="/img/lead.jpg">'
        '<meta property="og:image:alt" content="A lead image">'
        '<meta property="og:site_name" content="News">'
        '<meta property="og:url" content="https://news.example/canonical">'
        '<meta property="article:published_time" content="2024-05-01T10:00:00+02:00">'
        '<meta name="description" content="not this one"></head></html>')
    assert endpoint is None
    assert (details.title, details.description) == ("Big & bold", "What happened")
    assert details.type == "link" and details.link_type == "article"
    assert details.image_url == "https://news.example/img/lead.jpg"
    assert details.image_description == "A lead image"
    assert details.provider_name == "News" and details.language == "fr"
    assert details.url == "https://news.example/canonical"
    assert details.published_at == "2024-05-01T08:00:00.000Z"


def test_title_and_description_fall_back_to_plain_html():
    details, _ = parse("<title>  Just a page </title><meta name=description content=About>")
    assert (details.title, details.description) == ("Just a page", "About")
    assert details.link_type == "unknown" and details.image_url is None
    assert details.language is None and details.published_at is None


def test_a_page_without_title_or_player_makes_no_card():
    assert parse("<p>nothing to say</p>")[0] is None


def test_json_ld_comes_first_and_a_news_article_is_an_article():
    details, _ = parse(
        '<meta property="og:title" content="OG"><script type="application/ld+json">'
        '//<![CDATA[\n[{"@type": "Organization"}, {"@type": "NewsArticle", "headline": "LD",'
        ' "description": "From LD", "inLanguage": "de-AT", "datePublished": "2024-01-02",'
        ' "author": [{"name": "Ann", "url": "/ann"}], "publisher": {"name": "Pub"}}]\n//]]>'
        '</script><script type="application/ld+json">{broken</script>')
    assert (details.title, details.description, details.link_type) == ("LD", "From LD",
                                                                       "article")
    assert (details.author_name, details.author_url) == ("Ann", "https://news.example/ann")
    assert details.provider_name == "Pub" and details.language == "de"
    assert details.published_at == "2024-01-02T00:00:00.000Z"


def test_the_canonical_url_must_be_same_origin():
    details, _ = parse('<title>t</title><link rel="canonical" href="https://evil.example/x">')
    assert details.url == URL


def test_a_twitter_player_makes_a_video_card_with_a_clean_iframe():
    details, _ = parse(
        '<title>Clip</title><meta name="twitter:player" content="https://player.example/e/1">'
        '<meta name="twitter:player:width" content="640">'
        '<meta name="twitter:player:height" content="360">')
    assert details.type == "video" and (details.width, details.height) == (640, 360)
    assert details.html.startswith('<iframe src="https://player.example/e/1"')
    assert "allowfullscreen" in details.html


def test_non_http_urls_are_dropped():
    details, _ = parse('<title>t</title><meta property="og:image" content="javascript:alert(1)">'
                       '<meta name="twitter:player" content="data:text/html,x">')
    assert details.image_url is None and details.type == "link" and details.html == ""


def test_the_charset_comes_from_the_header_or_the_page():
    latin = "<title>Caf\xe9</title>".encode("latin-1")
    assert parse(latin, "iso-8859-1")[0].title == "Café"
    assert parse(b'<meta charset="windows-1252">' + latin)[0].title == "Café"
    assert parse("<title>Café</title>".encode())[0].title == "Café"


def test_the_oembed_endpoint_is_discovered_and_kept_on_https():
    _, endpoint = parse('<title>t</title><link rel="alternate" type="application/json+oembed" '
                        'href="http://news.example/oembed?url=x">')
    assert endpoint == "https://news.example/oembed?url=x"


def test_oembed_video_html_keeps_only_the_player():
    details = cards.from_oembed({
        "version": "1.0", "type": "video", "title": "Clip", "width": 480, "height": "270",
        "author_name": "Ann", "author_url": "/ann", "provider_name": "Tube",
        "thumbnail_url": "/thumb.jpg",
        "html": '<iframe src="https://tube.example/embed/1" onload="steal()" width="480">'
                '</iframe><script>alert(1)</script><a href="javascript:x()">x</a>'},
        "https://tube.example/oembed", URL)
    assert details.type == "video" and (details.width, details.height) == (480, 270)
    assert details.html == '<iframe src="https://tube.example/embed/1" width="480"></iframe>x'
    assert details.author_url == "https://tube.example/ann"
    assert details.image_url == "https://tube.example/thumb.jpg"
    assert details.url == URL


def test_oembed_rich_without_a_player_and_photo_without_url_make_no_card():
    endpoint = "https://x.example/oembed"
    assert cards.from_oembed({"version": "1.0", "type": "rich",
                              "html": '<blockquote>hi</blockquote><script src="w.js"></script>'},
                             endpoint, URL) is None
    assert cards.from_oembed({"version": "1.0", "type": "photo"}, endpoint, URL) is None
    assert cards.from_oembed({"version": "2.0", "type": "link"}, endpoint, URL) is None
    assert cards.from_oembed(["not", "a", "dict"], endpoint, URL) is None
    photo = cards.from_oembed({"version": "1.0", "type": "photo", "url": "/p.jpg", "width": 10,
                               "height": 20}, endpoint, URL)
    assert photo.type == "photo" and photo.embed_url == photo.image_url == \
        "https://x.example/p.jpg"
    rich = cards.from_oembed({"version": "1.0", "type": "rich",
                              "html": '<iframe src="https://x.example/w"></iframe>'},
                             endpoint, URL)
    assert rich.type == "rich" and rich.html == '<iframe src="https://x.example/w"></iframe>'


def test_a_player_size_past_what_a_card_can_store_is_left_out():
    """A width or height of 40 digits (DynamoDB keeps 38: the card's write failed on every
    try) or a fraction, in a page's tags or an oEmbed answer: 0, as a missing one is."""
    details, _ = parse('<title>t</title><meta name="twitter:card" content="player">'
                       '<meta name="twitter:player" content="https://tube.example/embed/1">'
                       f'<meta name="twitter:player:width" content="{"9" * 40}">'
                       '<meta name="twitter:player:height" content="360">')
    assert (details.width, details.height) == (0, 360)
    photo = cards.from_oembed({"version": "1.0", "type": "photo", "url": "https://p.example/1.jpg",
                               "width": 10**40, "height": 2.5}, "https://p.example/oembed", URL)
    assert (photo.width, photo.height) == (0, 0)
    photo = cards.from_oembed({"version": "1.0", "type": "photo", "url": "https://p.example/1.jpg",
                               "width": 640.0, "height": True}, "https://p.example/oembed", URL)
    assert (photo.width, photo.height) == (640, 0)


def test_json_that_is_not_json_or_nests_too_deeply_is_ignored():
    """JSON-LD nested 100,000 deep raised RecursionError (the cards job failed and was
    retried); NaN in an oEmbed answer is not JSON."""
    deep = "[" * 100_000 + "]" * 100_000
    details, _ = parse(f'<title>Plain</title><script type="application/ld+json">{deep}</script>')
    assert details.title == "Plain"
    assert cards.parse_oembed(b'{"version": "1.0", "type": "photo", "width": NaN}') is None
