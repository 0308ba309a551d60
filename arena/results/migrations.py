"""The store's schema as a history: an ordered list of named steps, each recorded in the store once applied.

A store opened for writing runs the steps it has not recorded, in order, in one transaction, so that a store
made by an older version gains what was added since (a new ``GameResult`` field is a new step that adds its
column, with a default for the games stored before it). A store opened for reading is never changed: its
readers take a missing column as its field's default. A store that records a step this version does not know
was written by a newer version and is refused untouched, for reading and writing alike.

The step names are part of the file format: a step, once released, is never edited or renamed; a change is a
new step. ``PRAGMA user_version`` holds how many steps a store has applied, which is also what keeps versions
from before this history (which knew only schema 1) from writing a store migrated past it.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MIGRATIONS", "Migration", "NewerStore", "applied", "migrate", "pending"]


@dataclass(frozen=True)
class Migration:
    """One step of the schema's history: ``name`` (recorded in the store) and the SQL that makes it."""

    name: str
    sql: str


_TABLES_V1 = """
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
    error TEXT NOT NULL,
    finished TEXT NOT NULL,
    PRIMARY KEY (tournament_id, player, board)
) WITHOUT ROWID;
"""

#: The schema's history, oldest first. Append only.
MIGRATIONS: tuple[Migration, ...] = (
    # Schema 1 as it was released: every store from before this history has it.
    Migration("tables", _TABLES_V1),
    # A game's moves as played (arena.results.records documents the blob), written with its games row: a table
    # of its own, so that --record none writes nothing. Some schema-1 stores have it already.
    Migration(
        "game-records",
        """
CREATE TABLE IF NOT EXISTS records (
    tournament_id TEXT NOT NULL,
    player TEXT NOT NULL,
    board INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (tournament_id, player, board)
) WITHOUT ROWID;
""",
    ),
)

#: The steps every schema-1 store has, whatever version wrote it (it kept its version in ``user_version`` or,
#: before that, in the meta table).
_SCHEMA_1 = ("tables",)


class NewerStore(Exception):
    """The store was migrated by a newer version of the arena."""


def applied(db: sqlite3.Connection, legacy_version: int) -> list[str]:
    """The steps ``db`` has recorded, in order; for a store from before the history (``legacy_version`` 1,
    no migrations table), the steps schema 1 had."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "migrations" not in tables:
        return list(_SCHEMA_1) if legacy_version == 1 else []
    return [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY position")]


def pending(done: Sequence[str], path: Path, steps: Sequence[Migration] = MIGRATIONS) -> list[Migration]:
    """The steps still to run after ``done``; ``NewerStore`` when ``done`` is not a beginning of ``steps``."""
    names = [step.name for step in steps]
    if list(done) != names[: len(done)]:
        unknown = next((name for known, name in zip(names, done, strict=False) if known != name), None)
        unknown = unknown if unknown is not None else done[len(names)]
        raise NewerStore(
            f"{str(path)!r} was written by a newer minesweeper-arena (schema step {unknown!r} is unknown here);"
            " upgrade minesweeper-arena to use it"
        )
    return list(steps[len(done) :])


def migrate(db: sqlite3.Connection, done: Sequence[str], steps: Sequence[Migration]) -> None:
    """Run ``steps`` after ``done`` and record them, in the caller's transaction."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations"
        " (position INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)"
    )
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    recorded = {row[0] for row in db.execute("SELECT name FROM migrations")}
    for position, name in enumerate(done):
        if name not in recorded:  # a store from before the history: what it had is recorded as applied
            db.execute("INSERT INTO migrations (position, name, applied) VALUES (?, ?, ?)", (position, name, now))
    for position, step in enumerate(steps, len(done)):
        for statement in _statements(step.sql):
            db.execute(statement)
        db.execute("INSERT INTO migrations (position, name, applied) VALUES (?, ?, ?)", (position, step.name, now))
    db.execute(f"PRAGMA user_version = {len(done) + len(steps)}")


def _statements(script: str) -> list[str]:
    """``script`` cut into whole statements (``executescript`` would commit the caller's transaction)."""
    out, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    if current.strip():
        out.append(current.strip())
    return out
