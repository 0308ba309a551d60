"""Running games: one game's loop (``runner``), the agents that stand for players (``agents``), a worker's
batch of games (``worker``), the compile step (``warmup``), a whole tournament (``tournament``) with its
signal handling (``signals``), and where its batches run (``backends``)."""
