"""The ``arena`` command line: one module per command, each a thin layer over the library.

Commands load lazily. ``arena --help`` lists them from ``COMMANDS`` without importing any of
them, and running a command imports only its own module (``arena.cli.<name>``, '-' read as '_', which exports
``command``): numba, the solvers and the store cost start-up time only to the commands that use
them. ``arena COMMAND --help`` loads that command, so it shows every option as usual.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from arena.paths import STORE_ENV, describe_default_store

__all__ = ["COMMANDS", "app", "main"]

#: Every command, in the order ``arena --help`` lists them, with its help; ``arena.cli.<name>`` holds it
#: (``check-bot``: ``arena.cli.check_bot``).
COMMANDS: dict[str, str] = {
    "tournament": "Play a tournament: every player on the same seeded boards; prints the leaderboard.",
    "compete": "Run a competition file (docs/competitions.md): build the kits in the sandbox, check every entrant "
    "(one that fails is left out, with the reason), play, resumably, and publish the leaderboard (markdown, JSON, "
    "a static site).",
    "match": "Is CAND better than BASE? Play both on the same boards, in batches, until a sequential test decides "
    "'better by --delta points or more' or 'no better'. Exit code: 0 better, 1 not better, 3 undecided at "
    "--max-games, 2 an error.",
    "sweep": "Win rate against mine density: a grid of tournaments (sizes x densities), a table, a CSV and a plot.",
    "leaderboard": "Show a stored tournament's leaderboard (default: the latest), list tournaments, or publish one.",
    "history": "A player's win rate per version, across tournaments of the same board and rule, and each "
    "version's paired difference to the one before it.",
    "errors": "Why games failed: outcome counts and each distinct error, with the `arena play` command that "
    "replays it.",
    "losses": "Classify a player's lost and failed games (blunder, fifty_fifty, forced, suboptimal, failure) by "
    "the exact mine probabilities before the fatal move, with its guesses and their expected losses.",
    "replay": "Write one stored game as an HTML replay that opens offline: -p NAME (or -p A,B side by side) on "
    "--board N of TOURNAMENT (default: the latest), or --latest-loss for the player's last lost board.",
    "diff": "The boards exactly one of two players won (TOURNAMENT default: the latest), with the move where their "
    "play first diverged; --html DIR writes a side-by-side replay of each and an index page.",
    "grades": "A course's grades from the leaderboard.json `arena compete` published: one CSV row per entrant "
    "(owner, each set's wins and games, points, rank), as `arena compete --grades` writes them.",
    "players": "List the registered players and the state of every plugin.",
    "boards": "Print the mine layouts of a tournament's boards ('*' mine, '.' safe; a blank line between boards).",
    "play": "Watch one game: a player (built-in, --plugin or --engine-bot) on board --board of --seed, drawn after "
    "every move; exit code 1 when the player fails. --replay TOURNAMENT steps through a stored game instead.",
    "analyze": "Exact mine probabilities of a position file ('#' covered, 'F' flag, 0-8; '-' for stdin) and the "
    "best move.",
    "check-bot": "Check that a bot speaks the protocol as a tournament needs: scripted situations, one row per "
    "check with what was expected and what came; exit code 0 only when every check passes.",
    "export": "Export a stored tournament (default: the latest) as CSV or Parquet, one row per (board, player).",
    "serve": "Serve the competition's pages (tournaments, leaderboards, players, replays, comparisons, sweeps) "
    "from the store, read-only, on 127.0.0.1; pages of a tournament being played update by themselves.",
    "site": "Write the competition's pages as a static site into OUT (every tournament, or those named): they open "
    "from file:// and from any static web host.",
    "host": "Host a competition people submit bots to (docs/hosting.md): the pages, the submission API, the queue "
    "that builds, checks and plays each submission in the sandbox, public and private boards; --close ends it.",
    "entrant": "The entrants of a hosted competition: add NAME --owner (prints its token once), revoke NAME, list.",
    "submit": "Send a bot's folder to a competition `arena host` runs (the token from --token-file or $ARENA_TOKEN); "
    "--wait follows it: exit 0 ranked, 1 its build or checks failed, 2 bad input.",
    "new-bot": "Write a starter kit: a ready bot project in python, javascript, cpp, rust or java that speaks the "
    "protocol; prints the --engine-bot option that plays it.",
}


#: Set by ``main``: this process is the ``arena`` command, which imports one command's modules and then runs it.
_COMMAND_PROCESS = False


def load_command(name: str) -> TyperCommand:
    """The full command ``name``: import its module and let typer read the options off ``command``.

    In the ``arena`` process itself (``main``), the import runs with the cyclic garbage collector paused, and
    what it leaves alive (modules, classes, numba's and pydantic's tables: hundreds of thousands of objects, none
    of them garbage) is then frozen out of the collector's sight (``gc.freeze``): otherwise the collector walks
    them again and again as they are made, and then at every full collection of the command's own work (measured:
    134 ms of the 0.98 s a one-game tournament takes, docs/solver.md)."""
    paused = _COMMAND_PROCESS and gc.isenabled()
    if paused:
        gc.disable()
    try:
        module = importlib.import_module(f"arena.cli.{name.replace('-', '_')}")  # check-bot: arena.cli.check_bot
    finally:
        if paused:
            gc.freeze()
            gc.enable()
    single = typer.Typer(add_completion=False)
    single.command(name, cls=FoldingCommand, help=COMMANDS[name])(module.command)
    command = typer.main.get_command(single)
    assert isinstance(command, TyperCommand)
    return command


class FoldingCommand(TyperCommand):
    """A command whose help folds a word too long for its column onto the next line (a store's path, an
    example like ``base=bots/my_bot.py@HEAD~1``) instead of cutting it with an ellipsis at 80 columns."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _fold_help_text()
        super().format_help(ctx, formatter)


