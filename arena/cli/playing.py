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
from arena.isolation import EngineBot, Isolation, Limits, SandboxMode
from arena.isolation import sandbox as sandboxes
from arena.isolation.catalog import PlayerCatalog
from players.hookspecs import PROJECT

__all__ = [
    "EngineBotOpt",
    "GameTimeOpt",
    "IsolationOpt",
    "MemoryOpt",
    "MoveTimeOpt",
    "OptionOpt",
    "PlayersOpt",
    "SandboxOpt",
    "WorkersOpt",
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
MemoryOpt = Annotated[
    int, typer.Option("--memory-mb", help="Memory limit of an isolated player's process in MiB (0: none).")
]
EngineBotOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--engine-bot",
        help="NAME=COMMAND [ARGS]: an external bot speaking docs/protocol.md (repeatable; always isolated).",
    ),
]


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


def limits_from(move_time: float, game_time: float, memory_mb: int) -> Limits:
    """The limits of isolated players from the command's options (``--memory-mb 0``: no limit)."""
    return Limits(move_time=move_time, game_time=game_time, memory_mb=memory_mb or None)


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
    plugin: Sequence[Path] | None,
    engine_bot: Sequence[str] | None,
    isolation: Isolation,
    *,
    probe: bool = True,
    sandbox: SandboxMode = SandboxMode.AUTO,
) -> tuple[PlayerCatalog, tuple[EngineBot, ...]]:
    """The players the command may name, and the engine bots among them. ``probe=False`` skips the
    engine bots' trial handshake: for a command that starts the bot right away anyway, and reports
    its failure to start as the game's result. Call ``check_plugins`` once the players are known."""
    bots = tuple(EngineBot.parse(text) for text in engine_bot or [])
    third_party = bool(plugin) or bool(importlib.metadata.entry_points(group=PROJECT))
    if bots or isolation is Isolation.ISOLATED or (isolation is Isolation.AUTO and third_party):
        check_sandbox(sandbox)  # only when a player may run isolated
    catalog = PlayerCatalog.for_tournament([str(p) for p in plugin or []], bots, isolation, sandbox)
    catalog.check = probe  # read when the catalogue loads, on first use
    return catalog, bots


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
def games_stopped(what: str) -> Iterator[None]:
    """How a command that plays tournaments ends when they stop early: Ctrl-C is exit 130 (every
    finished game is committed, and rerunning ``what`` resumes it), a backend that cannot start is
    bad input, workers that keep dying are exit 1."""
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
        raise typer.Exit(1) from None
