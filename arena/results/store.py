"""The results store: SQLite, one row per (tournament, player, board), committed as games finish.

The primary key is the resume mechanism: a rerun asks which (player, board) pairs have no row
yet and plays only those, and ``INSERT OR IGNORE`` makes a duplicate impossible even if a batch
is delivered twice. WAL mode keeps readers (a leaderboard opened mid-run) from blocking writes.

Readers may open the file read-only (``read_only=True``): showing or publishing a leaderboard must work
on a store the user may not write, such as a shared copy or a file in a read-only folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import json
import operator
import os
import pickle
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from arena.config import RULES_VERSION, TournamentConfig
from arena.outcome import GameBatch, GameResult, Outcome
from arena.paths import LEGACY_STORE, STORE_ENV, default_store, protect
from arena.results.guard import APPLICATION_ID, FileGuard, create_private, recovery_path
from arena.results.labels import LABEL_TABLES, MatchSettings, write_labels
from arena.results.migrations import MIGRATIONS, Migration, NewerStore, applied, migrate, pending
from arena.results.reading import StoreError, StoreReader
from arena.results.running import RowLayout, add_games

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

#: How many steps of the schema's history (``arena.results.migrations``) a store of this version has applied:
#: its ``PRAGMA user_version``. Schema 1 is every store from before that history.
SCHEMA_VERSION = len(MIGRATIONS)


@functools.cache
def _layout(result_type: type[GameResult]) -> tuple[tuple[str, ...], str]:
    """The games table's columns that a result type fills (its fields but the record, and ``won`` after
    ``outcome``) and the statement that inserts one."""
    names = _names(result_type)
    columns = tuple(name for field in names for name in ((field, "won") if field == "outcome" else (field,)))
    insert = (
        f"INSERT OR IGNORE INTO games (tournament_id, {', '.join(names)}, won, finished)"
        f" VALUES ({','.join('?' * (len(names) + 3))})"
    )
    return columns, insert


def _names(result_type: type[GameResult]) -> tuple[str, ...]:
    """A result type's fields that are columns of the games table (all but the record)."""
    return tuple(f.name for f in dataclasses.fields(result_type) if f.name != "record")


@functools.cache
def _row_layout(result_type: type[GameResult]) -> RowLayout:
    """Where ``Store.save``'s rows of ``result_type`` hold what the running totals add."""
    return RowLayout(_names(result_type))


#: A game row's columns as the store writes them.
GAME_COLUMNS = _layout(GameResult)[0]
_RECORDS = "INSERT OR IGNORE INTO records (tournament_id, player, board, data) VALUES (?,?,?,?)"


def game_rows(
    result_type: type[GameResult], tournament_id: str, results: Sequence[GameResult], now: str
) -> list[tuple[object, ...]]:
    """The games rows of ``results`` as ``Store.save`` inserts them (``_layout``'s statement): the tournament, the
    result's fields but the record, ``won``, ``now`` (when they were stored)."""
    # The row straight from the attributes: this runs for every game, and a Beginner game itself takes only a
    # tenth of a millisecond.
    fields = operator.attrgetter(*_names(result_type))
    return [(tournament_id, *fields(r), int(r.outcome is Outcome.WON), now) for r in results]


_FIELDS = tuple(f.name for f in dataclasses.fields(GameResult))
#: Where a ``GameBatch``'s tuple of field values holds the record (the last field: the columns come before it).
_RECORD_AT = len(_FIELDS) - 1
assert _FIELDS[:3] == ("player", "board", "outcome") and _FIELDS[-1] == "record", "_batch_rows reads them so"
#: An outcome's text: Python's sqlite3 binds a str subclass (``Outcome``) or bytes only after looking for an
#: adapter, which costs it a raised and cleared AttributeError a value (0.4 us); a str and a bytearray it binds
#: at once, as the same TEXT and BLOB.
_OUTCOME_TEXT = {outcome: outcome.value for outcome in Outcome}


