"""`arena export`: a stored tournament as CSV or Parquet, one row per (board, player)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console
from arena.results.export import FORMATS, ExportError, write_export
from arena.results.store import Store


@cli_errors
def command(
    tournament: common.TournamentArg = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="csv or parquet.")] = "csv",
    output: Annotated[Path | None, typer.Option("--output", help="File to write.", show_default=False)] = None,
    games: Annotated[int | None, typer.Option("--games", "-n", help="Only the first N boards.")] = None,
    store: common.StoreOpt = None,
) -> None:
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if output is None:
        raise UsageError("--output FILE is required")
    if games is not None and games < 1:
        raise UsageError(f"--games must be at least 1, got {games}")
    with Store(store, read_only=True) as db:
        tid = tournament or db.latest()
        try:
            rows = write_export(db, tid, output, fmt, games)
        except ExportError as error:
            raise UsageError(str(error)) from None
    console.print(f"wrote {rows} rows of tournament {tid} to {output}", highlight=False)
