"""`arena leaderboard`: show, list or publish a stored tournament."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from arena.analysis.leaderboard import build_leaderboard, publish
from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console, plain_table, print_json
from arena.cli.render import print_leaderboard
from arena.results.store import Store
from arena.results.stored import StoredTournament


@cli_errors
def command(
    tournament: common.TournamentArg = None,
    tournament_opt: Annotated[
        str | None, typer.Option("--tournament", "-t", hidden=True, help="The tournament id, as an option.")
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
    force: Annotated[
        bool, typer.Option("--force", help="With --publish: replace files that hold another tournament.")
    ] = False,
    all_versions: common.AllVersionsOpt = False,
    store: common.StoreOpt = None,
    json_out: common.JsonOpt = False,
) -> None:
    if tournament_opt is not None:  # the older spelling, kept for scripts that use it
        if tournament is not None and tournament != tournament_opt:
            raise UsageError(f"two tournaments given: {tournament!r} and --tournament {tournament_opt!r}")
        tournament = tournament_opt
    if games is not None and games < 1:
        raise UsageError(f"--games must be at least 1, got {games}")
    if force and publish_to is None:
        raise UsageError("--force goes with --publish DIR")
    with Store(store, read_only=True) as db:
        if list_all:
            rows = db.tournaments()
            if json_out:
                print_json([r.listing() for r in rows])
                return
            console.print(tournaments_table(rows, db.path))
            return
        leaderboard = build_leaderboard(db, tournament, games, all_versions=all_versions)
    if publish_to is not None:
        md, js = publish(leaderboard, publish_to, force=force)
        if not json_out:
            console.print(Text(f"published {md} and {js}"))
    if json_out:
        print_json(leaderboard.model_dump())
    else:
        print_leaderboard(console, leaderboard, store=store)


def tournaments_table(rows: list[StoredTournament], store: Path) -> Table:
    """The stored tournaments, newest first; narrow enough for 80 columns (the board's size and rule
    share a column that wraps, the time is shown to the minute)."""
    table = plain_table(f"tournaments in {store}")
    table.add_column("id", no_wrap=True)
    table.add_column("board")
    for column in ("seed", "games", "stored"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("updated (UTC)", no_wrap=True)
    for r in rows:
        updated = r.updated.replace("T", " ")[:16]
        cells = (r.id, f"{r.difficulty}, {r.rule.value}", r.seed, r.boards, r.games_stored, updated)
        table.add_row(*(Text(str(c)) for c in cells))
    return table
