"""``examples/ci_gate.sh``: a bot's CI gating on ``arena match``: exit 0 for a better candidate, 1 for one that is not
better, 3 undecided, 2 when the match cannot run; for plugins and for starter kits (engine bots), each at a git
revision or as it is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from repo import ROOT

SCRIPT = ROOT / "examples" / "ci_gate.sh"

BOT = """
from players import hookimpl
from players.builtin.{module} import {cls}


class MyBot({cls}):
    name = "my-bot"
    version = "1"


@hookimpl
def register_players(register):
    register(MyBot)
"""


@pytest.fixture
def gate(tmp_path: Path):  # type: ignore[no-untyped-def]
    """``gate(baseline, candidate)``: run the script with ``arena`` on PATH (this checkout's), in ``tmp_path``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    arena = bin_dir / "arena"
    arena.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'from arena.cli import main; main()' \"$@\"\n")
    arena.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")])),
        "GATE_BATCH": "100",
        "GATE_MAX_GAMES": "400",
        "GATE_DELTA": "5",
        "COLUMNS": "120",
    }

    def run(*args: str, store: str = "") -> subprocess.CompletedProcess[str]:
        command = [str(SCRIPT), *args, "-w", "1"]
        kept = {"GATE_STORE": store} if store else {}
        return subprocess.run(command, cwd=tmp_path, env={**env, **kept}, capture_output=True, text=True, timeout=900)

    return run


#: A version that guesses every move (it loses nearly every game): a clear step back.
GUESSER = """
from players import Action, Observation, Player, hookimpl


class MyBot(Player):
    name = "my-bot"
    version = "1"

    def play(self, observation):
        if observation.first_move:
            return [Action.reveal(*self.first_click(observation))]
        rows, cols = (observation.grid == Observation.COVERED).nonzero()
        pick = self.rng.integers(len(rows))
        return [Action.reveal(int(rows[pick]), int(cols[pick]), guess=True)]


@hookimpl
def register_players(register):
    register(MyBot)
"""


def bot(tmp_path: Path, folder: str, module: str = "", cls: str = "") -> str:
    path = tmp_path / folder / "my_bot.py"
    path.parent.mkdir()
    path.write_text(BOT.format(module=module, cls=cls) if module else GUESSER)
    return str(path)


@pytest.mark.slow
def test_the_gate_passes_a_better_bot_and_fails_a_worse_one(gate, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    weak = bot(tmp_path, "weak")
    strong = bot(tmp_path, "strong", "single_constraint", "MaxSingleConstraintPlayer")
    better = gate(weak, strong)
    assert better.returncode == 0, better.stdout + better.stderr
    assert "better: cand is better than base" in better.stdout and "gate: passed" in better.stdout
    assert "split boards:" in better.stdout and "paired difference:" in better.stdout
    worse = gate(strong, weak)
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert "not better: cand is worse than base" in worse.stdout and "gate: failed" in worse.stdout
    assert list(tmp_path.glob("**/gate.db")) == []  # each run's own store, gone


@pytest.mark.slow
def test_a_kept_store_keeps_a_bot_changed_without_a_new_version_apart(gate, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    weak = bot(tmp_path, "weak")
    strong = bot(tmp_path, "strong", "single_constraint", "MaxSingleConstraintPlayer")
    store = str(tmp_path / "kept.db")
    assert gate(weak, strong, store=store).returncode == 0
    swapped = gate(strong, weak, store=store)
    # The same names and versions, other code: the old games are not the new code's, and the gate says so.
    assert "cand version 1 runs other code than its games here (changed: my_bot.py)" in swapped.stderr
    assert swapped.returncode == 1 and "not better: cand@1+" in swapped.stdout


@pytest.mark.slow
def test_the_gate_is_exit_2_when_the_match_cannot_run(gate, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    weak = bot(tmp_path, "weak")
    missing = gate(weak, str(tmp_path / "nowhere.py"))
    assert missing.returncode == 2 and "gate: error" in missing.stdout
    assert "nowhere.py" in missing.stderr
    usage = subprocess.run([str(SCRIPT)], capture_output=True, text=True)
    assert usage.returncode == 2 and "usage:" in usage.stderr


@pytest.mark.slow
def test_the_gate_takes_a_starter_kit_at_a_git_revision(gate, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The Python kit `arena new-bot` writes, committed with a weakened strategy (it never uses its certain
    # moves); the work tree's strategy is the kit's own. Baseline: the kit at HEAD, read with git; candidate: the
    # folder as it is. Both are built with build.sh and played with run.sh as engine bots.
    made = subprocess.run(
        [sys.executable, "-c", "from arena.cli import main; main()", "new-bot", "kbot", "--language", "python"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert made.returncode == 0, made.stderr
    strategy = tmp_path / "kbot" / "strategy.py"
    good = strategy.read_text()
    weak = good.replace("safe, mines = certain_moves(board)", "safe, mines = set(), set()")
    assert weak != good
    strategy.write_text(weak)
    git = ["git", "-c", "user.email=gate@example.org", "-c", "user.name=gate"]
    for args in (["init", "-q", "."], ["add", "-A"], ["commit", "-qm", "weak"]):
        subprocess.run([*git, *args], cwd=tmp_path, check=True)
    strategy.write_text(good)
    better = gate("kbot@HEAD", "kbot")
    assert better.returncode == 0, better.stdout + better.stderr
    assert "better: cand is better than base" in better.stdout and "gate: passed" in better.stdout
    worse = gate("kbot", "kbot@HEAD")
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert "gate: failed" in worse.stdout
    assert subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True, text=True).stdout == (
        " M kbot/strategy.py\n"
    )  # the work tree untouched but for the author's own change


def test_the_gate_refuses_a_folder_that_is_no_kit(gate, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "empty").mkdir()
    result = gate("empty", "empty")
    assert result.returncode == 2 and "neither a plugin file nor a kit's folder" in result.stderr
