"""`arena check-bot`: play a bot through scripted situations and say, check by check, whether it
speaks the protocol as a tournament needs (``arena.isolation.check_bot.check``): before a tournament, not as
a column of failed games after it. Exit code 0 only when every check passes; 1 when one fails; 2
for bad input and for a command that does not start."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from arena.cli import common, player_options
from arena.cli.common import UsageError, cli_errors, console, err_console, plain_table, print_json
from arena.cli.player_options import (
    build_shells,
    check_bare_names,
    check_commands,
    check_programs,
    check_sandbox,
    limits_from,
    with_bot_dirs,
)
from arena.isolation.check_bot.check import (
    BotDidNotStart,
    CheckResult,
    Target,
    as_json,
    check_bot,
    engine_target,
    load_failure,
    plugin_target,
)
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.isolation.discovery.revisions import materialize_plugins
from arena.isolation.sandbox import bubblewrap as sandboxes
from arena.limits import DEFAULT_LIMITS, EngineBot, Isolation, Limits, SandboxMode
from players.registry import FILE_SOURCE, plugin_path, resolved_plugin

__all__ = ["command", "print_report"]


@cli_errors
def command(
    engine_bots: Annotated[
        list[str] | None,
        typer.Option(
            "--engine-bot",
            metavar="NAME=COMMAND",
            help="NAME=COMMAND [ARGS]: the bot to check (docs/protocol.md).",
            show_default=False,
        ),
    ] = None,
    plugins: Annotated[
        list[Path] | None,
        typer.Option(
            "--plugin",
            metavar="FILE",
            help="A plugin file or folder to check, behind the arena's Python host (PATH@REV: as it was at a git "
            "revision).",
            show_default=False,
        ),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option(
            "--player", "-p", help="The plugin's player to check, when it registers several.", show_default=False
        ),
    ] = None,
    bot_dir: player_options.BotDirOpt = None,
    sandbox: player_options.SandboxOpt = SandboxMode.AUTO,
    move_time: player_options.MoveTimeOpt = DEFAULT_LIMITS.move_time,
    game_time: player_options.GameTimeOpt = DEFAULT_LIMITS.game_time,
    memory_mb: player_options.MemoryOpt = DEFAULT_LIMITS.memory_mb,
    json_out: common.JsonOpt = False,
) -> None:
    given = [f"--engine-bot {b.split('=', 1)[0]}" for b in engine_bots or ()] + [f"--plugin {p}" for p in plugins or ()]
    if not given:
        raise UsageError("name the bot to check: --engine-bot NAME=COMMAND or --plugin FILE (one of them)")
    if len(given) > 1:
        raise UsageError(
            f"check-bot checks one bot at a time, not {len(given)} ({', '.join(given)}): run it once for each"
        )
    engine_bot = engine_bots[0] if engine_bots else None
    plugin = plugins[0] if plugins else None
    limits = limits_from(move_time, game_time, memory_mb)
    check_sandbox(sandbox)
    sandboxed = sandboxes.use_sandbox(sandbox)
    if engine_bot is not None:
        if player is not None:
            raise UsageError("--player names a plugin's player; an engine bot is named by --engine-bot NAME=...")
        (bot,) = with_bot_dirs((EngineBot.parse(engine_bot),), bot_dir)
        check_bare_names([bot])
        check_commands([bot])
        if sandboxed:
            check_programs([bot])
        build_shells([bot], sandbox)
        target = engine_target(bot, limits, sandboxed)
        what = f"engine bot {bot.name!r}"
    else:
        assert plugin is not None
        if bot_dir:
            raise UsageError("--bot-dir names an engine bot's folder; a plugin's folder is the one it lies in")
        (spec,) = materialize_plugins([plugin])  # PATH@REV: read at its revision
        name = _plugin_player(spec, player, sandbox)
        target = plugin_target(name, resolved_plugin(spec), limits, sandboxed)
        what = f"plugin player {name!r}"
    results = _run(target, limits, what, live=not json_out and err_console.is_terminal)
    passed = all(r.passed for r in results)
    shell = bot.shell_folder if engine_bot is not None else None
    cause = load_failure(results) if shell is not None and not json_out else None
    if cause is not None:  # a course-shell agent that cannot be loaded: its adapter's line names the file and cause
        err_console.print(Text(f"error: {what} ({shell}): {cause}"), soft_wrap=True, highlight=False)
        raise typer.Exit(1)
    if json_out:
        print_json({"bot": target.name, "command": list(target.command), "passed": passed, "checks": as_json(results)})
    else:
        print_report(console, target, results)
    raise typer.Exit(0 if passed else 1)


def _plugin_player(plugin: str, player: str | None, sandbox: SandboxMode) -> str:
    """The plugin's player to check: the one named, or the only one the plugin registers."""
    catalog = PlayerCatalog.for_tournament([plugin], (), Isolation.ISOLATED, sandbox)
    catalog.check_requested([player] if player else [])
    if player is not None:
        catalog.get(player)
        return player
    names = sorted(e.name for e in catalog.players.values() if _same_plugin(e.source, plugin))
    if len(names) != 1:
        found = ", ".join(names) or "none"
        raise UsageError(f"plugin {plugin} registers {len(names)} players ({found}); name the one to check with -p")
    return names[0]


def _same_plugin(source: str, plugin: str) -> bool:
    """Whether a player's ``source`` is the ``--plugin`` value ``plugin`` (its file, whatever its alias)."""
    if not source.startswith(FILE_SOURCE):
        return False
    return Path(plugin_path(source.removeprefix(FILE_SOURCE))).resolve() == Path(plugin_path(plugin)).resolve()


def _run(target: Target, limits: Limits, what: str, *, live: bool) -> list[CheckResult]:
    results: list[CheckResult] = []
    try:
        if live:
            with err_console.status(f"checking {target.name}...") as status:
                for result in check_bot(target, limits):
                    results.append(result)
                    status.update(f"checking {target.name}: {len(results)} checks done")
        else:
            results = list(check_bot(target, limits))
    except BotDidNotStart as error:
        raise UsageError(f"{what} did not start: {error}") from None
    return results


def print_report(out: Console, target: Target, results: list[CheckResult]) -> None:
    """One row per check; what was expected and what came wrap within their columns (80 columns suffice)."""
    table = plain_table(f"check-bot {target.name}: {' '.join(target.command)}", show_lines=True)
    table.add_column("check", ratio=3, overflow="fold")
    table.add_column("", no_wrap=True)
    table.add_column("expected", ratio=3, overflow="fold")
    table.add_column("got", ratio=4, overflow="fold")
    for r in results:
        mark = Text("pass", style="green") if r.passed else Text("FAIL", style="bold red")
        table.add_row(Text(r.title), mark, Text(r.expected), Text(r.got))
    out.print(table)
    failed = [r.id for r in results if not r.passed]
    summary = f"{len(results) - len(failed)} of {len(results)} checks passed"
    out.print(summary + (f"; failed: {', '.join(failed)}" if failed else ""), highlight=False, markup=False)
