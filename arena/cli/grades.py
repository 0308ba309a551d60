"""`arena grades`: a course's grades from a competition's published results, without playing anything again."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import UsageError, cli_errors, err_console
from arena.competition.standings import grades_csv, grades_from_results


@cli_errors
def command(
    results: Annotated[
        Path,
        typer.Argument(
            help="The leaderboard.json that `arena compete` wrote into its results folder (NAME-results/).",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write the CSV to this file (default: standard output).", show_default=False),
    ] = None,
) -> None:
    """Grades from a competition's leaderboard.json: the CSV `arena compete --grades` writes, one row per entrant
    (those left out too): entrant, owner, each set's wins and games, points (each win worth its set's points),
    rank."""
    path = results.expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: a folder; give the leaderboard.json in it") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot read it: {getattr(error, 'strerror', None) or error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{path}:{error.lineno}: not JSON: {error.msg}") from None
    try:
        grades = grades_from_results(data)
    except ValueError as error:
        raise UsageError(f"{path}: {error}") from None
    buffer = io.StringIO(newline="")
    grades_csv(buffer, grades.sets, grades.table, grades.entrants)
    if out is None:
        sys.stdout.write(buffer.getvalue())
        return
    target = out.expanduser()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    except OSError as error:
        raise UsageError(f"cannot write {target}: {error.strerror or error}") from None
    err_console.print(f"wrote the grades of {len(grades.entrants)} entrants to {target}", highlight=False, markup=False)
