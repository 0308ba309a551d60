"""The course shell's action: a move of ``AI.Action`` and the tile's coordinates, x the column and y
the row counted from the bottom, both from 0. Keep this file as it is: the arena plays your agent with
its own copy (docs/courses.md)."""


class Action:
    """One move. ``LEAVE`` needs no coordinates."""

    def __init__(self, action, x=1, y=1):
        self.__action = action
        self.__x = x
        self.__y = y

    def getMove(self):
        return self.__action

    def getX(self) -> int:
        return self.__x

    def getY(self) -> int:
        return self.__y