def _fold_help_text() -> None:
    """Make typer's help text fold rather than cut (``rich_utils._make_rich_text``; once, at the first help)."""
    from rich.text import Text
    from typer import rich_utils

    made = rich_utils._make_rich_text
    if getattr(made, "folds", False):
        return

    def folding(*, text: str, style: str = "", markup_mode: Any) -> Any:
        rendered = made(text=text, style=style, markup_mode=markup_mode)
        if isinstance(rendered, Text):
            rendered.overflow = "fold"
        return rendered

    folding.folds = True  # type: ignore[attr-defined]
    rich_utils._make_rich_text = folding


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


@app.callback(
    help="Minesweeper bots compete on seeded boards; statistics you can trust.\n\n"
    f"Results are stored in {describe_default_store()}; --store PATH or ${STORE_ENV} picks another store."
)
def _root() -> None:
    # A callback makes typer build a group (LazyGroup) even though no command is registered with it.
    pass


#: click's exception classes, wherever this typer keeps click (it vendors its own copy since 0.22).
_CLICK_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
#: pydantic error types (typer >= 0.22 converts values with pydantic) in click's words.
_KIND = {
    "int_parsing": "a valid integer",
    "int_from_float": "a valid integer",
    "int_type": "a valid integer",
    "float_parsing": "a valid number",
    "float_type": "a valid number",
    "bool_parsing": "a valid boolean",
}


def _bad_parameter(error: typer.BadParameter) -> str:
    """``--seed: 'abc' is not a valid integer``: the option as the user typed it, then what was wrong."""
    param = error.param
    opts = getattr(param, "opts", None) or []
    if error.param_hint:
        name = error.param_hint if isinstance(error.param_hint, str) else error.param_hint[0]
    elif param is not None and getattr(param, "param_type_name", "") == "option" and opts:
        name = next((o for o in opts if o.startswith("--")), opts[0])
    else:
        name = param.human_readable_name if param is not None else "value"
    text = error.message.rstrip(".")
    errors = getattr(error.__cause__, "errors", None)
    if callable(errors):
        first = errors()[0]
        value = first.get("input")
        if first.get("type") in _KIND:
            text = f"{value!r} is not {_KIND[first['type']]}"
        else:
            text = first.get("msg", text).removeprefix("Value error, ").rstrip(".")
    return name.strip("'") + ": " + text


def _has_option(ctx: Any, name: str) -> bool:
    return ctx is not None and any(name in getattr(param, "opts", ()) for param in ctx.command.params)


def _usage_line(error: Exception) -> str:
    """click's errors as one line, instead of a usage block and a boxed message."""
    if isinstance(error, typer.BadParameter) and type(error).__name__ == "BadParameter":
        return _bad_parameter(error)
    ctx = getattr(error, "ctx", None)  # only usage errors have one
    if getattr(error, "option_name", None) == "-o" and _has_option(ctx, "--output"):
        # -o is a player option (--option) wherever it exists; a file to write is always --output.
        return "no such option: -o; the file to write is --output FILE (-o is --option, a player option, elsewhere)"
    text = " ".join(error.format_message().split()).rstrip(".")  # type: ignore[attr-defined]
    text = text[:1].lower() + text[1:]
    return f"{text} (see `{ctx.command_path} --help`)" if ctx is not None else text


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``arena``; exits with the command's code. Bad command-line usage (an unknown option, a
    value of the wrong type) is one ``error:`` line and exit code 2, like every other bad input."""
    global _COMMAND_PROCESS
    _COMMAND_PROCESS = True
    # numpy's OpenBLAS starts a thread per core when numpy is imported (about 50 ms of CPU at every start, and
    # threads that spin after each product large enough to share): the arena's parallelism is one worker process
    # per core, whose children inherit this. Products give the same numbers either way (benchmarks/same_games.py
    # prints the same hash with one thread); a user's own setting is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv, prog_name="arena", standalone_mode=False)
    except _CLICK_ERROR as error:
        if type(error).__name__ == "NoArgsIsHelpError":  # plain `arena`: the help is already printed
            sys.exit(error.exit_code)
        sys.stderr.write(f"error: {_usage_line(error)}\n")
        sys.exit(error.exit_code)
    except typer.Abort:
        sys.stderr.write("aborted\n")
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
