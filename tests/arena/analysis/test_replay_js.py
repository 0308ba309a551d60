"""The replay's engine and solver in JavaScript (``arena/analysis/replay/assets/solver.js``) held equal to the
Python reference: run in node on the games of built-in players on boards of several sizes and rules, every
position of every game is compared with ``arena.analysis.replay.replay`` (the grid, the cells each move opened,
the ending, the 3BV) and with ``players.solver.analyze`` (each covered cell's exact mine probability within 1e-9,
and exactly the certain cells). Skips, saying why, when node is missing (``.ci/run`` installs it)."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from arena.analysis.replay import ReplayGame, ReplayMove, replay
from arena.analysis.replay.page import encode_layout, game_data
from engine import BEGINNER, EXPERT, INTERMEDIATE, Action, BoardSpec, FirstClick

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
RUNNER = Path(__file__).with_name("replay_js_runner.js")

#: (player, board, rule, games): a few hundred games in all, small and large boards, every first-click rule, and
#: players that flag, chord and guess badly (random) as well as well (enumeration).
PLAN = [
    ("random", BEGINNER, "safe", 60),
    ("rref", BEGINNER, "opening", 40),
    ("mean-constraint", BoardSpec(6, 7, 8), "none", 60),
    ("max-single-constraint", BoardSpec(5, 12, 14), "windows", 40),
    ("enumeration", INTERMEDIATE, "safe", 30),
    ("random", INTERMEDIATE, "opening", 20),
    ("enumeration", EXPERT, "safe", 12),
    ("rref", EXPERT, "opening", 8),
]


def run_js(tmp_path: Path, games: list[dict]) -> list[dict]:
    solver = resources.files("arena.analysis.replay").joinpath("assets", "solver.js")
    source, out = tmp_path / "games.json", tmp_path / "out.json"
    source.write_text(json.dumps(games), encoding="utf-8")
    subprocess.run([NODE, str(RUNNER), str(solver), str(source), str(out)], check=True, timeout=600)
    return json.loads(out.read_text(encoding="utf-8"))


def chords_and_flags(record_game, spec: BoardSpec) -> list[ReplayGame]:
    """Games that flag, unflag and chord (a wrong flag chorded onto a mine too): built by hand from a played game."""
    played = record_game("enumeration", spec, "safe", seed=11, board=0)
    rep = replay(played.game, probabilities=False)
    assert rep.layout is not None
    grid = rep.steps[1].grid
    layout = rep.layout
    moves = list(played.game.moves[:1])
    games = []
    # find a revealed number with covered neighbours: flag them right (then chord), or flag a safe one (chord: lost)
    for r, c in zip(*np.nonzero(grid > 0), strict=True):
        around = [
            (rr, cc)
            for rr in range(max(0, r - 1), min(spec.height, r + 2))
            for cc in range(max(0, c - 1), min(spec.width, c + 2))
            if grid[rr, cc] < 0
        ]
        mines = [cell for cell in around if layout[cell]]
        safe = [cell for cell in around if not layout[cell]]
        if mines and safe and len(mines) == grid[r, c]:
            right = [ReplayMove("flag", *cell) for cell in mines]
            wobble = [ReplayMove("flag", *safe[0]), ReplayMove("unflag", *safe[0])]
            games.append(moves + wobble + right + [ReplayMove("chord", int(r), int(c))])
            if len(safe) >= len(mines):
                wrong = [ReplayMove("flag", *cell) for cell in safe[: len(mines)]]
                games.append(moves + wrong + [ReplayMove("chord", int(r), int(c))])
        if len(games) >= 4:
            break
    assert len(games) >= 2, "the board should have a number to chord"
    return [ReplayGame("hand", spec, "safe", 11, 0, m) for m in games]


@pytest.mark.slow
def test_js_replays_and_analyses_every_position_as_python_does(record_game, tmp_path):
    records: list[ReplayGame] = []
    for seed, (player, spec, rule, count) in enumerate(PLAN):
        records += [record_game(player, spec, rule, seed=seed, board=board).game for board in range(count)]
    records += chords_and_flags(record_game, INTERMEDIATE)
    replays = [replay(game) for game in records]
    payload = [game_data(rep.game, rep.layout) for rep in replays]
    found = run_js(tmp_path, payload)
    positions = cells = certain = games_with_flags = chords = 0
    for rep, js in zip(replays, found, strict=True):
        label = rep.game.label
        assert js["problem"] == "", label
        assert len(js["steps"]) == len(rep.steps), label
        assert js["status"] == rep.status.value, label
        exploded = None if rep.exploded is None else rep.exploded[0] * rep.game.spec.width + rep.exploded[1]
        assert js["exploded"] == exploded, label
        if rep.layout is not None:
            assert js["bbbv"] == {"total": rep.bbbv, "solved": rep.bbbv_solved}, label
        games_with_flags += any(m.kind.value == "flag" for m in rep.game.moves)
        chords += sum(m.kind.value == "chord" for m in rep.game.moves)
        for step, mine in zip(rep.steps, js["steps"], strict=True):
            where = f"{label}, step {step.number}"
            assert mine["grid"] == step.grid.reshape(-1).tolist(), where
            assert mine["opened"] == sorted(step.opened), where
            if step.analysis is None:
                assert "p" not in mine, where
                if step.analysis_note:
                    assert mine.get("note") == step.analysis_note, where
                continue
            assert "p" in mine, (where, mine.get("note"))
            expected = step.analysis.probabilities.reshape(-1)
            flat_grid = step.grid.reshape(-1)
            shown = np.array([np.nan if v is None else v for v in mine["p"]])
            covered = flat_grid < 0
            assert np.isnan(shown[~covered]).all(), where
            assert not np.isnan(shown[covered]).any(), where
            worst = float(np.abs(shown[covered] - expected[covered]).max(initial=0.0))
            assert worst <= 1e-9, (where, worst)
            width = rep.game.spec.width
            safe = {r * width + c for r, c in step.analysis.safe}
            mines = {r * width + c for r, c in step.analysis.mines}
            assert {i for i, m in enumerate(mine["mark"]) if m == 1} == safe, where
            assert {i for i, m in enumerate(mine["mark"]) if m == 2} == mines, where
            positions += 1
            cells += int(covered.sum())
            certain += len(safe) + len(mines)
    # What was compared, so an empty loop cannot pass.
    assert len(replays) >= 270 and positions >= 3000 and cells >= 300_000 and certain >= 10_000
    assert games_with_flags >= 20 and chords >= 2
    print(f"{len(replays)} games, {positions} positions, {cells} covered cells, {certain} certain cells compared")


def test_js_reads_the_compact_layout_and_moves(tmp_path):
    """The encodings the page reads back: a layout of every shape (bits across digit boundaries) and moves of
    every kind, with the guess mark, on a board large enough for three-digit moves."""
    rng = np.random.default_rng(5)
    games = []
    for height, width, mines in [(1, 2, 1), (3, 7, 5), (16, 30, 99), (100, 100, 1500)]:
        spec = BoardSpec(height, width, mines)
        layout = np.zeros(spec.cells, dtype=bool)
        layout[rng.choice(spec.cells, size=mines, replace=False)] = True
        layout = layout.reshape(height, width)
        last = (height - 1, width - 1)
        moves = [
            ReplayMove.from_action(Action.reveal(0, 0, guess=True)),
            ReplayMove("flag", *last),
            ReplayMove("unflag", *last, note="n"),
            ReplayMove("chord", *last),
        ]
        game = ReplayGame("p", spec, FirstClick.NONE, 0, 0, moves)
        data = game_data(game, layout)
        assert data["layout"] == encode_layout(layout)
        games.append((data, layout))
    script = (
        "require(process.argv[1]);const S=globalThis.ArenaSolver;const games=JSON.parse(process.argv[2]);"
        "console.log(JSON.stringify(games.map(g=>[Array.from(S.decodeLayout(g.layout,g.rows*g.cols)),"
        "S.decodeMoves(g.moves,g.w,g.cols,g.notes)])));"
    )
    solver = resources.files("arena.analysis.replay").joinpath("assets", "solver.js")
    answer = subprocess.run(
        [NODE, "-e", script, str(solver), json.dumps([d for d, _ in games])],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    decoded = json.loads(answer.stdout)
    for (data, layout), (mines, moves) in zip(games, decoded, strict=True):
        assert mines == layout.reshape(-1).astype(int).tolist()
        last = [data["rows"] - 1, data["cols"] - 1]
        expected = [["reveal", 0, 0, 1, None], ["flag", *last, 0, None], ["unflag", *last, 0, "n"]]
        assert moves == [*expected, ["chord", *last, 0, None]]
    assert len(decoded) == 4 and [d["w"] for d, _ in games] == [1, 2, 2, 3]


def test_js_says_where_a_record_stops_replaying(record_game, tmp_path):
    """A site's data is not replayed in Python first: a record that goes on after its game ended, or reveals a
    revealed cell, is shown up to the move that fails and the page says why."""
    played = record_game("random", BEGINNER, "safe", seed=4, board=0)
    rep = replay(played.game)
    assert rep.status.value in ("won", "lost")
    after_end = ReplayGame("p", BEGINNER, "safe", 4, 0, [*played.game.moves, ReplayMove("flag", 0, 0)])
    first = played.game.moves[0]
    twice = ReplayGame("p", BEGINNER, "safe", 4, 0, [first, ReplayMove("reveal", first.row, first.col)])
    found = run_js(tmp_path, [game_data(g, rep.layout) for g in (after_end, twice)])
    n = len(played.game.moves)
    assert found[0]["problem"] == f"move {n + 1} comes after the game ended ({rep.status.value})"
    assert len(found[0]["steps"]) == n + 1
    assert found[1]["problem"] == "move 2 reveals a cell that is not covered" and len(found[1]["steps"]) == 2
