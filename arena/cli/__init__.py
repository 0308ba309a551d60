"""The ``arena`` command line: one module per command, each a thin layer over the library."""

from __future__ import annotations

import typer

from arena.cli import analyze, boards, export, leaderboard, match, play, players, sweep, tournament

__all__ = ["app", "main"]

app = typer.Typer(
    name="arena",
    help="Minesweeper bots compete on seeded boards; statistics you can trust.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
for module in (tournament, match, sweep, leaderboard, players, boards, play, analyze, export):
    app.command(module.NAME, help=module.HELP)(module.command)


def main() -> None:
    app()
