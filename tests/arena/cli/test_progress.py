"""``RunDisplay``: a run's events as the terminal shows them (the games' bar, the compile's row, warnings)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.progress import Progress

from arena.cli.progress import RunDisplay
from arena.play.warmup import CompileEvent


@pytest.fixture
def progress() -> Progress:
    return Progress(console=Console(file=io.StringIO(), force_terminal=False), auto_refresh=False)


def test_each_committed_batch_advances_the_games_bar_and_its_rate(progress: Progress) -> None:
    games = progress.add_task("beginner", total=10, rate="- games/s")
    display = RunDisplay(progress, games, rate=True)
    for size in (4, 2, 3):
        display.batch_done([object()] * size)  # type: ignore[list-item]
    (task,) = progress.tasks
    assert task.completed == 9
    assert task.fields["rate"].endswith(" games/s")


def test_without_a_rate_only_the_bar_moves(progress: Progress) -> None:
    games = progress.add_task("games", total=5)
    RunDisplay(progress, games).batch_done([object()] * 5)  # type: ignore[list-item]
    (task,) = progress.tasks
    assert (task.completed, task.fields) == (5, {})


def test_the_compile_step_is_a_row_beside_the_bar_while_it_lasts(
    progress: Progress, capsys: pytest.CaptureFixture[str]
) -> None:
    games = progress.add_task("beginner", total=4, rate="- games/s")
    display = RunDisplay(progress, games, rate=True)
    display.compiling(CompileEvent("begin", keys=("apex", "rref")))
    display.compiling(CompileEvent("compiling", key="apex"))
    assert [t.description for t in progress.tasks] == ["beginner", "compiling apex"]
    display.compiling(CompileEvent("done", key="apex"))
    display.compiling(CompileEvent("done", key="rref", error="boom"))
    display.compiling(CompileEvent("end", keys=("apex", "rref"), seconds=1.5, cpu=2.5))
    assert [t.description for t in progress.tasks] == ["beginner"]  # the row is gone, the bar stays
    err = capsys.readouterr().err
    assert "compiling the players' numba code, first run only" in err and "apex, rref" in err
    assert "preparing rref failed: boom" in err and "compiled in 1.5s (2.5s of CPU)" in err


def test_quiet_shows_notes_and_nothing_of_the_games(capsys: pytest.CaptureFixture[str]) -> None:
    display = RunDisplay()
    display.batch_done([object()] * 3)  # type: ignore[list-item]
    display.note("vbot version 2 runs with [bold]other files[/bold]")
    err = capsys.readouterr().err
    assert err.strip() == "warning: vbot version 2 runs with [bold]other files[/bold]"  # a bot's text, not markup
