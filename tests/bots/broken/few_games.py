"""Keeps something of every game and dies in its eleventh."""

import base


def new_game(message: dict, game: dict) -> None:
    if game["games"] > 10:
        raise SystemExit("out of room after 10 games")


base.run(new_game=new_game)
