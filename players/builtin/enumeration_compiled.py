"""Acceleration of ``EnumerationPlayer.play``: whole games in compiled code, for the arena's
in-process runs; held equal to it move for move by ``tests/players/test_enumeration_compiled.py``.
numpy's floating-point steps run in numpy's own loops (``numpy_loops``), or in Python when those are
not found; anything unusual declines. See docs/solver.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from engine import BoardSpec, FirstClick, kernels, numba_cache, rng
from engine import compiled_game as cg
from engine.compiled_game import (
    FIGURES,
    CompiledGame,
    cpu_ns,
    figures_into,
    game_over,
    play_cells,
    reset_game,
    reveal,
    wall_ns,
)
from engine.kernels import MOVES
from players import deduction
from players.builtin import common
from players.builtin.common import ThreadingOptions, guess_candidates
from players.deduction import certain_cells
from players.solver import analyze, fast, numpy_loops
from players.solver.analysis import (
    _FAST_SEARCH_NODES,
    _LOG_TABLE,
    DEFAULT_RREF_MIN_CELLS,
    fast_prepared,
    piece_probabilities,
    unconstrained_probability,
)
from players.solver.enumeration import DEFAULT_NODE_LIMIT, EXACT_CELLS
from players.solver.fast import finish, guess_parts, prepare
from players.solver.numpy_loops import guess_probabilities

__all__ = ["BOARD_COLUMNS", "CPU_NS", "DONE", "WALL_NS", "play_boards", "play_whole_game"]

#: The compiled calls' answers; ``GUESS``: needs numpy's arithmetic, ``GENERAL``: the solver from Python.
OVER, ANALYSE, DECLINE, GUESS, GENERAL = 0, 1, -1, 2, 3
START = 4  # ``_analyse_on`` on a game at its start
#: ``_run`` from a position Python finished (``_finish_and_decide``).
RESUME = 5
#: ``play_boards``' columns after ``CompiledGame.figures``' ten: the game's CPU and wall nanoseconds, and
#: whether it was played to its end here (0: the arena plays that board again move by move).
CPU_NS, WALL_NS, DONE = FIGURES, FIGURES + 1, FIGURES + 2
BOARD_COLUMNS = FIGURES + 3
#: numpy's exp is exactly 1 at 0 and 0 at -inf (for any SIMD width): ``_exact_shares`` may copy terms.
_EXACT_SHARES = all(
    (np.exp(np.zeros(n)) == 1.0).all() and (np.exp(np.full(n, -np.inf)) == 0.0).all() for n in range(1, 34)
)
#: Whether a guess's shares go through numpy's own loops in compiled code (``numpy_loops``); else a guess
#: whose shares are not exactly 0 or 1 is handed to Python. Read at each call (a benchmark switches it).
NUMPY_LOOPS = numpy_loops.AVAILABLE


@njit(cache=True)
def _advance(game: tuple) -> int:
    """Play ``EnumerationPlayer.play``'s answers while they need no analysis (``game``: ``_state``)."""
    view, truth, labels, perm, height, width, mines, rule, stack, hit, counters, first, first_guess, limit = game[:14]
    log, grid = game[14], game[15]
    while not game_over(counters):
        first_move, safe, mine = certain_cells(grid)
        if first_move:
            ok = reveal(view, truth, labels, perm, height, width, mines, rule, stack, counters, first, first_guess, log)
        elif safe.shape[1] or mine.shape[1]:
            ok = play_cells(view, truth, height, width, safe, mine, np.bool_(False), stack, hit, counters, log)
        else:
            return ANALYSE
        if not ok or (not game_over(counters) and counters[MOVES] > limit):
            return DECLINE
    return OVER


