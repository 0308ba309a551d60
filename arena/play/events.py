"""What a tournament run tells whoever watches it: one object with a method per kind of event.

``run_tournament(plan, store, events)`` calls these methods in the run's own thread, in this order::

    started  note*  compiling*  batch_done*  (finished | interrupted | failed)

``started`` comes first, then each of the plan's notes; ``compiling`` while the players' numba code is
compiled (only on this machine, only for players not compiled before); ``batch_done`` once per batch, after
its games are committed; and exactly one of the last three, unless a method raises (a ``KeyboardInterrupt``
raised by a method stops the run as Ctrl-C does). The default methods do nothing: a watcher overrides what it
shows. A progress bar, a web page fed from a background thread, a test's recorder are such watchers; a watcher
that must not slow the games down keeps ``batch_done`` short (it runs between the commit of one batch and the
next).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.outcome import GameResult
    from arena.play.backends.base import TournamentError
    from arena.play.plan import TournamentPlan, TournamentSummary
    from arena.play.warmup import CompileEvent

__all__ = ["TournamentEvents"]


class TournamentEvents:
    """A run's events, each a no-op here; subclass and override the ones to show."""

    def started(self, plan: TournamentPlan) -> None:
        """The run begins: nothing is stored or played yet. ``plan.to_play`` games are to be played."""

    def note(self, text: str) -> None:
        """A note of the plan's, said once (a version that runs with other files than when it last played)."""

    def compiling(self, event: CompileEvent) -> None:
        """The compile step's progress (``arena.play.warmup.CompileEvent``): begin, each player compiling and
        done, end. A run whose players are already compiled sends none."""

    def batch_done(self, results: Sequence[GameResult]) -> None:
        """A batch's games are committed to the store (in the order they finished)."""

    def interrupted(self, recorded: int, signum: int) -> None:
        """Stopped by Ctrl-C (SIGINT), SIGTERM or the run's stop flag (reported as SIGINT); ``recorded`` games
        of this run are committed. ``TournamentInterrupted`` is raised next."""

    def failed(self, error: TournamentError) -> None:
        """The run cannot go on (workers that keep dying, a backend that cannot start, a store lost under it);
        every finished game is committed. ``error`` is raised next."""

    def finished(self, summary: TournamentSummary) -> None:
        """Every pending game is played and committed."""
