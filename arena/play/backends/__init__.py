"""Where a tournament's games are played: this process, a local process pool, or a Dask cluster.

Every backend runs the same ``arena.play.worker`` batches and hands results back to the tournament,
which alone writes the store; so results cannot depend on the backend (and a test proves they
do not), and resuming works the same whichever backend played the first part of a tournament.
"""

from __future__ import annotations

from arena.play.backends.base import (
    Backend,
    BackendUnavailable,
    StopFlag,
    TournamentError,
    WorkerCrashError,
    batch_label,
)
from arena.play.backends.local import InProcessBackend, PoolBackend, default_workers, start_method

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendUnavailable",
    "InProcessBackend",
    "PoolBackend",
    "StopFlag",
    "TournamentError",
    "WorkerCrashError",
    "batch_label",
    "default_workers",
    "make_backend",
    "start_method",
]

BACKENDS = ("local", "dask")


def make_backend(name: str = "local", *, workers: int | None = None, address: str | None = None) -> Backend:
    """A backend by name. ``local`` runs in this process for one worker, else in a process pool;
    ``dask`` connects to ``address`` (or ``$DASK_SCHEDULER_ADDRESS``) or starts a LocalCluster."""
    if name == "local":
        if address:
            raise BackendUnavailable("--address is for --backend dask; the local backend runs on this machine")
        count = max(1, workers or default_workers())
        return InProcessBackend() if count == 1 else PoolBackend(count)
    if name == "dask":
        from arena.play.backends.dask_cluster import DaskBackend  # imports nothing from dask until used

        return DaskBackend(address, workers)
    raise BackendUnavailable(f"unknown backend {name!r}; choose one of: {', '.join(BACKENDS)}")
