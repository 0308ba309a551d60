"""The results store: SQLite, one row per (tournament, player, board), committed as games finish.

The primary key is the resume mechanism: a rerun asks which (player, board) pairs have no row
yet and plays only those, and ``INSERT OR IGNORE`` makes a duplicate impossible even if a batch
is delivered twice. WAL mode keeps readers (a leaderboard opened mid-run) from blocking writes.
"""

from __future__ import annotations

import datetime as dt
import json
import operator
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from arena.config import RULES_VERSION, TournamentConfig
from arena.runner import GameResult, Outcome

__all__ = ["DEFAULT_STORE", "SCHEMA_VERSION", "Store", "StoreError", "project_version"]

DEFAULT_STORE = Path("leaderboards") / "arena.db"
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
"""


class StoreError(Exception):
    """The store file cannot be opened or is not a results store."""


def project_version() -> str:
    try:
        from importlib.metadata import version

        return version("minesweeper-arena")
    except Exception:
        return "unknown"


def _now() -> str:
    # Microseconds: `latest` orders tournaments by this, and two may start within one second.
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


class Store:
    """A results store at ``path`` (created on first use)."""

    def __init__(self, path: str | Path = DEFAULT_STORE, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise StoreError(f"no results store at {str(self.path)!r}; run a tournament first or pass --store PATH")
        try:
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
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            self.db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?), ('created_by', ?)",
                (SCHEMA_VERSION, project_version()),
            )
            found = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
        except (sqlite3.Error, OSError) as error:
            raise StoreError(f"cannot use {str(self.path)!r} as a results store: {error}") from None
        if found != SCHEMA_VERSION:
            raise StoreError(f"{str(self.path)!r} has store schema {found}; this version reads schema {SCHEMA_VERSION}")

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
        """Commit finished games; returns how many were new (a repeat is ignored, never duplicated)."""
        now = _now()
        # The row straight from the attributes (``GameResult.as_row`` without the dict): this runs for
        # every game, and a Beginner game itself takes only a tenth of a millisecond.
        rows = [(tournament_id, *_fields(r), r.outcome.value, int(r.outcome is Outcome.WON), now) for r in results]
        if not rows:
            return 0
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            before = self.db.total_changes
            self.db.executemany(_INSERT_GAME, rows)
            return self.db.total_changes - before

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

    def games(self, tournament_id: str, games: int | None = None) -> list[dict[str, Any]]:
        limit = games if games is not None else 2**62
        rows = self.db.execute(
            f"SELECT {', '.join(GAME_COLUMNS)} FROM games WHERE tournament_id = ? AND board < ? ORDER BY player, board",
            (tournament_id, limit),
        ).fetchall()
        return [dict(r) for r in rows]
