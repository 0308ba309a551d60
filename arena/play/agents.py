"""The agents that stand for players in the game loop, and the rule that picks one for a player.

The game loop (``arena.play.runner``) talks to an ``Agent``: a ``TrustedAgent`` wraps a ``Player``
object in this process, and ``arena.isolation.RemoteAgent`` speaks the line protocol to a player in
its own process. Which one a player gets is decided here (``isolation_of``), from the tournament's
config alone, so that a tournament's worker and ``arena play`` build the same agent for the same
player (``agent_for``). A process keeps one agent per player for its life: an isolated player's
process is started once and reused across games, until ``close_agents``.

Third-party plugin code is never imported here unless a plugin player was explicitly made trusted:
an isolated player's code runs only in its own process, so it cannot patch the engine here either.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import numpy as np

from arena.config import PlayerRef, TournamentConfig
from arena.isolation.protocol.bot_command import bot_environment, engine_bot_sandbox, host_command, sandbox_for
from arena.isolation.protocol.remote import RemoteAgent
from arena.isolation.sandbox import bubblewrap as sandbox
from arena.limits import Isolation, Limits
from arena.outcome import Outcome
from engine import Action, BoardSpec, FirstClick, Observation
from players import Player
from players.api import PlayerError
from players.registry import Registry, plugin_spec

__all__ = ["Agent", "TrustedAgent", "agent_for", "close_agents", "configure", "isolation_of"]


@runtime_checkable
class Agent(Protocol):
    """What the game loop needs from a player, wherever it runs."""

    #: The registered name: it keys the player's own random seed on each board.
    name: str

    def prepare(self) -> None:
        """Be ready for a game (start or restart a process); not billed to the game. May raise
        ``AgentFailure`` when the player cannot be set up at all."""

    def start(self, spec: BoardSpec, rule: FirstClick, seed: int, limits: Limits) -> None:
        """A new game; ``seed`` is the player's own 128-bit seed for this board."""

    def act(self, observation: Observation, budget: float) -> Action | Iterable[Action] | None:
        """The player's answer, within ``budget`` seconds (the remote agent enforces it).

        An agent that sends the observation elsewhere may also define ``act_live(grid, flags,
        moves, budget)``, which ``play_game`` then calls instead, with the game's live read-only
        grid (valid only during the call) and counters: no ``Observation`` is built in this process
        for a player that is not here. The arena's ``RemoteAgent`` does."""

    def finish(self, outcome: Outcome, message: str) -> None:
        """The game is over. Must not raise."""

    def cpu_seconds(self) -> float:
        """CPU seconds used outside this thread so far (an isolated player's process), else 0."""

    def diagnostics(self) -> list[str]:
        """What the player left behind that explains a failure (its last stderr lines)."""

    def close(self) -> None:
        """Release the player for good (stop its process)."""


class TrustedAgent:
    """A ``Player`` object in this process: the fast path for code the arena trusts. It gets no time
    limits: it could not be stopped mid-move anyway, and judging it after the fact would make an
    honest player's results depend on the machine's load (a JIT compile on a busy machine)."""

    def __init__(self, player: Player, *, cold: bool = False) -> None:
        self.player = player
        self.name = player.name
        #: Whether the player's numba code may not be compiled yet: ``arena.play.runner.play_game`` then
        #: plays one throwaway game (``warm_up``) before its first real one, so that compiling (or
        #: loading cached code) is billed to no game.
        self.cold = cold

    def prepare(self) -> None:
        pass

    def start(self, spec: BoardSpec, rule: FirstClick, seed: int, limits: Limits) -> None:
        self.player.reset(np.random.Generator(np.random.PCG64(seed)), spec, rule)

    def act(self, observation: Observation, budget: float) -> Action | Iterable[Action] | None:
        return self.player.play(observation)

    def finish(self, outcome: Outcome, message: str) -> None:
        pass

    def cpu_seconds(self) -> float:
        return 0.0

    def diagnostics(self) -> list[str]:
        return []

    def close(self) -> None:
        pass


_plugin_files: tuple[str, ...] = ()
_registries: dict[bool, Registry] = {}
#: Player key -> (what the agent was built from, the agent, the config it was last checked against).
_agents: dict[str, tuple[tuple[object, ...], Agent, TournamentConfig]] = {}
#: Seconds each side of an isolated player's pipe busy-waits before blocking (``arena.isolation.processes.spin``).
_spin = 0.0


def configure(plugin_files: tuple[str, ...] = (), spin: float = 0.0) -> None:
    """Start afresh in this process: close every agent, remember the plugin files (loaded lazily,
    and only for trusted plugin players) and how long isolated players' pipes busy-wait."""
    global _plugin_files, _spin
    close_agents()
    _plugin_files = tuple(str(p) for p in plugin_files)
    _spin = spin
    _registries.clear()


def close_agents() -> None:
    """Stop every isolated player's process (and forget trusted ones)."""
    agents = [agent for _, agent, _ in _agents.values()]
    _agents.clear()
    for agent in agents:
        with contextlib.suppress(Exception):  # cleaning up must not hide the real result
            agent.close()
    sandbox.release_cgroups()


