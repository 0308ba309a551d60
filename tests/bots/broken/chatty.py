"""Prints a debugging line on stdout before each reply to an observation."""

import base


def observation(message: dict, game: dict) -> dict:
    print(f"thinking about move {message['moves']}...", flush=True)
    return base.decide(message, game)


base.run(observation=observation)
