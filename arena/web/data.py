"""What the pages read of a tournament from the results store: the web package's door to the store (``reading``),
its tournaments and players, the leaderboard and failure report, and how far a run is (``live_status``);
``arena.web.games_data`` reads single games and boards through the same door.

The store is opened read-only for each request (``reading``): a tournament may be writing it meanwhile (WAL mode
lets a reader see every committed batch), and a store file replaced while the app runs is simply opened anew by
the next request. The expensive aggregates (a leaderboard, a player's loss analysis) are cached by what the store
holds for their tournament (``Signature``: games stored, the last commit, the tournament's row), so a page asked
again while nothing changed is served from memory, and a page asked after a commit is computed afresh.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from arena.analysis.failures import PlayerFailures, build_failure_report
from arena.analysis.leaderboard import Leaderboard, build_leaderboard
from arena.results.store import Store, StoreError
from arena.results.stored import StoredPlayer, StoredTournament

__all__ = [
    "CACHE",
    "LIVE_SECONDS",
    "BadRequest",
    "LiveStatus",
    "NotFound",
    "Signature",
    "SweepLine",
    "TournamentInfo",
    "Unavailable",
    "failures",
    "find_player",
    "leaderboard",
    "live_status",
    "player_slug",
    "players",
    "reading",
    "signature",
    "store_signature",
    "sweeps",
    "tournament",
    "tournaments",
]


#: A tournament whose last commit is this recent, and that has games still to play, is shown as being played.
LIVE_SECONDS = 60.0
#: The shortest wait after a tournament's last commit before it is shown as stopped.
MIN_LIVE_SECONDS = 10.0
_SAFE_SLUG = re.compile(r"[A-Za-z0-9_.-]+")


class NotFound(LookupError):
    """No such tournament, player, board or game: a 404 page."""


class BadRequest(ValueError):
    """A malformed parameter: a 400 page."""


class Unavailable(RuntimeError):
    """The store cannot be read (missing, replaced by something else, damaged): a 503 page with the reason."""


@contextlib.contextmanager
def reading(path: Path | None) -> Iterator[Store]:
    """The store at ``path``, opened read-only for one request; ``Unavailable`` with the store's own message
    when it cannot be opened."""
    try:
        db = Store(path, read_only=True)
    except StoreError as error:
        raise Unavailable(str(error)) from None
    try:
        yield db
    finally:
        db.close()


# -- tournaments ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Signature:
    """What the store holds for one tournament, cheaply read: equal signatures mean equal pages. Games are only
    ever added (never changed or removed), each commit adds some, and a run that changes the tournament or its
    players rewrites the tournament's row: so the number of games and that row say whether anything changed."""

    tournament: str
    games: int
    updated: str


def signature(db: Store, tid: str) -> Signature:
    meta = tournament(db, tid)
    return Signature(tid, db.count_games(tid), f"{meta['updated']}|{meta['games']}")


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """A stored tournament as the list shows it; ``row`` is the store's row (``arena leaderboard --list --json``)."""

    row: dict[str, Any]
    players: list[str]
    last: str | None
    live: bool
    incomplete: bool = False

    @property
    def id(self) -> str:
        return str(self.row["id"])

    @property
    def expected(self) -> int:
        return int(self.row["games"]) * len(self.players)

    def as_json(self) -> dict[str, Any]:
        return {
            **self.row,
            "players": self.players,
            "last_activity": self.last,
            "live": self.live,
            "incomplete": self.incomplete,
        }


