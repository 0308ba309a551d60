"""`arena analyze` end to end: JSON shape, exactness on a hand-solved position, one-line errors."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.cli import app
from engine import COVERED, FLAGGED
from engine.layout import parse_position

runner = CliRunner()


def brute_force(grid: np.ndarray, mines: int) -> np.ndarray:
    """Mine probability of every covered cell by listing all layouts (flags are mines)."""
    h, w = grid.shape
    covered = [(r, c) for r in range(h) for c in range(w) if grid[r, c] == COVERED]
    flags = {(r, c) for r in range(h) for c in range(w) if grid[r, c] == FLAGGED}
    hits = np.zeros((h, w))
    total = 0
    for chosen in itertools.combinations(covered, mines - len(flags)):
        layout = flags | set(chosen)
        ok = all(
            sum((rr, cc) in layout for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2)) == grid[r, c]
            for r in range(h)
            for c in range(w)
            if grid[r, c] >= 0
        )
        if ok:
            total += 1
            for cell in chosen:
                hits[cell] += 1
    return hits / total


POSITION = "1###\n12##\n####\n#F##\n"


def test_json_probabilities_match_brute_force(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(POSITION)
    result = runner.invoke(app, ["analyze", str(path), "--mines", "4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"probabilities", "safe", "mines", "best"}
    grid = parse_position(POSITION)
    expected = brute_force(grid, 4)
    for r in range(4):
        for c in range(4):
            got = data["probabilities"][r][c]
            if grid[r, c] == COVERED:
                assert got == pytest.approx(expected[r, c], abs=1e-9)
            elif grid[r, c] == FLAGGED:
                assert got == 1.0
            else:
                assert got is None
    for r, c in data["safe"]:
        assert expected[r, c] == 0
    for r, c in data["mines"]:
        assert expected[r, c] == 1
    best = tuple(data["best"])
    covered_p = [expected[rc] for rc in zip(*np.nonzero(grid == COVERED), strict=True)]
    assert expected[best] == pytest.approx(min(covered_p), abs=1e-12)


def test_reads_stdin_and_draws_heat_map():
    result = runner.invoke(app, ["analyze", "-", "--mines", "2"], input="1##\n1##\n###\n")
    assert result.exit_code == 0, result.output
    assert "best move: reveal 2,0 (certainly safe)" in result.stdout
    assert "safe" in result.stdout and "33%" in result.stdout


@pytest.mark.parametrize(
    ("text", "mines", "needle"),
    [
        ("11#\n###\n", 2, "no layout fits"),
        ("1F\n11\n", 3, "do not fit"),
        ("1x\n", 1, "column 2"),
        ("1##\n1#\n", 1, "same width"),
        ("", 1, "empty"),
    ],
)
def test_bad_positions_exit_2_with_one_line(text, mines, needle):
    result = runner.invoke(app, ["analyze", "-", "--mines", str(mines)], input=text)
    assert result.exit_code == 2
    assert needle in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_missing_file_exit_2(tmp_path):
    result = runner.invoke(app, ["analyze", str(tmp_path / "nope.txt"), "--mines", "3"])
    assert result.exit_code == 2
    assert "does not exist" in result.output
