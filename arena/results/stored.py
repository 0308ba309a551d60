"""What the store's readers return: typed values, so that a misspelt field fails where it is written.

A stored game is the ``GameResult`` that was committed (without its record, which ``Store.game_record`` reads);
a stored tournament carries its ``BoardSpec`` and rule as the engine's types; a stored player its options as a
mapping. Rows of an older store that lack a field added since read as that field's default.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from arena.config import board_spec, distinction
from engine import BoardSpec, FirstClick

__all__ = ["StoredPlayer", "StoredTournament"]


@dataclass(frozen=True, slots=True)
class StoredTournament:
    """A tournament as the store holds it: the board set it plays and what has been stored of it."""

    id: str
    difficulty: str
    spec: BoardSpec
    rule: FirstClick
    seed: int
    #: How many boards it plays (the largest ``--games`` any run of it asked for).
    boards: int
    #: The ``TournamentConfig`` of its latest run, as JSON (``config_data`` reads it).
    config: str
    rules_version: str
    project_version: str
    created: str
    updated: str
    #: Games stored and the time the last of them finished (None when none is): set by ``Store.tournaments``.
    games_stored: int | None = None
    last_finished: str | None = None

    @classmethod
    def from_row(cls, row: Any) -> StoredTournament:
        keys = row.keys()
        return cls(
            id=row["id"],
            difficulty=row["difficulty"],
            spec=board_spec(row["difficulty"], row["height"], row["width"], row["mines"]),
            rule=FirstClick(row["rule"]),
            seed=int(row["seed"]),
            boards=int(row["games"]),
            config=row["config"],
            rules_version=row["rules_version"],
            project_version=row["project_version"],
            created=row["created"],
            updated=row["updated"],
            games_stored=row["games_stored"] if "games_stored" in keys else None,
            last_finished=row["last_finished"] if "last_finished" in keys else None,
        )

    @property
    def config_data(self) -> dict[str, Any]:
        return json.loads(self.config)

    def listing(self) -> dict[str, Any]:
        """The tournament as ``arena leaderboard --list --json`` gives it, and the pages read it."""
        return {
            "id": self.id,
            "difficulty": self.difficulty,
            "height": self.spec.height,
            "width": self.spec.width,
            "mines": self.spec.mines,
            "rule": self.rule.value,
            "seed": self.seed,
            "games": self.boards,
            "rows_stored": self.games_stored,
            "last_finished": self.last_finished,
            "config": self.config,
            "rules_version": self.rules_version,
            "project_version": self.project_version,
            "created": self.created,
            "updated": self.updated,
        }

    @property
    def title(self) -> str:
        size = f"{self.spec.height}x{self.spec.width}, {self.spec.mines} mines"
        try:
            apart = distinction(self.config_data)
        except ValueError:  # a config that is not JSON: an old or damaged row reads as the ordinary tournament
            apart = ""
        return f"{self.difficulty} ({size}), first click {self.rule.value}, seed {self.seed}{apart}"

    @property
    def purpose(self) -> str:
        """``match CAND vs BASE`` for a match's tournament, "" for the ordinary one (``TournamentConfig.purpose``)."""
        try:
            return str(self.config_data.get("purpose") or "")
        except ValueError:
            return ""


@dataclass(frozen=True, slots=True)
class StoredPlayer:
    """A player of a tournament: its key (name with options, the leaderboard's row name), its plain name, its
    options, and the version and source it last played with."""

    key: str
    name: str
    options: dict[str, Any] = field(default_factory=dict)
    version: str = ""
    source: str = ""
    #: The player's key without its version: the same for every version of one player (its ``key`` in the rows
    #: of a store from before versions were part of the identity).
    base: str = ""
    #: A hash of the files that ran as this version ("" for built-in players and older stores).
    fingerprint: str = ""
    #: Each of its files' short hash by name, as its fingerprint saw them ({} when unknown).
    files: dict[str, str] = field(default_factory=dict)
    #: The run of the tournament that last played this entrant: the newest of a base is its latest version.
    seen: int = 0

    @classmethod
    def from_row(cls, row: Any) -> StoredPlayer:
        keys = row.keys()
        return cls(
            row["player"],
            row["name"],
            json.loads(row["options"]),
            row["version"],
            row["source"],
            base=(row["base"] if "base" in keys else "") or row["player"],
            fingerprint=row["fingerprint"] if "fingerprint" in keys else "",
            files=_files(row["files"]) if "files" in keys else {},
            seen=int(row["seen"]) if "seen" in keys else 0,
        )


def _files(text: str) -> dict[str, str]:
    """A players row's ``files``: {} when empty or unreadable (the list only names what changed)."""
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
