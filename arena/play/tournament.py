"""Run a tournament: every player on every board, in parallel, resumable.

The parent process owns the store: it asks which (player, board) pairs have no result, hands
batches of boards to a backend (``arena.play.backends``) and commits each batch as it comes back. What
that guarantees (nothing lost, duplicated or different): docs/architecture.md (the results store).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shlex
import signal
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from arena.config import TournamentConfig
from arena.isolation.processes.bot_process import make_undumpable
from arena.play.backends import (
    Backend,
    BackendUnavailable,
    StopFlag,
    TournamentError,
    WorkerCrashError,
    default_workers,
    make_backend,
    start_method,
)
from arena.play.backends.dask_cluster import ADDRESS_ENV
from arena.play.fingerprint import fingerprint_of
from arena.play.signals import Terminated, ctrl_c_stops, sigterm_stops
from arena.play.warmup import CompileEvent, compile_players, stale_players
from arena.play.worker import Batch
from arena.result import GameResult
from arena.results.entrants import Running, resolve_entrants
from arena.results.store import Store, StoreDamaged, StoreError
from players.registry import Registry

__all__ = [
    "BackendUnavailable",
    "StoreLost",
    "TournamentError",
    "TournamentInterrupted",
    "TournamentSummary",
    "WorkerCrashError",
    "default_workers",
    "entrants",
    "pending_work",
    "plan_workers",
    "run_tournament",
    "start_method",
]

Work = list[tuple[int, tuple[str, ...]]]


class TournamentInterrupted(Exception):
    """Stopped by a signal (``signum``: SIGINT for Ctrl-C, SIGTERM); every finished game is committed."""

    def __init__(self, recorded: int, signum: int = signal.SIGINT) -> None:
        super().__init__(f"interrupted after committing {recorded} games")
        self.recorded = recorded
        self.signum = signum


class StoreLost(TournamentError):
    """The store's file was replaced, deleted or damaged during the run: the run stopped, and the
    message says where what could be saved went."""


def _store_lost(store: Store, tournament_id: str, damage: StoreDamaged, pending: Sequence[GameResult]) -> StoreLost:
    """Save what can be saved (``Store.recover``) and say what happened and where it went, in one line."""
    try:
        saved, whole, games = store.recover(tournament_id, pending)
    except (StoreError, sqlite3.Error, OSError) as error:
        return StoreLost(f"{damage}; the tournament stopped, and saving its games elsewhere failed too: {error}")
    if whole:
        what = f"The whole store ({games} games) is saved in {str(saved)!r}"
    else:
        what = f"What it held is lost but the {games} games committed since the run began, saved in {str(saved)!r}"
    return StoreLost(f"{damage}; the tournament stopped. {what}; resume with --store {shlex.quote(str(saved))}")


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    tournament_id: str
    played: int
    skipped: int
    workers: int
    backend: str = "local"
    #: Each player's plain key (name and options) -> the games row it played as (``KEY@VERSION`` for a version
    #: the tournament saw after another one).
    keys: dict[str, str] = field(default_factory=dict)


def _keys(config: TournamentConfig) -> dict[str, str]:
    return {ref.base: ref.key for ref in config.players}


def entrants(
    config: TournamentConfig, store: Store, registry: Registry, notify: Callable[[str], None] | None = None
) -> tuple[TournamentConfig, dict[str, Running]]:
    """``config`` with its players as the entrants their versions are, and what runs as each (by plain key).
    Bad options fail here, not in a worker."""
    running: dict[str, Running] = {}
    for ref in config.players:
        entry = registry.get(ref.name)
        entry.cls.parse_options(ref.options)
        running[ref.base] = Running(entry.version, entry.source, fingerprint_of(entry.source, ref.name, config))
    resolved, notes = resolve_entrants(config, store.players(config.id), running)
    for note in notes:
        if notify is not None:
            notify(note)
    return resolved, running


def pending_work(config: TournamentConfig, store: Store) -> tuple[Work, int]:
    """Per board, the player keys without a result yet; and how many games are already done."""
    keys = [ref.key for ref in config.players]
    missing, skipped = store.unfinished(config.id, keys, config.games)
    if not skipped:  # a new tournament: every board for everyone (and 100,000 boards in no time)
        return list(zip(range(config.games), itertools.repeat(tuple(keys)))), 0
    # Only the boards someone has not finished are visited: resuming a finished 10,000,000-game run is quick.
    by_board: dict[int, list[str]] = {}
    for key in keys:
        for board in missing[key]:
            by_board.setdefault(board, []).append(key)
    return [(board, tuple(by_board[board])) for board in sorted(by_board)], skipped


def _committed(config: TournamentConfig, store: Store, todo: int) -> int:
    """How many of the ``todo`` games this run had to play are in the store now."""
    return todo - sum(len(keys) for _, keys in pending_work(config, store)[0])


def plan_workers(
    requested: int | None, boards: int, backend: str = "local", address: str | None = None
) -> tuple[int, str]:
    """How many workers to start for ``boards`` pending boards, and a one-line note when that is
    fewer than ``requested``. A worker without a core of its own only adds memory (every process
    imports numba and the players) and waiting, and one without a board does nothing at all, so
    a run on this machine (the local pool, or a Dask LocalCluster) gets at most one per core and
    one per board. A remote Dask cluster has as many workers as it has."""
    if backend == "dask" and (address or os.environ.get(ADDRESS_ENV)):
        return max(1, requested or 1), ""
    cores = default_workers()
    count = min(requested or cores, cores, max(1, boards))
    if not requested or count >= requested or boards == 0:
        return count, ""
    if count == cores:
        why = f"this machine has {cores} core{'s' if cores != 1 else ''}"
    else:
        why = f"only {boards} board{'s' if boards != 1 else ''} to play"
    return count, f"--workers {requested} capped at {count}: {why}"


def batches(config: TournamentConfig, work: Work, size: int) -> Iterator[Batch]:
    for start in range(0, len(work), size):
        yield Batch(config, tuple(work[start : start + size]))


def _reorder(work: Work, order: Sequence[int]) -> Work:
    """``work`` in the board order ``order`` (which must list every pending board)."""
    position = {board: i for i, board in enumerate(order)}
    missing = [board for board, _ in work if board not in position]
    if missing:
        raise ValueError(f"order does not list pending board(s) {missing[:5]}")
    return sorted(work, key=lambda item: position[item[0]])


def run_tournament(
    config: TournamentConfig,
    store: Store,
    registry: Registry,
    *,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    backend: str | Backend = "local",
    address: str | None = None,
    order: Sequence[int] | None = None,
    on_compile: Callable[[CompileEvent], None] | None = None,
    notify: Callable[[str], None] | None = None,
) -> TournamentSummary:
    """Play every missing (player, board) game of ``config`` and commit it to ``store``.

    ``backend`` is ``"local"`` (this process for one worker, else a process pool of ``workers``),
    ``"dask"`` (the cluster at ``address`` or ``$DASK_SCHEDULER_ADDRESS``, else a LocalCluster of
    ``workers``), or a ready ``Backend``, which the caller then owns and closes. ``order`` plays
    the pending boards in that order instead of ascending (for tests; results never depend on it).
    On this machine, the players whose numba code is not known to be compiled are compiled first
    (``arena.play.warmup``), each kernel once, reporting to ``on_compile``; a Ctrl-C then stops at once.
    This process is made non-dumpable for the rest of its life (it knows the seed).
    Each player plays as the entrant its version is (``arena.results.entrants``): a version the tournament has not
    seen gets rows of its own, ``KEY@VERSION``; ``notify`` hears, once, of a version that runs with other files
    than before. ``TournamentSummary.keys`` says which row each player's games went to.
    Raises ``TournamentInterrupted`` on Ctrl-C or SIGTERM and ``TournamentError`` when the workers keep dying,
    in both cases after committing every finished game; ``StoreLost`` when the store's file was
    replaced, deleted or damaged under the run, after saving what could be saved.
    """
    # This process holds the seed (and the store) from here on, and the bots started for this run
    # run as the same user: non-dumpable, they cannot read its memory (docs/isolation.md).
    make_undumpable()
    registry.check_requested(ref.name for ref in config.players)
    config, running = entrants(config, store, registry, notify)
    sources = {ref.key: (running[ref.base].version, running[ref.base].source) for ref in config.players}
    fingerprints = {ref.key: running[ref.base].fingerprint for ref in config.players}
    work, skipped = pending_work(config, store)
    if order is not None:
        work = _reorder(work, order)
    owned = isinstance(backend, str)
    if isinstance(backend, str):  # the name of one: this run makes it, and closes it
        count = plan_workers(workers, len(work), backend, address)[0]
        backend = make_backend(backend, workers=count, address=address)  # fails before anything is stored
    try:
        store.ensure_tournament(config, sources, fingerprints)
    except StoreDamaged as damage:
        if owned:
            backend.close()
        raise _store_lost(store, config.id, damage, ()) from None
    if not work:
        if owned:
            backend.close()
        return TournamentSummary(config.id, 0, skipped, 1, backend.name, _keys(config))
    todo = sum(len(keys) for _, keys in work)
    stop = StopFlag()
    delivered = 0
    try:
        with sigterm_stops():
            if backend.name == "local":  # before the first game: a Ctrl-C here stops at once (KeyboardInterrupt)
                stale = stale_players(config, {key for _, keys in work for key in keys})
                # One process more than the workers: a process waiting for a kernel another one compiles
                # uses no CPU, and the spare keeps the cores busy meanwhile.
                compile_players(config, stale, registry.plugin_files, backend.workers + 1, on_compile)
            with ctrl_c_stops(stop):
                size = backend.batch_size(len(work))
                used = backend.workers
                stream = backend.run(batches(config, work, size), registry.plugin_files, stop)
                with contextlib.closing(stream):
                    for results in stream:
                        try:
                            store.save(config.id, results)
                        except StoreDamaged as damage:
                            raise _store_lost(store, config.id, damage, results) from None
                        delivered += len(results)
                        if progress:
                            progress(len(results))
                try:
                    store.verify()  # the last batch committed, yet the file may have gone since
                except StoreDamaged as damage:
                    raise _store_lost(store, config.id, damage, ()) from None
    except KeyboardInterrupt as error:
        # Counted from the store: the signal may land between a commit and anything that would count it.
        raise TournamentInterrupted(
            _committed(config, store, todo), signal.SIGTERM if isinstance(error, Terminated) else signal.SIGINT
        ) from None
    finally:
        if owned:
            backend.close()
    if stop and delivered < todo:
        raise TournamentInterrupted(_committed(config, store, todo))
    return TournamentSummary(config.id, todo, skipped, used, backend.name, _keys(config))
