"""Acceleration of the JSON-lines protocol (``arena.isolation.protocol.messages``) between the arena and its own
Python bot host: the per-move traffic without JSON; held equal to it by tests/arena/isolation/protocol/test_shared.py.

On Linux x86-64 the arena hands the Python host (``arena.isolation.protocol.bot_host``) an anonymous
shared-memory segment; observations and ordinary replies then travel through it instead of as JSON
lines, everything else stays on the pipes. Why, and the segment's layout and waiting rules:
docs/protocol.md, "The shared-memory channel".
"""

from __future__ import annotations

import contextlib
import mmap
import os
import platform
import sys
import threading
import time
from array import array
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.isolation.processes.bot_process import BotTimeout
from engine import Action, Actions, FirstClick, InvalidActionError, Observation
from engine.actions import KIND_CODES

__all__ = [
    "BACKSTOP",
    "ENV_FD",
    "IDLE_BACKSTOP",
    "STATUS_ACTIONS",
    "STATUS_PIPE",
    "SharedChannel",
    "SharedChannelError",
    "await_answer",
    "supported",
]

#: The environment variable that names the inherited descriptor in the bot's process.
ENV_FD = "ARENA_SHARED_FD"
#: The longest a blocking wait goes without looking at the other side's counter (seconds).
BACKSTOP = 0.005
#: The host's backstop grows to this while no observation comes (an idle bot, between its turns).
IDLE_BACKSTOP = 0.1
#: Grid cells and actions per reply the default segment holds (a 256x256 board; more goes by pipe).
DEFAULT_CELLS = 1 << 16

MAGIC = 0x31414E4552415353  # b"SSARENA1", little-endian
(
    _A_MAGIC,
    _A_CELLS,
    _A_ACTIONS,
    _A_SEQ,
    _A_HEIGHT,
    _A_WIDTH,
    _A_MINES,
    _A_FLAGS,
    _A_MOVES,
    _A_LINES,
    _A_SLEEPING,
    _A_GAME,
    _A_RULE,
    _A_SEED_LO,
    _A_SEED_HI,
    _A_NAME_LEN,
) = range(16)
_BOT = 16  # the bot's words start at byte 128
_B_SEQ, _B_STATUS, _B_COUNT, _B_SPIN_NS, _B_SLEEPING = (_BOT + i for i in range(5))
_NAME = 256
#: The longest board name (UTF-8 bytes) a game can be announced with in the segment.
NAME_BYTES = 64
_GRID = _NAME + NAME_BYTES
_RULES = tuple(FirstClick)
_RULE_CODES = {rule: code for code, rule in enumerate(_RULES)}
_MASK64 = (1 << 64) - 1

#: The reply is in the segment's action rows.
STATUS_ACTIONS = 1
#: The reply is a line on the bot's stdout (an error, or something that is not a list of actions).
STATUS_PIPE = 2


_FENCE_LOCK = threading.Lock()


def _fence() -> None:
    """A full memory barrier between a store and a later load. x86-64 may let a load overtake an
    earlier store (to another address), which could make both sides miss each other's SEQ and
    SLEEPING words and lose a wake-up; a lock's acquire and release are atomic read-modify-write
    instructions (``lock``-prefixed), which no load can overtake. About 0.1 us."""
    _FENCE_LOCK.acquire()
    _FENCE_LOCK.release()


class SharedChannelError(Exception):
    """The segment cannot be used (no memfd, a foreign descriptor, a wrong size or magic)."""


def supported() -> bool:
    """Whether this machine offers the channel: Linux (``memfd_create``) on x86-64 (ordered stores)."""
    return (
        sys.platform.startswith("linux")
        and hasattr(os, "memfd_create")
        and platform.machine().lower() in ("x86_64", "amd64")
    )


