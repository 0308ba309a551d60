"""A small bot that speaks the protocol correctly, for ``arena check-bot``'s tests: each script
beside it changes exactly one thing (``run``'s keyword arguments) and must fail exactly its own check.

It clicks a corner first, then reveals a covered cell at random (its generator seeded from
``new_game``'s seed), marked as a guess.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import Any

Reply = dict[str, Any] | None


def hello_reply(message: dict[str, Any]) -> Reply:
    return {"protocol": 1, "name": "base", "version": "1"}


def decide(message: dict[str, Any], game: dict[str, Any]) -> Reply:
    grid = message["grid"]
    covered = [[r, c] for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "#"]
    if len(covered) == len(grid) * len(grid[0]):
        return {"actions": [["reveal", 0, 0]]}
    cell = game["rng"].choice(covered)
    return {"actions": [["reveal", *cell]], "guess": [cell], "note": "at random"}


def run(
    *,
    hello: Callable[[dict[str, Any]], Reply] = hello_reply,
    observation: Callable[[dict[str, Any], dict[str, Any]], Reply] = decide,
    new_game: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
    other: Callable[[dict[str, Any]], Reply] = lambda message: None,
    quits: bool = True,
    parse: Callable[[str], Any] | None = None,
    before_reply: Callable[[], None] = lambda: None,
) -> None:
    """Read messages, answer them; each keyword replaces one part of a correct bot."""
    game: dict[str, Any] = {"rng": random.Random(0), "rule": "safe", "games": 0}
    for line in sys.stdin:
        if parse is None and not line.strip():
            continue
        message = (parse or json.loads)(line)
        kind = message.get("type")
        reply: Reply = None
        if kind == "hello":
            reply = hello(message)
        elif kind == "new_game":
            game.update(rng=random.Random(int(message["seed"], 16)), rule=message["rule"], games=game["games"] + 1)
            if new_game is not None:
                new_game(message, game)
        elif kind == "observation":
            reply = observation(message, game)
        elif kind == "quit":
            if quits:
                return
        else:  # game_over, and whatever later protocol versions add
            reply = other(message)
        if reply is not None:
            before_reply()
            print(json.dumps(reply) if isinstance(reply, dict) else reply, flush=True)
