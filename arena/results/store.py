"""The results store: SQLite, one row per (tournament, player, board), committed as games finish.

The primary key is the resume mechanism: a rerun asks which (player, board) pairs have no row
yet and plays only those, and ``INSERT OR IGNORE`` makes a duplicate impossible even if a batch
is delivered twice. WAL mode keeps readers (a leaderboard opened mid-run) from blocking writes.

Readers may open the file read-only (``read_only=True``): showing or publishing a leaderboard must work
on a store the user may not write, such as a shared copy or a file in a read-only folder.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import operator
import os
import sqlite3
import typing
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from arena.config import RULES_VERSION, TournamentConfig
from arena.paths import LEGACY_STORE, STORE_ENV, default_store
from arena.result import COLUMN_FIELDS, GameResult, Outcome
from arena.results.guard import APPLICATION_ID, FileGuard, create_private, recovery_path
from arena.results.records import GameRecord, RecordMissing, decode

__all__ = [
    "GAME_COLUMNS",
    "SCHEMA_VERSION",
    "STORE_ENV",
    "Store",
    "StoreDamaged",
    "StoreError",
    "default_store",
    "project_version",
]

#: The layout of the tables, in SQLite's ``PRAGMA user_version``. Stores written before it was used there
#: hold their version as the ``schema_version`` row of the meta table, and are given ``user_version`` when
#: first opened for writing.
SCHEMA_VERSION = 1

#: The SQL type of each type a ``GameResult`` field has; ``X | None`` makes the column nullable.
_SQL_TYPES: dict[type, str] = {int: "INTEGER", float: "REAL", str: "TEXT", Outcome: "TEXT"}
#: The columns computed from a result, each stored after the field it is computed from.
_COMPUTED = {"outcome": ("won", "INTEGER NOT NULL")}


def _game_columns() -> dict[str, str]:
    """Column name -> SQL declaration of a game row: ``GameResult``'s fields (as their annotations
    type them), with the computed columns after theirs. The single source of the games table."""
    hints = typing.get_type_hints(GameResult)
    columns: dict[str, str] = {}
    for name in COLUMN_FIELDS:
        kinds = typing.get_args(hints[name]) or (hints[name],)
        kind = next(k for k in kinds if k is not type(None))
        columns[name] = _SQL_TYPES[kind] + ("" if type(None) in kinds else " NOT NULL")
        if name in _COMPUTED:
            computed, declaration = _COMPUTED[name]
            columns[computed] = declaration
    return columns


_GAME_TABLE = _game_columns()
#: A game row's columns as ``Store.games`` returns them (``GameResult.as_row``'s keys).
GAME_COLUMNS = tuple(_GAME_TABLE)
_fields = operator.attrgetter(*COLUMN_FIELDS)
_INSERT_GAME = (
    f"INSERT OR IGNORE INTO games (tournament_id, {', '.join(COLUMN_FIELDS)}, won, finished)"
    f" VALUES ({','.join('?' * (len(COLUMN_FIELDS) + 3))})"
)
_GAME_ROWS = "".join(f"\n    {name} {declaration}," for name, declaration in _GAME_TABLE.items())

#: The key of a game (and of its record). The journal (``Store``) leaves it out: appending is cheaper.
_GAME_KEY = ",\n    PRIMARY KEY (tournament_id, player, board)\n) WITHOUT ROWID;"
_SCHEMA = f"""
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
    tournament_id TEXT NOT NULL REFERENCES tournaments(id),{_GAME_ROWS}
    finished TEXT NOT NULL{_GAME_KEY}
