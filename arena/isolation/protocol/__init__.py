"""The line protocol between the arena and a bot (docs/protocol.md): ``messages`` (the messages and their
codec), ``bot_host`` (a registered Python player behind the protocol: the bot's end), ``remote``
(``RemoteAgent``: the arena's end) and ``shared`` (the shared-memory channel for the Python host)."""
