"""Density sweeps: how each player's win rate falls as the board fills with mines.

A sweep is a grid of ordinary tournaments, one per (board size, mine count), every player on the
same boards within a cell; so a sweep resumes and extends like a tournament, and each cell can be
opened with `arena leaderboard`. From the grid come a table, a CSV, a plot of win rate against
density with 95% Wilson bands, and each player's 50% density: the density at which it wins half
its games, from a logistic fit of wins on density (see :func:`density_at_half`).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from arena.analysis.stats import wilson_interval, z_for_confidence
from arena.config import PlayerRef, TournamentConfig
from arena.play.backends import Backend, make_backend
from arena.play.events import TournamentEvents
from arena.play.plan import TournamentSummary, plan_tournament
from arena.play.tournament import run_tournament
from arena.results.store import Store
from engine import BoardSpec, EngineError, FirstClick
from engine.board import resolve_board
from players.registry import Registry

__all__ = [
    "Cell",
    "CellResult",
    "HalfDensity",
    "SweepError",
    "SweepEvents",
    "density_at_half",
    "density_range",
    "plan_cells",
    "run_sweep",
    "write_csv",
    "write_plot",
]


class SweepError(ValueError):
    """A sweep that cannot be played as asked: a bad range, a density with no room for the first click."""


class SweepEvents(TournamentEvents):
    """A sweep's events: each cell is a tournament run (``arena.play.events``: started ... finished, once per
    cell), and after each, ``cell_done``."""

    def cell_done(self, cell: Cell, summary: TournamentSummary) -> None:
        """``cell``'s tournament is played (``summary``: what this run played of it, and what was stored)."""


@dataclass(frozen=True, slots=True)
class Cell:
    """One point of the grid: a board size and a mine count."""

    height: int
    width: int
    mines: int

    @property
    def density(self) -> float:
        return self.mines / (self.height * self.width)

    @property
    def size(self) -> str:
        return f"{self.height}x{self.width}"

    @property
    def spec(self) -> BoardSpec:
        """The board as the command line names it (16x30 with 99 mines is ``expert``)."""
        return resolve_board(size=self.size, mines=self.mines)


@dataclass(frozen=True, slots=True)
class CellResult:
    cell: Cell
    player: str
    games: int
    wins: int
    tournament_id: str

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games) if self.games else (math.nan, math.nan)


@dataclass(frozen=True, slots=True)
class HalfDensity:
    """A player's density of 50% wins on one board size, with its 95% interval (``None`` when the
    swept densities do not bracket 50%: extrapolating a fit beyond the data would be a guess)."""

    player: str
    size: str
    density: float | None
    low: float | None
    high: float | None


def density_range(text: str) -> list[float]:
    """``START:STOP:STEP`` (both ends included) or a single density, as a list of densities."""
    parts = text.split(":")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise SweepError(f"--density {text!r}: expected START:STOP:STEP or one number, e.g. 0.10:0.25:0.01") from None
    if len(values) == 1:
        values = [values[0], values[0], 1.0]
    if len(values) != 3:
        raise SweepError(f"--density {text!r}: expected START:STOP:STEP or one number, e.g. 0.10:0.25:0.01")
    start, stop, step = values
    if not 0 < start < 1 or not 0 < stop < 1:
        raise SweepError(f"--density {text!r}: densities lie strictly between 0 and 1")
    if stop < start:
        raise SweepError(f"--density {text!r}: STOP is below START; write the range upwards, e.g. 0.10:0.25:0.01")
    if step <= 0:
        raise SweepError(f"--density {text!r}: STEP must be positive")
    count = math.floor((stop - start) / step + 1e-9) + 1
    return [round(start + i * step, 10) for i in range(count)]


