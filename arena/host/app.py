"""``arena host``'s web app: the routes of ``arena.host.routes`` over the shared state of ``arena.host.server``,
the pages of ``arena serve`` over the public store mounted beneath them, and one-line errors for everything else
(docs/hosting.md).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from arena.competition.spec import Loaded
from arena.host import queue, routes
from arena.host.accounts import AccountError
from arena.host.cache import MicroCache
from arena.host.db import HostPaths
from arena.host.render import ERROR_HEADINGS, page, static_file
from arena.host.server import HEADERS, HostApp, Refusal, wants_json
from arena.web.app import create_app

__all__ = ["create_host_app", "server_config"]

log = logging.getLogger("arena.host")


class BoardSetPages:
    """``arena serve``'s pages of the public store, and after the close those of the private boards' tournaments
    (one a board set) from the private store (their pages are under ``/t/PRIVATE_ID/``, and link only there or to
    the shared addresses). Before the close those tournaments are not found, like any other that is not there."""

    def __init__(
        self, public: ASGIApp, private: ASGIApp, prefixes: tuple[str, ...], closed: Callable[[], str | None]
    ) -> None:
        self.public, self.private, self.prefixes, self.closed = public, private, prefixes, closed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path.startswith(self.prefixes):
            closed = await run_in_threadpool(self.closed)
            if closed is not None:
                await self.private(scope, receive, send)
                return
        await self.public(scope, receive, send)


def create_host_app(loaded: Loaded, paths: HostPaths, wake: Callable[[], None] | None = None) -> Starlette:
    """The app of the hosted competition ``loaded`` kept in ``paths``; ``wake`` is told of each new submission."""
    state = HostApp(loaded, paths, wake)

    def guard(endpoint: Callable[[HostApp, Request], Any]) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                if inspect.iscoroutinefunction(endpoint):
                    return await endpoint(state, request)
                return await run_in_threadpool(endpoint, state, request)
            except Refusal as refusal:
                return error(request, refusal.status, str(refusal), refusal.headers)
            except (AccountError, queue.QueueError) as problem:
                return error(request, getattr(problem, "status", 400), str(problem))

        return run

    def error(request: Request, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        headers = {**HEADERS, **(headers or {})}
        if wants_json(request):
            return JSONResponse({"error": message, "status": status}, status, headers=headers)
        heading = ERROR_HEADINGS.get(status, "Error")
        html = page(
            state, request, "error.html", f"{status} {heading}", status=status, heading=heading, message=message
        )
        return Response(html, status, media_type="text/html; charset=utf-8", headers=headers)

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        if status == 405:
            return error(request, 405, f"{request.method} is not taken at {request.url.path}")
        if status == 404:
            return error(request, 404, f"no page at {request.url.path}")
        return error(request, status, str(getattr(exc, "detail", "")) or "bad request")

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("error while serving %s", request.url.path)
        return error(request, 500, f"the server could not answer: {type(exc).__name__}")

    async def static(request: Request) -> Response:
        found = static_file(request.path_params["name"])
        if found is None:
            return error(request, 404, "no such file")
        body, media = found
        return Response(body, media_type=media, headers={**HEADERS, "Cache-Control": "max-age=300"})

    private = tuple(f"/t/{tid}/" for tid in state.sets.ids(True))
    serve = BoardSetPages(create_app(paths.public_store), create_app(paths.private_store), private, state.closed)
    table: list[tuple[str, Any, list[str]]] = routes.ROUTES
    mounted = [Route(path, guard(endpoint), methods=methods) for path, endpoint, methods in table]
    mounted += [Route("/host/static/{name}", static), Mount("/", serve)]
    handlers: dict[Any, Callable[..., Any]] = {HTTPException: http_error, Exception: server_error}
    middleware = [Middleware(MicroCache)]
    if state.host.trusted_proxies:  # outermost: everything below sees the client the proxy forwarded
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        middleware.insert(0, Middleware(ProxyHeadersMiddleware, trusted_hosts=list(state.host.trusted_proxies)))
    app = Starlette(routes=mounted, exception_handlers=handlers, middleware=middleware)
    app.state.host = state
    return app


def server_config(app: ASGIApp, **options: Any) -> Any:
    """uvicorn's settings for the host's app: its own proxy-header handling off (uvicorn believes
    ``X-Forwarded-For`` from 127.0.0.1 by default, which would let anyone on this machine, or behind any local
    proxy, choose their address); the app believes only ``[host] trusted_proxies``."""
    import uvicorn

    return uvicorn.Config(app, proxy_headers=False, **{"log_level": "warning", "lifespan": "off", **options})
