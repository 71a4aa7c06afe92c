"""A small LibreTranslate-compatible server on loopback: what the local stack translates with
(`make dev`, and the tests' `translator` fixture), since the emulator has no Amazon Translate.

It speaks the two calls Stratus makes (GET /languages, POST /translate with `q` a list and
`format` html) and "translates" English, German and French by a word list of its own, leaving
markup and other words alone, so a test can tell that a text went through it. `requests`
counts the translations asked for; `fail_with` makes the next answers that status (429, 403,
500) to exercise the errors."""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler

from .loopback import Loopback

LANGUAGES = ("en", "de", "fr")
WORDS = {
    ("en", "de"): {"hello": "hallo", "world": "Welt", "cat": "Katze", "dog": "Hund",
                   "yes": "ja", "no": "nein", "warning": "Warnung", "picture": "Bild"},
    ("en", "fr"): {"hello": "bonjour", "world": "monde", "cat": "chat", "dog": "chien",
                   "yes": "oui", "no": "non", "warning": "avertissement", "picture": "image"},
}
WORD = re.compile(r"<[^>]*>|[^\W\d_]+")


def translate(text: str, source: str, target: str) -> str:
    table = WORDS.get((source, target), {})

    def swap(match: re.Match) -> str:
        token = match.group(0)
        if token.startswith("<"):
            return token
        found = table.get(token.lower())
        return (found.capitalize() if token[0].isupper() else found) if found else token

    return WORD.sub(swap, text)


class Translator:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.fail_with: int | None = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def _answer(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path != "/languages":
                    return self._answer(404, {"error": "not found"})
                self._answer(200, [{"code": code, "name": code, "targets": list(LANGUAGES)}
                                   for code in LANGUAGES])

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                owner.requests.append(body)
                if owner.fail_with:
                    return self._answer(owner.fail_with, {"error": "failing on purpose"})
                texts = body.get("q") if isinstance(body.get("q"), list) else [body.get("q")]
                source = body.get("source") if body.get("source") != "auto" else "en"
                self._answer(200, {
                    "translatedText": [translate(str(t), source, body.get("target", ""))
                                       for t in texts],
                    "detectedLanguage": [{"confidence": 90.0, "language": source}
                                         for _ in texts]})

        self._server = Loopback(Handler)
        self.url = self._server.url("")

    def close(self) -> None:
        self._server.close()
