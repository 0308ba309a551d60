"""What the commands that play games share: which players they may run and how.

``arena tournament`` and ``arena play`` take the same player options (``--plugin``, ``--engine-bot``,
``--isolation``, the time and memory limits, ``-o PLAYER.KEY=VALUE``) with the same meaning, and
build the same catalogue of players from them: a bot someone watches with ``arena play`` runs
exactly as it would in a tournament.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import signal
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from arena.cli.common import UsageError, err_console
from arena.config import PlayerRef
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.isolation.discovery.revisions import materialize_plugins
from arena.isolation.sandbox import bubblewrap as sandboxes
from arena.isolation.sandbox.botfiles import ProgramError, broad_folder, plugin_folder, resolve_program
from arena.limits import Clock, EngineBot, Isolation, Limits, SandboxMode
from players.api import PlayerError
from players.hookspecs import PROJECT
from players.registry import plugin_path

__all__ = [
    "AddressOpt",
    "BackendOpt",
    "BotDirOpt",
    "ClockOpt",
    "EngineBotOpt",
    "GameTimeOpt",
    "IsolationOpt",
    "MemoryOpt",
    "MoveTimeOpt",
    "OptionOpt",
    "PlayersOpt",
    "SandboxOpt",
    "WorkersOpt",
    "check_backend",
    "check_bare_names",
    "check_commands",
    "check_plugins",
    "checked_players",
    "games_stopped",
    "limits_from",
    "parse_options",
    "player_catalog",
]

OptionOpt = Annotated[
    list[str] | None, typer.Option("--option", "-o", help="Player option PLAYER.KEY=VALUE (repeatable).")
]
PlayersOpt = Annotated[
    str | None, typer.Option("--players", "-p", help="NAME[,NAME...]; default: every registered player.")
]
WorkersOpt = Annotated[int | None, typer.Option("--workers", "-w", help="Worker processes; default: one per core.")]
IsolationOpt = Annotated[
    Isolation,
    typer.Option(
        "--isolation",
        help="auto: built-in players in the worker, plugins and engine bots in a process of their own; "
        "trusted: every player in the worker; isolated: every player in its own process.",
    ),
]
SandboxOpt = Annotated[
    SandboxMode,
    typer.Option(
        "--sandbox",
        help="auto: isolated players in a Linux sandbox (bubblewrap) where this machine has one, else without, "
        "said once; require: the sandbox or an error; off: never (docs/isolation.md).",
    ),
]
MoveTimeOpt = Annotated[float, typer.Option("--move-time", help="Seconds a player may think per move.")]
GameTimeOpt = Annotated[float, typer.Option("--game-time", help="Seconds a player may think per game.")]
ClockOpt = Annotated[
    Clock,
    typer.Option(
        "--clock",
        help="What --move-time and --game-time count for isolated players: wall seconds, or cpu: the bot's own CPU "
        "seconds (its whole process tree, from the kernel), with wall time as a backstop at 5 times the limit.",
    ),
]
MemoryOpt = Annotated[
    int, typer.Option("--memory-mb", help="Memory limit of an isolated player's process in MiB (0: none).")
]
BotDirOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--bot-dir",
        help="NAME=DIR: the folder engine bot NAME sees, read-only, in the sandbox (repeatable; default: the "
        "folder of the program its command starts, or of the first file its command names).",
        show_default=False,
    ),
]
EngineBotOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--engine-bot",
        help="NAME=COMMAND [ARGS]: an external bot speaking docs/protocol.md (repeatable; always isolated).",
    ),
]


BackendOpt = Annotated[
    str,
    typer.Option(
        "--backend",
        help="local: worker processes on this machine; dask: a Dask cluster (--address, else a LocalCluster "
        "of --workers processes). Needs the 'dask' extra.",
    ),
]
AddressOpt = Annotated[
    str | None,
    typer.Option(
        "--address",
        help="Dask scheduler, e.g. tcp://host:8786 (default: $DASK_SCHEDULER_ADDRESS; none: start a LocalCluster).",
        show_default=False,
    ),
]


def check_backend(backend: str, address: str | None) -> None:
    """``--backend`` and ``--address`` as the commands that play games take them: bad input before anything runs."""
    from arena.play.backends.dask_cluster import INSTALL_HINT, dask_available

    if backend not in ("local", "dask"):
        raise UsageError(f"--backend must be local or dask, got {backend!r}")
    if backend == "dask" and not dask_available():
        raise UsageError(INSTALL_HINT)
    if address and backend != "dask":
        raise UsageError("--address needs --backend dask")


def parse_options(items: list[str] | None, names: set[str]) -> dict[str, dict[str, Any]]:
    """``NAME.KEY=VALUE`` pairs; values are read as JSON when they parse, else as text."""
    options: dict[str, dict[str, Any]] = {}
    for item in items or []:
        target, sep, raw = item.partition("=")
        name, dot, key = target.partition(".")
        if not sep or not dot or not name or not key:
            raise UsageError(f"--option {item!r} is not of the form PLAYER.KEY=VALUE")
        if name not in names:
            playing = ", ".join(sorted(names))
            raise UsageError(f"--option {item!r} names player {name!r}, who is not playing here (playing: {playing})")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        options.setdefault(name, {})[key] = value
    return options


def limits_from(move_time: float, game_time: float, memory_mb: int, clock: Clock = Clock.WALL) -> Limits:
    """The limits of isolated players from the command's options (``--memory-mb 0``: no limit)."""
    return Limits(move_time=move_time, game_time=game_time, memory_mb=memory_mb or None, clock=clock)


