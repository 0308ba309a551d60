"""Reading the results store: every query of stored tournaments, players, games and records, typed.

``Store`` (``arena.results.store``) opens, migrates and writes the file; what it reads back is here, in
``StoreReader``, the class it builds on: the readers need only the open connection (``db``), the file's
path (for messages) and the games table's columns this version knows (``_columns``), which ``Store``
sets when it opens the file.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

import numpy as np

from arena.outcome import GameResult, Outcome, PlayerKey
from arena.results.labels import Labels, read_labels
from arena.results.migrations import CHUNK_BOARDS
from arena.results.record_replay import Replayed, replay_record
from arena.results.records import GameRecord, RecordMissing, decode
from arena.results.stored import StoredPlayer, StoredTournament

__all__ = ["StoreError", "StoreReader"]


class StoreError(Exception):
    """The store file cannot be opened or is not a results store."""


class StoreReader:
    """The store's readers (see the module's docstring); ``Store`` is the one to open."""

    db: sqlite3.Connection
    path: Path
    result_type: type[GameResult]
    _columns: list[str]

    def unfinished(self, tournament_id: str, players: Sequence[str], games: int) -> tuple[dict[str, list[int]], int]:
        """Per player, the boards below ``games`` it has not finished (ascending); and how many it has, all players
        together. What a resumed run plays: read from the finished masks of the store's totals (one row per 63
        boards, ``arena.results.totals``), so that resuming a 10,000,000-game tournament reads no game; from the
        games in a store without them. ``finished`` is the reference."""
        if not self.has_totals():
            done = self.finished(tournament_id, players, games)
            left = {p: [b for b in range(games) if b not in done[p]] for p in players}
            return left, sum(len(boards) for boards in done.values())
        full = (1 << CHUNK_BOARDS) - 1
        chunks = -(-games // CHUNK_BOARDS)
        expected = np.full(chunks, full, dtype=np.int64)
        if chunks and games % CHUNK_BOARDS:
            expected[-1] = (1 << (games % CHUNK_BOARDS)) - 1
        missing: dict[str, list[int]] = {}
        finished = 0
        for player in players:
            rows = self.db.cursor()
            rows.row_factory = None  # plain tuples, straight into an array: 16 bytes a chunk
            rows.execute(
                "SELECT chunk, finished_mask FROM game_totals WHERE tournament_id = ? AND player = ? AND chunk < ?",
                (tournament_id, player, chunks),
            )
            found = np.fromiter(rows, dtype=np.dtype([("chunk", np.int64), ("mask", np.int64)]))
            masks = np.zeros(chunks, dtype=np.int64)
            masks[found["chunk"]] = found["mask"]
            masks &= expected
            finished += int(np.bitwise_count(masks).sum())
            boards: list[int] = []
            for chunk in np.flatnonzero(masks != expected).tolist():
                first = chunk * CHUNK_BOARDS
                if not masks[chunk]:  # nothing finished in it (a new tournament: every chunk)
                    boards.extend(range(first, min(first + CHUNK_BOARDS, games)))
                    continue
                gaps = int(expected[chunk]) & ~int(masks[chunk])
                boards.extend(first + bit for bit in range(CHUNK_BOARDS) if gaps >> bit & 1)
            missing[player] = boards
        return missing, finished

    def has_totals(self) -> bool:
        """Whether the store keeps running totals (``arena.results.totals``); a store of an older version opened
        read-only does not."""
        found = self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'game_totals'")
        return found.fetchone() is not None

    def finished(self, tournament_id: str, players: Sequence[str], games: int) -> dict[str, set[int]]:
        """Boards below ``games`` that each player has finished (read from every game: ``unfinished``'s
        reference)."""
        done: dict[str, set[int]] = {p: set() for p in players}
        for player in players:
            cursor = self.db.execute(
                "SELECT board FROM games WHERE tournament_id = ? AND player = ? AND board < ?",
                (tournament_id, player, games),
            )
            done[player].update(row[0] for row in cursor)
        return done

    def tournament(self, tournament_id: str) -> StoredTournament:
        row = self.db.execute("SELECT * FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
        if row is None:
            raise StoreError(
                f"no tournament {tournament_id!r} in {str(self.path)!r}; `arena leaderboard --list` shows them"
            )
        return StoredTournament.from_row(row)

    def tournaments(self) -> list[StoredTournament]:
        """Every tournament, the most recently run first, with how many games it has stored and when the last
        of them finished."""
        rows = self.db.execute(
            "SELECT t.*, COUNT(g.board) AS games_stored, MAX(g.finished) AS last_finished"
            " FROM tournaments t LEFT JOIN games g ON g.tournament_id = t.id"
            " GROUP BY t.id ORDER BY t.touched DESC, t.id"
        ).fetchall()
        return [StoredTournament.from_row(r) for r in rows]

    def latest(self) -> str:
        """The tournament last played, the ordinary ones first: a match's games (``arena match``, a tournament of
        its own) are what the default leaderboard shows only when the store holds nothing else."""
        first: str | None = None
        for row in self.db.execute("SELECT id, config FROM tournaments ORDER BY touched DESC, id"):
            first = first or str(row[0])
            try:
                purpose = json.loads(row[1] or "{}").get("purpose")
            except (ValueError, AttributeError):
                purpose = None
            if not purpose:
                return str(row[0])
        if first is None:
            raise StoreError(f"{str(self.path)!r} holds no tournament yet; run `arena tournament` first")
        return first

    def labels(self, tournament_id: str) -> Labels:
        """Its competition's name, its entrants' owners and its match's test, as far as the store keeps them."""
        return read_labels(self.db, tournament_id)

    def players_everywhere(self) -> list[tuple[str, StoredPlayer]]:
        """Every entrant of every tournament, as (tournament id, entrant), in the order the store first saw them."""
        rows = self.db.execute("SELECT * FROM players ORDER BY rowid").fetchall()
        return [(str(r["tournament_id"]), StoredPlayer.from_row(r)) for r in rows]

    def players(self, tournament_id: str) -> list[StoredPlayer]:
        rows = self.db.execute(
            "SELECT * FROM players WHERE tournament_id = ? ORDER BY player", (tournament_id,)
        ).fetchall()
        return [StoredPlayer.from_row(r) for r in rows]

    def _result(self, row: sqlite3.Row) -> GameResult:
        values = dict(zip(self._columns, row, strict=True))
        del values["won"]
        values["outcome"] = Outcome(values["outcome"])
        values["player"] = PlayerKey(values["player"])
        return self.result_type(**values)

    def games(self, tournament_id: str, games: int | None = None, *, start: int = 0) -> list[GameResult]:
        """The stored games of boards ``start`` to ``games`` (excluded), by player then board."""
        return list(self.iter_games(tournament_id, games, start=start))

    def iter_games(
        self,
        tournament_id: str,
        games: int | None = None,
        *,
        start: int = 0,
        player: str | None = None,
        outcomes: Collection[Outcome] | None = None,
    ) -> Iterator[GameResult]:
        """``games`` one at a time, read as they are consumed: for readers of a whole tournament (an export of
        10,000,000 games), whose memory must not grow with it. ``player``: only that player's, which reads only
        the boards asked for (the games' key is (tournament, player, board)); ``outcomes``: only games that ended
        so (the failed ones, say), filtered by SQLite."""
        limit = games if games is not None else 2**62
        which = "" if player is None else " AND player = ?"
        ended = "" if outcomes is None else f" AND outcome IN ({', '.join('?' * len(outcomes))})"
        rows = self.db.execute(
            f"SELECT {', '.join(self._columns)} FROM games WHERE tournament_id = ?{which}{ended} AND board >= ?"
            " AND board < ? ORDER BY player, board",
            (
                tournament_id,
                *(() if player is None else (player,)),
                *(() if outcomes is None else (o.value for o in outcomes)),
                start,
                limit,
            ),
        )
        for row in rows:
            yield self._result(row)

    def outcome_counts(self, tournament_id: str, *, player: str | None = None) -> dict[str, dict[Outcome, int]]:
        """Player -> outcome -> how many of its games ended so (outcomes that never happened left out), counted
        by SQLite; ``player``: only that player's games (one range of the games' key)."""
        counts: dict[str, dict[Outcome, int]] = {}
        which = "" if player is None else " AND player = ?"
        rows = self.db.execute(
            f"SELECT player, outcome, COUNT(*) FROM games WHERE tournament_id = ?{which} GROUP BY player, outcome",
            (tournament_id,) if player is None else (tournament_id, player),
        )
        for player, outcome, n in rows:
            counts.setdefault(player, {})[Outcome(outcome)] = int(n)
        return counts

    def game_players(self, tournament_id: str) -> list[str]:
        """The players with a stored game in the tournament, in order: one index seek each, however many games."""
        found: list[str] = []
        while True:
            row = self.db.execute(
                "SELECT MIN(player) FROM games WHERE tournament_id = ? AND player > ?",
                (tournament_id, found[-1] if found else ""),
            ).fetchone()
            if row[0] is None:
                return found
            found.append(row[0])

    def game(self, tournament_id: str, player: str, board: int) -> GameResult:
        """The stored result of one game; ``StoreError`` when there is none."""
        row = self.db.execute(
            f"SELECT {', '.join(self._columns)} FROM games WHERE tournament_id = ? AND player = ? AND board = ?",
            (tournament_id, player, board),
        ).fetchone()
        if row is None:
            self.tournament(tournament_id)  # an unknown tournament says so
            raise StoreError(
                f"tournament {tournament_id} has no game of {player!r} on board {board}; "
                "`arena leaderboard` shows its players and boards"
            )
        return self._result(row)

    def game_record(self, tournament_id: str, player: str, board: int) -> GameRecord:
        """The moves of one stored game (``arena.results.records``). ``StoreError`` when the game is not
        stored, ``RecordMissing`` when it was stored without them (a store from before records, or
        ``--record none``), ``RecordError`` when they cannot be read."""
        try:
            row = self.db.execute(
                "SELECT data FROM records WHERE tournament_id = ? AND player = ? AND board = ?",
                (tournament_id, player, board),
            ).fetchone()
        except sqlite3.OperationalError:  # no records table: a store from before them, opened read-only
            row = None
        if row is None:
            self.game(tournament_id, player, board)
            raise RecordMissing(
                f"records are missing: the game of {player!r} on board {board} of tournament {tournament_id} was "
                "stored without its moves (a store from before game records, or a run with --record none)"
            )
        return decode(row[0])

    def records_stored(self, tournament_id: str) -> int:
        """How many games of the tournament have a record."""
        try:
            query = self.db.execute("SELECT COUNT(*) FROM records WHERE tournament_id = ?", (tournament_id,))
        except sqlite3.OperationalError:  # no records table: a store from before them, opened read-only
            return 0
        return int(query.fetchone()[0])

    def record_blobs(self, tournament_id: str, player: str | None = None) -> Iterator[tuple[str, int, bytes]]:
        """The tournament's game records (of ``player`` only) as encoded, ``(player, board, blob)`` in board
        order, read as they are consumed: a static site reads tens of thousands, memory must not grow with them.
        Nothing for a store from before records."""
        which = "" if player is None else " AND player = ?"
        args = (tournament_id,) if player is None else (tournament_id, player)
        query = f"SELECT player, board, data FROM records WHERE tournament_id = ?{which} ORDER BY board, player"
        try:
            rows = self.db.execute(query, args)
        except sqlite3.OperationalError:  # no records table: a store from before them, opened read-only
            return
        for name, board, blob in rows:
            yield str(name), int(board), bytes(blob)

    def replay(self, tournament_id: str, player: str, board: int) -> Replayed:
        """The stored game of ``player`` on ``board``, replayed and checked against its stored result.

        Raises ``StoreError`` for an unknown tournament or game, ``RecordMissing`` when the game was
        stored without a record, ``RecordError``/``RecordMismatch`` for a record that is not its game."""
        tournament = self.tournament(tournament_id)
        result = self.game(tournament_id, player, board)
        record = self.game_record(tournament_id, player, board)
        return replay_record(tournament.spec, tournament.rule, tournament.seed, board, record, result)

    # -- the pages' readers (``arena.web.data``): small, typed, on the games table's key -------------------------
    def count_games(self, tournament_id: str, player: str | None = None) -> int:
        """How many games the tournament has stored (of ``player`` only: one range of the games' key)."""
        which = "" if player is None else " AND player = ?"
        args = (tournament_id,) if player is None else (tournament_id, player)
        return int(self.db.execute(f"SELECT COUNT(*) FROM games WHERE tournament_id = ?{which}", args).fetchone()[0])

    def games_paged(
        self, tournament_id: str, player: str, outcomes: Collection[Outcome], *, limit: int, offset: int = 0
    ) -> list[GameResult]:
        """``limit`` games of ``player`` that ended in one of ``outcomes``, by board, after the first ``offset``
        of them: one page of a player's games, read by the games' key (a page of 20,000 games reads its rows)."""
        if not outcomes:
            return []
        marks = ", ".join("?" * len(outcomes))
        rows = self.db.execute(
            f"SELECT {', '.join(self._columns)} FROM games WHERE tournament_id = ? AND player = ?"
            f" AND outcome IN ({marks}) ORDER BY board LIMIT ? OFFSET ?",
            (tournament_id, player, *(o.value for o in outcomes), limit, offset),
        )
        return [self._result(row) for row in rows]

    def win_counts(self, tournament_id: str, boards: int) -> dict[str, tuple[int, int]]:
        """Player -> (games, wins) on the boards below ``boards``, counted by SQLite."""
        rows = self.db.execute(
            "SELECT player, COUNT(*), SUM(won) FROM games WHERE tournament_id = ? AND board < ? GROUP BY player",
            (tournament_id, boards),
        )
        return {str(player): (int(games), int(wins or 0)) for player, games, wins in rows}

    def recent_commits(self, tournament_id: str, seconds: float, limit: int) -> list[tuple[str, int]]:
        """The tournament's commits (a batch's games share their ``finished`` time, ISO 8601 as stored) of the
        ``seconds`` before its last one, newest first, at most ``limit``: (when, games). Empty before its first
        game."""
        last = self.db.execute("SELECT MAX(finished) FROM games WHERE tournament_id = ?", (tournament_id,))
        newest = last.fetchone()[0]
        if newest is None:
            return []
        since = (dt.datetime.fromisoformat(newest) - dt.timedelta(seconds=seconds)).isoformat(timespec="microseconds")
        rows = self.db.execute(
            "SELECT finished, COUNT(*) FROM games WHERE tournament_id = ? AND finished >= ? GROUP BY finished"
            " ORDER BY finished DESC LIMIT ?",
            (tournament_id, since, limit),
        )
        return [(str(when), int(n)) for when, n in rows]
