"""The line protocol between the arena and an isolated bot (docs/protocol.md is the reference).

One JSON object per line in each direction. The arena's messages carry a ``type``; the bot writes
exactly one line for each ``hello`` and each ``observation`` and nothing else, so a reply is known
by its position and needs no type. The grid travels as position text, one string per row (``#``
covered, ``F`` flagged, ``0``-``8`` revealed): about 2.6x smaller than a list of lists of numbers and
about 5x cheaper to encode and decode, which is most of the per-move cost of the boundary.

Both sides live here: the arena encodes requests and decodes replies (``decode_reply`` is the
validating edge: whatever a bot writes becomes a list of ``Action`` or a typed error), and the
Python bot host decodes requests and encodes replies.
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Iterable
from typing import Any

import numpy as np

from engine import Action, ActionKind, Actions, BoardSpec, FirstClick, InvalidActionError, Observation
from engine.actions import KINDS, NOTE_CHARS, action_from_row

__all__ = [
    "PROTOCOL_VERSION",
    "BotReportedError",
    "BotResigned",
    "ProtocolError",
    "decode_grid",
    "decode_hello",
    "decode_reply",
    "encode_answer",
    "encode_error",
    "encode_grid",
    "game_over",
    "hello",
    "hello_reply",
    "hello_transport",
    "new_game",
    "observation",
    "observation_from",
    "quit_message",
    "read_message",
]

PROTOCOL_VERSION = 1

#: bytes.translate tables between an int8 grid's raw bytes (-2 flag = 0xFE, -1 covered = 0xFF, 0-8) and
#: position text; any other symbol decodes to 0x80 (-128), which no cell can hold.
_TO_TEXT = bytearray(b"?" * 256)
_TO_CELLS = bytearray(b"\x80" * 256)
for _value, _symbol in zip((0xFE, 0xFF, *range(9)), b"F#012345678", strict=True):
    _TO_TEXT[_value] = _symbol
    _TO_CELLS[_symbol] = _value
_TO_TEXT_TABLE, _TO_CELLS_TABLE = bytes(_TO_TEXT), bytes(_TO_CELLS)
_INVALID = b"\x80"
_KINDS = {kind.value: kind for kind in ActionKind}
_KIND_TEXT: dict[Any, str] = {kind: kind.value for kind in ActionKind}


class ProtocolError(Exception):
    """A line that is not the protocol at all (not JSON, not an object, not the expected message).
    After one, the arena cannot know where the bot's output stands, so the bot is restarted."""


class BotReportedError(Exception):
    """The bot answered ``{"error": ...}``: its own failure, reported cleanly (outcome ``error``)."""


class BotResigned(BotReportedError):
    """The bot answered ``{"resign": ...}``: it gives the game up, as a course shell's ``LEAVE`` does. The game is
    not won and is scored like an ``error`` with the bot's reason; ``arena check-bot`` counts it as an end of the
    game the protocol allows, not as a failure to play."""


