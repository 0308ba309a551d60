"""The most common student agent: a queue of safe tiles (the neighbours of every zero), uncovered one by
one, then LEAVE when nothing is known safe. It tracks the board in the shell's own coordinates, x the
column and y the row from the bottom, as students do."""

from Action import Action
from AI import AI


class MyAI(AI):
    def __init__(self, rowDimension, colDimension, totalMines, startX, startY):
        self.rowDimension = rowDimension
        self.colDimension = colDimension
        self.totalMines = totalMines
        self.board = {}
        self.safe = [(startX, startY)]
        self.current = None
        self.queued = {(startX, startY)}

    def getAction(self, number: int) -> "Action Object":  # noqa: F722 (the shell's own annotation)
        if self.current is not None:
            x, y = self.current
            self.board[(x, y)] = number
            if number == 0:
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        n = (x + dx, y + dy)
                        if 0 <= n[0] < self.colDimension and 0 <= n[1] < self.rowDimension and n not in self.queued:
                            self.queued.add(n)
                            self.safe.append(n)
        if self.safe:
            self.current = self.safe.pop(0)
            return Action(AI.Action.UNCOVER, *self.current)
        return Action(AI.Action.LEAVE)
