"""The ``arena`` command line: one module per command, each a thin layer over the library."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from arena.cli import (
    analyze,
    boards,
    diff,
    errors,
    export,
    leaderboard,
    losses,
    match,
    play,
    players,
    replay,
    sweep,
    tournament,
)
from arena.paths import STORE_ENV, describe_default_store

__all__ = ["app", "main"]

app = typer.Typer(
    name="arena",
    help="Minesweeper bots compete on seeded boards; statistics you can trust.\n\n"
    f"Results are stored in {describe_default_store()}; --store PATH or ${STORE_ENV} picks another store.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
for module in (
    tournament, match, sweep, leaderboard, errors, losses, players, boards, play, replay, diff, analyze, export,
):  # fmt: skip
    app.command(module.NAME, help=module.HELP)(module.command)

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


def _usage_line(error: Exception) -> str:
    """click's errors as one line, instead of a usage block and a boxed message."""
    if isinstance(error, typer.BadParameter) and type(error).__name__ == "BadParameter":
        return _bad_parameter(error)
    text = " ".join(error.format_message().split()).rstrip(".")  # type: ignore[attr-defined]
    text = text[:1].lower() + text[1:]
    ctx = getattr(error, "ctx", None)  # only usage errors have one
    return f"{text} (see `{ctx.command_path} --help`)" if ctx is not None else text


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``arena``; exits with the command's code. Bad command-line usage (an unknown option, a
    value of the wrong type) is one ``error:`` line and exit code 2, like every other bad input."""
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
