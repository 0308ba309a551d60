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

__all__ = [
    "CHUNK_BOARDS",
    "CLICK_BLOCK_CHUNKS",
    "MIGRATIONS",
    "Migration",
    "NewerStore",
    "applied",
    "migrate",
    "pending",
]


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

#: Boards per row of ``game_totals``: 63, the bits of a positive SQLite integer.
CHUNK_BOARDS = 63
#: Chunks per block of ``first_clicks`` (4,032 boards): a block holds at most one row per cell a player
#: clicked first, so even a player clicking at random adds far fewer rows than games.
CLICK_BLOCK_CHUNKS = 64

# Literal text, as every released step must stay; tests/arena/results/test_totals.py holds it to GameResult's outcomes
# and to CHUNK_BOARDS and CLICK_BLOCK_CHUNKS. A first click NULL (a game that never clicked) is kept as -1: a key
# column cannot be NULL. Masks add (+) rather than OR: a board is inserted once per player, so the two agree. The
# totals are made anew from the games, whatever a store that lacks the step holds under these names.
_TOTALS = """
DROP TRIGGER IF EXISTS games_totals;
DROP TABLE IF EXISTS game_totals;
DROP TABLE IF EXISTS first_clicks;
CREATE TABLE game_totals (
    tournament_id TEXT NOT NULL,
    player TEXT NOT NULL,
    chunk INTEGER NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    finished_mask INTEGER NOT NULL,
    won_mask INTEGER NOT NULL,
    cpu_ms REAL NOT NULL,
    guesses INTEGER NOT NULL,
    won_moves INTEGER NOT NULL,
    won_bbbv INTEGER NOT NULL,
    won_cpu_ms REAL NOT NULL,
    fraction_sum REAL NOT NULL,
    fraction_count INTEGER NOT NULL,
    lost INTEGER NOT NULL,
    error INTEGER NOT NULL,
    illegal INTEGER NOT NULL,
    timeout INTEGER NOT NULL,
    crashed INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, player, chunk)
) WITHOUT ROWID;
CREATE TABLE first_clicks (
    tournament_id TEXT NOT NULL,
    player TEXT NOT NULL,
    block INTEGER NOT NULL,
    first_row INTEGER NOT NULL,
    first_col INTEGER NOT NULL,
    games INTEGER NOT NULL,
    first_board INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, player, block, first_row, first_col)
) WITHOUT ROWID;
INSERT INTO game_totals (tournament_id, player, chunk, games, wins, finished_mask, won_mask, cpu_ms, guesses,
        won_moves, won_bbbv, won_cpu_ms, fraction_sum, fraction_count, lost, error, illegal, timeout, crashed)
    SELECT g.tournament_id, g.player, g.board / 63, COUNT(*), SUM(g.won), SUM(1 << (g.board % 63)),
        SUM(g.won << (g.board % 63)), SUM(g.cpu_ms), SUM(g.guesses), SUM(g.won * g.moves), SUM(g.won * g.bbbv),
        SUM(CASE WHEN g.won THEN g.cpu_ms ELSE 0.0 END),
        SUM(CASE WHEN g.bbbv <> 0 THEN CAST(g.bbbv_solved AS REAL) / g.bbbv ELSE 0.0 END), SUM(g.bbbv <> 0),
        SUM(g.outcome = 'lost'), SUM(g.outcome = 'error'), SUM(g.outcome = 'illegal'),
        SUM(g.outcome = 'timeout'), SUM(g.outcome = 'crashed')
    FROM games g GROUP BY g.tournament_id, g.player, g.board / 63;
INSERT INTO first_clicks (tournament_id, player, block, first_row, first_col, games, first_board)
    SELECT g.tournament_id, g.player, g.board / 4032, COALESCE(g.first_row, -1), COALESCE(g.first_col, -1),
        COUNT(*), MIN(g.board)
    FROM games g
    GROUP BY g.tournament_id, g.player, g.board / 4032, COALESCE(g.first_row, -1), COALESCE(g.first_col, -1);
CREATE TRIGGER games_totals AFTER INSERT ON games BEGIN
    INSERT INTO game_totals (tournament_id, player, chunk, games, wins, finished_mask, won_mask, cpu_ms, guesses,
            won_moves, won_bbbv, won_cpu_ms, fraction_sum, fraction_count, lost, error, illegal, timeout, crashed)
        VALUES (NEW.tournament_id, NEW.player, NEW.board / 63, 1, NEW.won, 1 << (NEW.board % 63),
            NEW.won << (NEW.board % 63), NEW.cpu_ms, NEW.guesses, NEW.won * NEW.moves, NEW.won * NEW.bbbv,
            CASE WHEN NEW.won THEN NEW.cpu_ms ELSE 0.0 END,
            CASE WHEN NEW.bbbv <> 0 THEN CAST(NEW.bbbv_solved AS REAL) / NEW.bbbv ELSE 0.0 END, NEW.bbbv <> 0,
            NEW.outcome = 'lost', NEW.outcome = 'error', NEW.outcome = 'illegal', NEW.outcome = 'timeout',
            NEW.outcome = 'crashed')
        ON CONFLICT (tournament_id, player, chunk) DO UPDATE SET games = games + 1, wins = wins + excluded.wins,
            finished_mask = finished_mask + excluded.finished_mask, won_mask = won_mask + excluded.won_mask,
            cpu_ms = cpu_ms + excluded.cpu_ms, guesses = guesses + excluded.guesses,
            won_moves = won_moves + excluded.won_moves, won_bbbv = won_bbbv + excluded.won_bbbv,
            won_cpu_ms = won_cpu_ms + excluded.won_cpu_ms, fraction_sum = fraction_sum + excluded.fraction_sum,
            fraction_count = fraction_count + excluded.fraction_count, lost = lost + excluded.lost,
            error = error + excluded.error, illegal = illegal + excluded.illegal,
            timeout = timeout + excluded.timeout, crashed = crashed + excluded.crashed;
    INSERT INTO first_clicks (tournament_id, player, block, first_row, first_col, games, first_board)
        VALUES (NEW.tournament_id, NEW.player, NEW.board / 4032, COALESCE(NEW.first_row, -1),
            COALESCE(NEW.first_col, -1), 1, NEW.board)
        ON CONFLICT (tournament_id, player, block, first_row, first_col)
        DO UPDATE SET games = games + 1, first_board = MIN(first_board, excluded.first_board);
END;
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
    # What the leaderboard reads instead of every game (arena.analysis.totals): per (tournament, player, chunk of
    # CHUNK_BOARDS boards) the sums of the leaderboard's figures and two masks (boards finished, boards won; bit
    # board % CHUNK_BOARDS, so that a mask stays a positive 64-bit integer), and per (tournament, player, block
    # of CLICK_BLOCK_CHUNKS chunks, first click) how many games began there and the first board that did.
    # A trigger kept them as games were inserted (INSERT OR IGNORE's ignored duplicates fire none; the store adds
    # them itself since totals-at-commit); the step fills them from the games already stored.
    Migration("game-totals", _TOTALS),
    # Versions are part of a player's identity (arena.results.entrants): each players row is one entrant, a
    # player at one version, whose games row key is its ``player``. ``base`` is the player's key without its
    # version (empty in the rows of older stores, whose ``player`` is their base), ``fingerprint`` a hash of the
    # files that ran, ``seen`` the run that last played it (the newest entrant of a base is its latest version).
    Migration(
        "player-versions",
        """
