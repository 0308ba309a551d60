"""Says "bye" when a game is over."""

import base

base.run(other=lambda message: "bye" if message.get("type") == "game_over" else None)
