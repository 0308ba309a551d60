#!/usr/bin/env python3
"""A complete arena bot in one file, standard library only: it speaks the line protocol of
docs/protocol.md and imports nothing of the arena, so it stands for a bot written in any language.

    arena tournament -d beginner -n 200 --engine-bot "standalone=python examples/standalone_bot.py" -p standalone,random

It plays the two single-cell rules (a number whose covered neighbours are exactly its missing mines:
flag them; a number with all its mines flagged: reveal the rest) and otherwise reveals a random
covered cell, marked as a guess and explained by a note. Its randomness comes only from the seed in
``new_game``, through the protocol's shared generator (docs/protocol.md, "The shared generator"), so it
plays every board the same way in every run, and move for move as every starter kit (``arena new-bot``)
plays before its author changes it.
"""

from __future__ import annotations

import json
import sys

NAME = "standalone"
VERSION = "1"
PROTOCOL = 1
MASK64 = (1 << 64) - 1


class SplitMix64:
    """The protocol's shared generator: splitmix64, seeded from ``new_game``'s 128-bit seed as its two
    64-bit halves XORed. Small enough to write in any language, so every kit draws the same numbers."""

    def __init__(self, seed_hex: str) -> None:
        seed = int(seed_hex, 16)
        self.state = ((seed >> 64) ^ seed) & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A number in [0, n): the next output modulo n (its bias, under n / 2**64, is negligible)."""
        return self.next() % n


def neighbours(row: int, col: int, height: int, width: int) -> list[tuple[int, int]]:
    return [
        (r, c)
        for r in range(max(row - 1, 0), min(row + 2, height))
        for c in range(max(col - 1, 0), min(col + 2, width))
        if (r, c) != (row, col)
    ]


def certain_moves(grid: list[str]) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """(safe cells, mine cells) the two single-cell rules decide, applied until nothing changes."""
    height, width = len(grid), len(grid[0])
    mines = {(r, c) for r in range(height) for c in range(width) if grid[r][c] == "F"}
    safe: set[tuple[int, int]] = set()
    changed = True
    while changed:
        changed = False
        for r in range(height):
            for c in range(width):
                if not grid[r][c].isdigit() or grid[r][c] == "0":
                    continue
                around = neighbours(r, c, height, width)
                known = [cell for cell in around if cell in mines]
                unknown = [cell for cell in around if grid[cell[0]][cell[1]] == "#" and cell not in mines | safe]
                if not unknown:
                    continue
                if len(known) == int(grid[r][c]):
                    safe.update(unknown)
                    changed = True
                elif len(known) + len(unknown) == int(grid[r][c]):
                    mines.update(unknown)
                    changed = True
    flagged = {(r, c) for r in range(height) for c in range(width) if grid[r][c] == "F"}
    return safe, mines - flagged


def decide(grid: list[str], rule: str, rng: SplitMix64) -> dict[str, object]:
    """The shared starting strategy (docs/protocol.md): the first click, else every certain move
    (reveals then flags, each in row-major order), else a guess: covered cell ``rng.below(count)`` in
    row-major order."""
    height, width = len(grid), len(grid[0])
    if all(ch in "#F" for row in grid for ch in row):  # the first move: a corner, or 3 in under "opening"
        cell = [min(3, height - 1), min(3, width - 1)] if rule == "opening" else [0, 0]
        reply: dict[str, object] = {"actions": [["reveal", *cell]]}
        if rule == "none":  # nothing makes the first click safe: it is a guess like any other
            reply["guess"] = [cell]
            reply["note"] = "first click: no rule makes it safe"
        return reply
    safe, mines = certain_moves(grid)
    if safe or mines:
        actions = [["reveal", r, c] for r, c in sorted(safe)] + [["flag", r, c] for r, c in sorted(mines)]
        return {"actions": actions}
    covered = [[r, c] for r in range(height) for c in range(width) if grid[r][c] == "#"]
    cell = covered[rng.below(len(covered))]
    # The optional note explains the move; the arena keeps it in the game's record for replays.
    note = f"no certain move: one of {len(covered)} covered cells at random"
    return {"actions": [["reveal", *cell]], "guess": [cell], "note": note}


def main() -> None:
    rng = SplitMix64("0" * 32)
    rule = "safe"
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply: dict[str, object] | None = {"protocol": PROTOCOL, "name": NAME, "version": VERSION}
        elif kind == "new_game":
            rng = SplitMix64(message["seed"])
            rule = message["rule"]
            reply = None
        elif kind == "observation":
            reply = decide(message["grid"], rule, rng)
        elif kind == "quit":
            return
        else:  # game_over, and whatever later protocol versions add
            reply = None
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