ALTER TABLE players ADD COLUMN base TEXT NOT NULL DEFAULT '';
ALTER TABLE players ADD COLUMN fingerprint TEXT NOT NULL DEFAULT '';
ALTER TABLE players ADD COLUMN seen INTEGER NOT NULL DEFAULT 0;
""",
    ),
    # The running totals added at commit (arena.results.running: a commit's new games summed in Python, the same
    # figures to the bit) instead of by the trigger, which cost as much CPU as the games row itself. The tables
    # stay as they are: the trigger kept them up to date until now. A version that still has the trigger does not
    # know this step and refuses the store, so no writer can leave the totals behind.
    Migration("totals-at-commit", "DROP TRIGGER IF EXISTS games_totals;"),
    # Each entrant's files as the fingerprint saw them (JSON: name -> short hash; '' when unknown), so that a
    # version that runs with other files can be told which ones changed (arena.results.entrants).
    Migration("player-files", "ALTER TABLE players ADD COLUMN files TEXT NOT NULL DEFAULT '';"),
    # A competition's name for its tournament and each entrant's owner, by the entrant's base (its key without
    # the version), as ``arena compete`` and ``arena host`` know them (arena.results.labels): tables of their own,
    # since neither changes a game or the tournament's id, and either may be written before the first game.
    Migration(
        "tournament-names-and-owners",
        """
CREATE TABLE IF NOT EXISTS tournament_names (tournament_id TEXT PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entrant_owners (
    tournament_id TEXT NOT NULL,
    base TEXT NOT NULL,
    owner TEXT NOT NULL,
    PRIMARY KEY (tournament_id, base)
) WITHOUT ROWID;
""",
    ),
    # The sequential test a match's tournament was played under (``arena match``'s delta, alpha, beta, batch and
    # maximum, as JSON), which its page shows instead of guessing them.
    Migration(
        "match-settings",
        "CREATE TABLE IF NOT EXISTS match_settings (tournament_id TEXT PRIMARY KEY, settings TEXT NOT NULL)"
        " WITHOUT ROWID;",
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
