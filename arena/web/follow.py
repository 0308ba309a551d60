"""Pages that follow a run while it plays: a match's sequential test, and how each player's win rate converges.

A match (``arena match CAND BASE``) is a tournament of two players looked at every ``batch`` boards by the
sequential test of "CAND better by ``delta`` or more" against "no better" (``arena.analysis.sequential``). The
page shows what fishtest and OpenBench show of a test: its hypotheses, the log-likelihood ratio against boards
played with the test's two bounds, and the verdict, or "undecided after N boards", refreshing itself while the
match plays. The store keeps the match's games and its two players, not the test's settings: the page takes them
from its address (``?delta=1&alpha=0.05&beta=0.05&batch=200``, the command's defaults when absent) and says so.

Convergence: each player's win rate with its 95% Wilson interval against the games it has played, in board order,
so an organizer sees when the intervals have stopped moving and the run can stop.
"""

from __future__ import annotations

import math
from typing import Any

from arena.analysis.sequential import gsprt
from arena.analysis.stats import wilson_interval
from arena.results.store import Store
from arena.web import data, games_data
from arena.web.links import Links
from arena.web.pages import Page, _crumbs, tournament_label
from arena.web.sweep_page import PALETTE

__all__ = ["MATCH_DEFAULTS", "convergence_page", "match_page", "match_players"]

#: ``arena match``'s defaults: delta in points, the two error rates, boards between two looks.
MATCH_DEFAULTS = {"delta": 1.0, "alpha": 0.05, "beta": 0.05, "batch": 200}
#: The drawings of a chart: a wide window's and a phone's, each at the size it is shown (text about 12 px).
SIZES = {
    "wide": {"w": 720, "h": 320, "left": 58, "right": 22, "top": 14, "bottom": 44, "font": 12, "ticks": 8},
    "narrow": {"w": 360, "h": 280, "left": 44, "right": 20, "top": 12, "bottom": 40, "font": 12, "ticks": 4},
}
#: Points drawn of a line: enough for a smooth curve, few enough for a light page.
POINTS = 240


