"""Getting a competition's entrants ready to play: what each one runs as, building kits, checking every bot.

Each entrant becomes what ``arena tournament`` plays: a plugin as ``--plugin NAME=PATH`` (the alias mechanism:
it plays under the entrant's name whatever its class calls itself), a command or a kit as an engine bot
(``--engine-bot NAME=COMMAND`` with its folder as ``--bot-dir``; a kit's command is its ``run.sh``), an installed
package through its entry point. Then:

- ``discover`` lists the Python entrants' players in a process of their own (``PlayerCatalog``), as a tournament
  would: an alias the arena refuses (a plugin of several players, a name another plugin registers) or a package
  without a player of the entrant's name is bad input (``CompetitionError``), a plugin that fails to import is
  left out with its reason;
- ``build`` runs each kit's ``build.sh`` in its folder inside the sandbox (``arena.isolation.builds.build``: no network,
  only the kit's folder writable, limits on time, memory, processes and output; outside it only when the
  organizer asks, ``--build-outside-sandbox``), keeps each build's whole log in the results folder, and leaves out
  a kit whose build fails, with its first error (``FILE:LINE: message``) and where its log is; a Java or C++
  course-shell agent is built the same way, in the arena's cache (``arena.isolation.builds.shells``);
- ``check`` plays each bot through ``arena check-bot``'s scripted situations (``arena.isolation.check_bot.check``) under
  the competition's limits and sandbox, and leaves out a bot that fails a check.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.competition.spec import Entrant, Loaded
from arena.isolation.builds.build import DEFAULT_BUILD_LIMITS, BuildLimits, BuildResult, build_bot
from arena.isolation.builds.shells import build_shell
from arena.isolation.check_bot.check import (
    BotDidNotStart,
    Target,
    check_bot,
    engine_target,
    load_failure,
    package_target,
    plugin_target,
)
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.isolation.sandbox.botfiles import ProgramError, broad_folder, engine_bot_folder, plugin_folder
from arena.limits import EngineBot, Isolation, Limits, SandboxMode
from players.registry import FILE_SOURCE, PluginFailure

__all__ = [
    "BUILD_LOGS",
    "Prepared",
    "build",
    "check",
    "discover",
    "engine_bot_options",
    "prepare",
    "seen_by",
    "target",
]

#: The folder of the build logs, in the results folder: ``builds/NAME.log`` for entrant NAME.
BUILD_LOGS = "builds"


@dataclass
class Prepared:
    """One entrant on its way to the games: what it runs as, and whether it is still in (``reason`` says why not)."""

    index: int
    entrant: Entrant
    #: A plugin's ``NAME=PATH`` (the path absolute).
    plugin: str | None = None
    #: A command's or a kit's engine bot (its folder absolute).
    bot: EngineBot | None = None
    #: A kit's folder.
    kit: Path | None = None
    reason: str = ""
    #: What the stages said of it, in order: ``("build", "ok in 0.1 s")``.
    notes: list[tuple[str, str]] = field(default_factory=list)
    #: A kit's build, once built, and where its whole log is.
    built: BuildResult | None = None
    build_log: Path | None = None

    @property
    def name(self) -> str:
        return self.entrant.name

    @property
    def playing(self) -> bool:
        return not self.reason

    def leave_out(self, stage: str, reason: str) -> None:
        self.reason = f"{stage}: {reason}"
        self.notes.append((stage, reason))


def prepare(loaded: Loaded) -> list[Prepared]:
    """Every entrant as what it runs as (nothing is run yet)."""
    prepared = []
    for index, entrant in enumerate(loaded.competition.entrants):
        item = Prepared(index, entrant)
        if entrant.plugin is not None:
            item.plugin = f"{entrant.name}={loaded.path(entrant.plugin)}"
        elif entrant.kit is not None:
            item.kit = loaded.path(entrant.kit)
            item.bot = EngineBot(name=entrant.name, command=(str(item.kit / "run.sh"),), folder=str(item.kit))
        elif entrant.myai is not None:
            item.bot = EngineBot.shell(entrant.name, loaded.path(entrant.myai))
        elif entrant.command is not None:
            folder = str(loaded.path(entrant.folder)) if entrant.folder is not None else None
            item.bot = EngineBot(name=entrant.name, command=entrant.argv, folder=folder)
        prepared.append(item)
    return prepared


def seen_by(prepared: Sequence[Prepared], path: Path, cwd: Path) -> Prepared | None:
    """The first entrant whose sandbox shows ``path`` (inside the folder it sees: its plugin's, its kit's, its
    command's), or None. The results folder must not be one: its pages show the boards' layouts, which a new
    version of the bot would then read before playing the same boards."""
    path = path.resolve()
    for item in prepared:
        if item.plugin is not None:
            folder: Path | None = plugin_folder(item.plugin.partition("=")[2])
        elif item.bot is not None:
            folder = engine_bot_folder(item.bot.command, str(cwd), item.bot.folder)
        else:
            continue  # an installed package sees its installed files only; a built-in player runs trusted
        if folder is not None and broad_folder(folder) is None and path.is_relative_to(folder.resolve()):
            return item
    return None


def _normal(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _package_of(source: str) -> str | None:
    """The distribution of a player's source ``package DIST (module)``."""
    found = re.fullmatch(r"package (\S+) \(.*\)", source)
    return _normal(found.group(1)) if found else None


def discover(loaded: Loaded, prepared: Sequence[Prepared], sandbox: SandboxMode) -> None:
    """List the Python entrants' players out of process and hold each entrant to its name (see the module)."""
    python = [p for p in prepared if p.playing and (p.plugin is not None or p.entrant.package is not None)]
    # Listed even without Python entrants: an installed plugin's player may hold an engine bot's name.
    catalog = PlayerCatalog.for_tournament([p.plugin for p in python if p.plugin], (), Isolation.AUTO, sandbox)
    by_path = {str(loaded.path(p.entrant.plugin)): p for p in python if p.entrant.plugin is not None}
    for failure in catalog.failures:
        _failure(loaded, failure, by_path, python)
    players = catalog.players
    for item in prepared:
        clash = players.get(item.name) if item.bot is not None else None
        if clash is not None:
            raise loaded.error(
                item.index, "name", f"{item.name!r} is the name of a player of {clash.source}; choose another name"
            )
    for item in python:
        if item.entrant.package is None:
            continue
        dist = _normal(item.entrant.package)
        own = sorted(e.name for e in players.values() if _package_of(e.source) == dist)
        if item.name not in own:
            registers = f"registers {', '.join(own)}" if own else "registers no player that could be listed"
            raise loaded.error(
                item.index,
                "name",
                f"package {item.entrant.package!r} {registers}; an installed package's player plays under its own "
                "name: give that as the entrant's name",
            )


def _failure(loaded: Loaded, failure: PluginFailure, by_path: dict[str, Prepared], python: list[Prepared]) -> None:
    """A plugin failure from discovery: bad input when the entrant's alias is refused, else the entrant is out."""
    source = failure.source.removeprefix(FILE_SOURCE)
    item = by_path.get(source) or next((p for p in python if p.plugin == source), None)
    if failure.kind == "discovery":
        for each in python:
            each.leave_out("load", failure.error)
        return
    if item is None:  # an installed plugin that is not an entrant: not this competition's business
        return
    message = failure.error.partition(": ")[2] or failure.error
    if failure.kind in ("alias", "duplicate"):
        raise loaded.error(item.index, "plugin", re.sub(r"^--plugin \S+: ", "", message))
    if failure.kind == "missing":
        raise loaded.error(item.index, "plugin", message)
    item.leave_out("load", failure.error)


#: Told of each entrant a stage (``"build"``, ``"check"``) begins with (``done`` False) and has finished with
#: (``done`` True: its last note says how it went).
Report = Callable[[Prepared, str, bool], None]


def build(
    prepared: Sequence[Prepared],
    logs: Path,
    sandbox: SandboxMode = SandboxMode.REQUIRE,
    report: Report | None = None,
    limits: BuildLimits = DEFAULT_BUILD_LIMITS,
) -> None:
    """Build each kit with its ``build.sh`` (``build_bot``: in the sandbox unless ``sandbox`` is ``off``), its whole
    log in ``logs/NAME.log`` (``build_log``); a failed build leaves its entrant out, the reason saying why and
    naming its first error (``build.sh failed (exit 2): src/strategy.cpp:15: ...``). Raises
    ``SandboxUnavailable`` for ``require`` on a machine without the sandbox."""
    for item in prepared:
        shell = item.bot.shell_folder if item.bot is not None and item.bot.shell_build is not None else None
        if (item.kit is None and shell is None) or not item.playing:
            continue
        if report is not None:
            report(item, "build", False)
        item.build_log = logs / f"{item.name}.log"
        if shell is not None:  # a Java or C++ course-shell agent: built once, kept in the cache
            built = build_shell(shell, limits=limits, sandbox=sandbox, log_path=item.build_log)
            item.built = result = built.result
            if not result.ok:
                item.leave_out("build", built.summary())
                if report is not None:
                    report(item, "build", True)
                continue
        else:
            assert item.kit is not None
            item.built = result = build_bot(item.kit, limits=limits, sandbox=sandbox, log_path=item.build_log)
        if result.ok and not result.built:
            item.notes.append(("build", "built before (the same sources)"))
        elif result.ok:
            where = "" if result.sandboxed else " outside the sandbox"
            item.notes.append(("build", f"built{where} in {result.seconds:.1f} s"))
        else:
            failed = f"build.sh failed ({result.reason})"
            item.leave_out("build", f"{failed}: {result.first_error}" if result.first_error is not None else failed)
        if report is not None:
            report(item, "build", True)


def target(item: Prepared, limits: Limits, sandboxed: bool) -> Target:
    """How ``arena check-bot`` reaches the entrant: as the tournament will run it. Raises ``ProgramError``."""
    if item.bot is not None:
        return engine_target(item.bot, limits, sandboxed)
    if item.plugin is not None:
        return plugin_target(item.name, item.plugin, limits, sandboxed)
    return package_target(item.name, limits, sandboxed)


def check(prepared: Sequence[Prepared], limits: Limits, sandboxed: bool, report: Report | None = None) -> None:
    """Check each entrant still in with ``arena check-bot``'s checks; one that fails a check is left out, the
    reason naming the failed checks and what came of the first."""
    for item in prepared:
        if not item.playing:
            continue
        if item.entrant.builtin is not None:  # the arena's own code, trusted as in `arena tournament`
            item.notes.append(("check", "a built-in player: the arena's own, trusted"))
            continue
        if report is not None:
            report(item, "check", False)
        started = time.perf_counter()
        _check(item, limits, sandboxed)
        if item.playing:
            item.notes[-1] = ("check", f"{item.notes[-1][1]} in {time.perf_counter() - started:.1f} s")
        if report is not None:
            report(item, "check", True)


def _check(item: Prepared, limits: Limits, sandboxed: bool) -> None:
    try:
        results = list(check_bot(target(item, limits, sandboxed), limits))
    except ProgramError as error:
        item.leave_out("check", str(error))
        return
    except BotDidNotStart as error:
        item.leave_out("check", f"did not start: {error}")
        return
    failed = [r for r in results if not r.passed]
    cause = load_failure(results) if item.bot is not None and item.bot.shell_folder is not None else None
    if cause is not None:  # a course-shell agent that cannot be loaded: the adapter's line names the file and cause
        item.leave_out("check", cause)
        return
    if failed:
        first = failed[0]
        ids = ", ".join(r.id for r in failed)
        item.leave_out("check", f"failed {len(failed)} of {len(results)} checks ({ids}); {first.id}: {first.got}")
        return
    item.notes.append(("check", f"{len(results)} of {len(results)} checks passed"))


def engine_bot_options(prepared: Sequence[Prepared]) -> tuple[list[str], list[str]]:
    """The entrants still in that are engine bots, as ``--engine-bot`` and ``--bot-dir`` values."""
    bots = [p.bot for p in prepared if p.playing and p.bot is not None]
    options = [f"{bot.name}={shlex.join(bot.command)}" for bot in bots]
    folders = [f"{bot.name}={bot.folder}" for bot in bots if bot.folder is not None]
    return options, folders
