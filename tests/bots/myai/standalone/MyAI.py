"""examples/standalone_bot.py's strategy as a course-shell agent: it learns the board one number at a
time (uncovering every neighbour of a zero first, which the arena gives without a move), then plays
what the standalone example would on that board: every certain reveal, then every certain flag, in
row-major order, else a guess drawn from the protocol's shared generator seeded from ``AI.seed``.
tests/arena/kits/test_myai.py holds its games to the example's, move for move."""

import AI as shell_module
from Action import Action
from AI import AI

MASK64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed_hex):
        seed = int(seed_hex, 16)
        self.state = ((seed >> 64) ^ seed) & MASK64

    def below(self, n):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return (z ^ (z >> 31)) % n


class MyAI(AI):
    def __init__(self, rowDimension, colDimension, totalMines, startX, startY):
        self.rows, self.cols = rowDimension, colDimension
        self.grid = [["#"] * colDimension for _ in range(rowDimension)]  # [row from the top][col]
        self.rng = SplitMix64(shell_module.seed)
        self.last = (rowDimension - 1 - startY, startX)
        self.explore = []
        self.plan = []

    def neighbours(self, r, c):
        return [
            (rr, cc)
            for rr in range(max(r - 1, 0), min(r + 2, self.rows))
            for cc in range(max(c - 1, 0), min(c + 2, self.cols))
            if (rr, cc) != (r, c)
        ]

    def act(self, kind, r, c):
        self.last = (r, c) if kind is AI.Action.UNCOVER else None
        return Action(kind, c, self.rows - 1 - r)

    def getAction(self, number):
        if self.last is not None and number >= 0:
            r, c = self.last
            if self.grid[r][c] == "#":
                self.grid[r][c] = str(number)
                if number == 0:
                    self.explore += [cell for cell in self.neighbours(r, c) if self.grid[cell[0]][cell[1]] == "#"]
        while self.explore:
            r, c = self.explore.pop()
            if self.grid[r][c] == "#":
                return self.act(AI.Action.UNCOVER, r, c)
        while self.plan:
            kind, r, c = self.plan.pop(0)
            if self.grid[r][c] == "#":
                if kind is AI.Action.FLAG:
                    self.grid[r][c] = "F"
                return self.act(kind, r, c)
        safe, mines = self.certain()
        if safe or mines:
            self.plan = [(AI.Action.UNCOVER, r, c) for r, c in sorted(safe)]
            self.plan += [(AI.Action.FLAG, r, c) for r, c in sorted(mines)]
            return self.getAction(-1)
        covered = [(r, c) for r in range(self.rows) for c in range(self.cols) if self.grid[r][c] == "#"]
        r, c = covered[self.rng.below(len(covered))]
        return self.act(AI.Action.UNCOVER, r, c)

    def certain(self):
        grid = self.grid
        mines = {(r, c) for r in range(self.rows) for c in range(self.cols) if grid[r][c] == "F"}
        safe = set()
        changed = True
        while changed:
            changed = False
            for r in range(self.rows):
                for c in range(self.cols):
                    if not grid[r][c].isdigit() or grid[r][c] == "0":
                        continue
                    around = self.neighbours(r, c)
                    known = [cell for cell in around if cell in mines]
                    unknown = [cell for cell in around if grid[cell[0]][cell[1]] == "#" and cell not in mines | safe]
                    if not unknown:
                        continue
                    if len(known) == int(grid[r][c]):
                        safe.update(unknown)
                        changed = True
                    elif len(known) + len(unknown) == int(grid[r][c]):
                        mines.update(unknown)
                        changed = True
        flagged = {(r, c) for r in range(self.rows) for c in range(self.cols) if grid[r][c] == "F"}
        return safe, mines - flagged
