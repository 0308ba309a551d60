"""A student agent whose third getAction divides by zero."""

from Action import Action
from AI import AI


class MyAI(AI):
    def __init__(self, rowDimension, colDimension, totalMines, startX, startY):
        self.calls = 0
        self.start = (startX, startY)

    def getAction(self, number):
        self.calls += 1
        if self.calls == 3:
            return number / 0
        return Action(AI.Action.UNCOVER, *self.start)
