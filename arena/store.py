"""The results store: SQLite, one row per (tournament, player, board), committed as games finish.

The primary key is the resume mechanism: a rerun asks which (player, board) pairs have no row
yet and plays only those, and ``INSERT OR IGNORE`` makes a duplicate impossible even if a batch
is delivered twice. WAL mode keeps readers (a leaderboard opened mid-run) from blocking writes.

Readers may open the file read-only (``read_only=True``): showing or publishing a leaderboard must work
on a store the user may not write, such as a shared copy or a file in a read-only folder.
"""

from __future__ import annotations

import datetime as dt
import json
import operator
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from arena.config import RULES_VERSION, TournamentConfig
from arena.paths import LEGACY_STORE, STORE_ENV, default_store
from arena.records import GameRecord, RecordMissing, decode
from arena.result import GameResult, Outcome

__all__ = ["SCHEMA_VERSION", "STORE_ENV", "Store", "StoreError", "default_store", "project_version"]

SCHEMA_VERSION = "1"

GAME_COLUMNS = (
    "player",
    "board",
    "outcome",
    "won",
    "moves",
    "reveals",
    "flags",
    "chords",
    "guesses",
    "bbbv",
    "bbbv_solved",
    "revealed_cells",
    "first_row",
    "first_col",
    "cpu_ms",
    "wall_ms",
    "error",
)

#: Every column of a game row but ``outcome`` and ``won`` (which are computed), as ``GameResult`` holds them.
_FIELDS = tuple(c for c in GAME_COLUMNS if c not in ("outcome", "won"))
_fields = operator.attrgetter(*_FIELDS)
_INSERT_GAME = (
    f"INSERT OR IGNORE INTO games (tournament_id, {', '.join(_FIELDS)}, outcome, won, finished)"
    f" VALUES ({','.join('?' * (len(_FIELDS) + 4))})"
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    difficulty TEXT NOT NULL,
    height INTEGER NOT NULL,
    width INTEGER NOT NULL,
    mines INTEGER NOT NULL,
    rule TEXT NOT NULL,
    seed INTEGER NOT NULL,
    games INTEGER NOT NULL,
    config TEXT NOT NULL,
    rules_version TEXT NOT NULL,
    project_version TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    -- Bumped on every run: orders tournaments by recency even when clocks tie or step back.
    touched INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS players (
    tournament_id TEXT NOT NULL REFERENCES tournaments(id),
    player TEXT NOT NULL,
    name TEXT NOT NULL,
    options TEXT NOT NULL,
    version TEXT NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (tournament_id, player)
);
CREATE TABLE IF NOT EXISTS games (
    tournament_id TEXT NOT NULL REFERENCES tournaments(id),
    player TEXT NOT NULL,
    board INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    won INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    reveals INTEGER NOT NULL,
    flags INTEGER NOT NULL,
    chords INTEGER NOT NULL,
    guesses INTEGER NOT NULL,
    bbbv INTEGER NOT NULL,
    bbbv_solved INTEGER NOT NULL,
    revealed_cells INTEGER NOT NULL,
    first_row INTEGER,
    first_col INTEGER,
    cpu_ms REAL NOT NULL,
    wall_ms REAL NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    finished TEXT NOT NULL,
    PRIMARY KEY (tournament_id, player, board)
) WITHOUT ROWID;
-- A game's moves as played (arena.records documents the blob); written with its games row. A table
-- of its own, so that stores from before records open unchanged and --record none writes nothing.
CREATE TABLE IF NOT EXISTS records (
    tournament_id TEXT NOT NULL,
    player TEXT NOT NULL,
    board INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (tournament_id, player, board)
) WITHOUT ROWID;
"""


class StoreError(Exception):
    """The store file cannot be opened or is not a results store."""


def project_version() -> str:
    try:
        from importlib.metadata import version

        return version("minesweeper-arena")
    except Exception:
        return "unknown"


def _missing_store(path: Path) -> str:
    text = f"no results store at {str(path)!r}; run a tournament first, pass --store PATH or set ${STORE_ENV}"
    if path == default_store() and LEGACY_STORE.is_file():
        text += f" (older versions stored results in {str(LEGACY_STORE)!r} here: pass --store {LEGACY_STORE})"
    return text


def _now() -> str:
    # Microseconds: `latest` orders tournaments by this, and two may start within one second.
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


def _writable(path: Path) -> bool:
    """Whether this process may write ``path`` (by its effective ids, as the kernel will judge)."""
    if os.access in os.supports_effective_ids:
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection. A WAL database needs its ``-shm`` file: when neither it exists nor
    the folder lets SQLite create it, only ``immutable=1`` opens the file, which is safe exactly
    when nobody can write it (and then we cannot either)."""
    uri = path.resolve().as_uri() + "?mode=ro"
    db = sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None)
    try:
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        db.close()
        if _writable(path) and _writable(path.resolve().parent):
            raise
    return sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None)


