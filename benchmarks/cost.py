"""The cost of play in one run (issue 29): apex's ms per game, enumeration's whole-process CPU per
game at the three sizes, the peak memory of each process of a tournament, and the machine's load.

1. **apex**: ``arena tournament -d D -n N -p apex -w 1`` in a fresh store; the figure is the
   leaderboard's ms/g (the mean of the runner's per-game thread CPU time), on Expert (the goal:
   at most 11 ms, safe first click, 2,000 boards) and on Intermediate and Beginner (which must not
   rise). ``--compare PATH`` runs the same commands on another checkout of the project (its
   ``PYTHONPATH``), alternating with this one round by round, so that both see the same load; the
   best round of each counts (other processes on a shared machine only ever add time).
2. **enumeration, whole process**: ``benchmarks/whole_process.py``'s measurement (CPU of the whole
   ``arena tournament`` process from ``wait4``, start-up and storing included, best of ``--runs``)
   on Beginner, Intermediate and Expert.
3. **memory**: a tournament of every built-in player on Expert (``-w 2``, as on a 2-core machine),
   its processes sampled from ``/proc`` every 50 ms: each one's peak resident size (the kernel's
   ``VmHWM``), and at its largest sample what the resident pages are (numba's LLVM library, the
   Python heap and other anonymous memory, the rest) and how much of it is the process's own
   (``Private_*`` pages: the code pages of shared libraries are shared by every process that maps
   them, so N workers do not cost N times their resident size). One untimed run first, so that
   the numba cache and the compile records are warm and no compile process runs. With
   ``--compare``, the other checkout's tournament is measured the same way.

Every figure is printed with the load average at the time; results go to
``benchmarks/results/cost.json``.

    python benchmarks/cost.py [--apex-games 2000] [--rounds 2] [--compare PATH]
                              [--skip-apex] [--skip-whole] [--skip-memory]

A part skipped keeps its figures from the last run in the results file.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "cost.json"
ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0] = 'arena'; sys.exit(main())"]
#: Boards of the apex runs per difficulty (Expert's from --apex-games).
APEX_BOARDS = {"beginner": 2000, "intermediate": 2000}
#: Games of the enumeration whole-process runs.
WHOLE_GAMES = {"beginner": 100_000, "intermediate": 20_000, "expert": 5_000}


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    return env


def apex_ms(tree: Path, difficulty: str, boards: int, seed: int) -> dict[str, Any]:
    """The leaderboard's ms/g of apex over ``boards`` boards, one worker, a fresh store."""
    with tempfile.TemporaryDirectory() as folder:
        command = [*ARENA, "tournament", "-d", difficulty, "-n", str(boards), "-p", "apex", "-w", "1"]
        command += ["--seed", str(seed), "--store", str(Path(folder) / "a.db"), "--json", "-q"]
        done = subprocess.run(command, env=_env(tree), cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"apex on {difficulty} failed in {tree}:\n{done.stderr[-2000:]}")
    row = json.loads(done.stdout)["rows"][0]
    return {"ms_per_game": round(row["ms_per_game"], 3), "win_rate": row["win_rate"], "load": _load_average()}


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split():
                out += [int(child), *_children(int(child))]
    except OSError:
        pass
    return out


def _resident(pid: int) -> dict[str, float] | None:
    """MB resident by kind (``llvmlite``, ``heap and anonymous``, ``other``) and ``own`` (private pages)."""
    kinds: Counter[str] = Counter()
    kind = "other"
    try:
        with open(f"/proc/{pid}/smaps", encoding="utf-8", errors="replace") as smaps:
            for line in smaps:
                head = re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$", line)
                if head:
                    path = head.group(1)
                    if "libllvmlite" in path:
                        kind = "llvmlite (numba's LLVM)"
                    elif not path or path in ("[heap]", "[stack]") or path.startswith("[anon"):
                        kind = "heap and anonymous"
                    else:
                        kind = "other files"
                    continue
                if line.startswith("Rss:"):
                    kinds[kind] += int(line.split()[1])
                elif line.startswith(("Private_Clean:", "Private_Dirty:")):
                    kinds["own (private pages)"] += int(line.split()[1])
    except OSError:
        return None
    return {k: round(v / 1024, 1) for k, v in kinds.items()}


