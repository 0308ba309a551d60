"""Finding players without running third-party code in the arena: ``catalog`` (the players a tournament may
name) and ``revisions`` (``--plugin PATH@REV``: a plugin as it was at a git revision)."""
