"""Starter kits: a ready bot project in each language the arena's protocol is spoken in most.

``arena new-bot`` writes one (``new_bot.new_bot``); the projects themselves are package data under
``templates/<language>/``. Every kit plays the shared starting strategy with the shared generator of
docs/protocol.md, so all of them, and ``examples/standalone_bot.py``, play the same moves (tests/arena/kits/).
"""

from __future__ import annotations

from arena.kits.new_bot import LANGUAGES, SHELLS, KitError, NewBot, engine_bot_option, new_bot, template_files

__all__ = ["LANGUAGES", "SHELLS", "KitError", "NewBot", "engine_bot_option", "new_bot", "template_files"]
