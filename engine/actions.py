"""Moves: one ``Action``, or many as one ``Actions`` int32 array, which reads as a sequence of
``Action`` but is played in one compiled call and copied as it is between processes."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, overload

import numpy as np

from engine.errors import InvalidActionError
from engine.kernels import cell_rows

__all__ = ["KINDS", "KIND_CODES", "NOTE_CHARS", "Action", "ActionKind", "Actions", "action_from_row"]

#: The longest note (characters) of an action that a game's record keeps and the bot protocol accepts; a
#: longer one is cut.
NOTE_CHARS = 1000


class ActionKind(enum.StrEnum):
    REVEAL = "reveal"
    FLAG = "flag"
    UNFLAG = "unflag"
    CHORD = "chord"


class Action(NamedTuple):
    """One move; ``str(action)`` is ``"reveal 3,4"`` and ``Action.parse`` reads it back. The rules
    ignore ``guess`` (the player's word that a reveal was not certain: counted), ``note`` and
    ``p_mine`` (explanations kept in the game's record for replays)."""

    kind: ActionKind
    row: int
    col: int
    guess: bool = False
    note: str = ""
    p_mine: float | None = None

    @classmethod
    def reveal(cls, row: int, col: int, *, guess: bool = False, note: str = "", p_mine: float | None = None) -> Action:
        return cls(ActionKind.REVEAL, row, col, guess, note, p_mine)

    @classmethod
    def flag(cls, row: int, col: int, *, note: str = "", p_mine: float | None = None) -> Action:
        return cls(ActionKind.FLAG, row, col, False, note, p_mine)

    @classmethod
    def unflag(cls, row: int, col: int, *, note: str = "", p_mine: float | None = None) -> Action:
        return cls(ActionKind.UNFLAG, row, col, False, note, p_mine)

    @classmethod
    def chord(cls, row: int, col: int, *, note: str = "", p_mine: float | None = None) -> Action:
        return cls(ActionKind.CHORD, row, col, False, note, p_mine)

    @classmethod
    def parse(cls, text: str) -> Action:
        try:
            kind, cell = text.strip().split(None, 1)
            guess = cell.rstrip().endswith("?")
            row, col = (int(part) for part in cell.replace(" ", "").rstrip("?").split(","))
            return cls(ActionKind(kind.lower()), row, col, guess)
        except ValueError:
            raise InvalidActionError(
                f"cannot read action {text!r}; write KIND ROW,COL with KIND one of "
                f"{', '.join(k.value for k in ActionKind)}"
            ) from None

    def __str__(self) -> str:
        return f"{ActionKind(self.kind).value} {self.row},{self.col}{'?' if self.guess else ''}"

    def __repr__(self) -> str:
        extra = ", guess=True" if self.guess else ""
        if self.note:
            extra += f", note={self.note!r}"
        if self.p_mine is not None:
            extra += f", p_mine={self.p_mine!r}"
        return f"Action.{ActionKind(self.kind).value}({self.row}, {self.col}{extra})"


#: The kind codes of an ``Actions`` row (and of the shared-memory protocol), and back.
KIND_CODES: dict[Any, int] = {ActionKind.REVEAL: 0, ActionKind.FLAG: 1, ActionKind.UNFLAG: 2, ActionKind.CHORD: 3}
KINDS: tuple[ActionKind, ...] = (ActionKind.REVEAL, ActionKind.FLAG, ActionKind.UNFLAG, ActionKind.CHORD)
_new = tuple.__new__  # Action(...) is a Python-level __new__, twice slower


class Actions(Sequence[Action]):
    """Moves as an int32 array of rows ``(kind code, row, col, guess)``, codes as ``KIND_CODES``;
    a sequence of ``Action`` to whoever reads it. Rows that are not moves are refused when played."""

    __slots__ = ("rows",)

    def __init__(self, rows: Any) -> None:
        if type(rows) is not np.ndarray or rows.dtype != np.int32:
            rows = _int32(rows)
        if rows.ndim != 2 or rows.shape[1] != 4:
            raise InvalidActionError(f"action rows are (kind, row, col, guess); got an array of shape {rows.shape}")
        self.rows = rows

    @classmethod
    def cells(cls, reveal: Any = (), flag: Any = (), *, guess: bool = False) -> Actions:
        """Reveals of the cells ``reveal``, then flags on ``flag``: (2, k) arrays of rows and columns
        or sequences of (row, col) pairs."""
        ok, rows = cell_rows(_cells(reveal), _cells(flag), 1 if guess else 0)
        if not ok:
            raise InvalidActionError("a cell's row or column does not fit in 32 bits")
        return cls(rows)

    def __len__(self) -> int:
        return self.rows.shape[0]

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> Actions: ...
    def __getitem__(self, index: int | slice) -> Action | Actions:
        if isinstance(index, slice):
            return Actions(self.rows[index])
        return action_from_row(self.rows[index].tolist())

    def __iter__(self) -> Iterator[Action]:
        return map(action_from_row, self.rows.tolist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Actions):
            return bool(np.array_equal(self._normal(), other._normal()))
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"Actions([{', '.join(map(repr, self))}])"

    def _normal(self) -> np.ndarray:
        """The rows with each guess mark as the ``Action`` it reads as: 0/1, and 0 unless a reveal."""
        rows = self.rows.copy()
        rows[:, 3] = (rows[:, 3] != 0) & (rows[:, 0] == KIND_CODES[ActionKind.REVEAL])
        return rows


def _int32(rows: Any) -> np.ndarray:
    """``rows`` as int32, refusing values that would not survive the conversion."""
    try:
        array = np.asarray(rows)
        if array.size and array.dtype.kind not in "iub":
            raise TypeError
        if array.size and (array.min() < _INT32.min or array.max() > _INT32.max):
            raise OverflowError
        return array.astype(np.int32)
    except (TypeError, ValueError, OverflowError):
        raise InvalidActionError(f"action rows are whole numbers that fit in 32 bits; got {rows!r}"[:300]) from None


_INT32 = np.iinfo(np.int32)


def _cells(cells: Any) -> np.ndarray:
    """(2, k) int64 rows and columns: ``cells`` is such an array, or a sequence of (row, col) pairs."""
    if isinstance(cells, np.ndarray):
        array = cells.reshape(2, 0) if cells.size == 0 else cells
        if array.ndim != 2 or array.shape[0] != 2:
            raise InvalidActionError(f"cells are a (2, k) array of rows and columns; got shape {cells.shape}")
        return array if array.dtype == np.int64 else array.astype(np.int64)
    pairs = np.asarray(cells, dtype=np.int64)
    if pairs.size == 0:
        return _NO_CELLS
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise InvalidActionError(f"cells are (row, col) pairs; got {cells!r}")
    return np.ascontiguousarray(pairs.T)


_NO_CELLS = np.zeros((2, 0), dtype=np.int64)


def action_from_row(row: list[int]) -> Action:
    """The ``Action`` an ``Actions`` row reads as (an unknown kind code is refused)."""
    kind, r, c, guess = row
    if not 0 <= kind < len(KINDS):
        raise InvalidActionError(f"unknown action kind code {kind}")
    return _new(Action, (KINDS[kind], r, c, guess != 0 and kind == 0, "", None))
