"""Plays only under the "safe" first-click rule."""

import base


def new_game(message: dict, game: dict) -> None:
    if message["rule"] != "safe":
        raise SystemExit(f"first-click rule {message['rule']!r} not supported")


base.run(new_game=new_game)
