"""The host's endpoints, each ``(state, request) -> Response``; ``ROUTES`` lists them for ``create_host_app``.
Those that read a body as it streams are coroutines; the others (which read ``host.db`` and the stores) are plain
functions, run in the thread pool so that a slow read never holds up the other requests.

Pages answer HTML; ``/api/`` answers JSON. A submission's whole record (reason, checks, build log, archive hash)
goes to its owner and the organizer only: to anyone else a submission of another entrant is "not found", the
answer an unknown number gets, so its existence is not told either (its public part is on the entrant's page).
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from arena.host import accounts, queue
from arena.host.accounts import AccountError, Principal, WrongCode
from arena.host.boards import Ranked, rank_of
from arena.host.render import page
from arena.host.server import (
    FORM_COOKIE,
    HEADERS,
    SESSION_COOKIE,
    HostApp,
    Refusal,
    check_form_csrf,
    client_address,
    competition_data,
    new_form_token,
    read_form,
    read_log,
    receive_archive,
)

__all__ = ["ROUTES"]


def _html(body: str, status: int = 200) -> Response:
    return Response(body, status, media_type="text/html; charset=utf-8", headers=HEADERS)


def _json(payload: Any, status: int = 200) -> Response:
    return JSONResponse(payload, status, headers=HEADERS)


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def _submission_id(request: Request) -> int:
    raw = str(request.path_params["sid"])
    if not raw.isdigit() or len(raw) > 12:
        raise Refusal(404, f"no submission {raw!r}")
    return int(raw)


def _own_submission(state: HostApp, principal: Principal | None, sid: int) -> queue.Submission:
    """Submission ``sid`` when ``principal`` may see it whole; else ``Refusal`` 404 (unknown and not yours alike)."""
    sub = queue.get(state.db, sid)
    if sub is None or principal is None or not principal.may_see(sub.entrant):
        raise Refusal(404, f"no submission {sid} of yours")
    return sub


def home(state: HostApp, request: Request) -> Response:
    data = competition_data(state)
    recent = queue.history(state.db, limit=20)
    owners = {row["name"]: row["owner"] for row in accounts.list_entrants(state.db)}
    return _html(page(state, request, "home.html", state.competition.name, recent=recent, owners=owners, **data))


def _leaderboard_rows(leaderboard: Any, subs: dict[str, queue.Submission]) -> list[dict[str, Any]] | None:
    if leaderboard is None:
        return None
    out = []
    for row in leaderboard.rows:
        sub = subs.get(row.player.partition("@")[0])
        out.append(
            {
                "rank": row.rank,
                "entrant": sub.entrant if sub else None,
                "submission": sub.id if sub else None,
                "player": row.player,
                "games": row.games,
                "wins": row.wins,
                "win_rate": row.win_rate,
                "ci": [row.ci_low, row.ci_high],
                "failed": row.failed,
            }
        )
    return out


def _points_rows(ranked: Ranked | None, subs: dict[str, queue.Submission]) -> list[dict[str, Any]] | None:
    """The points table as ``arena compete --json`` gives it, each row with its entrant and submission."""
    if ranked is None or ranked.points is None:
        return None
    out = []
    for standing in ranked.points:
        sub = subs.get(standing.entrant.partition("@")[0])
        row = standing.model_dump(mode="json")
        out.append({**row, "player": row.pop("entrant"), "entrant": sub.entrant if sub else None,
                    "submission": sub.id if sub else None})  # fmt: skip
    return out


def api_competition(state: HostApp, request: Request) -> Response:
    data = competition_data(state)
    spec = data["boards"]
    public, private = data["public"], data["private"]
    sets = []
    for index, info in enumerate(data["sets"]):
        board_spec = info["spec"]
        sets.append(
            {
                "name": info["name"],
                "points": info["points"],
                "boards": {"height": board_spec.height, "width": board_spec.width, "mines": board_spec.mines,
                           "rule": info["rule"]},
                "public": {"seed": info["public_seed"], "count": info["public_count"],
                           "tournament": public.leaderboards[index][1]},
                "private": {"count": info["private_count"], "seed": info["private_seed"],
                            "tournament": private.leaderboards[index][1] if private else None},
                "leaderboard": _leaderboard_rows(public.leaderboards[index][2], data["public_subs"]),
                "final": _leaderboard_rows(private.leaderboards[index][2], data["private_subs"]) if private else None,
            }
        )  # fmt: skip
    return _json(
        {
            "competition": data["competition"],
            "closed": data["closed"],
            "deadline": data["deadline"],
            "boards": {"height": spec.height, "width": spec.width, "mines": spec.mines, "rule": data["rule"]},
            "public": {"seed": data["public_seed"], "count": data["public_count"], "tournament": data["public_id"]},
            "private": {
                "count": data["private_count"],
                "seed_sha256": data["commitment"],
                "seed": data["private_seed"],
                "tournament": data["private_id"],
            },
            "leaderboard": _leaderboard_rows(data["public_leaderboard"], data["public_subs"]),
            "final": _leaderboard_rows(data["private_leaderboard"], data["private_subs"]) if data["closed"] else None,
            "sets": sets,
            "points": _points_rows(public, data["public_subs"]),
            "final_points": _points_rows(private, data["private_subs"]),
        }
    )


async def signin_form(state: HostApp, request: Request, message: str = "", status: int = 200) -> Response:
    token = new_form_token()
    response = _html(page(state, request, "signin.html", "Sign in", form_csrf=token, message=message), status)
    response.set_cookie(FORM_COOKIE, token, httponly=True, samesite="strict", secure=_secure(request), path="/")
    return response


async def signin(state: HostApp, request: Request) -> Response:
    fields = await read_form(request)
    check_form_csrf(request, fields, request.cookies.get(FORM_COOKIE))
    try:
        principal = await run_in_threadpool(state.check_token, request, fields.get("token", ""))
    except Refusal as refusal:
        return await signin_form(state, request, str(refusal), refusal.status)
    session, _ = await run_in_threadpool(lambda: accounts.make_session(state.db, principal))
    target = "/mine"
    response = RedirectResponse(target, 303, headers=HEADERS)
    response.set_cookie(
        SESSION_COOKIE, session, max_age=accounts.SESSION_SECONDS, httponly=True, samesite="strict",
        secure=_secure(request), path="/",
    )  # fmt: skip
    response.delete_cookie(FORM_COOKIE, path="/")
    return response


async def signout(state: HostApp, request: Request) -> Response:
    fields = await read_form(request)
    session = state.session(request)
    if session is not None:
        check_form_csrf(request, fields, session[1])
        accounts.end_session(state.db, request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/", 303, headers=HEADERS)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


async def signup_form(state: HostApp, request: Request, message: str = "", status: int = 200) -> Response:
    if state.host.invitation is None:
        raise Refusal(404, "this competition takes no sign-up: the organizer adds entrants")
    token = new_form_token()
    response = _html(page(state, request, "signup.html", "Sign up", form_csrf=token, message=message), status)
    response.set_cookie(FORM_COOKIE, token, httponly=True, samesite="strict", secure=_secure(request), path="/")
    return response


async def signup(state: HostApp, request: Request) -> Response:
    if state.host.invitation is None:
        raise Refusal(404, "this competition takes no sign-up: the organizer adds entrants")
    fields = await read_form(request)
    check_form_csrf(request, fields, request.cookies.get(FORM_COOKIE))
    # Its own count, apart from the sign-in's: wrong codes and wrong tokens are two guessing games.
    address = f"signup:{client_address(request)}"
    wait = state.throttle.attempt(address)
    if wait > 0:
        raise Refusal(429, f"too many wrong codes: try again in {wait:.0f} s", {"Retry-After": f"{wait:.0f}"})
    if state.closed() is not None:
        state.throttle.refund(address)
        raise Refusal(403, "the competition is closed")
    try:
        code, name, owner = fields.get("code", ""), fields.get("name", "").strip(), fields.get("owner", "")
        token = await run_in_threadpool(lambda: accounts.sign_up(state.db, code, state.host.invitation, name, owner))
    except AccountError as error:
        if not isinstance(error, WrongCode):
            state.throttle.refund(address)  # the code was right: a taken name is no guess
        return await signup_form(state, request, str(error), 400)
    state.throttle.refund(address)
    response = _html(page(state, request, "token.html", "Your token", token=token))
    response.delete_cookie(FORM_COOKIE, path="/")
    return response


def submit_form(state: HostApp, request: Request) -> Response:
    session = state.session(request)
    if session is None:
        return RedirectResponse("/signin", 303, headers=HEADERS)
    if session[0].organizer:
        raise Refusal(403, "the organizer's token does not submit: add an entrant (arena entrant add)")
    max_mb = f"{state.host.max_archive_mb:g}"
    return _html(page(state, request, "submit.html", "Submit", closed=state.closed(), max_mb=max_mb))


async def api_submit(state: HostApp, request: Request) -> Response:
    principal = await run_in_threadpool(lambda: state.principal(request, csrf=True))
    if principal is None:
        raise Refusal(401, "sign in first: a Bearer token, or the session of a signed-in page")
    if principal.organizer:
        raise Refusal(403, "the organizer's token does not submit: add an entrant (arena entrant add)")
    closed = state.closed()
    if closed is not None:
        raise Refusal(403, f"the competition closed at {closed}: no more submissions")
    sub, made = await receive_archive(state, request, principal)
    return _json({**sub.private(), "url": f"/s/{sub.id}", "duplicate": not made}, 201 if made else 200)


def api_submission(state: HostApp, request: Request) -> Response:
    principal = state.principal(request, csrf=False)
    sub = _own_submission(state, principal, _submission_id(request))
    return _json({**sub.private(), "events": [dict(e) for e in queue.events(state.db, sub.id)]})


def submission_page(state: HostApp, request: Request) -> Response:
    session = state.session(request)
    sub = _own_submission(state, session[0] if session else None, _submission_id(request))
    rows: list[tuple[str, Any, str]] = []  # each set's name, this submission's row there, its tournament
    if sub.public_played:
        # The leaderboard everyone reads (one build a second, shared with the home page), unless this submission is
        # not on it (an earlier one of its entrant): then its own rows.
        store = state.paths.public_store
        ranked = state.leaderboards.ranked(store, state.sets, queue.entrant_rows(state.db), private=False)
        if all(rank_of(leaderboard, sub.player) is None for _, _, leaderboard in ranked.leaderboards):
            ranked = state.leaderboards.ranked(store, state.sets, {sub.entrant: sub}, private=False)
        for board_set, tid, leaderboard in ranked.leaderboards:
            found = leaderboard.rows if leaderboard is not None else []
            row = next((r for r in found if r.player.partition("@")[0] == sub.player), None)
            if row is not None:
                rows.append((board_set.name, row, tid))
    return _html(
        page(
            state, request, "submission.html", f"{sub.entrant} #{sub.seq}", sub=sub, rows=rows,
            several=state.sets.several, events=queue.events(state.db, sub.id),
            log=read_log(state.paths.build_log(sub.id)), refresh=None if sub.state.final else 3,
        )
    )  # fmt: skip


def mine(state: HostApp, request: Request) -> Response:
    session = state.session(request)
    if session is None:
        return RedirectResponse("/signin", 303, headers=HEADERS)
    principal = session[0]
    if principal.organizer:
        subs = queue.history(state.db)
        return _html(page(state, request, "entrant.html", "Every submission", entrant="Every submission",
                          owner="the organizer's view", subs=subs, mine=True))  # fmt: skip
    return RedirectResponse(f"/e/{principal.name}", 303, headers=HEADERS)


def entrant_page(state: HostApp, request: Request) -> Response:
    name = str(request.path_params["name"])
    row = state.db.execute("SELECT name, owner FROM entrants WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise Refusal(404, f"no entrant {name!r}")
    session = state.session(request)
    mine_ = session is not None and session[0].may_see(name)
    subs = queue.history(state.db, name)
    return _html(page(state, request, "entrant.html", name, entrant=name, owner=row["owner"], subs=subs, mine=mine_))


ROUTES: list[tuple[str, Any, list[str]]] = [
    ("/", home, ["GET"]),
    ("/api/competition", api_competition, ["GET"]),
    ("/signin", signin_form, ["GET"]),
    ("/signin", signin, ["POST"]),
    ("/signout", signout, ["POST"]),
    ("/signup", signup_form, ["GET"]),
    ("/signup", signup, ["POST"]),
    ("/submit", submit_form, ["GET"]),
    ("/api/submissions", api_submit, ["POST"]),
    ("/api/submissions/{sid}", api_submission, ["GET"]),
    ("/s/{sid}", submission_page, ["GET"]),
    ("/mine", mine, ["GET"]),
    ("/e/{name}", entrant_page, ["GET"]),
]
