"""The C++ article's engine AI, re-implemented move for move to play our boards (not a player).

"Writing a Stronger Minesweeper-Engine in C++" (Baran Can Oener, 2020) reports 7 / 10 / 14% on
Expert for its random / single-constraint / average-constraint methods; its code is public at
github.com/BaranCanOener/CppSweeper (``CppSweeper_AI`` in CppSweeper.cpp). Our players with the
subset rule to a fixed point win far more, so this module replays that engine's own reasoning,
written afresh in Python from a reading of the code, to see whether it explains the figures:

* a knowledge base of sentences (cells in the order the engine lists neighbours, mine count),
  updated once per revealed cell in the order its recursive flood fill reveals them;
* on each update: the revealed cell leaves every sentence holding it (these are "updated"), its
  own sentence is added unless its number is 0 (then the update stops there), and only the
  updated sentences with two or more cells are tested as subsets of every sentence; each
  difference is appended, never compared in this update;
* sentences whose count equals their size mark their cells as mines, which then leave every
  sentence (including the iterator quirk of erasing while walking: after an erase at the front,
  the next sentence is skipped for that walk);
* a move is the first cell of the first sentence with count 0, one cell per move; otherwise the
  guess method: uniform over covered cells not known to be mines; the max of the density and
  every sentence's ratio; or the mean of (number - flags) / covered unflagged neighbours over
  the revealed numbers, where flags are placed on known mines only at the end of each move, so a
  mine found by the last click is still unflagged, counts as covered there, and is estimated at
  the density (it can be clicked). Ties: the first lowest cell, column by column.
* The first click is (0, 0).

``sync_flags`` flags every known mine before a guess is chosen instead of after: the one change
we found that brings the mean method to its published figure (only the mean method reads flags
where it matters).

Left out: a dangling-pointer read when the knowledge vector reallocates during an update
(undefined behaviour; in practice the moved-from sentences look empty, so that update derives
nothing), and its own mine placement (ours: same distribution).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from engine import BoardSpec, FirstClick, Game

__all__ = ["METHODS", "play_article_game"]

METHODS = ("random", "max", "mean")


def _neighbours(height: int, width: int) -> list[list[int]]:
    """Each cell's neighbours in the engine's order: the left column (middle, up, down), the
    right column (middle, up, down), then below, then above. Flat indices, row-major."""
    out = []
    for r in range(height):
        for c in range(width):
            cells = []
            if c > 0:
                cells.append(r * width + c - 1)
                if r > 0:
                    cells.append((r - 1) * width + c - 1)
                if r < height - 1:
                    cells.append((r + 1) * width + c - 1)
            if c < width - 1:
                cells.append(r * width + c + 1)
                if r > 0:
                    cells.append((r - 1) * width + c + 1)
                if r < height - 1:
                    cells.append((r + 1) * width + c + 1)
            if r < height - 1:
                cells.append((r + 1) * width + c)
            if r > 0:
                cells.append((r - 1) * width + c)
            out.append(cells)
    return out


class _Engine:
    """One game's state of the engine: its knowledge, known mines, flags, and what it has seen."""

    def __init__(self, spec: BoardSpec, method: str, rng: np.random.Generator, sync_flags: bool = False) -> None:
        self.height, self.width, self.mines = spec.height, spec.width, spec.mines
        self.cells = spec.height * spec.width
        self.method = method
        self.sync_flags = sync_flags
        self.rng = rng
        self.near = _neighbours(spec.height, spec.width)
        self.scan = [r * spec.width + c for c in range(spec.width) for r in range(spec.height)]
        self.knowledge: list[list] = []  # [cells (list), count]
        self.clicked = [False] * self.cells
        self.known_mine = [False] * self.cells
        self.flag = [False] * self.cells
        self.number = [0] * self.cells
        self.known_mines = 0
        self.uncovered = 0
        self.guesses = 0
        self.stuck = 0

    # -- knowledge --------------------------------------------------------------------------

    def _walk_erasing_empty(self, visit: Callable[[list], None]) -> None:
        """Walk the knowledge, calling ``visit`` on each sentence, erasing the empty ones as the
        engine does (an erase at the front skips the sentence that moves into it)."""
        k = self.knowledge
        i = 0
        while i < len(k):
            visit(k[i])
            if not k[i][0]:
                del k[i]
                if i != 0:
                    i -= 1
                elif not k:
                    break
                else:
                    i += 1  # the engine's iterator stays at the front, then steps past it
                    continue
            i += 1

    def update(self, cell: int) -> None:
        """The engine's ``updateKnowledge`` after ``cell`` was revealed."""
        updated = []
        for sentence in self.knowledge:
            if cell in sentence[0]:
                sentence[0].remove(cell)
                updated.append(sentence)
        count = self.number[cell]
        if count == 0:
            return
        own = []
        for n in self.near[cell]:
            if self.known_mine[n]:
                count -= 1
            elif not self.clicked[n]:
                own.append(n)
        self.knowledge.append([own, count])
        derived = []
        for small in updated:
            if len(small[0]) <= 1:
                continue
            for big in self.knowledge:
                if big[0] and small[0] != big[0] and all(c in big[0] for c in small[0]):
                    derived.append([[c for c in big[0] if c not in small[0]], big[1] - small[1]])
        self.knowledge.extend(derived)
        found: list[int] = []

        def mark(sentence: list) -> None:
            if len(sentence[0]) == sentence[1]:
                for c in sentence[0]:
                    if not self.known_mine[c]:
                        self.known_mines += 1
                    self.known_mine[c] = True
                    found.append(c)

        self._walk_erasing_empty(mark)
        for mine in found:

            def drop(sentence: list, mine: int = mine) -> None:
                if mine in sentence[0]:
                    sentence[0].remove(mine)
                    sentence[1] -= 1

            self._walk_erasing_empty(drop)

    def reveal(self, game: Game, cell: int) -> None:
        """Click ``cell`` on our game and feed the engine every revealed cell in the order of its
        recursive flood fill (a cell, then, if it is a 0, each neighbour in turn, depth first)."""
        game.reveal(cell // self.width, cell % self.width)
        if game.over and not game.won:
            return
        grid = game.grid.reshape(-1)
        stack = [self._visit(cell, grid)]
        while stack:
            for n in stack[-1]:
                if not self.clicked[n]:
                    stack.append(self._visit(n, grid))
                    break
            else:
                stack.pop()

    def _visit(self, cell: int, grid: np.ndarray) -> Iterator[int]:
        """Click one cell as the engine does; returns the neighbours its flood fill goes on to."""
        assert grid[cell] >= 0, "the flood fills of our engine and of the port differ"
        self.clicked[cell] = True
        self.number[cell] = int(grid[cell])
        self.uncovered += 1
        self.update(cell)
        return iter(self.near[cell] if self.number[cell] == 0 else ())

    # -- moves ------------------------------------------------------------------------------

    def move(self) -> int:
        for cells, count in self.knowledge:
            if cells and count == 0:
                self.flag = list(self.known_mine)
                return cells[0]
        self.guesses += 1
        if self.sync_flags:
            self.flag = list(self.known_mine)
        cell = getattr(self, f"_guess_{self.method}")()
        self.flag = list(self.known_mine)
        return cell

    def _density(self) -> float:
        return (self.mines - self.known_mines) / (self.cells - self.known_mines - self.uncovered)

    def _lowest(self, estimate: list[float]) -> int:
        best, lowest = -1, 1.0
        for cell in self.scan:
            if not self.clicked[cell] and estimate[cell] < lowest:
                best, lowest = cell, estimate[cell]
        if best < 0:  # the engine would retry the same invalid move forever; never seen here
            self.stuck += 1
            best = next(c for c in self.scan if not self.clicked[c] and not self.known_mine[c])
        return best

    def _guess_random(self) -> int:
        allowed = [c for c in range(self.cells) if not self.clicked[c] and not self.known_mine[c]]
        return allowed[int(self.rng.integers(len(allowed)))]

    def _guess_max(self) -> int:
        density = self._density()
        estimate = [0.0 if self.clicked[c] else 1.0 if self.known_mine[c] else density for c in range(self.cells)]
        for cells, count in self.knowledge:
            if cells:
                ratio = count / len(cells)
                for c in cells:
                    if not self.clicked[c] and not self.flag[c] and estimate[c] < ratio:
                        estimate[c] = ratio
        return self._lowest(estimate)

    def _guess_mean(self) -> int:
        density = self._density()
        total = [1.0 if self.known_mine[c] and not self.clicked[c] else 0.0 for c in range(self.cells)]
        times = [0] * self.cells
        for b in self.scan:
            if not self.clicked[b]:
                continue
            near = self.near[b]
            covered = sum(1 for n in near if not self.clicked[n] and not self.flag[n])
            if covered == 0:
                continue
            flags = sum(1 for n in near if self.flag[n])
            ratio = (self.number[b] - flags) / covered
            for n in near:
                if not self.clicked[n] and not self.known_mine[n]:
                    times[n] += 1
                    total[n] += ratio
        for c in range(self.cells):
            if not self.clicked[c]:
                if times[c] > 0:
                    total[c] /= times[c]
                elif not self.flag[c]:
                    total[c] = density
        return self._lowest(total)


def play_article_game(
    spec: BoardSpec, seed: int, board: int, method: str, rng: np.random.Generator, *, sync_flags: bool = False
) -> tuple[bool, int, int]:
    """Play board ``board`` of seed ``seed`` (our boards, ``opening`` rule, first click (0, 0)) as
    the engine does with guess method ``method``. Returns (won, guesses, stuck moves)."""
    game = Game(spec, FirstClick.OPENING, seed=seed, index=board)
    engine = _Engine(spec, method, rng, sync_flags)
    cell = 0
    while True:
        engine.reveal(game, cell)
        if game.over:
            return game.won, engine.guesses, engine.stuck
        cell = engine.move()
