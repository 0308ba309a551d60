"""`arena new-bot`: write a starter kit, a ready bot project in the author's language."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Annotated

import typer

from arena.cli import common
from arena.cli.common import UsageError, cli_errors, print_json
from arena.kits.new_bot import LANGUAGES, SHELLS, KitError, NewBot, engine_bot_option, new_bot


def _shown(path: Path, *, program: bool = True) -> str:
    """``path`` as the user would type it here: relative to the working folder when it is inside it, with a
    leading ``./`` on a bare ``program`` name (``run.sh`` alone is looked up on the PATH, by a shell and by the
    arena)."""
    try:
        relative = path.relative_to(Path.cwd())
    except ValueError:
        return str(path)
    text = str(relative)
    return text if not program or text == "." or os.sep in text else f".{os.sep}{text}"


def _next_steps(kit: NewBot) -> list[tuple[str, str]]:
    folder = shlex.quote(_shown(kit.folder, program=False))
    if kit.shell:  # a course shell's agent: played as NAME=FOLDER under the shell's start, the zero rule
        bot_option = engine_bot_option(kit.name, _shown(kit.folder, program=False))
        return [
            (f"arena check-bot {bot_option}", "does it load and play?"),
            (f"arena play --first-click zero {bot_option}", "watch one game"),
            (
                f"arena tournament -d beginner --first-click zero -n 200 {bot_option} -p {kit.name},random",
                "against random",
            ),
            (f"arena losses -p {kit.name}", "why it lost each game"),
        ]
    bot_option = engine_bot_option(kit.name, _shown(kit.run_script))
    return [
        (shlex.quote(_shown(kit.build_script)), "check the syntax" if kit.language == "python" else "build it"),
        (
            kit.test_command if folder == "." else f"cd {folder} && {kit.test_command}",
            "the client's and your strategy's tests",
        ),
        (f"arena check-bot {bot_option}", "check that it speaks the protocol as a tournament needs"),
        (f"arena tournament -d beginner -n 200 {bot_option} -p {kit.name},random", "against random"),
        (f"arena play {bot_option}", "watch it play one game"),
    ]


@cli_errors
def command(
    name: Annotated[str, typer.Argument(help="The bot's name: 1-64 lower-case letters, digits, '.', '_' or '-'.")],
    language: Annotated[
        str,
        typer.Option(
            "--language",
            "-l",
            help=f"The kit's language: {', '.join(LANGUAGES)}; or a course shell: {', '.join(SHELLS)}.",
            show_default=False,
        ),
    ],
    directory: Annotated[
        Path | None,
        typer.Option("--dir", help="The folder to write (new, or empty). Default: ./NAME.", show_default=False),
    ] = None,
    json_out: common.JsonOpt = False,
) -> None:
    try:
        kit = new_bot(name, language, directory)
    except KitError as error:
        raise UsageError(str(error)) from None
    steps = _next_steps(kit)
    if json_out:
        print_json(
            {
                "name": kit.name,
                "language": kit.language,
                "folder": str(kit.folder),
                "strategy": str(kit.strategy_file),
                "files": [str(path) for path in kit.files],
                "engine_bot": engine_bot_option(kit.name, str(kit.run_script)).removeprefix("--engine-bot "),
                "next": [command for command, _ in steps],
            }
        )
        return
    width = max(len(command) for command, _ in steps[:2])
    lines = [
        f"wrote the {kit.language} starter kit of {kit.name!r} to {_shown(kit.folder, program=False)}{os.sep} "
        f"({len(kit.files)} files)",
        f"your strategy, the one file to edit: {_shown(kit.strategy_file, program=False)}",
        "next:",
        *(f"  {command:<{width}}  # {why}" for command, why in steps[:2]),
        *(line for command, why in steps[2:] for line in (f"  # {why}:", f"  {command}")),
    ]
    typer.echo("\n".join(lines))
