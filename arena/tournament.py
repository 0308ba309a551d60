"""Run a tournament: every player on every board, in parallel, resumable.

The parent process owns the store. It asks which (player, board) pairs have no result yet,
cuts them into batches of boards, and commits each batch's results as it comes back, so an
interrupted run loses at most the batches in flight, and a rerun plays exactly what is missing.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

from arena.config import TournamentConfig
from arena.store import Store
from arena.worker import Batch, init_worker, run_batch
from players import Registry

__all__ = [
    "TournamentInterrupted",
    "TournamentSummary",
    "default_workers",
    "pending_work",
    "run_tournament",
]


class TournamentInterrupted(Exception):
    """Stopped by the user; every finished game is committed."""

    def __init__(self, recorded: int) -> None:
        super().__init__(f"interrupted after committing {recorded} games")
        self.recorded = recorded


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    tournament_id: str
    played: int
    skipped: int
    workers: int


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def start_method() -> str:
    """``forkserver`` where it exists (fast starts, no fork of a threaded parent), else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods and sys.platform != "darwin" else "spawn"


def pending_work(config: TournamentConfig, store: Store) -> tuple[list[tuple[int, tuple[str, ...]]], int]:
    """Per board, the player keys without a result yet; and how many games are already done."""
    keys = [ref.key for ref in config.players]
    done = store.finished(config.id, keys, config.games)
    skipped = sum(len(boards) for boards in done.values())
    work = []
    for board in range(config.games):
        missing = tuple(k for k in keys if board not in done[k])
        if missing:
            work.append((board, missing))
    return work, skipped


def batches(config: TournamentConfig, work: list[tuple[int, tuple[str, ...]]], size: int) -> Iterator[Batch]:
    for start in range(0, len(work), size):
        yield Batch(config, tuple(work[start : start + size]))


def _batch_size(boards: int, workers: int) -> int:
    # Enough batches to balance the load and show progress; few enough that the per-task
    # overhead (pickling, a store commit) stays small next to the games themselves.
    return max(1, min(64, boards // (workers * 8) or 1))


def run_tournament(
    config: TournamentConfig,
    store: Store,
    registry: Registry,
    *,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> TournamentSummary:
    """Play every missing (player, board) game of ``config`` and commit it to ``store``."""
    entries = {ref.key: registry.get(ref.name) for ref in config.players}
    for ref in config.players:
        entries[ref.key].cls.parse_options(ref.options)  # bad options fail here, not in a worker
    sources = {key: (entry.version, entry.source) for key, entry in entries.items()}
    store.ensure_tournament(config, sources)
    work, skipped = pending_work(config, store)
    workers = max(1, workers or default_workers())
    workers = min(workers, max(1, len(work)))
    todo = sum(len(keys) for _, keys in work)
    recorded = 0
    if not work:
        return TournamentSummary(config.id, 0, skipped, workers)
    size = _batch_size(len(work), workers)
    try:
        if workers == 1:
            init_worker(registry.plugin_files, single_thread=False, pool=False)
            for batch in batches(config, work, size):
                results = run_batch(batch)
                recorded += store.record(config.id, results)
                if progress:
                    progress(len(results))
        else:
            recorded += _run_pool(config, store, registry, work, size, workers, progress)
    except KeyboardInterrupt:
        raise TournamentInterrupted(recorded) from None
    return TournamentSummary(config.id, todo, skipped, workers)


def _run_pool(
    config: TournamentConfig,
    store: Store,
    registry: Registry,
    work: list[tuple[int, tuple[str, ...]]],
    size: int,
    workers: int,
    progress: Callable[[int], None] | None,
) -> int:
    context = multiprocessing.get_context(start_method())
    recorded = 0
    pending: set[Future] = set()
    source = batches(config, work, size)
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=init_worker, initargs=(registry.plugin_files,))
    try:
        # Keep a bounded number of batches in flight: memory stays flat for huge tournaments
        # and an interrupt has little queued work to throw away.
        for batch in source:
            pending.add(pool.submit(run_batch, batch))
            if len(pending) >= workers * 3:
                break
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                results = future.result()
                recorded += store.record(config.id, results)
                if progress:
                    progress(len(results))
                nxt = next(source, None)
                if nxt is not None:
                    pending.add(pool.submit(run_batch, nxt))
    except KeyboardInterrupt:
        # Stop cleanly: queued batches are dropped, batches already running finish (workers
        # ignore SIGINT) and are committed. A second Ctrl-C stops at once.
        pool.shutdown(wait=False, cancel_futures=True)
        try:
            for future in pending:
                if not future.cancelled():
                    # A batch that failed while stopping is simply replayed by the next run.
                    with contextlib.suppress(Exception):
                        recorded += store.record(config.id, future.result())
        except KeyboardInterrupt:
            _kill_workers(pool)
        raise TournamentInterrupted(recorded) from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return recorded


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    for process in list(getattr(pool, "_processes", {}).values()):
        process.kill()