def _line(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


# -- the grid -----------------------------------------------------------------------------------------------------
def _grid_text(grid: np.ndarray) -> str:
    return np.ascontiguousarray(grid, dtype=np.int8).tobytes().translate(_TO_TEXT_TABLE).decode("ascii")


def encode_grid(grid: np.ndarray) -> list[str]:
    """Rows of position text for an int8 observation grid."""
    width = grid.shape[1]
    text = _grid_text(grid)
    return [text[start : start + width] for start in range(0, len(text), width)]


def decode_grid(rows: Any, height: int | None = None, width: int | None = None) -> np.ndarray:
    """A read-only int8 (height, width) grid from rows of position text; refuses anything else."""
    if not isinstance(rows, list) or not rows:
        raise ProtocolError("grid must be a non-empty list of strings, one per row")
    try:
        raw = "".join(rows).encode("ascii")
    except (TypeError, UnicodeEncodeError):
        raise ProtocolError("grid must be a list of strings of '#', 'F' and '0'-'8', one per row") from None
    row_width = len(rows[0])
    if row_width == 0 or len(raw) != row_width * len(rows) or any(len(row) != row_width for row in rows):
        raise ProtocolError("grid rows must all have the same, non-zero length")
    if (height is not None and len(rows) != height) or (width is not None and row_width != width):
        raise ProtocolError(f"grid is {len(rows)}x{row_width}, the game is {height}x{width}")
    cells = raw.translate(_TO_CELLS_TABLE)
    if _INVALID in cells:
        raise ProtocolError("grid holds characters other than '#', 'F' and '0'-'8'")
    return np.frombuffer(cells, dtype=np.int8).reshape(len(rows), row_width)  # read-only: it views bytes


# -- what the arena sends -----------------------------------------------------------------------------------------
def hello() -> str:
    return _line({"type": "hello", "protocol": PROTOCOL_VERSION})


def new_game(spec: BoardSpec, rule: FirstClick, seed: int, move_time: float, game_time: float) -> str:
    """A new game. ``seed`` is the player's own 128-bit seed for this board (never the tournament
    seed or the board index, from which the board could be rebuilt), as 32 hex digits."""
    return _line(
        {
            "type": "new_game",
            "board": spec.name,
            "height": spec.height,
            "width": spec.width,
            "mines": spec.mines,
            "rule": FirstClick(rule).value,
            "seed": f"{seed:032x}",
            "move_ms": round(move_time * 1000),
            "game_ms": round(game_time * 1000),
        }
    )


def observation(observation: Observation) -> str:
    """Written out by hand: it is the one message sent on every move, and position text needs no
    JSON escaping (the same line ``json.dumps`` would give, in a fraction of the time)."""
    width = observation.grid.shape[1]
    text = _grid_text(observation.grid)
    rows = '","'.join([text[start : start + width] for start in range(0, len(text), width)])
    return (
        f'{{"type":"observation","grid":["{rows}"],"mines":{int(observation.mines)},'
        f'"flags":{int(observation.flags)},"moves":{int(observation.moves)}}}'
    )


def game_over(outcome: str, message: str = "") -> str:
    return _line({"type": "game_over", "outcome": str(outcome), "message": message[:500]})


def quit_message() -> str:
    return _line({"type": "quit"})


# -- what the arena reads -----------------------------------------------------------------------------------------
def _object(line: bytes | str) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        shown = line[:120] if isinstance(line, str) else line[:120].decode("utf-8", "replace")
        raise ProtocolError(f"unparsable output {shown!r}: every reply is one JSON object on one line") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"a reply is a JSON object, got {type(message).__name__}")
    return message


def decode_hello(line: bytes | str) -> tuple[str, str]:
    """The bot's (name, version) from its answer to ``hello``."""
    message = _object(line)
    if "error" in message:
        raise BotReportedError(str(message["error"])[:1000])
    protocol = message.get("protocol")
    if protocol != PROTOCOL_VERSION:
        raise ProtocolError(f"the bot speaks protocol {protocol!r}; the arena speaks {PROTOCOL_VERSION}")
    name, version = message.get("name", ""), message.get("version", "")
    return str(name)[:64], str(version)[:64]


