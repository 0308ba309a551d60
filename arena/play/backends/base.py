"""What every backend shares: the contract with the tournament, the stop flag, and the errors.

A backend only *executes* batches. It never touches the store: the tournament (in the parent
process, on the client) commits each batch's results as the backend hands them over, so
"nothing lost, nothing duplicated" is decided in one place for every backend, and the store's
primary key plus ``INSERT OR IGNORE`` turn any batch delivered twice into a no-op.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, runtime_checkable

from arena.outcome import GameResult
from arena.play.worker import Batch

__all__ = [
    "Backend",
    "BackendUnavailable",
    "StopFlag",
    "TournamentError",
    "WorkerCrashError",
    "batch_label",
]


class TournamentError(Exception):
    """The tournament cannot go on; every game finished so far is committed, a rerun resumes."""


class WorkerCrashError(TournamentError):
    """Worker processes kept dying on the same batch: most likely a player that kills its process."""


class BackendUnavailable(TournamentError):
    """The backend asked for cannot be used here (an optional dependency is missing, say)."""


class StopFlag:
    """Set by the first Ctrl-C. Backends poll it: they stop handing out new batches, let the
    batches already running finish (so their games are committed) and return. A flag, not an
    exception, because an exception can land anywhere, including between taking a finished
    result off a queue and handing it over, and that result would be lost."""

    __slots__ = ("requested",)

    def __init__(self) -> None:
        self.requested = False

    def set(self) -> None:
        self.requested = True

    def __bool__(self) -> bool:
        return self.requested


@runtime_checkable
class Backend(Protocol):
    """Runs batches somewhere and yields each batch's results as soon as it is finished.

    ``run`` is a generator. It yields every finished batch exactly once (in any order; the
    tournament's results do not depend on it). It returns early, after yielding what was
    running, when ``stop`` is set. If the consumer stops iterating (``close()``, e.g. on a
    second Ctrl-C), it abandons running work at once. ``workers`` is the parallelism it
    actually uses; ``batch_size`` how many boards to put in one batch.
    """

    name: str

    @property
    def workers(self) -> int: ...

    def batch_size(self, boards: int) -> int: ...

    def run(
        self, batches: Iterator[Batch], plugin_files: tuple[str, ...], stop: StopFlag
    ) -> Iterator[Sequence[GameResult]]: ...

    def close(self) -> None: ...


def batch_label(batch: Batch) -> str:
    """Which boards a batch holds, for error messages a user can act on."""
    boards = [item.board for item in batch.work]
    if not boards:
        return "no boards"
    if len(boards) == 1:
        return f"board {boards[0]}"
    return f"boards {min(boards)}-{max(boards)}"
