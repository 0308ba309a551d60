"""``examples/ci_gate.sh``: a bot's CI gating on ``arena match``: exit 0 for a better candidate, 1 for one that is not
better, 2 when the match cannot run."""

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
    assert "accepted: cand is better than base" in better.stdout and "gate: passed" in better.stdout
    assert "split boards:" in better.stdout and "paired difference:" in better.stdout
    worse = gate(strong, weak)
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert "not accepted" in worse.stdout and "gate: failed" in worse.stdout
    assert list(tmp_path.glob("**/gate.db")) == []  # each run's own store, gone


@pytest.mark.slow
def test_a_kept_store_warns_of_a_bot_changed_without_a_new_version(gate, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    weak = bot(tmp_path, "weak")
    strong = bot(tmp_path, "strong", "single_constraint", "MaxSingleConstraintPlayer")
    store = str(tmp_path / "kept.db")
    assert gate(weak, strong, store=store).returncode == 0
    swapped = gate(strong, weak, store=store)
    assert "cand version 1 runs with other files than when it last played" in swapped.stderr


@pytest.mark.slow
def test_the_gate_is_exit_2_when_the_match_cannot_run(gate, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    weak = bot(tmp_path, "weak")
    missing = gate(weak, str(tmp_path / "nowhere.py"))
    assert missing.returncode == 2 and "gate: error" in missing.stdout
    assert "nowhere.py" in missing.stderr
    usage = subprocess.run([str(SCRIPT)], capture_output=True, text=True)
    assert usage.returncode == 2 and "usage:" in usage.stderr
