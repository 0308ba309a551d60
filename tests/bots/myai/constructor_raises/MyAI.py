"""A student agent whose constructor fails on any board."""

from Action import Action
from AI import AI


class MyAI(AI):
    def __init__(self, rowDimension, colDimension, totalMines, startX, startY):
        self.board = [[0] * colDimension for _ in range(rowDimension)]
        self.board[rowDimension][0] = startX

    def getAction(self, number):
        return Action(AI.Action.LEAVE)
