"""What ``arena host``'s routes share: the app's state (``HostApp``: the competition, its folder, a connection per
thread, the throttle), who is asking (a ``Bearer`` token or a browser session), the CSRF checks, receiving an
archive as it streams in, and the competition page's data.

Who may do what: anyone sees the competition page, the leaderboards, each entrant's history and the public boards'
games; an entrant (a token, or a browser session made from one) submits and sees their own submissions whole
(state, reason, build log, checks); the organizer's token sees every submission. Forms and the upload carry the
session's CSRF token (compared in constant time) and, when the browser sends one, an ``Origin`` of this server;
the session cookie is ``HttpOnly`` and ``SameSite=Strict``.
"""

from __future__ import annotations

import hmac
import secrets
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
from starlette.requests import ClientDisconnect, Request

from arena.competition.spec import Loaded
from arena.host import accounts, queue
from arena.host.accounts import Principal, Throttle, VerifiedTokens
from arena.host.archive import ArchiveRefused, archive_rules, read_archive
from arena.host.boards import BoardSets, LeaderboardCache, closed_at, commitment, private_seed
from arena.host.db import HostPaths, connect

__all__ = [
    "HostApp",
    "Refusal",
    "check_form_csrf",
    "client_address",
    "competition_data",
    "read_form",
    "read_log",
    "receive_archive",
]

SESSION_COOKIE = "arena_session"
FORM_COOKIE = "arena_form"
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
#: Bytes a form post may have (a token, a name, an owner).
FORM_BYTES = 8192
#: The build log's last bytes a page shows.
LOG_BYTES = 64 * 1024


class Refusal(Exception):
    """A request refused: its status and one line."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.headers = status, headers or {}


class HostApp:
    """The state the endpoints share: the competition, its folder, one connection per thread, the throttle."""

    def __init__(self, loaded: Loaded, paths: HostPaths, wake: Callable[[], None] | None = None) -> None:
        assert loaded.competition.host is not None
        self.loaded, self.paths, self.wake = loaded, paths, wake or (lambda: None)
        self.competition = loaded.competition
        self.host = loaded.competition.host
        self.throttle = Throttle()
        self.verified = VerifiedTokens()
        self.leaderboards = LeaderboardCache()
        self._local = threading.local()
        self.sets = BoardSets(self.competition, private_seed(self.db))

    @property
    def db(self) -> sqlite3.Connection:
        held = getattr(self._local, "db", None)
        if held is None:
            held = self._local.db = connect(self.paths)
        return held

    def closed(self) -> str | None:
        return closed_at(self.db, self.host)

    # -- who is asking

    def principal(self, request: Request, *, csrf: bool) -> Principal | None:
        """The principal of a ``Bearer`` token (throttled; ``Refusal`` 401 when wrong) or of the session cookie
        (whose CSRF token must come with an unsafe request when ``csrf``); None for nobody."""
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Refusal(401, "the Authorization header must be 'Bearer TOKEN'")
            return self.check_token(request, token.strip())
        cookie = request.cookies.get(SESSION_COOKIE)
        if not cookie:
            return None
        found = accounts.session_principal(self.db, cookie)
        if found is None:
            return None
        principal, session_csrf = found
        if csrf:
            given = request.headers.get("x-csrf-token", "")
            if not hmac.compare_digest(given.encode(), session_csrf.encode()):
                raise Refusal(403, "missing or wrong CSRF token: reload the page and try again")
            _same_origin(request)
        return principal

    def check_token(self, request: Request, token: str) -> Principal:
        """The principal of ``token``; ``Refusal`` 401 when wrong, 429 while its address or key must wait. Each
        try is counted before the token is checked and refunded when it proves right (``Throttle``). A token this
        server proved lately is no guess: it passes without the throttle, so a guesser hammering an address or a
        key cannot lock out the entrant whose token it is, nor can that entrant's own parallel requests."""
        keys = [f"ip:{client_address(request)}"]
        key_id = accounts.key_id_of(token)
        if key_id is not None:
            if self.verified.holds(key_id, token.strip()):  # proved lately: no guess, so not counted or slowed
                principal = accounts.authenticate(self.db, token, self.verified)
                if principal is not None:
                    return principal
            keys.append(f"key:{key_id}")
        wait = self.throttle.attempt(*keys)
        if wait > 0:
            raise Refusal(429, f"too many wrong tokens: try again in {wait:.0f} s", {"Retry-After": f"{wait:.0f}"})
        principal = accounts.authenticate(self.db, token, self.verified)
        if principal is None:
            raise Refusal(401, "wrong or revoked token")
        self.throttle.refund(*keys)
        return principal

    def session(self, request: Request) -> tuple[Principal, str] | None:
        cookie = request.cookies.get(SESSION_COOKIE)
        return accounts.session_principal(self.db, cookie) if cookie else None


def client_address(request: Request) -> str:
    """The address a request came from: the peer's, or, behind a proxy named in ``[host] trusted_proxies``, the
    one that proxy forwarded (``create_host_app`` puts it in the request's scope; nobody else is believed)."""
    return request.client.host if request.client else "?"


