"""What runs inside a worker process: a batch of boards, every pending player on each.

Workers rebuild players themselves (plugins are code, not data to pickle) and keep one agent per
player for the life of the process: a trusted player is an object here, an isolated one a process
of its own (``arena.isolation.RemoteAgent``), started once and reused across games. Only plain
values cross the process boundary.

A worker never imports third-party plugin code unless a plugin player was explicitly made trusted:
an isolated player's code runs only in its own process, so it cannot patch the engine here either.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import multiprocessing.util
import os
import signal
from dataclasses import dataclass

import numpy as np

from arena.answer import WARM_UP_SEED
from arena.config import PlayerRef, RecordMode, TournamentConfig
from arena.isolation import sandbox
from arena.isolation.remote import RemoteAgent, bot_environment, host_command, sandbox_for
from arena.isolation.settings import Isolation
from arena.isolation.spin import spin_window
from arena.play.runner import Agent, TrustedAgent, empty_record, play_game
from arena.result import GameResult, Outcome
from engine import BEGINNER, BoardSpec, FirstClick
from engine.layout import player_generator
from players import Player
from players.registry import Registry

__all__ = [
    "Batch",
    "agent_for",
    "close_agents",
    "init_worker",
    "is_warm_up",
    "isolation_of",
    "play",
    "prepare_player",
    "run_batch",
    "warm_up",
]


@dataclass(frozen=True, slots=True)
class Batch:
    """Boards to play, and for each board the player keys that still need it."""

    config: TournamentConfig
    work: tuple[tuple[int, tuple[str, ...]], ...]

    @property
    def games(self) -> int:
        return sum(len(keys) for _, keys in self.work)


_plugin_files: tuple[str, ...] = ()
_registries: dict[bool, Registry] = {}
#: Player key -> (what the agent was built from, the agent, the config it was last checked against).
_agents: dict[str, tuple[tuple[object, ...], Agent, TournamentConfig]] = {}
#: The config of the games being played and what each game needs from it, worked out once per config.
_plan: tuple[TournamentConfig, BoardSpec, dict[str, PlayerRef]] | None = None
_cleanup_registered = False
#: Seconds each side of an isolated player's pipe busy-waits before blocking (``arena.isolation.spin``).
_spin = 0.0


def init_worker(
    plugin_files: tuple[str, ...] = (), single_thread: bool = True, pool: bool = True, workers: int | None = None
) -> None:
    """Process initializer: remember the plugins (loaded lazily, and only for trusted plugin players);
    keep numba's parallel code to one thread so that N workers on N cores do not oversubscribe them.
    Pool workers ignore Ctrl-C: the parent decides how to stop, and lets running batches finish so
    their games are committed. ``workers`` (when known: the workers on this machine) decides whether
    isolated players' pipes busy-wait: only when each worker and its bot have a core each."""
    global _plugin_files, _cleanup_registered, _spin
    _spin = spin_window(2 * workers) if workers is not None else 0.0
    if pool:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    close_agents()
    _plugin_files = tuple(str(p) for p in plugin_files)
    _registries.clear()
    if not _cleanup_registered:
        # Pool workers leave through os._exit, which skips atexit but runs multiprocessing finalizers.
        atexit.register(close_agents)
        multiprocessing.util.Finalize(None, close_agents, exitpriority=10)
        _cleanup_registered = True
    if single_thread:
        # Only the runtime call: changing NUMBA_NUM_THREADS after numba is imported breaks it.
        import numba

        numba.set_num_threads(1)


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
        command = tuple(
            host_command(
                ref.name,
                ref.options,
                plugin_files=() if builtin else _plugin_files,
                entry_points=not builtin,
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
        warm_up(player)
        agent = TrustedAgent(player)
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
    built-in player none); an engine bot reads the files its command names, from the arena's folder."""
    if host:
        builtin = name in _builtin_names()
        readable = sandbox.host_files(() if builtin else _plugin_files, entry_points=not builtin)
        return sandbox_for(name, readable, config.limits.processes)
    return sandbox_for(name, sandbox.command_files(command), config.limits.processes, cwd=os.getcwd())


def prepare_player(ref: PlayerRef, config: TournamentConfig, games: int = 0) -> None:
    """Set up ``ref``'s agent as ``run_batch`` would (a trusted player plays its warm-up game, which
    compiles or loads its numba code), then let it play ``games`` throwaway games on the tournament's
    board: one Beginner game does not take every path a player's code has. Raises what the setup
    raises. ``arena.play.warmup`` runs this ahead of the tournament, so that compiling is done once and shown."""
    agent = agent_for(ref, config)
    spec, limits = config.spec, config.limits
    for board in range(games):
        play_game(agent, ref.key, spec, config.rule, WARM_UP_SEED, board, move_limit=config.move_limit, limits=limits)


def warm_up(player: Player) -> None:
    """Play one throwaway game so that compiling (or loading cached) numba code is not billed
    to the first real game's time. Its result is discarded."""
    play_game(player, "warm-up", BEGINNER, FirstClick.SAFE, WARM_UP_SEED, 0)


def is_warm_up(rng: np.random.Generator, name: str) -> bool:
    """Whether ``rng``, as ``Player.reset`` receives it, is player ``name``'s generator for the
    warm-up game. For a bot that must play the warm-up unlike real games (the tests' hostile bots):
    counting games instead breaks when a slow start cuts the warm-up short before its first move."""
    return bool(rng.bit_generator.state == player_generator(WARM_UP_SEED, 0, name).bit_generator.state)


def _planned(config: TournamentConfig) -> tuple[BoardSpec, dict[str, PlayerRef]]:
    """The board spec and the players by key of ``config``, worked out once per config object (a
    Beginner game takes a tenth of a millisecond: rebuilding these per game would cost a third more)."""
    global _plan
    if _plan is None or _plan[0] is not config:
        _plan = (config, config.spec, {ref.key: ref for ref in config.players})
    return _plan[1], _plan[2]


def play(config: TournamentConfig, board: int, key: str) -> GameResult:
    """Player ``key``'s game on ``board`` of ``config``."""
    spec, refs = _planned(config)
    record = config.record is RecordMode.MOVES
    try:
        agent = agent_for(refs[key], config)
    except Exception as exc:  # a constructor that raises costs that player its games, nothing more
        error = f"could not set up the player: {type(exc).__name__}: {exc}"
        return GameResult.failed(key, board, Outcome.ERROR, error, empty_record(spec) if record else None)
    return play_game(
        agent,
        key,
        spec,
        config.rule,
        config.seed,
        board,
        move_limit=config.move_limit,
        limits=config.limits,
        record=record,
    )


def run_batch(batch: Batch) -> list[GameResult]:
    config = batch.config
    return [play(config, board, key) for board, keys in batch.work for key in keys]
