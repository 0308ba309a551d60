"""The local backends: games in this process (one worker), or in a pool of worker processes.

The pool survives a dying worker. ``concurrent.futures`` marks the whole pool broken when one
process dies (SIGKILL, the OOM killer): every batch in flight fails with ``BrokenProcessPool``,
finished or not. We keep the results that did come back, start a new pool and resubmit only
the batches that did not, so the tournament still completes in the same run. A batch lost twice
is then played alone (so that innocent batches in flight with it are not blamed), and one that
breaks the pool ``MAX_ATTEMPTS`` times is most likely killing its worker itself: we stop with an
error that names its boards instead of looping forever.

Workers also watch the arena process: if it is killed (SIGKILL gives it no chance to shut its
pool down), they exit instead of lingering as orphans holding its terminal and pipes.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.util
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from arena.isolation.processes.bot_process import kill_bot_groups
from arena.isolation.processes.spin import available_cores as default_workers
from arena.outcome import GameBatch, GameResult
from arena.play.agents import close_agents
from arena.play.backends.base import StopFlag, WorkerCrashError, batch_label
from arena.play.worker import RUN_BOARDS, Batch, init_worker, play_boards, run_batch, runs

__all__ = [
    "COMMIT_SECONDS",
    "MAX_ATTEMPTS",
    "InProcessBackend",
    "PoolBackend",
    "default_workers",
    "start_method",
]

#: How often a batch may be in flight when the pool breaks before we blame it.
MAX_ATTEMPTS = 3
#: How often the in-process backend hands finished games over to be committed (at the end of a batch): what a
#: killed run (``kill -9``) may lose at most, besides the batch in progress.
COMMIT_SECONDS = 0.5
#: Seconds between two checks of the stop flag while waiting for a batch.
_POLL = 0.2
#: Seconds between two checks, in a worker, that the arena process is still there.
_WATCH_PARENT = 1.0
#: Seconds an abandoned worker has to close its players' processes before it is killed.
_TERM_GRACE = 10.0


def start_method() -> str:
    """``forkserver`` where it exists (fast starts, no fork of a threaded parent), else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods and sys.platform != "darwin" else "spawn"


