"""`arena analyze`: exact mine probabilities of a position, as a heat map, and the best move."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table
from rich.text import Text

from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console, print_json
from engine import COVERED, FLAGGED
from engine.board import MAX_CELLS, MAX_SIDE
from engine.layout import parse_position
from players.solver import Analysis, analyze

#: The most bytes a position may have: every cell of the largest board, a line break (CRLF) per row, and as much
#: again for indentation. The parser checks the real size (``MAX_SIDE``, ``MAX_CELLS``); this stops reading first.
MAX_POSITION_BYTES = 2 * (MAX_CELLS + 2 * MAX_SIDE)


def read_position(position: str) -> str:
    """The text of the position file (``-``: standard input), refused in one line when it is larger than any
    position can be or is not UTF-8 text, before anything is built from it."""
    if position == "-":
        data = sys.stdin.buffer.read(MAX_POSITION_BYTES + 1)
        name = "standard input"
    else:
        path = Path(position)
        if not path.is_file():
            raise UsageError(f"position file {position!r} does not exist")
        with path.open("rb") as file:
            data = file.read(MAX_POSITION_BYTES + 1)
        name = repr(position)
    if len(data) > MAX_POSITION_BYTES:
        raise UsageError(
            f"the position in {name} is larger than {MAX_POSITION_BYTES} bytes: a position has at most {MAX_SIDE} "
            f"rows, {MAX_SIDE} columns and {MAX_CELLS} cells, the largest board a tournament plays"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UsageError(
            f"the position in {name} is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}); "
            "a position is lines of '#', 'F' and '0'-'8'"
        ) from None


def best_move(result: Analysis) -> tuple[int, int] | None:
    """A certainly safe cell if there is one, else the least likely mine (first in reading order)."""
    if result.safe:
        return result.safe[0]
    guesses = result.best_guesses()
    return guesses[0] if guesses else None


def _heat(p: float) -> str:
    # Green (safe) through yellow to red (mine): the colour carries the number at a glance.
    red = int(255 * min(1.0, 2 * p))
    green = int(255 * min(1.0, 2 * (1 - p)))
    return f"black on rgb({red},{green},60)"


def heat_map(grid: np.ndarray, result: Analysis, best: tuple[int, int] | None) -> Table:
    table = Table(show_header=False, box=None, padding=(0, 0))
    for _ in range(grid.shape[1]):
        table.add_column(justify="center", width=5)
    safe, mines = set(result.safe), set(result.mines)
    for r in range(grid.shape[0]):
        cells = []
        for c in range(grid.shape[1]):
            value = int(grid[r, c])
            if value == FLAGGED:
                cells.append(Text(" F ", style="bold red"))
            elif value != COVERED:
                cells.append(Text(f" {value} ", style="bold"))
            elif (r, c) in safe:
                cells.append(Text(" safe" if (r, c) != best else ">safe", style="bold black on green"))
            elif (r, c) in mines:
                cells.append(Text(" mine", style="bold white on red"))
            else:
                p = result.probabilities[r, c]
                mark = ">" if (r, c) == best else " "
                cells.append(Text(f"{mark}{100 * p:3.0f}%", style=_heat(p)))
        table.add_row(*cells)
    return table


@cli_errors
def command(
    position: Annotated[str, typer.Argument(help="Position file, or '-' to read standard input.")],
    mines: Annotated[int, typer.Option("--mines", "-m", help="Total mines on the board (flags count as mines).")],
    unweighted: Annotated[
        bool, typer.Option("--unweighted", help="Count frontier solutions alike (the published full enumeration).")
    ] = False,
    json_out: common.JsonOpt = False,
) -> None:
    if mines < 0:
        raise UsageError(f"--mines must be zero or more, got {mines}")
    grid = parse_position(read_position(position))
    result = analyze(grid, mines, weighted=not unweighted)
    best = best_move(result)
    if json_out:
        probabilities = [[None if math.isnan(p) else round(float(p), 12) for p in row] for row in result.probabilities]
        print_json(
            {
                "probabilities": probabilities,
                "safe": [list(cell) for cell in result.safe],
                "mines": [list(cell) for cell in result.mines],
                "best": list(best) if best else None,
            }
        )
        return
    console.print(heat_map(grid, result, best))
    if best is None:
        console.print("no covered cell left to play")
    else:
        p = result.probabilities[best]
        kind = "certainly safe" if p == 0 else f"mine probability {100 * p:.2f}%"
        console.print(
            f"best move: reveal {best[0]},{best[1]} ({kind}) · {len(result.safe)} safe, {len(result.mines)} "
            f"certain mines · log(layouts) = {result.log_weight:.3f}",
            highlight=False,
        )
