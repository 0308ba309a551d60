"""Each kind of page as a value: its template, what the template shows, and its data as JSON.

The served app and the static site both build their pages here and render them with the same templates
(``arena.web.render``); only the ``Links`` differ. The JSON of a page has the shape of the CLI's ``--json``
where the CLI shows the same data: the leaderboard is ``arena leaderboard --json``, a player's losses
``arena losses --json``, its failures an entry of ``arena errors --json``, a comparison ``arena diff --json``,
the tournaments ``arena leaderboard --list --json`` with a few fields more.
"""

from __future__ import annotations

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
    "sweeps_page",
    "viewer_page",
]

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


def home_page(db: Store, links: Links, only: Collection[str] | None = None) -> Page:
    """Every stored tournament (or those in ``only``), the one being played marked live."""
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
            }
        )
    has_sweeps = bool(_sweeps(db, only)) if infos else False
    # A static site names the store's file, not where it was on the machine that wrote the site.
    store = str(db.path) if links.live else db.path.name
    context = {"rows": rows, "store": store, "has_sweeps": has_sweeps}
    live = links.live and any(info.live for info in infos)
    return Page("tournaments.html", "Tournaments", context, [i.as_json() for i in infos], live, [])


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


def leaderboard_page(db: Store, tid: str, links: Links) -> Page:
    """``arena leaderboard``'s every figure, its intervals drawn, each player linked."""
    meta = data.tournament(db, tid)
    board = data.leaderboard(db, tid)
    status = data.live_status(db, tid)
    by_key = {row["player"]: (slug, row) for slug, row in data.players(db, tid).items()}
    low, high = _interval_scale(board.rows)
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
                "diff_href": links.diff(tid, leader_slug, slug) if leader_slug and slug != leader_slug else None,
            }
        )
    ticks = [round(low + i * (high - low) / 4, 4) for i in range(5)]
    context = {
        "board": board,
        "meta": meta,
        "rows": rows,
        "scale": {"low": low, "high": high, "ticks": [(round(100 * (t - low) / (high - low), 3), t) for t in ticks]},
        "status": status,
        "json_href": links.json("leaderboard", tid),
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


def games_page(db: Store, tid: str, slug: str, outcome: str, page: int, links: Links, per_page: int = 50) -> Page:
    """One page of a player's games, filtered by outcome, each linking to its replay."""
    meta = data.tournament(db, tid)
    key = data.find_player(db, tid, slug)["player"]
    found = data.games_page(db, tid, key, outcome, page, per_page)
    rows = [{"g": g, "href": links.game(tid, g.board, slug)} for g in found.rows]
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
        "filters": [(name, links.games(tid, slug, name, 1), found.counts[name]) for name in data.OUTCOME_FILTERS],
    }
    payload = {
        "tournament": tid,
        "player": key,
        "outcome": outcome,
        "page": found.page,
        "pages": found.pages,
        "total": found.total,
        "games": [g.as_row() for g in found.rows],
    }
    crumbs = _crumbs(links, tid, _board_label(meta), (key, links.player(tid, slug)), (f"{outcome} games", None))
    return Page("games.html", f"{key}: {outcome} games", context, payload, False, crumbs)


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


#: The sweep chart's colours, one per player (readable on white, told apart by people with the usual colour
#: blindness: the Okabe-Ito palette).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")


def _sweeps(db: Store, only: Collection[str] | None) -> list[data.SweepLine]:
    """The stored sweeps whose every tournament is in ``only`` (``None``: every sweep)."""
    lines = data.sweeps(db)
    return [line for line in lines if only is None or all(p.tournament in only for p in line.points)]


def sweeps_page(db: Store, links: Links, only: Collection[str] | None = None) -> Page:
    """Each stored sweep: win rate against density with 95% Wilson bands, and its table."""
    from arena.analysis.stats import wilson_interval

    charts = []
    payload = []
    for line in _sweeps(db, only):
        densities = sorted({p.density for p in line.points})
        lo, hi = densities[0], densities[-1]
        span = (hi - lo) or 1.0

        def x(d: float, lo: float = lo, span: float = span) -> float:
            return round(60 + 520 * (d - lo) / span, 2)

        def y(rate: float) -> float:
            return round(20 + 260 * (1 - rate), 2)

        series = []
        table = []
        for i, name in enumerate(line.players):
            pts = [p for p in line.points if p.player == name and p.games]
            band_top, band_bottom, path = [], [], []
            for p in pts:
                low, high = wilson_interval(p.wins, p.games)
                rate = p.wins / p.games
                path.append(f"{x(p.density)},{y(rate)}")
                band_top.append(f"{x(p.density)},{y(high)}")
                band_bottom.append(f"{x(p.density)},{y(low)}")
                table.append(
                    {
                        "player": name,
                        "mines": p.mines,
                        "density": p.density,
                        "games": p.games,
                        "wins": p.wins,
                        "rate": rate,
                        "low": low,
                        "high": high,
                        "href": links.leaderboard(p.tournament),
                        "tournament": p.tournament,
                    }
                )
            series.append(
                {
                    "name": name,
                    "colour": PALETTE[i % len(PALETTE)],
                    "line": " ".join(path),
                    "band": " ".join(band_top + band_bottom[::-1]),
                    "dots": [(x(p.density), y(p.wins / p.games)) for p in pts],
                }
            )
        xticks = [(x(d), f"{100 * d:.1f}") for d in densities]
        if len(xticks) > 8:
            xticks = xticks[:: math.ceil(len(xticks) / 8)]
        charts.append(
            {
                "line": line,
                "series": series,
                "table": table,
                "xticks": xticks,
                "yticks": [(y(v / 100), v) for v in range(0, 101, 25)],
            }
        )
        cells = [
            {
                "size": line.size,
                "mines": row["mines"],
                "density": row["density"],
                "player": row["player"],
                "games": row["games"],
                "wins": row["wins"],
                "win_rate": row["rate"],
                "ci_low": row["low"],
                "ci_high": row["high"],
                "tournament": row["tournament"],
            }
            for row in sorted(table, key=lambda row: row["mines"])
        ]
        # The shape of `arena sweep --json`, one sweep per board size.
        payload.append({"rule": line.rule, "seed": line.seed, "games": line.boards, "cells": cells})
    crumbs = _crumbs(links, None, "", ("sweeps", None))
    return Page("sweeps.html", "Sweeps: win rate against mine density", {"charts": charts}, payload, False, crumbs)