def batch_size(boards: int, workers: int) -> int:
    # Enough batches to balance the load and show progress; few enough that the per-task
    # overhead (pickling, a store commit) stays small next to the games themselves.
    return max(1, min(64, boards // (workers * 8) or 1))


class InProcessBackend:
    """One worker: play in this process. Results are handed over per batch, but a stop (the
    flag, or a KeyboardInterrupt raised by a player) hands over every game finished so far."""

    name = "local"

    @property
    def workers(self) -> int:
        return 1

    def batch_size(self, boards: int) -> int:
        return batch_size(boards, 1)

    def run(
        self, batches: Iterator[Batch], plugin_files: tuple[str, ...], stop: StopFlag
    ) -> Iterator[Sequence[GameResult]]:
        init_worker(plugin_files, single_thread=False, pool=False, workers=1)
        frozen = False
        # Until the first batch is played (the players set up, their numba code loaded: many objects, none of
        # them garbage) the cyclic garbage collector is paused; then what lives is frozen (below).
        paused = gc.isenabled()
        if paused:
            gc.disable()
        # Finished games are handed over (and committed) every COMMIT_SECONDS rather than every batch: a Beginner
        # batch takes a few milliseconds, and each commit costs the store a transaction and a check of its file.
        # A GameBatch: the compiled runs' games kept as their values, which the store writes without a GameResult.
        results = GameBatch()
        handed = time.monotonic()
        try:
            for batch in batches:
                try:
                    for boards, key in runs(batch.work, RUN_BOARDS):
                        # Finished games go to ``results`` as they end (a compiled player's many to a call),
                        # so that a stop loses no finished game of the batch.
                        play_boards(batch.config, boards, key, results, stop)
                        if stop:
                            break
                except KeyboardInterrupt:
                    if results:
                        yield results
                    raise
                if not frozen:
                    # The players are set up (imports, numba's code): what is alive now lives on, and the
                    # cyclic garbage collector need not scan it again and again (100,000 Beginner games:
                    # a few tenths of a second less).
                    gc.freeze()
                    frozen = True
                    if paused:
                        gc.enable()
                        paused = False
                if results and (stop or time.monotonic() - handed >= COMMIT_SECONDS):
                    yield results
                    results = GameBatch()
                    handed = time.monotonic()
                if stop:
                    return
            if results:
                yield results
        finally:
            if paused:
                gc.enable()
            if frozen:
                gc.unfreeze()  # collectable again: this process may go on (tests, a library caller)

    def close(self) -> None:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else (cannot be ours, but do not guess)
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"  # a zombie is dead
    except OSError:  # no /proc (not Linux): os.kill said it exists
        return True


def _watch_parent(pid: int) -> None:
    while _alive(pid):
        time.sleep(_WATCH_PARENT)
    _close_and_exit(0)


def _close_and_exit(code: int) -> None:
    """A worker that must stop now (told by SIGTERM, or the arena is gone) kills its bots first, then
    exits: an unsandboxed bot would otherwise outlive it. Killed directly, not only through their
    agents, which the main thread may be using (and respawning) at this very moment."""
    kill_bot_groups()
    with contextlib.suppress(Exception):
        close_agents()
    _release_semaphores()
    kill_bot_groups()  # one the main thread may have started meanwhile
    os._exit(code)


def _release_semaphores() -> None:
    """Before ``os._exit``: run multiprocessing's exit finalizers, which unlink the semaphores this
    process made (numba's thread-launch lock). Skipped, they are reported as leaked, in a warning on
    the arena's terminal, by the resource tracker the arena's processes share."""
    with contextlib.suppress(Exception):
        multiprocessing.util._run_finalizers(0)


def _watch_sigterm(wakeup: int) -> None:
    """Wait for SIGTERM on the signal wake-up pipe, then close and exit. Not in the signal handler:
    that runs in the main thread in the middle of whatever it was doing with the very bots it would
    close, and only when the main thread next runs Python code, which a wait for a hung bot's reply
    may put off for as long as the move's time limit."""
    while os.read(wakeup, 1) != bytes([signal.SIGTERM]):
        pass
    _close_and_exit(128 + signal.SIGTERM)


def init_pool_worker(plugin_files: tuple[str, ...], parent: int, workers: int | None = None) -> None:
    """Pool initializer: ``arena.play.worker.init_worker``, SIGTERM closing the players' processes
    (``_watch_sigterm``), and a watchdog on the arena process.

    The pool's parent is a forkserver, not the arena, and the forkserver outlives the arena too,
    so ``getppid`` would not tell; we poll the arena's pid instead."""
    # Before init_worker, which makes numba's semaphore: a SIGTERM from then on releases it.
    wakeup, notify = os.pipe()
    os.set_blocking(notify, False)
    signal.set_wakeup_fd(notify, warn_on_full_buffer=False)
    signal.signal(signal.SIGTERM, lambda signum, frame: None)  # no default death: _watch_sigterm acts
    threading.Thread(target=_watch_sigterm, args=(wakeup,), name="arena-sigterm", daemon=True).start()
    init_worker(plugin_files, workers=workers)
    threading.Thread(target=_watch_parent, args=(parent,), name="arena-parent-watch", daemon=True).start()


def _stop_workers(pids: list[int]) -> None:
    """Stop abandoned workers at once: SIGTERM, so that each closes its players' processes, then
    SIGKILL for any still there after ``_TERM_GRACE`` seconds (one busy in compiled code)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + _TERM_GRACE
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in pids:
        if _alive(pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


class PoolBackend:
    """``workers`` worker processes; a bounded number of batches in flight (memory stays flat
    for huge tournaments, and a stop has little queued work to throw away)."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self._workers = max(1, workers)
        self.restarts = 0

    @property
    def workers(self) -> int:
        return self._workers

    def batch_size(self, boards: int) -> int:
        return batch_size(boards, self._workers)

    def _pool(self, plugin_files: tuple[str, ...]) -> ProcessPoolExecutor:
        context = multiprocessing.get_context(start_method())
        return ProcessPoolExecutor(
            self._workers,
            mp_context=context,
            initializer=init_pool_worker,
            initargs=(plugin_files, os.getpid(), self._workers),
        )

    def run(
        self, batches: Iterator[Batch], plugin_files: tuple[str, ...], stop: StopFlag
    ) -> Iterator[list[GameResult]]:
        limit = self._workers * 3
        lost: list[Batch] = []  # in flight when the pool broke
        retry: deque[Batch] = deque()  # lost once: resubmitted as usual (a one-off kill, most likely)
        suspects: deque[Batch] = deque()  # lost more than once: played alone, so the culprit is found
        attempts: dict[int, int] = {}
        pending: dict[Future[list[GameResult]], Batch] = {}
        pool = self._pool(plugin_files)
        finished = False

        def fill() -> bool:
            """Submit until ``limit`` batches are in flight; False if the pool turned out broken."""
            while len(pending) < limit and not stop:
                if suspects and pending:
                    return True
                batch = suspects.popleft() if suspects else retry.popleft() if retry else next(batches, None)
                if batch is None:
                    return True
                try:
                    pending[pool.submit(run_batch, batch)] = batch
                except BrokenProcessPool:  # a worker died since the last wait
                    lost.append(batch)
                    return False
                if attempts.get(batch.work[0].board, 0) >= 2:
                    return True  # a suspect runs alone
            return True

        try:
            broken = not fill()
            while pending or broken:
                if not broken:
                    done, _ = wait(pending, timeout=_POLL, return_when=FIRST_COMPLETED)
                    if stop:
                        # Drop what has not started; what runs finishes and is committed.
                        for future in [f for f in pending if f.cancel()]:
                            del pending[future]
                    for future in done:
                        batch = pending.pop(future)
                        if isinstance(future.exception(), BrokenProcessPool):
                            lost.append(batch)
                            broken = True
                        else:
                            yield future.result()  # another exception is a bug in the arena: raise it
                if broken:
                    # Every other batch in flight fails too (or has just finished): sort them out.
                    wait(pending)
                    for future, batch in list(pending.items()):
                        del pending[future]
                        if isinstance(future.exception(), BrokenProcessPool):
                            lost.append(batch)
                        else:
                            yield future.result()
                    pool.shutdown(wait=True, cancel_futures=True)
                    self._blame(lost, attempts)
                    for batch in lost:
                        (suspects if attempts[batch.work[0].board] >= 2 else retry).append(batch)
                    lost.clear()
                    if stop:
                        break  # the lost batches are replayed by the next run
                    self.restarts += 1
                    pool = self._pool(plugin_files)
                    broken = False
                if not broken:
                    broken = not fill()
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                # Abandoned (a second Ctrl-C, SIGTERM, an error): stop at once; the workers close their bots.
                pids = [p.pid for p in (getattr(pool, "_processes", None) or {}).values() if p.pid]
                pool.shutdown(wait=False, cancel_futures=True)
                _stop_workers(pids)
                pool.shutdown(wait=True)  # the workers are gone: this frees the pool's queues and their locks

    @staticmethod
    def _blame(lost: list[Batch], attempts: dict[int, int]) -> None:
        """Count one more failed attempt for each lost batch; give up on one that failed too often."""
        for batch in lost:
            key = batch.work[0].board
            attempts[key] = attempts.get(key, 0) + 1
        worst = [b for b in lost if attempts[b.work[0].board] >= MAX_ATTEMPTS]
        if worst:
            labels = ", ".join(batch_label(b) for b in worst)
            raise WorkerCrashError(
                f"worker processes died {MAX_ATTEMPTS} times while playing {labels}; most likely a player kills "
                "its process there. Every finished game is committed: rerun to resume."
            )

    def close(self) -> None:
        pass
