"""Where a hosted competition keeps its state: one folder, one SQLite file for the host's own tables.

``arena host cup.toml`` keeps everything in ``cup-host/`` beside the file (created 0700): ``host.db`` (entrants,
token hashes, sessions, the submissions and their states, the private seed: 0600, never served), ``archives/``
(each submission as it was uploaded, named by its SHA-256: immutable, so any submission can be rebuilt and
replayed), ``work/`` (each submission unpacked and built), ``logs/`` (build logs), and the two results stores:
``public.db`` (served while the competition runs) and ``private.db`` (the private boards' games, served after the
close). Backing up the folder backs up the competition (docs/hosting.md).

Several processes use ``host.db`` at once (the server, its jobs, ``arena entrant`` and ``arena host --close``):
WAL mode and a busy timeout let each write wait its turn instead of failing.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SCHEMA", "HostPaths", "connect", "get_setting", "now", "set_setting", "transaction"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    created REAL NOT NULL,
    revoked REAL,
    via TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS keys (
    key_id TEXT PRIMARY KEY,
    entrant TEXT,              -- NULL: the organizer's key
    salt BLOB NOT NULL,
    hash BLOB NOT NULL,
    created REAL NOT NULL,
    revoked REAL
);
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    csrf TEXT NOT NULL,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    entrant TEXT NOT NULL,
    seq INTEGER NOT NULL,
    player TEXT NOT NULL UNIQUE,
    sha256 TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    files INTEGER NOT NULL,
    received REAL NOT NULL,
    state TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    form TEXT NOT NULL DEFAULT '',
    checks TEXT,
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    public_played INTEGER NOT NULL DEFAULT 0,
    rank INTEGER,
    started REAL,
    finished REAL,
    attempts INTEGER NOT NULL DEFAULT 0,
    UNIQUE (entrant, sha256),
    UNIQUE (entrant, seq)
);
CREATE INDEX IF NOT EXISTS submissions_state ON submissions (state, id);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    submission INTEGER NOT NULL,
    at REAL NOT NULL,
    state TEXT NOT NULL,
    text TEXT NOT NULL
);
"""


def now() -> float:
    return time.time()


@dataclass(frozen=True)
class HostPaths:
    """The folder of a hosted competition and the places in it (see the module)."""

    folder: Path

    @classmethod
    def beside(cls, file: Path) -> HostPaths:
        """``NAME-host/`` beside ``NAME.toml``."""
        return cls(file.parent / f"{file.stem}-host")

    @property
    def db(self) -> Path:
        return self.folder / "host.db"

    @property
    def archives(self) -> Path:
        return self.folder / "archives"

    @property
    def work(self) -> Path:
        return self.folder / "work"

    @property
    def logs(self) -> Path:
        return self.folder / "logs"

    @property
    def incoming(self) -> Path:
        return self.folder / "incoming"

    @property
    def public_store(self) -> Path:
        return self.folder / "public.db"

    @property
    def private_store(self) -> Path:
        return self.folder / "private.db"

    def archive(self, sha256: str) -> Path:
        return self.archives / f"{sha256}.tar.gz"

    def build_log(self, submission: int) -> Path:
        return self.logs / f"{submission}.build.log"

    def make(self) -> None:
        """Create the folder and its subfolders, readable by this user only."""
        for path in (self.folder, self.archives, self.work, self.logs, self.incoming):
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)


def connect(paths: HostPaths) -> sqlite3.Connection:
    """A connection to ``host.db`` (created 0600 with its tables when missing), autocommit, rows by name."""
    paths.make()
    if not paths.db.exists():
        fd = os.open(paths.db, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    db = sqlite3.connect(paths.db, timeout=30.0, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA busy_timeout=30000")
    db.executescript(SCHEMA)
    return db


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, taken at once (``BEGIN IMMEDIATE``): a check and the write it allows are one step."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def get_setting(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row["value"])


def set_setting(db: sqlite3.Connection, key: str, value: str, *, replace: bool = True) -> str:
    """Set ``key`` (or, with ``replace=False``, keep the value it has); the value it holds afterwards."""
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
    db.execute(f"{verb} INTO settings (key, value) VALUES (?, ?)", (key, value))
    held = get_setting(db, key)
    assert held is not None
    return held
