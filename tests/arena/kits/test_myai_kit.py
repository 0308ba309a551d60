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
from arena.limits import SHELL_DIR


def test_the_shell_kit_holds_the_agent_and_the_shells_modules(tmp_path: Path) -> None:
    assert SHELLS == ("myai-python",)
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
    unknown = CliRunner().invoke(app, ["new-bot", "bob", "--language", "myai-java"])
    assert unknown.exit_code == 2 and "python, javascript, cpp, rust, java, myai-python" in unknown.stderr


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
