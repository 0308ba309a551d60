"""The submissions and their way: received -> building -> checking -> playing -> ranked, or failed with a reason.

Each submission's state is a row of ``host.db``; every move is a conditional update (``WHERE state = ?``) in one
transaction, so a move made twice (a job that a restart runs again) happens once, and ``finish`` ends a
submission exactly once. ``pick`` chooses what runs next when a worker slot frees: submissions are taken in the
order received, but an entrant already holding its share of the slots waits, so one entrant sending thirty
submissions does not keep everyone else's waiting behind them.
"""

from __future__ import annotations

import enum
import json
import sqlite3
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from arena.host.archive import Received
from arena.host.db import now, transaction

__all__ = [
    "DAY",
    "QueueError",
    "State",
    "Submission",
    "advance",
    "entrant_rows",
    "finish",
    "get",
    "history",
    "pick",
    "receive",
    "unfinished",
]

#: Seconds in the per-day limit's rolling day.
DAY = 24 * 3600


class State(enum.StrEnum):
    RECEIVED = "received"
    BUILDING = "building"
    CHECKING = "checking"
    PLAYING = "playing"
    RANKED = "ranked"
    FAILED = "failed"

    @property
    def final(self) -> bool:
        return self in (State.RANKED, State.FAILED)


class QueueError(Exception):
    """A submission refused (closed competition, daily limit): one line and the HTTP status that says so."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Submission:
    id: int
    entrant: str
    seq: int
    player: str
    sha256: str
    bytes: int
    files: int
    received: float
    state: State
    reason: str
    form: str
    checks: list[dict[str, Any]] | None
    done: int
    total: int
    public_played: bool
    rank: int | None
    started: float | None
    finished: float | None
    attempts: int

    @classmethod
    def of(cls, row: sqlite3.Row) -> Submission:
        values = dict(row)
        values["state"] = State(values["state"])
        values["checks"] = json.loads(values["checks"]) if values["checks"] else None
        values["public_played"] = bool(values["public_played"])
        return cls(**values)

    def public(self) -> dict[str, Any]:
        """What anyone may know of it: no archive hash, no reason, no checks (those are its owner's)."""
        return {
            "id": self.id,
            "entrant": self.entrant,
            "player": self.player,
            "received": self.received,
            "state": self.state.value,
            "done": self.done,
            "total": self.total,
            "rank": self.rank,
        }

    def private(self) -> dict[str, Any]:
        """Everything, for its owner and the organizer."""
        return {
            **self.public(),
            "sha256": self.sha256,
            "bytes": self.bytes,
            "files": self.files,
            "form": self.form,
            "reason": self.reason,
            "checks": self.checks,
            "started": self.started,
            "finished": self.finished,
        }


def get(db: sqlite3.Connection, submission: int) -> Submission | None:
    row = db.execute("SELECT * FROM submissions WHERE id = ?", (submission,)).fetchone()
    return None if row is None else Submission.of(row)


def history(db: sqlite3.Connection, entrant: str | None = None, limit: int = 500) -> list[Submission]:
    """Submissions, newest first (of ``entrant`` only when given)."""
    if entrant is None:
        rows = db.execute("SELECT * FROM submissions ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
    else:
        rows = db.execute(
            "SELECT * FROM submissions WHERE entrant = ? ORDER BY id DESC LIMIT ?", (entrant, limit)
        ).fetchall()
    return [Submission.of(r) for r in rows]


def receive(
    db: sqlite3.Connection, entrant: str, received: Received, *, per_day: int, closed: str | None
) -> tuple[Submission, bool]:
    """Record ``received`` for ``entrant``: the submission and True, or the one this archive already is and
    False. ``QueueError`` when the competition is closed (``closed`` says since when) or the daily limit is
    reached."""
    with transaction(db):
        row = db.execute(
            "SELECT * FROM submissions WHERE entrant = ? AND sha256 = ?", (entrant, received.sha256)
        ).fetchone()
        if row is not None:
            return Submission.of(row), False
        revoked = db.execute("SELECT revoked FROM entrants WHERE name = ?", (entrant,)).fetchone()
        if revoked is None or revoked[0] is not None:
            # Checked again here, at the end of the upload: a token revoked while its upload streamed in.
            raise QueueError("this entrant's token was revoked", 403)
        if closed is not None:
            raise QueueError(f"the competition closed at {closed}: no more submissions", 403)
        stamp = now()
        recent = db.execute(
            "SELECT COUNT(*) FROM submissions WHERE entrant = ? AND received > ?", (entrant, stamp - DAY)
        ).fetchone()[0]
        if recent >= per_day:
            raise QueueError(f"the limit is {per_day} submissions a day per entrant; try again later", 429)
        seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM submissions WHERE entrant = ?", (entrant,)).fetchone()
        cursor = db.execute(
            "INSERT INTO submissions (entrant, seq, player, sha256, bytes, files, received, state) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                entrant,
                seq[0],
                f"{entrant}.{seq[0]}",
                received.sha256,
                received.bytes,
                received.files,
                stamp,
                "received",
            ),
        )
        _event(db, int(cursor.lastrowid or 0), State.RECEIVED, f"received {received.files} files")
    made = get(db, int(cursor.lastrowid or 0))
    assert made is not None
    return made, True


def received_today(db: sqlite3.Connection, entrant: str) -> int:
    """Submissions ``entrant`` made in the last ``DAY`` seconds (what the per-day limit counts)."""
    row = db.execute(
        "SELECT COUNT(*) FROM submissions WHERE entrant = ? AND received > ?", (entrant, now() - DAY)
    ).fetchone()
    return int(row[0])


def _event(db: sqlite3.Connection, submission: int, state: State, text: str) -> None:
    db.execute(
        "INSERT INTO events (submission, at, state, text) VALUES (?, ?, ?, ?)", (submission, now(), state.value, text)
    )


def events(db: sqlite3.Connection, submission: int) -> list[sqlite3.Row]:
    return db.execute("SELECT at, state, text FROM events WHERE submission = ? ORDER BY id", (submission,)).fetchall()


def advance(db: sqlite3.Connection, submission: int, allowed: Collection[State], to: State, **fields: Any) -> bool:
    """Move ``submission`` to ``to`` (setting ``fields``) when its state is one of ``allowed``; whether it moved."""
    assert not to.final, "finish ends a submission"
    sets = ", ".join(f"{name} = ?" for name in ("state", *fields))
    marks = ", ".join("?" for _ in allowed)
    with transaction(db):
        moved = db.execute(
            f"UPDATE submissions SET {sets} WHERE id = ? AND state IN ({marks})",
            (to.value, *fields.values(), submission, *(s.value for s in allowed)),
        ).rowcount
        if moved:
            _event(db, submission, to, to.value)
    return bool(moved)


def update(db: sqlite3.Connection, submission: int, **fields: Any) -> None:
    """Set ``fields`` of a submission that has not ended (progress, checks, the form found)."""
    sets = ", ".join(f"{name} = ?" for name in fields)
    db.execute(
        f"UPDATE submissions SET {sets} WHERE id = ? AND state NOT IN ('ranked', 'failed')",
        (*fields.values(), submission),
    )


def finish(db: sqlite3.Connection, submission: int, state: State, reason: str = "", **fields: Any) -> bool:
    """End ``submission`` as ``state`` (ranked or failed, with ``reason``), once: False when it had ended."""
    assert state.final
    values = {"state": state.value, "reason": reason, "finished": now(), **fields}
    sets = ", ".join(f"{name} = ?" for name in values)
    with transaction(db):
        moved = db.execute(
            f"UPDATE submissions SET {sets} WHERE id = ? AND state NOT IN ('ranked', 'failed')",
            (*values.values(), submission),
        ).rowcount
        if moved:
            _event(db, submission, state, reason or state.value)
    return bool(moved)


def unfinished(db: sqlite3.Connection) -> list[Submission]:
    """Every submission not yet ended, oldest first."""
    rows = db.execute("SELECT * FROM submissions WHERE state NOT IN ('ranked', 'failed') ORDER BY id").fetchall()
    return [Submission.of(r) for r in rows]


def pick(waiting: Iterable[Submission], running: Collection[Submission], slots: int) -> Submission | None:
    """The next submission to run when one of ``slots`` is free: the oldest waiting one whose entrant holds
    fewer than its share of the slots (the slots divided among the entrants with work, at least one each); when
    every waiting entrant holds its share, the oldest waiting one (a slot is never left idle while work waits,
    and the next slot that frees goes to an entrant under its share first)."""
    waiting = [s for s in waiting if s.id not in {r.id for r in running}]
    if len(running) >= slots or not waiting:
        return None
    entrants = {s.entrant for s in waiting} | {s.entrant for s in running}
    share = max(1, slots // len(entrants))
    held: dict[str, int] = {}
    for item in running:
        held[item.entrant] = held.get(item.entrant, 0) + 1
    ordered = sorted(waiting, key=lambda s: s.id)
    for item in ordered:
        if held.get(item.entrant, 0) < share:
            return item
    return ordered[0]


def entrant_rows(db: sqlite3.Connection, *, private: bool = False) -> dict[str, Submission]:
    """Each entrant's submission on the leaderboard: its latest whose public games are all played (for the
    private leaderboard: its latest ranked one), by entrant. A revoked entrant has none."""
    where = "state = 'ranked'" if private else "public_played = 1 AND state IN ('playing', 'ranked')"
    rows = db.execute(
        f"SELECT * FROM submissions WHERE id IN (SELECT MAX(id) FROM submissions WHERE {where} GROUP BY entrant) "
        "AND entrant NOT IN (SELECT name FROM entrants WHERE revoked IS NOT NULL)"
    ).fetchall()
    return {r["entrant"]: Submission.of(r) for r in rows}
