"""How fast the command line starts: `arena --help`, `arena players`, and a tournament's cost before its games.

Targets (issue "The first hour", item 8): `arena --help` under 0.3 s and `arena players` under 0.6 s. Each
command runs as a fresh process, several times (after one untimed run that writes Python's bytecode
cache and warms numba's); the fastest run counts, since other processes on a shared machine only ever add
time. Wall and CPU (user + system, from ``wait4``) are both reported, with the load average.

The tournament line is the whole process of a one-game Beginner tournament of `enumeration` in this
process (`-n 1 -w 1`): start-up, the player's warm-up (numba's cache loaded), one game, the store and the
leaderboard; ``benchmarks/whole_process.py`` measures the same command over 100,000 games.

Python's bytecode cache is left on for the commands (``PYTHONDONTWRITEBYTECODE`` is dropped from their
environment), as on any normal install.

    python benchmarks/cli_startup.py [--runs 7] [--arena PATH] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results" / "cli_startup.json"
TARGETS = {"--help": 0.3, "players": 0.6}


def measure(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        errors = process.stderr.read().decode() if process.stderr else ""
        raise SystemExit(f"{' '.join(command)} failed ({code}):\n{errors}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--arena", help="the arena executable (default: the one on PATH, else beside this Python)")
    parser.add_argument("--check", action="store_true", help="exit with status 1 when a target is missed")
    args = parser.parse_args()
    arena = args.arena or shutil.which("arena") or str(Path(sys.executable).with_name("arena"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        store = str(Path(folder) / "arena.db")
        tournament = ["tournament", "-d", "beginner", "-n", "1", "-p", "enumeration", "-w", "1", "--store", store]
        commands = {"--help": [arena, "--help"], "players": [arena, "players"], "tournament -n 1": [arena, *tournament]}
        for command in commands.values():
            measure(command, env)  # bytecode and numba's cache written; not timed
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.runs):  # interleaved: a burst of load hits every command alike
            for name, command in commands.items():
                if name.startswith("tournament"):
                    Path(store).unlink(missing_ok=True)
                runs[name].append(measure(command, env))
    for name, timings in runs.items():
        wall = min(w for w, _ in timings)
        cpu = min(c for _, c in timings)
        target = TARGETS.get(name)
        results[name] = {
            "wall_seconds": round(wall, 3),
            "cpu_seconds": round(cpu, 3),
            "target_seconds": target,
            "runs": [[round(w, 3), round(c, 3)] for w, c in timings],
        }
        verdict = "" if target is None else f" (target < {target:.1f}s: {'met' if wall < target else 'NOT met'})"
        print(f"arena {name:18s} {wall:.3f}s wall, {cpu:.3f}s CPU{verdict}")
    results["load_average"] = [round(x, 2) for x in os.getloadavg()]
    results["cpus"] = os.cpu_count()
    results["python"] = platform.python_version()
    print(f"load average {results['load_average']} on {results['cpus']} CPUs; fastest of {args.runs} runs each")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")
    missed = [name for name, target in TARGETS.items() if results[name]["wall_seconds"] >= target]
    if args.check and missed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
