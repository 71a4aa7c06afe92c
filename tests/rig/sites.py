"""A web site on loopback for the preview-card and federation tests: pages, images, oEmbed
answers, redirects and robots.txt, served by a real HTTP server, with a record of every request
it got; POSTs (an inbox) are recorded with their bodies and answered with the statuses queued
for their path (202 when none is). Also the `translator` fixture: the LibreTranslate-compatible
server statuses are translated with."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Page:
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunked: bool = False  # no Content-Length: the body's size shows only as it is read


@dataclass
class Post:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int  # what the site answered

    def json(self) -> object:
        import json

        return json.loads(self.body)


class Site:
    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.posts: list[Post] = []
        self.answers: dict[str, list[int]] = {}  # path -> statuses for its next POSTs
        self.lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                site.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                page = site.pages.get(self.path) or Page(b"not found", "text/plain", 404)
                self.send_response(page.status)
                self.send_header("Content-Type", page.content_type)
                for name, value in page.headers.items():
                    self.send_header(name, value)
                if page.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for start in range(0, len(page.body), 65536):
                        piece = page.body[start:start + 65536]
                        try:
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        except OSError:
                            return  # the client stopped reading
                    self.wfile.write(b"0\r\n\r\n")
                    return
                self.send_header("Content-Length", str(len(page.body)))
                self.end_headers()
                try:
                    self.wfile.write(page.body)
                except OSError:
                    pass

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with site.lock:
                    queued = site.answers.get(self.path) or []
                    status = queued.pop(0) if queued else 202
                    site.posts.append(Post(self.path, {k.lower(): v for k, v in
                                                       self.headers.items()}, body, status))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def serve(self, path: str, body: bytes | str, content_type: str = "text/html; charset=utf-8",
              **options: object) -> str:
        self.pages[path] = Page(body.encode() if isinstance(body, str) else body, content_type,
                                **options)  # type: ignore[arg-type]
        return self.url(path)

    def redirect(self, path: str, to: str, status: int = 302) -> str:
        return self.serve(path, b"", "text/plain", status=status, headers={"Location": to})

    def hits(self, path: str) -> int:
        return sum(1 for p, _ in self.requests if p == path)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site():
    from stratus.core import outbound

    outbound.reset()
    served = Site()
    yield served
    served.close()
    outbound.reset()


def article(title: str = "A story", *, image: str | None = "/image.png", extra: str = "") -> str:
    """An OpenGraph article page."""
    image_tag = f'<meta property="og:image" content="{image}">' if image else ""
    return (f'<!doctype html><html lang="en"><head><title>Page title</title>'
            f'<meta property="og:title" content="{title}">'
            f'<meta property="og:description" content="What happened">'
            f'<meta property="og:type" content="article">'
            f'<meta property="og:site_name" content="The Example">{image_tag}{extra}'
            f'</head><body><p>Text</p></body></html>')


def png(width: int = 800, height: int = 400) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 40, 90)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def translator(monkeypatch):
    """The local stack's LibreTranslate-compatible server (local/translator.py) on loopback,
    configured as the stack's translation backend for the test (name it after the stack's
    fixture, `client` or `live_server`, whose start sets translation off)."""
    from stratus.core import config
    from stratus.read import translation

    from local.translator import Translator

    fake = Translator()
    monkeypatch.setenv("TRANSLATION_BACKEND", "libretranslate")
    monkeypatch.setenv("LIBRETRANSLATE_URL", fake.url)
    config.reset()
    translation.forget()
    yield fake
    fake.close()
    monkeypatch.undo()
    config.reset()
    translation.forget()
