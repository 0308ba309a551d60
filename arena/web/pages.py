"""Each kind of page as a value: its template, what the template shows, and its data as JSON.

The served app and the static site both build their pages here and render them with the same templates
(``arena.web.render``); only the ``Links`` differ. The JSON of a page has the shape of the CLI's ``--json``
where the CLI shows the same data: the leaderboard is ``arena leaderboard --json``, a player's losses
``arena losses --json``, its failures an entry of ``arena errors --json``, a comparison ``arena diff --json``,
the tournaments ``arena leaderboard --list --json`` with a few fields more.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from arena.analysis.losses import CLASS_MEANING
from arena.analysis.replay import ReplayError, replay, replay_payload
from arena.outcome import FAILURES, Outcome
from arena.results.store import Store
from arena.web import data, judging
from arena.web.links import Links

__all__ = [
    "Page",
    "diff_page",
    "game_page",
    "games_page",
    "home_page",
    "leaderboard_page",
    "player_page",
    "viewer_page",
]

#: A player whose paired test against the leader gives p at or above this is marked tied with the leader.
TIE_P = 0.05
#: A tournament's files, served and in a site: the leaderboard (CSV, and ``arena leaderboard --json``) and every
#: game as ``arena export --format csv`` writes it.
DOWNLOADS = ("leaderboard.csv", "leaderboard.json", "games.csv")
#: Boards listed per class of loss on a player's page (the games list has them all).
BOARDS_SHOWN = 40


@dataclass
class Page:
    """A page to render: ``template`` with ``context``, and ``data`` for ``?format=json``."""

    template: str
    title: str
    context: dict[str, Any]
    data: Any
    live: bool = False
    crumbs: list[tuple[str, str | None]] = field(default_factory=list)
    #: Served pages only: the address that says whether what the page shows has changed, and its answer now.
    watch: str | None = None
    sig: str = ""


def _crumbs(links: Links, tid: str | None = None, label: str = "", *more: tuple[str, str | None]) -> list[Any]:
    out: list[tuple[str, str | None]] = [("tournaments", links.home())]
    if tid is not None:
        out.append((label or tid, links.leaderboard(tid)))
    out.extend(more)
    return out


def _board_label(meta: dict[str, Any]) -> str:
    return f"{meta['difficulty']} ({meta['height']}x{meta['width']}, {meta['mines']} mines)"


def _options(row: dict[str, Any]) -> dict[str, Any]:
    value = row.get("options") or {}
    return dict(value) if isinstance(value, dict) else {}


def _purpose(row: dict[str, Any]) -> str:
    """What a tournament is for when it is not the ordinary one of its boards (``match A vs B``), from the config
    of its latest run; "" for the ordinary one."""
    try:
        config = json.loads(row.get("config") or "{}")
    except ValueError:
        return ""
    return str(config.get("purpose") or "") if isinstance(config, dict) else ""


def home_page(db: Store, links: Links, only: Collection[str] | None = None, points_href: str | None = None) -> Page:
    """Every stored tournament (or those in ``only``), the one being played marked live; ``points_href``: the
    competition's points table, when the site is a competition's of several board sets."""
    infos = [info for info in data.tournaments(db) if only is None or info.id in only]
    rows = []
    for info in infos:
        r = info.row
        rows.append(
            {
                "id": info.id,
                "href": links.leaderboard(info.id),
                "board": _board_label(r),
                "rule": r["rule"],
                "seed": r["seed"],
                "boards": r["games"],
                "players": info.players,
                "stored": r["rows_stored"],
                "expected": info.expected,
                "last": (info.last or r["updated"] or "").replace("T", " ")[:19],
                "live": info.live,
                "incomplete": info.incomplete,
                "purpose": _purpose(r),
                "match_href": links.match(info.id) if len(info.players) == 2 else None,
            }
        )
    # Latest activity first: the order of the column the reader sees (the store's own order is by runs).
    rows.sort(key=lambda row: row["last"], reverse=True)
    has_sweeps = bool(_sweeps(db, only)) if infos else False
    # A static site names the store's file, not where it was on the machine that wrote the site.
    store = str(db.path) if links.live else db.path.name
    context = {"rows": rows, "store": store, "has_sweeps": has_sweeps, "points_href": points_href}
    live = links.live and any(info.live for info in infos)
    return Page("tournaments.html", "Tournaments", context, [i.as_json() for i in infos], live, [])


def tied_with_leader(board: Any) -> set[str]:
    """The players the paired test cannot tell from the leader (p at or above ``TIE_P``), the leader included."""
    if not board.rows:
        return set()
    tied = {board.rows[0].player}
    for row in board.rows[1:]:
        if row.p_value is not None and row.p_value >= TIE_P:
            tied.add(row.player)
    return tied


def tournament_facts(meta: dict[str, Any]) -> dict[str, Any]:
    """What a tournament was: its limits, whether bots ran in the sandbox, its isolation, from the config of its
    latest run as the store keeps it."""
    try:
        config = json.loads(meta.get("config") or "{}")
    except ValueError:
        config = {}
    limits = config.get("limits") or {}
    return {
        "move_time": limits.get("move_time"),
        "game_time": limits.get("game_time"),
        "memory_mb": limits.get("memory_mb"),
        "clock": limits.get("clock"),
        "sandbox": config.get("sandbox"),
        "isolation": config.get("isolation"),
        "move_limit": config.get("move_limit"),
        "created": (meta.get("created") or "").replace("T", " ")[:19],
    }


def _interval_scale(rows: list[Any]) -> tuple[float, float]:
    """The win-rate axis of the leaderboard's interval bars: the intervals' span, widened to round tens."""
    if not rows:
        return 0.0, 1.0
    low = min(r.ci_low for r in rows)
    high = max(r.ci_high for r in rows)
    low = math.floor(low * 10) / 10
    high = math.ceil(high * 10) / 10
    if high - low < 0.1:
        high = min(1.0, low + 0.1)
        low = high - 0.1
    return low, high


def leaderboard_page(db: Store, tid: str, links: Links, *, all_versions: bool = False) -> Page:
    """``arena leaderboard``'s every figure, its intervals drawn, each player linked; ``all_versions``: a row for
    every version of each player, as ``--all-versions``."""
    meta = data.tournament(db, tid)
    board = data.leaderboard(db, tid, all_versions=all_versions)
    status = data.live_status(db, tid)
    by_key = {row["player"]: (slug, row) for slug, row in data.players(db, tid).items()}
    low, high = _interval_scale(board.rows)
    ties = tied_with_leader(board)
    leader_slug = by_key[board.rows[0].player][0] if board.rows else None
    rows = []
    for r in board.rows:
        slug, info = by_key.get(r.player, (data.player_slug(r.player), {}))

        def x(v: float) -> float:
            return round(100 * (v - low) / (high - low), 3)

        rows.append(
            {
                "r": r,
                "slug": slug,
                "href": links.player(tid, slug),
                "name": info.get("name", r.player),
                "options": _options(info),
                "bar": {"x1": x(r.ci_low), "x2": x(r.ci_high), "x": x(r.win_rate)},
                "tied": r.player in ties and r.rank != 1,
                "history": links.history(data.player_slug(info.get("name", r.player)))
                if r.version or info.get("source")
                else None,
                "diff_href": links.diff(tid, leader_slug, slug) if leader_slug and slug != leader_slug else None,
                "failed_href": (links.games(tid, slug, "failed", 1) or links.player(tid, slug) + "#failures")
                if r.failed
                else None,
            }
        )
    ticks = [round(low + i * (high - low) / 4, 4) for i in range(5)]
    context = {
        "board": board,
        "meta": meta,
        "rows": rows,
        "scale": {"low": low, "high": high, "ticks": [(round(100 * (t - low) / (high - low), 3), t) for t in ticks]},
        "status": status,
        "json_href": None if all_versions else links.json("leaderboard", tid),
        "all_versions": all_versions,
        "facts": tournament_facts(meta),
        "generated": getattr(links, "generated", None),
        "pairs_href": links.pairs(tid),
        "convergence_href": links.convergence(tid),
        "match_href": links.match(tid) if len(board.rows) == 2 else None,
        "downloads": [
            (name, links.download(tid, name)) for name in ("leaderboard.csv", "leaderboard.json", "games.csv")
        ],
        "jump": links.board(tid, 0).replace("/b/0/", "/b/BOARD/") if links.board(tid, 0) else None,
        "versions_href": links.versions(tid),
        "latest_href": links.leaderboard(tid),
    }
    crumbs = _crumbs(links, tid, _board_label(meta))
    return Page("leaderboard.html", board.title, context, board.model_dump(), links.live and status.live, crumbs)


def _loss_context(report: Any, tid: str, slug: str, links: Links) -> dict[str, Any] | str:
    if isinstance(report, str):
        return report
    if isinstance(report, judging.Pending):
        return {"pending": report}
    classes = report.classes
    most = max(classes.values(), default=0) or 1
    boards = report.boards
    rows = []
    for name, count in classes.items():
        if name == "unanalysed" and not count:
            continue
        shown = [(b, links.game(tid, b, slug)) for b in boards[name][:BOARDS_SHOWN]]
        rows.append(
            {
                "name": name,
                "count": count,
                "meaning": CLASS_MEANING[name],
                "width": round(100 * count / most, 2),
                "boards": shown,
                "more": max(0, count - len(shown)),
            }
        )
    expected = report.expected_losses
    top = max(expected["high"], expected["observed"], 1.0) * 1.1

    def x(v: float) -> float:
        return round(100 * v / top, 3)

    calibration = {
        **expected,
        "x_low": x(expected["low"]),
        "x_high": x(expected["high"]),
        "x_expected": x(expected["expected"]),
        "x_observed": x(expected["observed"]),
        "top": top,
    }
    return {
        "rows": rows,
        "losses": report.losses,
        "games": len(report.games),
        "calibration": calibration,
        "guesses": report.guesses_per_game,
        "regret": report.regret["total"],
    }


def player_page(db: Store, tid: str, slug: str, links: Links, *, not_judged: str | None = None) -> Page:
    """One player of a tournament: outcomes, losses by class with the expected losses, failures, its games.
    ``not_judged``: the losses are not judged, for this reason (a static site of a large tournament)."""
    meta = data.tournament(db, tid)
    info = data.find_player(db, tid, slug)
    key = info["player"]
    board = data.leaderboard(db, tid)
    row = next((r for r in board.rows if r.player == key), None)
    older = False
    if row is None:  # an older version: the leaderboard shows the latest; its own row is among every version's
        row = next((r for r in data.leaderboard(db, tid, all_versions=True).rows if r.player == key), None)
        older = row is not None
    failures = data.failures(db, tid, key)
    losses = not_judged if not_judged is not None else judging.losses(db, tid, key, background=links.live)
    counts = {o.value: failures.outcomes.get(o.value, 0) for o in Outcome}
    total = sum(counts.values()) or 1
    outcome_bars = [
        {"name": name, "count": n, "width": round(100 * n / total, 3)}
        for name, n in counts.items()
        if n or name in ("won", "lost")
    ]
    failure_rows = [{"f": f, "href": links.game(tid, f.board, slug)} for f in failures.failures]
    others = [
        {"key": other["player"], "href": links.diff(tid, slug, other_slug)}
        for other_slug, other in data.players(db, tid).items()
        if other_slug != slug
    ]
    status = data.live_status(db, tid)
    context = {
        "meta": meta,
        "tid": tid,
        "slug": slug,
        "key": key,
        "info": info,
        "options": _options(info),
        "row": row,
        "older": older,
        "versions_href": links.versions(tid),
        "boards": board.config.boards,
        "outcomes": outcome_bars,
        "failures": failures,
        "failure_rows": failure_rows,
        "losses": _loss_context(losses, tid, slug, links),
        "filters": [(name, links.games(tid, slug, name, 1)) for name in data.OUTCOME_FILTERS],
        "filter_counts": {
            "all": sum(counts.values()),
            "won": counts["won"],
            "lost": counts["lost"],
            "failed": sum(counts[o.value] for o in FAILURES),
        },
        "others": others,
        "status": status,
    }
    payload = {
        "tournament": tid,
        "player": key,
        "name": info["name"],
        "version": info["version"],
        "source": info["source"],
        "options": _options(info),
        "leaderboard": row.model_dump() if row is not None else None,
        "outcomes": failures.outcomes,
        "losses": (
            {"unavailable": losses}
            if isinstance(losses, str)
            else {"pending": True, "games": losses.games, "since": losses.started}
            if isinstance(losses, judging.Pending)
            else losses.as_json()
        ),
        "failures": failures.model_dump(),
    }
    crumbs = _crumbs(links, tid, _board_label(meta), (key, None))
    live = links.live and (status.live or isinstance(losses, judging.Pending))
    return Page("player.html", f"{key} · {_board_label(meta)}", context, payload, live, crumbs)


def _loss_classes(db: Store, tid: str, key: str, links: Links, judge: bool) -> dict[int, str] | str:
    """Each lost or failed board's class of loss (``arena losses``), or why it is not given here."""
    if not judge:
        return "not judged for this site"
    report = judging.losses(db, tid, key, background=links.live)
    if isinstance(report, str):
        return report
    if isinstance(report, judging.Pending):
        return "being judged: reload in a moment"
    return {board: name for name, boards in report.boards.items() for board in boards}


