"""What people call a tournament and its entrants, and how a match was judged: kept beside the games.

A competition's tournament has a name (``competition.toml``'s ``name``) and entrants with owners (the file's
``owner`` of each, or the account of a hosted competition); a match's tournament was played under a sequential
test's settings (``arena match --delta --alpha --beta --batch``). None of it changes a game or the tournament's
id, so it lives in tables of its own, keyed by the tournament (the owners by the entrant's base, its key without
the version: an owner stays with every version of its bot), written by the commands that know it and read by the
pages. A store from before these tables reads as having none of it: an empty name, no owners, no settings.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

__all__ = ["LABEL_TABLES", "Labels", "MatchSettings", "read_labels", "write_labels"]

#: The tables of this module (the store's journal keeps a copy of them as it does of the tournaments).
LABEL_TABLES = ("tournament_names", "entrant_owners", "match_settings")


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """The sequential test a match was run with: ``delta`` in points of win rate (``arena match --delta``), the
    two error rates, and the boards between two looks; ``max_games``, where it stops undecided."""

    delta: float
    alpha: float
    beta: float
    batch: int
    max_games: int

    def as_json(self) -> dict[str, float | int]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Labels:
    """A tournament's name ("" when none was given), its entrants' owners by base, its match's settings."""

    name: str = ""
    owners: dict[str, str] = field(default_factory=dict)
    match: MatchSettings | None = None

    def owner(self, base: str) -> str:
        return self.owners.get(base, "")


def write_labels(
    db: sqlite3.Connection,
    tournament_id: str,
    *,
    name: str | None = None,
    owners: Mapping[str, str] | None = None,
    match: MatchSettings | None = None,
) -> None:
    """Record what is given (None: leave it as it is), in the caller's transaction; a later call replaces it."""
    if name is not None:
        db.execute(
            "INSERT INTO tournament_names (tournament_id, name) VALUES (?, ?)"
            " ON CONFLICT (tournament_id) DO UPDATE SET name = excluded.name",
            (tournament_id, name),
        )
    for base, owner in (owners or {}).items():
        db.execute(
            "INSERT INTO entrant_owners (tournament_id, base, owner) VALUES (?, ?, ?)"
            " ON CONFLICT (tournament_id, base) DO UPDATE SET owner = excluded.owner",
            (tournament_id, base, owner),
        )
    if match is not None:
        db.execute(
            "INSERT INTO match_settings (tournament_id, settings) VALUES (?, ?)"
            " ON CONFLICT (tournament_id) DO UPDATE SET settings = excluded.settings",
            (tournament_id, json.dumps(match.as_json(), sort_keys=True)),
        )


def read_labels(db: sqlite3.Connection, tournament_id: str) -> Labels:
    """What ``write_labels`` recorded of ``tournament_id``; a store without these tables has none of it."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    name, owners, match = "", {}, None
    if "tournament_names" in tables:
        row = db.execute("SELECT name FROM tournament_names WHERE tournament_id = ?", (tournament_id,)).fetchone()
        name = str(row[0]) if row is not None else ""
    if "entrant_owners" in tables:
        query = "SELECT base, owner FROM entrant_owners WHERE tournament_id = ? ORDER BY base"
        owners = {str(base): str(owner) for base, owner in db.execute(query, (tournament_id,))}
    if "match_settings" in tables:
        row = db.execute("SELECT settings FROM match_settings WHERE tournament_id = ?", (tournament_id,)).fetchone()
        match = _settings(row[0]) if row is not None else None
    return Labels(name, owners, match)


def _settings(text: str) -> MatchSettings | None:
    """A stored test's settings; None for a row this version cannot read (the page then says it has none)."""
    try:
        raw = json.loads(text)
        return MatchSettings(
            float(raw["delta"]), float(raw["alpha"]), float(raw["beta"]), int(raw["batch"]), int(raw["max_games"])
        )
    except (ValueError, KeyError, TypeError):
        return None
