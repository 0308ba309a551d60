"""A one-second cache of the public pages: what twenty people reading the leaderboard at once cost the host.

While games are played, the competition's pages are read far more often than they change, and every reading
costs the server's one Python process a leaderboard and a template. ``MicroCache`` keeps the answer to an
anonymous ``GET`` (no cookie, no ``Authorization``) for ``ttl`` seconds, so a crowd of readers costs one page a
second; an answer older than that is still given at once while the new one is made behind it for the readers
after (no reader waits for a page to be made but the first one). A crowd arriving at a page not yet kept (the
first minute of a competition, or a page evicted) waits for the one answer its first reader makes, instead of
each reader making the page again at once. Nothing personal is ever kept: a request that
carries a session or a token, and an answer that sets a cookie or is not a 200, pass straight through (and a
page whose new answer is not a 200 is forgotten, so its next reader gets that answer).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["MicroCache"]

log = logging.getLogger("arena.host")


class MicroCache:
    """ASGI middleware: anonymous ``GET`` answers (status 200, no cookie set) kept ``ttl`` seconds by path and
    query, at most ``size`` of them."""

    def __init__(self, app: ASGIApp, ttl: float = 1.0, size: int = 512) -> None:
        self.app, self.ttl, self.size = app, ttl, size
        self._held: OrderedDict[tuple[str, bytes], tuple[float, list[Message]]] = OrderedDict()
        self._making: set[tuple[str, bytes]] = set()
        #: Pages being made for their first reader; the readers behind it wait for that answer.
        self._first: dict[tuple[str, bytes], asyncio.Future[None]] = {}
        self._tasks: set[asyncio.Future[None]] = set()
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
            refresh = held is not None and now - held[0] >= self.ttl and key not in self._making
            if refresh:
                self._making.add(key)
        if held is None:
            await self._first_answer(key, now, scope, receive, send)
            return
        if refresh:  # an old answer goes out at once; the new one is made behind it, for the next readers
            self._tasks.add(task := asyncio.ensure_future(self._refresh(key, now, scope)))
            task.add_done_callback(self._tasks.discard)
        for message in held[1]:
            await send(message)

    async def _first_answer(
        self, key: tuple[str, bytes], now: float, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """The first reader of a page makes it; readers arriving meanwhile wait and get that answer (or, when it
        was not one to keep, make their own)."""
        waiting = self._first.get(key)
        if waiting is not None:
            await asyncio.shield(waiting)
            with self._lock:
                held = self._held.get(key)
            if held is None:
                await self.app(scope, receive, send)
                return
            for message in held[1]:
                await send(message)
            return
        self._first[key] = asyncio.get_running_loop().create_future()
        try:
            messages = await self._make(scope, receive, send)
            self._keep(key, now, messages)
        finally:
            self._first.pop(key).set_result(None)

    async def _make(self, scope: Scope, receive: Receive, send: Send | None) -> list[Message]:
        messages: list[Message] = []

        async def keep(message: Message) -> None:
            messages.append(message)
            if send is not None:
                await send(message)

        await self.app(scope, receive, keep)
        return messages

    async def _refresh(self, key: tuple[str, bytes], now: float, scope: Scope) -> None:
        async def no_body() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        try:
            messages = await self._make(dict(scope), no_body, None)
            if not self._keepable(messages):
                with self._lock:
                    self._held.pop(key, None)
            self._keep(key, now, messages)
        except Exception:  # the old answer stays; the next reader tries again
            log.exception("making %s again failed", key[0])
        finally:
            with self._lock:
                self._making.discard(key)

    def _keep(self, key: tuple[str, bytes], now: float, messages: list[Message]) -> None:
        if not self._keepable(messages):
            return
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
