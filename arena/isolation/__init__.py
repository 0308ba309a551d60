"""Running players apart from the arena: settings, the line protocol, bot processes, the sandbox.

``settings`` (isolation and sandbox modes, limits, engine bots) and ``protocol`` are plain values
and codecs and are re-exported here. The machinery is imported from its module: ``process`` (a bot
process: limits, deadlines, kill), ``launch`` (the limits set before ``exec``), ``sandbox`` (the
bubblewrap sandbox around a bot), ``remote`` (``RemoteAgent``, the game loop's view of a bot),
``catalog`` (finding players without importing third-party code), ``shared`` and ``spin`` (the fast
channel), ``build`` (``build_bot``: a bot folder's ``build.sh`` in the sandbox, its first error named by
``build_errors``). The Python client of the protocol is ``arena.isolation.bot_host``; the reference is
docs/protocol.md.
"""

from __future__ import annotations

from arena.isolation.protocol import PROTOCOL_VERSION, BotReportedError, ProtocolError
from arena.isolation.settings import DEFAULT_LIMITS, Clock, EngineBot, Isolation, Limits, SandboxMode

__all__ = [
    "DEFAULT_LIMITS",
    "PROTOCOL_VERSION",
    "BotReportedError",
    "Clock",
    "EngineBot",
    "Isolation",
    "Limits",
    "ProtocolError",
    "SandboxMode",
]