@functools.cache
def _builtin_names() -> frozenset[str]:
    from players.builtin import BUILTIN_PLAYERS

    return frozenset(getattr(cls, "name", "") for cls in BUILTIN_PLAYERS)


def isolation_of(ref: PlayerRef, config: TournamentConfig) -> Isolation:
    """How ``ref`` runs: engine bots always isolated; under ``auto``, built-in players trusted and
    everything else isolated; otherwise as the tournament says."""
    if any(bot.name == ref.name for bot in config.engine_bots):
        return Isolation.ISOLATED
    if config.isolation is Isolation.AUTO:
        return Isolation.TRUSTED if ref.name in _builtin_names() else Isolation.ISOLATED
    return config.isolation


def _registry(builtin_only: bool) -> Registry:
    registry = _registries.get(builtin_only)
    if registry is None:
        registry = Registry((), entry_points=False) if builtin_only else Registry(_plugin_files)
        _registries[builtin_only] = registry
    return registry


def _plugins_for(name: str) -> tuple[tuple[str, ...], bool]:
    """The ``--plugin`` values an isolated host of player ``name`` loads, and whether it loads the installed
    plugins too: the plugin aliased ``name`` alone (an alias names one player), else every plugin without an
    alias. So two versions of one bot side by side (``base=v1/my_bot.py``, ``cand=v2/my_bot.py``) never share a
    process, and each sees only its own folder in the sandbox."""
    aliases = {}
    for spec in _plugin_files:
        with contextlib.suppress(PlayerError):  # a bad alias was refused before anything played
            aliases[spec] = plugin_spec(spec)[0]
    mine = [spec for spec in _plugin_files if aliases.get(spec) == name]
    if mine:
        return (mine[0],), False
    return tuple(spec for spec in _plugin_files if not aliases.get(spec)), True


def _numba_threads() -> int:
    import numba

    return int(numba.get_num_threads())


def _signature(ref: PlayerRef, config: TournamentConfig) -> tuple[object, ...]:
    """What the agent for ``ref`` is made of: a cached agent is reused only while this matches (a
    long-lived worker may serve tournaments with other limits or commands)."""
    mode = isolation_of(ref, config)
    builtin = ref.name in _builtin_names()
    if mode is Isolation.TRUSTED:
        return (mode, builtin)
    bot = next((b for b in config.engine_bots if b.name == ref.name), None)
    if bot is not None:
        command = bot.command
    else:
        plugins, entry_points = ((), False) if builtin else _plugins_for(ref.name)
        command = tuple(
            host_command(
                ref.name,
                ref.options,
                plugin_files=plugins,
                entry_points=entry_points,
                threads=_numba_threads(),
                warm_up_time=config.limits.warm_up_time,
                spin=_spin,
            )
        )
    return (mode, command, config.limits, _spin, sandbox.use_sandbox(config.sandbox))


def agent_for(ref: PlayerRef, config: TournamentConfig) -> Agent:
    """The agent that plays ``ref``'s games in this worker (``init_worker`` first), as the
    tournament's config says: built once, reused while its signature holds. ``arena play`` uses it
    too, so a watched game runs exactly as a tournament game would."""
    cached = _agents.get(ref.key)
    if cached is not None and cached[2] is config:  # checked against this very config already
        return cached[1]
    signature = _signature(ref, config)
    cached = _agents.pop(ref.key, None)
    if cached is not None and cached[0] == signature:
        _agents[ref.key] = (signature, cached[1], config)
        return cached[1]
    if cached is not None:
        cached[1].close()
    agent: Agent
    if signature[0] is Isolation.TRUSTED:
        player = _registry(builtin_only=bool(signature[1])).create(ref.name, ref.options)
        agent = TrustedAgent(player, cold=True)  # its first game is preceded by a warm-up game
    else:
        command = [str(part) for part in signature[1]]  # type: ignore[attr-defined]
        # The arena's own host takes a shared-memory channel; an engine bot speaks lines only.
        host = not any(bot.name == ref.name for bot in config.engine_bots)
        box, env = None, bot_environment()
        if signature[-1]:
            box, env = _sandbox_for(ref.name, command, host, config)
        agent = RemoteAgent(ref.name, command, config.limits, env=env, spin=_spin, shared=host, sandbox=box)
    _agents[ref.key] = (signature, agent, config)
    return agent


def _sandbox_for(
    name: str, command: list[str], host: bool, config: TournamentConfig
) -> tuple[sandbox.Sandbox, dict[str, str]]:
    """The sandbox of player ``name`` and its environment: the arena's host reads the plugins (a
    built-in player none); an engine bot reads its folder and the files its command names, from the
    arena's folder."""
    if host:
        plugins, entry_points = ((), False) if name in _builtin_names() else _plugins_for(name)
        readable = sandbox.host_files(plugins, entry_points=entry_points)
        return sandbox_for(name, readable, config.limits.processes)
    bot = next(b for b in config.engine_bots if b.name == name)
    return engine_bot_sandbox(bot, config.limits.processes)
