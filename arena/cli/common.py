"""What every command shares: options, one-line errors, tables and JSON output.

A command names a shared option by its module (``common.Seed``, ``player_options.WorkersOpt``): one
import line instead of the same list of option names in every command that plays games.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from arena.paths import STORE_ENV, describe_default_store

if TYPE_CHECKING:
    from engine import BoardSpec, FirstClick

__all__ = [
    "AllVersionsOpt",
    "Difficulty",
    "FirstClickOpt",
    "JsonOpt",
    "Mines",
    "PluginOpt",
    "Seed",
    "Size",
    "StoreOpt",
    "TournamentArg",
    "UsageError",
    "board_from_options",
    "cli_errors",
    "console",
    "err_console",
    "plain_table",
    "print_json",
]

# Tables need room: when stdout is not a terminal (a pipe, a CI log) rich would assume 80 columns.
# An explicit COLUMNS (`COLUMNS=80 arena leaderboard | less`) is honoured, as rich does in a terminal.
console = Console(width=None if sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit() else 160)
err_console = Console(stderr=True)

T = TypeVar("T", bound=Callable[..., Any])


class UsageError(Exception):
    """Bad input the command itself detects."""


Difficulty = Annotated[
    str | None,
    typer.Option("--difficulty", "-d", help="beginner, intermediate or expert (or HxW/M).", show_default=False),
]
Size = Annotated[str | None, typer.Option("--size", help="Custom board HxW (rows x columns), with --mines.")]
Mines = Annotated[int | None, typer.Option("--mines", help="Mine count for --size.")]
FirstClickOpt = Annotated[
    str, typer.Option("--first-click", help="First-click rule: safe, opening, none, windows or zero.")
]
Seed = Annotated[int, typer.Option("--seed", help="Tournament seed: the same seed plays the same boards.")]
AllVersionsOpt = Annotated[
    bool,
    typer.Option("--all-versions", help="A row for every version of each player (default: its latest version)."),
]
StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help=f"SQLite results store. Default: {describe_default_store()}; ${STORE_ENV} changes the default.",
        show_default=False,
    ),
]
TournamentArg = Annotated[
    str | None,
    typer.Argument(help="Tournament id (see `arena leaderboard --list`); default: the latest.", show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON on stdout instead of a table.")]
PluginOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--plugin",
        help="Load players from a local Python file, or a folder with __init__.py or bot.py (repeatable); "
        "ALIAS=PATH plays its player under the name ALIAS; PATH@REV plays it as it was at a git revision "
        "(base=bots/my_bot.py@HEAD~1).",
        show_default=False,
    ),
]


def board_from_options(
    difficulty: str | None, size: str | None, mines: int | None, rule: str
) -> tuple[BoardSpec, FirstClick]:
    from engine import FirstClick
    from engine.board import resolve_board

    if difficulty is None and size is None:
        difficulty = "beginner"
    spec = resolve_board(difficulty, size, mines)
    first_click = FirstClick.parse(rule)
    spec.check_rule(first_click)
    return spec, first_click


def plain_table(title: str | None = None, **kwargs: object) -> Table:
    """A table in the house style, its title as plain text (a store path or a name is not markup)."""
    return Table(title=Text(title) if title else None, title_justify="left", **kwargs)  # type: ignore[arg-type]


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


#: The errors a user can cause, by module: a module that was never imported cannot have raised its error, so
#: ``cli_errors`` needs no import (and a light command does not pay for numba to catch a solver's error).
_USER_ERRORS = (
    ("engine.errors", "EngineError"),
    ("players.api", "PlayerError"),
    ("players.solver.errors", "SolverError"),
    ("arena.results.store", "StoreError"),
    ("arena.analysis.leaderboard", "PublishError"),
    ("arena.results.records", "RecordError"),
    ("arena.analysis.replay.model", "ReplayError"),
    ("arena.results.export", "ExportError"),
    ("arena.experiments.sweep", "SweepError"),
    ("pydantic", "ValidationError"),
)


def _user_error(error: BaseException) -> bool:
    if isinstance(error, (UsageError, OSError)):
        return True
    for module, name in _USER_ERRORS:
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(error, getattr(loaded, name)):
            return True
    return False


def _one_line(error: BaseException) -> str:
    from pydantic import ValidationError

    if isinstance(error, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
    if isinstance(error, OSError) and error.filename and error.strerror:
        return f"{error.filename}: {error.strerror}"  # as a shell says it, not "[Errno 2] No such file ...: 'x'"
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def cli_errors(func: T) -> T:
    """Turn the errors a user can cause into one line on stderr and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except Exception as error:
            if not _user_error(error):
                raise
            err_console.print("[bold red]error:[/]", escape(_one_line(error)), highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]
