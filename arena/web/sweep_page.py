"""The sweeps page: each stored sweep as ``arena sweep`` shows it, a chart of win rate against mine density with
95% Wilson bands (inline SVG, drawn at a wide window's size and at a phone's), the table of win rates by mine count
and player, and each player's density of 50% wins (``arena.experiments.sweep.density_at_half``, the command's
own estimate).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Any

from arena.results.store import Store
from arena.web.links import Links
from arena.web.pages import Page, _crumbs, _sweeps

__all__ = ["CHART_SIZES", "PALETTE", "sweeps_page"]


#: The sweep chart's colours, one per player (readable on white, told apart by people with the usual colour
#: blindness: the Okabe-Ito palette).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")


#: The sweep chart drawn twice, for a wide window and for a phone's (CSS shows the one that fits): its box, the
#: plot's margins, and the size of its text, so the labels read at about 12 pixels at either width.
CHART_SIZES = {
    "wide": {"w": 640, "h": 340, "left": 56, "right": 16, "top": 16, "bottom": 52, "font": 12, "ticks": 9},
    "narrow": {"w": 360, "h": 300, "left": 40, "right": 20, "top": 12, "bottom": 46, "font": 12, "ticks": 5},
}


def _chart(
    series_points: list[tuple[str, str, list[tuple[float, float, float, float]]]],
    lo: float,
    hi: float,
    densities: list[float],
    size: dict[str, int],
) -> dict[str, Any]:
    """One drawing of a sweep's chart: ``series_points`` (name, colour, [(density, rate, low, high)])."""
    span = (hi - lo) or 1.0
    left, right, top, bottom = size["left"], size["w"] - size["right"], size["top"], size["h"] - size["bottom"]

    def x(d: float) -> float:
        return round(left + (right - left) * (d - lo) / span, 2)

    def y(rate: float) -> float:
        return round(top + (bottom - top) * (1 - rate), 2)

    series = []
    for name, colour, pts in series_points:
        series.append(
            {
                "name": name,
                "colour": colour,
                "line": " ".join(f"{x(d)},{y(r)}" for d, r, _, _ in pts),
                "band": " ".join(
                    [f"{x(d)},{y(h)}" for d, _, _, h in pts] + [f"{x(d)},{y(lw)}" for d, _, lw, _ in pts[::-1]]
                ),
                "dots": [(x(d), y(r)) for d, r, _, _ in pts],
            }
        )
    xticks = [(x(d), f"{100 * d:.1f}") for d in densities]
    if len(xticks) > size["ticks"]:
        xticks = xticks[:: math.ceil(len(xticks) / size["ticks"])]
    return {
        **size,
        "plot": {"left": left, "right": right, "top": top, "bottom": bottom},
        "series": series,
        "xticks": xticks,
        "yticks": [(y(v / 100), v) for v in range(0, 101, 25)],
        "half": y(0.5),
    }


def sweeps_page(db: Store, links: Links, only: Collection[str] | None = None) -> Page:
    """Each stored sweep as ``arena sweep`` shows it: win rate against density with 95% Wilson bands, the table
    of win rates by mine count and player, and each player's density of 50% wins with its interval."""
    from arena.analysis.stats import wilson_interval
    from arena.experiments.sweep import Cell, CellResult, density_at_half

    charts = []
    payload = []
    for line in _sweeps(db, only):
        densities = sorted({p.density for p in line.points})
        lo, hi = densities[0], densities[-1]
        table = []
        drawn = []
        halves = []
        for i, name in enumerate(line.players):
            pts = [p for p in line.points if p.player == name and p.games]
            if not pts:
                continue
            values = []
            for p in pts:
                low, high = wilson_interval(p.wins, p.games)
                rate = p.wins / p.games
                values.append((p.density, rate, low, high))
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
            drawn.append((name, PALETTE[i % len(PALETTE)], values))
            results = [
                CellResult(Cell(line.height, line.width, p.mines), name, p.games, p.wins, p.tournament) for p in pts
            ]
            halves.append(density_at_half(results))
        mines = sorted({row["mines"] for row in table})
        by_cell = {(row["mines"], row["player"]): row for row in table}
        shown = [name for name, _, _ in drawn]
        pivot = [
            {
                "mines": m,
                "density": m / (line.height * line.width),
                "href": next(row["href"] for row in table if row["mines"] == m),
                "cells": [by_cell.get((m, name)) for name in shown],
            }
            for m in mines
        ]
        charts.append(
            {
                "line": line,
                "players": [(name, colour) for name, colour, _ in drawn],
                "drawings": {kind: _chart(drawn, lo, hi, densities, size) for kind, size in CHART_SIZES.items()},
                "pivot": pivot,
                "halves": halves,
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
        payload.append(
            {
                "rule": line.rule,
                "seed": line.seed,
                "games": line.boards,
                "cells": cells,
                "half_density": [
                    {"player": h.player, "size": h.size, "density": h.density, "low": h.low, "high": h.high}
                    for h in halves
                ],
            }
        )
    crumbs = _crumbs(links, None, "", ("sweeps", None))
    return Page("sweeps.html", "Sweeps: win rate against mine density", {"charts": charts}, payload, False, crumbs)
