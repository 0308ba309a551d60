"""``arena serve``'s web app (Starlette): the pages of ``arena.web.pages`` over a results store, read-only.

Every page is a GET; nothing writes. Each request opens the store read-only (``data.reading``), so the app
works while a tournament commits to the same file and follows a store replaced under it. ``?format=json``
gives a page's data instead of its HTML. A request for something that does not exist is a 404 page, a
malformed parameter a 400 page, an unreadable store a 503 page saying why; an unexpected error is a 500
page with one line, never a traceback (the traceback goes to the server's log).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from arena.web import data, follow, pages, pages_more, player_pages, sweep_page
from arena.web.links import ServeLinks
from arena.web.render import render_error, render_page, static_files

__all__ = ["create_app"]

log = logging.getLogger("arena.web")

#: Pages may load only what the app serves; the replay viewer's script and style are inline.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
_LINKS = ServeLinks()


def _clean(value: Any) -> Any:
    """JSON without NaN (not JSON): as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _json(payload: Any, status: int = 200) -> Response:
    body = json.dumps(_clean(payload), default=str, allow_nan=False, ensure_ascii=False)
    return Response(body, status, media_type="application/json", headers=SECURITY_HEADERS)


def _wants_json(request: Request) -> bool:
    fmt = request.query_params.get("format", "html")
    if fmt not in ("html", "json"):
        raise data.BadRequest(f"format must be html or json, not {fmt!r}")
    return fmt == "json"


def _error(request: Request, status: int, message: str) -> Response:
    if request.query_params.get("format") == "json":
        return _json({"error": message, "status": status}, status)
    return HTMLResponse(render_error(status, message, _LINKS), status, headers=SECURITY_HEADERS)


def _int(request: Request, name: str, value: str, low: int = 0) -> int:
    try:
        number = int(value)
    except ValueError:
        raise data.BadRequest(f"{name} must be a whole number, not {value!r}") from None
    if number < low:
        raise data.BadRequest(f"{name} must be {low} or more, not {number}")
    return number


