"""A student agent whose constructor fails on any board."""

from AI import AI
from Action import Action


class MyAI(AI):
    def __init__(self, rowDimension, colDimension, totalMines, startX, startY):
        self.board = [[0] * colDimension for _ in range(rowDimension)]
        self.board[rowDimension][0] = startX

    def getAction(self, number):
        return Action(AI.Action.LEAVE)
