"""The public and private boards of a hosted competition, the private seed's secrecy, the close, the leaderboards.

Every submission plays the public boards (the file's ``[boards]``, or each of its ``[[sets]]``: results and replays
shown while the competition runs, in ``public.db``) and, for each of those sets, private boards: as many as
``[host] private_count`` (default: the set's count), the same size and rule, with a seed the server draws once
(``secrets``) and keeps in ``host.db`` only; set ``i`` (from 0, in the file's order) uses ``SEED + i`` (modulo
``MAX_SEED + 1``), so one seed and one commitment cover every set. Their games go to ``private.db``, which
nothing serves before the close. With several sets the leaderboard ranks by points as ``arena compete`` does
(``arena.competition.standings``: each set's wins times its points, the sets' intervals combined).

What is published from the start is the SHA-256 of the seed's decimal digits
(``printf %s SEED | sha256sum``), a commitment: after the close the seed is shown, anyone can check it against
the commitment and print every private board with ``arena boards --seed SEED``, and the organizer could not have
picked the seed after seeing the games.

The competition closes at ``[host] deadline`` or at ``arena host FILE --close`` (``closed_at`` in ``host.db``):
no submission is taken after it; those received before finish their way.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.analysis.leaderboard import Leaderboard
from arena.competition.hosting import HostSpec
from arena.competition.publish import competition_leaderboard
from arena.competition.spec import BoardSet, Competition
from arena.competition.standings import PlayedSet, Standing, standings
from arena.config import PlayerRef, TournamentConfig
from arena.host import queue
from arena.host.db import get_setting, now, set_setting
from arena.limits import EngineBot
from arena.results.store import Store
from engine.layout import MAX_SEED

__all__ = ["BoardSets", "LeaderboardCache", "Ranked", "close", "closed_at", "commitment", "private_seed", "rank_of"]

SEED_KEY = "private_seed"
CLOSED_KEY = "closed_at"


def private_seed(db: sqlite3.Connection) -> int:
    """The private boards' seed: drawn at the first start, then always the same. Never show it before the close."""
    return int(set_setting(db, SEED_KEY, str(secrets.randbelow(MAX_SEED + 1)), replace=False))


def commitment(seed: int) -> str:
    """The SHA-256 (hex) of the seed's decimal digits: what the pages show before the close."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def _stamp(moment: float) -> str:
    return dt.datetime.fromtimestamp(moment, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def closed_at(db: sqlite3.Connection, host: HostSpec) -> str | None:
    """When the competition closed (a readable UTC time), or None while it takes submissions. Passing the
    deadline closes it (recorded once, so the close has one time)."""
    stamp = get_setting(db, CLOSED_KEY)
    if stamp is not None:
        return _stamp(float(stamp))
    if host.deadline is not None and dt.datetime.now(dt.UTC) >= host.deadline:
        return _stamp(float(set_setting(db, CLOSED_KEY, str(host.deadline.timestamp()), replace=False)))
    return None


def close(db: sqlite3.Connection) -> str:
    """Close the competition now (or keep the time it closed at); that time."""
    return _stamp(float(set_setting(db, CLOSED_KEY, str(now()), replace=False)))


@dataclass(frozen=True)
class BoardSets:
    """The competition's board sets, public and private, as tournaments of one player each (a submission)."""

    competition: Competition
    seed: int

    @property
    def host(self) -> HostSpec:
        assert self.competition.host is not None
        return self.competition.host

    @property
    def sets(self) -> list[BoardSet]:
        return self.competition.board_sets

    @property
    def several(self) -> bool:
        """Whether the file has ``[[sets]]`` (ranked by points) rather than one ``[boards]``."""
        return self.competition.sets is not None

    def seed_of(self, index: int, private: bool) -> int:
        """The seed of set ``index``'s public or private boards."""
        return (self.seed + index) % (MAX_SEED + 1) if private else self.sets[index].seed

    def count_of(self, index: int, private: bool) -> int:
        return (self.host.private_count or self.sets[index].count) if private else self.sets[index].count

    @property
    def public_count(self) -> int:
        """Public boards of every set together (the games a submission plays there)."""
        return sum(self.count_of(i, False) for i in range(len(self.sets)))

    @property
    def private_count(self) -> int:
        return sum(self.count_of(i, True) for i in range(len(self.sets)))

    def config(
        self, private: bool, index: int = 0, players: tuple[PlayerRef, ...] = (), bots: tuple[EngineBot, ...] = ()
    ) -> Any:
        c, board_set = self.competition, self.sets[index]
        return TournamentConfig.build(
            board_set.spec,
            board_set.first_click,
            seed=self.seed_of(index, private),
            games=self.count_of(index, private),
            players=players,
            sandbox=c.sandbox,
            limits=c.limits.limits(),
            engine_bots=bots,
            record=c.record,
        )

    def ids(self, private: bool) -> list[str]:
        """Each set's tournament id, in the file's order."""
        return [str(self.config(private, i).id) for i in range(len(self.sets))]

    @property
    def public_id(self) -> str:
        """The first set's public tournament (the only one without ``[[sets]]``)."""
        return self.ids(False)[0]

    @property
    def private_id(self) -> str:
        return self.ids(True)[0]


