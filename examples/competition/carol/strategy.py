"""Your bot: the one file to edit. ``Strategy`` plays one game; ``play`` answers each observation.

The starting strategy is the one every starter kit shares (docs/protocol.md, "The shared generator
and the starting strategy"): the first click, then every move the two single-cell rules make certain,
then a guess drawn from the game's seeded generator, with a note saying why.
"""

from __future__ import annotations

from client import Board, Cell, GameInfo, Reply
from rng import SplitMix64

NAME = "carol"
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
    rows = board.rows
    flagged: set[Cell] = {
        (r, c) for r, text in enumerate(rows) if "F" in text for c, ch in enumerate(text) if ch == "F"
    }
    mines = set(flagged)
    safe: set[Cell] = set()
    # Only a number beside a covered cell can decide anything: those, each with its covered or flagged
    # neighbours, listed once (the string test keeps the scan of a large board cheap).
    frontier: list[tuple[int, list[Cell]]] = []
    for row, text in enumerate(rows):
        above, below = max(row - 1, 0), min(row + 2, board.height)
        for col, ch in enumerate(text):
            if "1" <= ch <= "8" and any("#" in rows[r][max(col - 1, 0) : col + 2] for r in range(above, below)):
                around = [cell for cell in board.neighbours(row, col) if rows[cell[0]][cell[1]] in "#F"]
                frontier.append((ord(ch) - 48, around))
    changed = True
    while changed:
        changed = False
        for value, around in frontier:
            known = sum(1 for cell in around if cell in mines)
            unknown = [cell for cell in around if cell not in mines and cell not in safe]
            if not unknown:
                continue
            if known == value:
                safe.update(unknown)
                changed = True
            elif known + len(unknown) == value:
                mines.update(unknown)
                changed = True
    return safe, mines - flagged
