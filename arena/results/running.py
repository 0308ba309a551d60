"""Writing the running totals: each commit's new games added to ``game_totals`` and ``first_clicks`` at commit.

The leaderboard and a resume read the totals (``arena.results.totals``, ``StoreReader.unfinished``). Until the
schema step ``totals-at-commit`` an ``AFTER INSERT`` trigger on ``games`` kept them, one upsert per table for
every game stored: about 5 us of CPU a game, as much as SQLite's own insert of the games row, and a twentieth of
a whole Beginner game. Now the store adds a commit's games in Python, in the same transaction as their rows
(``Store.save``, and ``Store.recover`` from the journal): one read of the chunks the commit touches, one write of
each, one upsert per first-click cell. The trigger's figures come out to the bit: the float sums start from the
stored value and add each new game's figure in the order the games are stored, as the trigger's upserts did (a
sum taken over the commit first and added after would round differently); the integer sums and masks are exact in
any order. ``tests/arena/results/test_running_totals.py`` holds the tables to those the trigger writes.

Which games are new is read from the finished masks, which say which boards a player has stored: a game whose bit
is set is a repeat (a batch delivered twice, or a board twice in one batch), which ``INSERT OR IGNORE`` would have
ignored and the trigger not counted. Only the new games' rows are then inserted; if SQLite finds one of them
stored after all (a store whose totals lost a game: never by this arena's writers), the totals of the chunks that
commit touched are made again from the games, as the ``game-totals`` step makes them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from arena.outcome import Outcome
from arena.results.migrations import CHUNK_BOARDS, CLICK_BLOCK_CHUNKS

__all__ = ["RowLayout", "add_games"]

#: The outcomes ``game_totals`` counts a column each: every one but a win.
_COUNTED = tuple(o.value for o in Outcome if o is not Outcome.WON)
#: The columns of ``game_totals`` after its key, in the order the accumulators below keep them.
_TOTALS = (
    "games",
    "wins",
    "finished_mask",
    "won_mask",
    "cpu_ms",
    "guesses",
    "won_moves",
    "won_bbbv",
    "won_cpu_ms",
    "fraction_sum",
    "fraction_count",
    *_COUNTED,
)
#: Where each outcome but a win is counted in an accumulator.
_OUTCOME_SLOT = {name: 11 + i for i, name in enumerate(_COUNTED)}
_READ = f"SELECT chunk, {', '.join(_TOTALS)} FROM game_totals WHERE tournament_id = ? AND player = ? AND chunk IN "
_WRITE = (
    f"INSERT OR REPLACE INTO game_totals (tournament_id, player, chunk, {', '.join(_TOTALS)})"
    f" VALUES ({','.join('?' * (len(_TOTALS) + 3))})"
)
_CLICKS = (
    "INSERT INTO first_clicks (tournament_id, player, block, first_row, first_col, games, first_board)"
    " VALUES (?,?,?,?,?,?,?) ON CONFLICT (tournament_id, player, block, first_row, first_col)"
    " DO UPDATE SET games = games + excluded.games, first_board = MIN(first_board, excluded.first_board)"
)
#: Chunks per read: below SQLite's limit of bound parameters.
_READ_CHUNKS = 500
#: A new chunk's float sums start at -0.0, the sum's identity (0.0 + -0.0 would be 0.0): its first game's figure
#: is then stored as it is, as the trigger's insert stored it.
_NEW = (0, 0, 0, 0, -0.0, 0, 0, 0, -0.0, -0.0, 0, *(0 for _ in _COUNTED))


class RowLayout:
    """Where a games row (as ``Store.save`` builds it: the tournament id, the ``GameResult`` fields but the
    record, ``won``, the time it was stored) holds what the totals add."""

    def __init__(self, names: Sequence[str]) -> None:
        at = {name: 1 + i for i, name in enumerate(names)}
        self.player, self.board, self.outcome = at["player"], at["board"], at["outcome"]
        self.moves, self.guesses, self.cpu_ms = at["moves"], at["guesses"], at["cpu_ms"]
        self.bbbv, self.solved = at["bbbv"], at["bbbv_solved"]
        self.first_row, self.first_col = at["first_row"], at["first_col"]
        self.won = len(names) + 1


def _stored(db: sqlite3.Connection, keys: set[tuple[str, str, int]]) -> dict[tuple[str, str, int], list[Any]]:
    """The stored totals of ``keys`` (tournament, player, chunk) that have a row."""
    chunks: dict[tuple[str, str], list[int]] = {}
    for tournament, player, chunk in keys:
        chunks.setdefault((tournament, player), []).append(chunk)
    found: dict[tuple[str, str, int], list[Any]] = {}
    cursor = db.cursor()
    cursor.row_factory = None  # plain tuples (the store's connection makes sqlite3.Row)
    for (tournament, player), wanted in chunks.items():
        for at in range(0, len(wanted), _READ_CHUNKS):
            part = wanted[at : at + _READ_CHUNKS]
            cursor.execute(_READ + f"({','.join('?' * len(part))})", (tournament, player, *part))
            for chunk, *sums in cursor:
                found[tournament, player, chunk] = sums
    return found


def add_games(db: sqlite3.Connection, insert: str, rows: Sequence[tuple[Any, ...]], layout: RowLayout) -> int:
    """Insert the games ``rows`` (with ``insert``, an ``INSERT OR IGNORE``) that the store does not hold yet and
    add them to the running totals, in the caller's transaction; returns how many were new."""
    player_at, board_at, won_at = layout.player, layout.board, layout.won
    keys = {(row[0], row[player_at], row[board_at] // CHUNK_BOARDS) for row in rows}
    totals = _stored(db, keys)
    new_rows = []
    clicks: dict[tuple[Any, ...], list[int]] = {}
    outcome_at, cpu_at, moves_at, guesses_at = layout.outcome, layout.cpu_ms, layout.moves, layout.guesses
    bbbv_at, solved_at, row_at, col_at = layout.bbbv, layout.solved, layout.first_row, layout.first_col
    slot_of = _OUTCOME_SLOT.get
    for row in rows:
        board = row[board_at]
        chunk, bit = divmod(board, CHUNK_BOARDS)
        key = (row[0], row[player_at], chunk)
        sums = totals.get(key)
        if sums is None:
            sums = totals[key] = list(_NEW)
        mask = 1 << bit
        if sums[2] & mask:
            continue  # stored already, or earlier in this commit
        new_rows.append(row)
        won, cpu, bbbv = row[won_at], float(row[cpu_at]), row[bbbv_at]
        sums[0] += 1
        sums[2] += mask
        sums[4] += cpu
        sums[5] += row[guesses_at]
        if won:
            sums[1] += 1
            sums[3] += mask
            sums[6] += row[moves_at]
            sums[7] += bbbv
            sums[8] += cpu
        else:
            sums[8] += 0.0
            slot = slot_of(row[outcome_at])
            if slot is not None:
                sums[slot] += 1
        if bbbv:
            sums[9] += float(row[solved_at]) / bbbv
            sums[10] += 1
        else:
            sums[9] += 0.0
        first_row, first_col = row[row_at], row[col_at]
        click = (
            row[0],
            key[1],
            chunk // CLICK_BLOCK_CHUNKS,
            -1 if first_row is None else first_row,
            -1 if first_col is None else first_col,
        )
        seen = clicks.get(click)
        if seen is None:
            clicks[click] = [1, board]
        else:
            seen[0] += 1
            if board < seen[1]:
                seen[1] = board
    if not new_rows:
        return 0
    added = db.executemany(insert, new_rows).rowcount
    if added != len(new_rows):
        _remake(db, {(*key[:2], key[2] // CLICK_BLOCK_CHUNKS) for key in keys})
        return added
    db.executemany(_WRITE, [(*key, *sums) for key, sums in totals.items() if sums[0]])
    db.executemany(_CLICKS, [(*click, games, first) for click, (games, first) in clicks.items()])
    return added


def _remake(db: sqlite3.Connection, blocks: set[tuple[str, str, int]]) -> None:
    """The totals of the click blocks ``blocks`` (tournament, player, block) made again from their games: for a
    store whose totals had lost a game (see the module's docstring)."""
    boards = CHUNK_BOARDS * CLICK_BLOCK_CHUNKS
    where = "tournament_id = ? AND player = ? AND board >= ? AND board < ?"
    for tournament, player, block in blocks:
        span = (tournament, player, block * boards, (block + 1) * boards)
        chunks = (tournament, player, block * CLICK_BLOCK_CHUNKS, (block + 1) * CLICK_BLOCK_CHUNKS)
        db.execute(
            "DELETE FROM game_totals WHERE tournament_id = ? AND player = ? AND chunk >= ? AND chunk < ?", chunks
        )
        db.execute("DELETE FROM first_clicks WHERE tournament_id = ? AND player = ? AND block = ?", span[:3])
        db.execute(
            f"INSERT INTO game_totals (tournament_id, player, chunk, {', '.join(_TOTALS)})"
            f" SELECT tournament_id, player, board / {CHUNK_BOARDS}, COUNT(*), SUM(won),"
            f" SUM(1 << (board % {CHUNK_BOARDS})), SUM(won << (board % {CHUNK_BOARDS})),"
            " SUM(cpu_ms), SUM(guesses), SUM(won * moves), SUM(won * bbbv),"
            " SUM(CASE WHEN won THEN cpu_ms ELSE 0.0 END),"
            " SUM(CASE WHEN bbbv <> 0 THEN CAST(bbbv_solved AS REAL) / bbbv ELSE 0.0 END), SUM(bbbv <> 0), "
            + ", ".join(f"SUM(outcome = '{name}')" for name in _COUNTED)
            + f" FROM games WHERE {where} GROUP BY board / {CHUNK_BOARDS}",
            span,
        )
        db.execute(
            "INSERT INTO first_clicks (tournament_id, player, block, first_row, first_col, games, first_board)"
            f" SELECT tournament_id, player, board / {boards}, COALESCE(first_row, -1), COALESCE(first_col, -1),"
            f" COUNT(*), MIN(board) FROM games WHERE {where} GROUP BY 4, 5",
            span,
        )
