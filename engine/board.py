"""Board sizes, difficulty presets and first-click rules (docs/rules.md). A `BoardSpec` validates
itself once, so every later stage can trust its numbers."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from engine.errors import BoardConfigError

__all__ = [
    "BEGINNER",
    "EXPERT",
    "INTERMEDIATE",
    "MAX_CELLS",
    "MAX_SIDE",
    "PRESETS",
    "BoardSpec",
    "FirstClick",
    "parse_cell",
    "resolve_board",
]

#: Largest accepted side and cell count. Far above any real difficulty, small enough that a
#: typo such as ``--size 16x30000000`` is refused before it allocates gigabytes.
MAX_SIDE = 1000
MAX_CELLS = 250_000


class FirstClick(enum.StrEnum):
    """How the first reveal of a game is protected. Named in every result."""

    SAFE = "safe"
    OPENING = "opening"
    NONE = "none"
    WINDOWS = "windows"
    #: The arena opens one zero tile of the board before the player's first turn, the same tile for
    #: every player (``engine.layout.zero_start``): the course shells' worlds start so (docs/rules.md).
    ZERO = "zero"

    @classmethod
    def parse(cls, text: str | FirstClick) -> FirstClick:
        if isinstance(text, FirstClick):
            return text
        try:
            if not isinstance(text, str):
                # str(None) would read as the rule "none": a missing value must not drop protection.
                raise ValueError(text)
            return cls(text.strip().lower())
        except ValueError:
            allowed = ", ".join(rule.value for rule in cls)
            raise BoardConfigError(f"unknown first-click rule {text!r}; use one of: {allowed}") from None

    @property
    def player_clicks(self) -> bool:
        """Whether the player makes the game's first click (every rule but ``zero``, whose first click is the
        arena's): the compiled game (``engine.compiled_game``) and the players' compiled games play these."""
        return self is not FirstClick.ZERO

    def max_exclusion(self, height: int, width: int) -> int:
        """The largest exclusion zone over every first click (1 under ``none``: one safe cell at least;
        under ``zero`` an opening's, which a board without a zero tile falls back to)."""
        if self is FirstClick.OPENING or self is FirstClick.ZERO:
            return min(height, 3) * min(width, 3)
        return 1


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """A board's size and mine count. ``height`` rows by ``width`` columns."""

    height: int
    width: int
    mines: int
    name: str = "custom"

    def __post_init__(self) -> None:
        for field in ("height", "width", "mines"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int):
                raise BoardConfigError(f"{field} must be a whole number, got {value!r}")
        if self.height < 1 or self.width < 1:
            raise BoardConfigError(
                f"board size {self.height}x{self.width} is empty; height and width must be at least 1"
            )
        if self.height > MAX_SIDE or self.width > MAX_SIDE or self.cells > MAX_CELLS:
            raise BoardConfigError(
                f"board size {self.height}x{self.width} is too large; each side may be at most "
                f"{MAX_SIDE} and the board at most {MAX_CELLS} cells"
            )
        if self.mines < 1:
            raise BoardConfigError(f"mine count must be at least 1, got {self.mines}")
        if self.mines > self.cells - 1:
            raise BoardConfigError(
                f"{self.mines} mines do not fit on a {self.height}x{self.width} board; "
                f"at most {self.cells - 1} leave one safe cell"
            )

    @property
    def cells(self) -> int:
        return self.height * self.width

    @property
    def size(self) -> str:
        return f"{self.height}x{self.width}"

    @property
    def label(self) -> str:
        """The preset name, or ``HxW/M`` for a custom board."""
        return self.name if self.name != "custom" else f"{self.size}/{self.mines}"

    def check_rule(self, rule: FirstClick) -> None:
        """Refuse a rule whose exclusion zone leaves no room for the mines, for any first click."""
        free = self.cells - rule.max_exclusion(self.height, self.width)
        if self.mines > free:
            raise BoardConfigError(
                f"{self.mines} mines do not fit on a {self.height}x{self.width} board under the "
                f"{rule.value!r} first-click rule; at most {free} fit outside its exclusion zone"
            )

    def check_cell(self, row: int, col: int) -> None:
        if not (0 <= row < self.height and 0 <= col < self.width):
            raise BoardConfigError(
                f"cell ({row}, {col}) is off the {self.height}x{self.width} board; rows run "
                f"0..{self.height - 1} and columns 0..{self.width - 1}"
            )

    def to_dict(self) -> dict[str, int | str]:
        return {"name": self.label, "height": self.height, "width": self.width, "mines": self.mines}


BEGINNER = BoardSpec(9, 9, 10, "beginner")
INTERMEDIATE = BoardSpec(16, 16, 40, "intermediate")
EXPERT = BoardSpec(16, 30, 99, "expert")
PRESETS: dict[str, BoardSpec] = {spec.name: spec for spec in (BEGINNER, INTERMEDIATE, EXPERT)}

_SIZE = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*(?:/\s*(\d+)\s*)?$")


def resolve_board(difficulty: str | None = None, size: str | None = None, mines: int | None = None) -> BoardSpec:
    """Turn CLI-style input into a spec: a preset name, or ``HxW`` plus a mine count, or ``HxW/M``."""
    if difficulty is not None and size is not None:
        raise BoardConfigError("give either a difficulty or a size, not both")
    if size is None:
        name = (difficulty or "beginner").strip().lower()
        if name in PRESETS:
            if mines is not None:
                raise BoardConfigError("--mines goes with --size, not with a preset difficulty")
            return PRESETS[name]
        if _SIZE.match(name):
            size = name
        else:
            allowed = ", ".join(PRESETS)
            raise BoardConfigError(f"unknown difficulty {difficulty!r}; use one of: {allowed}, or HxW/M")
    match = _SIZE.match(size)
    if match is None:
        raise BoardConfigError(f"size {size!r} is not of the form HxW (for example 16x30)")
    height, width = int(match.group(1)), int(match.group(2))
    if match.group(3) is not None:
        if mines is not None and mines != int(match.group(3)):
            raise BoardConfigError(f"size {size!r} names a mine count and --mines gives another")
        mines = int(match.group(3))
    if mines is None:
        raise BoardConfigError(f"size {size!r} needs a mine count: --mines M, or HxW/M")
    for spec in PRESETS.values():
        if (spec.height, spec.width, spec.mines) == (height, width, mines):
            return spec
    return BoardSpec(height, width, mines)


def parse_cell(text: str) -> tuple[int, int]:
    """Parse ``ROW,COL`` (zero-based) as the CLI takes it."""
    parts = text.replace(" ", "").split(",")
    if len(parts) != 2 or not all(re.fullmatch(r"-?[0-9]+", p) for p in parts):
        raise BoardConfigError(f"cell {text!r} is not of the form ROW,COL (zero-based, e.g. 0,0)")
    return int(parts[0]), int(parts[1])