def games_page(
    db: Store,
    tid: str,
    slug: str,
    outcome: str,
    page: int,
    links: Links,
    per_page: int = 50,
    *,
    judge: bool = True,
) -> Page:
    """One page of a player's games, filtered by outcome, each board linking to its replay; a failed game shows
    its error, a lost one its class of loss (``judge=False``: not judged, a large site)."""
    meta = data.tournament(db, tid)
    key = data.find_player(db, tid, slug)["player"]
    found = data.games_page(db, tid, key, outcome, page, per_page)
    classes: dict[int, str] | str = {}
    if outcome in ("lost", "failed") or any(g.outcome.value == "lost" for g in found.rows):
        classes = _loss_classes(db, tid, key, links, judge)
    rows = [
        {
            "g": g,
            "href": links.game(tid, g.board, slug),
            "why": (
                g.error
                if g.outcome.value != "won" and g.outcome.value != "lost"
                else (classes.get(g.board, "") if isinstance(classes, dict) else "")
                if g.outcome.value == "lost"
                else ""
            ),
            "meaning": CLASS_MEANING.get(classes.get(g.board, ""), "") if isinstance(classes, dict) else "",
        }
        for g in found.rows
    ]
    pager = {
        "prev": links.games(tid, slug, outcome, page - 1) if page > 1 else None,
        "next": links.games(tid, slug, outcome, page + 1) if page < found.pages else None,
    }
    context = {
        "tid": tid,
        "key": key,
        "slug": slug,
        "outcome": outcome,
        "found": found,
        "rows": rows,
        "pager": pager,
        "classes_note": classes if isinstance(classes, str) else "",
        "filters": [(name, links.games(tid, slug, name, 1), found.counts[name]) for name in data.OUTCOME_FILTERS],
    }
    payload = {
        "tournament": tid,
        "player": key,
        "outcome": outcome,
        "page": found.page,
        "pages": found.pages,
        "total": found.total,
        "games": [
            {
                **g.as_row(),
                **({"loss_class": classes[g.board]} if isinstance(classes, dict) and g.board in classes else {}),
            }
            for g in found.rows
        ],
    }
    crumbs = _crumbs(links, tid, _board_label(meta), (key, links.player(tid, slug)), (f"{outcome} games", None))
    return Page("games.html", f"{key}: {outcome} games", context, payload, False, crumbs)


