"""The command line starts light: listing the commands imports no command module, numba or solver.

What is imported is behaviour (``sys.modules`` in a fresh interpreter), not timing: the start-up times are
measured by ``benchmarks/cli_startup.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from arena.cli import COMMANDS, app

HEAVY = ("numba", "numpy", "players", "engine", "arena.results.store", "arena.play.tournament")

#: Runs the CLI with ``argv`` in a fresh interpreter and prints which of ``HEAVY`` and of the command modules
#: got imported.
PROBE = """
import contextlib, io, json, sys
from arena.cli import main
argv, heavy = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.argv = ["arena", *argv]
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        main()
    except SystemExit as stop:
        code = stop.code
loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy or m in heavy or m.startswith("arena.cli."))
print(json.dumps({"code": code, "loaded": loaded, "out": out.getvalue()}))
"""


def probe(*argv: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv), json.dumps(HEAVY)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_importing_the_cli_imports_no_command_numba_or_solver() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys, arena.cli; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(eval(done.stdout))
    assert not {m for m in loaded if m.split(".")[0] in ("numba", "numpy", "players", "engine")}
    assert not {m for m in loaded if m.startswith("arena.cli.")}


@pytest.mark.parametrize("argv", [["--help"], []])
def test_listing_the_commands_imports_none_of_them(argv: list[str]) -> None:
    result = probe(*argv)
    assert result["code"] in (0, 2)  # no arguments: the help, with click's "missing command" exit code
    assert result["loaded"] == []
    for name, text in COMMANDS.items():
        assert name in result["out"]
        assert text.split()[0] in result["out"]


@pytest.mark.slow
def test_a_command_imports_only_its_own_module() -> None:
    result = probe("boards", "-n", "1")
    assert result["code"] in (0, None)
    commands = [m for m in result["loaded"] if m.startswith("arena.cli.")]
    assert "arena.cli.boards" in commands, commands  # the command ran: the subset check below is not empty
    assert set(commands) <= {"arena.cli.boards", "arena.cli.common"}
    assert "arena.play.tournament" not in result["loaded"] and "arena.results.store" not in result["loaded"]


def test_a_commands_help_still_shows_its_options() -> None:
    result = CliRunner().invoke(app, ["tournament", "--help"])
    assert result.exit_code == 0, result.output
    for option in ("--difficulty", "--games", "--players", "--workers", "--store", "--isolation"):
        assert option in result.output


def test_an_unknown_command_is_refused_with_a_suggestion() -> None:
    result = CliRunner().invoke(app, ["tournamnet"])
    assert result.exit_code == 2
    assert "tournament" in result.output
