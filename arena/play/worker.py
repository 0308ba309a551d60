"""What runs inside a worker process: a batch of boards, every pending player on each.

Workers rebuild players themselves (plugins are code, not data to pickle) and keep one agent per
player for the life of the process (``arena.play.agents``): a trusted player is an object here, an
isolated one a process of its own, started once and reused across games. Only plain values cross the
process boundary.
"""

from __future__ import annotations

import atexit
import multiprocessing.util
import signal
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from arena.answer import WARM_UP_SEED
from arena.config import PlayerRef, RecordMode, TournamentConfig
from arena.isolation.processes.bot_process import make_undumpable
from arena.isolation.processes.spin import spin_window
from arena.outcome import GameBatch, GameResult, Outcome, PlayerKey
from arena.play.agents import TrustedAgent, agent_for, close_agents, configure
from arena.play.memory import release_during_loads, release_unused
from arena.play.runner import (
    compiled_values,
    default_move_limit,
    empty_record,
    play_compiled_boards,
    play_game,
    warm_up,
)
from engine import BoardSpec

__all__ = [
    "RUN_BOARDS",
    "Batch",
    "BoardRun",
    "BoardWork",
    "init_worker",
    "play",
    "play_boards",
    "prepare_player",
    "run_batch",
    "runs",
]


class BoardWork(NamedTuple):
    """One board of a tournament's pending work: the board, and the keys of the players (entrants) that
    still need it, in the tournament's order of players. A tuple underneath, so ``board, keys = item``
    still reads it; the names are for everyone else."""

    board: int
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Batch:
    """Boards to play, and for each board the player keys that still need it."""

    config: TournamentConfig
    work: tuple[BoardWork, ...]

    @property
    def games(self) -> int:
        return sum(len(item.keys) for item in self.work)


class _Planned(NamedTuple):
    """What each game of ``config`` needs from it, worked out once per config object."""

    config: TournamentConfig
    spec: BoardSpec
    #: The players by key.
    refs: dict[str, PlayerRef]


#: The config of the games being played and what each game needs from it.
_plan: _Planned | None = None
_cleanup_registered = False
#: Where ``play_boards`` appends its games.
_Into = TypeVar("_Into", list[GameResult], GameBatch)
#: Whether this process gives back the pages it no longer uses once a player is set up (``arena.play.memory``):
#: pool workers do, as they hold every player's kernels; a tournament played in the arena's own process does
#: not (a one-worker run is about speed, and its process lives on after the games).
_release = False


def init_worker(
    plugin_files: tuple[str, ...] = (), single_thread: bool = True, pool: bool = True, workers: int | None = None
) -> None:
    """Process initializer: remember the plugins (loaded lazily, and only for trusted plugin players);
    keep numba's parallel code to one thread so that N workers on N cores do not oversubscribe them.
    Pool workers ignore Ctrl-C: the parent decides how to stop, and lets running batches finish so
    their games are committed. ``workers`` (when known: the workers on this machine) decides whether
    isolated players' pipes busy-wait: only when each worker and its bot have a core each.

    A worker is made non-dumpable before it learns anything: the batches it plays carry the
    tournament's seed, which a bot running as the same user must not read from its memory
    (``/proc/<pid>/mem``), whether or not this worker starts a bot itself."""
    global _cleanup_registered, _release
    make_undumpable()
    _release = pool
    if pool:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    configure(plugin_files, spin_window(2 * workers) if workers is not None else 0.0)
    if not _cleanup_registered:
        # Pool workers leave through os._exit, which skips atexit but runs multiprocessing finalizers.
        atexit.register(close_agents)
        multiprocessing.util.Finalize(None, close_agents, exitpriority=10)
        _cleanup_registered = True
    if single_thread:
        # Only the runtime call: changing NUMBA_NUM_THREADS after numba is imported breaks it.
        import numba

        numba.set_num_threads(1)
    if pool:
        release_unused()  # what importing the engine, the players and numba touched once
        release_during_loads()


def prepare_player(ref: PlayerRef, config: TournamentConfig, games: int = 0) -> None:
    """Set up ``ref``'s agent as ``run_batch`` would (a trusted player plays its warm-up game, which
    compiles or loads its numba code), then let it play ``games`` throwaway games on the tournament's
    board: one Beginner game does not take every path a player's code has. Raises what the setup
    raises. ``arena.play.warmup`` runs this ahead of the tournament, so that compiling is done once and shown."""
    agent = agent_for(ref, config)
    if isinstance(agent, TrustedAgent):
        warm_up(agent)
    spec, limits = config.spec, config.limits
    for board in range(games):
        play_game(agent, ref.key, spec, config.rule, WARM_UP_SEED, board, move_limit=config.move_limit, limits=limits)