def check_sandbox(mode: SandboxMode) -> None:
    """``--sandbox``: where the sandbox cannot be had, ``auto`` says so (one line on stderr) and
    ``require`` is bad input; a sandbox that runs without its process cap is said too."""
    try:
        active = sandboxes.use_sandbox(mode)
    except sandboxes.SandboxUnavailable as error:
        raise UsageError(str(error)) from None
    if mode is SandboxMode.AUTO and not active:
        why = sandboxes.unavailable()
        err_console.print(
            f"note: isolated players run without the sandbox: {why} (--sandbox off says this is meant)",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    note = sandboxes.process_cap_note() if active else None
    if note:
        err_console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)


def player_catalog(
    plugin: Sequence[str | Path] | None,
    engine_bot: Sequence[str] | None,
    isolation: Isolation,
    *,
    probe: bool = True,
    sandbox: SandboxMode = SandboxMode.AUTO,
    bot_dir: Sequence[str] | None = None,
    require_commands: bool = True,
) -> tuple[PlayerCatalog, tuple[EngineBot, ...]]:
    """The players the command may name, and the engine bots among them (with their ``--bot-dir``).
    ``probe=False`` skips the engine bots' trial handshake: for a command that starts the bot right
    away anyway, and reports its failure to start as the game's result. Call ``check_plugins`` once
    the players are known. A ``--plugin PATH@REV`` is read at its git revision first (one line and exit 2
    when it cannot be: ``arena.isolation.discovery.revisions``). An engine bot whose program or script is missing
    is bad input (``check_commands``) unless ``require_commands`` is off (a competition leaves such an entrant
    out)."""
    plugin = materialize_plugins(plugin or [])
    bots = with_bot_dirs(tuple(EngineBot.parse(text) for text in engine_bot or []), bot_dir)
    names = [bot.name for bot in bots]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:  # before any bot is started: each would be probed, then the config refused
        raise UsageError(f"--engine-bot {twice!r} is given twice; give each engine bot its own name")
    check_bare_names(bots)
    if require_commands:
        check_commands(bots)
    third_party = bool(plugin) or bool(importlib.metadata.entry_points(group=PROJECT))
    if bots or isolation is Isolation.ISOLATED or (isolation is Isolation.AUTO and third_party):
        check_sandbox(sandbox)  # only when a player may run isolated
        if sandboxes.use_sandbox(sandbox):
            check_programs(bots)
            note_broad_folders(plugin or [])
        build_shells(bots, sandbox)
    catalog = PlayerCatalog.for_tournament(plugin, bots, isolation, sandbox)
    catalog.check = probe  # read when the catalogue loads, on first use
    return catalog, bots


