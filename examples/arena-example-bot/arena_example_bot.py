"""An example third-party bot: the two single-cell rules written out plainly, and when they find
nothing, a guess at the covered cell nearest a corner (corners have fewer neighbours, so they are
more often zeros that open an area)."""

from __future__ import annotations

from collections.abc import Callable

from players import Action, FirstClick, Observation, Player, hookimpl

COVERED, FLAGGED = Observation.COVERED, Observation.FLAGGED


class CornerPlayer(Player):
    """Single-cell rules; otherwise reveal the covered cell nearest a corner."""

    name = "example-corner"
    description = "example plugin: single-cell rules, else the covered cell nearest a corner"
    version = "1"

    def play(self, observation: Observation) -> list[Action]:
        grid = observation.grid
        height, width = grid.shape
        if observation.first_move:
            # Only the unprotected rule can lose on the first click: elsewhere it is no guess.
            return [Action.reveal(*self.first_click(observation), guess=observation.rule is FirstClick.NONE)]
        safe: set[tuple[int, int]] = set()
        mines: set[tuple[int, int]] = set()
        for r in range(height):
            for c in range(width):
                number = int(grid[r, c])
                if number <= 0:
                    continue
                around = [
                    (rr, cc)
                    for rr in range(max(r - 1, 0), min(r + 2, height))
                    for cc in range(max(c - 1, 0), min(c + 2, width))
                ]
                covered = [cell for cell in around if grid[cell] == COVERED]
                flags = sum(1 for cell in around if grid[cell] == FLAGGED)
                if covered and flags == number:  # every mine it touches is flagged: the rest is safe
                    safe.update(covered)
                elif covered and flags + len(covered) == number:  # every covered neighbour is a mine
                    mines.update(covered)
        if safe or mines:
            # All the certain moves at once: fewer round trips. Reveals never open a mine, so the flags stay valid.
            return [Action.reveal(r, c) for r, c in sorted(safe)] + [Action.flag(r, c) for r, c in sorted(mines)]
        cells = [(r, c) for r in range(height) for c in range(width) if grid[r, c] == COVERED]
        distance = [min(r, height - 1 - r) + min(c, width - 1 - c) for r, c in cells]
        nearest = [cell for cell, d in zip(cells, distance, strict=True) if d == min(distance)]
        r, c = nearest[int(self.rng.integers(len(nearest)))]  # ties: the arena-seeded generator, never `random`
        return [Action.reveal(r, c, guess=True)]


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(CornerPlayer)