def plan_cells(
    sizes: Sequence[tuple[int, int]], rule: FirstClick, densities: Sequence[float] = (), mines: Sequence[int] = ()
) -> list[Cell]:
    """The grid's cells, checked against the first-click rule (every cell must leave room for it).
    Densities round to whole mines; two densities that round to one count give one cell."""
    cells: list[Cell] = []
    for height, width in sizes:
        counts = list(mines) or [max(1, round(d * height * width)) for d in densities]
        for count in dict.fromkeys(counts):
            try:
                Cell(height, width, count).spec.check_rule(rule)
            except EngineError as error:
                raise SweepError(f"{height}x{width} with {count} mines: {error}") from None
            cells.append(Cell(height, width, count))
    if not cells:
        raise SweepError("the sweep has no cell: give --density or --mines")
    return cells


def run_sweep(
    cells: Sequence[Cell],
    rule: FirstClick,
    players: Sequence[PlayerRef],
    games: int,
    seed: int,
    store: Store,
    registry: Registry,
    *,
    workers: int | None = None,
    backend: str | Backend = "local",
    events: TournamentEvents | None = None,
) -> list[CellResult]:
    """Play (or resume) every cell's tournament, one backend for them all; the results per cell and player.
    ``events`` hears each cell's run, and, a ``SweepEvents``, each cell as it is done."""
    owned = isinstance(backend, str)
    backend_used = make_backend(backend, workers=workers) if isinstance(backend, str) else backend
    results: list[CellResult] = []
    try:
        for cell in cells:
            config = TournamentConfig.build(cell.spec, rule, seed=seed, games=games, players=tuple(players))
            plan = plan_tournament(config, store, registry, workers=workers, backend=backend_used.name)
            summary = run_tournament(plan, store, events, backend=backend_used)
            if isinstance(events, SweepEvents):
                events.cell_done(cell, summary)
            results.extend(cell_results(store, config, cell))
    finally:
        if owned:
            backend_used.close()
    return results


def cell_results(store: Store, config: TournamentConfig, cell: Cell) -> list[CellResult]:
    wins = {ref.key: 0 for ref in config.players}
    played = dict.fromkeys(wins, 0)
    for game in store.games(config.id, config.games):
        if game.player in wins:
            played[game.player] += 1
            wins[game.player] += game.won
    return [CellResult(cell, key, played[key], wins[key], config.id) for key in wins]


