"""A course-shell agent that does what ``examples/standalone_bot.py`` does plays exactly its games.

``tests/bots/myai/standalone/MyAI.py`` learns the board one number at a time through ``getAction`` and plays
the example's strategy with the protocol's shared generator (seeded from ``AI.seed``), so through the adapter
(``arena/isolation/myai/host.py``) it must make the example's moves, one for one, under the ``zero`` rule (the
shell's start: the arena opens the tile, so neither makes a first click). The moves compared are the engine's
(kind, cell, cells opened) and each game's outcome; a shell agent cannot mark its guesses or explain them, so
the example's guess marks and notes are left out. A mapping of coordinates, a number given wrongly, a flood's
tiles not given free, or a move spent twice would show here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from repo import BOTS, ROOT

from arena.results.store import Store

NAME = "kit"
RUNS = {
    "beginner": ("-d", "beginner", "-n", "150"),
    "intermediate": ("-d", "intermediate", "-n", "20"),
    "expert": ("-d", "expert", "-n", "15"),
}


def play(command: str, tmp: Path) -> dict[str, list[tuple[int, str, tuple[Any, ...]]]]:
    tmp.mkdir()
    games = {}
    for label, options in RUNS.items():
        store = tmp / f"{label}.db"
        result = subprocess.run(
            [sys.executable, "-c", "from arena.cli import main; main()", "tournament", *options,
             "--first-click", "zero",
             "--engine-bot", f"{NAME}={command}", "-p", NAME, "--store", str(store), "-w", "1", "-q", "--json"],
            capture_output=True, text=True, timeout=900, check=False, cwd=tmp,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-2000:]
        with Store(store, create=False, read_only=True) as db:
            tournament = db.latest()
            games[label] = [
                (
                    row.board,
                    row.outcome.value,
                    tuple(
                        (m.kind.value, m.row, m.col, tuple(m.opened))
                        for m in db.game_record(tournament, NAME, row.board).moves
                    ),
                )
                for row in db.games(tournament)
            ]
    return games


@pytest.mark.slow  # plays the example and the agent through the shell, each game a process: 56 s in the fast tier
def test_a_myai_agent_plays_the_standalone_examples_games(tmp_path: Path) -> None:
    theirs = play(f"{sys.executable} {ROOT / 'examples' / 'standalone_bot.py'}", tmp_path / "example")
    mine = play(str(BOTS / "myai" / "standalone"), tmp_path / "myai")
    compared = moves = 0
    for label, options in RUNS.items():
        assert [b for b, _, _ in theirs[label]] == list(range(int(options[-1]))), label
        assert {o for _, o, _ in theirs[label]} <= {"won", "lost"}, label
        for (board, outcome, record), (_, expected_outcome, expected) in zip(mine[label], theirs[label], strict=True):
            assert record == expected, f"{label} board {board}: the MyAI agent's moves differ"
            assert outcome == expected_outcome, f"{label} board {board}"
            compared += 1
            moves += len(record)
    assert {o for games in theirs.values() for _, o, _ in games} == {"won", "lost"}
    assert compared == 185 and moves > 3000, (compared, moves)