@njit(cache=True)
def _decide(
    game: tuple,
    probabilities: np.ndarray,
    safe: np.ndarray,
    mine: np.ndarray,
    frontier: np.ndarray,
    unconstrained: np.ndarray,
    u: float,
    player_rng: np.ndarray,
) -> int:
    """Play an analysed position's certain cells, else ``EnumerationPlayer._guess``'s draw; then ``_advance``."""
    view, truth, height, width = game[0], game[1], game[4], game[5]
    stack, hit, counters, limit, log = game[8], game[9], game[10], game[13], game[14]
    if safe.shape[1] or mine.shape[1]:
        ok = play_cells(view, truth, height, width, safe, mine, np.bool_(False), stack, hit, counters, log)
    else:
        choices = guess_candidates(probabilities, frontier, unconstrained, u, height, width, np.bool_(False))
        if choices.shape[0] == 0:
            return DECLINE
        cell = choices[rng.draw_below(player_rng, choices.shape[0])]
        guess = np.empty((2, 1), np.int64)
        guess[0, 0] = cell // width
        guess[1, 0] = cell % width
        ok = play_cells(view, truth, height, width, guess, mine, np.bool_(True), stack, hit, counters, log)
    if not ok or (not game_over(counters) and counters[MOVES] > limit):
        return DECLINE
    return _advance(game)