def _logistic_fit(x: np.ndarray, wins: np.ndarray, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood logistic regression of wins on x (Newton's method); coefficients and covariance."""
    design = np.column_stack([np.ones_like(x), x])
    beta = np.zeros(2)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        weights = games * p * (1.0 - p)
        info = design.T @ (design * weights[:, None])
        step = np.linalg.solve(info, design.T @ (wins - games * p))
        beta = beta + step
        if np.abs(step).max() < 1e-12:
            break
    p = 1.0 / (1.0 + np.exp(-(design @ beta)))
    info = design.T @ (design * (games * p * (1.0 - p))[:, None])
    return beta, np.linalg.inv(info)


def density_at_half(results: Sequence[CellResult], confidence: float = 0.95) -> HalfDensity:
    """The density at which the player wins 50%, from the cells of one player and one size.

    A logistic regression of wins on density, fitted locally: on the two swept points that bracket
    the first crossing of 50% (a win-rate curve is not logistic over its whole range, and a fit over
    more points is pulled off the crossing by the curve's bend), gives ``d50 = -b0 / b1``, which is
    interpolation on the logit scale;
    its interval is Fieller's, which, unlike the delta method, stays honest when the slope is poorly
    known. ``None`` when no two swept points bracket 50%."""
    first = results[0]
    order = np.argsort([r.cell.density for r in results], kind="stable")
    results = [results[i] for i in order]
    rates = np.array([r.win_rate for r in results])
    density = np.array([r.cell.density for r in results])
    none = HalfDensity(first.player, first.cell.size, None, None, None)
    above = rates >= 0.5
    crossings = np.flatnonzero(above[:-1] != above[1:])
    if crossings.size == 0:
        return none
    at = int(crossings[0])
    keep = np.zeros(len(results), dtype=bool)
    keep[at : at + 2] = True
    wins = np.array([r.wins for r in results], dtype=float)[keep]
    games = np.array([r.games for r in results], dtype=float)[keep]
    try:
        (b0, b1), cov = _logistic_fit(density[keep], wins, games)
    except np.linalg.LinAlgError:
        return none
    if not b1 < 0:
        return none
    estimate = -b0 / b1
    # Fieller: the d with (b0 + b1 d)^2 <= z^2 var(b0 + b1 d), a quadratic in d.
    z2 = z_for_confidence(confidence) ** 2
    a = b1 * b1 - z2 * cov[1, 1]
    b = 2 * (b0 * b1 - z2 * cov[0, 1])
    c = b0 * b0 - z2 * cov[0, 0]
    disc = b * b - 4 * a * c
    if a <= 0 or disc < 0:  # the slope is not significantly non-zero: the interval is unbounded
        return HalfDensity(first.player, first.cell.size, float(estimate), None, None)
    root = math.sqrt(disc)
    low, high = sorted(((-b - root) / (2 * a), (-b + root) / (2 * a)))
    return HalfDensity(first.player, first.cell.size, float(estimate), float(low), float(high))


def half_densities(results: Sequence[CellResult]) -> list[HalfDensity]:
    """:func:`density_at_half` for every (player, size) of a sweep, in the sweep's order."""
    groups: dict[tuple[str, str], list[CellResult]] = {}
    for r in results:
        groups.setdefault((r.player, r.cell.size), []).append(r)
    return [density_at_half(group) for group in groups.values()]


_CSV_COLUMNS = (
    "size", "height", "width", "mines", "density", "rule", "player", "games", "wins", "win_rate", "ci_low", "ci_high",
    "tournament",
)  # fmt: skip


def write_csv(results: Sequence[CellResult], rule: FirstClick, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(_CSV_COLUMNS)
        for r in results:
            low, high = r.interval
            c = r.cell
            density, rates = f"{c.density:.6f}", [f"{r.win_rate:.6f}", f"{low:.6f}", f"{high:.6f}"]
            writer.writerow(
                [
                    c.size,
                    c.height,
                    c.width,
                    c.mines,
                    density,
                    rule.value,
                    r.player,
                    r.games,
                    r.wins,
                    *rates,
                    r.tournament_id,
                ]
            )


def write_plot(results: Sequence[CellResult], rule: FirstClick, path: Path, title: str | None = None) -> None:
    """Win rate against density, one line per player with its 95% Wilson band, one panel per size."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SweepError("--plot needs matplotlib: python -m pip install 'minesweeper-arena[plot]'") from None
    sizes = list(dict.fromkeys(r.cell.size for r in results))
    players = list(dict.fromkeys(r.player for r in results))
    fig, axes = plt.subplots(1, len(sizes), figsize=(7.5 * len(sizes), 5.0), squeeze=False, sharey=True)
    colours = plt.get_cmap("tab10")
    games = sorted({r.games for r in results})
    for ax, size in zip(axes[0], sizes, strict=True):
        for i, player in enumerate(players):
            rows = sorted(
                (r for r in results if r.cell.size == size and r.player == player), key=lambda r: r.cell.mines
            )
            x = [100 * r.cell.density for r in rows]
            colour = colours(i % 10)
            ax.plot(x, [100 * r.win_rate for r in rows], marker="o", markersize=3, color=colour, label=player)
            ax.fill_between(
                x, [100 * r.interval[0] for r in rows], [100 * r.interval[1] for r in rows], color=colour, alpha=0.2
            )
        ax.axhline(50, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xlabel("mine density (% of cells)")
        ax.set_title(f"{size} board, first click {rule.value}")
        ax.grid(True, alpha=0.3)
        ax.set_ylim(0, 100)
    axes[0][0].set_ylabel("win rate (%), 95% Wilson band")
    axes[0][-1].legend(title="player", loc="upper right")
    per_point = f"{games[0]} games per point" if len(games) == 1 else f"{games[0]}-{games[-1]} games per point"
    fig.suptitle(title or f"Win rate against mine density ({per_point})")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
