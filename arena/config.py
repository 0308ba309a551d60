"""What a tournament is, as a value: the board set it plays and who plays it.

The tournament id hashes only what defines the *boards* (size, mines, first-click rule, seed and
the engine's rules version). Players and the number of boards are the extent of the work, so a
rerun with more games or another player extends the same tournament instead of starting anew,
and every player's games stay paired on identical boards. How players run (isolation and sandbox modes,
time and memory limits, engine-bot commands) is recorded with the config but is not part of the id either: it
changes timings, never an honest deterministic player's games.
"""

from __future__ import annotations

import enum
import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from arena.limits import EngineBot, Isolation, Limits, SandboxMode
from arena.outcome import PlayerKey
from engine import BoardSpec, FirstClick
from engine.layout import MAX_SEED

__all__ = ["RULES_VERSION", "PlayerRef", "RecordMode", "TournamentConfig", "board_spec", "parse_player_list"]

#: Bumped whenever a change to the engine could change any board or any game's outcome.
#: 2: a player's generator is seeded from ``engine.layout.player_seed`` (the same 128-bit seed an
#: isolated bot receives), so randomised players' games differ from version 1.
RULES_VERSION = "2"


class RecordMode(enum.StrEnum):
    """What a tournament stores of each game besides its result (``arena tournament --record``)."""

    #: Every move as played (``arena.results.records``): what replays and ``arena diff`` read.
    MOVES = "moves"
    #: Results only, for huge runs.
    NONE = "none"


class PlayerRef(BaseModel):
    """A player by registered name plus the options it plays with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    options: dict[str, Any] = Field(default_factory=dict)
    #: The version tag of an entrant that is not the first version of this player a tournament saw
    #: (``arena.results.entrants``): its games get a row of their own, ``base@tag``. Set by the tournament.
    tag: str = ""

    @property
    def base(self) -> PlayerKey:
        """The player with its options, whatever its version: the name, plus the options when any are set."""
        return PlayerKey.of(self.name, self.options)

    @property
    def key(self) -> PlayerKey:
        """The leaderboard identity (a games row): ``base``, and ``@tag`` for a later version."""
        return PlayerKey.of(self.name, self.options, self.tag)

    def __hash__(self) -> int:
        return hash(self.key)


class TournamentConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    difficulty: str
    height: int = Field(ge=1)
    width: int = Field(ge=1)
    mines: int = Field(ge=1)
    rule: FirstClick = FirstClick.SAFE
    seed: int = Field(default=0, ge=0, le=MAX_SEED)
    games: int = Field(default=100, ge=1, le=100_000_000)
    players: tuple[PlayerRef, ...] = ()
    move_limit: int | None = Field(default=None, ge=1)
    isolation: Isolation = Isolation.AUTO
    #: Whether isolated players run in the Linux sandbox (a store written before it existed reads ``auto``).
    sandbox: SandboxMode = SandboxMode.AUTO
    limits: Limits = Field(default_factory=Limits)
    engine_bots: tuple[EngineBot, ...] = ()
    #: Like the isolation settings, not part of the id: it changes what is stored of a game, never the game.
    record: RecordMode = RecordMode.MOVES

    @field_validator("engine_bots")
    @classmethod
    def _unique_bots(cls, bots: tuple[EngineBot, ...]) -> tuple[EngineBot, ...]:
        _refuse_twice([b.name for b in bots], "engine bot named twice")
        return bots

    @field_validator("players")
    @classmethod
    def _unique(cls, players: tuple[PlayerRef, ...]) -> tuple[PlayerRef, ...]:
        _refuse_twice([p.key for p in players], "player listed twice")
        return players

    @classmethod
    def build(cls, spec: BoardSpec, rule: FirstClick, **fields: Any) -> TournamentConfig:
        spec.check_rule(rule)
        return cls(difficulty=spec.label, height=spec.height, width=spec.width, mines=spec.mines, rule=rule, **fields)

    @property
    def spec(self) -> BoardSpec:
        return board_spec(self.difficulty, self.height, self.width, self.mines)

    @property
    def board_set(self) -> dict[str, Any]:
        return {
            "height": self.height,
            "width": self.width,
            "mines": self.mines,
            "rule": self.rule.value,
            "seed": self.seed,
            "rules_version": RULES_VERSION,
        }

    @property
    def id(self) -> str:
        digest = hashlib.sha256(json.dumps(self.board_set, sort_keys=True).encode()).hexdigest()
        return digest[:16]

    @property
    def title(self) -> str:
        size = f"{self.height}x{self.width}, {self.mines} mines"
        return f"{self.difficulty} ({size}), first click {self.rule.value}, seed {self.seed}"


def board_spec(difficulty: str, height: int, width: int, mines: int) -> BoardSpec:
    """The board a tournament names: its ``difficulty`` label is a preset's name or ``HxW/M`` for a custom board
    (``BoardSpec.label``), which makes its spec's name ``custom``."""
    return BoardSpec(height, width, mines, difficulty if "/" not in difficulty else "custom")


def parse_player_list(text: str | None) -> tuple[PlayerRef, ...]:
    """``NAME[,NAME...]`` from the command line (options come separately)."""
    if not text:
        return ()
    return tuple(PlayerRef(name=part.strip()) for part in text.split(",") if part.strip())


def _refuse_twice(names: list[str], what: str) -> None:
    """A ``ValueError`` naming every name that occurs more than once."""
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"{what}: {', '.join(dupes)}")