def create_app(store: str | Path | None = None) -> Starlette:
    """The app over the store at ``store`` (default: the user's store, as the CLI finds it)."""
    path = Path(store) if store is not None else None

    def page(build: Callable[..., pages.Page]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            try:
                as_json = _wants_json(request)
                with data.reading(path) as db:
                    built = build(db, request)
                    if built.template == "game.html":
                        pass  # a replay shows one stored game, which never changes: it does not follow the store
                    elif "tid" in request.path_params:
                        built.watch = _LINKS.live_status(tid(request))
                        built.sig = data.live_status(db, tid(request)).sig
                    else:
                        built.watch, built.sig = "/changes", data.store_signature(db)
                if as_json:
                    return _json(built.data)
                return HTMLResponse(
                    render_page(built, _LINKS), headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"}
                )
            except data.NotFound as error:
                return _error(request, 404, str(error))
            except data.BadRequest as error:
                return _error(request, 400, str(error))
            except data.Unavailable as error:
                return _error(request, 503, str(error))

        return endpoint

    def tid(request: Request) -> str:
        return str(request.path_params["tid"])

    def home(db: Any, request: Request) -> pages.Page:
        return pages.home_page(db, _LINKS)

    def sweeps(db: Any, request: Request) -> pages.Page:
        return sweep_page.sweeps_page(db, _LINKS)

    def leaderboard(db: Any, request: Request) -> pages.Page:
        versions = request.query_params.get("versions", "latest")
        if versions not in ("latest", "all"):
            raise data.BadRequest(f"versions must be latest or all, not {versions!r}")
        return pages.leaderboard_page(db, tid(request), _LINKS, all_versions=versions == "all")

    def player(db: Any, request: Request) -> pages.Page:
        return player_pages.player_page(db, tid(request), request.path_params["slug"], _LINKS)

    def games(db: Any, request: Request) -> pages.Page:
        outcome = request.query_params.get("outcome", "all")
        number = _int(request, "page", request.query_params.get("page", "1"), 1)
        return player_pages.games_page(db, tid(request), request.path_params["slug"], outcome, number, _LINKS)

    def game(db: Any, request: Request) -> pages.Page:
        board = _int(request, "board", request.path_params["board"])
        slugs = [request.path_params["slug"]]
        if "other" in request.path_params:
            slugs.append(request.path_params["other"])
            if slugs[0] == slugs[1]:
                raise data.BadRequest(f"side by side needs two different players, got {slugs[0]!r} twice")
        return pages.game_page(db, tid(request), board, slugs, _LINKS)

    def diff(db: Any, request: Request) -> pages.Page:
        return pages.diff_page(db, tid(request), request.path_params["a"], request.path_params["b"], _LINKS)

    def versions(db: Any, request: Request) -> pages.Page:
        wanted = request.path_params["name"]
        names = {data.player_slug(p.name): p.name for _, p in db.players_everywhere()}
        return pages_more.versions_page(db, names.get(wanted, wanted), _LINKS)

    def board_of(db: Any, request: Request) -> pages.Page:
        board = _int(request, "board", request.path_params["board"])
        return pages_more.board_page(db, tid(request), board, _LINKS)

    def pairs(db: Any, request: Request) -> pages.Page:
        return pages_more.pairs_page(db, tid(request), _LINKS)

    def match(db: Any, request: Request) -> pages.Page:
        query = {k: v for k, v in request.query_params.items() if k in follow.MATCH_DEFAULTS}
        return follow.match_page(db, tid(request), _LINKS, query)

    def convergence(db: Any, request: Request) -> pages.Page:
        return follow.convergence_page(db, tid(request), _LINKS)

    def download(request: Request) -> Response:
        name = request.path_params["file"]
        try:
            with data.reading(path) as db:
                t = tid(request)
                data.tournament(db, t)
                if name == "leaderboard.csv":
                    body, media = pages_more.leaderboard_csv(db, t), "text/csv; charset=utf-8"
                elif name == "leaderboard.json":
                    body = json.dumps(_clean(data.leaderboard(db, t).model_dump()), indent=2, default=str)
                    media = "application/json"
                elif name == "games.csv":
                    body, media = pages_more.games_csv(db, t), "text/csv; charset=utf-8"
                else:
                    return _error(request, 404, f"no file {name!r} here")
        except data.NotFound as error:
            return _error(request, 404, str(error))
        except data.Unavailable as error:
            return _error(request, 503, str(error))
        disposition = f'attachment; filename="{t}-{name}"'
        headers = {**SECURITY_HEADERS, "Content-Disposition": disposition, "Cache-Control": "no-cache"}
        return Response(body, media_type=media, headers=headers)

    def live(request: Request) -> Response:
        try:
            with data.reading(path) as db:
                return _json(data.live_status(db, tid(request)).as_json())
        except data.NotFound as error:
            return _json({"error": str(error), "status": 404}, 404)
        except data.Unavailable as error:
            return _json({"error": str(error), "status": 503}, 503)

    def changes(request: Request) -> Response:
        try:
            with data.reading(path) as db:
                return _json({"sig": data.store_signature(db)})
        except data.Unavailable as error:
            return _json({"error": str(error), "status": 503}, 503)

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        files = static_files()
        if name not in files:
            return _error(request, 404, f"no file {name!r} here")
        media = _TYPES.get(Path(name).suffix, "application/octet-stream")
        return Response(files[name], media_type=media, headers={**SECURITY_HEADERS, "Cache-Control": "max-age=300"})

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        detail = getattr(exc, "detail", "") or ""
        if status == 405:
            return _error(request, 405, "this server only shows pages: it takes GET requests only")
        if status == 404:
            return _error(request, 404, f"no page at {request.url.path}")
        return _error(request, status, str(detail))

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("error while serving %s", request.url.path)
        return _error(
            request,
            500,
            f"the page could not be made: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
        )

    routes = [
        Route("/", page(home)),
        Route("/sweeps/", page(sweeps)),
        Route("/changes", changes),
        Route("/t/{tid}/", page(leaderboard)),
        Route("/t/{tid}/live", live),
        Route("/t/{tid}/p/{slug}/", page(player)),
        Route("/t/{tid}/p/{slug}/games", page(games)),
        Route("/t/{tid}/g/{board}/{slug}", page(game)),
        Route("/t/{tid}/g/{board}/{slug}/vs/{other}", page(game)),
        Route("/t/{tid}/diff/{a}/{b}/", page(diff)),
        Route("/t/{tid}/pairs/", page(pairs)),
        Route("/t/{tid}/match/", page(match)),
        Route("/t/{tid}/convergence/", page(convergence)),
        Route("/t/{tid}/b/{board}/", page(board_of)),
        Route("/t/{tid}/{file:str}", download),
        Route("/v/{name}/", page(versions)),
        Route("/static/{name}", static),
    ]
    handlers: dict[Any, Callable[..., Any]] = {HTTPException: not_found, Exception: server_error}
    return Starlette(routes=routes, exception_handlers=handlers)
