"""Game records: every move of a stored game as it was played, in the compact form the store keeps.

The engine logs each move as it is played (``Game(record=True)``, ``CompiledGame(record=True)``);
``encode``/``decode`` turn the log into the compact blob the store keeps beside the game's result, and
``arena.results.record_replay.replay_record`` trusts a record only once it reproduces its game. The format and
why it is built that way: docs/analysis.md, "The record format".
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numba import njit

from engine import Action, ActionKind
from engine.actions import KINDS, NOTE_CHARS
from engine.board import MAX_CELLS

__all__ = [
    "DEFLATE_FROM",
    "FORMAT",
    "GameRecord",
    "Move",
    "RecordError",
    "RecordMismatch",
    "RecordMissing",
    "decode",
    "decode_moves",
    "encode",
    "log_blob",
    "log_blobs",
]

FORMAT = 1
_DEFLATED, _NOTES = 1, 2
#: A move's step kinds (the low two bits of its first varint): the common moves need no head.
_PLAIN_REVEAL, _FLAG, _UNFLAG, _OTHER = 0, 1, 2, 3
#: Bodies of at least this many bytes are deflated when that makes them smaller (see the docstring).
DEFLATE_FROM = 2048


class RecordError(Exception):
    """A game record that cannot be used: missing, unreadable, or not the game it claims to be."""


class RecordMissing(RecordError):
    """The store holds the game but no record of it: a store from before records, or games played
    with ``arena tournament --record none``."""


class RecordMismatch(RecordError):
    """The record does not reproduce its game (replayed on the board, it ends otherwise than the
    stored result, or a move is refused or opens other cells). It is refused, never shown."""


@dataclass(frozen=True, slots=True)
class Move:
    """One move as it was played: ``opened`` are the (row, col) cells it revealed, in row-major order."""

    kind: ActionKind
    row: int
    col: int
    guess: bool = False
    opened: tuple[tuple[int, int], ...] = ()
    note: str = ""
    p_mine: float | None = None

    @property
    def action(self) -> Action:
        """The action that played this move (with its guess mark and note)."""
        return Action(self.kind, self.row, self.col, self.guess, self.note, self.p_mine)

    def __str__(self) -> str:
        return str(self.action)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The moves of one game on a ``height`` x ``width`` board, in the order they were played."""

    height: int
    width: int
    moves: tuple[Move, ...] = ()

    @property
    def actions(self) -> list[Action]:
        return [move.action for move in self.moves]

    def __len__(self) -> int:
        return len(self.moves)


# -- the blob -------------------------------------------------------------------------------------------------------
@njit(cache=True)
def _put(out: np.ndarray, pos: int, value: int) -> int:
    """``value`` (>= 0) as a varint at ``out[pos]``; the position after it."""
    while value >= 0x80:
        out[pos] = (value & 0x7F) | 0x80
        value >>= 7
        pos += 1
    out[pos] = value
    return pos + 1


@njit(cache=True)
def _zigzag(value: int) -> int:
    return 2 * value if value >= 0 else -2 * value - 1


@njit(cache=True)
def _sort_small(cells: np.ndarray, k: int) -> None:
    """Sort ``cells[:k]`` in place: insertion sort for the few cells of most moves (no allocation),
    numpy's for a big flood."""
    if k > 24:
        cells[:k] = np.sort(cells[:k])
        return
    for i in range(1, k):
        value = cells[i]
        j = i - 1
        while j >= 0 and cells[j] > value:
            cells[j + 1] = cells[j]
            j -= 1
        cells[j + 1] = value


