"""D. N. Hill's "50/50 influence": how often a cell is a mine only as one half of a 50/50 to come.

Two covered cells side by side (or a 2x2 block) whose "closing" cells (the three beyond each end
of the pair, the four diagonal corners of the block) are all mines or off the board can never be
told apart: no number sees one and not the other. When such a pattern holds one mine (two on a
diagonal for the block), the game ends in a coin toss there whatever is played. A layout in which
a candidate is a mine as part of such a pattern is lost half the time anyway, so losing it now
costs less than losing any other layout: Hill's solvers count those layouts (the "influence") and
raise the candidate's score as if 90% of them were safe.

This module follows ``LongTermRiskHelper`` of JSMinesweeper (client/LongTermRiskHelper.js;
``findTileInfluence``, ``getHorizontal``, ``getVertical``, ``getBoxInfluence``,
``checkFor2Tile5050``, ``checkForBox5050``, ``getInfluencedTiles``); ``Outlook`` supplies the
exact counts (``analyze`` with the pattern's mines flagged, compared in log space with the
position's own weight, as ``patterns.pseudo_fifty`` does).
"""

from __future__ import annotations

import math

import numpy as np

from engine import FLAGGED
from players.builtin.apex.outlook import Outlook
from players.solver import InconsistentPositionError, TooComplexError, analyze

__all__ = ["FiftyInfluence"]

#: ``findTileInfluence``: the cell's own pairs may miss up to 3 closing mines (``maxMissingMines``
#: 4 counts the pair's own mine), its blocks up to 3 (5 with the block's two).
_OWN_PAIR_MISSING = 4
_OWN_BLOCK_MISSING = 5
#: ``checkFor2Tile5050`` / ``checkForBox5050``: the board scan takes pairs missing at most one
#: closing mine and blocks missing none (``maxMissingMines`` 2 for both).
_SCAN_PAIR_MISSING = 2
_SCAN_BLOCK_MISSING = 2

_Pattern = tuple[str, int, int]  # ("h" | "v" | "b", row, col of the top-left cell)


