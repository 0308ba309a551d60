"""``--clock cpu``: a move's limit counted in the bot's own CPU time (its whole process tree, from the kernel), with
wall time as a backstop; the clock recorded with the tournament and shown with its results. Limits are generous or
the clock is fake: nothing here depends on the machine's speed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from repo import ROOT
from typer.testing import Result

from arena.isolation.processes.bot_process import BotCpuTimeout, BotProcess, BotTimeout
from arena.isolation.processes.cpu import tree_cpu_seconds
from arena.limits import Clock, Limits
from arena.results.store import Store

#: examples/standalone_bot.py, but its first reply of every game comes after SLEEP seconds of sleep (no CPU).
SLEEPY = f"""
import runpy, sys, time

SLEEP = float(sys.argv[1])


class Slow:
    def __init__(self, out):
        self.out, self.slept = out, False

    def write(self, text):
        if '"actions"' in text and not self.slept:
            self.slept = True
            time.sleep(SLEEP)
        if '"game_over"' in text or "new_game" in text:
            self.slept = False
        return self.out.write(text)

    def __getattr__(self, name):
        return getattr(self.out, name)


sys.stdout = Slow(sys.stdout)
sys.argv = [sys.argv[0]]
runpy.run_path({str(ROOT / "examples" / "standalone_bot.py")!r}, run_name="__main__")
"""


@pytest.fixture
def sleepy(tmp_path: Path) -> str:
    path = tmp_path / "sleepy.py"
    path.write_text(SLEEPY)
    return f"sleepy={sys.executable} {path} 1.5"


@pytest.mark.serial  # a bot's wall time against its CPU time
def test_sleeping_is_a_timeout_on_the_wall_clock_and_not_on_the_cpu_clock(
    cli: Callable[..., Result], tmp_path: Path, sleepy: str
) -> None:
    args = ("tournament", "-d", "beginner", "-n", "2", "-p", "sleepy", "--engine-bot", sleepy, "--sandbox", "off")
    limits = ("--move-time", "0.5", "-w", "1", "--json")
    wall = cli(*args, *limits, "--store", tmp_path / "wall.db")
    cpu = cli(*args, *limits, "--clock", "cpu", "--store", tmp_path / "cpu.db")
    assert wall.exit_code == 0 and cpu.exit_code == 0, wall.output + cpu.output
    wall_rows, cpu_rows = json.loads(wall.stdout), json.loads(cpu.stdout)
    # 1.5 s of sleep against 0.5 s + 0.5 s grace: every game a timeout on the wall clock.
    assert wall_rows["rows"][0]["failed_by"]["timeout"] == 2
    # On the CPU clock the sleep costs nothing (the backstop is 5 x 1.0 s): no game timed out.
    assert cpu_rows["rows"][0]["failed_by"]["timeout"] == 0 and cpu_rows["rows"][0]["games"] == 2
    # The clock is recorded with the tournament and shown with its results.
    assert cpu_rows["config"]["clock"] == "cpu" and wall_rows["config"]["clock"] == "wall"
    assert cpu_rows["run"]["clock"] == "cpu"
    with Store(tmp_path / "cpu.db", read_only=True) as store:
        assert store.tournament(store.latest()).config_data["limits"]["clock"] == "cpu"
    shown = cli("leaderboard", "--store", tmp_path / "cpu.db")
    assert "cpu clock" in shown.stdout
    assert "cpu clock" not in cli("leaderboard", "--store", tmp_path / "wall.db").stdout


def test_a_move_ends_when_the_fake_cpu_clock_runs_out() -> None:
    process = BotProcess([sys.executable, "-c", "import time; time.sleep(60)"])
    process.start()
    try:
        readings = iter([0.1, 0.4, 2.0])  # the bot's CPU seconds at each look: the third is past the limit
        process.tree_cpu = lambda: next(readings)
        process.cpu_deadline = 1.0
        with pytest.raises(BotCpuTimeout):
            process.receive(time.monotonic() + 600)  # the wall backstop is far away
        # Under the wall clock (no CPU deadline) the same wait ends at the wall deadline, as a plain timeout.
        process.cpu_deadline = None
        with pytest.raises(BotTimeout) as error:
            process.receive(time.monotonic() + 0.05)
        assert not isinstance(error.value, BotCpuTimeout)
    finally:
        process.kill()
        process.close()


def test_the_tree_counts_a_grandchilds_cpu(tmp_path: Path) -> None:
    """A bot that thinks in a grandchild: its CPU counts, read from the kernel (waited for, never timed)."""
    burn = "import time\nwhile time.process_time() < 0.3: pass\ntime.sleep(60)"
    child = f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {burn!r}])\ntime.sleep(60)"
    root = subprocess.Popen([sys.executable, "-c", child], start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        seen = 0.0
        while seen < 0.3 and time.monotonic() < deadline:
            seen = tree_cpu_seconds(root.pid)
            time.sleep(0.05)
        assert seen >= 0.3
    finally:
        os.killpg(root.pid, signal.SIGKILL)  # the test's own process group: the child and the grandchild
        root.wait()
    assert tree_cpu_seconds(root.pid) == 0.0  # gone: nothing to read


def test_limits_read_wall_by_default_and_keep_the_backstop() -> None:
    assert Limits().clock is Clock.WALL and Limits.model_validate({"move_time": 2}).clock is Clock.WALL
    assert Limits(clock=Clock.CPU).backstop >= 1.0
    with pytest.raises(ValueError):
        Limits(backstop=0.5)
