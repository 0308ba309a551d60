"""What the pages read of a tournament's games: a page of a player's games, one game ready for the replay viewer,
each board's win in order, and where two players' games of a board part.

Read through the same read-only store as every page (``arena.web.data.reading``), by the games table's key
(tournament, player, board): a page of a player's 20,000 games reads 50 rows, a replay one game and its record.
These are the readers of single games and boards; ``arena.web.data`` holds what is read of a tournament as a
whole (its row, players, leaderboard, live state), cached by what the store holds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from arena.analysis.pairs import split_boards
from arena.analysis.replay import ReplayGame, ReplayMove
from arena.analysis.replay.model import Note
from arena.outcome import FAILURES, GameResult
from arena.results.records import RecordError, decode_moves
from arena.results.store import Store, StoreError
from arena.web.data import BadRequest, NotFound, Unavailable, tournament

__all__ = [
    "OUTCOME_FILTERS",
    "GamesPage",
    "board_pairs",
    "diverged",
    "diverged_at",
    "games_page",
    "player_games",
    "records",
    "replay_game",
    "split_figures",
    "wins_in_order",
]

#: The outcome filters of a player's games list: every game, or one kind of ending.
OUTCOME_FILTERS = ("all", "won", "lost", "failed")


@dataclass(frozen=True, slots=True)
class GamesPage:
    """One page of a player's games, filtered by outcome: the stored games, and how many match in all."""

    rows: list[GameResult]
    total: int
    page: int
    pages: int
    per_page: int
    counts: dict[str, int]


def _matches(outcome: str, wanted: str) -> bool:
    if wanted == "all":
        return True
    if wanted == "failed":
        return outcome in {o.value for o in FAILURES}
    return outcome == wanted


def games_page(db: Store, tid: str, key: str, outcome: str = "all", page: int = 1, per_page: int = 50) -> GamesPage:
    """Page ``page`` (from 1) of ``key``'s games whose outcome is ``outcome`` (``OUTCOME_FILTERS``), by board.

    Counted and paged by SQLite on the games table's key: a page of a player's 20,000 games reads 50 rows."""
    if outcome not in OUTCOME_FILTERS:
        raise BadRequest(f"outcome must be one of {', '.join(OUTCOME_FILTERS)}, not {outcome!r}")
    if page < 1:
        raise BadRequest(f"page must be 1 or more, not {page}")
    by_outcome = db.outcome_counts(tid, player=key).get(key, {})
    counts = {name: sum(n for o, n in by_outcome.items() if _matches(o.value, name)) for name in OUTCOME_FILTERS}
    wanted = [o for o in by_outcome if _matches(o.value, outcome)]
    pages = max(1, -(-counts[outcome] // per_page))
    if page > pages:
        raise NotFound(f"page {page} of {key}'s {outcome} games does not exist; there are {pages}")
    rows = db.games_paged(tid, key, wanted, limit=per_page, offset=(page - 1) * per_page)
    return GamesPage(rows, counts[outcome], page, pages, per_page, counts)


def player_games(db: Store, tid: str, key: str) -> list[GameResult]:
    """The stored games of one player, by board: read by the games table's key (tournament, player, board), not
    by a scan of every player's games."""
    return list(db.iter_games(tid, player=key))


def _note(note: str, p_mine: float | None) -> Note:
    if p_mine is not None:
        return {"note": note, "p_mine": p_mine} if note else {"p_mine": p_mine}
    return note or None


def replay_game(db: Store, tid: str, key: str, board: int) -> ReplayGame:
    """``key``'s game on ``board``, its record checked against its stored result, ready for the viewer.

    ``NotFound`` when the game is not stored; ``Unavailable`` when it has no record or one that does not
    reproduce it (the page says which)."""
    tournament(db, tid)
    stored = db.tournament(tid)
    try:
        result = db.game(tid, key, board)
    except StoreError:
        raise NotFound(f"tournament {tid} has no game of {key!r} on board {board}") from None
    try:
        checked = db.replay(tid, key, board)
    except RecordError as error:
        raise Unavailable(str(error)) from None
    moves = [ReplayMove(m.kind, m.row, m.col, m.guess, _note(m.note, m.p_mine), m.opened) for m in checked.record.moves]
    return ReplayGame(
        key, stored.spec, stored.rule.value, stored.seed, board, moves, result.outcome.value, result.error
    )


def _won_by_board(db: Store, tid: str, key: str) -> dict[int, bool]:
    query = "SELECT board, won FROM games WHERE tournament_id = ? AND player = ? ORDER BY board"
    return {int(board): bool(won) for board, won in db.db.execute(query, (tid, key))}


def wins_in_order(db: Store, tid: str, key: str) -> list[bool]:
    """Whether ``key`` won each of its stored games, in board order (read by the games table's key)."""
    return list(_won_by_board(db, tid, key).values())


def board_pairs(db: Store, tid: str, a: str, b: str) -> list[tuple[bool, bool]]:
    """(``a`` won, ``b`` won) on each board both have played, in board order: what a match's test reads."""
    x, y = _won_by_board(db, tid, a), _won_by_board(db, tid, b)
    return [(x[board], y[board]) for board in x if board in y]


def records(db: Store, tid: str) -> Iterator[tuple[str, int, bytes]]:
    """Every game record of the tournament as ``(player, board, blob)``, in board order, read as consumed."""
    return db.record_blobs(tid)


def split_figures(db: Store, tid: str, a: str, b: str) -> dict[str, Any]:
    """``arena diff``'s figures (``arena.analysis.pairs``): over the boards both played, which only ``a`` won,
    which only ``b``, and how many both or neither won."""
    return dataclasses.asdict(split_boards(db, tid, a, b))


def diverged_at(db: Store, tid: str, a: str, b: str, board: int) -> int | None:
    """The 1-based move where the two games of ``board`` first differ; ``None`` for the same play or no record."""
    return diverged(db, tid, a, b, [board])[board]


def diverged(db: Store, tid: str, a: str, b: str, boards: Collection[int]) -> dict[int, int | None]:
    """``diverged_at`` of each of ``boards``, the two players' records read in one pass each (a comparison page
    of a large tournament lists thousands of boards), without the cells each move opened."""
    wanted = set(boards)
    moves: list[dict[int, list[tuple[int, int]]]] = []
    for key in (a, b):
        found: dict[int, list[tuple[int, int]]] = {}
        for _, board, blob in db.record_blobs(tid, key):
            if board in wanted:
                try:
                    codes, cells, _, _ = decode_moves(blob)
                except RecordError:
                    continue
                found[int(board)] = [(code & 3, cell) for code, cell in zip(codes, cells, strict=True)]
        moves.append(found)
    out: dict[int, int | None] = {}
    for board in sorted(wanted):
        if board not in moves[0] or board not in moves[1]:
            out[board] = None
            continue
        x, y = moves[0][board], moves[1][board]
        at = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), None)
        if at is None and len(x) != len(y):
            at = min(len(x), len(y))
        out[board] = None if at is None else at + 1
    return out
