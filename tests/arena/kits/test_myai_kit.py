"""``arena new-bot NAME --language myai-python``: a course-shell agent's folder for a student starting from scratch,
which plays as ``--engine-bot NAME=FOLDER`` at once and passes ``arena check-bot``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.kits import SHELLS, new_bot, template_files
from arena.kits.toolchains import missing_toolchain
from arena.limits import SHELL_DIR


def test_the_shell_kit_holds_the_agent_and_the_shells_modules(tmp_path: Path) -> None:
    assert SHELLS == ("myai-python", "myai-java", "myai-cpp")
    kit = new_bot("ann", "myai-python", tmp_path / "ann")
    files = sorted(str(p.relative_to(kit.folder)) for p in kit.folder.rglob("*") if p.is_file())
    assert files == sorted(template_files("myai-python")) == ["AI.py", "Action.py", "MyAI.py", "README.md"]
    for name in ("AI.py", "Action.py"):  # the arena's own copies, which the adapter gives the agent
        assert (kit.folder / name).read_bytes() == (SHELL_DIR / name).read_bytes()
    readme = (kit.folder / "README.md").read_text()
    assert "__BOT_NAME__" not in readme and 'arena check-bot --engine-bot "ann=ann"' in readme
    assert kit.strategy_file == kit.folder / "MyAI.py" and kit.run_script == kit.folder


def test_new_bot_says_how_to_play_the_folder(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["new-bot", "ann", "--language", "myai-python"])
    assert result.exit_code == 0, result.output
    assert "your strategy, the one file to edit: ann/MyAI.py" in result.stdout
    assert 'arena check-bot --engine-bot "ann=ann"' in result.stdout
    assert (
        'arena tournament -d beginner --first-click zero -n 200 --engine-bot "ann=ann" -p ann,random' in result.stdout
    )
    unknown = CliRunner().invoke(app, ["new-bot", "bob", "--language", "myai-rust"])
    assert unknown.exit_code == 2 and "python, javascript, cpp, rust, java, myai-python, myai-java, myai-cpp" in (
        unknown.stderr
    )


@pytest.mark.slow  # check-bot's timed checks, then games: 30 s in the fast tier
def test_the_new_agent_passes_check_bot_and_wins_some_games(tmp_path: Path) -> None:
    kit = new_bot("ann", "myai-python", tmp_path / "ann")
    run = [sys.executable, "-c", "from arena.cli import main; main()"]
    checked = subprocess.run(
        [*run, "check-bot", "--engine-bot", f"ann={kit.folder}", "--json"],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )  # fmt: skip
    report = json.loads(checked.stdout)
    assert checked.returncode == 0 and report["passed"], [c for c in report["checks"] if not c["passed"]]
    played = subprocess.run(
        [*run, "tournament", "-d", "beginner", "--first-click", "zero", "-n", "20", "--engine-bot",
         f"ann={kit.folder}", "-p", "ann", "--store", str(tmp_path / "s.db"), "-w", "1", "-q", "--json"],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr[-2000:]
    (row,) = json.loads(played.stdout)["rows"]
    assert row["games"] == 20 and 5 <= row["wins"] <= 20 and row["failed"] == 0


@pytest.mark.parametrize(
    ("language", "agent", "shell"),
    [
        ("java", ["MyAI.java"], ["java/AI.java", "java/Action.java"]),
        ("cpp", ["MyAI.cpp", "MyAI.hpp"], ["cpp/Agent.hpp"]),
    ],
)
def test_the_java_and_cpp_shell_kits_hold_the_agent_and_the_shells_files(
    tmp_path: Path, language: str, agent: list[str], shell: list[str]
) -> None:
    kit = new_bot("ann", f"myai-{language}", tmp_path / "ann")
    files = sorted(str(p.relative_to(kit.folder)) for p in kit.folder.rglob("*") if p.is_file())
    assert files == sorted([*agent, "README.md", *(name.rpartition("/")[2] for name in shell)])
    for name in shell:  # the arena's own copies, which the build uses whatever the folder holds
        assert (kit.folder / name.rpartition("/")[2]).read_bytes() == (SHELL_DIR / name).read_bytes()
    assert "__BOT_NAME__" not in (kit.folder / "README.md").read_text() + (kit.folder / agent[0]).read_text()
    assert kit.strategy_file == kit.folder / agent[0] and kit.run_script == kit.folder


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("language", ["java", "cpp"])
def test_the_new_java_or_cpp_agent_is_built_passes_check_bot_and_wins_some_games(tmp_path: Path, language: str) -> None:
    """The arena builds the new folder itself (in the build sandbox) the first time it is played."""
    if missing_toolchain(language):
        pytest.skip(missing_toolchain(language) or "")
    kit = new_bot("ann", f"myai-{language}", tmp_path / "ann")
    run = [sys.executable, "-c", "from arena.cli import main; main()"]
    checked = subprocess.run(
        [*run, "check-bot", "--engine-bot", f"ann={kit.folder}", "--json"],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )  # fmt: skip
    report = json.loads(checked.stdout)
    assert checked.returncode == 0 and report["passed"], [c for c in report["checks"] if not c["passed"]]
    played = subprocess.run(
        [*run, "tournament", "-d", "beginner", "--first-click", "zero", "-n", "20", "--engine-bot",
         f"ann={kit.folder}", "-p", "ann", "--store", str(tmp_path / "s.db"), "-w", "1", "-q", "--json"],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr[-2000:]
    (row,) = json.loads(played.stdout)["rows"]
    assert row["games"] == 20 and 5 <= row["wins"] <= 20 and row["failed"] == 0
