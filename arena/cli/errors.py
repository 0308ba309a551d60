"""`arena errors`: why a player's games failed, and the command that replays each kind of failure."""

from __future__ import annotations

import inspect
import json
import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from arena.analysis.failures import FailureReport, PlayerFailures, build_failure_report
from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console, plain_table, print_json
from arena.isolation.discovery.revisions import revision_of
from arena.limits import EngineBot
from arena.results.store import Store
from players.registry import FILE_SOURCE, plugin_spec


@cli_errors
def command(
    tournament: common.TournamentArg = None,
    player: Annotated[
        str | None,
        typer.Option(
            "--player",
            "-p",
            help="A player as the leaderboard names it; default: every player with failed games.",
            show_default=False,
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", help="Distinct errors shown per player.")] = 5,
    store: common.StoreOpt = None,
    json_out: common.JsonOpt = False,
) -> None:
    if limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}")
    with Store(store, read_only=True) as db:
        report = build_failure_report(db, tournament, player, limit)
    for entry in report.players:
        for failure in entry.failures:
            failure.reproduce = reproduce_command(report, entry, failure.board)
    if json_out:
        print_json(report.model_dump())
        return
    c = report.config
    console.print(Text(f"tournament {c.tournament_id}: {_board_title(report)}", style="bold"))
    if not report.players:
        console.print(Text("No failed games: every game was played to the end by the rules."))
    for entry in report.players:
        _print_player(entry)


def _board_title(report: FailureReport) -> str:
    c = report.config
    return f"{c.difficulty} ({c.height}x{c.width}, {c.mines} mines) · first click {c.rule} · seed {c.seed}"


def _print_player(entry: PlayerFailures) -> None:
    console.print()
    head = Text()
    head.append(entry.player, style="bold")
    head.append(f" ({entry.source})" if entry.source else "")
    head.append(f": {entry.failed} of {entry.games} games failed", style="red" if entry.failed else None)
    console.print(head)
    console.print(outcome_table(entry))
    console.print()
    if not entry.failed:
        return
    shown = len(entry.failures)
    more = f" (the first {shown}; --limit shows more)" if entry.distinct > shown else ""
    console.print(Text(f"{entry.distinct} distinct error{'s' if entry.distinct != 1 else ''}{more}:"))
    for number, failure in enumerate(entry.failures, 1):
        games = f"{failure.games} game{'s' if failure.games != 1 else ''}"
        console.print(Text(f"{number}. {failure.outcome} in {games}, first on board {failure.board}:"))
        console.print(Padding(Text(failure.message), (0, 0, 0, 3), expand=False))
        if failure.stderr:
            tail = "\n".join(failure.stderr[-5:])
            console.print(Padding(Text(f"its last stderr lines:\n{tail}", style="dim"), (0, 0, 0, 3), expand=False))
        if failure.reproduce:
            line = Text("   replay: ")
            line.append(failure.reproduce, style="bold")
            console.print(line, soft_wrap=True)  # one line, to copy and paste
        else:
            console.print(Text("   (a player with options: `arena play` cannot replay it)"))


def outcome_table(entry: PlayerFailures) -> Table:
    table = plain_table(None, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("outcome")
    table.add_column("games", justify="right")
    for outcome, n in entry.outcomes.items():
        table.add_row(Text(outcome), Text(str(n)), style="red" if outcome not in ("won", "lost") else None)
    return table


def _play_takes_options() -> bool:
    """Whether `arena play` accepts player options (``-o``), so that a player with options can be replayed."""
    from arena.cli import play

    return "option" in inspect.signature(play.command).parameters


def _shell_folder(name: str, command: list[str], folder: str | None) -> str | None:
    """The agent's folder when ``command`` is the course-shell adapter's (``EngineBot.shell``), else None."""
    try:
        return EngineBot(name=name, command=tuple(command), folder=folder).shell_folder
    except ValueError:
        return None


def reproduce_command(report: FailureReport, entry: PlayerFailures, board: int) -> str | None:
    """``arena play`` on ``board`` for this player (an engine bot started again by its stored command), or None
    where `arena play` cannot run it (a player with options while `arena play` takes none, an engine bot whose
    command was not stored)."""
    if entry.options and not _play_takes_options():
        return None
    c = report.config
    words = ["arena", "play", "--player", entry.name]
    if entry.name in report.engine_bots:
        command, folder = report.engine_commands.get(entry.name, ([], None))
        if not command:
            return None
        shell = _shell_folder(entry.name, command, folder)
        if shell is not None:  # a course-shell agent: its folder, as it was given (the adapter is the arena's)
            words += ["--engine-bot", f"{entry.name}={shell}"]
        else:
            words += ["--engine-bot", f"{entry.name}={shlex.join(command)}"]
            if folder:
                words += ["--bot-dir", f"{entry.name}={folder}"]
    elif entry.source.startswith(FILE_SOURCE):
        words += ["--plugin", plugin_argument(entry.source.removeprefix(FILE_SOURCE))]
    words += ["-d", c.difficulty]
    if c.rule != "safe":
        words += ["--first-click", c.rule]
    words += ["--seed", str(c.seed), "--board", str(board)]
    for key, value in sorted(entry.options.items()):
        words += ["-o", f"{entry.name}.{key}={json.dumps(value)}"]
    return shlex.join(words)


def plugin_argument(spec: str) -> str:
    """The ``--plugin`` value that loads a stored player's plugin again: its source's ``[ALIAS=]PATH`` (the alias
    kept: the player has that name only under it), and for a plugin read at a git revision, its path in its
    repository at the commit it was read at (``base=/repo/bots/my_bot.py@3f2a1bc4d5e6``) rather than the
    arena's cached copy."""
    alias, path = plugin_spec(spec)
    revision = revision_of(path)
    if revision is not None:
        path = f"{Path(revision.repo, revision.path)}@{revision.changed[:12]}"
    return f"{alias}={path}" if alias else path
