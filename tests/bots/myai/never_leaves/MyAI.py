"""A student agent that never leaves: once it has nothing to do it uncovers its start tile again, forever."""

from Action import Action
from AI import AI


class MyAI(AI):
    def __init__(self, rowDimension, colDimension, totalMines, startX, startY):
        self.start = (startX, startY)

    def getAction(self, number):
        return Action(AI.Action.UNCOVER, *self.start)
