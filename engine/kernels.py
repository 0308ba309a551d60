"""The rules, compiled: pure functions over flat row-major arrays, ``truth`` (0-8, ``MINE``: hidden)
and ``view`` (``COVERED``, ``FLAGGED`` or 0-8: what a player sees). No allocation on the hot path:
callers pass a scratch ``stack`` of ``height * width`` int64.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "COVERED",
    "FLAGGED",
    "LOG_OVERFLOW",
    "MINE",
    "NO_LOG",
    "RULE_CODES",
    "bbbv_solved",
    "cell_rows",
    "chord_cells",
    "label_openings",
    "log_copy",
    "log_move",
    "neighbour_numbers",
    "new_log",
    "place_mines",
    "play_rows",
    "reveal_cells",
]

COVERED = np.int8(-1)
FLAGGED = np.int8(-2)
MINE = np.int8(-3)

RULE_SAFE, RULE_OPENING, RULE_NONE, RULE_WINDOWS = 0, 1, 2, 3
RULE_CODES = {"safe": RULE_SAFE, "opening": RULE_OPENING, "none": RULE_NONE, "windows": RULE_WINDOWS}

# Result codes of reveal_cells / chord_cells besides a count of newly revealed cells (>= 0).
HIT_MINE = -1
FLAGS_MISMATCH = -2
NOTHING_TO_CHORD = -3


@njit(cache=True)
def _excluded(cell, click, width, rule):
    """Whether ``rule`` keeps ``cell`` free of mines when the first click is ``click``."""
    if rule == RULE_SAFE:
        return cell == click
    if rule == RULE_OPENING:
        dr = cell // width - click // width
        dc = cell % width - click % width
        return -1 <= dr <= 1 and -1 <= dc <= 1
    return False


@njit(cache=True)
def place_mines(perm, height, width, mines, click, rule, is_mine):
    """Mark ``mines`` cells in ``is_mine`` (zeroed): the permutation's first cells the rule allows,
    uniform for any first click and shared by every player's board (docs/rules.md)."""
    placed = 0
    for i in range(perm.shape[0]):
        cell = perm[i]
        if _excluded(cell, click, width, rule):
            continue
        is_mine[cell] = 1
        placed += 1
        if placed == mines:
            break
    if rule == RULE_WINDOWS and is_mine[click] == 1:
        # Classic rule: the mine moves to the top-left-most free cell, scanning row by row.
        is_mine[click] = 0
        for cell in range(height * width):
            if cell != click and is_mine[cell] == 0:
                is_mine[cell] = 1
                break
    return placed


@njit(cache=True)
def neighbour_numbers(is_mine, height, width, truth):
    """Fill ``truth`` with each safe cell's count of adjacent mines, ``MINE`` on mines."""
    for r in range(height):
        for c in range(width):
            cell = r * width + c
            if is_mine[cell]:
                truth[cell] = MINE
                continue
            n = 0
            for rr in range(max(r - 1, 0), min(r + 2, height)):
                for cc in range(max(c - 1, 0), min(c + 2, width)):
                    n += is_mine[rr * width + cc]
            truth[cell] = n


@njit(cache=True)
def _open_around(view, truth, height, width, cell, stack, count):
    """Reveal the covered neighbours of ``cell``, appending them to ``stack`` from ``count`` on;
    returns the new count."""
    r = cell // width
    c = cell % width
    for rr in range(max(r - 1, 0), min(r + 2, height)):
        for cc in range(max(c - 1, 0), min(c + 2, width)):
            nb = rr * width + cc
            if view[nb] == COVERED:
                view[nb] = truth[nb]
                stack[count] = nb
                count += 1
    return count


@njit(cache=True)
def _flood(view, truth, height, width, stack, count):
    """Reveal outward from the zeros among the ``count`` cells just revealed on ``stack`` (flags stop
    it); every cell revealed is appended, so ``stack[:count]`` then holds all the move's cells."""
    i = 0
    while i < count:
        cell = stack[i]
        i += 1
        if truth[cell] == 0:
            count = _open_around(view, truth, height, width, cell, stack, count)
    return count


@njit(cache=True)
def reveal_cells(view, truth, height, width, cell, stack, log, guess):
    """Reveal one covered cell with flood fill: the count revealed (cells ``stack[:count]``) or
    ``HIT_MINE``. The move, marked ``guess``, goes to ``log`` (``log_move``)."""
    if truth[cell] == MINE:
        log_move(log, np.int64(0), guess, cell, stack, np.int64(0))
        return HIT_MINE
    view[cell] = truth[cell]
    stack[0] = cell
    count = 1 if truth[cell] != 0 else _flood(view, truth, height, width, stack, np.int64(1))
    log_move(log, np.int64(0), guess, cell, stack, count)
    return count