def _age(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        then = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return (dt.datetime.now(dt.UTC) - then).total_seconds()


def _player(p: StoredPlayer, owners: dict[str, str] | None = None) -> dict[str, Any]:
    """A player as the pages read it: ``player`` is its leaderboard key, ``owner`` who entered it ("" when no
    competition said: ``arena.results.labels``)."""
    owner = (owners or {}).get(p.base, "")
    return {
        "player": p.key,
        "name": p.name,
        "options": dict(p.options),
        "version": p.version,
        "source": p.source,
        "owner": owner,
    }


def tournaments(db: Store) -> list[TournamentInfo]:
    """Every stored tournament, most recently run first, with its players and whether it is being played."""
    out = []
    for stored in db.tournaments():
        names = [p.key for p in db.players(stored.id)]
        status = live_status(db, stored.id)
        row = {**stored.listing(), "name": db.labels(stored.id).name}
        out.append(TournamentInfo(row, names, stored.last_finished, status.live, status.incomplete))
    return out


def tournament(db: Store, tid: str) -> dict[str, Any]:
    """Tournament ``tid`` as ``StoredTournament.listing`` gives it (without its games stored) and its competition's
    ``name`` ("" for none); ``NotFound`` for an unknown id."""
    try:
        stored = db.tournament(tid)
    except StoreError:
        raise NotFound(f"no tournament {tid!r} in this store") from None
    return {**stored.listing(), "name": db.labels(tid).name}


def player_slug(key: str) -> str:
    """A player key as one segment of an address and of a file name: itself when it is plain (``random``),
    else its safe characters and a short hash, so ``random[x=1]`` and ``random-x-1`` stay apart."""
    if _SAFE_SLUG.fullmatch(key) and not key.startswith("."):
        return key
    plain = re.sub(r"[^A-Za-z0-9_.-]+", "-", key).strip("-.") or "player"
    return f"{plain}-{hashlib.sha256(key.encode()).hexdigest()[:6]}"


def players(db: Store, tid: str) -> dict[str, dict[str, Any]]:
    """The tournament's players by slug: their store rows (``player`` is the leaderboard key)."""
    tournament(db, tid)
    owners = db.labels(tid).owners
    return {player_slug(p.key): _player(p, owners) for p in db.players(tid)}


def find_player(db: Store, tid: str, slug: str) -> dict[str, Any]:
    """The store row of the player whose slug is ``slug``; ``NotFound`` otherwise."""
    found = players(db, tid).get(slug)
    if found is None:
        raise NotFound(f"tournament {tid} has no player {slug!r}")
    return found


# -- cached aggregates ----------------------------------------------------------------------------------------
T = TypeVar("T")


@dataclass
class _Cache:
    """Values by (what, store, tournament, ...), each kept with the signature it was computed at."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    values: dict[tuple[Any, ...], tuple[Signature, Any]] = field(default_factory=dict)
    limit: int = 256

    def get(self, key: tuple[Any, ...], sig: Signature, compute: Callable[[], T]) -> T:
        with self.lock:
            found = self.values.get(key)
        if found is not None and found[0] == sig:
            return found[1]  # type: ignore[no-any-return]
        value = compute()
        self.put(key, sig, value)
        return value

    def put(self, key: tuple[Any, ...], sig: Signature, value: Any) -> None:
        with self.lock:
            if len(self.values) >= self.limit and key not in self.values:
                self.values.pop(next(iter(self.values)))
            self.values[key] = (sig, value)


CACHE = _Cache()


def leaderboard(db: Store, tid: str, *, all_versions: bool = False) -> Leaderboard:
    """``arena leaderboard TOURNAMENT``'s figures (``--all-versions``: a row per version), cached by what the
    store holds."""
    sig = signature(db, tid)
    key = ("leaderboard", str(db.path.resolve()), tid, all_versions)
    return CACHE.get(key, sig, lambda: build_leaderboard(db, tid, all_versions=all_versions))


def failures(db: Store, tid: str, key: str) -> PlayerFailures:
    """``arena errors -p KEY``'s report of one player (its outcomes, and each distinct failure with stderr),
    cached like the leaderboard."""
    sig = signature(db, tid)

    def compute() -> PlayerFailures:
        return build_failure_report(db, tid, key, limit=20).players[0]

    return CACHE.get(("failures", str(db.path.resolve()), tid, key), sig, compute)


# -- live -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LiveStatus:
    """How far a tournament is: games stored of those planned, the recent rate, and the time left at that rate;
    ``incomplete`` when it is not being played and games are missing (stopped, or interrupted), with ``resume``,
    the command that plays them; ``sig``, what changes whenever the store's games or row of it change."""

    tournament: str
    stored: int
    expected: int
    live: bool
    games_per_second: float | None
    seconds_left: float | None
    last_activity: str | None
    incomplete: bool = False
    resume: str | None = None
    sig: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "tournament": self.tournament,
            "stored": self.stored,
            "expected": self.expected,
            "live": self.live,
            "games_per_second": self.games_per_second,
            "seconds_left": self.seconds_left,
            "last_activity": self.last_activity,
            "incomplete": self.incomplete,
            "resume": self.resume,
            "sig": self.sig,
        }


