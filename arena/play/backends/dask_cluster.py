"""The Dask backend: the same batches, played on the workers of a Dask cluster.

Each batch is one Dask task whose ``GameResult`` values stream back to the client, which keeps the
store; a task rerun after a lost worker is committed at most once per game (the store's primary key).
Workers load plugins themselves from the paths sent with every batch; one numba thread per task.
``dask`` and ``distributed`` are an optional extra, imported only when this backend is used.
How to run it: docs/cluster.md.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

from arena.outcome import GameResult
from arena.play.backends.base import BackendUnavailable, StopFlag, TournamentError, WorkerCrashError, batch_label
from arena.play.backends.local import default_workers
from arena.play.worker import Batch, init_worker, run_batch

__all__ = ["ADDRESS_ENV", "INSTALL_HINT", "DaskBackend", "dask_available", "play_batch"]

#: Where ``--address`` comes from when it is not given (Dask's own convention).
ADDRESS_ENV = "DASK_SCHEDULER_ADDRESS"
INSTALL_HINT = "the dask backend needs the optional extra: pip install 'minesweeper-arena[dask]'"
#: How long to keep trying to reach a scheduler given by address.
CONNECT_TIMEOUT = "20s"
#: Resubmissions of a batch the cluster cancelled (a scheduler restart) before we give up.
MAX_RESUBMITS = 2

# -- inside a Dask worker ---------------------------------------------------------------------------------------


def dask_setup(worker: Any) -> None:
    """Preloaded (``distributed.worker.preload``) into the workers of the LocalCluster we start: they
    ignore Ctrl-C. A Ctrl-C in a terminal reaches the whole process group, and a worker killed by it
    would take its running batch along, so the arena could not let running batches finish. The
    client decides how to stop, as in the local pool. Clusters we did not start are left alone."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


_lock = threading.Lock()
_plugins: tuple[str, ...] | None = None


def play_batch(batch: Batch, plugin_files: tuple[str, ...]) -> list[GameResult]:
    """The Dask task: ``arena.play.worker.run_batch`` in a worker that loads ``plugin_files`` first.

    A lock serialises batches within one worker process: ``arena.play.worker`` keeps one player
    instance per player key per process, and two threads must not play with the same instance
    at once. Run workers with one thread each (``--nthreads 1``) to use every core."""
    global _plugins
    with _lock:
        if _plugins != plugin_files:
            init_worker(plugin_files, single_thread=True, pool=False)
            _plugins = plugin_files
        else:
            # numba's thread count is per thread, and a Dask worker may run tasks on another thread.
            import numba

            numba.set_num_threads(1)
        return run_batch(batch)


# -- on the client ----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def dask_available() -> bool:
    try:
        importlib.import_module("distributed")
    except ImportError:
        return False
    return True


class DaskBackend:
    """Batches as Dask tasks, on the cluster at ``address`` (or ``$DASK_SCHEDULER_ADDRESS``), or on
    a ``LocalCluster`` of ``workers`` single-threaded worker processes started for this run."""

    name = "dask"

    def __init__(self, address: str | None = None, workers: int | None = None, *, retries: int = 2) -> None:
        if not dask_available():
            raise BackendUnavailable(INSTALL_HINT)
        self.address = address or os.environ.get(ADDRESS_ENV) or None
        self.requested_workers = workers
        self.retries = retries
        self.startup_seconds = 0.0
        self._client: Any = None
        self._cluster: Any = None
        self._workers = 0

    # -- the cluster ----------------------------------------------------------------------------------------------
    def start(self) -> Any:
        """Connect (or start the local cluster) once; the time it took is ``startup_seconds``."""
        if self._client is not None:
            return self._client
        from distributed import Client, LocalCluster

        started = time.perf_counter()
        if self.address:
            try:
                self._client = Client(self.address, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as error:
                raise BackendUnavailable(f"cannot reach the Dask scheduler at {self.address}: {error}") from None
            with contextlib.suppress(Exception):  # a cluster may scale up later; tasks wait for workers
                self._client.wait_for_workers(1, timeout=60)
        else:
            import dask

            # Workers inherit an ignored SIGINT at start-up, and the preload keeps it ignored in a worker
            # that a nanny restarts later. No dashboard, and the scheduler's HTTP endpoint on any free
            # port: 8787 may be taken by another cluster on the machine.
            with dask.config.set({"distributed.worker.preload": [__name__]}), _sigint_ignored():
                self._cluster = LocalCluster(
                    n_workers=self.requested_workers or default_workers(),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR,
                )
            self._client = Client(self._cluster)
        threads = [w.get("nthreads", 1) for w in self._client.scheduler_info().get("workers", {}).values()]
        self._workers = max(1, sum(threads))
        self.startup_seconds = time.perf_counter() - started
        return self._client

    @property
    def workers(self) -> int:
        self.start()
        return self._workers

    @property
    def scheduler_address(self) -> str:
        return str(self.start().scheduler.address)

    def batch_size(self, boards: int) -> int:
        # Each task costs the scheduler a few milliseconds: bigger batches than the local pool's,
        # still enough of them (4 per worker) to balance the load and stream progress.
        return max(1, min(256, boards // (self.workers * 4) or 1))

    def close(self) -> None:
        for resource in (self._client, self._cluster):
            if resource is not None:
                with contextlib.suppress(Exception):
                    resource.close()
        self._client = self._cluster = None

    # -- running batches ------------------------------------------------------------------------------------------
    def run(
        self, batches: Iterator[Batch], plugin_files: tuple[str, ...], stop: StopFlag
    ) -> Iterator[list[GameResult]]:
        from distributed import CancelledError, KilledWorker, as_completed

        client = self.start()
        limit = max(2, self._workers * 2)
        pending: dict[Any, Batch] = {}
        resubmits: dict[int, int] = {}
        stream = as_completed(loop=client.loop, with_results=True, raise_errors=False)

        def submit(batch: Batch) -> None:
            future = client.submit(play_batch, batch, plugin_files, retries=self.retries, pure=False)
            pending[future] = batch
            stream.add(future)

        def fill() -> None:
            while len(pending) < limit and not stop:
                batch = next(batches, None)
                if batch is None:
                    return
                submit(batch)

        finished = False
        try:
            fill()
            while pending:
                future, result = next(stream)
                batch = pending.pop(future)
                if future.status == "cancelled" or isinstance(result, CancelledError):
                    key = batch.work[0].board
                    resubmits[key] = resubmits.get(key, 0) + 1
                    if resubmits[key] > MAX_RESUBMITS:
                        raise TournamentError(f"the Dask cluster cancelled {batch_label(batch)} repeatedly")
                    if not stop:
                        submit(batch)
                    continue
                if future.status == "error":
                    _kind, error, traceback = result
                    if isinstance(error, KilledWorker):
                        raise WorkerCrashError(
                            f"Dask workers died repeatedly while playing {batch_label(batch)}; most likely a player "
                            "kills its process there. Every finished game is committed: rerun to resume."
                        )
                    raise error.with_traceback(traceback)
                yield result
                fill()
            finished = True
        finally:
            if not finished and pending:
                with contextlib.suppress(Exception):
                    client.cancel(list(pending))
            stream.clear()
