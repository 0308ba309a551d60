"""How one game ended: the ``Outcome``, the ``GameResult`` row the store keeps, and ``AgentFailure``,
the way an agent ends a game with a failure outcome.

Its own small module so that the store, the isolation layer and the reports can name a game's
result without importing the game loop (``arena.play.runner``).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, overload

__all__ = [
    "COLUMN_FIELDS",
    "DIAGNOSTICS",
    "ERROR_CHARS",
    "FAILURES",
    "AgentFailure",
    "GameBatch",
    "GameResult",
    "Outcome",
    "PlayerKey",
]

#: Room for the stderr lines an isolated bot left behind, after the message itself.
ERROR_CHARS = 2000
#: What separates a failed game's error message from the bot's last stderr lines in ``GameResult.error``.
DIAGNOSTICS = "\nstderr:\n"


class PlayerKey(str):
    """A player's identity in the store and on the leaderboard (``GameResult.player``): ``NAME``, then its
    options when it has any (``NAME[KEY=VALUE,...]``, keys sorted, values as JSON), then ``@TAG`` for a later
    version of it (``arena.results.entrants``). Written and read here only, so that no reader splits it
    by hand; a ``str`` still, since it is the store's column, a dict key and a JSON string as it is."""

    __slots__ = ()

    @classmethod
    def of(cls, name: str, options: Mapping[str, Any] | None = None, tag: str = "") -> PlayerKey:
        """The key of player ``name`` with ``options``, version ``tag`` (``""``: the first version)."""
        text = name
        if options:
            text += "[" + ",".join(_option_text(k, v) for k, v in sorted(options.items())) + "]"
        return cls(f"{text}@{tag}" if tag else text)

    @property
    def name(self) -> str:
        """The registered player's name."""
        return _split_key(self)[0]

    @property
    def options(self) -> dict[str, Any]:
        """The options it plays with (values decoded from JSON; a value that is not JSON is its text)."""
        return _split_key(self)[1]

    @property
    def option_texts(self) -> list[str]:
        """Each option as a key spells it, ``KEY=JSON``, in a key's order (for showing them a line each)."""
        return [_option_text(k, v) for k, v in sorted(self.options.items())]

    @property
    def tag(self) -> str:
        """Its version tag, ``""`` for the first version of the player a tournament saw."""
        return _split_key(self)[2]

    @property
    def base(self) -> PlayerKey:
        """The key without its version tag: the player with its options, whatever its version."""
        name, options, _ = _split_key(self)
        return PlayerKey.of(name, options)

    def tagged(self, tag: str) -> PlayerKey:
        """This player (with its options) at version ``tag``."""
        return PlayerKey(f"{self.base}@{tag}" if tag else self.base)


def _option_text(key: str, value: Any) -> str:
    return f"{key}={json.dumps(value, sort_keys=True)}"


def _split_key(text: str) -> tuple[str, dict[str, Any], str]:
    """``(name, options, tag)`` of ``NAME[KEY=VALUE,...]@TAG`` (both parts optional). ``ValueError`` says
    what is wrong. A value is read as JSON where it is JSON (a key's values always are), else as its text up
    to the next ``,`` or ``]``: a user's ``bot[mode=fast]`` means the string."""
    end = next((i for i, char in enumerate(text) if char in "[@"), len(text))
    name, options, at = text[:end].strip(), {}, end
    if text.startswith("[", at):
        at += 1
        while not text.startswith("]", at):
            if text.startswith(",", at):
                at += 1
                continue
            item_end = min((i for i in (text.find(",", at), text.find("]", at)) if i >= 0), default=len(text))
            eq = text.find("=", at, item_end)
            if item_end == len(text) and eq < 0:
                raise ValueError(f"player {text!r}: options go in brackets, NAME[KEY=VALUE,...]")
            if eq < 0 or not text[at:eq].strip():
                raise ValueError(f"player {text!r}: option {text[at:item_end].strip()!r} is not KEY=VALUE")
            options[text[at:eq].strip()], at = _option_value(text, eq + 1)
            if at == len(text):
                raise ValueError(f"player {text!r}: options go in brackets, NAME[KEY=VALUE,...]")
        at += 1
    tail = text[at:].strip()
    if tail and not tail.startswith("@"):
        raise ValueError(f"player {text!r}: only @TAG may follow the options")
    return name, options, tail[1:]


def _option_value(text: str, start: int) -> tuple[Any, int]:
    """The option value that starts at ``start`` and where it ends (at its ``,`` or ``]``, or the text's end)."""
    at = start
    while at < len(text) and text[at].isspace():
        at += 1
    try:
        value, stop = _JSON.raw_decode(text, at)
    except json.JSONDecodeError:
        stop = -1
    if stop >= 0:
        while stop < len(text) and text[stop].isspace():
            stop += 1
        if stop < len(text) and text[stop] in ",]":
            return value, stop
    stop = min((i for i in (text.find(",", start), text.find("]", start)) if i >= 0), default=len(text))
    return text[start:stop].strip(), stop