def _commits(db: Store, tid: str) -> tuple[str | None, float | None, float | None]:
    """The time of the tournament's last commit, the games per second of the commits of the two minutes before
    it, and the mean time between those commits (``None`` without two of them)."""
    commits = db.recent_commits(tid, seconds=120.0, limit=40)
    if not commits:
        return None, None, None
    last = commits[0][0]
    rate = gap = None
    if len(commits) >= 2:
        newest, oldest = dt.datetime.fromisoformat(commits[0][0]), dt.datetime.fromisoformat(commits[-1][0])
        span = (newest - oldest).total_seconds()
        if span > 0:
            rate = sum(n for _, n in commits[:-1]) / span
            gap = span / (len(commits) - 1)
    return last, rate, gap


def live_window(gap: float | None) -> float:
    """How long after its last commit a tournament still counts as being played: ten of its usual gaps between
    commits (at least ``MIN_LIVE_SECONDS``), so a stopped run is seen as stopped within seconds, not a minute;
    ``LIVE_SECONDS`` without two recent commits to measure the gap by."""
    if gap is None:
        return LIVE_SECONDS
    return min(LIVE_SECONDS, max(MIN_LIVE_SECONDS, 10 * gap))


def live_status(db: Store, tid: str) -> LiveStatus:
    """The progress of ``tid``: games stored of those planned, and, while it is being played (games still to
    play, a commit within ``live_window``), the rate of its recent commits and the time left at it; when it is
    not being played and games are missing, the command that resumes it. The commits are read once per change
    of the store (cached by ``signature``)."""
    from arena.web.commands import resume_command

    sig = signature(db, tid)
    meta = tournament(db, tid)
    entrants = db.players(tid)
    expected = int(meta["games"]) * len(entrants)
    last, rate, gap = CACHE.get(("commits", str(db.path.resolve()), tid), sig, lambda: _commits(db, tid))
    age = _age(last or meta["updated"])
    live = age is not None and age < live_window(gap) and sig.games < expected
    rate = rate if live else None
    left = (expected - sig.games) / rate if rate else None
    incomplete = not live and sig.games < expected
    resume = resume_command(meta, [_player(p) for p in entrants]) if incomplete else None
    return LiveStatus(
        tid, sig.games, expected, live, rate, left, last, incomplete, resume, f"{sig.games}|{sig.updated}"
    )


def store_signature(db: Store) -> str:
    """What changes whenever any tournament of the store gains games or is run again: the index's signature."""
    parts = [f"{t.id}:{t.games_stored}:{t.updated}:{t.boards}" for t in db.tournaments()]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


# -- sweeps ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SweepPoint:
    tournament: str
    mines: int
    density: float
    player: str
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class SweepLine:
    """The tournaments of one sweep on one board size: the same rule, seed, boards and players, several mine
    counts (``arena sweep`` plays exactly such a grid; the store keeps them as ordinary tournaments)."""

    height: int
    width: int
    rule: str
    seed: int
    boards: int
    players: tuple[str, ...]
    points: tuple[SweepPoint, ...]

    @property
    def size(self) -> str:
        return f"{self.height}x{self.width}"


def sweeps(db: Store) -> list[SweepLine]:
    """The stored sweeps: tournaments of one board size, rule and seed, where there are two or more mine counts.

    ``arena sweep`` plays such a grid, and reuses a point's tournament when one is stored already, even one with
    more boards or more players (its id is its board set): so a sweep's points are grouped by board set alone,
    and each point is counted, as ``arena sweep`` counts it, over the boards every point has (the fewest any
    point of the group stores); a player is shown on every point that has its games."""
    groups: dict[tuple[Any, ...], list[StoredTournament]] = {}
    for stored in db.tournaments():
        key = (stored.spec.height, stored.spec.width, stored.rule.value, stored.seed)
        groups.setdefault(key, []).append(stored)
    lines = []
    for (height, width, rule, seed), rows in groups.items():
        if len({r.spec.mines for r in rows}) < 2:
            continue
        boards = min(r.boards for r in rows)
        players_of = {r.id: [p.key for p in db.players(r.id)] for r in rows}
        names = tuple(dict.fromkeys(sorted(n for r in rows for n in players_of[r.id])))
        points = []
        for row in sorted(rows, key=lambda r: r.spec.mines):
            counts = db.win_counts(row.id, boards)
            for name in players_of[row.id]:
                games, wins = counts.get(name, (0, 0))
                density = row.spec.mines / (height * width)
                points.append(SweepPoint(row.id, int(row.spec.mines), density, name, games, wins))
        lines.append(SweepLine(height, width, rule, seed, boards, names, tuple(points)))
    return sorted(lines, key=lambda line: (line.height * line.width, line.rule, line.seed))
