"""A student agent that flags a tile, unflags it, flags it again, uncovers a flagged tile (the shell
uncovers it) and flags a tile that is uncovered (nothing happens), noting every number it is given."""

from Action import Action
from AI import AI

NUMBERS = []


class MyAI(AI):
    def __init__(self, rowDimension, colDimension, totalMines, startX, startY):
        self.start = (startX, startY)
        self.corner = (
            (colDimension - 1, rowDimension - 1) if (startX, startY) != (colDimension - 1, rowDimension - 1) else (0, 0)
        )
        self.script = [
            (AI.Action.FLAG, self.corner),
            (AI.Action.UNFLAG, self.corner),
            (AI.Action.FLAG, self.corner),
            (AI.Action.FLAG, self.start),
            (AI.Action.UNFLAG, self.start),
            (AI.Action.UNCOVER, self.corner),
        ]

    def getAction(self, number):
        NUMBERS.append(number)
        print("numbers so far:", NUMBERS)
        if self.script:
            move, tile = self.script.pop(0)
            return Action(move, *tile)
        return Action(AI.Action.LEAVE)