_JSON = json.JSONDecoder()


class Outcome(enum.StrEnum):
    WON = "won"
    LOST = "lost"
    #: The bot asked for something the rules forbid or that is not an action at all (isolated: also
    #: output that is not the protocol).
    ILLEGAL = "illegal"
    #: The bot raised (or reported an exception), or would not finish: too many moves, or it gave the game up (the
    #: protocol's ``resign``, a course shell's ``LEAVE``).
    ERROR = "error"
    #: The bot exceeded its time budget (a move, a game, or its CPU limit).
    TIMEOUT = "timeout"
    #: The bot's process died (isolated players).
    CRASHED = "crashed"


#: The outcomes of a game that was not played to the end by the rules: what the leaderboard's
#: ``failed`` column and ``arena errors`` count.
FAILURES = (Outcome.ERROR, Outcome.ILLEGAL, Outcome.CRASHED, Outcome.TIMEOUT)


@dataclass(frozen=True, slots=True)
class GameResult:
    """One row of the results store. Everything but the timings is deterministic.

    The store's games table has a column for each field but the record (``arena.results.store``): a new field
    needs a default (older games read as it) and a step in ``arena.results.migrations`` that adds its column."""

    #: Who played: ``name[options]@tag``, read through ``PlayerKey`` and never split by hand.
    player: PlayerKey
    board: int
    outcome: Outcome
    moves: int
    reveals: int
    flags: int
    chords: int
    guesses: int
    bbbv: int
    bbbv_solved: int
    revealed_cells: int
    first_row: int | None
    first_col: int | None
    cpu_ms: float
    wall_ms: float
    error: str = ""
    #: The game's moves as played (``arena.results.records`` blob), or None when not recorded.
    record: bytes | None = None

    @property
    def won(self) -> bool:
        return self.outcome is Outcome.WON

    @classmethod
    def failed(
        cls, player: PlayerKey, board: int, outcome: Outcome, error: str, record: bytes | None = None
    ) -> GameResult:
        """A game that never started: the player could not even be set up (``record``: its empty
        move list, ``empty_record``, when the game is recorded)."""
        return cls(player, board, outcome, 0, 0, 0, 0, 0, 0, 0, 0, None, None, 0.0, 0.0, error[:ERROR_CHARS], record)

    def as_row(self) -> dict[str, object]:
        """The games table's columns (the record has a table of its own)."""
        row = {name: getattr(self, name) for name in COLUMN_FIELDS}
        row["outcome"] = self.outcome.value
        row["won"] = int(self.won)
        return row


#: The fields the store keeps as columns of its games table, in order: all but the record, which has a
#: table of its own.
COLUMN_FIELDS = tuple(f.name for f in fields(GameResult) if f.name != "record")


class GameBatch(Sequence[GameResult]):
    """Finished games in the order they finished, as ``GameResult``s or, for the games of a compiled run
    (``arena.play.runner.compiled_values``), as the tuple of a ``GameResult``'s field values, in the order of its
    fields: what the one-worker tournament hands the store. Read as a sequence, every game is a ``GameResult``
    (made when it is read); ``Store.save`` takes a tuple's values as they are. A ``GameResult`` costs 2 us to
    make (a frozen dataclass sets each of its seventeen slots through ``object.__setattr__``), a fortieth of a
    Beginner game, and the store would only read its fields back into a row."""

    __slots__ = ("items",)

    def __init__(self, results: Iterable[GameResult] = ()) -> None:
        #: Each game: a ``GameResult``, or a ``GameResult``'s field values.
        self.items: list[GameResult | tuple[Any, ...]] = list(results)

    def append(self, result: GameResult) -> None:
        self.items.append(result)

    def append_values(self, values: tuple[Any, ...]) -> None:
        """A game as ``GameResult(*values)``, kept as its values."""
        self.items.append(values)

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> GameResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[GameResult]: ...

    def __getitem__(self, index: int | slice) -> GameResult | list[GameResult]:
        if isinstance(index, slice):
            return [_result(item) for item in self.items[index]]
        return _result(self.items[index])

    def __iter__(self) -> Iterator[GameResult]:
        return map(_result, self.items)

    def __repr__(self) -> str:
        return f"GameBatch({len(self.items)} games)"


def _result(item: GameResult | tuple[Any, ...]) -> GameResult:
    return GameResult(*item) if type(item) is tuple else item  # type: ignore[return-value]


class AgentFailure(Exception):
    """Ends the game with ``outcome``: how an agent reports a timeout, a crash, garbage output or an
    error the bot reported, without the loop knowing how the agent talks to its player."""

    def __init__(self, outcome: Outcome, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.message = message