@njit(cache=True)
def _encode_log(log: np.ndarray, height: int, width: int) -> np.ndarray:
    """A blob without notes and not deflated (the two header bytes, then the body's varints) for a
    move log (``engine.kernels.log_move``'s layout; only ``log[:log[0]]`` is read)."""
    end = log[0]
    out = np.empty(5 * (end + 4), np.uint8)
    out[0] = FORMAT
    out[1] = 0
    moves = 0
    i = 1
    while i < end:
        moves += 1
        i += 3 + log[i + 2]
    pos = _put(out, np.int64(2), height)
    pos = _put(out, pos, width)
    pos = _put(out, pos, moves)
    previous_cell = 0
    others = np.empty(height * width, np.int32)
    i = 1
    while i < end:
        code, cell, n = log[i], log[i + 1], log[i + 2]
        k = np.int64(0)
        for j in range(n):
            if log[i + 3 + j] != cell:
                others[k] = log[i + 3 + j]
                k += 1
        # m: a reveal's cells besides its own plus one (0: it hit a mine); a chord's cells.
        m = k + 1 if (code & 3) == 0 and n > 0 else k
        if code == 0 and m == 1:
            kind = _PLAIN_REVEAL
        elif code == 1 or code == 2:
            kind = _FLAG if code == 1 else _UNFLAG
        else:
            kind = _OTHER
        pos = _put(out, pos, 4 * _zigzag(cell - previous_cell) + kind)
        if kind == _OTHER:
            pos = _put(out, pos, code + 5 * m)
        previous_cell = cell
        if k:
            _sort_small(others, k)
            # Runs of consecutive cells (a flood's rows): where each starts, and its length.
            start = 0
            for j in range(1, k + 1):
                if j == k or others[j] != others[j - 1] + 1:
                    if start == 0:
                        pos = _put(out, pos, _zigzag(others[0] - cell))
                    else:
                        pos = _put(out, pos, others[start] - others[start - 1] - 2)
                    pos = _put(out, pos, j - start - 1)
                    start = j
        i += 3 + n
    return out[:pos]


