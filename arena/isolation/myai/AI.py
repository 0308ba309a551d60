"""The course shell's abstract agent, as the arena provides it: an agent subclasses ``AI`` and answers
``getAction(number)`` with an ``Action`` whose move is one of ``AI.Action``. Keep this file as it is:
the arena plays your agent with its own copy (docs/courses.md)."""

from abc import ABCMeta, abstractmethod
from enum import Enum, unique


class AI(metaclass=ABCMeta):
    """What an agent is: a constructor ``(rowDimension, colDimension, totalMines, startX, startY)``
    and ``getAction``."""

    @unique
    class Action(Enum):
        LEAVE = 0
        UNCOVER = 1
        FLAG = 2
        UNFLAG = 3

    @abstractmethod
    def getAction(self, number: int) -> "Action":
        """The next action, told the number of the tile the last UNCOVER opened (-1 after FLAG or UNFLAG)."""