@njit(cache=True)
def _exact_shares(exponents: np.ndarray, ratios: np.ndarray, spans: np.ndarray, feasible_at: np.ndarray,
                  rest: np.ndarray, u_state: int, n_unconstrained: int) -> tuple:  # fmt: skip
    """``analysis.piece_probabilities`` and ``unconstrained_probability`` when every share is exactly
    1 or 0, one 1 per sum (so no rounding); ``(False, ...)`` otherwise."""
    piece_p = np.empty(ratios.shape[0], np.float64)  # room enough: a component's cells <= its ratios
    u = np.nan
    at = 0
    for k in range(spans.shape[0] // 6):
        a, b, c, cols = spans[6 * k], spans[6 * k + 1], spans[6 * k + 2], spans[6 * k + 5]
        one = -1
        for i in range(a, b):
            if exponents[i] == 0.0 and one < 0:
                one = i - a
            elif exponents[i] != -np.inf:
                return False, piece_p, u
        if one < 0:
            return False, piece_p, u
        for j in range(cols):
            piece_p[at + j] = ratios[c + one * cols + j]
        at += cols
    if n_unconstrained:
        if u_state >= 0:
            u = float(u_state)
        else:
            one = -1
            for i in range(feasible_at.shape[0]):
                e = exponents[feasible_at[i]]
                if e == 0.0 and one < 0:
                    one = i
                elif e != -np.inf:
                    return False, piece_p, u
            if one < 0:
                return False, piece_p, u
            u = float(rest[one]) / n_unconstrained
    return True, piece_p[:at], u


@njit(cache=True)
def _analyse_on(
    game: tuple,
    status: int,
    player_rng: np.ndarray,
    log_table: np.ndarray,
    probe: int,
    rref_min_cells: int,
    exact_cells: int,
    exact_shares: bool,
    loops: bool,
) -> tuple:
    """While the position needs the solver: ``fast.prepare``, its certain cells or guesses played
    (the shares exact, or with numpy's loops when ``loops``), ``_advance``; until ``GUESS`` (with
    ``fast.guess_parts``: numpy's arithmetic from Python), ``GENERAL`` or the end.
    The one compiled entry calling ``prepare``: numba compiles a callee into each entry."""
    if status == START:
        status = _advance(game)
    height, width = game[4], game[5]
    grid = game[0].reshape(height, width)
    while status == ANALYSE and probe >= 0:
        out = prepare(grid, game[6], np.bool_(False), np.bool_(True), rref_min_cells, probe, exact_cells, log_table)
        if not out[0] or not out[1]:
            break
        parts = guess_parts(out, height * width)
        probabilities, state, p_cells, piece_state, unconstrained, u_state, cells = parts[:7]
        unknown = np.full(p_cells.shape[0], np.nan)
        safe, mine = finish(probabilities, state, p_cells, unknown, piece_state, unconstrained, np.nan, u_state, width)
        u = np.nan
        if not safe.shape[1] and not mine.shape[1]:
            exponents, ratios, spans, feasible_at, rest = parts[7:]
            n = unconstrained.shape[0]
            exact = False
            if exact_shares:
                exact, piece_p, u = _exact_shares(exponents, ratios, spans, feasible_at, rest, u_state, n)
            if not exact:
                if not loops:
                    return GUESS, parts
                piece_p, u = guess_probabilities(exponents, ratios, spans, feasible_at, rest, u_state, n)
            finish(probabilities, state, p_cells, piece_p, piece_state, unconstrained, u, u_state, width)
        status = _decide(game, probabilities, safe, mine, cells, unconstrained, u, player_rng)
    return (GENERAL if status == ANALYSE else status), None  # not empty arrays: Python would box each


@njit(cache=True)
def _finish_and_decide(game: tuple, pending: tuple, frontier: np.ndarray, player_rng: np.ndarray) -> int:
    """``fast.finish`` of a position (``fast_prepared``'s ``pending``), then ``_decide``."""
    probabilities, state, p_cells, piece_p, piece_state, unconstrained, u, u_state, n_cols = pending
    safe, mine = finish(probabilities, state, p_cells, piece_p, piece_state, unconstrained, u, u_state, n_cols)
    return _decide(game, probabilities, safe, mine, frontier, unconstrained, u, player_rng)


@njit(cache=True)
def _board_done(
    game: tuple, i: int, figures: np.ndarray, logs: np.ndarray, log_ends: np.ndarray, clock: np.ndarray
) -> None:
    """Board ``i`` of ``play_boards`` is over: its figures, its move log appended to ``logs`` (ending at
    ``log_ends[i]``; a log that overflowed leaves the board not done), its times."""
    view, labels, counters, log = game[0], game[2], game[10], game[14]
    at = log_ends[i - 1] if i > 0 else 0
    log_ends[i] = at
    row = figures[i]
    figures_into(view, labels, counters, row)
    row[DONE] = 1
    if log.shape[0]:
        end = log[0]
        if end < 1:
            row[DONE] = 0
        else:
            logs[at : at + end] = log[:end]
            log_ends[i] = at + end
    row[CPU_NS] = cpu_ns(clock) - row[CPU_NS]
    row[WALL_NS] = wall_ns(clock) - row[WALL_NS]


@njit(cache=True)
def _run(
    game: tuple,
    status: int,
    pending: tuple,
    frontier: np.ndarray,
    player_rng: np.ndarray,
    seed: int,
    boards: np.ndarray,
    i: int,
    name_key: int,
    figures: np.ndarray,
    logs: np.ndarray,
    log_ends: np.ndarray,
    clock: np.ndarray,
    log_table: np.ndarray,
    probe: int,
    rref_min_cells: int,
    exact_cells: int,
    exact_shares: bool,
    loops: bool,
    loop: bool,
) -> tuple:
    """The one compiled entry that plays (numba compiles ``prepare`` into each entry, and loading each copy
    costs a process's start-up a tenth of a second). Goes on with the game in ``game`` from ``status``:
    ``START`` (just reset, ``player_rng`` its generator), ``RESUME`` (``_finish_and_decide`` of ``pending``
    and ``frontier``: a position Python finished), ``ANALYSE``, or ``OVER``; then, with ``loop``, the game
    being board ``i`` of ``boards``, records it (``_board_done``) and plays ``boards[i + 1:]`` one after the
    other, each timed from its reset. Returns at the first game that needs Python: ``(index, status,
    _analyse_on's parts, generator)``; else ``(len(boards), OVER, None, generator)`` (without ``loop``:
    ``(i, OVER, ...)``)."""
    parts = None
    if status == RESUME:
        status = _finish_and_decide(game, pending, frontier, player_rng)
    if status == START or status == ANALYSE:  # noqa: SIM109 (numba's types)
        status, parts = _analyse_on(game, status, player_rng, log_table, probe, rref_min_cells, exact_cells,
                                    exact_shares, loops)  # fmt: skip
    if status != OVER or not loop:
        return i, status, parts, player_rng
    view, truth, labels, perm, mines, hit, counters, log = (game[0], game[1], game[2], game[3], game[6], game[9],
                                                            game[10], game[14])  # fmt: skip
    _board_done(game, i, figures, logs, log_ends, clock)
    for k in range(i + 1, boards.shape[0]):
        figures[k, CPU_NS] = cpu_ns(clock)
        figures[k, WALL_NS] = wall_ns(clock)
        reset_game(view, truth, labels, hit, counters, log, perm, mines, seed, boards[k])
        player_rng = rng.player_state(rng.player_seed_words(seed, boards[k], name_key))
        status, parts = _analyse_on(game, np.int64(START), player_rng, log_table, probe, rref_min_cells, exact_cells,
                                    exact_shares, loops)  # fmt: skip
        if status != OVER:
            return k, status, parts, player_rng
        _board_done(game, k, figures, logs, log_ends, clock)
    return boards.shape[0], OVER, None, player_rng


def _cells(pairs: list[tuple[int, int]]) -> np.ndarray:
    return np.array(pairs, dtype=np.int64).reshape(-1, 2).T.copy()


_loaded = False


def _load_kernels() -> None:
    """Load every kernel once per process, on a game sure to guess (2x2, one mine), so that no real
    game is billed for it: the game, and the guess that numpy's arithmetic finishes (which the 2x2 game's
    exact shares would skip: forced here, handed to Python and, when found, through numpy's loops)."""
    global _loaded
    if not _loaded:
        _loaded = True
        words = np.zeros(4, np.uint64)
        options = ThreadingOptions(parallel=False, parallel_threshold=1 << 30)
        game = CompiledGame(BoardSpec(2, 2, 1), FirstClick.SAFE, 0, 0, record=True)
        play_whole_game(game, words, 100, options)
        game.reset(0, 0)
        state, probe = _prepared(game, 100, options)
        player_rng = rng.player_state(words)
        solver = (_LOG_TABLE, probe, DEFAULT_RREF_MIN_CELLS, EXACT_CELLS, False, False)
        _, status, parts, player_rng = _run(state, START, *_nothing_pending(), player_rng, 0, *_NO_BOARDS, *solver,
                                            False)  # fmt: skip
        status, pending, frontier = _python_step(game, state, probe, status, parts, player_rng, options)
        _run(state, status, pending, frontier, player_rng, 0, *_NO_BOARDS, *solver, False)
        if NUMPY_LOOPS:
            game.reset(0, 0)
            solver = (_LOG_TABLE, probe, DEFAULT_RREF_MIN_CELLS, EXACT_CELLS, False, True)
            _run(state, START, *_nothing_pending(), rng.player_state(words), 0, *_NO_BOARDS, *solver, False)


def _state(game: CompiledGame, move_limit: int) -> tuple:
    """What every compiled call starts with: the game, the first click, the move limit, the move log."""
    height, width = game.height, game.width
    first_row, first_col = (min(3, height - 1), min(3, width - 1)) if game.rule is FirstClick.OPENING else (0, 0)
    grid = game.view.reshape(height, width)
    grid.flags.writeable = False  # the rules see it as players see an observation's: one compiled signature
    return (game.view, game.truth, game.labels, game.perm, height, width, game.spec.mines, game.rule_code, game.stack,
            game.hit, game.counters, first_row * width + first_col, game.rule is FirstClick.NONE, move_limit,
            game.log, grid)  # fmt: skip


#: The last game's ``_state`` and search probe (game, move limit, state, parallel threshold, probe): the arena
#: resets one ``CompiledGame`` in place game after game.
_last: tuple = (None, 0, (), 0, ())
#: ``_run``'s board arguments when it plays one game (seed, boards, index, name key, figures, logs, ends, clock).
_NO_BOARDS = (np.zeros(0, np.int64), 0, 0, np.zeros((1, BOARD_COLUMNS), np.int64), np.zeros(0, np.int32),
              np.zeros(1, np.int64), np.zeros(2, np.int64))  # fmt: skip


def _nothing_pending() -> tuple:
    """``_run``'s ``pending`` and ``frontier`` when it has none (their types, no values)."""
    f, i1, i8 = np.zeros(0), np.zeros(0, np.int8), np.zeros(0, np.int64)
    return (f, i1, i8, f, i1, i8, 0.0, 0, 0), i8


def _prepared(game: CompiledGame, move_limit: int, options: ThreadingOptions) -> tuple[tuple, int]:
    """``game``'s ``_state`` and search probe, kept from the last call while the game, the limit and the
    options' threshold are the same."""
    global _last
    if not _loaded:
        _load_kernels()
    threshold = options.parallel_threshold
    if _last[0] is game and _last[1] == move_limit and _last[3] == threshold:
        return _last[2], _last[4]
    state = _state(game, move_limit)
    probe = min(threshold, DEFAULT_NODE_LIMIT, _FAST_SEARCH_NODES)
    _last = (game, move_limit, state, threshold, probe)
    return state, probe


def play_whole_game(game: CompiledGame, seed_words: np.ndarray, move_limit: int, options: ThreadingOptions) -> bool:
    """Play ``game`` to its end as ``EnumerationPlayer`` with ``options`` would; False to decline."""
    state, probe = _prepared(game, move_limit, options)
    player_rng = rng.player_state(seed_words)
    solver = (_LOG_TABLE, probe, DEFAULT_RREF_MIN_CELLS, EXACT_CELLS, _EXACT_SHARES, NUMPY_LOOPS)
    status = START
    pending, frontier = _nothing_pending()
    while True:
        _, status, parts, player_rng = _run(state, status, pending, frontier, player_rng, 0, *_NO_BOARDS, *solver,
                                            False)  # fmt: skip
        if status in (OVER, DECLINE):  # most Beginner games end in the first call
            return status == OVER
        status, pending, frontier = _python_step(game, state, probe, status, parts, player_rng, options)
        if status in (OVER, DECLINE):
            return status == OVER


def _guess_pending(parts: tuple, width: int) -> tuple[tuple, np.ndarray]:
    """A ``GUESS``'s pieces finished with numpy's arithmetic, as ``fast_prepared`` takes it: ``fast.finish``'s
    arguments (``pending``) and the frontier's cells."""
    probabilities, state, p_cells, piece_state, unconstrained, u_state, cells = parts[:7]
    exponents, ratios, spans, feasible_at, rest = parts[7:]
    shares = np.exp(exponents)
    piece_p = piece_probabilities(shares, ratios, spans.tolist())
    u = unconstrained_probability(shares, feasible_at, rest, u_state, unconstrained.shape[0])
    return (probabilities, state, p_cells, piece_p, piece_state, unconstrained, u, u_state, width), cells


def _python_step(
    game: CompiledGame, state: tuple, probe: int, status: int, parts: tuple, player_rng: np.ndarray,
    options: ThreadingOptions,
) -> tuple[int, tuple, np.ndarray]:  # fmt: skip
    """What Python does for a game ``_run`` left to it (``GUESS``: numpy's arithmetic; ``GENERAL``: the
    solver from Python): ``(RESUME, pending, frontier)`` for ``_run`` to go on with, or the status that
    ``_decide`` left (``ANALYSE``, ``OVER`` or ``DECLINE``) with nothing pending."""
    height, width, mines = state[4], state[5], state[6]
    if status == GUESS:
        pending, cells = _guess_pending(parts, width)
        return RESUME, pending, cells
    if status != GENERAL:
        return DECLINE, *_nothing_pending()
    grid = game.view.reshape(height, width)
    prepared = fast_prepared(grid, mines, False, True, DEFAULT_RREF_MIN_CELLS, probe, EXACT_CELLS)
    if prepared is not None:
        pending, frontier, _ = prepared
        return RESUME, pending, frontier
    result = analyze(grid, mines, weighted=False, **options.threading())
    status = _decide(state, result.probabilities.reshape(-1), _cells(result.safe), _cells(result.mines),
                     result.frontier.system.cells, result.frontier.unconstrained, result.unconstrained_probability,
                     player_rng)  # fmt: skip
    return status, *_nothing_pending()


def play_boards(
    game: CompiledGame,
    seed: int,
    boards: np.ndarray,
    name_key: int,
    move_limit: int,
    options: ThreadingOptions,
    figures: np.ndarray,
    logs: np.ndarray,
    log_ends: np.ndarray,
) -> None:
    """``play_whole_game`` on each of ``boards`` (int64, each a valid board index of ``seed``) in turn, in
    ``game``'s arrays, the player's generator from ``name_key`` (the crc32 of its name): one compiled call
    for every run of games that needs no Python. Board ``i``'s row of ``figures`` (int64, ``BOARD_COLUMNS``
    wide) gets ``CompiledGame.figures`` (``won`` as 0 or 1), its CPU and wall nanoseconds from its reset
    (``time.thread_time_ns``' and ``time.perf_counter_ns``' clocks) and ``DONE``; when ``game`` records,
    its move log is ``logs[log_ends[i - 1]:log_ends[i]]`` (``log_ends[-1]``: 0), a whole log with its own
    header slot (``logs`` holds ``len(boards)`` times ``game.log``). A board not ``DONE`` (declined, failed,
    or its log overflowed) is the arena's to play again move by move."""
    if not boards.shape[0]:
        return
    state, probe = _prepared(game, move_limit, options)
    solver = (_LOG_TABLE, probe, DEFAULT_RREF_MIN_CELLS, EXACT_CELLS, _EXACT_SHARES, NUMPY_LOOPS)
    clock = np.zeros(2, np.int64)
    n = boards.shape[0]
    # Board 0 starts as every later board does inside the loop: timed from its reset.
    figures[0, CPU_NS], figures[0, WALL_NS] = time.thread_time_ns(), time.perf_counter_ns()
    game.reset(seed, int(boards[0]))
    player_rng = rng.player_state(rng.player_seed_words(seed, int(boards[0]), name_key))
    i, status = 0, START
    pending, frontier = _nothing_pending()
    while i < n:
        i, status, parts, player_rng = _run(state, status, pending, frontier, player_rng, seed, boards, i, name_key,
                                            figures, logs, log_ends, clock, *solver, True)  # fmt: skip
        if i == n:
            break
        try:
            status, pending, frontier = _python_step(game, state, probe, status, parts, player_rng, options)
        except Exception:  # as play_compiled's caller takes it: the move-by-move game says what went wrong
            status = DECLINE
        if status == DECLINE:
            figures[i, DONE] = 0
            log_ends[i] = log_ends[i - 1] if i > 0 else 0
            i += 1
            if i < n:  # the next board, started here as the loop would
                figures[i, CPU_NS], figures[i, WALL_NS] = time.thread_time_ns(), time.perf_counter_ns()
                game.reset(seed, int(boards[i]))
                player_rng = rng.player_state(rng.player_seed_words(seed, int(boards[i]), name_key))
                status = START
                pending, frontier = _nothing_pending()


numba_cache.stamp_dependencies(
    sys.modules[__name__],
    [Path(m.__file__) for m in (kernels, cg, rng, fast, deduction, common, numpy_loops)] + [Path(__file__)],
)