@dataclass(frozen=True)
class Ranked:
    """The leaderboards of one side (public or private): each set's, and with several sets the points table."""

    #: Each set with its tournament id and its leaderboard (None before anyone played it).
    leaderboards: list[tuple[BoardSet, str, Leaderboard | None]]
    #: The points table, ranked by points (several sets only).
    points: list[Standing] | None

    @property
    def leaderboard(self) -> Leaderboard | None:
        """The one set's leaderboard (the first set's with several)."""
        return self.leaderboards[0][2] if self.leaderboards else None

    def rank(self, player: str) -> int | None:
        if self.points is None:
            return rank_of(self.leaderboard, player)
        return next((s.rank for s in self.points if s.entrant.partition("@")[0] == player), None)

    def standing(self, player: str) -> Standing | None:
        return next((s for s in self.points or [] if s.entrant.partition("@")[0] == player), None)


class LeaderboardCache:
    """The leaderboards of the entrants' rows, made again only when the store changed (its file or its log grew:
    a batch of games committed), and then at most once a ``ttl``: a page read by twenty people at once while games
    are played costs one build a second, not twenty, and nothing while no game is played."""

    def __init__(self, ttl: float = 1.0, size: int = 64) -> None:
        self.ttl, self.size = ttl, size
        self._held: dict[tuple[Any, ...], tuple[float, tuple[int, ...], Any]] = {}
        self._lock = threading.Lock()

    def get(self, store: Path, tid: str, rows: dict[str, queue.Submission], private: bool) -> Leaderboard | None:
        """The leaderboard of ``tid`` in ``store`` over the players of ``rows`` (None before any)."""
        key = ("board", private, tid)
        return self._held_or(key, store, rows, lambda names: _build(store, tid, names))  # type: ignore[no-any-return]

    def ranked(self, store: Path, sets: BoardSets, rows: dict[str, queue.Submission], private: bool) -> Ranked:
        """Every set's leaderboard of one side over the players of ``rows``, with the points table when the
        competition has several sets (``arena.competition.standings``, as ``arena compete`` ranks them)."""
        ids = sets.ids(private)
        if not sets.several:
            return Ranked([(sets.sets[0], ids[0], self.get(store, ids[0], rows, private))], None)
        key = ("ranked", private, tuple(ids))
        return self._held_or(key, store, rows, lambda names: _ranked(store, sets, ids, names))  # type: ignore[no-any-return]

    def _held_or(self, key: tuple[Any, ...], store: Path, rows: dict[str, queue.Submission], make: Any) -> Any:
        """What ``make(names)`` gave for ``key`` and these players less than ``ttl`` ago, or made now. Kept by
        players too, so that the leaderboard everyone reads and an earlier submission's own rows do not push each
        other out; the oldest of more than ``size`` are forgotten."""
        names = tuple(sorted(s.player for s in rows.values()))
        key = (*key, names)
        state = _file_state(store)
        with self._lock:
            held = self._held.get(key)
            if held is not None and (held[1] == state or time.monotonic() - held[0] < self.ttl):
                return held[2]
        made = make(names)
        with self._lock:
            self._held.pop(key, None)
            self._held[key] = (time.monotonic(), state, made)
            while len(self._held) > self.size:
                self._held.pop(next(iter(self._held)))
        return made


def _file_state(store: Path) -> tuple[int, ...]:
    """The store's size and time of change, and its write-ahead log's: what a commit of games moves."""
    state: list[int] = []
    for path in (store, store.with_name(store.name + "-wal")):
        try:
            found = os.stat(path)
        except OSError:
            state += [-1, -1]
            continue
        state += [found.st_size, found.st_mtime_ns]
    return tuple(state)


def _build(store: Path, tid: str, names: tuple[str, ...]) -> Leaderboard | None:
    if not names or not store.exists():
        return None
    with Store(store, read_only=True) as db:
        if not any(t.id == tid for t in db.tournaments()):
            return None
        board = competition_leaderboard(db, tid, names)
    return board if board.rows else None


def _ranked(store: Path, sets: BoardSets, ids: list[str], names: tuple[str, ...]) -> Ranked:
    """Each set's leaderboard and the points table over them (``standings``, the scorer of ``arena compete``)."""
    found: list[tuple[BoardSet, str, Leaderboard | None]] = [(s, t, None) for s, t in zip(sets.sets, ids, strict=True)]
    if not names or not store.exists():
        return Ranked(found, [])
    with Store(store, read_only=True) as db:
        there = {t.id for t in db.tournaments()}
        played: list[PlayedSet] = []
        for index, (board_set, tid, _) in enumerate(found):
            if tid not in there:
                continue
            leaderboard = competition_leaderboard(db, tid, names)
            if leaderboard.rows:
                found[index] = (board_set, tid, leaderboard)
                played.append(PlayedSet(board_set, tid, leaderboard))
        table = standings(db, played, {}) if played else []
    return Ranked(found, table)


def rank_of(board: Leaderboard | None, player: str) -> int | None:
    if board is None:
        return None
    return next((row.rank for row in board.rows if row.player.partition("@")[0] == player), None)
