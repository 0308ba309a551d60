"""The line protocol between the arena and a bot (docs/protocol.md): ``messages`` (the messages and their
codec), ``bot_host`` (a registered Python player behind the protocol: the bot's end), ``remote``
(``RemoteAgent``: the arena's end), ``connection`` (``BotConnection``: what the arena's end needs of the other),
``bot_command`` (the command, environment and sandbox that start a bot) and ``shared`` (the shared-memory channel
for the Python host)."""