def _same_origin(request: Request) -> None:
    origin = request.headers.get("origin")
    if origin and origin != "null":
        host = request.headers.get("host", "")
        if urlsplit(origin).netloc != host:
            raise Refusal(403, "this request came from another site's page")


async def read_form(request: Request) -> dict[str, str]:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_BYTES:
            raise Refusal(413, f"a form may have at most {FORM_BYTES} bytes")
    fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {k: v[0] for k, v in fields.items()}


def check_form_csrf(request: Request, fields: dict[str, str], expected: str | None) -> None:
    given = fields.get("csrf", "")
    if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
        raise Refusal(403, "missing or wrong CSRF token: reload the form and try again")
    _same_origin(request)


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def new_form_token() -> str:
    return secrets.token_urlsafe(24)


async def receive_archive(state: HostApp, request: Request, principal: Principal) -> tuple[queue.Submission, bool]:
    """Read the request's body as an archive, checked as it streams in (``read_archive``), keep it under its
    SHA-256, and record the submission. ``Refusal`` (nothing kept) at the first broken rule."""
    assert principal.name is not None
    name = principal.name
    limits = archive_rules(state.host)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.max_bytes:
        raise Refusal(413, f"size: the archive is larger than {limits.max_bytes / 1024 / 1024:g} MiB")
    recent = await anyio.to_thread.run_sync(lambda: queue.received_today(state.db, name))
    if recent >= state.host.per_day:  # said before the body is read; ``queue.receive`` holds the limit
        raise Refusal(429, f"the limit is {state.host.per_day} submissions a day per entrant; try again later")
    chunks = request.stream().__aiter__()

    async def next_chunk() -> bytes:
        try:
            return bytes(await chunks.__anext__())
        except StopAsyncIteration:
            return b""

    def pull() -> bytes:
        return anyio.from_thread.run(next_chunk)

    incoming = state.paths.incoming / f"{secrets.token_hex(8)}.part"
    try:
        with incoming.open("wb") as sink:
            received = await anyio.to_thread.run_sync(read_archive, pull, limits, sink)
        final = state.paths.archive(received.sha256)
        if final.exists():
            incoming.unlink()
        else:
            incoming.chmod(0o400)
            incoming.replace(final)
    except ArchiveRefused as refused:
        raise Refusal(refused.status, str(refused)) from None
    except ClientDisconnect:
        raise Refusal(400, "format: the upload was cut off before its end") from None
    finally:
        incoming.unlink(missing_ok=True)

    def record() -> tuple[queue.Submission, bool]:
        return queue.receive(state.db, name, received, per_day=state.host.per_day, closed=state.closed())

    submission, made = await anyio.to_thread.run_sync(record)
    if made:
        state.wake()
    return submission, made


def read_log(path: Path) -> str:
    """The build log's last ``LOG_BYTES`` (text, shown escaped)."""
    if not path.exists():
        return ""
    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        handle.seek(max(0, size - LOG_BYTES))
        text = handle.read().decode("utf-8", "replace")
    return ("… (the start is cut)\n" if size > LOG_BYTES else "") + text


def competition_data(state: HostApp) -> dict[str, Any]:
    """The competition page's data (and ``/api/competition``): the private seed only once closed. Each side
    (public, private) is a ``Ranked``: every set's leaderboard, and with several sets the points table."""
    closed = state.closed()
    sets = state.sets
    public_subs = queue.entrant_rows(state.db)
    public = state.leaderboards.ranked(state.paths.public_store, sets, public_subs, private=False)
    first = sets.sets[0]
    data: dict[str, Any] = {
        "competition": state.competition.name,
        "closed": closed,
        "deadline": state.host.deadline.strftime("%Y-%m-%d %H:%M UTC") if state.host.deadline else None,
        "several": sets.several,
        "sets": [
            {
                "name": s.name,
                "points": s.points,
                "spec": s.spec,
                "rule": s.first_click.value,
                "public_seed": s.seed,
                "public_count": sets.count_of(i, False),
                "private_count": sets.count_of(i, True),
                "private_seed": sets.seed_of(i, True) if closed is not None else None,
            }
            for i, s in enumerate(sets.sets)
        ],
        "boards": first.spec,
        "rule": first.first_click.value,
        "public_seed": first.seed,
        "public_count": sets.public_count,
        "private_count": sets.private_count,
        "commitment": commitment(sets.seed),
        "public_id": sets.public_id,
        "public": public,
        "public_leaderboard": public.leaderboard,
        "public_subs": {s.player: s for s in public_subs.values()},
        "private": None,
        "private_leaderboard": None,
        "private_subs": {},
        "private_seed": None,
        "private_id": None,
    }
    if closed is not None:
        private_subs = queue.entrant_rows(state.db, private=True)
        private = state.leaderboards.ranked(state.paths.private_store, sets, private_subs, private=True)
        data["private_seed"] = sets.seed
        data["private_id"] = sets.private_id
        data["private_subs"] = {s.player: s for s in private_subs.values()}
        data["private"] = private
        data["private_leaderboard"] = private.leaderboard
    return data
