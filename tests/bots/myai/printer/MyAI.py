"""A student agent that prints its board on every move (to stdout, as students do) and uncovers the
neighbours of zeros, then guesses the first covered tile. Its prints must never reach the protocol."""

from Action import Action
from AI import AI


class MyAI(AI):
    def __init__(self, rowDimension, colDimension, totalMines, startX, startY):
        self.rows, self.cols = rowDimension, colDimension
        self.known = {}
        self.todo = [(startX, startY)]
        self.last = None
        print("new game", rowDimension, colDimension, totalMines, startX, startY)

    def show(self):
        for y in range(self.rows - 1, -1, -1):
            print(str(y + 1).ljust(2) + "| " + " ".join(str(self.known.get((x, y), ".")) for x in range(self.cols)))
        print("   " + "---" * self.cols, flush=False)

    def getAction(self, number):
        if self.last is not None and number >= 0:
            self.known[self.last] = number
            if number == 0:
                x, y = self.last
                self.todo += [
                    (x + dx, y + dy)
                    for dx in (-1, 0, 1)
                    for dy in (-1, 0, 1)
                    if 0 <= x + dx < self.cols and 0 <= y + dy < self.rows and (x + dx, y + dy) not in self.known
                ]
        self.show()
        while self.todo:
            tile = self.todo.pop()
            if tile not in self.known:
                self.last = tile
                return Action(AI.Action.UNCOVER, *tile)
        for y in range(self.rows):
            for x in range(self.cols):
                if (x, y) not in self.known:
                    self.last = (x, y)
                    return Action(AI.Action.UNCOVER, x, y)
        return Action(AI.Action.LEAVE)
