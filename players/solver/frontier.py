"""The frontier of a position: the covered cells the revealed numbers constrain, as a
``ConstraintSystem`` (one equation per number), and the unconstrained rest (docs/solver.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from engine import COVERED, FLAGGED
from players.solver.errors import InconsistentPositionError

__all__ = [
    "MAX_ARITY",
    "ConstraintSystem",
    "Frontier",
    "check_grid",
    "extract_frontier",
    "split_components",
    "substitute",
]

#: A number has at most 8 neighbours, so a constraint has at most 8 cells.
MAX_ARITY = 8

_DR = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)
_DC = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)


def _where(flat: int, width: int) -> str:
    r, c = divmod(int(flat), width)
    return f"({r}, {c})"


@dataclass(frozen=True, slots=True)
class ConstraintSystem:
    """Distinct rows over 0/1 unknowns: the cells ``constraints[i]`` (ids into ``cells``, the flat
    board indices ascending; -1 padded) hold ``rhs[i]`` mines; ``sources[i]``, a number giving it."""

    shape: tuple[int, int]
    cells: np.ndarray
    constraints: np.ndarray
    rhs: np.ndarray
    sources: np.ndarray

    @property
    def n_cells(self) -> int:
        return int(self.cells.shape[0])

    @property
    def n_constraints(self) -> int:
        return int(self.rhs.shape[0])

    def matrix(self) -> np.ndarray:
        """The dense ``(m, n)`` 0/1 int64 coefficient matrix."""
        a = np.zeros((self.n_constraints, self.n_cells), dtype=np.int64)
        rows, slots = np.nonzero(self.constraints >= 0)
        a[rows, self.constraints[rows, slots]] = 1
        return a


@dataclass(frozen=True, slots=True)
class Frontier:
    """A position as the solver sees it: ``system``, the other covered unflagged cells (flat), the
    flags (trusted as mines) and the mines left (``None`` without a total)."""

    system: ConstraintSystem
    unconstrained: np.ndarray
    flags: np.ndarray
    mines_left: int | None

    @property
    def shape(self) -> tuple[int, int]:
        return self.system.shape

    @property
    def n_unconstrained(self) -> int:
        return int(self.unconstrained.shape[0])


def check_grid(grid: np.ndarray) -> np.ndarray:
    """Validate an observation grid and return it as a C-contiguous int8 (height, width) array."""
    g = np.asarray(grid)
    if g.ndim != 2 or g.shape[0] < 1 or g.shape[1] < 1:
        raise ValueError(f"an observation grid is a non-empty 2-D array; got shape {g.shape}")
    if not np.issubdtype(g.dtype, np.integer):
        raise ValueError(f"an observation grid holds integers (int8 codes); got dtype {g.dtype}")
    if g.size and (g.min() < FLAGGED or g.max() > 8):
        bad = np.argwhere((g < FLAGGED) | (g > 8))[0]
        raise ValueError(
            f"cell ({bad[0]}, {bad[1]}) holds {int(g[bad[0], bad[1]])}; an observation cell is "
            f"{int(COVERED)} (covered), {int(FLAGGED)} (flagged) or a revealed number 0-8"
        )
    return np.ascontiguousarray(g, dtype=np.int8)


def _normalise(
    rows: np.ndarray, rhs: np.ndarray, sources: np.ndarray, width: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sort each row's ids, sort the rows, merge identical ones (checking their counts agree)."""
    if rows.shape[0] == 0:
        return rows.astype(np.int32).reshape(0, MAX_ARITY), rhs.astype(np.int64), sources.astype(np.int64)
    big = np.iinfo(np.int32).max
    keyed = np.sort(np.where(rows < 0, big, rows), axis=1)
    order = np.lexsort(keyed.T[::-1])
    keyed, rhs, sources = keyed[order], rhs[order], sources[order]
    rows = np.where(keyed == big, -1, keyed).astype(np.int32)
    repeat = np.zeros(rows.shape[0], dtype=bool)
    repeat[1:] = (rows[1:] == rows[:-1]).all(axis=1)
    if repeat.any():
        clash = np.flatnonzero(repeat[1:] & (rhs[1:] != rhs[:-1])) + 1
        if clash.size:
            i = int(clash[0])
            raise InconsistentPositionError(
                f"the numbers at {_where(sources[i - 1], width)} and {_where(sources[i], width)} see the same "
                f"covered cells but need {int(rhs[i - 1])} and {int(rhs[i])} mines there"
            )
        keep = ~repeat
        rows, rhs, sources = rows[keep], rhs[keep], sources[keep]
    return rows, rhs.astype(np.int64), sources.astype(np.int64)