def with_bot_dirs(bots: tuple[EngineBot, ...], bot_dir: Sequence[str] | None) -> tuple[EngineBot, ...]:
    """``bots`` with the folders ``--bot-dir NAME=DIR`` names: an existing folder of a bot that plays,
    and not one that holds far more than a bot (the home folder, a system folder)."""
    folders: dict[str, str] = {}
    names = {bot.name for bot in bots}
    for item in bot_dir or []:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name or not raw.strip():
            raise UsageError(f"--bot-dir {item!r} is not of the form NAME=DIR")
        if name not in names:
            raise UsageError(
                f"--bot-dir {item!r} names no --engine-bot (engine bots: {', '.join(sorted(names)) or 'none'})"
            )
        folder = Path(raw.strip()).expanduser().resolve()
        if not folder.is_dir():
            raise UsageError(f"--bot-dir {item!r}: {folder} is not a folder")
        why = broad_folder(folder)
        if why:
            raise UsageError(f"--bot-dir {item!r}: {why}, which a bot may not see whole; name the bot's own folder")
        folders[name] = str(folder)
    return tuple(bot.model_copy(update={"folder": folders[bot.name]}) if bot.name in folders else bot for bot in bots)


def note_broad_folders(plugins: Sequence[str | Path]) -> None:
    """Say so when a plugin's folder is too broad to show it (it then sees only its own file): a
    plugin that imports its helpers from beside it would otherwise fail with an obscure import error."""
    for given in plugins:
        try:
            path = Path(plugin_path(str(given)))
        except PlayerError:  # a bad alias: refused with its reason once the players are checked
            continue
        why = broad_folder(plugin_folder(path))
        if why and not Path(path).expanduser().is_dir():
            err_console.print(
                f"note: plugin {path}: {why}, which a sandboxed bot may not see whole: it sees only its own "
                "file (a bot of several files needs a folder of its own)",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )


def check_bare_names(bots: Iterable[EngineBot]) -> None:
    """A program named without a folder is looked up on the PATH, by a shell and by the arena: an author in
    the kit's folder who types ``NAME=run.sh`` means ``./run.sh``, and is told so before anything starts."""
    import os
    import shlex
    import shutil

    for bot in bots:
        name = bot.command[0] if bot.command else ""
        if name and "/" not in name and shutil.which(name) is None and os.path.isfile(name):
            fixed = shlex.join([f"./{name}", *bot.command[1:]])
            raise UsageError(
                f"engine bot {bot.name!r}: {name!r} is not a program on the PATH; the file in this folder is "
                f'./{name} (--engine-bot "{bot.name}={fixed}")'
            )


#: Arguments with these endings name a script the program runs: one that does not exist is a typo, not a bot.
_SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".jar", ".rb", ".pl", ".sh", ".ts")


def check_commands(bots: Iterable[EngineBot]) -> None:
    """Each engine bot's program exists (on the PATH or as a file), and so does each script its command names:
    a missing one is bad input, one line and exit 2, never a bot that "crashed" before its hello."""
    import os
    import shutil

    for bot in bots:
        if not bot.command:
            continue
        program = bot.command[0]
        found = shutil.which(program) if "/" not in program else (program if os.path.isfile(program) else None)
        if found is None:
            where = "no such file" if "/" in program else "not a program on the PATH"
            raise UsageError(f"engine bot {bot.name!r}: {program!r}: {where}")
        for arg in bot.command[1:]:
            if not arg.startswith("-") and arg.endswith(_SCRIPT_SUFFIXES) and not os.path.exists(arg):
                raise UsageError(f"engine bot {bot.name!r}: {program} runs {arg!r}, which does not exist")


