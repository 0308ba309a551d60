"""A tournament run, planned once: who plays as what, what is left to play, and where it runs.

``plan_tournament`` reads the registry and the store once and returns a ``TournamentPlan``, a frozen value;
``arena.play.tournament.run_tournament`` plays it. Every command that plays (tournament, compete, match, sweep,
the host) plans first, so the size of its progress bar, its note about the workers and the run itself come from
one reading of the store instead of one each.

Planning writes nothing (the run records the tournament and its entrants), so a plan can be made, shown and
dropped. A plan is plain data (it pickles): it can be made in one thread or process and played in another,
with that one's own connection to the store. It is true of the store when it was made: a run resumed later is
planned again (``plan_tournament`` on the same store lists what is still missing).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from arena.config import PlayerRef, TournamentConfig
from arena.play.backends import default_workers
from arena.play.backends.dask_cluster import ADDRESS_ENV
from arena.play.fingerprint import fingerprint_of
from arena.play.worker import BoardWork
from arena.results.entrants import Running, resolve_entrants
from arena.results.store import Store
from players.registry import Registry

__all__ = [
    "BoardWork",
    "PendingWork",
    "PlanEntrant",
    "TournamentPlan",
    "TournamentSummary",
    "Workers",
    "pending_work",
    "plan_tournament",
    "plan_workers",
]


class PendingWork(NamedTuple):
    """What a tournament still lacks: per board, the players without a result on it (ascending boards), and
    how many games of these players and boards the store already holds."""

    work: tuple[BoardWork, ...]
    skipped: int


class Workers(NamedTuple):
    """How many workers a run starts, and a one-line note when that is fewer than asked ("" otherwise)."""

    count: int
    note: str


@dataclass(frozen=True, slots=True)
class PlanEntrant:
    """A player of the run as the entrant it plays as (``arena.results.entrants``): its reference with the
    version tag its games row carries, and what runs as it."""

    ref: PlayerRef
    version: str
    source: str
    #: The hash of the files that run as it ("" when unknown).
    fingerprint: str = ""

    @property
    def base(self) -> str:
        """The player's plain key (name and options), whatever its version."""
        return self.ref.base

    @property
    def key(self) -> str:
        """The games row it plays as: the plain key, or ``KEY@VERSION`` for a version the tournament saw after
        another one."""
        return self.ref.key


@dataclass(frozen=True, slots=True)
class TournamentPlan:
    """One tournament run, decided before anything is played or stored.

    ``config`` is the tournament with each player resolved to its entrant; ``work`` the boards left to play, in
    the order the run plays them, each with the entrants that still need it; ``skipped`` the games already
    stored; ``workers`` and ``backend`` (with ``address``) where the games run. ``notes`` are what the run says
    once (a version that runs with other files than before); ``workers_note`` says why fewer workers than asked
    start ("" when as many do)."""

    config: TournamentConfig
    entrants: tuple[PlanEntrant, ...]
    work: tuple[BoardWork, ...]
    skipped: int
    workers: int
    backend: str = "local"
    address: str | None = None
    #: The ``--plugin`` files the workers load (a trusted plugin player is code, rebuilt in each worker).
    plugin_files: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    workers_note: str = ""
    #: How many games the run plays: the entrants of every board of ``work``, counted once.
    to_play: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "to_play", sum(len(item.keys) for item in self.work))

    @property
    def tournament_id(self) -> str:
        return self.config.id

    @property
    def boards(self) -> int:
        """How many boards have a game left to play."""
        return len(self.work)

    @property
    def keys(self) -> dict[str, str]:
        """Each player's plain key -> the games row it plays as."""
        return {entrant.base: entrant.key for entrant in self.entrants}

    @property
    def sources(self) -> dict[str, tuple[str, str]]:
        """Each entrant's key -> (version, source): what the store records of it."""
        return {entrant.key: (entrant.version, entrant.source) for entrant in self.entrants}

    @property
    def fingerprints(self) -> dict[str, str]:
        """Each entrant's key -> the fingerprint of the files that run as it."""
        return {entrant.key: entrant.fingerprint for entrant in self.entrants}

    def pending_keys(self) -> set[str]:
        """The entrants with at least one game to play (only they are compiled before the games)."""
        return {key for item in self.work for key in item.keys}


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    """What a run did: how many games it played, how many it found stored, on how many workers of which
    backend."""

    tournament_id: str
    played: int
    skipped: int
    workers: int
    backend: str = "local"
    #: Each player's plain key (name and options) -> the games row it played as (``KEY@VERSION`` for a version
    #: the tournament saw after another one).
    keys: dict[str, str] = field(default_factory=dict)


