"""A one-second cache of the public pages: what twenty people reading the leaderboard at once cost the host.

While games are played, the competition's pages are read far more often than they change, and every reading
costs the server's one Python process a leaderboard and a template. ``MicroCache`` keeps the answer to an
anonymous ``GET`` (no cookie, no ``Authorization``) for ``ttl`` seconds, so a crowd of readers costs one page a
second. Nothing personal is ever kept: a request that carries a session or a token, and an answer that sets a
cookie or is not a 200, pass straight through.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["MicroCache"]


class MicroCache:
    """ASGI middleware: anonymous ``GET`` answers (status 200, no cookie set) kept ``ttl`` seconds by path and
    query, at most ``size`` of them."""

    def __init__(self, app: ASGIApp, ttl: float = 1.0, size: int = 512) -> None:
        self.app, self.ttl, self.size = app, ttl, size
        self._held: OrderedDict[tuple[str, bytes], tuple[float, list[Message]]] = OrderedDict()
        self._making: set[tuple[str, bytes]] = set()
        self._lock = threading.Lock()

    @staticmethod
    def _cacheable(scope: Scope) -> bool:
        if scope["type"] != "http" or scope["method"] != "GET":
            return False
        return not any(name in (b"cookie", b"authorization") for name, _ in scope["headers"])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._cacheable(scope):
            await self.app(scope, receive, send)
            return
        key = (scope["path"], scope.get("query_string", b""))
        now = time.monotonic()
        with self._lock:
            held = self._held.get(key)
            fresh = held is not None and now - held[0] < self.ttl
            # An old answer is served while one request makes the new one: a crowd arriving as the answer
            # expires waits for none of it (and the new one is at most one making old).
            stale = held is not None and not fresh and key in self._making
            if held is not None and not fresh and not stale:
                self._making.add(key)
        if held is not None and (fresh or stale):
            for message in held[1]:
                await send(message)
            return
        try:
            await self._make(key, now, scope, receive, send)
        finally:
            with self._lock:
                self._making.discard(key)

    async def _make(self, key: tuple[str, bytes], now: float, scope: Scope, receive: Receive, send: Send) -> None:
        messages: list[Message] = []

        async def keep(message: Message) -> None:
            messages.append(message)
            await send(message)

        await self.app(scope, receive, keep)
        if self._keepable(messages):
            with self._lock:
                self._held[key] = (now, messages)
                self._held.move_to_end(key)
                while len(self._held) > self.size:
                    self._held.popitem(last=False)

    @staticmethod
    def _keepable(messages: list[Message]) -> bool:
        if not messages or messages[0]["type"] != "http.response.start" or messages[0]["status"] != 200:
            return False
        headers: Any = messages[0].get("headers", [])
        if any(name.lower() == b"set-cookie" for name, _ in headers):
            return False
        # one whole body (a streamed answer is passed on, not kept)
        bodies = [m for m in messages if m["type"] == "http.response.body"]
        return len(bodies) == 1 and not bodies[0].get("more_body", False)