def _lost_neighbours(db: Store, tid: str, key: str, slug: str, board: int, links: Links) -> dict[str, Any]:
    """The player's lost games just before and after ``board``, as ``[board, address]`` (opened at their end)."""
    lost = [g.board for g in data.player_games(db, tid, key) if g.outcome is Outcome.LOST]
    before = [b for b in lost if b < board]
    after = [b for b in lost if b > board]
    nav: dict[str, Any] = {}
    for name, found in (("prev", before[-1] if before else None), ("next", after[0] if after else None)):
        href = links.game(tid, found, slug) if found is not None else None
        if href is not None:
            nav[name] = [found, href + ("&" if "?" in href else "?") + "move=end"]
    return nav


def game_page(db: Store, tid: str, board: int, slugs: list[str], links: Links, *, probabilities: bool = True) -> Page:
    """The replay viewer of ``arena replay``: one game, or two players' games of one board side by side."""
    meta = data.tournament(db, tid)
    if not 0 <= board < int(meta["games"]):
        raise data.NotFound(f"tournament {tid} has boards 0 to {int(meta['games']) - 1}; there is no board {board}")
    keys = [data.find_player(db, tid, slug)["player"] for slug in slugs]
    games = [data.replay_game(db, tid, key, board) for key in keys]
    try:
        replays = [replay(game, probabilities=False) for game in games]  # checked here; the page computes the odds
    except ReplayError as error:
        raise data.Unavailable(str(error)) from None
    spec = games[0].spec
    title = f"{' vs '.join(keys)} · {spec.label} board {board} of seed {meta['seed']}"
    payload = replay_payload(replays, title, probabilities=probabilities)
    if len(slugs) == 1:
        payload["nav"] = _lost_neighbours(db, tid, keys[0], slugs[0], board, links)
    more: list[tuple[str, str | None]] = []
    if len(slugs) == 1:
        more = [(keys[0], links.player(tid, slugs[0])), (f"board {board}", None)]
    else:
        more = [(f"{keys[0]} vs {keys[1]}", links.diff(tid, slugs[0], slugs[1])), (f"board {board}", None)]
    crumbs = _crumbs(links, tid, _board_label(meta), *more)
    return Page("game.html", title, {"payload": payload}, payload, False, crumbs)


