"""`arena boards`: print the layouts a tournament would play, so anyone can check them."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from arena.cli import common
from arena.cli.common import UsageError, board_from_options, cli_errors, print_json
from engine.board import parse_cell
from engine.layout import board_permutation, check_seed, format_layout, mines_from_permutation


@cli_errors
def command(
    difficulty: common.Difficulty = None,
    size: common.Size = None,
    mines: common.Mines = None,
    first_click: common.FirstClickOpt = "safe",
    seed: common.Seed = 0,
    count: Annotated[int, typer.Option("--count", "-n", help="How many boards.")] = 1,
    start: Annotated[int, typer.Option("--start", help="Index of the first board.")] = 0,
    click: Annotated[str, typer.Option("--click", help="The first click ROW,COL (zero-based).")] = "0,0",
    json_out: common.JsonOpt = False,
) -> None:
    spec, rule = board_from_options(difficulty, size, mines, first_click)
    if count < 0:
        raise UsageError(f"--count must be zero or more, got {count}")
    check_seed(seed)
    check_seed(start, "--start")
    row, col = parse_cell(click)
    spec.check_cell(row, col)
    layouts = []
    out = sys.stdout
    for index in range(start, start + count):
        perm = board_permutation(spec, seed, index)
        grid = mines_from_permutation(spec, perm, rule, (row, col)).reshape(spec.height, spec.width)
        text = format_layout(grid)
        if json_out:
            layouts.append({"index": index, "rows": text.splitlines()})
        else:
            if index > start:
                out.write("\n")
            out.write(text + "\n")
    if json_out:
        print_json(layouts)
