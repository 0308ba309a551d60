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


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_text_that_is_not_utf8_is_one_line(tmp_path, one_error_line):
    noise = np.random.default_rng(18).integers(0, 256, 1000, dtype=np.uint8).tobytes()
    path = tmp_path / "noise.bin"
    path.write_bytes(noise)
    for args, kwargs in (([str(path)], {}), (["-"], {"input": noise})):
        line = one_error_line(runner.invoke(app, ["analyze", *args, "--mines", "3"], **kwargs))
        assert "is not UTF-8 text (byte 0x" in line


def test_ten_megabytes_of_noise_are_refused_by_their_size(tmp_path, one_error_line):
    path = tmp_path / "noise.bin"
    path.write_bytes(np.random.default_rng(18).integers(0, 256, 10_000_000, dtype=np.uint8).tobytes())
    line = one_error_line(runner.invoke(app, ["analyze", str(path), "--mines", "3"]))
    assert "is larger than 504000 bytes" in line
    assert "at most 1000 rows, 1000 columns and 250000 cells" in line


def test_a_grid_larger_than_any_board_is_refused_before_it_is_built(tmp_path, monkeypatch, one_error_line):
    """3162x3162 covered cells (10 MB) is refused by its size; 600x600 (within the byte cap) by the parser,
    which counts rows and columns before it allocates anything."""
    import engine.layout

    def no_grid(*args, **kwargs):
        raise AssertionError("a grid was allocated")

    monkeypatch.setattr(engine.layout.np, "empty", no_grid)
    huge = tmp_path / "huge.txt"
    huge.write_text("\n".join(["#" * 3162] * 3162))
    assert "larger than" in one_error_line(runner.invoke(app, ["analyze", str(huge), "--mines", "10"]))
    wide = "\n".join(["#" * 600] * 600)
    line = one_error_line(runner.invoke(app, ["analyze", "-", "--mines", "10"], input=wide))
    assert "the position is 600x600, too large: at most 1000 rows, 1000 columns and 250000 cells" in line
    tall = "\n".join(["#"] * 1001)
    assert "is 1001x1, too large" in one_error_line(runner.invoke(app, ["analyze", "-", "--mines", "1"], input=tall))


def test_the_largest_position_parses_and_a_utf8_bom_is_accepted():
    assert parse_position("\n".join(["#" * 1000] * 250)).shape == (250, 1000)
    result = runner.invoke(app, ["analyze", "-", "--mines", "2"], input="\ufeff1##\n1##\n###\n".encode())
    assert result.exit_code == 0, result.output
    assert "best move: reveal 2,0 (certainly safe)" in result.stdout
