"""The sandbox around a bot: ``bubblewrap`` (the ``bwrap`` command line, modes, the bot's environment) and
``botfiles`` (what a sandboxed bot sees of the filesystem: its folder, its program, never the arena's files)."""
