"""The store's running totals: what the leaderboard needs of a tournament, without reading every game.

The store keeps (the schema step ``game-totals`` in ``arena.results.migrations``; ``arena.results.running`` adds
each commit's new games), per (tournament, player, chunk of ``CHUNK_BOARDS`` boards), the sums of the
leaderboard's figures and two masks (boards finished, boards won), and per block of ``CLICK_BLOCK_CHUNKS`` chunks
how many games began at each first click. A leaderboard over the first ``limit`` boards then reads about
``limit / 63`` rows per player, all summed in SQLite, plus the raw games of the last, partial block (fewer than
4,032 per player); paired counts come from popcounts of the masks (numpy, one row per chunk and player). What it
returns are the same integers as a count over every game, and float sums that differ from Python's only in their
last bits (they are added in the order games were stored).

A store made before the step and opened read-only has no totals: ``tournament_totals`` returns None and the
caller reads the games (the reference path, which the tests hold this one equal to).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.outcome import FAILURES
from arena.results.migrations import CHUNK_BOARDS, CLICK_BLOCK_CHUNKS
from arena.results.store import Store

__all__ = ["BLOCK_BOARDS", "Clicks", "PairCounts", "PlayerTotals", "pair_counts", "tournament_totals"]

#: Boards per block of the first-click table, and the boundary below which totals are read whole.
BLOCK_BOARDS = CHUNK_BOARDS * CLICK_BLOCK_CHUNKS

#: First click (row, col; None for a game that never clicked) -> (games, the first board that began there).
Clicks = dict[tuple[int | None, int | None], tuple[int, int]]

#: What the totals sum, in the order of the SQL that sums them.
_SUMS = (
    "games",
    "wins",
    "cpu_ms",
    "guesses",
    "won_moves",
    "won_bbbv",
    "won_cpu_ms",
    "fraction_sum",
    "fraction_count",
    *(o.value for o in FAILURES),
)


#: Each of ``_SUMS`` summed over raw games (those of a partial block): the step's expressions, which the tests
#: hold to the reference.
_GAME_SUMS = (
    "COUNT(*), SUM(won), SUM(cpu_ms), SUM(guesses), SUM(won * moves), SUM(won * bbbv),"
    " SUM(CASE WHEN won THEN cpu_ms ELSE 0.0 END),"
    " SUM(CASE WHEN bbbv <> 0 THEN CAST(bbbv_solved AS REAL) / bbbv ELSE 0.0 END), SUM(bbbv <> 0), "
    + ", ".join(f"SUM(outcome = '{o.value}')" for o in FAILURES)
)
_RANGE = "tournament_id = ? AND player = ? AND board >= ? AND board < ?"


@dataclass
class PlayerTotals:
    """One player's games over a range of boards, summed: what a leaderboard row is computed from."""

    player: str
    games: int = 0
    wins: int = 0
    cpu_ms: float = 0.0
    guesses: int = 0
    won_moves: int = 0
    won_bbbv: int = 0
    won_cpu_ms: float = 0.0
    #: Sum and count of bbbv_solved / bbbv over the games whose bbbv is not 0.
    fraction_sum: float = 0.0
    fraction_count: int = 0
    #: Games per failure outcome (every one of ``FAILURES`` named).
    failed_by: dict[str, int] = field(default_factory=lambda: dict.fromkeys((o.value for o in FAILURES), 0))
    clicks: Clicks = field(default_factory=dict)

    def add(self, sums: Sequence[Any]) -> None:
        """Add sums in the order of ``_SUMS``."""
        values = dict(zip(_SUMS, sums, strict=True))
        for name in _SUMS[:9]:
            setattr(self, name, getattr(self, name) + (values[name] or 0))
        for name in self.failed_by:
            self.failed_by[name] += int(values[name] or 0)

    def most_common_click(self) -> tuple[tuple[int | None, int | None], int] | None:
        """The first click most games began with (of equals, the one a lower board began with) and its count."""
        if not self.clicks:
            return None
        click, (count, _) = min(self.clicks.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
        return click, count


@dataclass(frozen=True, slots=True)
class PairCounts:
    """Two players on the boards both finished: how many, and on how many only one of them won."""

    games: int = 0
    both: int = 0
    only_a: int = 0
    only_b: int = 0

    def __add__(self, other: PairCounts) -> PairCounts:
        return PairCounts(
            self.games + other.games, self.both + other.both, self.only_a + other.only_a, self.only_b + other.only_b
        )


def _add_click(clicks: Clicks, click: tuple[int | None, int | None], games: int, first: int) -> None:
    count, board = clicks.get(click, (0, first))
    clicks[click] = (count + games, min(board, first))


def _click(row: int, col: int) -> tuple[int | None, int | None]:
    """A stored first click as the leaderboard reads it: -1 (the store's NULL) as None."""
    return (None if row < 0 else row, None if col < 0 else col)


def _whole(limit: int) -> int:
    """The first board of the partial block below ``limit``: totals cover the boards below it."""
    return limit // BLOCK_BOARDS * BLOCK_BOARDS


def tournament_totals(store: Store, tournament_id: str, limit: int) -> dict[str, PlayerTotals] | None:
    """Per player, the totals of its games on boards below ``limit`` (players without one are left out); None
    when the store keeps no totals."""
    if not store.has_totals():
        return None
    whole = _whole(limit)
    totals: dict[str, PlayerTotals] = {}
    rows = store.db.execute(
        f"SELECT player, {', '.join(f'SUM({name})' for name in _SUMS)} FROM game_totals"
        " WHERE tournament_id = ? AND chunk < ? GROUP BY player",
        (tournament_id, whole // CHUNK_BOARDS),
    )
    for player, *sums in rows:
        totals.setdefault(player, PlayerTotals(player)).add(sums)
    clicks = store.db.execute(
        "SELECT player, first_row, first_col, SUM(games), MIN(first_board) FROM first_clicks"
        " WHERE tournament_id = ? AND block < ? GROUP BY player, first_row, first_col",
        (tournament_id, whole // BLOCK_BOARDS),
    )
    for player, row, col, games, first in clicks:
        _add_click(totals.setdefault(player, PlayerTotals(player)).clicks, _click(row, col), int(games), int(first))
    if whole < limit:  # the partial block: its games, summed by the same expressions in SQLite
        for player in store.game_players(tournament_id):
            where = (tournament_id, player, whole, limit)
            sums = store.db.execute(f"SELECT {_GAME_SUMS} FROM games WHERE {_RANGE}", where).fetchone()
            if not sums[0]:
                continue
            found = totals.setdefault(player, PlayerTotals(player))
            found.add(sums)
            tail = store.db.execute(
                "SELECT COALESCE(first_row, -1), COALESCE(first_col, -1), COUNT(*), MIN(board) FROM games"
                f" WHERE {_RANGE} GROUP BY 1, 2",
                where,
            )
            for row, col, games, first in tail:
                _add_click(found.clicks, _click(row, col), int(games), int(first))
    return {player: t for player, t in totals.items() if t.games}


def _masks(store: Store, tournament_id: str, player: str, chunks: int) -> tuple[np.ndarray, np.ndarray]:
    """The player's finished and won masks of chunks 0 to ``chunks`` (excluded), 0 where it has no game."""
    rows = store.db.cursor()
    rows.row_factory = None  # plain tuples (the store's connection makes sqlite3.Row)
    rows.execute(
        "SELECT chunk, finished_mask, won_mask FROM game_totals WHERE tournament_id = ? AND player = ? AND chunk < ?",
        (tournament_id, player, chunks),
    )
    # Straight from the cursor into an array: 24 bytes a chunk, never a list of Python tuples (80 MB at 10,000,000
    # games, which would double the process's peak).
    found = np.fromiter(rows, dtype=np.dtype([("chunk", np.int64), ("finished", np.int64), ("won", np.int64)]))
    finished, won = np.zeros(chunks, dtype=np.int64), np.zeros(chunks, dtype=np.int64)
    finished[found["chunk"]], won[found["chunk"]] = found["finished"], found["won"]
    return finished, won


def _bits(masks: np.ndarray) -> int:
    return int(np.bitwise_count(masks).sum())


def pair_counts(store: Store, tournament_id: str, a: str, b: str, limit: int) -> PairCounts:
    """Players ``a`` and ``b`` on the boards below ``limit`` both finished (the store must keep totals): popcounts
    of their masks (one row per chunk each), and the games of the last partial block."""
    whole = _whole(limit)
    finished_a, won_a = _masks(store, tournament_id, a, whole // CHUNK_BOARDS)
    finished_b, won_b = _masks(store, tournament_id, b, whole // CHUNK_BOARDS)
    counts = PairCounts(
        _bits(finished_a & finished_b),
        _bits(won_a & won_b),
        _bits(won_a & ~won_b & finished_b),
        _bits(won_b & ~won_a & finished_a),
    )
    tail = {
        player: dict(
            store.db.execute(
                f"SELECT board, won FROM games WHERE {_RANGE}", (tournament_id, player, whole, limit)
            ).fetchall()
        )
        for player in (a, b)
    }
    common = tail[a].keys() & tail[b].keys()
    return counts + PairCounts(
        len(common),
        sum(tail[a][x] and tail[b][x] for x in common),
        sum(tail[a][x] and not tail[b][x] for x in common),
        sum(tail[b][x] and not tail[a][x] for x in common),
    )
