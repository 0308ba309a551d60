"""Keeps the board in a fixed 30x30 array: a wider board is out of range."""

import base


def observation(message: dict, game: dict) -> dict:
    board = [[0] * 30 for _ in range(30)]
    for r, row in enumerate(message["grid"]):
        for c, ch in enumerate(row):
            board[r][c] = ch
    return base.decide(message, game)


base.run(observation=observation)
