"""`arena sweep`: the grid, the 50% density, the CSV and plot, and bad ranges."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from recorder import Recorder
from typer.testing import Result

from arena.config import PlayerRef
from arena.experiments.sweep import (
    Cell,
    CellResult,
    SweepError,
    SweepEvents,
    density_at_half,
    density_range,
    plan_cells,
    run_sweep,
)
from arena.play.backends import local
from arena.play.plan import TournamentSummary
from arena.results.store import Store
from engine import FirstClick
from players.registry import Registry

Cli = Callable[..., Result]


def test_density_ranges_include_both_ends() -> None:
    assert density_range("0.10:0.25:0.01") == pytest.approx([0.10 + 0.01 * i for i in range(16)])
    assert density_range("0.2") == [0.2]
    for bad in ("0.9:0.1:0.1", "0.1:0.2:0", "0:0.2:0.1", "0.1:1.2:0.1", "a:b:c", "0.1:0.2"):
        with pytest.raises(SweepError, match="--density"):
            density_range(bad)


def test_cells_round_densities_to_mines_and_check_the_first_click() -> None:
    cells = plan_cells([(16, 30)], FirstClick.SAFE, densities=[0.10, 0.2062])
    assert [c.mines for c in cells] == [48, 99]
    assert cells[1].spec.name == "expert"
    assert [c.mines for c in plan_cells([(9, 9)], FirstClick.SAFE, mines=[10, 10, 12])] == [10, 12]
    with pytest.raises(SweepError, match="3x3"):
        plan_cells([(3, 3)], FirstClick.OPENING, densities=[0.5])


def _synthetic(d50: float, slope: float, games: int, seed: int) -> list[CellResult]:
    rng = np.random.default_rng(seed)
    results = []
    for mines in range(40, 130, 6):
        cell = Cell(16, 30, mines)
        p = 1 / (1 + np.exp(slope * (cell.density - d50)))
        results.append(CellResult(cell, "bot", games, int(rng.binomial(games, p)), "t"))
    return results


def test_half_density_interval_covers_the_truth_about_95_percent() -> None:
    covered = unbounded = 0
    for seed in range(200):
        half = density_at_half(_synthetic(0.17, 40.0, 300, seed))
        assert half.density is not None
        if half.low is None:  # the two points around 50% cannot pin the slope: no finite interval
            unbounded += 1
            continue
        assert half.high is not None and half.low < half.density < half.high
        covered += half.low <= 0.17 <= half.high
    assert unbounded <= 10
    assert 180 - unbounded <= covered  # 95% of 200 is 190; a binomial 99.9% band is about 178-198


def test_half_density_is_none_when_50_percent_is_not_bracketed() -> None:
    results = [r for r in _synthetic(0.17, 40.0, 300, 0) if r.cell.density > 0.25]
    assert density_at_half(results).density is None


@pytest.fixture(scope="module")
def sweep_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Path, Path]:
    from typer.testing import CliRunner

    from arena.cli import app

    folder = tmp_path_factory.mktemp("sweep")
    store, out_csv, plot = folder / "arena.db", folder / "sweep.csv", folder / "sweep.svg"
    args = ["sweep", "--size", "9x9", "--mines", "8,14,20", "-p", "random,max-single-constraint", "-n", "40"]
    args += ["-w", "1", "--store", str(store), "--csv", str(out_csv), "--plot", str(plot), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return store, json.loads(result.stdout), out_csv, plot


@pytest.mark.slow
def test_sweep_plays_every_cell_as_a_tournament(cli: Cli, sweep_run: tuple[Path, dict, Path, Path]) -> None:
    store, data, out_csv, plot = sweep_run
    cells = data["cells"]
    assert len(cells) == 6
    assert {(c["mines"], c["player"]) for c in cells} == {
        (m, p) for m in (8, 14, 20) for p in ("random", "max-single-constraint")
    }
    for c in cells:
        board = json.loads(cli("leaderboard", c["tournament"], "--store", store, "--json").stdout)
        wins = {row["player"]: row["wins"] for row in board["rows"]}
        assert wins[c["player"]] == c["wins"]
        assert c["games"] == 40
    with out_csv.open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6
    assert {int(r["wins"]) for r in rows} == {c["wins"] for c in cells}
    assert plot.read_text().lstrip().startswith("<?xml")
    assert "mine density" in plot.read_text()


def test_sweep_resumes(cli: Cli, sweep_run: tuple[Path, dict, Path, Path]) -> None:
    store = sweep_run[0]
    args = ("sweep", "--size", "9x9", "--mines", "8,14,20", "-p", "random,max-single-constraint", "-n", "40")
    result = cli(*args, "-w", "1", "--store", store)
    assert result.exit_code == 0, result.output
    assert result.stderr.count("played 0, 80 already stored") == 3
    assert "random on 9x9: 50% wins at density" in result.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--density", "0.9:0.1:0.1"), "STOP is below START"),
        (("--size", "3x3", "--density", "0.9", "--first-click", "opening"), "3x3"),
        (("--size", "16x30"), "--density"),
        (("--density", "0.1", "--mines", "10"), "--density"),
        (("--density", "0.1", "--size", "16by30"), "--size"),
        (("--mines", "10,x"), "--mines"),
        (("--density", "0.1", "-p", "nosuchplayer"), "nosuchplayer"),
        (("--density", "0.1", "--plot", "x.pdf"), "--plot"),
    ],
)
def test_bad_input_is_one_line(cli: Cli, tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    result = cli("sweep", *args, "--store", tmp_path / "a.db")
    assert result.exit_code == 2, result.output
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "a.db").exists()


class SweepRecorder(Recorder, SweepEvents):
    """The tournament events of each cell's run, and each cell as it is done."""

    def cell_done(self, cell: Cell, summary: TournamentSummary) -> None:
        self.events.append(("cell_done", (cell, summary)))


@pytest.mark.slow  # tournaments are played
def test_each_cell_is_a_planned_run_told_as_it_is_done(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "COMMIT_SECONDS", 3600.0)  # one worker hands a run's games over once, at its end
    cells = [Cell(6, 6, 4), Cell(6, 6, 8)]
    events = SweepRecorder()
    with Store(tmp_path / "a.db") as store:
        refs = (PlayerRef(name="random"),)
        results = run_sweep(cells, FirstClick.SAFE, refs, 6, 1, store, Registry(), workers=1, events=events)
        again = SweepRecorder()
        run_sweep(cells, FirstClick.SAFE, refs, 6, 1, store, Registry(), workers=1, events=again)
    names = [name for name in events.names if name != "compiling"]
    assert names == ["started", "batch_done", "finished", "cell_done"] * 2
    done = [value for name, value in events.events if name == "cell_done"]
    assert [cell for cell, _ in done] == cells and [s.played for _, s in done] == [6, 6]
    assert [(r.cell, r.games) for r in results] == [(cells[0], 6), (cells[1], 6)]
    # Resumed: each cell planned with nothing left, told all the same.
    assert again.names == ["started", "finished", "cell_done"] * 2
    assert [value[1].skipped for name, value in again.events if name == "cell_done"] == [6, 6]
