#!/usr/bin/env python3
"""Bob's entrant, an engine bot (docs/protocol.md) in one file of the standard library: single-cell rules, else
the covered cell nearest the board's centre. It draws no random numbers, so it plays a board the same way in
every run."""

from __future__ import annotations

import json
import sys

NAME, VERSION, PROTOCOL = "centre", "1", 1


def around(r: int, c: int, height: int, width: int) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i in range(max(r - 1, 0), min(r + 2, height))
        for j in range(max(c - 1, 0), min(c + 2, width))
        if (i, j) != (r, c)
    ]


def decide(grid: list[str]) -> dict[str, object]:
    height, width = len(grid), len(grid[0])
    covered = [(r, c) for r in range(height) for c in range(width) if grid[r][c] == "#"]
    safe: set[tuple[int, int]] = set()
    mines: set[tuple[int, int]] = set()
    for r in range(height):
        for c in range(width):
            if grid[r][c] in "#F0":
                continue
            cells = around(r, c, height, width)
            flags = sum(grid[i][j] == "F" for i, j in cells)
            hidden = [(i, j) for i, j in cells if grid[i][j] == "#"]
            if hidden and flags == int(grid[r][c]):
                safe.update(hidden)
            elif hidden and flags + len(hidden) == int(grid[r][c]):
                mines.update(hidden)
    if safe or mines:
        return {"actions": [["reveal", r, c] for r, c in sorted(safe)] + [["flag", r, c] for r, c in sorted(mines)]}
    if len(covered) + sum(row.count("F") for row in grid) == height * width:  # the first move
        cell = [height // 2, width // 2]
        return {"actions": [["reveal", *cell]]}
    r, c = min(covered, key=lambda cell: (abs(2 * cell[0] - height + 1) + abs(2 * cell[1] - width + 1), cell))
    return {"actions": [["reveal", r, c]], "guess": [[r, c]], "note": "no certain move: the cell nearest the centre"}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        reply: dict[str, object] | None = None
        if kind == "hello":
            reply = {"protocol": PROTOCOL, "name": NAME, "version": VERSION}
        elif kind == "observation":
            reply = decide(message["grid"])
        elif kind == "quit":
            return
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