def _nice(low: float, high: float, count: int) -> list[float]:
    """About ``count`` round tick values from ``low`` to ``high``."""
    span = (high - low) or 1.0
    raw = span / max(1, count)
    step = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 2.5, 5, 10):
        if raw <= mult * step:
            step *= mult
            break
    first = math.ceil(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _frame(size: dict[str, int], x_max: float, y_low: float, y_high: float, y_format: str) -> dict[str, Any]:
    left, right = size["left"], size["w"] - size["right"]
    top, bottom = size["top"], size["h"] - size["bottom"]
    x_max = x_max or 1.0
    y_span = (y_high - y_low) or 1.0

    def x(v: float) -> float:
        return round(left + (right - left) * v / x_max, 2)

    def y(v: float) -> float:
        return round(bottom - (bottom - top) * (min(max(v, y_low), y_high) - y_low) / y_span, 2)

    xticks = [(x(t), f"{t:,.0f}") for t in _nice(0, x_max, size["ticks"]) if t <= x_max]
    yticks = [(y(t), format(t, y_format)) for t in _nice(y_low, y_high, 5)]
    return {
        **size,
        "plot": {"left": left, "right": right, "top": top, "bottom": bottom},
        "x": x,
        "y": y,
        "xticks": xticks,
        "yticks": yticks,
    }


def _thin(count: int) -> list[int]:
    """The indices (1-based counts) of the points drawn of a line of ``count``: about ``POINTS``, the last one."""
    if count <= 0:
        return []
    step = max(1, count // POINTS)
    picked = list(range(step, count + 1, step))
    return picked if picked[-1] == count else [*picked, count]


def match_players(db: Store, tid: str) -> tuple[str, str] | None:
    """The candidate and the base of a match's tournament: its two players in the order the command named them
    (a tournament of any other number of players is no match)."""
    stored = db.tournament(tid)
    try:
        config = stored.config_data
    except ValueError:
        config = {}
    keys = [p.key for p in db.players(tid)]
    latest = {r.player for r in data.leaderboard(db, tid).rows}
    named = [str(p.get("name", "")) for p in config.get("players", [])]
    rows = [k for k in keys if k in latest] or keys
    if len(rows) != 2:
        return None
    order = sorted(rows, key=lambda k: named.index(k.split("@")[0]) if k.split("@")[0] in named else 99)
    return order[0], order[1]


def _setting(query: dict[str, str], name: str, base: dict[str, float | int]) -> float:
    raw = query.get(name)
    if raw is None:
        return float(base[name])
    try:
        value = float(raw)
    except ValueError:
        raise data.BadRequest(f"{name} must be a number, not {raw!r}") from None
    if name == "delta" and not 0 < value < 100:
        raise data.BadRequest(f"delta is in points and must lie between 0 and 100, not {value}")
    if name in ("alpha", "beta") and not 0 < value < 0.5:
        raise data.BadRequest(f"{name} must lie between 0 and 0.5, not {value}")
    if name == "batch" and (value < 1 or value != int(value)):
        raise data.BadRequest(f"batch must be a whole number of boards, 1 or more, not {raw!r}")
    return value


def _verdict(name: str) -> str:
    return {"H1": "better", "better": "better", "H0": "not better", "not_better": "not better"}.get(name, "")


def match_page(db: Store, tid: str, links: Links, query: dict[str, str] | None = None) -> Page:
    """The sequential test of a match's tournament, with its LLR drawn against boards played."""
    meta = data.tournament(db, tid)
    pair = match_players(db, tid)
    if pair is None:
        raise data.NotFound(f"tournament {tid} is not a match: a match has two players")
    a, b = pair
    query = query or {}
    stored = db.labels(tid).match
    base: dict[str, float | int] = stored.as_json() if stored is not None else dict(MATCH_DEFAULTS)
    delta, alpha, beta = (_setting(query, name, base) for name in ("delta", "alpha", "beta"))
    batch = int(_setting(query, "batch", base))
    # The settings the page did not get from the match itself: an old store's (the defaults, or the address's),
    # and those the address changes of a stored match's.
    assumed = [] if stored is not None else [name for name in MATCH_DEFAULTS if name not in query]
    changed = [name for name in MATCH_DEFAULTS if name in query and float(query[name]) != float(base[name])]
    won = games_data.board_pairs(db, tid, a, b)
    only_a = only_b = 0
    series: list[tuple[int, float]] = []
    looks: list[dict[str, Any]] = []
    state = gsprt(0, 0, 0, delta / 100, alpha, beta)
    decided: dict[str, Any] | None = None
    drawn = set(_thin(len(won)))
    for n, (x, y) in enumerate(won, 1):
        only_a += x and not y
        only_b += y and not x
        if n in drawn or n % batch == 0:
            now = gsprt(only_a, only_b, n, delta / 100, alpha, beta)
            if n in drawn:
                series.append((n, now.llr))
            if n % batch == 0:
                looks.append({"boards": n, "llr": now.llr, "verdict": _verdict(now.verdict)})
                state = now
                if decided is None and _verdict(now.verdict):
                    decided = {"boards": n, "verdict": _verdict(now.verdict), "llr": now.llr}
    if not looks and won:  # fewer boards than a batch: the test has not been looked at; show where it stands
        state = gsprt(only_a, only_b, len(won), delta / 100, alpha, beta)
    status = data.live_status(db, tid)
    lower, upper = state.lower, state.upper
    values = [v for _, v in series] + [lower, upper]
    y_low, y_high = min(values) - 0.3, max(values) + 0.3
    drawings = {}
    for kind, size in SIZES.items():
        f = _frame(size, max(len(won), batch), y_low, y_high, ".1f")
        drawings[kind] = {
            **{k: v for k, v in f.items() if k not in ("x", "y")},
            "line": " ".join(f"{f['x'](n)},{f['y'](v)}" for n, v in series),
            "looks": [(f["x"](lk["boards"]), f["y"](lk["llr"])) for lk in looks],
            "upper": f["y"](upper),
            "lower": f["y"](lower),
            "zero": f["y"](0.0),
        }
    boards = len(won)
    diff = (only_a - only_b) / boards if boards else 0.0
    context = {
        "meta": meta,
        "a": a,
        "b": b,
        "delta": delta,
        "alpha": alpha,
        "beta": beta,
        "batch": batch,
        "assumed": assumed,
        "stored": stored,
        "changed": changed,
        "boards": boards,
        "only_a": only_a,
        "only_b": only_b,
        "diff": diff,
        "state": state,
        "decided": decided,
        "drawings": drawings,
        "status": status,
        "looks": looks[-12:],
        "diff_href": links.diff(tid, data.player_slug(a), data.player_slug(b)),
    }
    payload = {
        "tournament": tid,
        "candidate": a,
        "base": b,
        "delta": delta,
        "alpha": alpha,
        "beta": beta,
        "batch": batch,
        "assumed": assumed,
        "settings_stored": stored is not None,
        "changed_by_address": changed,
        "max_games": stored.max_games if stored is not None else None,
        "boards": boards,
        "only_candidate": only_a,
        "only_base": only_b,
        "llr": state.llr,
        "lower": lower,
        "upper": upper,
        "verdict": decided["verdict"] if decided else None,
        "decided_at": decided["boards"] if decided else None,
        "looks": looks,
    }
    crumbs = _crumbs(links, tid, tournament_label(meta), (f"match {a} vs {b}", None))
    live = links.live and status.live
    return Page("match.html", f"Match {a} vs {b}", context, payload, live, crumbs)


def convergence_page(db: Store, tid: str, links: Links) -> Page:
    """Each player's win rate with its 95% interval against the games it has played, in board order."""
    meta = data.tournament(db, tid)
    leaderboard = data.leaderboard(db, tid)
    players = [r.player for r in leaderboard.rows]
    curves = []
    most = 0
    for i, key in enumerate(players):
        wins = games_data.wins_in_order(db, tid, key)
        most = max(most, len(wins))
        points = []
        total = 0
        picked = set(_thin(len(wins)))
        for n, won in enumerate(wins, 1):
            total += won
            if n in picked:
                low, high = wilson_interval(total, n)
                points.append((n, total / n, low, high))
        curves.append({"player": key, "colour": PALETTE[i % len(PALETTE)], "points": points})
    # The axis of win rates: the intervals once each player has a tenth of its games (the first games' intervals
    # span nearly everything and would flatten the part an organizer reads).
    settled = [p for c in curves if c["points"] for p in c["points"] if p[0] >= max(10, c["points"][-1][0] // 10)]
    low = min((p[2] for p in settled), default=0.0)
    high = max((p[3] for p in settled), default=1.0)
    low, high = max(0.0, math.floor(low * 20) / 20), min(1.0, math.ceil(high * 20) / 20)
    if high - low < 0.1:
        low, high = max(0.0, high - 0.1), min(1.0, max(high, low + 0.1))
    drawings = {}
    for kind, size in SIZES.items():
        f = _frame(size, most, low * 100, high * 100, ".0f")
        drawings[kind] = {
            **{k: v for k, v in f.items() if k not in ("x", "y")},
            "series": [
                {
                    "player": c["player"],
                    "colour": c["colour"],
                    "line": " ".join(f"{f['x'](n)},{f['y'](100 * r)}" for n, r, _, _ in c["points"]),
                    "band": " ".join(
                        [f"{f['x'](n)},{f['y'](100 * h)}" for n, _, _, h in c["points"]]
                        + [f"{f['x'](n)},{f['y'](100 * lw)}" for n, _, lw, _ in c["points"][::-1]]
                    ),
                }
                for c in curves
                if c["points"]
            ],
        }
    last = [
        {
            "player": c["player"],
            "colour": c["colour"],
            "games": c["points"][-1][0] if c["points"] else 0,
            "rate": c["points"][-1][1] if c["points"] else None,
            "low": c["points"][-1][2] if c["points"] else None,
            "high": c["points"][-1][3] if c["points"] else None,
        }
        for c in curves
    ]
    status = data.live_status(db, tid)
    context = {"meta": meta, "drawings": drawings, "last": last, "status": status}
    payload = {
        "tournament": tid,
        "players": [
            {
                "player": c["player"],
                "points": [{"games": n, "win_rate": r, "ci_low": lw, "ci_high": h} for n, r, lw, h in c["points"]],
            }
            for c in curves
        ],
    }
    crumbs = _crumbs(links, tid, tournament_label(meta), ("convergence", None))
    live = links.live and status.live
    return Page("convergence.html", f"Convergence · {tournament_label(meta)}", context, payload, live, crumbs)
