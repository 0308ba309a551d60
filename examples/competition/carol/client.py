"""The protocol client (docs/protocol.md): reads the arena's messages, answers ``hello``, keeps the
board of each observation and sends the strategy's replies. You should not need to edit this file:
your bot is ``strategy.py``.

Standard library only. One JSON object per line each way; stdout carries nothing but answers (log to
stderr with ``log``).
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from rng import SplitMix64

PROTOCOL = 1
Cell = tuple[int, int]


def log(*parts: object) -> None:
    """A line on stderr: the arena keeps the last 20 lines with any game that fails."""
    print(*parts, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class GameInfo:
    """What ``new_game`` says about the game about to start."""

    board: str = "custom"
    height: int = 0
    width: int = 0
    mines: int = 0
    rule: str = "safe"  # the first-click rule: safe, opening, none, windows or zero
    seed: str = "0" * 32  # this game's own seed: 32 hex digits
    move_ms: int = 10000
    game_ms: int = 300000


class Board:
    """One observation: the grid as the arena sent it, ``#`` covered, ``F`` flagged, ``0``-``8`` revealed."""

    COVERED = "#"
    FLAGGED = "F"

    def __init__(self, rows: list[str], mines: int = 0, flags: int = 0, moves: int = 0) -> None:
        if not rows or any(len(row) != len(rows[0]) for row in rows):
            raise ValueError("the grid must be a non-empty list of rows of equal length")
        self.rows = rows
        self.height = len(rows)
        self.width = len(rows[0])
        self.mines = mines
        self.flags = flags
        self.moves = moves

    def at(self, row: int, col: int) -> str:
        return self.rows[row][col]

    def is_covered(self, row: int, col: int) -> bool:
        """Covered and not flagged."""
        return self.rows[row][col] == self.COVERED

    def is_flagged(self, row: int, col: int) -> bool:
        return self.rows[row][col] == self.FLAGGED

    def number(self, row: int, col: int) -> int:
        """The revealed number, or -1 for a covered or flagged cell."""
        ch = self.rows[row][col]
        return ord(ch) - 48 if "0" <= ch <= "8" else -1

    def any_revealed(self) -> bool:
        """False before the first move (every cell covered or flagged)."""
        return any(row.strip("#F") for row in self.rows)  # a row of only '#' and 'F' strips to ""

    def cells(self) -> Iterator[Cell]:
        """Every cell in row-major order."""
        for row in range(self.height):
            for col in range(self.width):
                yield row, col

    def neighbours(self, row: int, col: int) -> list[Cell]:
        """The up to 8 cells around (row, col), in row-major order."""
        return [
            (r, c)
            for r in range(max(row - 1, 0), min(row + 2, self.height))
            for c in range(max(col - 1, 0), min(col + 2, self.width))
            if (r, c) != (row, col)
        ]


class Reply:
    """The answer to one observation: actions played in order, which reveals are guesses, and notes."""

    def __init__(self) -> None:
        self.actions: list[list[Any]] = []
        self.guesses: list[list[int]] = []
        self.notes: list[list[Any]] = []
        self.error: str | None = None

    def _add(self, kind: str, row: int, col: int, note: str | None, p_mine: float | None) -> Reply:
        if note is not None or p_mine is not None:
            entry: list[Any] = [len(self.actions), note or ""]
            if p_mine is not None:
                entry.append(float(p_mine))
            self.notes.append(entry)
        self.actions.append([kind, int(row), int(col)])
        return self

    def reveal(
        self, row: int, col: int, guess: bool = False, note: str | None = None, p_mine: float | None = None
    ) -> Reply:
        """Reveal a cell; ``guess`` marks it as not certain, ``note`` and ``p_mine`` explain it in replays."""
        if guess:
            self.guesses.append([int(row), int(col)])
        return self._add("reveal", row, col, note, p_mine)

    def flag(self, row: int, col: int, note: str | None = None) -> Reply:
        return self._add("flag", row, col, note, None)

    def unflag(self, row: int, col: int, note: str | None = None) -> Reply:
        return self._add("unflag", row, col, note, None)

    def chord(self, row: int, col: int, note: str | None = None) -> Reply:
        return self._add("chord", row, col, note, None)

    def to_message(self) -> dict:
        if self.error is not None:
            return {"error": self.error}
        message: dict = {"actions": self.actions}
        if self.guesses:
            message["guess"] = self.guesses
        if self.notes:
            message["notes"] = self.notes
        return message


def error_reply(text: str) -> Reply:
    """A reply that gives up this game (scored ``error``); the process goes on to the next game."""
    reply = Reply()
    reply.error = text
    return reply


class Client:
    """The conversation with the arena. ``make_strategy(info, rng)`` builds the strategy of each game;
    its ``play(board)`` returns a ``Reply``."""

    def __init__(self, name: str, version: str, make_strategy: Callable[[GameInfo, SplitMix64], Any]) -> None:
        self.name = name
        self.version = version
        self.make_strategy = make_strategy
        self.info = GameInfo()
        self.strategy: Any = None

    def handle(self, message: dict) -> dict | None:
        """The answer to one message, or None for messages that take none."""
        kind = message.get("type")
        if kind == "hello":
            return {"protocol": PROTOCOL, "name": self.name, "version": self.version}
        if kind == "new_game":
            self.info = GameInfo(
                board=str(message.get("board", "custom")),
                height=int(message.get("height", 0)),
                width=int(message.get("width", 0)),
                mines=int(message.get("mines", 0)),
                rule=str(message.get("rule", "safe")),
                seed=str(message.get("seed", "0" * 32)),
                move_ms=int(message.get("move_ms", 10000)),
                game_ms=int(message.get("game_ms", 300000)),
            )
            self.strategy = self.make_strategy(self.info, SplitMix64(self.info.seed))
            return None
        if kind == "observation":
            try:
                board = Board(
                    list(message["grid"]), int(message.get("mines", 0)), int(message.get("flags", 0)),
                    int(message.get("moves", 0)),
                )  # fmt: skip
                if self.strategy is None:  # an observation without new_game: play with the defaults
                    self.strategy = self.make_strategy(self.info, SplitMix64(self.info.seed))
                reply = self.strategy.play(board)
                if not isinstance(reply, Reply):
                    raise TypeError(f"play() returned {type(reply).__name__}, expected a Reply")
            except Exception as error:  # the game is scored error; the bot lives on for the next one
                log(traceback.format_exc().rstrip())
                reply = error_reply(f"{type(error).__name__}: {error}")
            return reply.to_message()
        return None  # game_over, and whatever later protocol versions add

    def run(self, source: IO[str], sink: IO[str]) -> None:
        """Answer every message of ``source`` on ``sink`` until ``quit`` or the end of the input."""
        for line in source:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                log(f"ignored a line that is not JSON: {line[:80]!r}")
                continue
            if not isinstance(message, dict):
                continue
            if message.get("type") == "quit":
                return
            try:
                answer = self.handle(message)
            except (TypeError, ValueError) as error:  # a field of the wrong type: say so, keep the conversation
                log(f"ignored a {message.get('type')!r} message: {type(error).__name__}: {error}")
                continue
            if answer is not None:
                sink.write(json.dumps(answer) + "\n")
                sink.flush()
