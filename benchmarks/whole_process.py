"""Whole-process cost of a tournament: CPU per game of `arena tournament`, start-up and storing included.

The comparison (issue "The first hour", item 11) is with nick-oconnor's Rust solver, the published solver
that `enumeration` reproduces, timed the same way (the whole process, on one core): 0.091 ms of CPU per
Beginner game over 100,000 games. The arena must stay under that:

    arena tournament -d beginner -n 100000 -p enumeration -w 1 --store <throwaway>

Each run is a fresh process with a fresh store, after one untimed run that makes sure numba's cache is
warm (the first run on a machine compiles). The CPU is the process's own user + system time, from
``wait4``; the wall time is reported too. Several runs alternate with a one-game run of the same command
(its cost is the fixed start-up), and the fastest counts: other processes on a shared machine only ever add
time. The load average is recorded with the results. Python's bytecode cache is left on for the commands
(``PYTHONDONTWRITEBYTECODE`` is dropped from their environment), as on any normal install.

    python benchmarks/whole_process.py [--games 100000] [--runs 3] [--difficulty beginner]
                               [--player enumeration] [--arena PATH] [--check] [--baseline SRC]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results" / "whole_process.json"
#: nick-oconnor's Rust solver, whole process on one core, ms of CPU per Beginner game (measured for the issue).
REFERENCE_MS = {"beginner": 0.091}


def arena_command(path: str | None) -> list[str]:
    found = path or shutil.which("arena") or str(Path(sys.executable).with_name("arena"))
    return [found]


def run(command: list[str], store: Path, source: str | None = None) -> dict[str, float]:
    """One ``arena tournament`` process: its CPU (user + system) and wall seconds, and the games stored.
    ``source``: a source tree whose ``arena`` it runs instead of the installed one (``PYTHONPATH``)."""
    started = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if source is not None:
        env["PYTHONPATH"] = source
    process = subprocess.Popen(
        [*command, "--store", str(store)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    errors = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{errors}")
    with sqlite3.connect(store) as db:
        games, play_ms = db.execute("SELECT COUNT(*), SUM(cpu_ms) FROM games").fetchone()
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "games": games, "play_ms": play_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--difficulty", default="beginner")
    parser.add_argument("--player", default="enumeration")
    parser.add_argument("--arena", help="the arena executable (default: the one on PATH, else beside this Python)")
    parser.add_argument("--check", action="store_true", help="exit with status 1 when slower than the reference")
    parser.add_argument(
        "--baseline",
        metavar="SRC",
        help="also time the arena of another source tree (a worktree of the code before a change), alternating"
        " with this one run by run, and report both",
    )
    args = parser.parse_args()
    if args.baseline:
        compare(args)
        return

    base = [*arena_command(args.arena), "tournament", "-d", args.difficulty, "-p", args.player, "-w", "1"]
    with tempfile.TemporaryDirectory() as folder:
        stores = iter(Path(folder) / f"{i}.db" for i in range(10_000))
        run([*base, "-n", "1"], next(stores))  # compiles on a cold machine; not timed
        full, single = [], []
        for i in range(args.runs):
            single.append(run([*base, "-n", "1"], next(stores)))
            full.append(run([*base, "-n", str(args.games)], next(stores)))
            best = min(full, key=lambda r: r["cpu"])
            print(
                f"run {i + 1}/{args.runs}: {full[-1]['cpu']:.2f}s CPU, {full[-1]['wall']:.2f}s wall for "
                f"{args.games} games; 1 game: {single[-1]['cpu']:.2f}s CPU",
                flush=True,
            )
    best = min(full, key=lambda r: r["cpu"])
    start = min(r["cpu"] for r in single)
    assert best["games"] == args.games, best
    per_game = best["cpu"] / args.games * 1000
    play = best["play_ms"] / args.games
    reference = REFERENCE_MS.get(args.difficulty)
    result: dict[str, Any] = {
        "command": " ".join(["arena", *base[1:], "-n", str(args.games), "--store", "<throwaway>"]),
        "games": args.games,
        "runs": args.runs,
        "cpu_seconds": round(best["cpu"], 3),
        "wall_seconds": round(best["wall"], 3),
        "cpu_ms_per_game": round(per_game, 4),
        "play_ms_per_game": round(play, 4),
        "outside_play_ms_per_game": round((best["cpu"] - start) / args.games * 1000 - play, 4),
        "start_up_cpu_seconds": round(start, 3),
        "all_runs_cpu_seconds": [round(r["cpu"], 3) for r in full],
        "reference_ms_per_game": reference,
        "ratio_to_reference": round(per_game / reference, 3) if reference else None,  # under 1: faster
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(
        f"{args.difficulty}, {args.player}: {per_game:.4f} ms of CPU per game, whole process "
        f"(playing {play:.4f}, start-up {start:.2f}s, the rest {result['outside_play_ms_per_game']:.4f} per game)"
    )
    if reference:
        verdict = "faster" if per_game < reference else "SLOWER"
        print(f"reference (Rust, whole process): {reference} ms per game: {result['ratio_to_reference']}x, {verdict}")
    print(f"load average {result['load_average']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")
    if args.check and reference and per_game >= reference:
        raise SystemExit(1)


def compare(args: argparse.Namespace) -> None:
    """``--baseline``: this tree and the baseline's, alternately (the order swapped every round: a shared
    machine's load drifts), each the fastest CPU of its runs; written to ``whole_process_compare.json``."""
    here = str(Path(__file__).resolve().parents[1])
    trees = {"baseline": str(Path(args.baseline).resolve()), "this": here}
    base = [*arena_command(args.arena), "tournament", "-d", args.difficulty, "-p", args.player, "-w", "1"]
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as folder:
        stores = iter(Path(folder) / f"{i}.db" for i in range(10_000))
        for source in trees.values():
            run([*base, "-n", "1"], next(stores), source)  # compiles on a cold tree; not timed
        for i in range(args.runs):
            for name in list(trees)[:: 1 if i % 2 == 0 else -1]:
                result = run([*base, "-n", str(args.games)], next(stores), trees[name])
                result["load"] = os.getloadavg()[0]
                runs[name].append(result)
                print(f"{name}: {result['cpu']:.2f}s CPU, {result['wall']:.2f}s wall (load {result['load']:.1f})")
    reference = REFERENCE_MS.get(args.difficulty)
    out: dict[str, Any] = {"games": args.games, "runs": args.runs, "difficulty": args.difficulty}
    for name, results in runs.items():
        best = min(r["cpu"] for r in results)
        per_game = best / args.games * 1000
        out[name] = {
            "source": trees[name],
            "cpu_ms_per_game": round(per_game, 4),
            "ratio_to_reference": round(per_game / reference, 3) if reference else None,
            "all_runs_cpu_seconds": [round(r["cpu"], 3) for r in results],
            "play_ms_per_game": round(min(r["play_ms"] for r in results) / args.games, 4),
            "load_average_after_each": [round(r["load"], 2) for r in results],
        }
        print(f"{name}: {per_game:.4f} ms of CPU per game (best of {len(results)}), {out[name]['ratio_to_reference']}x")
    out.update(cpus=os.cpu_count(), python=platform.python_version(), machine=platform.machine())
    path = RESULTS.with_name("whole_process_compare.json")
    path.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
