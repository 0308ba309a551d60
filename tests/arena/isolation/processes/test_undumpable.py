"""Every arena process that knows the tournament's seed is non-dumpable, so that a bot running as the
arena's user (``--sandbox off``) cannot read it from the arena's memory (docs/isolation.md).

The attack from issue 25: a plugin opened ``/proc/<pid>/mem`` of the main arena process, which held the
seed but started no bot itself (the pool's workers start them), and won every game. Here a bot tries
exactly that, on the main process and on its own worker, while the arena plays; it tries its own
memory too, so that a refusal is the arena's doing, not a machine where nothing can be read.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ARENA = Path(sys.executable).with_name("arena")

PEEKER = '''
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from engine import COVERED, Action
from players import Player, hookimpl

MARKER = "@MARKER@"
OUT = Path("@OUT@")


def _find_main() -> int | None:
    """The arena process whose command line names the store (and so the marker)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                words = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if MARKER.encode() in words and b"tournament" in words:
                return int(entry.name)
    return None


def _peek(pid: int | None) -> str:
    """What reading ``pid``'s memory gives: "read", or the error that stopped it."""
    if pid is None:
        return "not found"
    try:
        first = Path(f"/proc/{pid}/maps").read_text().split("\\n", 1)[0]
        start = int(first.split("-", 1)[0], 16)
        with open(f"/proc/{pid}/mem", "rb") as memory:
            memory.seek(start)
            memory.read(16)
        return "read"
    except OSError as error:
        return type(error).__name__


class Peeker(Player):
    name = "peeker"
    done = False

    def play(self, observation):
        if not self.done:
            self.done = True
            seen = {"self": _peek(os.getpid()), "worker": _peek(os.getppid()), "main": _peek(_find_main())}
            with OUT.open("a", encoding="utf-8") as out:
                out.write(json.dumps(seen) + "\\n")
        row, col = np.argwhere(observation.grid == COVERED)[0]
        return [Action.reveal(int(row), int(col))]


@hookimpl
def register_players(register):
    register(Peeker)
'''


def _without_capabilities() -> list[str]:
    """The command prefix that runs the arena as the issue's user did: without capabilities. As root
    the bot's lack of ``CAP_SYS_PTRACE`` alone would stop it (its capabilities are not a superset of
    the arena's), and the test would pass whether or not the arena is non-dumpable."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux) to drop the arena's capabilities")
    return [setpriv, "--bounding-set=-all", "--inh-caps=-all"]


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl: Linux")
@pytest.mark.parametrize("workers", [2, 1])  # a pool (the main process starts no bot), or the main process alone
def test_a_bot_cannot_read_the_memory_of_any_arena_process_that_knows_the_seed(tmp_path: Path, workers: int) -> None:
    marker = f"seedkeeper{uuid.uuid4().hex[:12]}"
    out = tmp_path / "seen.jsonl"
    plugin = tmp_path / "peeker.py"
    plugin.write_text(PEEKER.replace("@MARKER@", marker).replace("@OUT@", str(out)), encoding="utf-8")
    store = tmp_path / f"{marker}.db"
    args = ["tournament", "--plugin", plugin, "-p", "peeker", "-n", "2", "-w", str(workers), "--seed", "12345"]
    args += ["--sandbox", "off", "--isolation", "isolated", "--store", store, "-q", "--json"]
    done = subprocess.run(
        [*_without_capabilities(), str(ARENA), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "160"},
    )
    assert done.returncode == 0, done.stderr
    seen = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert seen, "the bot never looked"  # once per bot process: one per worker
    for look in seen:
        assert look["self"] == "read", look  # reading memory works on this machine: the refusals are real
        assert look["main"] == "PermissionError", look  # found, and refused
        assert look["worker"] == "PermissionError", look
