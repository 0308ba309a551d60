"""__BOT_NAME__: a Minesweeper agent in the course shell's interface (docs/courses.md).

The arena (or the course's own world) builds one ``MyAI`` per game and asks ``getAction`` for one action
at a time. Coordinates are the shell's: x is the column, y the row counted from the bottom, both from 0.
``number`` is the number of the tile your last UNCOVER opened (your start tile's, 0, on the first call)
and -1 after FLAG or UNFLAG. Edit this file only; AI.py and Action.py are the shell's.

This starting agent keeps a queue of tiles known to be safe (every neighbour of a zero, and every covered
neighbour of a number whose mines are all found), flags a number's covered neighbours when they must all be
mines, and otherwise guesses a covered tile at random. Make it better.
"""

import random

from Action import Action
from AI import AI


class MyAI(AI):
    def __init__(self, rowDimension, colDimension, totalMines, startX, startY):
        self.rows = rowDimension
        self.cols = colDimension
        self.mines = totalMines
        self.numbers = {}  # (x, y) -> the number uncovered there
        self.flags = set()
        self.safe = []  # tiles to uncover, known safe
        self.last = (startX, startY)  # the start tile: the world has uncovered it, a zero

    def neighbours(self, x, y):
        return [
            (x + dx, y + dy)
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
            if (dx or dy) and 0 <= x + dx < self.cols and 0 <= y + dy < self.rows
        ]

    def covered(self, x, y):
        return [t for t in self.neighbours(x, y) if t not in self.numbers and t not in self.flags]

    def getAction(self, number: int) -> "Action Object":  # noqa: F722 (the shell's own annotation)
        if number >= 0 and self.last is not None:
            self.numbers[self.last] = number
        self.last = None
        self.think()
        while self.safe:
            tile = self.safe.pop()
            if tile not in self.numbers and tile not in self.flags:
                self.last = tile
                return Action(AI.Action.UNCOVER, *tile)
        for (x, y), n in self.numbers.items():  # a number whose covered neighbours must all be mines
            covered = self.covered(x, y)
            found = sum(t in self.flags for t in self.neighbours(x, y))
            if covered and n - found == len(covered):
                self.flags.add(covered[0])
                return Action(AI.Action.FLAG, *covered[0])
        unknown = [
            (x, y)
            for x in range(self.cols)
            for y in range(self.rows)
            if (x, y) not in self.numbers and (x, y) not in self.flags
        ]
        if len(unknown) <= self.mines - len(self.flags) or not unknown:
            return Action(AI.Action.LEAVE)  # every tile left is a mine: the board is cleared
        self.last = random.choice(unknown)
        return Action(AI.Action.UNCOVER, *self.last)

    def think(self):
        """Queue every tile that a number says is safe: all its mines are flagged already."""
        for (x, y), n in self.numbers.items():
            found = sum(t in self.flags for t in self.neighbours(x, y))
            if n == found:
                self.safe += self.covered(x, y)