def _batch_rows(
    tournament_id: str, batch: GameBatch, now: str
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """``game_rows`` of a ``GameBatch`` of ``GameResult``s, and the rows of its records: its games kept as
    values made into rows without a ``GameResult`` in between, the outcomes as plain text and the records as
    bytearrays (the same values stored, bound more cheaply)."""
    fields = operator.attrgetter(*_names(GameResult)[3:])
    won, text = Outcome.WON, _OUTCOME_TEXT
    rows: list[tuple[object, ...]] = []
    records: list[tuple[object, ...]] = []
    for item in batch.items:
        if type(item) is tuple:
            player, board, outcome = item[0], item[1], item[2]
            rows.append((tournament_id, player, board, text[outcome], *item[3:_RECORD_AT], int(outcome is won), now))
            record = item[_RECORD_AT]
        else:
            player, board, outcome = item.player, item.board, item.outcome  # type: ignore[union-attr]
            rows.append((tournament_id, player, board, text[outcome], *fields(item), int(outcome is won), now))
            record = item.record  # type: ignore[union-attr]
        if record is not None:
            records.append((tournament_id, player, board, bytearray(record)))
    return rows, records


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


def _legacy_version(db: sqlite3.Connection, path: Path, create: bool) -> int | None:
    """What a store says its schema is: ``user_version``, or the meta table's row in a store from before it;
    None for an empty database that may become a store. ``StoreError`` for anything but a results store."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        if create:
            return None
        raise StoreError(f"{str(path)!r} is not a results store; run a tournament first")
    if "meta" not in tables:
        raise StoreError(f"{str(path)!r} is an SQLite database but not a results store; pass another --store PATH")
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if not version:
        found = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if found is None or str(found[0]) != "1":
            shown = "none" if found is None else found[0]
            raise StoreError(f"{str(path)!r} has store schema {shown}; this version reads schema 1 and later")
        version = 1
    return version


def _table_columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def _journal_tables(db: sqlite3.Connection, journal: sqlite3.Connection) -> None:
    """The journal's tables: the store's own for tournaments and players (their upserts need the keys), and for
    the games and records one row per commit, each a pickled list of the rows the store was given: a commit of
    128 Beginner games then costs the journal one insert, not 256 (a third of what storing a game cost)."""
    for table in ("tournaments", "players", *LABEL_TABLES):
        found = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        if found is not None:  # a store class whose history lacks the step (a test's older version)
            journal.execute(found[0])
    journal.execute("CREATE TABLE saved (games BLOB NOT NULL, records BLOB NOT NULL)")


class Store(StoreReader):
    """A results store at ``path`` (default: ``default_store()``), created on first use unless
    ``create=False``. ``read_only=True`` opens an existing store for reading only, which works
    without write access to the file or its folder, and never changes it.

    Opened for writing, a store made by an older version is migrated first (``arena.results.migrations``);
    then, before each commit, the store checks that the file at ``path`` is still the database it opened
    (``arena.results.guard``), and keeps a copy of everything it commits in a private temporary database, so
    that ``recover`` can save the committed games even when the file was overwritten.

    ``migrations`` and ``result_type`` are the schema's history and the result it stores: class attributes, so
    that a test can add a step and a field the way a new version would."""

    migrations: tuple[Migration, ...] = MIGRATIONS
    result_type: type[GameResult] = GameResult

    def __init__(self, path: str | Path | None = None, *, create: bool = True, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else default_store()
        if not read_only:
            protect(self.path)  # a bot this arena sandboxes never sees it, even in its own folder
        self._guard: FileGuard | None = None
        self._journal: sqlite3.Connection | None = None
        create = create and not read_only
        if not create and not self.path.is_file():
            raise StoreError(_missing_store(self.path))
        if not read_only and self.path.exists() and not _writable(self.path):
            raise StoreError(
                f"cannot write the results store {str(self.path)!r}: the file is read-only (its permissions or an"
                " immutable flag); make it writable, or pass --store PATH for another"
            )
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
            legacy = _legacy_version(db, self.path, create)
            done = applied(db, legacy or 0) if legacy is not None else []
            if legacy is not None and legacy > len(done):
                # A version that counts more steps than it recorded: not one of ours, or a newer one's. Migrating
                # it would run steps it may have already and lower its user_version.
                raise StoreError(
                    f"{str(self.path)!r} has store schema {legacy} but records {len(done)} schema steps; it was"
                    " written by a newer or unknown minesweeper-arena: upgrade minesweeper-arena to use it"
                )
            todo = pending(done, self.path, self.migrations)
            if not read_only:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                if todo:
                    self._migrate(db, done, todo)
                else:
                    self._check_columns(db)
                # The main file complete and with its header (application id) written: what the guard checks.
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                self._guard = FileGuard(self.path)
                self._journal = sqlite3.connect("", isolation_level=None)  # private, on disk, deleted on close
                _journal_tables(db, self._journal)
            self._columns = [c for c in _layout(self.result_type)[0] if c in _table_columns(db, "games")]
        except (sqlite3.Error, OSError) as error:
            self._close(db)
            raise StoreError(f"cannot use {str(self.path)!r} as a results store: {error}") from None
        except NewerStore as error:
            self._close(db)
            raise StoreError(str(error)) from None
        except StoreError:
            self._close(db)
            raise
        self.db = db

    def _migrate(self, db: sqlite3.Connection, done: list[str], todo: list[Migration]) -> None:
        with db:
            db.execute("BEGIN IMMEDIATE")
            migrate(db, done, todo)
            if not done:
                db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('created_by', ?)", (project_version(),))
            # Stores from before user_version have no application id either: a migrated store gets it too.
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._check_columns(db)  # before the commit: a refused store is left as it was

    def _check_columns(self, db: sqlite3.Connection) -> None:
        """Refuse to write a store whose games table lacks a column of ``result_type``: a field added without its
        step in the history (which would otherwise fail at the first save, deep in SQLite)."""
        missing = set(_layout(self.result_type)[0]) - set(_table_columns(db, "games"))
        if missing:
            raise StoreError(f"the store's schema history has no step for the games column(s) {sorted(missing)}")

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

    def _commit(
        self, write: Callable[[sqlite3.Connection], int], journal: Callable[[sqlite3.Connection], object] | None = None
    ) -> int:
        """Run ``write`` in one transaction on the store, after checking its file, then ``journal`` (default:
        ``write``) on the journal."""
        self.verify()
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                result = write(self.db)
        except sqlite3.Error as error:
            self.verify()  # a replaced or overwritten file says so
            if getattr(error, "sqlite_errorname", "").startswith("SQLITE_READONLY"):
                raise StoreError(f"cannot write the results store {str(self.path)!r}: {error}") from None
            if not getattr(error, "sqlite_errorname", "").startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
                raise  # a constraint, a lock, a full disk: not the file's fault
            raise StoreDamaged(f"the results store {str(self.path)!r} is damaged: {error}") from None
        if self._journal is not None:
            try:
                with self._journal:
                    self._journal.execute("BEGIN")
                    (journal or write)(self._journal)
            except sqlite3.Error:  # no room for temporary files: the games are committed, only the copy is gone
                self._journal.close()
                self._journal = None
        return result

    def ensure_tournament(
        self,
        config: TournamentConfig,
        sources: Mapping[str, tuple[str, str]],
        fingerprints: Mapping[str, str] | None = None,
        files: Mapping[str, Mapping[str, str]] | None = None,
    ) -> str:
        """Record the tournament and its entrants (``arena.results.entrants``); ``sources`` maps player key ->
        (version, source), ``fingerprints`` player key -> the hash of the files that ran, ``files`` player key ->
        each of those files' short hash by name. Every entrant of this
        run is marked as seen last, which makes it its player's latest version."""
        now = _now()
        fingerprints = fingerprints or {}
        files = files or {}

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
            seen = int(
                db.execute(
                    "SELECT COALESCE(MAX(seen), 0) + 1 FROM players WHERE tournament_id = ?", (config.id,)
                ).fetchone()[0]
            )
            for ref in config.players:
                version, source = sources.get(ref.key, ("", ""))
                fingerprint = fingerprints.get(ref.key, "")
                listed = json.dumps(dict(files[ref.key]), sort_keys=True) if files.get(ref.key) else ""
                db.execute(
                    "INSERT INTO players (tournament_id, player, name, options, version, source, base, fingerprint,"
                    " seen, files) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (tournament_id, player) DO UPDATE SET"
                    " version = excluded.version, source = excluded.source, base = excluded.base,"
                    " fingerprint = CASE WHEN excluded.fingerprint = '' THEN fingerprint ELSE excluded.fingerprint"
                    " END, files = CASE WHEN excluded.files = '' THEN files ELSE excluded.files END,"
                    " seen = excluded.seen",
                    (
                        config.id,
                        ref.key,
                        ref.name,
                        json.dumps(ref.options, sort_keys=True),
                        version,
                        source,
                        ref.base,
                        fingerprint,
                        seen,
                        listed,
                    ),
                )
            return 0

        self._commit(write)
        return config.id

    def describe(
        self,
        tournament_id: str,
        *,
        name: str | None = None,
        owners: Mapping[str, str] | None = None,
        match: MatchSettings | None = None,
    ) -> None:
        """Record what people call ``tournament_id`` and its entrants (``owners``: base -> owner) and the test its
        match was run with (``arena.results.labels``); what is None is left as it was."""
        self._commit(lambda db: write_labels(db, tournament_id, name=name, owners=owners, match=match) or 0)

    def save(self, tournament_id: str, results: Iterable[GameResult]) -> int:
        """Commit finished games, with the records of those that carry one, in one transaction;
        returns how many games were new (a repeat is ignored, never duplicated)."""
        if isinstance(results, GameBatch) and self.result_type is GameResult:
            rows, records = _batch_rows(tournament_id, results, _now())
        else:
            results = list(results)
            rows = game_rows(self.result_type, tournament_id, results, _now())
            records = [(tournament_id, r.player, r.board, r.record) for r in results if r.record is not None]
        if not rows:
            return 0

        def write(db: sqlite3.Connection) -> int:
            return self._insert(db, rows, records)

        def journal(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO saved VALUES (?, ?)", (pickle.dumps(rows, 5), pickle.dumps(records, 5)))

        return self._commit(write, journal)

    def _insert(self, db: sqlite3.Connection, rows: list[tuple[object, ...]], records: list[tuple[object, ...]]) -> int:
        """Insert games ``rows`` and their ``records`` in the caller's transaction, the new games added to the
        running totals (``arena.results.running``: every games row this arena writes goes through here); returns
        how many games were new."""
        added = add_games(db, _layout(self.result_type)[1], rows, _row_layout(self.result_type))
        if records:
            db.executemany(_RECORDS, records)
        return added

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
                    for table in ("tournaments", "players", *LABEL_TABLES):
                        if not _table_columns(self._journal, table):
                            continue
                        rows = self._journal.execute(f"SELECT * FROM {table}")
                        names = ", ".join(column[0] for column in rows.description)
                        places = ", ".join("?" * len(rows.description))
                        saved.db.executemany(f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({places})", rows)
                    for games, records in self._journal.execute("SELECT games, records FROM saved"):
                        self._insert(saved.db, pickle.loads(games), pickle.loads(records))  # our own journal
            saved.save(tournament_id, pending)
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
