"""What revealing one cell would show, and what the position would be worth afterwards: exact
what-if reveals on top of the base ``Analysis``, re-counting only the piece the new number touches
(docs/players.md, "apex, inside")."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine import COVERED, FLAGGED
from players.builtin.apex import whatif_fast
from players.builtin.apex.whatif import ComponentStore
from players.builtin.apex.whatif_fast import SystemStore
from players.solver import (
    Analysis,
    ComponentCounts,
    ConstraintSystem,
    InconsistentPositionError,
    TooComplexError,
    count_component,
    substitute,
)

__all__ = ["Cell", "CellOutlook", "Outlook", "RevealOutcome", "neighbours"]

Cell = tuple[int, int]


def neighbours(flat: int, height: int, width: int) -> list[int]:
    """Flat indices of the (up to 8) cells around ``flat``."""
    r, c = divmod(flat, width)
    rows, cols = range(max(r - 1, 0), min(r + 2, height)), range(max(c - 1, 0), min(c + 2, width))
    return [rr * width + cc for rr in rows for cc in cols if rr != r or cc != c]


@dataclass(frozen=True, slots=True)
class RevealOutcome:
    """One number the candidate could show: P(safe and shows it), whether some covered cell is then
    certainly safe, and the safety of the safest covered cell then (1.0 with progress)."""

    value: int
    probability: float
    progress: bool
    best_safety: float


@dataclass(frozen=True, slots=True)
class CellOutlook:
    """The summary of one candidate over every number it could show."""

    cell: Cell
    progress: float
    secondary: float
    values: int

    def score(self, progress_weight: float) -> float:
        """Survival of this click and a greedy next one, plus a bonus for likely progress."""
        return self.secondary + progress_weight * self.progress


class Outlook:
    """The base position, indexed for fast what-if reveals (the model ``analyze`` weighted)."""

    def __init__(self, grid: np.ndarray, mines: int, analysis: Analysis) -> None:
        self.grid = np.asarray(grid)
        self.height, self.width = self.grid.shape
        self.mines = int(mines)
        self.components: tuple[ComponentCounts, ...] = analysis.components
        flat = self.grid.reshape(-1)
        probabilities = analysis.probabilities.reshape(-1)
        frontier = analysis.frontier
        packed = analysis.packed
        starts = None if packed is None else np.array(packed[0], dtype=np.int64)
        if packed is not None:  # the components' cells back to back: one compiled pass
            if not (flat.flags.writeable and flat.flags.c_contiguous):
                flat = flat.copy()  # one compiled signature: numba types read-only arrays apart
            index = whatif_fast.index_position(
                flat, probabilities, starts, packed[2], frontier.unconstrained,
                frontier.system.cells, int(mines),
            )  # fmt: skip
        else:
            index = self._index(flat, probabilities, analysis)
        self.comp_of, self.unconstrained, self.constant_mine, self.covered, mines_left = index
        self.n_unconstrained = int(frontier.n_unconstrained)
        self.mines_left = int(mines_left)
        self.probabilities = probabilities
        self.log_weight = analysis.log_weight
        self._cache: dict[int, list[RevealOutcome]] = {}
        self._systems: tuple[np.ndarray, ...] | None = None  # whatif_fast's, built at the first what-if
        if packed is not None:  # the fast path's arrays are the stores already
            _, row_at, cells, rows, rhs, totals, counts, support = packed
            self._store = ComponentStore.from_packed(starts, totals, counts, support)
            self._systems = (starts, cells, np.array(row_at, dtype=np.int64), rows, rhs)
        else:
            self._store = ComponentStore(self.components)

    def _index(
        self, flat: np.ndarray, probabilities: np.ndarray, analysis: Analysis
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """``(comp_of, unconstrained, constant_mine, covered, mines_left)`` in numpy, from the
        components one by one: the reference of ``whatif_fast.index_position``."""
        n = flat.shape[0]
        comp_of = np.full(n, -1, dtype=np.int64)
        for i, comp in enumerate(analysis.components):
            comp_of[comp.cells] = i
        unconstrained = np.zeros(n, dtype=bool)
        unconstrained[analysis.frontier.unconstrained] = True
        # Constant mines: flags, and frontier cells the deduction fixed as mines before counting.
        constant_mine = flat == FLAGGED
        deduced = np.zeros(n, dtype=bool)
        deduced[analysis.frontier.system.cells] = True
        deduced &= comp_of < 0
        constant_mine |= deduced & (probabilities == 1.0)
        mines_left = int(self.mines) - int(constant_mine.sum())
        return comp_of, unconstrained, constant_mine, flat == COVERED, mines_left

    # -- the what-if ----------------------------------------------------------------------
    def outcomes(self, row: int, col: int) -> list[RevealOutcome]:
        """Every number the covered cell could show, with its probability and what follows."""
        cell = row * self.width + col
        cached = self._cache.get(cell)
        if cached is not None:
            return cached
        out = self._outcomes_fast(cell)
        if out is None:
            out = self.outcomes_reference(row, col)
        self._cache[cell] = out
        return out

    def _outcomes_fast(self, cell: int) -> list[RevealOutcome] | None:
        """``outcomes_reference`` in one compiled call (``whatif_fast``), or None when it declines."""
        if self._systems is None:
            systems = SystemStore(self.components)
            self._systems = (systems.cell_ptr, systems.cells, systems.row_ptr, systems.rows, systems.rhs)
        store = self._store
        status, base, valid, log_totals, progress, best = whatif_fast.outcomes(
            cell, self.height, self.width, self.comp_of, self.unconstrained, self.constant_mine,
            self.n_unconstrained, self.mines_left, self._systems,
            (store.n, store.total_ptr, store.cell_ptr, store.totals, store.mine_counts, store.support),
        )  # fmt: skip
        if status == whatif_fast.DECLINED:
            return None
        out: list[RevealOutcome] = []
        if status == whatif_fast.OK:
            for i in np.flatnonzero(valid).tolist():
                probability = math.exp(float(log_totals[i]) - self.log_weight)  # Python's exp, as the reference
                if probability > 0.0:
                    out.append(RevealOutcome(base + i, probability, bool(progress[i]), float(best[i])))
        return out

    def outcomes_reference(self, row: int, col: int) -> list[RevealOutcome]:
        """``outcomes`` in Python and numpy, uncached: the reference ``whatif_fast`` is held equal to."""
        cell = row * self.width + col
        # The mines around the cell already known, its unknown neighbours (the new number's
        # cells), the components they (or the cell itself) touch, the other components, and the
        # unconstrained cells left out of the new number.
        around = neighbours(cell, self.height, self.width)
        base = sum(1 for x in around if self.constant_mine[x])
        variables = [x for x in around if self.comp_of[x] >= 0 or self.unconstrained[x]]
        involved = sorted({int(self.comp_of[x]) for x in [*variables, cell] if self.comp_of[x] >= 0})
        rest = np.array([i for i in range(len(self.components)) if i not in involved], dtype=np.int64)
        n_free = self.n_unconstrained - sum(1 for x in [*variables, cell] if self.unconstrained[x])
        out: list[RevealOutcome] = []
        try:
            frame = self._merge(involved, cell, variables)
        except InconsistentPositionError:  # the cell is a certain mine: it shows nothing
            frame = None
        if frame is not None:
            for v in range(base, base + len(variables) + 1):
                outcome = self._evaluate(v, v - base, frame, rest, n_free)
                if outcome is not None:
                    out.append(outcome)
        return out

    def summary(self, row: int, col: int) -> CellOutlook:
        """``outcomes`` summed up: what the lookahead scores a candidate by."""
        outs = self.outcomes(row, col)
        progress = sum(o.probability for o in outs if o.progress)
        secondary = sum(o.probability * o.best_safety for o in outs)
        return CellOutlook((row, col), progress, secondary, len(outs))

    def _merge(self, involved: list[int], cell: int, variables: list[int]) -> _Frame:
        """The union of the involved components with ``cell`` set safe, over the union of their
        cells and the new row's: rows in local ids, ready for one more row per shown number."""
        parts = []
        cells_parts = [np.asarray(variables, dtype=np.int64)]
        for i in involved:
            system = self.components[i].system
            if self.comp_of[cell] == i:
                values = np.full(system.n_cells, -1, dtype=np.int64)
                values[int(np.searchsorted(system.cells, cell))] = 0
                system = substitute(system, values)
            parts.append(system)
            cells_parts.append(system.cells)
        cells = np.unique(np.concatenate(cells_parts))
        rows = [np.zeros((0, 8), dtype=np.int32)]
        rhs = [np.zeros(0, dtype=np.int64)]
        for system in parts:
            # Component rows are distinct and ascending; the map to merged ids is monotone.
            local = np.searchsorted(cells, system.cells)
            c = system.constraints
            rows.append(np.where(c >= 0, local[np.maximum(c, 0)], -1).astype(np.int32))
            rhs.append(system.rhs.astype(np.int64))
        base_rows = np.concatenate(rows)
        base_rhs = np.concatenate(rhs)
        new_row = np.full(8, -1, dtype=np.int32)
        new_row[: len(variables)] = np.searchsorted(cells, np.sort(np.asarray(variables, dtype=np.int64)))
        same = np.flatnonzero((base_rows == new_row).all(axis=1)) if variables else np.zeros(0, dtype=np.int64)
        fixed = int(base_rhs[same[0]]) if same.size else -1
        return _Frame(cells, base_rows, base_rhs, new_row, bool(variables), fixed)

    def _evaluate(self, value: int, need: int, frame: _Frame, rest: np.ndarray, n_free: int) -> RevealOutcome | None:
        """What follows when the candidate shows ``value`` (``need`` more mines than its known
        ones): the merged piece re-counted with that row, recombined with the rest; None when the
        number cannot show."""
        if need < 0 or need > int((frame.new_row >= 0).sum()):
            return None
        if frame.fixed >= 0 and need != frame.fixed:
            return None  # an existing row over the same cells already says how many
        piece = None
        if frame.cells.size:
            rows, rhs = frame.rows, frame.rhs
            if frame.has_row and frame.fixed < 0:
                rows = np.concatenate([frame.rows, frame.new_row[None, :]])
                rhs = np.concatenate([frame.rhs, [need]])
            sources = np.zeros(rows.shape[0], dtype=np.int64)
            try:
                system = ConstraintSystem(self.grid.shape, frame.cells, rows, rhs, sources)
                piece = count_component(system, max_mines=self.mines_left)
            except TooComplexError:
                return None
        # Every covered cell a certain mine afterwards: best_safety 1.0, the reveal wins the game.
        ok, log_total, progress, best = self._store.summarize(rest, piece, n_free, self.mines_left)
        if not ok:
            return None
        probability = math.exp(log_total - self.log_weight)
        if probability <= 0.0:
            return None
        return RevealOutcome(value, probability, progress, best)


@dataclass(frozen=True, slots=True)
class _Frame:
    """One candidate's merged piece before its number is known (see ``Outlook._merge``)."""

    cells: np.ndarray
    rows: np.ndarray
    rhs: np.ndarray
    new_row: np.ndarray
    has_row: bool
    fixed: int
