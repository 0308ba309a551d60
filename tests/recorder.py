"""A fake watcher of tournament runs for tests in any room: it records every event ``run_tournament`` sends.

``Recorder().names`` is the events in order (``["started", "batch_done", ..., "finished"]``), ``batches`` the size
of each committed batch, ``notes`` the notes said. ``on_batch`` runs after each batch is recorded: a test stops a
run there (a ``KeyboardInterrupt`` is a Ctrl-C), or does something to the store or the workers mid-run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arena.play.events import TournamentEvents


class Recorder(TournamentEvents):
    def __init__(self, on_batch: Callable[[int], None] | None = None) -> None:
        self.events: list[tuple[str, Any]] = []
        self.on_batch = on_batch

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.events]

    @property
    def batches(self) -> list[int]:
        return [size for name, size in self.events if name == "batch_done"]

    @property
    def notes(self) -> list[str]:
        return [text for name, text in self.events if name == "note"]

    def started(self, plan: Any) -> None:
        self.events.append(("started", plan))

    def note(self, text: str) -> None:
        self.events.append(("note", text))

    def compiling(self, event: Any) -> None:
        self.events.append(("compiling", event))

    def batch_done(self, results: Sequence[Any]) -> None:
        self.events.append(("batch_done", len(results)))
        if self.on_batch is not None:
            self.on_batch(len(results))

    def interrupted(self, recorded: int, signum: int) -> None:
        self.events.append(("interrupted", (recorded, signum)))

    def failed(self, error: Exception) -> None:
        self.events.append(("failed", error))

    def finished(self, summary: Any) -> None:
        self.events.append(("finished", summary))
