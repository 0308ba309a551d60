"""Your bot: the one file to edit. ``Strategy`` plays one game; ``play`` answers each observation.

The starting strategy is the one every starter kit shares (docs/protocol.md, "The shared generator
and the starting strategy"): the first click, then every move the two single-cell rules make certain,
then a guess drawn from the game's seeded generator, with a note saying why.
"""

from __future__ import annotations

from client import Board, Cell, GameInfo, Reply
from rng import SplitMix64

NAME = "__BOT_NAME__"
VERSION = "1"


class Strategy:
    """One game. Built at every ``new_game`` with the game's facts and its seeded generator."""

    def __init__(self, info: GameInfo, rng: SplitMix64) -> None:
        self.info = info
        self.rng = rng  # the only randomness to use: the same seed plays the same game

    def play(self, board: Board) -> Reply:
        reply = Reply()
        if not board.any_revealed():  # the first click: a corner, or 3 cells in under "opening"
            if self.info.rule == "opening":
                return reply.reveal(min(3, board.height - 1), min(3, board.width - 1))
            if self.info.rule == "none":
                return reply.reveal(0, 0, guess=True, note="first click: no rule makes it safe")
            return reply.reveal(0, 0)
        safe, mines = certain_moves(board)
        if safe or mines:
            for row, col in sorted(safe):
                reply.reveal(row, col)
            for row, col in sorted(mines):
                reply.flag(row, col)
            return reply
        covered = [cell for cell in board.cells() if board.is_covered(*cell)]
        row, col = covered[self.rng.below(len(covered))]
        note = f"no certain move: one of {len(covered)} covered cells at random"
        return reply.reveal(row, col, guess=True, note=note)


def certain_moves(board: Board) -> tuple[set[Cell], set[Cell]]:
    """(safe cells, mines not yet flagged) that the two single-cell rules decide, applied until nothing
    changes: a number with as many flagged or known mines around as it says makes its other covered
    neighbours safe; a number whose known mines and undecided covered neighbours add up to it makes
    those neighbours mines."""
    mines: set[Cell] = {cell for cell in board.cells() if board.is_flagged(*cell)}
    flagged = set(mines)
    safe: set[Cell] = set()
    numbers = [cell for cell in board.cells() if board.number(*cell) > 0]
    changed = True
    while changed:
        changed = False
        for row, col in numbers:
            around = board.neighbours(row, col)
            known = sum(1 for cell in around if cell in mines)
            unknown: list[Cell] = [
                cell for cell in around if board.is_covered(*cell) and cell not in mines and cell not in safe
            ]
            if not unknown:
                continue
            value = board.number(row, col)
            if known == value:
                safe.update(unknown)
                changed = True
            elif known + len(unknown) == value:
                mines.update(unknown)
                changed = True
    return safe, mines - flagged