def hello_transport(line: bytes | str) -> str:
    """The optional ``transport`` of a hello answer: ``"shared"`` when the arena's own Python host
    took the shared-memory segment it was offered (``arena.isolation.protocol.shared``), else ``""``."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return ""
    transport = message.get("transport") if isinstance(message, dict) else None
    return transport if isinstance(transport, str) else ""


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _action(number: int, item: Any) -> Action:
    if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)):
        raise InvalidActionError(f"action {number} {item!r} is not an action; write [KIND, ROW, COL]")
    kind, row, col = item
    if not (_whole(row) and _whole(col)):
        raise InvalidActionError(f"action {number} {item!r}: a cell is two whole numbers ROW, COL")
    try:
        return Action(ActionKind(kind), row, col)
    except ValueError:
        kinds = ", ".join(k.value for k in ActionKind)
        raise InvalidActionError(f"action {number} {item!r}: unknown kind {kind!r}; use one of {kinds}") from None


def decode_reply(line: bytes | str) -> list[Action]:
    """The actions of a reply to an observation, with the reveals named in ``guess`` marked (see
    ``parse_reply``)."""
    return parse_reply(line)[0]


def parse_reply(line: bytes | str) -> tuple[list[Action], float]:
    """The actions of a reply to an observation, with the reveals named in ``guess`` marked, and
    the seconds the bot says it spent busy-waiting for the observation (``spin_us``; 0 if absent
    or not a number: the field is optional and only informs the CPU figures).

    Raises ``ProtocolError`` for a line that is not a JSON object, ``BotReportedError`` for
    ``{"error": ...}`` and ``InvalidActionError`` (the engine's own error, so the runner scores it
    like any illegal action) for an object whose actions are malformed."""
    message = _object(line)
    if "error" in message:
        raise BotReportedError(str(message["error"])[:1000])
    if "resign" in message:
        raise BotResigned(str(message["resign"])[:1000])
    items = message.get("actions")
    if not isinstance(items, list) or not items:
        raise InvalidActionError('the reply has no action; send {"actions": [[KIND, ROW, COL], ...]}')
    actions: list[Action] = []
    for number, item in enumerate(items):
        # The fast path takes well-formed actions; anything else goes to _action to be explained.
        if type(item) is list and len(item) == 3:
            kind, row, col = item
            known = _KINDS.get(kind) if type(kind) is str else None
            if known is not None and type(row) is int and type(col) is int:
                actions.append(Action(known, row, col))
                continue
        actions.append(_action(number, item))
    spun = message.get("spin_us", 0)
    spin = spun / 1e6 if type(spun) in (int, float) and 0 < spun < 1e9 else 0.0
    guesses = message.get("guess")
    if guesses is None:
        if "note" in message or "p_mine" in message or "notes" in message:
            actions = _with_notes(actions, message)
        return actions, spin
    if not isinstance(guesses, list):
        raise InvalidActionError(f"guess must be a list of [ROW, COL] cells, got {guesses!r}")
    marked: set[tuple[int, int]] = set()
    for cell in guesses:
        if not (isinstance(cell, list) and len(cell) == 2 and _whole(cell[0]) and _whole(cell[1])):
            raise InvalidActionError(f"guess entry {cell!r} is not a [ROW, COL] cell")
        marked.add((cell[0], cell[1]))
    if marked:
        revealed = {(a.row, a.col) for a in actions if a.kind is ActionKind.REVEAL}
        stray = sorted(marked - revealed)
        if stray:
            raise InvalidActionError(f"guess names cell {list(stray[0])}, which this reply does not reveal")
        actions = [
            a._replace(guess=True) if a.kind is ActionKind.REVEAL and (a.row, a.col) in marked else a for a in actions
        ]
    if "note" in message or "p_mine" in message or "notes" in message:
        actions = _with_notes(actions, message)
    return actions, spin


def _p_mine(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(value):
        raise InvalidActionError(f"{where} must be a number (the bot's mine probability), got {value!r}"[:300])
    return float(value)


def _note_text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidActionError(f"{where} must be a string, got {value!r}"[:300])
    return value[:NOTE_CHARS]


def _with_notes(actions: list[Action], message: dict[str, Any]) -> list[Action]:
    """The actions with the reply's notes on them: ``note`` and ``p_mine`` on the reply's first
    guess, else its first action; each ``notes`` entry ``[INDEX, TEXT]`` or ``[INDEX, TEXT,
    P_MINE]`` on the action at that index. Refuses (as an illegal action) notes of the wrong type."""
    actions = list(actions)
    note = _note_text(message.get("note", ""), "note")
    p_mine = _p_mine(message.get("p_mine"), "p_mine")
    if note or p_mine is not None:
        target = next((i for i, a in enumerate(actions) if a.guess), 0)
        actions[target] = actions[target]._replace(note=note, p_mine=p_mine)
    entries = message.get("notes")
    if entries is None:
        return actions
    if not isinstance(entries, list):
        shown = f"{entries!r}"[:200]
        raise InvalidActionError(f"notes must be a list of [INDEX, TEXT] or [INDEX, TEXT, P_MINE], got {shown}")
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) in (2, 3) and _whole(entry[0])):
            raise InvalidActionError(f"notes entry {entry!r} is not [INDEX, TEXT] or [INDEX, TEXT, P_MINE]"[:300])
        index = entry[0]
        if not 0 <= index < len(actions):
            raise InvalidActionError(f"notes entry {entry!r} names action {index}; the reply has {len(actions)}"[:300])
        text = _note_text(entry[1], "a note's text")
        p = _p_mine(entry[2] if len(entry) == 3 else None, "a note's p_mine")
        actions[index] = actions[index]._replace(note=text, p_mine=p)
    return actions


# -- the bot's side (used by arena.isolation.protocol.bot_host) --------------------------------------------------------
def read_message(line: bytes | str) -> dict[str, Any]:
    """One arena message, for a bot: a JSON object with a ``type``."""
    message = _object(line)
    if not isinstance(message.get("type"), str):
        raise ProtocolError("an arena message has a string 'type'")
    return message


def encode_answer(actions: Iterable[Any], spun: float = 0.0) -> str:
    """A reply from what a Python player returned: ``Action`` values, an ``Actions``, or (kind, row,
    col[, guess]) tuples. Anything that is not an action is passed on as text, so the arena scores
    it as illegal exactly as it would in process. ``spun``: seconds of busy-waiting for this observation, sent as
    ``spin_us`` when positive. Written out by hand, like ``observation``: it runs every move."""
    items: list[str] = []
    guesses: list[str] = []
    notes: list[Any] = []
    if type(actions) is Actions:  # its rows, each as the Action it reads as (a row that is none, as it is)
        actions = [action_from_row(row) if 0 <= row[0] < len(KINDS) else row for row in actions.rows.tolist()]
    for action in actions:
        if type(action) is Action and type(action.row) is int and type(action.col) is int:
            kind = _KIND_TEXT.get(action.kind)
            if kind is not None:  # the fast path: a well-formed Action
                if action.note or action.p_mine is not None:
                    notes.append([len(items), str(action.note), action.p_mine])
                items.append(f'["{kind}",{action.row},{action.col}]')
                if action.guess and kind == "reveal":
                    guesses.append(f"[{action.row},{action.col}]")
                continue
        try:
            kind = _KIND_TEXT.get(action[0]) or ActionKind(action[0]).value
            row, col = operator.index(action[1]), operator.index(action[2])
        except (TypeError, ValueError, IndexError, KeyError):
            items.append(json.dumps(repr(action)[:200]))
            continue
        items.append(f'["{kind}",{row},{col}]')
        if kind == "reveal" and len(action) > 3 and action[3]:
            guesses.append(f"[{row},{col}]")
    tail = f',"guess":[{",".join(guesses)}]' if guesses else ""
    if notes:
        tail += ',"notes":' + json.dumps(
            [[i, text, p] if p is not None else [i, text] for i, text, p in notes], separators=(",", ":")
        )
    if spun > 0:
        tail += f',"spin_us":{spun * 1e6:.1f}'
    return f'{{"actions":[{",".join(items)}]{tail}}}'


def encode_error(text: str) -> str:
    return _line({"error": text[:1000]})


def hello_reply(name: str, version: str, error: str = "", transport: str = "") -> str:
    reply: dict[str, Any] = {"protocol": PROTOCOL_VERSION, "name": name, "version": version}
    if error:
        reply["error"] = error[:1000]
    if transport:
        reply["transport"] = transport
    return _line(reply)


def observation_from(message: dict[str, Any], height: int, width: int, rule: FirstClick) -> Observation:
    """The ``Observation`` a Python player sees, rebuilt from an ``observation`` message."""
    grid = decode_grid(message.get("grid"), height, width)
    mines, flags, moves = message.get("mines"), message.get("flags"), message.get("moves")
    if not (_whole(mines) and _whole(flags) and _whole(moves)):
        raise ProtocolError("an observation carries whole numbers mines, flags and moves")
    return Observation(grid, mines, rule, moves, flags)
