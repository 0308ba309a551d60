"""Running games: one game's loop (``runner``), the agents that stand for players (``agents``), a worker's
batch of games (``worker``), the compile step (``warmup``), a tournament run planned as one value (``plan``)
and played (``tournament``), telling its watcher (``events``), with its signal handling (``signals``), and
where its batches run (``backends``)."""