def _signed(value: int) -> int:
    """A 64-bit word's bits as the int64 the segment's words hold."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _size(cells: int, actions: int) -> int:
    return _GRID + (cells + 63) // 64 * 64 + actions * 16


class SharedChannel:
    """One bot's segment, seen from either side. Not thread-safe: one game loop drives each end."""

    def __init__(self, buffer: mmap.mmap) -> None:
        self._buffer = buffer
        #: The two sides' words (a memoryview: reading one is a Python int, with no NumPy scalar).
        self.words = memoryview(buffer)[:_GRID].cast("q")
        if self.words[_A_MAGIC] != MAGIC:
            raise SharedChannelError("not an arena segment")
        self.cells = self.words[_A_CELLS]
        self.max_actions = self.words[_A_ACTIONS]
        if self.cells < 1 or self.max_actions < 1 or len(buffer) < _size(self.cells, self.max_actions):
            raise SharedChannelError("the segment is smaller than its header says")
        self.grid = np.ndarray((self.cells,), dtype=np.int8, buffer=buffer, offset=_GRID)
        self._name = memoryview(buffer)[_NAME:_GRID]
        #: The grid as a (height, width) view, for the last shape seen.
        self._shape = (0, 0)
        self._view = self.grid[:0].reshape(0, 0)
        start = _GRID + (self.cells + 63) // 64 * 64
        self.actions = np.ndarray((self.max_actions, 4), dtype=np.int32, buffer=buffer, offset=start)
        self._rows = memoryview(buffer)[start : start + self.max_actions * 16].cast("i")
        #: The last observation posted (arena) or answered (bot).
        self.seq = 0
        #: The last game announced (arena) or started (bot).
        self.game = 0

    # -- making one -----------------------------------------------------------------------------------------------
    @classmethod
    def create(cls, cells: int | None = None, actions: int | None = None) -> tuple[SharedChannel, int]:
        """The arena's side of a new segment for ``cells`` grid cells and ``actions`` actions per
        reply (both ``DEFAULT_CELLS`` unless given), and its descriptor for the bot to inherit (the
        caller closes it once the bot has started)."""
        if not supported():
            raise SharedChannelError("shared memory channels need Linux on x86-64")
        cells = DEFAULT_CELLS if cells is None else cells
        actions = cells if actions is None else actions
        fd = os.memfd_create("arena-bot", 0)
        try:
            size = _size(cells, actions)
            os.ftruncate(fd, size)
            buffer = mmap.mmap(fd, size)
        except OSError:
            os.close(fd)
            raise
        words = memoryview(buffer)[:_GRID].cast("q")
        words[_A_MAGIC], words[_A_CELLS], words[_A_ACTIONS] = MAGIC, cells, actions
        words.release()
        return cls(buffer), fd

    @classmethod
    def attach(cls, fd: int) -> SharedChannel:
        """The bot's side: map the inherited descriptor (closed here, the mapping stays)."""
        try:
            size = os.fstat(fd).st_size
            if size < _GRID:
                raise SharedChannelError(f"descriptor {fd} is not an arena segment ({size} bytes)")
            buffer = mmap.mmap(fd, size)
        except (OSError, ValueError) as error:
            raise SharedChannelError(f"cannot map descriptor {fd}: {error}") from None
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)
        return cls(buffer)

    def close(self) -> None:
        """Unmap, once this side is done with the channel (a view still held elsewhere keeps the
        mapping alive until it is collected)."""
        del self.grid, self.actions, self._view
        self.words.release()
        self._rows.release()
        self._name.release()
        with contextlib.suppress(BufferError):
            self._buffer.close()

    def _grid_view(self, height: int, width: int) -> np.ndarray:
        """The segment's grid as a (height, width) array (kept for the next call of that shape)."""
        if self._shape != (height, width):
            self._view = self.grid[: height * width].reshape(height, width)
            self._shape = (height, width)
        return self._view

    # -- the arena's side -----------------------------------------------------------------------------------------
    def fits(self, grid: np.ndarray) -> bool:
        return grid.size <= self.cells

    def post(self, observation: Observation, lines: int) -> bool:
        """Publish ``observation`` (the arena had written ``lines`` protocol lines to the pipe
        before it); True when the bot is asleep and must be woken with an empty line."""
        return self.post_grid(observation.grid, observation.mines, observation.flags, observation.moves, lines)

    def post_grid(self, grid: np.ndarray, mines: int, flags: int, moves: int, lines: int) -> bool:
        """``post`` of an observation given by its parts: ``grid`` may be the game's live view (it
        is copied into the segment here)."""
        height, width = grid.shape
        words = self.words
        self._grid_view(height, width)[...] = grid
        words[_A_HEIGHT], words[_A_WIDTH] = height, width
        words[_A_MINES], words[_A_FLAGS], words[_A_MOVES] = int(mines), int(flags), int(moves)
        words[_A_LINES] = lines
        self.seq += 1
        words[_A_SEQ] = self.seq
        _fence()
        return bool(words[_B_SLEEPING])

    def announce(self, name: str, rule: FirstClick, seed: int) -> bool:
        """Describe a new game, for the host to start with the next observation posted (its board's
        size and mines go with that observation). False when the name is longer than ``NAME_BYTES``
        or the seed is not 128 bits: then the caller sends ``new_game`` as a line."""
        raw = name.encode("utf-8")
        if len(raw) > NAME_BYTES or not 0 <= seed < 1 << 128:
            return False
        words = self.words
        self._name[: len(raw)] = raw
        words[_A_RULE] = _RULE_CODES[FirstClick(rule)]
        words[_A_SEED_LO] = _signed(seed & _MASK64)
        words[_A_SEED_HI] = _signed(seed >> 64)
        words[_A_NAME_LEN] = len(raw)
        self.game += 1
        words[_A_GAME] = self.game
        return True

    def answered(self) -> bool:
        return self.words[_B_SEQ] == self.seq

    def set_arena_sleeping(self, sleeping: bool) -> None:
        self.words[_A_SLEEPING] = 1 if sleeping else 0
        _fence()

    def status(self) -> int:
        return self.words[_B_STATUS]

    def reply(self) -> tuple[Actions, float]:
        """The actions of a ``STATUS_ACTIONS`` reply (a copy of the rows, played as they are: a row
        that is not a move is refused by the engine when its turn comes), and the seconds the bot
        says it busy-waited for the observation. Raises ``InvalidActionError`` (scored as an
        illegal action) for an empty reply, ``SharedChannelError`` for a count the segment cannot
        hold."""
        words = self.words
        count = words[_B_COUNT]
        if count < 1:
            raise InvalidActionError('the reply has no action; send {"actions": [[KIND, ROW, COL], ...]}')
        if count > self.max_actions:
            raise SharedChannelError(f"the reply claims {count} actions; the segment holds {self.max_actions}")
        actions = Actions(self.actions[:count].copy())
        spin = words[_B_SPIN_NS]
        return actions, spin / 1e9 if 0 < spin < 10**18 else 0.0

    # -- the bot's side -------------------------------------------------------------------------------------------
    def posted(self) -> int:
        """The sequence number of the arena's latest observation."""
        return self.words[_A_SEQ]

    def lines_before(self) -> int:
        return self.words[_A_LINES]

    def set_bot_sleeping(self, sleeping: bool) -> None:
        self.words[_B_SLEEPING] = 1 if sleeping else 0
        _fence()

    def new_game(self) -> tuple[str, FirstClick, int] | None:
        """The game the arena announced with its latest observation, if it is a new one: (board
        name, rule, the player's seed); None when the game goes on. Read after ``posted``."""
        words = self.words
        self.seq = words[_A_SEQ]  # first, as in ``observation``: whatever is read next is this new
        game = words[_A_GAME]
        if game == self.game:
            return None
        self.game = game
        length, code = words[_A_NAME_LEN], words[_A_RULE]
        if not 0 <= length <= NAME_BYTES or not 0 <= code < len(_RULES):
            raise SharedChannelError(f"the arena announced a game with rule {code} and a {length}-byte name")
        name = bytes(self._name[:length]).decode("utf-8", "replace")
        seed = (words[_A_SEED_HI] & _MASK64) << 64 | words[_A_SEED_LO] & _MASK64
        return name, _RULES[code], seed

    def board(self) -> tuple[int, int, int]:
        """The posted observation's height, width and mines."""
        words = self.words
        return words[_A_HEIGHT], words[_A_WIDTH], words[_A_MINES]

    def observation(self, rule: FirstClick) -> Observation:
        """The posted observation, as the engine would hand it to a trusted player (a read-only
        copy of the grid)."""
        words = self.words
        self.seq = words[_A_SEQ]  # first: the payload read after it is at least this new
        height, width = words[_A_HEIGHT], words[_A_WIDTH]
        if height < 1 or width < 1 or height * width > self.cells:
            raise SharedChannelError(f"the arena posted a {height}x{width} grid; the segment holds {self.cells}")
        grid = self._grid_view(height, width).copy()
        grid.flags.writeable = False
        return Observation(grid, words[_A_MINES], rule, words[_A_MOVES], words[_A_FLAGS])

    def write_actions(self, actions: Sequence[Any], spun: float) -> bool:
        """Answer the posted observation with ``actions`` when they are an ``Actions`` or all
        well-formed ``Action`` values without notes, and fit (False otherwise: the caller answers by
        pipe, which carries notes and explains or refuses the rest exactly as before). Publishes the
        reply: nothing may be written after it."""
        count = len(actions)
        if not 0 < count <= self.max_actions:
            return False
        if type(actions) is Actions:
            self.actions[:count] = actions.rows
            self._publish(STATUS_ACTIONS, count, spun)
            return True
        codes = KIND_CODES
        flat: list[Any] = []
        try:
            for action in actions:
                if type(action) is not Action or action[4] or action[5] is not None:
                    return False  # not an action, or one with a note: the segment carries neither
                code = codes[action[0]]
                # A reveal's guess mark, as the line protocol keeps it; other kinds' are dropped.
                flat += (code, action[1], action[2], 1 if code == 0 and action[3] else 0)
            self._rows[: 4 * count] = array("i", flat)
        except Exception:  # an unknown kind, not whole numbers, beyond int32...: the pipe says what is wrong
            return False
        self._publish(STATUS_ACTIONS, count, spun)
        return True

    def write_pipe_marker(self, spun: float) -> None:
        """Say the reply to the posted observation is the line just written to stdout."""
        self._publish(STATUS_PIPE, 0, spun)

    def _publish(self, status: int, count: int, spun: float) -> None:
        words = self.words
        words[_B_STATUS], words[_B_COUNT], words[_B_SPIN_NS] = status, count, max(0, int(spun * 1e9))
        words[_B_SEQ] = self.seq
        _fence()  # before the caller reads the arena's SLEEPING word

    def arena_sleeping(self) -> bool:
        return bool(self.words[_A_SLEEPING])


def await_answer(channel: SharedChannel, process: Any, deadline: float, spin: float) -> float:
    """The arena's wait for the bot's answer to the posted observation: busy-wait up to ``spin``
    seconds, then sleep on the bot's stdout (``process``: a ``BotProcess``, which raises when the
    bot dies, times out or floods its output) until the answer or ``deadline`` (monotonic).
    Returns the CPU seconds the busy wait cost this thread."""
    spent = 0.0
    if spin > 0:
        started = time.thread_time()
        end = time.perf_counter() + min(spin, max(0.0, deadline - time.monotonic()))
        while not channel.answered() and time.perf_counter() < end:
            os.sched_yield()
        spent = time.thread_time() - started
    if channel.answered():
        return spent
    channel.set_arena_sleeping(True)
    try:
        while not channel.answered():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BotTimeout("no answer before the deadline")
            process.await_output(min(remaining, BACKSTOP))
    finally:
        channel.set_arena_sleeping(False)
    return spent
