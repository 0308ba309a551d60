"""Answers a message of a type it does not know."""

import base

base.run(other=lambda message: None if message.get("type") == "game_over" else {"error": "unknown message"})
