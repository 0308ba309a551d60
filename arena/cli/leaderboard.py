"""`arena leaderboard`: show, list or publish a stored tournament."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena.cli.common import JsonOpt, StoreOpt, UsageError, cli_errors, console, print_json
from arena.cli.render import leaderboard_table
from arena.leaderboard import build_leaderboard, publish
from arena.store import DEFAULT_STORE, Store


@cli_errors
def command(
    tournament: Annotated[
        str | None, typer.Option("--tournament", "-t", help="Tournament id (see --list); default: the latest.")
    ] = None,
    games: Annotated[int | None, typer.Option("--games", "-n", help="Only the first N boards.")] = None,
    list_all: Annotated[bool, typer.Option("--list", help="List the stored tournaments.")] = False,
    publish_to: Annotated[
        Path | None,
        typer.Option(
            "--publish",
            help="Write <difficulty>-<rule>.md and .json into this folder (leaderboards/ by convention).",
            show_default=False,
        ),
    ] = None,
    store: StoreOpt = DEFAULT_STORE,
    json_out: JsonOpt = False,
) -> None:
    if games is not None and games < 1:
        raise UsageError(f"--games must be at least 1, got {games}")
    with Store(store, create=False) as db:
        if list_all:
            rows = db.tournaments()
            if json_out:
                print_json(rows)
                return
            table = Table(title=f"tournaments in {store}", title_justify="left")
            for column in ("id", "difficulty", "rule", "seed", "games", "rows_stored", "updated"):
                table.add_column(column)
            for r in rows:
                table.add_row(
                    *(str(r[c]) for c in ("id", "difficulty", "rule", "seed", "games", "rows_stored", "updated"))
                )
            console.print(table)
            return
        board = build_leaderboard(db, tournament, games)
    if publish_to is not None:
        md, js = publish(board, publish_to)
        if not json_out:
            console.print(f"published {md} and {js}", highlight=False)
    if json_out:
        print_json(board.model_dump())
    else:
        console.print(leaderboard_table(board))