@njit(cache=True)
def chord_cells(view, truth, height, width, cell, stack, hit, log):
    """Reveal the covered neighbours of a number whose flags match it: the count (cells on
    ``stack``), ``HIT_MINE`` (a wrong flag loses; the mine in ``hit[0]``), ``FLAGS_MISMATCH`` or
    ``NOTHING_TO_CHORD``. A chord played goes to ``log``."""
    r = cell // width
    c = cell % width
    flags = 0
    covered = 0
    mine = -1  # the first covered mine in scan order: the one a wrong flag loses on
    for rr in range(max(r - 1, 0), min(r + 2, height)):
        for cc in range(max(c - 1, 0), min(c + 2, width)):
            nb = rr * width + cc
            if view[nb] == FLAGGED:
                flags += 1
            elif view[nb] == COVERED:
                covered += 1
                if truth[nb] == MINE and mine < 0:
                    mine = nb
    if flags != view[cell]:
        return FLAGS_MISMATCH
    if covered == 0:
        return NOTHING_TO_CHORD
    if mine >= 0:
        hit[0] = mine
        log_move(log, np.int64(3), np.bool_(False), cell, stack, np.int64(0))
        return HIT_MINE
    revealed = _open_around(view, truth, height, width, cell, stack, np.int64(0))
    revealed = _flood(view, truth, height, width, stack, revealed)
    log_move(log, np.int64(3), np.bool_(False), cell, stack, revealed)
    return revealed


@njit(cache=True)
def _fits_int32(cells):
    for i in range(cells.shape[0]):
        for j in range(cells.shape[1]):
            if cells[i, j] < -2147483648 or cells[i, j] > 2147483647:
                return False
    return True


@njit(cache=True)
def cell_rows(reveal, flag, guess):
    """``(ok, rows)``: action rows revealing the (2, k) cells ``reveal`` (marked ``guess``), then
    flagging the (2, m) cells ``flag``; not ok (no rows) when a value does not fit in int32."""
    k = reveal.shape[1]
    m = flag.shape[1]
    if not (_fits_int32(reveal) and _fits_int32(flag)):
        return False, np.zeros((0, 4), dtype=np.int32)
    rows = np.zeros((k + m, 4), dtype=np.int32)
    for i in range(k):
        rows[i, 1] = reveal[0, i]
        rows[i, 2] = reveal[1, i]
        rows[i, 3] = guess
    for i in range(m):
        rows[k + i, 0] = 1
        rows[k + i, 1] = flag[0, i]
        rows[k + i, 2] = flag[1, i]
    return True, rows


#: ``log[0]`` of a move log that ran out of room: the log is incomplete and must not be used.
LOG_OVERFLOW = -1


@njit(cache=True)
def log_move(log, kind, guess, cell, stack, opened):
    """Append a move to ``log`` (int32; empty: not recording; ``log[0]``: slots in use): ``kind
    + 4 * guess, cell, n`` and the ``n`` cells it opened, ``stack[:opened]``. A move that does not
    fit sets ``log[0]`` to ``LOG_OVERFLOW`` (the stored form: ``arena.results.records``)."""
    if log.shape[0] == 0:
        return
    end = log[0]
    if end < 1:
        return
    n = opened if opened > 0 else 0
    if end + 3 + n > log.shape[0]:
        log[0] = LOG_OVERFLOW
        return
    log[end] = kind + (4 if guess else 0)
    log[end + 1] = cell
    log[end + 2] = n
    for i in range(n):
        log[end + 3 + i] = stack[i]
    log[0] = end + 3 + n


#: The move log of a game that does not record (``engine.kernels.log_move`` writes nothing to it).
NO_LOG = np.zeros(0, dtype=np.int32)


def new_log(capacity: int) -> np.ndarray:
    """An empty move log with room for ``capacity`` int32 slots (``engine.kernels.log_move``)."""
    log = np.empty(max(1, capacity), dtype=np.int32)
    log[0] = 1
    return log


def log_copy(log: np.ndarray) -> np.ndarray | None:
    """The used part of a move log, or None for a game that does not record (or a log that overflowed)."""
    if log.shape[0] == 0 or log[0] < 1:
        return None
    return log[: log[0]].copy()


