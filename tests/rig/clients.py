"""Real clients against the stack behind a real HTTP server (`live_server`): a stack of users
with tokens for HTTP and WebSocket calls, and the toot command."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.rig.accounts import make_app, make_user, user_token

TOOT = str(Path(sys.executable).parent / "toot")


class LiveStack:
    """`live_server` with users: `user(name)` makes one and its token, `call(name, ...)` an
    HTTP request as that user, `url(query)` the streaming WebSocket URL."""

    def __init__(self, live_server):
        import httpx

        self.server = live_server
        self.http = httpx.Client(base_url=live_server.base_url, timeout=30)
        self.app = make_app(self.http)
        self.ids: dict[str, str] = {}
        self.tokens: dict[str, str] = {}

    def user(self, name: str, scopes=("read", "write", "follow")) -> str:
        self.ids[name] = make_user(name)
        self.tokens[name] = user_token(self.app, self.ids[name], scopes=scopes)
        return self.tokens[name]

    def call(self, name: str, method: str, path: str, **kwargs):
        response = self.http.request(method, path, headers={
            "Authorization": f"Bearer {self.tokens[name]}"}, **kwargs)
        assert response.status_code in (200, 206), response.text  # 206: home being rebuilt
        return response.json()

    def url(self, query: str = "") -> str:
        return self.server.base_url.replace("http://", "ws://") + "/api/v1/streaming" + query

    def drain(self) -> None:
        self.server.pipeline.drain()
