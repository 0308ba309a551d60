"""Draws its randomness from the operating system, not from the game's seed."""

import random

import base


def new_game(message: dict, game: dict) -> None:
    game["rng"] = random.Random()


base.run(new_game=new_game)
