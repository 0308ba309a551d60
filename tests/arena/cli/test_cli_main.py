"""``arena`` as the console script runs it (``main``): click's usage errors are one line and exit code 2.

The other CLI tests drive the typer app through ``CliRunner``; these call ``main`` itself, which is
what the ``arena`` script calls, and read what reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.results.store import Store


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return info.value.code, out, err


USAGE = {
    "seed-not-a-number": (("tournament", "--seed", "abc"), "error: --seed: 'abc' is not a valid integer"),
    "workers-not-an-integer": (("tournament", "-w", "1.5"), "error: --workers: '1.5' is not a valid integer"),
    "time-not-a-number": (("tournament", "--move-time", "soon"), "error: --move-time: 'soon' is not a valid number"),
    "unknown-choice": (("tournament", "--isolation", "maybe"), "error: --isolation: 'maybe' is not one of"),
    "leaderboard-games": (("leaderboard", "-n", "x"), "error: --games: 'x' is not a valid integer"),
    "unknown-option": (("leaderboard", "--bogus"), "error: no such option: --bogus (see `arena leaderboard --help`)"),
    "unknown-command": (("tournaments",), "error: no such command 'tournaments'"),
    "old-output-short-form": (
        ("replay", "-o", "x.html"),
        "error: no such option: -o; the file to write is --output FILE (-o is --option, a player option, elsewhere)",
    ),
    "export-output-short-form": (("export", "-o", "x.csv"), "error: no such option: -o; the file to write is --output"),
    "missing-value": (("tournament", "--store"), "error: option '--store' requires an argument"),
    "missing-argument": (("analyze",), "error: missing argument 'position'"),
    "extra-argument": (("leaderboard", "one", "two"), "error: got unexpected extra argument"),
}


@pytest.mark.parametrize("args,line", USAGE.values(), ids=USAGE.keys())
def test_usage_errors_are_one_line_and_exit_code_2(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], line: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1, err
    assert err.startswith(line), err
    assert "Usage:" not in err and "╭" not in err


def test_help_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "Usage:" in out and "tournament" in out
    code, out, _ = run(capsys, "tournament", "--help")
    assert code == 0
    assert "--seed" in out


def test_no_arguments_show_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert "Usage:" in out + err and "leaderboard" in out + err
    assert "error" not in err
    assert code == 2  # as click has it: nothing was done


def test_a_command_that_succeeds_exits_0_and_one_that_fails_keeps_its_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run(capsys, "boards", "--count", "1")[0] == 0
    code, _, err = run(capsys, "leaderboard", "--store", tmp_path / "none.db")
    assert code == 2
    assert err.startswith("error: no results store at") and len(err.splitlines()) == 1


def test_an_unreadable_store_is_the_usual_one_line_error(
    capsys: pytest.CaptureFixture[str], read_only_folder: tuple[Path, Callable[[], Any]]
) -> None:
    folder, locked = read_only_folder
    Store(folder / "arena.db").close()
    run(capsys, "leaderboard", "--store", folder / "arena.db")  # imports everything, as root
    with locked(0o000):
        code, out, err = run(capsys, "leaderboard", "--store", folder / "arena.db", "--list")
    assert (code, out) == (2, "")
    assert err.startswith("error: "), err
    assert len(err.splitlines()) == 1, err


@pytest.mark.slow
def test_every_commands_help_fits_80_columns_without_cutting_a_word() -> None:
    from typer.testing import CliRunner

    from arena.cli import COMMANDS, app

    runner = CliRunner()
    checked = 0
    for name in COMMANDS:
        result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "80", "TERMINAL_WIDTH": "80"})
        assert result.exit_code == 0, (name, result.output)
        lines = result.output.splitlines()
        assert lines and all(len(line) <= 80 for line in lines), (name, max(lines, key=len))
        assert "…" not in result.output, (name, [line for line in lines if "…" in line])
        checked += 1
    assert checked == len(COMMANDS) >= 19
