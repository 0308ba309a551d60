"""Rich renderings shared by the commands: leaderboards and boards."""

from __future__ import annotations

import numpy as np
from rich.table import Table
from rich.text import Text

from arena.leaderboard import Leaderboard
from engine import COVERED, FLAGGED, MINE

__all__ = ["board_text", "leaderboard_table"]

_NUMBER_STYLES = {
    0: "grey50",
    1: "bold blue",
    2: "bold green",
    3: "bold red",
    4: "bold magenta",
    5: "bold dark_red",
    6: "bold cyan",
    7: "bold white",
    8: "bold grey70",
}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}"


def leaderboard_table(board: Leaderboard, *, wide: bool = False) -> Table:
    """The leaderboard as a rich table; ``wide`` adds moves per win and the 3BV columns."""
    table = Table(title=board.title, title_justify="left", caption=f"tournament {board.config.tournament_id}")
    table.add_column("#", justify="right")
    table.add_column("player", style="bold", no_wrap=True)
    table.add_column("games", justify="right")
    table.add_column("win %", justify="right")
    table.add_column("95% CI", justify="right", no_wrap=True)
    table.add_column("vs #1 [95% CI]", justify="right", no_wrap=True)
    table.add_column("p", justify="right")
    table.add_column("guess/g", justify="right")
    if wide:
        table.add_column("moves/win", justify="right")
        table.add_column("3BV solved", justify="right")
    table.add_column("ms/g", justify="right")
    table.add_column("err", justify="right")
    for r in board.rows:
        if r.diff is None:
            vs = "leader" if r.rank == 1 else "-"
        else:
            vs = f"{100 * r.diff:+.1f} [{100 * r.diff_low:+.1f},{100 * r.diff_high:+.1f}]"
        cells = [
            str(r.rank),
            r.player,
            str(r.games),
            _pct(r.win_rate),
            f"{_pct(r.ci_low)}-{_pct(r.ci_high)}",
            vs,
            "" if r.p_value is None else f"{r.p_value:.2g}",
            f"{r.guesses_per_game:.2f}",
        ]
        if wide:
            cells += [
                "-" if r.moves_per_win is None else f"{r.moves_per_win:.1f}",
                f"{100 * r.bbbv_solved_fraction:.1f}%",
            ]
        cells += [f"{r.ms_per_game:.2f}", str(r.errors + r.timeouts)]
        table.add_row(*cells)
    return table


def board_text(grid: np.ndarray, exploded: tuple[int, int] | None = None) -> Text:
    """A board drawn cell by cell: covered, flags, numbers in their classic colours, mines."""
    text = Text()
    for r, row in enumerate(np.asarray(grid)):
        for c, value in enumerate(row):
            v = int(value)
            if v == COVERED:
                text.append("■ ", style="grey62")
            elif v == FLAGGED:
                text.append("⚑ ", style="bold red")
            elif v == MINE:
                style = "bold white on red" if exploded == (r, c) else "bold red"
                text.append("✱ ", style=style)
            elif v == 0:
                text.append("· ", style=_NUMBER_STYLES[0])
            else:
                text.append(f"{v} ", style=_NUMBER_STYLES[v])
        text.append("\n")
    return text