@njit(cache=True)
def _get(body: np.ndarray, pos: int) -> tuple[int, int]:
    """(value, position after it) of the varint at ``body[pos]``; value -1 when it runs off the end
    or past 35 bits."""
    value = 0
    shift = 0
    while pos < body.shape[0] and shift <= 28:
        byte = body[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos
    return -1, pos


@njit(cache=True)
def _decode_body(body: np.ndarray) -> tuple[int, int, int, np.ndarray, int]:
    """(status, height, width, log, bytes read) from a body: status 0 when it reads as a move log
    of a board (every cell on it, no cell opened twice), else a negative code."""
    nothing = np.zeros(1, np.int32)
    height, pos = _get(body, np.int64(0))
    width, pos = _get(body, pos)
    moves, pos = _get(body, pos)
    if height < 1 or width < 1 or moves < 0 or height * width > MAX_CELLS or moves > body.shape[0]:
        return -1, 0, 0, nothing, pos
    cells = height * width
    log = np.empty(1 + 3 * moves + cells, np.int32)
    opened = np.zeros(cells, np.uint8)
    end = 1
    cell = 0
    for _ in range(moves):
        step, pos = _get(body, pos)
        if step < 0:
            return -2, 0, 0, nothing, pos
        kind, delta = step % 4, step // 4
        if kind == _PLAIN_REVEAL:
            code, m = 0, 1
        elif _FLAG <= kind <= _UNFLAG:
            code, m = kind, 0
        else:
            head, pos = _get(body, pos)
            if head < 0:
                return -2, 0, 0, nothing, pos
            code, m = head % 5, head // 5
        cell += delta // 2 if delta % 2 == 0 else -(delta + 1) // 2
        if cell < 0 or cell >= cells or m > cells or (m and (code == 1 or code == 2)):
            return -3, 0, 0, nothing, pos
        reveal = code == 0 or code == 4
        k = m - 1 if reveal and m else m  # a reveal opened itself and m - 1 others; a chord m cells
        log[end] = code
        log[end + 1] = cell
        log[end + 2] = m
        j = end + 3
        if reveal and m:
            if opened[cell]:
                return -4, 0, 0, nothing, pos
            opened[cell] = 1
            log[j] = cell
            j += 1
        count = 0
        last = -1
        while count < k:
            value, pos = _get(body, pos)
            length, pos = _get(body, pos)
            if value < 0 or length < 0:
                return -2, 0, 0, nothing, pos
            first = cell + (value // 2 if value % 2 == 0 else -(value + 1) // 2) if count == 0 else last + 2 + value
            length += 1
            count += length
            if count > k or first < 0 or first + length > cells:
                return -4, 0, 0, nothing, pos
            for other in range(first, first + length):
                if opened[other]:
                    return -4, 0, 0, nothing, pos
                opened[other] = 1
                log[j] = other
                j += 1
            last = first + length - 1
        end = j
    log[0] = end
    return 0, height, width, log[:end], pos


def log_blob(
    log: np.ndarray, height: int, width: int, notes: Mapping[int, tuple[str, float | None]] | None = None
) -> bytes:
    """The blob of a game's move log (``Game.move_log()``, ``CompiledGame.log``: only the slots in
    use are read) and its notes. Runs once per game in the worker: the common case (no notes, a
    body too short to deflate) is one compiled call."""
    return _packed(_encode_log(log, height, width).tobytes(), notes)


@njit(cache=True)
def _encode_logs(logs: np.ndarray, log_ends: np.ndarray, height: int, width: int) -> tuple:
    """``_encode_log`` of each log ``logs[log_ends[i - 1]:log_ends[i]]``, end to end: the bytes and where
    each blob ends."""
    n = log_ends.shape[0]
    blobs = []
    ends = np.empty(n, np.int64)
    at = 0
    total = 0
    for i in range(n):
        blob = _encode_log(logs[at : log_ends[i]], height, width) if log_ends[i] > at else np.zeros(0, np.uint8)
        at = log_ends[i]
        total += blob.shape[0]
        ends[i] = total
        blobs.append(blob)
    out = np.empty(total, np.uint8)
    at = 0
    for i in range(n):
        out[at : ends[i]] = blobs[i]
        at = ends[i]
    return out, ends


def log_blobs(logs: np.ndarray, log_ends: np.ndarray, height: int, width: int) -> list[bytes]:
    """``log_blob`` of many logs in one compiled call, each ``logs[log_ends[i - 1]:log_ends[i]]`` (a whole log,
    its header slot first; ``log_ends[-1]``: 0): a batch of games' records at the cost of one; an empty log's
    blob is empty (no game: a caller's placeholder)."""
    if not log_ends.shape[0]:
        return []
    out, ends = _encode_logs(logs, log_ends, height, width)
    data = out.tobytes()
    blobs = []
    at = 0
    for end in ends.tolist():
        blob = data[at:end]
        at = end
        blobs.append(blob if len(blob) < DEFLATE_FROM + 2 else _packed(blob, None))
    return blobs


def _packed(blob: bytes, notes: Mapping[int, tuple[str, float | None]] | None) -> bytes:
    """A blob from ``_encode_log``'s with ``notes`` added and the body deflated when that is shorter."""
    if not notes and len(blob) < DEFLATE_FROM + 2:
        return blob
    body = blob[2:]
    flags = 0
    if notes:
        flags |= _NOTES
        body += json.dumps(
            [[move, str(text)[:NOTE_CHARS], _finite(p)] for move, (text, p) in sorted(notes.items())],
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode("utf-8")
    if len(body) >= DEFLATE_FROM:
        deflated = zlib.compress(body, 6, wbits=-15)
        if len(deflated) < len(body):
            flags |= _DEFLATED
            body = deflated
    return bytes((FORMAT, flags)) + body


def _finite(p: float | None) -> float | None:
    return float(p) if p is not None and math.isfinite(p) else None


def encode(record: GameRecord) -> bytes:
    """The blob of ``record`` (the cells each move opened must be on the board)."""
    width = record.width
    log: list[int] = [0]
    notes: dict[int, tuple[str, float | None]] = {}
    for number, move in enumerate(record.moves):
        code = _KIND_CODE[ActionKind(move.kind)] + (4 if move.guess and move.kind is ActionKind.REVEAL else 0)
        log += [code, move.row * width + move.col, len(move.opened)]
        log += [r * width + c for r, c in move.opened]
        if move.note or move.p_mine is not None:
            notes[number] = (move.note, move.p_mine)
    log[0] = len(log)
    return log_blob(np.array(log, dtype=np.int32), record.height, width, notes)


_KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}


def _unpack(blob: bytes | memoryview) -> tuple[np.ndarray, int, int, dict[int, tuple[str, float | None]]]:
    """(log, height, width, notes) of a blob; ``RecordError`` when it is not one (damaged, or a newer format)."""
    data = bytes(blob)
    if len(data) < 2 or data[0] != FORMAT:
        version = data[0] if data else "none"
        raise RecordError(f"the game record is in format {version}; this version reads format {FORMAT}")
    flags, body = data[1], data[2:]
    if flags & _DEFLATED:
        try:
            body = zlib.decompress(body, wbits=-15)
        except zlib.error as error:
            raise RecordError(f"the game record is damaged: {error}") from None
    status, height, width, log, used = _decode_body(np.frombuffer(body, dtype=np.uint8))
    if status != 0:
        raise RecordError(f"the game record is damaged (code {status} at byte {used})")
    notes: dict[int, tuple[str, float | None]] = {}
    if flags & _NOTES:
        try:
            for move, text, p_mine in json.loads(body[used:].decode("utf-8")):
                notes[int(move)] = (str(text), None if p_mine is None else float(p_mine))
        except (ValueError, TypeError, UnicodeDecodeError):
            raise RecordError("the game record's notes are damaged") from None
    elif used != len(body):
        raise RecordError(f"the game record is damaged ({len(body) - used} stray bytes)")
    return log, int(height), int(width), notes


def decode(blob: bytes | memoryview) -> GameRecord:
    """The record a blob holds; ``RecordError`` when it is not one (damaged, or a newer format)."""
    log, height, width, notes = _unpack(blob)
    return _record(log, height, width, notes)


@njit(cache=True)
def _heads(log: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each move's code (kind, plus 4 for a guess) and flat cell, skipping the cells it opened."""
    codes = np.empty(log.shape[0] // 3, np.int32)
    cells = np.empty(log.shape[0] // 3, np.int32)
    i, n = 1, 0
    while i < log[0]:
        codes[n] = log[i]
        cells[n] = log[i + 1]
        n += 1
        i += 3 + log[i + 2]
    return codes[:n], cells[:n]


def decode_moves(blob: bytes | memoryview) -> tuple[list[int], list[int], int, dict[int, tuple[str, float | None]]]:
    """The moves of a blob without the cells each opened: ``(codes, cells, width, notes)``, a move's code being
    its kind's index in ``KINDS`` plus 4 for a guess, its cell ``row * width + col``. For readers of many
    records that need only the moves (``arena site`` writes tens of thousands): ``decode`` builds every opened
    cell as a tuple, twenty times slower."""
    log, _, width, notes = _unpack(blob)
    codes, cells = _heads(log)
    return codes.tolist(), cells.tolist(), width, notes


def _record(log: np.ndarray, height: int, width: int, notes: Mapping[int, tuple[str, float | None]]) -> GameRecord:
    moves: list[Move] = []
    values = log.tolist()
    i = 1
    while i < len(values):
        code, cell, n = values[i], values[i + 1], values[i + 2]
        opened = tuple(divmod(c, width) for c in values[i + 3 : i + 3 + n])
        text, p_mine = notes.get(len(moves), ("", None))
        moves.append(Move(KINDS[code & 3], cell // width, cell % width, code >= 4, opened, text, p_mine))
        i += 3 + n
    return GameRecord(height, width, tuple(moves))
