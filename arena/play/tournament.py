"""Run a tournament: every player on every board, in parallel, resumable.

A run is planned first (``arena.play.plan.plan_tournament``: the entrants, the games the store lacks, the
workers), then played: ``run_tournament(plan, store, events)``. The parent process owns the store: it hands
batches of the plan's boards to a backend (``arena.play.backends``) and commits each batch as it comes back,
telling ``events`` (``arena.play.events``) as it goes. What that guarantees (nothing lost, duplicated or
different): docs/architecture.md (the results store).
"""

from __future__ import annotations

import contextlib
import shlex
import signal
import sqlite3
from collections.abc import Iterator, Sequence

from arena.isolation.processes.bot_process import make_undumpable
from arena.outcome import GameResult
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
from arena.play.events import TournamentEvents
from arena.play.plan import (
    BoardWork,
    TournamentPlan,
    TournamentSummary,
    pending_work,
    plan_tournament,
    plan_workers,
)
from arena.play.signals import Terminated, ctrl_c_stops, sigterm_stops
from arena.play.warmup import compile_players, stale_players
from arena.play.worker import Batch
from arena.results.store import Store, StoreDamaged, StoreError

__all__ = [
    "BackendUnavailable",
    "StoreLost",
    "TournamentError",
    "TournamentEvents",
    "TournamentInterrupted",
    "TournamentPlan",
    "TournamentSummary",
    "WorkerCrashError",
    "default_workers",
    "pending_work",
    "plan_tournament",
    "plan_workers",
    "run_tournament",
    "start_method",
]


class TournamentInterrupted(Exception):
    """Stopped by a signal (``signum``: SIGINT for Ctrl-C, SIGTERM) or by the run's stop flag (as SIGINT: it
    stops as a first Ctrl-C does); every finished game is committed."""

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


def _committed(plan: TournamentPlan, store: Store) -> int:
    """How many of the games ``plan`` had to play are in the store now."""
    return plan.to_play - sum(len(item.keys) for item in pending_work(plan.config, store).work)


def batches(plan: TournamentPlan, size: int) -> Iterator[Batch]:
    """The plan's work cut into batches of ``size`` boards, in the plan's order."""
    work: tuple[BoardWork, ...] = plan.work
    for start in range(0, len(work), size):
        yield Batch(plan.config, work[start : start + size])


def run_tournament(
    plan: TournamentPlan,
    store: Store,
    events: TournamentEvents | None = None,
    *,
    backend: Backend | None = None,
    stop: StopFlag | None = None,
) -> TournamentSummary:
    """Play ``plan``'s games (``plan_tournament``) and commit each batch of them to ``store``, telling
    ``events`` (``arena.play.events``: started, notes, compiling, each batch committed, and how it ended).

    The run makes the plan's backend (``plan.backend`` with ``plan.workers``) and closes it; a ready ``backend``
    (a match or a sweep keeps one for all its runs) is used instead, and stays the caller's to close. On this
    machine, the players whose numba code is not known to be compiled are compiled first (``arena.play.warmup``),
    each kernel once; a Ctrl-C then stops at once. In the main thread, the first Ctrl-C lets running batches
    finish and SIGTERM stops at once; in another thread (signals reach only the main one) the caller stops the
    run with ``stop``, a ``StopFlag`` it sets from anywhere (running batches finish, as on a first Ctrl-C).
    This process is made non-dumpable for the rest of its life (it knows the seed).
    ``store`` must be the store the plan was made from, or a copy as it was; ``TournamentSummary.keys`` says
    which row each player's games went to.

    Raises ``TournamentInterrupted`` on Ctrl-C, SIGTERM or ``stop``, and ``TournamentError`` when the workers
    keep dying, in both cases after committing every finished game; ``StoreLost`` when the store's file was
    replaced, deleted or damaged under the run, after saving what could be saved.
    """
    # This process holds the seed (and the store) from here on, and the bots started for this run
    # run as the same user: non-dumpable, they cannot read its memory (docs/isolation.md).
    make_undumpable()
    told = TournamentEvents() if events is None else events
    told.started(plan)
    try:
        summary = _play(plan, store, told, backend, StopFlag() if stop is None else stop)
    except TournamentInterrupted as stopped:
        told.interrupted(stopped.recorded, stopped.signum)
        raise
    except TournamentError as error:
        told.failed(error)
        raise
    told.finished(summary)
    return summary


def _play(
    plan: TournamentPlan, store: Store, events: TournamentEvents, given: Backend | None, stop: StopFlag
) -> TournamentSummary:
    """``run_tournament``'s run, between its first event and its last."""
    config = plan.config
    for text in plan.notes:
        events.note(text)
    backend = given
    if backend is None:  # this run makes it, and closes it
        backend = make_backend(plan.backend, workers=plan.workers, address=plan.address)  # before anything is stored
    try:
        try:
            store.ensure_tournament(config, plan.sources, plan.fingerprints)
        except StoreDamaged as damage:
            raise _store_lost(store, config.id, damage, ()) from None
        if not plan.work:
            return TournamentSummary(config.id, 0, plan.skipped, 1, backend.name, plan.keys)
        return _games(plan, store, events, backend, stop)
    finally:
        if given is None:
            backend.close()


def _games(
    plan: TournamentPlan, store: Store, events: TournamentEvents, backend: Backend, stop: StopFlag
) -> TournamentSummary:
    """Compile what needs it, then play the plan's work on ``backend`` and commit each batch as it comes back."""
    config = plan.config
    delivered = 0
    try:
        with sigterm_stops():
            if backend.name == "local":  # before the first game: a Ctrl-C here stops at once (KeyboardInterrupt)
                stale = stale_players(config, plan.pending_keys())
                # One process more than the workers: a process waiting for a kernel another one compiles
                # uses no CPU, and the spare keeps the cores busy meanwhile.
                compile_players(config, stale, plan.plugin_files, backend.workers + 1, events.compiling)
            with ctrl_c_stops(stop):
                size = backend.batch_size(plan.boards)
                used = backend.workers
                stream = backend.run(batches(plan, size), plan.plugin_files, stop)
                with contextlib.closing(stream):
                    for results in stream:
                        try:
                            store.save(config.id, results)
                        except StoreDamaged as damage:
                            raise _store_lost(store, config.id, damage, results) from None
                        delivered += len(results)
                        events.batch_done(results)
                try:
                    store.verify()  # the last batch committed, yet the file may have gone since
                except StoreDamaged as damage:
                    raise _store_lost(store, config.id, damage, ()) from None
    except KeyboardInterrupt as error:
        # Counted from the store: the signal may land between a commit and anything that would count it.
        raise TournamentInterrupted(
            _committed(plan, store), signal.SIGTERM if isinstance(error, Terminated) else signal.SIGINT
        ) from None
    if stop and delivered < plan.to_play:
        raise TournamentInterrupted(_committed(plan, store))
    return TournamentSummary(config.id, plan.to_play, plan.skipped, used, backend.name, plan.keys)