def viewer_page(db: Store, tid: str, source: dict[str, Any], links: Links) -> Page:
    """A static site's one game page of a tournament: the replay viewer of ``game_page``, which shows the game
    its address names from the site's data files (``arena.web.site_data``)."""
    meta = data.tournament(db, tid)
    crumbs = [("tournaments", links.home()), (_board_label(meta), links.leaderboard(tid))]
    context = {"payload": None, "source": source}
    return Page("game.html", f"Replays · {_board_label(meta)}", context, None, False, crumbs)


def diff_page(db: Store, tid: str, a: str, b: str, links: Links, *, boards: bool = True) -> Page:
    """``arena diff``: the boards only one of two players won, each with its side-by-side replay; without
    ``boards``, their counts alone (a small static site)."""
    meta = data.tournament(db, tid)
    if a == b:
        raise data.BadRequest(f"compare two different players, got {a!r} twice")
    key_a = data.find_player(db, tid, a)["player"]
    key_b = data.find_player(db, tid, b)["player"]
    split = data.split_figures(db, tid, key_a, key_b)
    listed = boards
    boards_won = sorted([(x, key_a) for x in split["only_a"]] + [(x, key_b) for x in split["only_b"]])
    diverged = data.diverged(db, tid, key_a, key_b, [x for x, _ in boards_won]) if listed else {}
    first, second = sorted((a, b))  # one side-by-side page per board and pair, whichever way it is asked
    rows = [
        {"board": x, "winner": w, "diverged": diverged[x], "href": links.pair(tid, x, first, second)}
        for x, w in (boards_won if listed else [])
    ]
    context = {
        "a": key_a,
        "b": key_b,
        "href_a": links.player(tid, a),
        "href_b": links.player(tid, b),
        "split": split,
        "rows": rows,
        "listed": listed,
        "command": f"arena diff {tid} {key_a} {key_b}",
    }
    payload = {"tournament": tid, "a": key_a, "b": key_b, **split, "diverged_at": diverged}
    crumbs = _crumbs(links, tid, _board_label(meta), (f"{key_a} vs {key_b}", None))
    return Page("diff.html", f"{key_a} vs {key_b}: the boards one of them won", context, payload, False, crumbs)


def _sweeps(db: Store, only: Collection[str] | None) -> list[data.SweepLine]:
    """The stored sweeps whose every tournament is in ``only`` (``None``: every sweep)."""
    lines = data.sweeps(db)
    return [line for line in lines if only is None or all(p.tournament in only for p in line.points)]