class Store:
    """A results store at ``path`` (default: ``default_store()``), created on first use unless
    ``create=False``. ``read_only=True`` opens an existing store for reading only, which works
    without write access to the file or its folder."""

    def __init__(self, path: str | Path | None = None, *, create: bool = True, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else default_store()
        create = create and not read_only
        if not create and not self.path.is_file():
            raise StoreError(_missing_store(self.path))
        try:
            if read_only:
                self.db = _connect_read_only(self.path)
            else:
                if create:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self.db.row_factory = sqlite3.Row
            tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "meta" not in tables:
                self.db.close()
                raise StoreError(
                    f"{str(self.path)!r} is an SQLite database but not a results store; pass another --store PATH"
                )
            if not tables and not create:
                self.db.close()
                raise StoreError(f"{str(self.path)!r} is not a results store; run a tournament first")
            if not read_only:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.executescript(_SCHEMA)
                self.db.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?), ('created_by', ?)",
                    (SCHEMA_VERSION, project_version()),
                )
            found = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except (sqlite3.Error, OSError) as error:
            raise StoreError(f"cannot use {str(self.path)!r} as a results store: {error}") from None
        if found is None or found[0] != SCHEMA_VERSION:
            self.db.close()
            schema = "no store schema" if found is None else f"store schema {found[0]}"
            raise StoreError(f"{str(self.path)!r} has {schema}; this version reads schema {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing --------------------------------------------------------------------------
    def ensure_tournament(self, config: TournamentConfig, sources: dict[str, tuple[str, str]]) -> str:
        """Record the tournament and its players; ``sources`` maps player key -> (version, source)."""
        now = _now()
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(
                "INSERT OR IGNORE INTO tournaments (id, difficulty, height, width, mines, rule, seed, games, config,"
                " rules_version, project_version, created, updated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    config.id,
                    config.difficulty,
                    config.height,
                    config.width,
                    config.mines,
                    config.rule.value,
                    config.seed,
                    config.games,
                    config.model_dump_json(),
                    RULES_VERSION,
                    project_version(),
                    now,
                    now,
                ),
            )
            self.db.execute(
                "UPDATE tournaments SET games = MAX(games, ?), updated = ?, project_version = ?, config = ?,"
                " touched = (SELECT COALESCE(MAX(touched), 0) + 1 FROM tournaments) WHERE id = ?",
                (config.games, now, project_version(), config.model_dump_json(), config.id),
            )
            for ref in config.players:
                version, source = sources.get(ref.key, ("", ""))
                self.db.execute(
                    "INSERT INTO players (tournament_id, player, name, options, version, source) VALUES (?,?,?,?,?,?)"
                    " ON CONFLICT (tournament_id, player) DO UPDATE SET version = excluded.version,"
                    " source = excluded.source",
                    (config.id, ref.key, ref.name, json.dumps(ref.options, sort_keys=True), version, source),
                )
        return config.id

    def record(self, tournament_id: str, results: Iterable[GameResult]) -> int:
        """Commit finished games, with the records of those that carry one, in one transaction;
        returns how many games were new (a repeat is ignored, never duplicated)."""
        now = _now()
        # The row straight from the attributes (``GameResult.as_row`` without the dict): this runs for
        # every game, and a Beginner game itself takes only a tenth of a millisecond.
        results = list(results)
        rows = [(tournament_id, *_fields(r), r.outcome.value, int(r.outcome is Outcome.WON), now) for r in results]
        records = [(tournament_id, r.player, r.board, r.record) for r in results if r.record is not None]
        if not rows:
            return 0
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            before = self.db.total_changes
            self.db.executemany(_INSERT_GAME, rows)
            added = self.db.total_changes - before
            if records:
                self.db.executemany(
                    "INSERT OR IGNORE INTO records (tournament_id, player, board, data) VALUES (?,?,?,?)", records
                )
            return added

    # -- reading --------------------------------------------------------------------------
    def finished(self, tournament_id: str, players: Sequence[str], games: int) -> dict[str, set[int]]:
        """Boards below ``games`` that each player has finished."""
        done: dict[str, set[int]] = {p: set() for p in players}
        for player in players:
            cursor = self.db.execute(
                "SELECT board FROM games WHERE tournament_id = ? AND player = ? AND board < ?",
                (tournament_id, player, games),
            )
            done[player].update(row[0] for row in cursor)
        return done

    def tournament(self, tournament_id: str) -> dict[str, Any]:
        row = self.db.execute("SELECT * FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
        if row is None:
            raise StoreError(
                f"no tournament {tournament_id!r} in {str(self.path)!r}; `arena leaderboard --list` shows them"
            )
        return dict(row)

    def tournaments(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT t.*, (SELECT COUNT(*) FROM games g WHERE g.tournament_id = t.id) AS rows_stored"
            " FROM tournaments t ORDER BY touched DESC, id"
        ).fetchall()
        return [dict(r) for r in rows]

    def latest(self) -> str:
        rows = self.tournaments()
        if not rows:
            raise StoreError(f"{str(self.path)!r} holds no tournament yet; run `arena tournament` first")
        return rows[0]["id"]

    def players(self, tournament_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT * FROM players WHERE tournament_id = ? ORDER BY player", (tournament_id,)
        ).fetchall()
        return [dict(r) for r in rows]

    def games(self, tournament_id: str, games: int | None = None, *, start: int = 0) -> list[dict[str, Any]]:
        """The stored games of boards ``start`` to ``games`` (excluded), by player then board."""
        limit = games if games is not None else 2**62
        rows = self.db.execute(
            f"SELECT {', '.join(GAME_COLUMNS)} FROM games WHERE tournament_id = ? AND board >= ? AND board < ?"
            " ORDER BY player, board",
            (tournament_id, start, limit),
        ).fetchall()
        return [dict(r) for r in rows]

    def game(self, tournament_id: str, player: str, board: int) -> dict[str, Any]:
        """The stored result of one game; ``StoreError`` when there is none."""
        row = self.db.execute(
            f"SELECT {', '.join(GAME_COLUMNS)} FROM games WHERE tournament_id = ? AND player = ? AND board = ?",
            (tournament_id, player, board),
        ).fetchone()
        if row is None:
            self.tournament(tournament_id)  # an unknown tournament says so
            raise StoreError(
                f"tournament {tournament_id} has no game of {player!r} on board {board}; "
                "`arena leaderboard` shows its players and boards"
            )
        return dict(row)

    def game_record(self, tournament_id: str, player: str, board: int) -> GameRecord:
        """The moves of one stored game (``arena.records``). ``StoreError`` when the game is not
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
