"""What a command that plays shows while a tournament runs: notes as warnings, the first run's compile, the bar.

``RunDisplay`` is the terminal's ``TournamentEvents`` (``arena.play.events``): ``arena tournament`` and
``arena compete`` hand it their rich ``Progress`` and the games' task (none under --quiet), and it turns the run's
events into the lines and the bars these commands print.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.progress import Progress, TaskID

from arena.cli.common import err_console
from arena.play.events import TournamentEvents

if TYPE_CHECKING:
    from arena.outcome import GameResult
    from arena.play.warmup import CompileEvent

__all__ = ["CompileDisplay", "RunDisplay", "warn"]


def warn(text: str) -> None:
    """A note of the tournament's (a version that runs with other files than before), on stderr."""
    err_console.print(f"[yellow]warning:[/] {escape(text)}", highlight=False, soft_wrap=True)


class CompileDisplay:
    """Shows the first run's compile (``arena.play.warmup``): a line when the first player starts compiling,
    then, beside the games' bar, a row counting the players ready; a line at the end. A run whose players
    are already compiled shows nothing. ``progress`` and ``games`` (its games' task) are None under --quiet."""

    def __init__(self, progress: Progress | None, games: TaskID | None) -> None:
        self.progress, self.games = progress, games
        self.keys: tuple[str, ...] = ()
        self.compiling: list[str] = []
        self.ready = 0
        self.task: TaskID | None = None
        self.shown = False

    def __call__(self, event: CompileEvent) -> None:
        if event.kind == "begin":
            self.keys = event.keys
        elif event.kind == "compiling":
            self.compiling.append(event.key)
            if not self.shown:
                self.shown = True
                err_console.print(
                    "compiling the players' numba code, first run only (cached for the next runs): "
                    + ", ".join(self.keys),
                    highlight=False,
                    soft_wrap=True,
                )
                if self.progress is not None:
                    self.task = self.progress.add_task("compiling", total=len(self.keys), rate="players")
        elif event.kind == "done":
            self.ready += 1
            if event.key in self.compiling:
                self.compiling.remove(event.key)
            if event.error:
                err_console.print(
                    f"[yellow]warning:[/] preparing {escape(event.key)} failed: {escape(event.error)}",
                    highlight=False,
                    soft_wrap=True,
                )
        elif event.kind == "end" and self.shown:
            err_console.print(f"compiled in {event.seconds:.1f}s ({event.cpu:.1f}s of CPU)", highlight=False)
        if self.progress is None or self.task is None:
            return
        if event.kind == "end":
            self.progress.remove_task(self.task)
            self.task = None
            if self.games is not None:
                self.progress.reset(self.games, rate="- games/s")  # the games' clock starts now
        else:
            names = ", ".join(self.compiling)
            self.progress.update(self.task, description=f"compiling {names}".strip(), completed=self.ready)


class RunDisplay(TournamentEvents):
    """A run as the terminal shows it: each note a warning, the compile step (``CompileDisplay``), and each
    committed batch a step of ``progress``'s task ``games``; with ``rate``, the task's ``rate`` field says the
    games per second since the games began (after compiling). Without ``progress`` (--quiet, or nothing to
    play) only the notes and the compile's lines are printed."""

    def __init__(self, progress: Progress | None = None, games: TaskID | None = None, *, rate: bool = False) -> None:
        self.progress, self.games, self.rate = progress, games, rate
        self.compile = CompileDisplay(progress, games)

    def note(self, text: str) -> None:
        warn(text)

    def compiling(self, event: CompileEvent) -> None:
        self.compile(event)

    def batch_done(self, results: Sequence[GameResult]) -> None:
        if self.progress is None or self.games is None:
            return
        self.progress.advance(self.games, len(results))
        if self.rate:
            task = next(task for task in self.progress.tasks if task.id == self.games)
            elapsed = task.elapsed or 0.0  # since the games began (the compile resets the task)
            shown = f"{task.completed / elapsed:,.0f} games/s" if elapsed > 0 else "- games/s"
            self.progress.update(self.games, rate=shown)
