"""Acceleration of ``engine.game.Game``: a game as plain arrays, for a trusted player that plays
whole games in compiled code; held equal to it by ``tests/engine/test_compiled_game.py``. A refused
move is reported, not raised (the arena then replays the game with ``Game``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from numba import njit, types

from engine import kernels, numba_cache, rng
from engine.board import BoardSpec, FirstClick
from engine.errors import BoardConfigError
from engine.kernels import (
    CHORDS,
    COVERED,
    EXPLODED,
    FLAGS,
    GUESSES,
    HIT_MINE,
    LEFT,
    MOVES,
    NO_LOG,
    REVEALS,
    log_copy,
    new_log,
)
from engine.layout import MAX_SEED, check_seed
from engine.observation import GameStats, GameStatus

__all__ = [
    "CLOCK_MONOTONIC",
    "CLOCK_THREAD_CPUTIME",
    "FIGURES",
    "FIRST",
    "CompiledGame",
    "cpu_ns",
    "figures_into",
    "game_over",
    "play_cells",
    "reset_game",
    "reveal",
    "wall_ns",
]

#: ``CompiledGame.counters`` after the kernels' eight: first click's cell (-1 before), 3BV, openings.
FIRST, BBBV, OPENINGS = 8, 9, 10
_SLOTS = 11


#: POSIX clocks, as ``time.perf_counter_ns`` (monotonic) and ``time.thread_time_ns`` read them on Linux.
CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME = 1, 3
#: C's ``clock_gettime``, linked by name (so that the kernels calling it stay in numba's cache).
_clock_gettime = types.ExternalFunction("clock_gettime", types.int32(types.int32, types.voidptr))
#: The columns ``figures_into`` fills: ``CompiledGame.figures``' ten.
FIGURES = 10


@njit(cache=True)
def cpu_ns(buf: np.ndarray) -> int:
    """This thread's CPU time in nanoseconds, as ``time.thread_time_ns`` reads it (``buf``: two int64 of
    scratch, a ``struct timespec``): lets a compiled loop over games time each game as the runner would.
    One function per clock: numba would compile a clock given as an argument once per constant."""
    _clock_gettime(CLOCK_THREAD_CPUTIME, buf.ctypes)
    return buf[0] * 1_000_000_000 + buf[1]


@njit(cache=True)
def wall_ns(buf: np.ndarray) -> int:
    """The monotonic clock in nanoseconds, as ``time.perf_counter_ns`` reads it (``buf`` as ``cpu_ns``)."""
    _clock_gettime(CLOCK_MONOTONIC, buf.ctypes)
    return buf[0] * 1_000_000_000 + buf[1]


@njit(cache=True)
def game_over(counters: np.ndarray) -> bool:
    return counters[EXPLODED] >= 0 or counters[LEFT] == 0


@njit(cache=True)
def reveal(
    view: np.ndarray,
    truth: np.ndarray,
    labels: np.ndarray,
    perm: np.ndarray,
    height: int,
    width: int,
    mines: int,
    rule: int,
    stack: np.ndarray,
    counters: np.ndarray,
    cell: int,
    guess: bool,
    log: np.ndarray,
) -> bool:
    """``Game.apply(Action.reveal(row, col, guess=guess))`` on flat ``cell``; False when refused."""
    if game_over(counters) or cell < 0 or cell >= height * width or view[cell] != COVERED:
        return False
    if counters[FIRST] < 0:
        counters[FIRST] = cell
        is_mine = np.zeros(height * width, np.uint8)
        kernels.place_mines(perm, height, width, mines, cell, rule, is_mine)
        kernels.neighbour_numbers(is_mine, height, width, truth)
        counters[BBBV] = kernels.label_openings(truth, height, width, labels, stack)
        counters[OPENINGS] = max(0, labels.max())
    counters[MOVES] += 1
    counters[REVEALS] += 1
    revealed = kernels.reveal_cells(view, truth, height, width, cell, stack, log, guess)
    if guess:
        counters[GUESSES] += 1
    if revealed == HIT_MINE:
        counters[EXPLODED] = cell
    else:
        counters[LEFT] -= revealed
    return True


@njit(cache=True)
def play_cells(
    view: np.ndarray,
    truth: np.ndarray,
    height: int,
    width: int,
    safe: np.ndarray,
    mines: np.ndarray,
    guess: bool,
    stack: np.ndarray,
    hit: np.ndarray,
    counters: np.ndarray,
    log: np.ndarray,
) -> bool:
    """``Game.play_answer(Actions.cells(safe, mines, guess=guess))`` after the first reveal; False
    when a move was refused (the ones before it stay played)."""
    ok, rows = kernels.cell_rows(safe, mines, 1 if guess else 0)
    if not ok or counters[FIRST] < 0:
        return False
    before = view.copy()
    n = rows.shape[0]
    i = np.int64(0)
    while i < n and not game_over(counters):
        i = kernels.play_rows(view, truth, height, width, rows, i, before, stack, hit, counters, log)
        if i < n and not game_over(counters):
            return False
    return True


@njit(cache=True)
def _figures(view: np.ndarray, labels: np.ndarray, counters: np.ndarray) -> tuple:
    """``CompiledGame.figures``."""
    revealed = np.count_nonzero(view >= 0)
    solved = 0
    if counters[FIRST] >= 0:
        solved = kernels.bbbv_solved(view, labels, counters[OPENINGS])
    won = counters[EXPLODED] < 0 and counters[LEFT] == 0
    return (
        won, counters[MOVES], counters[REVEALS], counters[FLAGS], counters[CHORDS], counters[GUESSES],
        counters[BBBV], solved, revealed, counters[FIRST],
    )  # fmt: skip


@njit(cache=True)
def figures_into(view: np.ndarray, labels: np.ndarray, counters: np.ndarray, out: np.ndarray) -> None:
    """``CompiledGame.figures`` written to ``out[:FIGURES]`` (``won`` as 0 or 1): no tuple to box."""
    won, moves, reveals, flags, chords, guesses, bbbv, solved, revealed, first = _figures(view, labels, counters)
    out[0] = 1 if won else 0
    out[1], out[2], out[3], out[4], out[5] = moves, reveals, flags, chords, guesses
    out[6], out[7], out[8], out[9] = bbbv, solved, revealed, first


@njit(cache=True)
def reset_game(
    view: np.ndarray,
    truth: np.ndarray,
    labels: np.ndarray,
    hit: np.ndarray,
    counters: np.ndarray,
    log: np.ndarray,
    perm: np.ndarray,
    mines: int,
    seed: int,
    index: int,
) -> None:
    """``CompiledGame.reset``."""
    view[:] = COVERED
    truth[:] = 0
    labels[:] = 0
    hit[:] = 0
    counters[:] = 0
    counters[LEFT] = view.shape[0] - mines
    counters[EXPLODED] = -1
    counters[FIRST] = -1
    if log.shape[0]:
        log[0] = 1
    perm[:] = rng.board_permutation_words(seed, index, view.shape[0])


class CompiledGame:
    """Board ``index`` of ``seed`` as flat arrays (``view`` as an observation shows it); the move
    log, kept when ``record``, is preallocated whole: each cell is moved on and opened at most once."""

    __slots__ = ("counters", "height", "hit", "labels", "log", "perm", "rule", "rule_code", "spec", "stack", "truth",
                 "view", "width")  # fmt: skip

    def __init__(self, spec: BoardSpec, rule: FirstClick, seed: int, index: int, *, record: bool = False) -> None:
        spec.check_rule(rule)
        n = spec.cells
        self.spec = spec
        self.rule = rule
        if not rule.player_clicks:
            raise BoardConfigError(
                f"the compiled game plays the rules whose first click is the player's, not {rule.value!r}: play it "
                "with engine.Game, which makes the arena's opening click (Game.open_start)"
            )
        self.rule_code = kernels.RULE_CODES[rule.value]
        self.height = spec.height
        self.width = spec.width
        self.view = np.empty(n, dtype=np.int8)
        self.truth = np.empty(n, dtype=np.int8)
        self.labels = np.empty(n, dtype=np.int32)
        self.stack = np.empty(n, dtype=np.int64)
        self.hit = np.empty(1, dtype=np.int64)
        self.counters = np.empty(_SLOTS, dtype=np.int64)
        self.perm = np.empty(n, dtype=np.int64)
        self.log = new_log(4 * n + 1) if record else NO_LOG
        self.reset(seed, index)

    def reset(self, seed: int, index: int) -> None:
        """Start over on board ``index`` of ``seed`` in the same arrays (no allocation per game)."""
        if not (type(seed) is int and type(index) is int and 0 <= seed <= MAX_SEED and 0 <= index <= MAX_SEED):
            seed, index = check_seed(seed), check_seed(index, "board index")
        reset_game(self.view, self.truth, self.labels, self.hit, self.counters, self.log, self.perm, self.spec.mines,
               seed, index)  # fmt: skip

    @property
    def status(self) -> GameStatus:
        if self.counters[EXPLODED] >= 0:
            return GameStatus.LOST
        return GameStatus.WON if self.counters[LEFT] == 0 else GameStatus.PLAYING

    @property
    def moves(self) -> int:
        return int(self.counters[MOVES])

    @property
    def guesses(self) -> int:
        return int(self.counters[GUESSES])

    def move_log(self) -> np.ndarray | None:
        """A copy of the moves so far (``kernels.log_move``'s form); None when not recording or overflowed."""
        return log_copy(self.log)

    def figures(self) -> tuple[bool, int, int, int, int, int, int, int, int, int]:
        """``(won, moves, reveals, flags, chords, guesses, 3BV, 3BV solved, cells revealed, first
        click's flat cell or -1)``: ``stats`` without building its object."""
        return _figures(self.view, self.labels, self.counters)

    def stats(self) -> GameStats:
        """The figures ``Game.stats`` gives for the same moves."""
        _, moves, reveals, flags, chords, _, bbbv, solved, revealed, first = self.figures()
        return GameStats(
            status=self.status,
            rule=self.rule,
            first_click=divmod(first, self.width) if first >= 0 else None,
            moves=moves,
            reveals=reveals,
            flags=flags,
            chords=chords,
            revealed_cells=revealed,
            bbbv=bbbv,
            bbbv_solved=solved,
        )


numba_cache.stamp_dependencies(sys.modules[__name__], [Path(kernels.__file__), Path(__file__)])