# Slots of the counters ``play_rows`` reads and updates (``Game.play_answer`` packs them).
MOVES, REVEALS, FLAGS, CHORDS, FLAGS_PLACED, LEFT, GUESSES, EXPLODED = range(8)


@njit(cache=True)
def play_rows(view, truth, height, width, rows, start, before, stack, hit, counters, log):
    """Acceleration of ``Game.play_answer``: the rows of one answer from ``start`` on, as ``Game.apply``
    plays them; returns the first row not played (one refused or not handled here is left to ``apply``)."""
    n = rows.shape[0]
    drawn = truth.shape[0] > 0
    for i in range(start, n):
        kind = rows[i, 0]
        r = rows[i, 1]
        c = rows[i, 2]
        if kind < 0 or kind > 3 or r < 0 or r >= height or c < 0 or c >= width:
            return i
        cell = r * width + c
        state = view[cell]
        if kind == 0:  # reveal
            if state != COVERED:
                if i > 0 and state >= 0 and before[cell] == COVERED:
                    continue  # opened by an earlier row of this answer
                return i
            if not drawn:
                return i
            counters[MOVES] += 1
            counters[REVEALS] += 1
            guess = rows[i, 3] != 0
            revealed = reveal_cells(view, truth, height, width, cell, stack, log, guess)
            if guess:
                counters[GUESSES] += 1
            if revealed == HIT_MINE:
                counters[EXPLODED] = cell
                return i + 1
        elif kind == 3:  # chord
            if state < 1:
                return i
            revealed = chord_cells(view, truth, height, width, cell, stack, hit, log)
            if revealed in (FLAGS_MISMATCH, NOTHING_TO_CHORD):
                return i
            counters[MOVES] += 1
            counters[CHORDS] += 1
            if revealed == HIT_MINE:
                counters[EXPLODED] = hit[0]
                return i + 1
        elif kind == 1:  # flag
            if state != COVERED:
                return i
            view[cell] = FLAGGED
            counters[MOVES] += 1
            counters[FLAGS] += 1
            counters[FLAGS_PLACED] += 1
            log_move(log, np.int64(1), np.bool_(False), cell, stack, np.int64(0))
            continue
        else:  # unflag
            if state != FLAGGED:
                return i
            view[cell] = COVERED
            counters[MOVES] += 1
            counters[FLAGS_PLACED] -= 1
            log_move(log, np.int64(2), np.bool_(False), cell, stack, np.int64(0))
            continue
        counters[LEFT] -= revealed
        if counters[LEFT] == 0:
            return i + 1
    return n


@njit(cache=True)
def label_openings(truth, height, width, labels, stack):
    """The 3BV (openings + numbers bordering no zero); ``labels``: opening ids, -1 on such numbers."""
    n = height * width
    for i in range(n):
        labels[i] = 0
    openings = 0
    for start in range(n):
        if truth[start] != 0 or labels[start] != 0:
            continue
        openings += 1
        labels[start] = openings
        stack[0] = start
        top = 1
        while top > 0:
            top -= 1
            cell = stack[top]
            r = cell // width
            c = cell % width
            for rr in range(max(r - 1, 0), min(r + 2, height)):
                for cc in range(max(c - 1, 0), min(c + 2, width)):
                    nb = rr * width + cc
                    if truth[nb] == 0 and labels[nb] == 0:
                        labels[nb] = openings
                        stack[top] = nb
                        top += 1
    isolated = 0
    for cell in range(n):
        if truth[cell] <= 0:
            continue
        r = cell // width
        c = cell % width
        borders_zero = False
        for rr in range(max(r - 1, 0), min(r + 2, height)):
            for cc in range(max(c - 1, 0), min(c + 2, width)):
                if truth[rr * width + cc] == 0:
                    borders_zero = True
        if not borders_zero:
            labels[cell] = -1
            isolated += 1
    return openings + isolated


@njit(cache=True)
def bbbv_solved(view, labels, openings):
    """How much of the 3BV the revealed cells account for: openings opened plus isolated numbers."""
    seen = np.zeros(openings + 1, dtype=np.uint8)
    solved = 0
    for cell in range(view.shape[0]):
        label = labels[cell]
        if view[cell] < 0:
            continue
        if label == -1:
            solved += 1
        elif label > 0 and seen[label] == 0:
            seen[label] = 1
            solved += 1
    return solved