def _planned(config: TournamentConfig) -> _Planned:
    """The board spec and the players by key of ``config``, worked out once per config object (a
    Beginner game takes a tenth of a millisecond: rebuilding these per game would cost a third more)."""
    global _plan
    if _plan is None or _plan.config is not config:
        _plan = _Planned(config, config.spec, {ref.key: ref for ref in config.players})
    return _plan


def play(config: TournamentConfig, board: int, key: str) -> GameResult:
    """Player ``key``'s game on ``board`` of ``config`` (its result's ``player`` a ``PlayerKey``, whatever
    text the caller had the key as: a store's pending work is read as plain text)."""
    key = PlayerKey(key)
    _, spec, refs = _planned(config)
    record = config.record is RecordMode.MOVES
    try:
        agent = agent_for(refs[key], config)
    except Exception as exc:  # a constructor that raises costs that player its games, nothing more
        error = f"could not set up the player: {type(exc).__name__}: {exc}"
        return GameResult.failed(key, board, Outcome.ERROR, error, empty_record(spec) if record else None)
    if _release and isinstance(agent, TrustedAgent) and agent.cold:
        warm_up(agent)  # loads its kernels, which touches much of LLVM once
        release_unused()
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


def play_boards(config: TournamentConfig, boards: list[int], key: str, into: _Into, stop: object = None) -> _Into:
    """Player ``key``'s games on ``boards``, in order, appended to ``into`` as they finish: ``play``'s
    results, with a trusted player that plays whole games in compiled code playing many to a compiled call
    (``runner.play_compiled_boards``) once ``play`` has set it up and warmed it up. Stops early, between
    games, once ``stop`` is true. A ``GameBatch`` keeps the compiled games as their values (``GameBatch``)."""
    if not boards:
        return into
    key = PlayerKey(key)
    rest = boards
    agent = _agent(config, key)
    if not isinstance(agent, TrustedAgent) or agent.cold:
        into.append(play(config, boards[0], key))
        rest = boards[1:]
        agent = _agent(config, key) if rest else None
    batch = None
    as_values = isinstance(into, GameBatch)
    if isinstance(agent, TrustedAgent) and not agent.cold:
        spec = _planned(config).spec
        record = config.record is RecordMode.MOVES
        limit = config.move_limit or default_move_limit(spec)
        found = compiled_values if as_values else play_compiled_boards
        batch = found(agent.player, key, spec, config.rule, config.seed, rest, limit, record)
    for i, board in enumerate(rest):
        if stop:
            break
        result = batch[i] if batch is not None else None
        if result is None:
            into.append(play(config, board, key))
        elif as_values:
            into.append_values(result)  # type: ignore[union-attr, arg-type]
        else:
            into.append(result)  # type: ignore[arg-type]
    return into


def _agent(config: TournamentConfig, key: str) -> object:
    """``key``'s agent as ``play`` found it (None when it could not be set up)."""
    try:
        return agent_for(_planned(config).refs[key], config)
    except Exception:
        return None


class BoardRun(NamedTuple):
    """Consecutive boards of one player's, played by one ``play_boards`` call."""

    boards: list[int]
    key: str


def runs(work: tuple[BoardWork, ...], longest: int) -> list[BoardRun]:
    """``work`` as runs of consecutive boards that one player alone still needs, at most ``longest``
    boards each (a board several players need is a run of its own for each, in order): the games in the
    order ``run_batch`` plays them."""
    out: list[BoardRun] = []
    for board, keys in work:
        if len(keys) == 1 and out and out[-1].key == keys[0] and len(out[-1].boards) < longest:
            out[-1].boards.append(board)
        else:
            out.extend(BoardRun([board], key) for key in keys)
    return out


#: Boards per ``play_boards`` call in ``run_batch``: a tenth of a second of Beginner games at most.
RUN_BOARDS = 64


def run_batch(batch: Batch) -> list[GameResult]:
    config = batch.config
    results: list[GameResult] = []
    for boards, key in runs(batch.work, RUN_BOARDS):
        play_boards(config, boards, key, results)
    return results
