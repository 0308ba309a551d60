"""Explaining results: intervals and tests (``stats``, ``sequential``), leaderboards (``leaderboard``), the boards
two players split (``pairs``), failed and lost games (``failures``, ``losses``) and HTML replays (``replay``)."""