def check_programs(bots: Iterable[EngineBot]) -> None:
    """Each engine bot's program can start in the sandbox (a version manager's shim is resolved), or
    one line saying what is missing and how to name it."""
    import os

    for bot in bots:
        try:
            resolve_program(bot.command, os.getcwd())
        except ProgramError as error:
            raise UsageError(f"engine bot {bot.name!r}: {error}") from None


def build_shells(bots: Iterable[EngineBot], sandbox: SandboxMode) -> None:
    """Build each Java or C++ course-shell agent that is not built yet (``arena.isolation.builds.shells``: in the
    build sandbox unless ``--sandbox`` is off or the machine has none under ``auto``), saying so on stderr; a
    build that fails is one line naming the bot, the file and its first error, with where its whole log is."""
    from arena.isolation.builds.shells import build_shell

    for bot in bots:
        if bot.shell_folder is None or bot.shell_build is None or Path(bot.shell_build).is_dir():
            continue
        err_console.print(f"building engine bot {bot.name!r} ({bot.shell_folder})...", highlight=False, markup=False)
        mode = sandbox if sandboxes.use_sandbox(sandbox) or sandbox is SandboxMode.OFF else SandboxMode.OFF
        log = Path(bot.shell_build + ".log")
        built = build_shell(bot.shell_folder, sandbox=mode, log_path=log)
        if not built.ok:
            raise UsageError(f"engine bot {bot.name!r}: {built.summary()}; its log: {log}")
        err_console.print(f"engine bot {bot.name!r}: {built.summary()}", highlight=False, markup=False)


def check_plugins(catalog: PlayerCatalog, names: Iterable[str]) -> None:
    """A missing ``--plugin`` file, or a plugin refused for a name that the command plays, is an error
    (someone else would play under that name); any other plugin or engine bot that could not be
    loaded is a warning on stderr, and the others still play."""
    catalog.check_requested(names)
    for failure in catalog.failures:
        err_console.print(f"[yellow]warning:[/] {escape(failure.summary)}", highlight=False, soft_wrap=True)


def checked_players(
    catalog: PlayerCatalog, refs: Sequence[PlayerRef], option: list[str] | None = None
) -> tuple[PlayerRef, ...]:
    """The players a command plays, with their ``--option`` values added: a missing plugin, an
    unknown player or a bad option is bad input, refused before anything is played or stored."""
    check_plugins(catalog, (ref.name for ref in refs))
    for ref in refs:
        catalog.get(ref.name)
    options = parse_options(option, {ref.name for ref in refs})
    refs = tuple(PlayerRef(name=r.name, options={**r.options, **options.get(r.name, {})}) for r in refs)
    for ref in refs:
        catalog.get(ref.name).cls.parse_options(ref.options)
    return refs


@contextlib.contextmanager
def games_stopped(what: str, error_code: int = 1) -> Iterator[None]:
    """How a command that plays tournaments ends when they stop early: Ctrl-C is exit 130 (every
    finished game is committed, and rerunning ``what`` resumes it), a backend that cannot start is
    bad input, workers that keep dying are exit ``error_code`` (1; 2 for a command whose 1 is an answer)."""
    from arena.play.tournament import BackendUnavailable, TournamentError, TournamentInterrupted

    try:
        yield
    except TournamentInterrupted as stop:
        word = "terminated" if stop.signum == signal.SIGTERM else "interrupted"
        err_console.print(
            f"{word}: {stop.recorded} games committed; the same command resumes the {what}",
            highlight=False,
            markup=False,
        )
        raise typer.Exit(128 + stop.signum) from None
    except BackendUnavailable as error:
        raise UsageError(str(error)) from None
    except TournamentError as error:
        err_console.print(f"error: {error}", highlight=False, markup=False)
        raise typer.Exit(error_code) from None
