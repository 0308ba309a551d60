"""Rich renderings shared by the commands: leaderboards, failure summaries and boards.

Every text that comes from a user or a plugin (player names, options, sources, error messages)
goes into a ``rich.text.Text``, never through markup: ``random[subsets=true]`` is a name, not a tag.

The leaderboard fits the width it is printed at. Rich squeezes a table that is too wide by
shrinking every column, which blanks the short numeric ones first; instead, ``LeaderboardTable``
tries layouts from the richest to the plainest (stacking a player's options under its name,
the interval of ``vs #1`` under the difference, then leaving out the least telling columns) and
prints the first that fits, with a note of what it left out.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from rich.console import Console, ConsoleOptions, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from arena.analysis.leaderboard import Leaderboard, LeaderboardRow
from arena.outcome import PlayerKey
from engine import COVERED, FLAGGED, MINE

__all__ = [
    "BoardView",
    "LeaderboardTable",
    "board_text",
    "errors_command",
    "failure_summary",
    "leaderboard_table",
    "player_lines",
    "print_leaderboard",
]

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


def player_lines(key: str, *, stack: bool) -> Text:
    """A leaderboard key as text: on one line, or (``stack``) its name then each option on a line
    of its own, so that ``random[random_first_click=true]`` stays whole in a narrow column."""
    parsed = PlayerKey(key)
    if not stack or not parsed.options:
        return Text(key, style="bold")
    parts = parsed.option_texts
    lines = [f"[{part}," if i == 0 else f" {part}," for i, part in enumerate(parts)]
    lines[-1] = lines[-1][:-1] + "]" + (f"@{parsed.tag}" if parsed.tag else "")
    text = Text(parsed.name, style="bold")
    for line in lines:
        text.append("\n" + line)
    return text


def _vs(r: LeaderboardRow, interval: str) -> str:
    """The difference to the leader: ``interval`` is "inline", "stacked" (on a second line) or "none"."""
    if r.diff is None:
        return "leader" if r.rank == 1 else "-"
    diff = f"{100 * r.diff:+.1f}"
    if interval == "none" or r.diff_low is None or r.diff_high is None:
        return diff
    bounds = f"[{100 * r.diff_low:+.1f},{100 * r.diff_high:+.1f}]"
    return f"{diff}\n{bounds}" if interval == "stacked" else f"{diff} {bounds}"


@dataclass(frozen=True)
class _Layout:
    """One way to draw the leaderboard; ``LeaderboardTable`` tries them richest first."""

    extras: bool = True  # moves/win and 3BV solved
    stack_options: bool = False
    interval: str = "inline"  # of vs #1: inline, stacked or none
    hidden: frozenset[str] = field(default_factory=frozenset)
    fold_player: bool = False


def _layouts(leaderboard: Leaderboard) -> Iterator[_Layout]:
    layout = _Layout()
    yield layout
    layout = replace(layout, extras=False)
    yield layout
    if any("[" in r.player for r in leaderboard.rows):
        layout = replace(layout, stack_options=True)
        yield layout
    layout = replace(layout, interval="stacked")
    yield layout
    # `games` says nothing the title does not when every player played every board.
    order = ["ms/g", "guess/g", "p", "games", "95% CI"]
    if all(r.games == leaderboard.config.boards for r in leaderboard.rows):
        order.remove("games")
        order.insert(0, "games")
    for name in order:
        if name == "p":
            layout = replace(layout, interval="none")
            yield layout
        layout = replace(layout, hidden=layout.hidden | {name})
        yield layout
    layout = replace(layout, hidden=layout.hidden | {"vs #1"})
    yield layout
    layout = replace(layout, fold_player=True)
    yield layout
    # Narrower still (a split pane, a phone's terminal): the names and win rates, never a name squeezed to nothing.
    layout = replace(layout, hidden=layout.hidden | {"failed"})
    yield layout
    yield replace(layout, hidden=layout.hidden | {"#"})


def errors_command(tournament_id: str, player: str | None = None, store: str | Path | None = None) -> str:
    """The ``arena errors`` command for a tournament (and player), quoted for a shell."""
    words = ["arena", "errors", tournament_id]
    if player is not None:
        words += ["-p", player]
    if store is not None:  # the default store needs no option
        words += ["--store", str(store)]
    return shlex.join(words)


class LeaderboardTable:
    """The leaderboard as a rich renderable that fits the width it is printed at (with a note of the
    columns it had to leave out)."""

    def __init__(self, leaderboard: Leaderboard) -> None:
        self.leaderboard = leaderboard

    def table(self, layout: _Layout) -> Table:
        leaderboard = self.leaderboard
        caption = f"tournament {leaderboard.config.tournament_id}"
        table = Table(title=Text(leaderboard.title), title_justify="left", caption=Text(caption))
        columns: list[tuple[str, Callable[[LeaderboardRow], str | Text]]] = [
            ("#", lambda r: str(r.rank)),
            ("player", lambda r: player_lines(r.label or r.player, stack=layout.stack_options)),
            ("games", lambda r: str(r.games)),
            ("win %", lambda r: _pct(r.win_rate)),
            ("95% CI", lambda r: f"{_pct(r.ci_low)}-{_pct(r.ci_high)}"),
            ("vs #1", lambda r: _vs(r, layout.interval)),
            ("p", lambda r: "" if r.p_value is None else f"{r.p_value:.2g}"),
            ("guess/g", lambda r: f"{r.guesses_per_game:.2f}"),
        ]
        if layout.extras:
            columns += [
                ("moves/win", lambda r: "-" if r.moves_per_win is None else f"{r.moves_per_win:.1f}"),
                ("3BV solved", lambda r: f"{100 * r.bbbv_solved_fraction:.1f}%"),
            ]
        columns += [("ms/g", lambda r: f"{r.ms_per_game:.2f}"), ("failed", lambda r: str(r.failed))]
        columns = [c for c in columns if c[0] not in layout.hidden]
        for name, _ in columns:
            header = "vs #1 [95% CI]" if name == "vs #1" and layout.interval == "inline" else name
            if name == "player":
                fold = layout.fold_player
                table.add_column(Text(header), no_wrap=not fold, overflow="fold" if fold else "ellipsis")
            else:
                table.add_column(Text(header), justify="right", no_wrap=True)
        for r in leaderboard.rows:
            cells = [cell(r) for _, cell in columns]
            table.add_row(*(c if isinstance(c, Text) else Text(c) for c in cells))
        return table

    def fit(self, console: Console, options: ConsoleOptions) -> tuple[Table, _Layout]:
        """The richest layout whose table fits ``options.max_width`` (else the plainest)."""
        layout = _Layout()
        unbounded = options.update_width(10**6)  # rich clamps a measurement to the width it is given
        for layout in _layouts(self.leaderboard):
            table = self.table(layout)
            if Measurement.get(console, unbounded, table).maximum <= options.max_width:
                return table, layout
        return self.table(layout), layout

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[RenderableType]:
        table, layout = self.fit(console, options)
        yield table
        left_out = sorted(layout.hidden, key=["#", "games", "95% CI", "vs #1", "p", "guess/g", "ms/g", "failed"].index)
        if layout.interval == "none" and "vs #1" not in layout.hidden:
            left_out.insert(0, "the interval of vs #1")
        if left_out:
            yield Text(
                f"Not shown at {options.max_width} columns: {', '.join(left_out)} "
                "(a wider terminal shows them; --json has every figure).",
                style="dim",
            )


def failure_summary(leaderboard: Leaderboard, store: str | Path | None = None) -> list[Text]:
    """One line per player with failed games (how many, by outcome), then the command that says why;
    nothing when every game was played to the end."""
    failing = [r for r in leaderboard.rows if r.failed]
    if not failing:
        return []
    lines = []
    for r in failing:
        kinds = ", ".join(f"{n} {outcome}" for outcome, n in r.failed_by.items() if n)
        line = Text()
        line.append(r.player, style="bold")
        line.append(f" failed {r.failed} of {r.games} games ({kinds})", style="red")
        lines.append(line)
    player = failing[0].player if len(failing) == 1 else None
    hint = Text("See why: ")
    hint.append(errors_command(leaderboard.config.tournament_id, player, store), style="bold")
    return [*lines, hint]


def leaderboard_table(leaderboard: Leaderboard) -> LeaderboardTable:
    """The leaderboard table alone, fitted to the width it is printed at."""
    return LeaderboardTable(leaderboard)


def print_leaderboard(console: Console, leaderboard: Leaderboard, *, store: str | Path | None = None) -> None:
    """The leaderboard as ``arena leaderboard`` and ``arena tournament`` print it: the table, then a
    summary of failed games, if any, whose command stays on one line to copy and paste."""
    console.print(LeaderboardTable(leaderboard))
    if leaderboard.hidden_versions:
        older = leaderboard.hidden_versions
        console.print(
            f"{older} row{'s' if older != 1 else ''} of older versions not shown (--all-versions shows them)",
            style="dim",
            highlight=False,
        )
    summary = failure_summary(leaderboard, store)
    for line in summary[:-1]:
        console.print(line)
    if summary:
        console.print(summary[-1], soft_wrap=True)


def board_text(grid: np.ndarray, exploded: tuple[int, int] | None = None, *, gap: str = " ") -> Text:
    """A board drawn cell by cell: covered, flags, numbers in their classic colours, mines; ``gap`` after each
    cell (none: one column a cell, for a terminal narrower than the spaced board)."""
    text = Text()
    for r, row in enumerate(np.asarray(grid)):
        for c, value in enumerate(row):
            v = int(value)
            if v == COVERED:
                text.append("■" + gap, style="grey62")
            elif v == FLAGGED:
                text.append("⚑" + gap, style="bold red")
            elif v == MINE:
                style = "bold white on red" if exploded == (r, c) else "bold red"
                text.append("✱" + gap, style=style)
            elif v == 0:
                text.append("·" + gap, style=_NUMBER_STYLES[0])
            else:
                text.append(f"{v}{gap}", style=_NUMBER_STYLES[v])
        text.append("\n")
    return text


class BoardView:
    """``board_text`` that fits where it is drawn: spaced cells where the terminal has room for them, one column
    a cell where it has not (an Expert board in a 40-column terminal), never a board row wrapped onto two lines."""

    def __init__(self, grid: np.ndarray, exploded: tuple[int, int] | None = None) -> None:
        self.grid, self.exploded = np.asarray(grid), exploded

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = self.grid.shape[1]
        return Measurement(width, 2 * width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[RenderableType]:
        spaced = 2 * self.grid.shape[1] <= options.max_width
        yield board_text(self.grid, self.exploded, gap=" " if spaced else "")