def _status(pid: int) -> tuple[int, int] | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    peak = re.search(r"VmHWM:\s+(\d+)", text)
    now = re.search(r"VmRSS:\s+(\d+)", text)
    return (int(peak.group(1)), int(now.group(1))) if peak and now else None


def tournament_memory(tree: Path, boards: int, workers: int) -> dict[str, Any]:
    """Peak resident size of every process of ``arena tournament -d expert`` (every built-in player)."""
    with tempfile.TemporaryDirectory() as folder:
        base = [*ARENA, "tournament", "-d", "expert", "-w", str(workers), "-q"]
        warm = [*base, "-n", "2", "--store", str(Path(folder) / "warm.db")]
        subprocess.run(warm, env=_env(tree), cwd=tree, capture_output=True, check=True)  # compiles if need be
        command = [*base, "-n", str(boards), "--store", str(Path(folder) / "m.db")]
        process = subprocess.Popen(command, env=_env(tree), cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        peaks: dict[int, int] = {}
        largest: dict[int, int] = {}
        detail: dict[int, dict[str, float]] = {}
        while process.poll() is None:
            for pid in [process.pid, *_children(process.pid)]:
                status = _status(pid)
                if status is None:
                    continue
                peaks[pid] = max(peaks.get(pid, 0), status[0])
                if status[1] > largest.get(pid, 0):
                    resident = _resident(pid)
                    if resident is not None:
                        largest[pid], detail[pid] = status[1], resident
            time.sleep(0.05)
        errors = process.stderr.read().decode() if process.stderr else ""
        if process.returncode != 0:
            raise SystemExit(f"the memory tournament failed:\n{errors[-2000:]}")
    rows = []
    for pid, kb in peaks.items():
        role = "main (arena tournament)" if pid == process.pid else ("worker" if kb > 60 * 1024 else "helper")
        rows.append({"role": role, "peak_mb": round(kb / 1024, 1), "at_largest_sample_mb": detail.get(pid, {})})
    rows.sort(key=lambda r: (r["role"] != "main (arena tournament)", -r["peak_mb"]))
    worker_peaks = [r["peak_mb"] for r in rows if r["role"] == "worker"]
    return {
        "command": f"arena tournament -d expert -n {boards} -w {workers} (every built-in player)",
        "processes": rows,
        "max_worker_peak_mb": max(worker_peaks) if worker_peaks else None,
        "main_peak_mb": next(r["peak_mb"] for r in rows if r["role"].startswith("main")),
        "load": _load_average(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apex-games", type=int, default=2000, help="Expert boards of the apex runs")
    parser.add_argument("--rounds", type=int, default=2, help="apex runs per tree, alternating; the best counts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compare", type=Path, help="another checkout of the project, measured alternately")
    parser.add_argument("--runs", type=int, default=2, help="whole-process runs per size (the best counts)")
    parser.add_argument("--memory-boards", type=int, default=60)
    parser.add_argument("--skip-apex", action="store_true")
    parser.add_argument("--skip-whole", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    if args.apex_games < 1 or args.rounds < 1 or args.runs < 1 or args.memory_boards < 1:
        parser.error("--apex-games, --rounds, --runs and --memory-boards take positive numbers")
    trees = {"this": ROOT}
    if args.compare is not None:
        if not (args.compare / "arena").is_dir():
            parser.error(f"--compare: {args.compare} is not a checkout of the project")
        trees["compared"] = args.compare.resolve()
    result: dict[str, Any] = {"load_at_start": _load_average(), "cpus": os.cpu_count(),
                              "python": platform.python_version(), "machine": platform.machine()}  # fmt: skip
    print(f"load average at start {result['load_at_start']} ({os.cpu_count()} cpus)", flush=True)

    boards = {} if args.skip_apex else {"expert": args.apex_games, **APEX_BOARDS}
    apex: dict[str, dict[str, Any]] = {name: {} for name in trees}
    for difficulty, count in boards.items():
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                runs[name].append(apex_ms(tree, difficulty, count, args.seed))
                got = runs[name][-1]
                print(f"apex {difficulty:12} {name:8} {count} boards: {got['ms_per_game']:7.3f} ms/g, "
                      f"win {got['win_rate']:.4f}, load {got['load']}", flush=True)  # fmt: skip
        for name in trees:
            best = min(runs[name], key=lambda r: r["ms_per_game"])
            apex[name][difficulty] = {
                "boards": count,
                **best,
                "all_ms_per_game": [r["ms_per_game"] for r in runs[name]],
            }
    if boards:
        result["apex_ms_per_game"] = apex
        expert = apex["this"]["expert"]["ms_per_game"]
        verdict = "met" if expert <= 11.0 else "NOT met"
        print(f"apex, Expert: {expert} ms/g (goal at most 11 ms on a quiet machine: {verdict}, load {_load_average()})")

    if not args.skip_whole:
        whole = _load("whole_process")
        figures = {}
        base = [*ARENA, "tournament", "-p", "enumeration", "-w", "1"]
        with tempfile.TemporaryDirectory() as folder:
            stores = iter(Path(folder) / f"{i}.db" for i in range(10_000))
            for difficulty, games in WHOLE_GAMES.items():
                command = [*base, "-d", difficulty]
                whole.run([*command, "-n", "1"], next(stores))  # numba's cache warm; not timed
                full = [whole.run([*command, "-n", str(games)], next(stores)) for _ in range(args.runs)]
                single = min(whole.run([*command, "-n", "1"], next(stores))["cpu"] for _ in range(args.runs))
                best = min(full, key=lambda r: r["cpu"])
                figures[difficulty] = {
                    "games": games,
                    "cpu_ms_per_game": round(best["cpu"] / games * 1000, 4),
                    "play_ms_per_game": round(best["play_ms"] / games, 4),
                    "start_up_cpu_seconds": round(single, 3),
                    "all_runs_cpu_seconds": [round(r["cpu"], 3) for r in full],
                    "load": _load_average(),
                }
                f = figures[difficulty]
                print(f"enumeration whole process, {difficulty:12}: {f['cpu_ms_per_game']:.4f} ms of CPU a game "
                      f"({games} games; playing {f['play_ms_per_game']:.4f}; start-up {single:.2f}s), "
                      f"load {f['load']}", flush=True)  # fmt: skip
        result["enumeration_whole_process"] = figures

    if not args.skip_memory:
        result["memory"] = {}
        for name, tree in trees.items():
            memory = tournament_memory(tree, args.memory_boards, 2)
            result["memory"][name] = memory
            print(f"memory ({name}): {memory['command']}, load {memory['load']}")
            for row in memory["processes"]:
                parts = ", ".join(f"{k} {v}" for k, v in row["at_largest_sample_mb"].items())
                print(f"  {row['role']:24} peak {row['peak_mb']:6.1f} MB   ({parts})")
        peak = result["memory"]["this"]["max_worker_peak_mb"] or 0
        verdict = "met" if peak <= 150 else "NOT met"
        print(f"largest worker peak {peak} MB (goal at most 150 MB: {verdict})")

    result["load_at_end"] = _load_average()
    if RESULTS.exists():  # the parts skipped this time keep their last figures
        result = {**json.loads(RESULTS.read_text(encoding="utf-8")), **result}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"load average at end {result['load_at_end']}; wrote {RESULTS}")


if __name__ == "__main__":
    main()
