"""The ``arena`` command line: one module per command, each a thin layer over the library.

Commands load lazily. ``arena --help`` lists them from ``COMMANDS`` without importing any of
them, and running a command imports only its own module (``arena.cli.<name>``, which exports
``command``): numba, the solvers and the store cost start-up time only to the commands that use
them. ``arena COMMAND --help`` loads that command, so it shows every option as usual.
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

__all__ = ["COMMANDS", "app", "main"]

#: Every command, in the order ``arena --help`` lists them, with its help; ``arena.cli.<name>`` holds it.
COMMANDS: dict[str, str] = {
    "tournament": "Play a tournament: every player on the same seeded boards; prints the leaderboard.",
    "leaderboard": "Show a stored tournament's leaderboard (default: the latest), list tournaments, or publish one.",
    "players": "List the registered players and the state of every plugin.",
    "boards": "Print the mine layouts of a tournament's boards ('*' mine, '.' safe; a blank line between boards).",
    "play": "Watch one game: a player on board --board of --seed, drawn after every move.",
    "analyze": "Exact mine probabilities of a position file ('#' covered, 'F' flag, 0-8; '-' for stdin) and the "
    "best move.",
}


def load_command(name: str) -> TyperCommand:
    """The full command ``name``: import its module and let typer read the options off ``command``."""
    module = importlib.import_module(f"arena.cli.{name}")
    single = typer.Typer(add_completion=False)
    single.command(name, help=COMMANDS[name])(module.command)
    command = typer.main.get_command(single)
    assert isinstance(command, TyperCommand)
    return command


class LazyGroup(TyperGroup):
    """Holds a stand-in (name and help, nothing to run) per command until the command is used."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, text in COMMANDS.items():
            self.commands.setdefault(name, TyperCommand(name, help=text))

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        if name in COMMANDS and command is not None and command.callback is None:
            command = self.commands[name] = load_command(name)
        return name, command, rest


app = typer.Typer(
    name="arena",
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Minesweeper bots compete on seeded boards; statistics you can trust."""
    # A callback makes typer build a group (LazyGroup) even though no command is registered with it.


def main() -> None:
    app()
