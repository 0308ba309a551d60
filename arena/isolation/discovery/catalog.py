"""The players a tournament may name, found without running third-party code in the arena.

Built-in players are the arena's own code and load in process. Third-party players (``--plugin``
files, installed entry points) are listed by a separate process (``python -m arena.isolation.protocol.bot_host --list``)
unless the tournament trusts them: importing a plugin runs its code, and code running in the arena's
process could patch the engine and leak layouts to its isolated half. Engine bots are external
executables, checked with one handshake.

A third-party player the arena did not import gets a stand-in class: a ``Player`` with its name
that refuses to play in process (its options are checked by its own process, at start). The catalog
answers the same questions as a ``Registry`` (``players``, ``failures``, ``get``, ``plugin_files``),
so the tournament code needs no special case.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
import time
from collections.abc import Iterable, Sequence

from pydantic import ConfigDict

from arena.isolation.discovery.revisions import materialize_plugins, shown_at_revision
from arena.isolation.processes.bot_process import BotExited, BotProcess, BotProcessError
from arena.isolation.protocol import messages as protocol
from arena.isolation.protocol.bot_command import bot_environment, engine_bot_sandbox
from arena.isolation.sandbox.botfiles import ProgramError
from arena.isolation.sandbox.bubblewrap import Sandbox, host_files, use_sandbox
from arena.limits import DEFAULT_LIMITS, EngineBot, Isolation, SandboxMode
from engine import Action, Observation
from players import Player
from players.api import PlayerError
from players.hookspecs import PROJECT
from players.registry import (
    DuplicatePlayerError,
    PlayerEntry,
    PlayerLookup,
    PluginFailure,
    Registry,
    resolved_plugin,
)

__all__ = ["ExternalPlayer", "PlayerCatalog", "discover", "probe"]

#: How long listing the third-party players may take (imports of every plugin).
DISCOVERY_TIME = 60.0


class ExternalPlayer(Player):
    """Stands in for an engine bot: a name in the registry. The bot itself only ever plays isolated."""

    name = "external"
    description = "an external bot speaking the line protocol"

    def play(self, observation: Observation) -> list[Action]:
        raise PlayerError(f"{self.name!r} is an external engine bot; it plays only in its own process")


def _stand_in(name: str, description: str, version: str, base: type[Player]) -> type[Player]:
    return type(
        f"StandIn_{name.replace('-', '_').replace('.', '_')}",
        (base,),
        {"name": name, "description": description, "version": version},
    )


class IsolatedPluginPlayer(ExternalPlayer):
    """Stands in for a plugin player that only its own process imports; that process checks its options."""

    class Options(Player.Options):
        model_config = ConfigDict(extra="allow", frozen=True)


def discover(
    plugin_files: Sequence[str], *, entry_points: bool = True, sandbox: SandboxMode = SandboxMode.AUTO
) -> tuple[list[PlayerEntry], list[PluginFailure]]:
    """The players ``plugin_files`` and installed entry points provide, as stand-ins, listed by a
    separate process under the same limits as a bot (a plugin that hangs or blows up at import time
    costs only its own players)."""
    command = [sys.executable, "-m", "arena.isolation.protocol.bot_host", "--list"]
    command += [arg for path in plugin_files for arg in ("--plugin", resolved_plugin(path))]
    if not entry_points:
        command.append("--no-entry-points")
    box = Sandbox(host_files(plugin_files, entry_points=entry_points)) if use_sandbox(sandbox) else None
    env = bot_environment(sandboxed=box is not None)
    process = BotProcess(command, memory_mb=2048, cpu_seconds=int(DISCOVERY_TIME) + 1, env=env, sandbox=box)
    try:
        process.start()
        data = json.loads(process.receive(time.monotonic() + DISCOVERY_TIME))
    except (OSError, BotProcessError, ValueError) as error:
        why = process.exit_description() if isinstance(error, BotExited) else str(error)
        process.kill()  # and wait for its last stderr lines
        tail = " | ".join(process.stderr_tail()[-3:])
        failure = PluginFailure("plugin discovery", f"listing the plugins' players failed ({why})", tail, "discovery")
        return [], [failure]
    finally:
        process.close()
    entries = []
    for player in data.get("players", []):
        if player.get("source") == "builtin":
            continue
        cls = _stand_in(player["name"], player["description"], player["version"], IsolatedPluginPlayer)
        entries.append(PlayerEntry(player["name"], cls, player["description"], player["source"], player["version"]))
    failures = [
        PluginFailure(f["source"], f["error"], kind=f.get("kind", "error"), names=tuple(f.get("names", ())))
        for f in data.get("failures", [])
    ]
    return entries, failures


def probe(bot: EngineBot, timeout: float = 20.0, sandbox: SandboxMode = SandboxMode.AUTO) -> tuple[str, str]:
    """Start ``bot`` once and shake hands: its (name, version), or PlayerError saying why not. Run
    before a tournament, so a command that does not exist is one clear error, not a column of crashes."""
    box, env = None, bot_environment()
    if use_sandbox(sandbox):
        try:
            box, env = engine_bot_sandbox(bot, DEFAULT_LIMITS.processes)
        except ProgramError as error:
            raise PlayerError(f"engine bot {bot.name!r}: {error}") from None
    process = BotProcess(bot.command, env=env, sandbox=box)
    try:
        process.start()
    except OSError as error:
        raise PlayerError(f"engine bot {bot.name!r}: cannot run {bot.command[0]!r}: {error}") from None
    deadline = time.monotonic() + timeout
    try:
        process.send(protocol.hello(), deadline)
        return protocol.decode_hello(process.receive(deadline))
    except BotExited:
        how = process.exit_description()
        process.kill()  # and wait for its last stderr lines
        tail = " | ".join(process.stderr_tail()[-3:])
        raise PlayerError(f"engine bot {bot.name!r} {how} before its hello" + (f": {tail}" if tail else "")) from None
    except (BotProcessError, protocol.ProtocolError, protocol.BotReportedError) as error:
        raise PlayerError(f"engine bot {bot.name!r} did not answer hello properly: {error}") from None
    finally:
        process.close(protocol.quit_message(), wait=0.5)


class PlayerCatalog(PlayerLookup):
    """A ``Registry``, players discovered out of process, and engine bots, answering the registry's
    questions for all of them."""

    def __init__(
        self,
        registry: Registry,
        engine_bots: Iterable[EngineBot] = (),
        *,
        check: bool = True,
        discovered: Iterable[PlayerEntry] = (),
        discovery_failures: Iterable[PluginFailure] = (),
        plugin_files: Sequence[str] | None = None,
        sandbox: SandboxMode = SandboxMode.AUTO,
    ) -> None:
        self.registry = registry
        self.sandbox = sandbox
        self.engine_bots = tuple(engine_bots)
        self.check = check
        self._discovered = {entry.name: entry for entry in discovered}
        self._plugin_files = tuple(plugin_files) if plugin_files is not None else registry.plugin_files
        self._entries: dict[str, PlayerEntry] | None = None
        self._failures: list[PluginFailure] = list(discovery_failures)

    @classmethod
    def for_tournament(
        cls,
        plugin_files: Sequence[str],
        engine_bots: Iterable[EngineBot] = (),
        isolation: Isolation = Isolation.AUTO,
        sandbox: SandboxMode = SandboxMode.AUTO,
    ) -> PlayerCatalog:
        """Trusted: every plugin imported here, as before. Otherwise only the built-ins are imported
        here, and third-party players are listed by a process of their own. A ``PATH@REV`` is read at its
        revision first (``arena.isolation.discovery.revisions``; ``RevisionError`` when it cannot be)."""
        files = tuple(materialize_plugins(plugin_files))
        if isolation is Isolation.TRUSTED:
            return cls(Registry(files), engine_bots, sandbox=sandbox)
        builtin = Registry((), entry_points=False)
        if not files and not importlib.metadata.entry_points(group=PROJECT):
            return cls(builtin, engine_bots, plugin_files=files, sandbox=sandbox)
        entries, failures = discover(files, sandbox=sandbox)
        return cls(
            builtin, engine_bots, discovered=entries, discovery_failures=failures, plugin_files=files, sandbox=sandbox
        )

    @property
    def plugin_files(self) -> tuple[str, ...]:
        return self._plugin_files

    def load(self) -> PlayerCatalog:
        if self._entries is not None:
            return self
        known = {**self.registry.players, **self._discovered}
        entries: dict[str, PlayerEntry] = {}
        for bot in self.engine_bots:
            clash = known.get(bot.name)
            if clash is not None:
                raise DuplicatePlayerError(
                    f"engine bot name {bot.name!r} is already registered by {clash.source}; player names must be unique"
                )
            version = "unknown"
            if self.check:
                try:
                    version = probe(bot, sandbox=self.sandbox)[1] or "unknown"
                except PlayerError as error:  # reported and skipped, like a broken plugin
                    self._failures.append(
                        PluginFailure(f"engine bot {bot.name} ({bot.label})", str(error), kind="engine")
                    )
                    continue
            cls = _stand_in(bot.name, f"engine bot: {bot.label}", version, ExternalPlayer)
            entries[bot.name] = PlayerEntry(bot.name, cls, f"engine bot: {bot.label}", f"engine {bot.label}", version)
        self._entries = entries
        return self

    @property
    def players(self) -> dict[str, PlayerEntry]:
        self.load()
        assert self._entries is not None
        found = {**self.registry.players, **self._discovered, **self._entries}
        return {name: shown_at_revision(entry) for name, entry in found.items()}

    @property
    def failures(self) -> list[PluginFailure]:
        self.load()
        return [*self.registry.failures, *self._failures]