def pending_work(config: TournamentConfig, store: Store) -> PendingWork:
    """Per board, the player keys without a result yet; and how many games are already done."""
    keys = tuple(ref.key for ref in config.players)
    missing, skipped = store.unfinished(config.id, keys, config.games)
    if not skipped:  # a new tournament: every board for everyone (and 100,000 boards in no time)
        return PendingWork(tuple(map(BoardWork, range(config.games), itertools.repeat(keys))), 0)
    # Only the boards someone has not finished are visited: resuming a finished 10,000,000-game run is quick.
    by_board: dict[int, list[str]] = {}
    for key in keys:
        for board in missing[key]:
            by_board.setdefault(board, []).append(key)
    return PendingWork(tuple(BoardWork(board, tuple(by_board[board])) for board in sorted(by_board)), skipped)


def plan_workers(requested: int | None, boards: int, backend: str = "local", address: str | None = None) -> Workers:
    """How many workers to start for ``boards`` pending boards, and a one-line note when that is
    fewer than ``requested``. A worker without a core of its own only adds memory (every process
    imports numba and the players) and waiting, and one without a board does nothing at all, so
    a run on this machine (the local pool, or a Dask LocalCluster) gets at most one per core and
    one per board. A remote Dask cluster has as many workers as it has."""
    if backend == "dask" and (address or os.environ.get(ADDRESS_ENV)):
        return Workers(max(1, requested or 1), "")
    cores = default_workers()
    count = min(requested or cores, cores, max(1, boards))
    if not requested or count >= requested or boards == 0:
        return Workers(count, "")
    if count == cores:
        why = f"this machine has {cores} core{'s' if cores != 1 else ''}"
    else:
        why = f"only {boards} board{'s' if boards != 1 else ''} to play"
    return Workers(count, f"--workers {requested} capped at {count}: {why}")


def _reorder(work: Sequence[BoardWork], order: Sequence[int]) -> tuple[BoardWork, ...]:
    """``work`` in the board order ``order`` (which must list every pending board)."""
    position = {board: i for i, board in enumerate(order)}
    missing = [item.board for item in work if item.board not in position]
    if missing:
        raise ValueError(f"order does not list pending board(s) {missing[:5]}")
    return tuple(sorted(work, key=lambda item: position[item.board]))


def plan_tournament(
    config: TournamentConfig,
    store: Store,
    registry: Registry,
    *,
    workers: int | None = None,
    backend: str = "local",
    address: str | None = None,
    order: Sequence[int] | None = None,
) -> TournamentPlan:
    """Plan ``config``'s run on ``store``: each player resolved to the entrant its version is (a version the
    tournament has not seen gets rows of its own, ``KEY@VERSION``), the games the store lacks, and the workers.

    ``backend`` is ``"local"`` (this process for one worker, else a process pool of ``workers``) or ``"dask"``
    (the cluster at ``address`` or ``$DASK_SCHEDULER_ADDRESS``, else a LocalCluster of ``workers``); the workers
    are capped at this machine's cores and the pending boards (``plan_workers``). ``order`` plays the pending
    boards in that order instead of ascending (for tests; results never depend on it). Unknown players and bad
    options fail here (``players.registry``'s errors), before anything is stored or started."""
    registry.check_requested(ref.name for ref in config.players)
    running: dict[str, Running] = {}
    for ref in config.players:
        entry = registry.get(ref.name)
        entry.cls.parse_options(ref.options)
        running[ref.base] = Running(entry.version, entry.source, fingerprint_of(entry.source, ref.name, config))
    resolved, notes = resolve_entrants(config, store.players(config.id), running)
    entrants = tuple(
        PlanEntrant(ref, running[ref.base].version, running[ref.base].source, running[ref.base].fingerprint)
        for ref in resolved.players
    )
    work, skipped = pending_work(resolved, store)
    if order is not None:
        work = _reorder(work, order)
    count, workers_note = plan_workers(workers, len(work), backend, address)
    return TournamentPlan(
        config=resolved,
        entrants=entrants,
        work=work,
        skipped=skipped,
        workers=count,
        backend=backend,
        address=address,
        plugin_files=tuple(registry.plugin_files),
        notes=tuple(notes),
        workers_note=workers_note,
    )
