"""The store's running totals: what the leaderboard needs of a tournament, without reading every game.

A trigger on the games table (the schema step ``game-totals`` in ``arena.results.migrations``) keeps, per
(tournament, player, chunk of ``CHUNK_BOARDS`` boards), the sums of the leaderboard's figures and two masks
(boards finished, boards won), and per block of ``CLICK_BLOCK_CHUNKS`` chunks how many games began at each first
click. A leaderboard over the first ``limit`` boards then reads about ``limit / 63`` rows per player, all summed
in SQLite, plus the raw games of the last, partial block (fewer than 4,032 per player); paired counts come from
popcounts of the masks, also in SQLite. What it returns are the same integers as a count over every game, and
float sums that differ from Python's only in their last bits (SQLite adds in the order games were stored).

A store made before the step and opened read-only has no totals: ``tournament_totals`` returns None and the
caller reads the games (the reference path, which the tests hold this one equal to).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.result import FAILURES, GameResult, Outcome
from arena.results.migrations import CHUNK_BOARDS, CLICK_BLOCK_CHUNKS
from arena.results.store import Store

__all__ = ["BLOCK_BOARDS", "Clicks", "PairCounts", "PlayerTotals", "pair_counts", "tournament_totals"]

#: Boards per block of the first-click table, and the boundary below which totals are read whole.
BLOCK_BOARDS = CHUNK_BOARDS * CLICK_BLOCK_CHUNKS

#: First click (row, col; None for a game that never clicked) -> (games, the first board that began there).
Clicks = dict[tuple[int | None, int | None], tuple[int, int]]

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

    def add(self, game: GameResult) -> None:
        """Count one game (the raw games of a partial block)."""
        won = game.outcome is Outcome.WON
        self.games += 1
        self.wins += won
        self.cpu_ms += game.cpu_ms
        self.guesses += game.guesses
        if won:
            self.won_moves += game.moves
            self.won_bbbv += game.bbbv
            self.won_cpu_ms += game.cpu_ms
        if game.bbbv:
            self.fraction_sum += game.bbbv_solved / game.bbbv
            self.fraction_count += 1
        if game.outcome.value in self.failed_by:
            self.failed_by[game.outcome.value] += 1
        _add_click(self.clicks, (game.first_row, game.first_col), 1, game.board)

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
    failures = [o.value for o in FAILURES]
    for row in rows:
        player, *sums = row
        values = dict(zip(_SUMS, sums, strict=True))
        totals[player] = PlayerTotals(
            player,
            **{name: values[name] for name in _SUMS[:9]},
            failed_by={name: int(values[name]) for name in failures},
        )
    clicks = store.db.execute(
        "SELECT player, first_row, first_col, SUM(games), MIN(first_board) FROM first_clicks"
        " WHERE tournament_id = ? AND block < ? GROUP BY player, first_row, first_col",
        (tournament_id, whole // BLOCK_BOARDS),
    )
    for player, row, col, games, first in clicks:
        click = (None if row < 0 else row, None if col < 0 else col)
        _add_click(totals[player].clicks, click, int(games), int(first))
    for game in store.games(tournament_id, limit, start=whole):
        totals.setdefault(game.player, PlayerTotals(game.player)).add(game)
    return {player: t for player, t in totals.items() if t.games}


def _popcount(x: str) -> list[str]:
    """SQL that counts the set bits of the non-negative 64-bit integer ``x`` in four steps (SWAR without the
    multiplication, which SQLite would turn into a float on overflow): each step's expression of ``x``."""
    return [
        f"{x} - (({x} >> 1) & 6148914691236517205)",  # 0x5555...: pairs of bits
        f"({x} & 3689348814741910323) + (({x} >> 2) & 3689348814741910323)",  # 0x3333...: nibbles
        f"({x} + ({x} >> 4)) & 1085102592571150095",  # 0x0f0f...: bytes
        f"(({x} + ({x} >> 8) + ({x} >> 16) + ({x} >> 24) + ({x} >> 32) + ({x} >> 40) + ({x} >> 48)"
        f" + ({x} >> 56)) & 127)",
    ]


def _pair_sql() -> str:
    names = ("f", "ab", "oa", "ob")
    steps = [_popcount(name) for name in names]
    stages = []
    for stage in range(3):
        columns = ", ".join(f"{steps[i][stage]} AS {name}" for i, name in enumerate(names))
        source = "masks" if stage == 0 else f"s{stage - 1}"
        stages.append(f"s{stage} AS (SELECT {columns} FROM {source})")
    total = ", ".join(f"SUM({steps[i][3]})" for i in range(4))
    return (
        "WITH masks AS (SELECT a.finished_mask & b.finished_mask AS f, a.won_mask & b.won_mask AS ab,"
        " a.won_mask & ~b.won_mask & b.finished_mask AS oa, b.won_mask & ~a.won_mask & a.finished_mask AS ob"
        " FROM game_totals a JOIN game_totals b"
        " ON b.tournament_id = a.tournament_id AND b.player = ? AND b.chunk = a.chunk"
        " WHERE a.tournament_id = ? AND a.player = ? AND a.chunk < ?), "
        + ", ".join(stages)
        + f" SELECT {total} FROM s2"
    )


_PAIRS = _pair_sql()


def pair_counts(store: Store, tournament_id: str, a: str, b: str, limit: int) -> PairCounts:
    """Players ``a`` and ``b`` on the boards below ``limit`` both finished (the store must keep totals)."""
    whole = _whole(limit)
    found = store.db.execute(_PAIRS, (b, tournament_id, a, whole // CHUNK_BOARDS)).fetchone()
    counts = PairCounts(*(int(value or 0) for value in found))
    tail: dict[str, dict[int, bool]] = {a: {}, b: {}}
    for game in _games_of(store.games(tournament_id, limit, start=whole), (a, b)):
        tail[game.player][game.board] = game.outcome is Outcome.WON
    common = tail[a].keys() & tail[b].keys()
    return counts + PairCounts(
        len(common),
        sum(tail[a][x] and tail[b][x] for x in common),
        sum(tail[a][x] and not tail[b][x] for x in common),
        sum(tail[b][x] and not tail[a][x] for x in common),
    )


def _games_of(games: Iterable[GameResult], players: Sequence[str]) -> Iterable[GameResult]:
    return (game for game in games if game.player in players)
