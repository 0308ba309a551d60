"""The two board sets of a hosted competition, the private seed's secrecy, the close, and the leaderboards.

Every submission plays the public boards (the file's ``[boards]``: results and replays shown while the competition
runs, in ``public.db``) and the private boards: as many as ``[host] private_count``, the same size and rule, with
a seed the server draws once (``secrets``) and keeps in ``host.db`` only. Their games go to ``private.db``, which
nothing serves before the close. What is published from the start is the SHA-256 of the seed's decimal digits
(``printf %s SEED | sha256sum``), a commitment: after the close the seed is shown, anyone can check it against
the commitment and print every private board with ``arena boards --seed SEED``, and the organizer could not have
picked the seed after seeing the games.

The competition closes at ``[host] deadline`` or at ``arena host FILE --close`` (``closed_at`` in ``host.db``):
no submission is taken after it; those received before finish their way.
"""

from __future__ import annotations

import datetime as dt
import hashlib
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
from arena.competition.spec import Competition
from arena.config import PlayerRef, TournamentConfig
from arena.host import queue
from arena.host.db import get_setting, now, set_setting
from arena.limits import EngineBot
from arena.results.store import Store
from engine.layout import MAX_SEED

__all__ = ["BoardSets", "LeaderboardCache", "close", "closed_at", "commitment", "private_seed"]

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
    """The competition's two board sets, as tournaments of one player each (a submission)."""

    competition: Competition
    seed: int

    @property
    def host(self) -> HostSpec:
        assert self.competition.host is not None
        return self.competition.host

    @property
    def public_count(self) -> int:
        return self.competition.boards.count

    @property
    def private_count(self) -> int:
        return self.host.private_count or self.competition.boards.count

    def config(self, private: bool, players: tuple[PlayerRef, ...] = (), bots: tuple[EngineBot, ...] = ()) -> Any:
        c = self.competition
        return TournamentConfig.build(
            c.boards.spec,
            c.boards.first_click,
            seed=self.seed if private else c.boards.seed,
            games=self.private_count if private else self.public_count,
            players=players,
            sandbox=c.sandbox,
            limits=c.limits.limits(),
            engine_bots=bots,
            record=c.record,
        )

    @property
    def public_id(self) -> str:
        return str(self.config(False).id)

    @property
    def private_id(self) -> str:
        return str(self.config(True).id)


class LeaderboardCache:
    """The leaderboards of the entrants' rows, made again only when a game or a row changed: a page read by
    twenty people at once while games are played costs one build a change, not twenty."""

    def __init__(self, ttl: float = 1.0) -> None:
        self.ttl = ttl
        self._held: dict[tuple[bool, str], tuple[float, tuple[Any, ...], Leaderboard | None]] = {}
        self._lock = threading.Lock()

    def get(self, store: Path, tid: str, rows: dict[str, queue.Submission], private: bool) -> Leaderboard | None:
        """The leaderboard of ``tid`` in ``store`` over the players of ``rows`` (None before any)."""
        key = (private, tid)
        names = tuple(sorted(s.player for s in rows.values()))
        with self._lock:
            held = self._held.get(key)
            if held is not None and held[1] == names and time.monotonic() - held[0] < self.ttl:
                return held[2]
        leaderboard = _build(store, tid, names)
        with self._lock:
            self._held[key] = (time.monotonic(), names, leaderboard)
        return leaderboard


def _build(store: Path, tid: str, names: tuple[str, ...]) -> Leaderboard | None:
    if not names or not store.exists():
        return None
    with Store(store, read_only=True) as db:
        if not any(t.id == tid for t in db.tournaments()):
            return None
        leaderboard = competition_leaderboard(db, tid, names)
    return leaderboard if leaderboard.rows else None


def rank_of(leaderboard: Leaderboard | None, player: str) -> int | None:
    if leaderboard is None:
        return None
    return next((row.rank for row in leaderboard.rows if row.player.partition("@")[0] == player), None)