class FiftyInfluence:
    """The 50/50 influence of cells of one position, as fractions of all its layouts."""

    def __init__(self, outlook: Outlook) -> None:
        self.outlook = outlook
        self.height, self.width = outlook.height, outlook.width
        flat = outlook.grid.reshape(-1)
        p = outlook.probabilities
        self.known_mine = outlook.constant_mine | (outlook.covered & (p == 1.0))
        # Hill's ``isHidden``: covered and not a known mine.
        self.hidden = outlook.covered & ~self.known_mine
        self.revealed = flat >= 0
        self.mines_left = outlook.mines - int(self.known_mine.sum())
        self._ratios: dict[_Pattern, float] = {}
        self._scanned = False
        self._members = np.zeros(flat.shape[0])  # ``influence5050s``
        self._enablers = np.zeros(flat.shape[0])  # ``influenceEnablers``

    # -- one cell ----------------------------------------------------------------------------
    def of(self, cell: int) -> float:
        """``findTileInfluence``: the fraction of layouts in which ``cell`` is a mine as one half of
        a pair or block pattern: its horizontal pairs (with the right and the left neighbour) and
        vertical pairs (below, above) added, plus the largest of its four blocks, plus what it
        gets as the closing cell of patterns of the board scan; at most P(mine) and P(safe)."""
        self._scan()
        r, c = divmod(cell, self.width)
        p = float(self.outlook.probabilities[cell])
        cap = min(p, 1.0 - p)
        total = float(self._enablers[cell])
        for kind, rr, cc in (("h", r, c), ("h", r, c - 1), ("v", r, c), ("v", r - 1, c)):
            if total >= cap:
                return cap  # no need to count the rest
            total += self._pattern(kind, rr, cc, _OWN_PAIR_MISSING)[0]
        block = 0.0
        for dr, dc in ((0, 0), (0, 1), (1, 0), (1, 1)):
            if total + block >= cap:
                return cap
            block = max(block, self._pattern("b", r - dr, c - dc, _OWN_BLOCK_MISSING)[0])
        return min(total + block, cap)

    # -- the board scan ----------------------------------------------------------------------
    def influenced(self, threshold: float) -> list[int]:
        """``getInfluencedTiles``: cells of the scan's patterns and their missing closing cells
        whose safety plus influence (uncapped: members' and enablers' sums) exceeds ``threshold``."""
        self._scan()
        p = self.outlook.probabilities
        influence = self._members + self._enablers
        cells = np.flatnonzero((influence > 0.0) & self.hidden)
        return [int(x) for x in cells if 1.0 - float(p[x]) + float(influence[x]) > threshold]

    def _scan(self) -> None:
        """``checkFor2Tile5050`` and ``checkForBox5050``: every horizontal pair, vertical pair and
        block of the board whose closing cells hold no revealed cell and few enough missing mines;
        its influence goes to its cells (``influence5050s``) and to its missing closing cells
        (``influenceEnablers``). (Hill stops the scan at a pattern that makes a cell "a 50/50 or
        safe"; ``patterns.pseudo_fifty`` guesses those before the lookahead runs.)"""
        if self._scanned:
            return
        self._scanned = True
        h, w = self.height, self.width
        # Closing cost: a revealed cell disqualifies, a missing mine counts 1, a known mine or a
        # cell off the board (padding) counts 0.
        cost = np.zeros((h + 4, w + 4), dtype=np.int64)
        cost[2:-2, 2:-2] = (100 * self.revealed + self.hidden).reshape(h, w)
        hidden = self.hidden.reshape(h, w)
        col3 = cost[:-2, :] + cost[1:-1, :] + cost[2:, :]
        row3 = cost[:, :-2] + cost[:, 1:-1] + cost[:, 2:]
        along = hidden[:, :-1] & hidden[:, 1:] & (col3[1 : h + 1, 1:w] + col3[1 : h + 1, 4 : w + 3] <= 1)
        down = hidden[:-1, :] & hidden[1:, :] & (row3[1:h, 1 : w + 1] + row3[4 : h + 3, 1 : w + 1] <= 1)
        corners = cost[1:h, 1:w] + cost[1:h, 4 : w + 3] + cost[4 : h + 3, 1:w] + cost[4 : h + 3, 4 : w + 3]
        block = hidden[:-1, :-1] & hidden[:-1, 1:] & hidden[1:, :-1] & hidden[1:, 1:] & (corners <= 0)
        found = [("h", r, c) for r, c in np.argwhere(along).tolist()]
        found += [("v", r, c) for r, c in np.argwhere(down).tolist()]
        found += [("b", r, c) for r, c in np.argwhere(block).tolist()]
        for kind, r, c in found:
            limit = _SCAN_BLOCK_MISSING if kind == "b" else _SCAN_PAIR_MISSING
            ratio, missing = self._pattern(kind, r, c, limit)
            if missing is None:
                continue
            for x in missing:
                self._enablers[x] += ratio
            for x in self._cells(kind, r, c):
                self._members[x] += ratio

    # -- patterns ----------------------------------------------------------------------------
    def _cells(self, kind: str, r: int, c: int) -> list[int]:
        w = self.width
        if kind == "h":
            return [r * w + c, r * w + c + 1]
        if kind == "v":
            return [r * w + c, (r + 1) * w + c]
        return [r * w + c, r * w + c + 1, (r + 1) * w + c, (r + 1) * w + c + 1]

    def _pattern(self, kind: str, r: int, c: int, max_missing: int) -> tuple[float, list[int] | None]:
        """``getHorizontal`` / ``getVertical`` / ``getBoxInfluence`` at top-left cell (r, c):
        (fraction of layouts with the pattern's first cell mined, its partner safe and every
        closing cell mined (for a block: the top-left and bottom-right cells mined, the other two
        safe), its missing closing cells), or (0.0, None) when the pattern cannot form here."""
        h, w = self.height, self.width
        rows, cols = (1, 2) if kind == "h" else (2, 1) if kind == "v" else (2, 2)
        if r < 0 or c < 0 or r + rows > h or c + cols > w:
            return 0.0, None
        cells = self._cells(kind, r, c)
        if not all(self.hidden[x] for x in cells):
            return 0.0, None
        if kind == "h":
            closing = [(r + k, c - 1) for k in (-1, 0, 1)] + [(r + k, c + 2) for k in (-1, 0, 1)]
        elif kind == "v":
            closing = [(r - 1, c + k) for k in (-1, 0, 1)] + [(r + 2, c + k) for k in (-1, 0, 1)]
        else:
            closing = [(r - 1, c - 1), (r - 1, c + 2), (r + 2, c - 1), (r + 2, c + 2)]
        missing: list[int] = []
        for rr, cc in closing:
            if not (0 <= rr < h and 0 <= cc < w):
                continue
            x = rr * w + cc
            if self.revealed[x]:
                return 0.0, None
            if not self.known_mine[x]:
                missing.append(x)
        own = 2 if kind == "b" else 1
        if len(missing) + own > max_missing or len(missing) + own > self.mines_left:
            return 0.0, None
        key = (kind, r, c)
        ratio = self._ratios.get(key)
        if ratio is None:
            if kind == "b":
                mines, safes = [cells[0], cells[3]], [cells[1], cells[2]]
            else:
                mines, safes = [cells[0]], [cells[1]]
            ratio = self._count(missing + mines, safes)
            self._ratios[key] = ratio
        return ratio, missing

    def _count(self, mines: list[int], safes: list[int]) -> float:
        """The fraction of the position's layouts with every cell of ``mines`` a mine and every
        cell of ``safes`` (one or two) safe: ``analyze`` with the mines flagged gives the layouts
        with them mined and the chance of each safe cell there; two safe cells add back the
        layouts where both are mines (inclusion-exclusion; none when either is never a mine)."""
        with_mines = self._layouts(mines)
        if with_mines is None:
            return 0.0
        weight, q = with_mines
        if len(safes) == 1:
            return max(0.0, weight * (1.0 - float(q[safes[0]])))
        q1, q2 = float(q[safes[0]]), float(q[safes[1]])
        both = self._layouts(mines + safes) if min(q1, q2) > 0.0 else None
        both_weight = both[0] if both is not None else 0.0
        return max(0.0, weight * (1.0 - q1 - q2) + both_weight)

    def _layouts(self, mines: list[int]) -> tuple[float, np.ndarray] | None:
        """(the fraction of layouts with every cell of ``mines`` a mine, the mine probabilities
        then), or None when there is none."""
        outlook = self.outlook
        grid = np.array(outlook.grid, dtype=np.int8)
        for x in mines:
            grid[divmod(x, self.width)] = FLAGGED
        try:
            forced = analyze(grid, outlook.mines)
        except (InconsistentPositionError, TooComplexError):
            return None
        return math.exp(forced.log_weight - outlook.log_weight), forced.probabilities.reshape(-1)