-- A game's moves as played (arena.results.records documents the blob); written with its games row. A table
-- of its own, so that stores from before records open unchanged and --record none writes nothing.
CREATE TABLE IF NOT EXISTS records (
    tournament_id TEXT NOT NULL,
    player TEXT NOT NULL,
    board INTEGER NOT NULL,
    data BLOB NOT NULL{_GAME_KEY}
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


class StoreDamaged(StoreError):
    """The store's file was replaced, deleted, overwritten or corrupted while this process wrote it."""


def _schema_version(db: sqlite3.Connection, path: Path, create: bool) -> int:
    """The store's schema version: ``user_version``, or the meta table's row in a store from before it;
    0 for an empty database that may become a store. ``StoreError`` for anything but a results store."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        if create:
            return 0
        raise StoreError(f"{str(path)!r} is not a results store; run a tournament first")
    if "meta" not in tables:
        raise StoreError(f"{str(path)!r} is an SQLite database but not a results store; pass another --store PATH")
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if not version:
        found = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if found is None:
            raise StoreError(f"{str(path)!r} has no store schema; this version reads schema {SCHEMA_VERSION}")
        version = int(found[0]) if str(found[0]).isdigit() else -1
        if version != SCHEMA_VERSION:
            raise StoreError(f"{str(path)!r} has store schema {found[0]}; this version reads schema {SCHEMA_VERSION}")
    if version != SCHEMA_VERSION:
        raise StoreError(f"{str(path)!r} has store schema {version}; this version reads schema {SCHEMA_VERSION}")
    return version


def _create_schema(db: sqlite3.Connection) -> None:
    db.executescript(_SCHEMA)
    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('created_by', ?)", (project_version(),))
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


class Store:
    """A results store at ``path`` (default: ``default_store()``), created on first use unless
    ``create=False``. ``read_only=True`` opens an existing store for reading only, which works
    without write access to the file or its folder.

    Opened for writing, it checks before each commit that the file at ``path`` is still the database
    it opened (``arena.results.guard``), and keeps a copy of everything it commits in a private temporary
    database, so that ``recover`` can save the committed games even when the file was overwritten."""

    def __init__(self, path: str | Path | None = None, *, create: bool = True, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else default_store()
        self._guard: FileGuard | None = None
        self._journal: sqlite3.Connection | None = None
        create = create and not read_only
        if not create and not self.path.is_file():
            raise StoreError(_missing_store(self.path))
        db = None
        try:
            if read_only:
                db = _connect_read_only(self.path)
            else:
                if create:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    create_private(self.path)
                db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            db.row_factory = sqlite3.Row
            version = _schema_version(db, self.path, create)
            if not read_only:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                if version == 0 or not db.execute("PRAGMA user_version").fetchone()[0]:
                    _create_schema(db)  # a new store, or one from before user_version: it gets one
                else:
                    db.executescript(_SCHEMA)  # tables added since the store was made (records)
                # The main file complete and with its header (application id) written: what the guard checks.
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                self._guard = FileGuard(self.path)
                self._journal = sqlite3.connect("", isolation_level=None)  # private, on disk, deleted on close
                self._journal.executescript(_SCHEMA.replace(_GAME_KEY, "\n);"))
        except (sqlite3.Error, OSError) as error:
            self._close(db)
            raise StoreError(f"cannot use {str(self.path)!r} as a results store: {error}") from None
        except StoreError:
            self._close(db)
            raise
        self.db = db

    def _close(self, db: sqlite3.Connection | None) -> None:
        for connection in (db, self._journal):
            if connection is not None:
                connection.close()
        if self._guard is not None:
            self._guard.close()

    def close(self) -> None:
        self._close(self.db)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing --------------------------------------------------------------------------
    def verify(self) -> None:
        """Raise ``StoreDamaged`` when the file at ``path`` is no longer the database this store writes."""
        problem = self._guard.problem() if self._guard is not None else None
        if problem is not None:
            raise StoreDamaged(f"the results store {str(self.path)!r} {problem.text}")

    def _commit(self, write: Callable[[sqlite3.Connection], int]) -> int:
        """Run ``write`` in one transaction on the store, after checking its file, then on the journal."""
        self.verify()
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                result = write(self.db)
        except sqlite3.Error as error:
            self.verify()  # a replaced or overwritten file says so
            if not getattr(error, "sqlite_errorname", "").startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
                raise  # a constraint, a lock, a full disk: not the file's fault
            raise StoreDamaged(f"the results store {str(self.path)!r} is damaged: {error}") from None
        if self._journal is not None:
            try:
                with self._journal:
                    self._journal.execute("BEGIN")
                    write(self._journal)
            except sqlite3.Error:  # no room for temporary files: the games are committed, only the copy is gone
                self._journal.close()
                self._journal = None
        return result

    def ensure_tournament(self, config: TournamentConfig, sources: dict[str, tuple[str, str]]) -> str:
        """Record the tournament and its players; ``sources`` maps player key -> (version, source)."""
        now = _now()

        def write(db: sqlite3.Connection) -> int:
            db.execute(
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
            db.execute(
                "UPDATE tournaments SET games = MAX(games, ?), updated = ?, project_version = ?, config = ?,"
                " touched = (SELECT COALESCE(MAX(touched), 0) + 1 FROM tournaments) WHERE id = ?",
                (config.games, now, project_version(), config.model_dump_json(), config.id),
            )
            for ref in config.players:
                version, source = sources.get(ref.key, ("", ""))
                db.execute(
                    "INSERT INTO players (tournament_id, player, name, options, version, source) VALUES (?,?,?,?,?,?)"
                    " ON CONFLICT (tournament_id, player) DO UPDATE SET version = excluded.version,"
                    " source = excluded.source",
                    (config.id, ref.key, ref.name, json.dumps(ref.options, sort_keys=True), version, source),
                )
            return 0

        self._commit(write)
        return config.id

    def record(self, tournament_id: str, results: Iterable[GameResult]) -> int:
        """Commit finished games, with the records of those that carry one, in one transaction;
        returns how many games were new (a repeat is ignored, never duplicated)."""
        now = _now()
        # The row straight from the attributes (``GameResult.as_row`` without the dict): this runs for
        # every game, and a Beginner game itself takes only a tenth of a millisecond.
        results = list(results)
        rows = [(tournament_id, *_fields(r), int(r.outcome is Outcome.WON), now) for r in results]
        records = [(tournament_id, r.player, r.board, r.record) for r in results if r.record is not None]
        if not rows:
            return 0

        def write(db: sqlite3.Connection) -> int:
            before = db.total_changes
            db.executemany(_INSERT_GAME, rows)
            added = db.total_changes - before
            if records:
                db.executemany(
                    "INSERT OR IGNORE INTO records (tournament_id, player, board, data) VALUES (?,?,?,?)", records
                )
            return added

        return self._commit(write)

    def recover(self, tournament_id: str, pending: Sequence[GameResult] = ()) -> tuple[Path, bool, int]:
        """Save what this store can vouch for in a new store next to it (``recovery_path``), with the
        ``pending`` results that could not be committed; returns its path, whether it holds the whole store,
        and how many games it holds. The whole store when the file was replaced or deleted (this process
        still holds the original); else the tournaments and games committed since this store was opened."""
        problem = self._guard.problem() if self._guard is not None else None
        target = recovery_path(self.path)
        create_private(target)
        whole = problem is not None and not problem.in_place and self._copy_to(target)
        with Store(target) as saved:
            if not whole and self._journal is not None:
                with saved.db:
                    saved.db.execute("BEGIN IMMEDIATE")
                    for table in ("tournaments", "players", "games", "records"):
                        rows = self._journal.execute(f"SELECT * FROM {table}")
                        names = ", ".join(column[0] for column in rows.description)
                        places = ", ".join("?" * len(rows.description))
                        saved.db.executemany(f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({places})", rows)
            saved.record(tournament_id, pending)
            games = int(saved.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        return target, whole, games

    def _copy_to(self, target: Path) -> bool:
        """Copy the database this store holds open to the empty file ``target``; False (and ``target``
        empty again) when it cannot be read whole."""
        with contextlib.closing(sqlite3.connect(target, isolation_level=None)) as out:
            try:
                self.db.backup(out)
                if out.execute("PRAGMA quick_check").fetchone()[0] == "ok":
                    return True
            except sqlite3.Error:
                pass
        os.truncate(target, 0)
        return False

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
