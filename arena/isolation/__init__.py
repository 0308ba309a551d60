"""Running players apart from the arena: settings, the line protocol, bot processes.

``settings`` (isolation mode, limits, engine bots) and ``protocol`` are plain values and codecs and
are re-exported here. The machinery is imported from its module, because it needs ``arena.runner``,
which itself needs the settings: ``process`` (a bot process: limits, deadlines, kill), ``sandbox``
(the limits set before ``exec``), ``remote`` (``RemoteAgent``, the game loop's view of a bot) and
``catalog`` (finding players without importing third-party code). The Python client of the protocol
is ``arena.bot_host``; the reference is docs/protocol.md.
"""

from __future__ import annotations

from arena.isolation.protocol import PROTOCOL_VERSION, BotReportedError, ProtocolError
from arena.isolation.settings import DEFAULT_LIMITS, EngineBot, Isolation, Limits

__all__ = [
    "DEFAULT_LIMITS",
    "PROTOCOL_VERSION",
    "BotReportedError",
    "EngineBot",
    "Isolation",
    "Limits",
    "ProtocolError",
]