def extract_frontier(grid: np.ndarray, mines: int | None = None) -> Frontier:
    """The frontier of an observation grid with ``mines`` in total (vectorised numpy); raises
    ``InconsistentPositionError`` when a number or the mine count cannot be satisfied."""
    g = check_grid(grid)
    height, width = g.shape
    flat = g.reshape(-1)
    covered = flat == COVERED
    flagged = flat == FLAGGED

    numbers = np.flatnonzero(flat >= 0)
    rr = numbers[:, None] // width + _DR
    cc = numbers[:, None] % width + _DC
    inside = (rr >= 0) & (rr < height) & (cc >= 0) & (cc < width)
    nb = np.where(inside, rr * width + cc, 0)
    nb_covered = inside & covered[nb]
    need = flat[numbers].astype(np.int64) - (inside & flagged[nb]).sum(axis=1)
    free = nb_covered.sum(axis=1)
    bad = np.flatnonzero((need < 0) | (need > free))
    if bad.size:
        i = int(bad[0])
        value = int(flat[numbers[i]])
        if need[i] < 0:
            why = f"has {value - int(need[i])} flags around it"
        else:
            why = f"has only {int(free[i])} covered unflagged neighbours for its {int(need[i])} unflagged mines"
        raise InconsistentPositionError(f"the {value} at {_where(numbers[i], width)} {why}")

    keep = free > 0
    rows_flat = np.where(nb_covered[keep], nb[keep], -1)
    seen = np.zeros(height * width, dtype=bool)
    seen[rows_flat[rows_flat >= 0]] = True
    cells = np.flatnonzero(seen).astype(np.int64)
    local = np.full(height * width, -1, dtype=np.int64)
    local[cells] = np.arange(cells.shape[0])
    rows = np.where(rows_flat >= 0, local[np.maximum(rows_flat, 0)], -1)
    constraints, rhs, sources = _normalise(rows, need[keep], numbers[keep], width)
    system = ConstraintSystem((height, width), cells, constraints, rhs, sources)

    unconstrained = np.flatnonzero(covered & (local < 0)).astype(np.int64)
    flags = np.flatnonzero(flagged).astype(np.int64)
    mines_left = None
    if mines is not None:
        mines_left = int(mines) - int(flags.shape[0])
        if mines_left < 0:
            raise InconsistentPositionError(f"{flags.shape[0]} flags are placed but the board has only {mines} mines")
        n_free = cells.shape[0] + unconstrained.shape[0]
        if mines_left > n_free:
            raise InconsistentPositionError(
                f"{mines_left} unflagged mines do not fit in the {n_free} covered unflagged cells"
            )
    return Frontier(system, unconstrained, flags, mines_left)


def substitute(system: ConstraintSystem, values: np.ndarray) -> ConstraintSystem:
    """Drop the cells with a value (0 safe, 1 mine; -1 unknown): mines lower their rows' counts,
    rows left empty go. Every unknown cell stays in some row."""
    values = np.asarray(values)
    rows = system.constraints
    valid = rows >= 0
    v = np.where(valid, values[np.maximum(rows, 0)], -2)
    rhs = system.rhs - (v == 1).sum(axis=1)
    unknown = v == -1
    length = unknown.sum(axis=1)
    bad = np.flatnonzero((rhs < 0) | (rhs > length))
    if bad.size:
        i = int(bad[0])
        raise InconsistentPositionError(
            f"the number at {_where(system.sources[i], system.shape[1])} cannot be satisfied: after the "
            f"deduced cells it needs {int(rhs[i])} mines among {int(length[i])} cells"
        )
    live = length > 0
    keep = values == -1
    new_id = np.cumsum(keep) - 1
    new_rows = np.where(unknown[live], new_id[np.maximum(rows[live], 0)], -1)
    constraints, rhs, sources = _normalise(new_rows, rhs[live], system.sources[live], system.shape[1])
    return ConstraintSystem(system.shape, system.cells[keep], constraints, rhs, sources)


@njit(cache=True)
def _component_labels(constraints: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """Union-find over cells that share a row; labels numbered by their smallest cell."""
    parent = np.arange(n)
    for i in range(constraints.shape[0]):
        a = constraints[i, 0]
        for s in range(1, constraints.shape[1]):
            b = constraints[i, s]
            if b < 0:
                break
            ra = a
            while parent[ra] != ra:
                ra = parent[ra]
            rb = b
            while parent[rb] != rb:
                parent[rb] = parent[parent[rb]]
                rb = parent[rb]
            if ra != rb:
                if ra < rb:
                    parent[rb] = ra
                else:
                    parent[ra] = rb
            a = min(ra, rb)
    labels = np.empty(n, dtype=np.int64)
    count = 0
    for x in range(n):
        r = x
        while parent[r] != r:
            r = parent[r]
        if r == x:
            labels[x] = count
            count += 1
        else:
            labels[x] = labels[r]
    return labels, count


def split_components(system: ConstraintSystem) -> list[ConstraintSystem]:
    """Independent pieces (cells linked when a row holds both), by smallest cell, ids ascending:
    their solutions combine freely, so enumeration is exponential in the largest piece only."""
    n = system.n_cells
    if n == 0:
        return []
    labels, count = _component_labels(system.constraints, n)
    if count == 1:
        return [system]
    cell_order = np.argsort(labels, kind="stable")
    sizes = np.bincount(labels, minlength=count)
    starts = np.concatenate(([0], np.cumsum(sizes)))
    position = np.empty(n, dtype=np.int64)
    position[cell_order] = np.arange(n) - starts[labels[cell_order]]
    rows = system.constraints
    remapped = np.where(rows >= 0, position[np.maximum(rows, 0)], -1).astype(np.int32)
    row_labels = labels[rows[:, 0]]
    row_order = np.argsort(row_labels, kind="stable")
    row_starts = np.concatenate(([0], np.cumsum(np.bincount(row_labels, minlength=count))))
    pieces = []
    for k in range(count):
        cells = system.cells[cell_order[starts[k] : starts[k + 1]]]
        sel = row_order[row_starts[k] : row_starts[k + 1]]
        pieces.append(ConstraintSystem(system.shape, cells, remapped[sel], system.rhs[sel], system.sources[sel]))
    return pieces
