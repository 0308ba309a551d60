"""How long the test suite takes, tier by tier, and which tests take longest.

Runs each tier as docs/testing.md gives it (in a process of its own, as a user would type it), with a JUnit
report, and prints its wall time, the load average beside it (the machine may be shared: a figure means
little without it) and the 20 slowest tests; writes everything to ``benchmarks/results/suite_time.json``.

    python benchmarks/suite_time.py                 # the fast tier, then the whole suite (both passes)
    python benchmarks/suite_time.py --tier fast
    python benchmarks/suite_time.py --cold          # a first run: numba's cache, the compile stamps and
                                                    # the built kits in fresh folders, compiled again
    python benchmarks/suite_time.py --tier fast tests/engine    # arguments after the options go to pytest

A tier whose pytest fails is still timed and reported (with its exit code); the script then exits 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "suite_time.json"

#: Each tier's passes, as docs/testing.md and the README give them (the whole suite: parallel, then serial).
TIERS: dict[str, list[list[str]]] = {
    "fast": [["-n", "auto", "-m", "not slow"]],
    "whole": [["-n", "auto", "-m", "not serial"], ["-m", "serial"]],
}
SLOWEST = 20


@dataclass
class Pass:
    args: list[str]
    seconds: float
    #: CPU seconds (user + system) of pytest and every process it waited for. An undercount: a process no one
    #: waits for (a sandboxed bot whose bwrap was killed, a worker pytest-xdist leaves to init) is not in it.
    cpu_seconds: float
    exit_code: int
    tests: int
    failed: int
    skipped: int
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    #: The node ids of the tests that failed (a failure seen once in a timed run must be findable afterwards).
    failures: list[str] = field(default_factory=list)
    #: Busy CPU seconds of the whole machine meanwhile (``/proc/stat``; None elsewhere): every process the pass
    #: started, waited for or not, and whatever else ran; on a quiet machine, what the pass costs. On N cores the
    #: wall time is at least this over N.
    machine_cpu_seconds: float | None = None


@dataclass
class Tier:
    name: str
    seconds: float = 0.0
    passes: list[Pass] = field(default_factory=list)
    slowest: list[tuple[str, float]] = field(default_factory=list)


def run_pass(args: list[str], report: Path, env: dict[str, str]) -> tuple[Pass, list[tuple[str, float]]]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", *args]
    print("$", " ".join(command[1:]), flush=True)
    before = os.getloadavg()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy = machine_busy()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, check=False, stdout=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (now.ru_utime - used.ru_utime) + (now.ru_stime - used.ru_stime)
    busy_after = machine_busy()
    machine = None if busy is None or busy_after is None else round(busy_after - busy, 1)
    after = os.getloadavg()
    print(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "(no output)", flush=True)
    cases = _cases(report)
    failed = sum(1 for _, _, outcome in cases if outcome == "failed")
    skipped = sum(1 for _, _, outcome in cases if outcome == "skipped")
    timed = [(name, seconds) for name, seconds, _ in cases]
    failures = [name for name, _, outcome in cases if outcome == "failed"]
    result = Pass(
        args,
        round(seconds, 1),
        round(cpu, 1),
        done.returncode,
        len(cases),
        failed,
        skipped,
        before,
        after,
        failures,
        machine,
    )
    return result, timed


def machine_busy() -> float | None:
    """Seconds the machine's cores have been busy since boot (user, nice, system, irq, softirq in ``/proc/stat``),
    or None where there is no ``/proc/stat``."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            ticks = [int(field) for field in stat.readline().split()[1:8]]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq = ticks
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def _cases(report: Path) -> list[tuple[str, float, str]]:
    """(node id, seconds, outcome) of every test in a JUnit report; nothing when pytest wrote none."""
    if not report.exists():
        return []
    found = []
    for case in ElementTree.parse(report).iter("testcase"):
        name = _node_id(case.get("classname", ""), case.get("name", ""))
        outcome = "passed"
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        elif case.find("skipped") is not None:
            outcome = "skipped"
        found.append((name, float(case.get("time", 0.0)), outcome))
    return found


def _node_id(classname: str, name: str) -> str:
    """``tests/a/test_b.py::Class::test`` from JUnit's ``tests.a.test_b.Class`` and ``test``."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        if (ROOT / Path(*parts[:cut])).with_suffix(".py").is_file():
            return "::".join(["/".join(parts[:cut]) + ".py", *parts[cut:], name])
    return f"{classname}::{name}"


def run_tier(name: str, env: dict[str, str], folder: Path, extra: list[str]) -> Tier:
    tier = Tier(name)
    timed: list[tuple[str, float]] = []
    for index, args in enumerate(TIERS[name]):
        result, cases = run_pass([*args, *extra], folder / f"{name}-{index}.xml", env)
        tier.passes.append(result)
        tier.seconds += result.seconds
        timed += cases
    tier.seconds = round(tier.seconds, 1)
    tier.slowest = [(test, round(seconds, 2)) for test, seconds in sorted(timed, key=lambda c: -c[1])[:SLOWEST]]
    return tier


def show(tier: Tier) -> None:
    print(f"\n{tier.name}: {tier.seconds:.0f} s")
    for result in tier.passes:
        load = "/".join(f"{x:.1f}" for x in result.load_before)
        print(
            f"  pytest {' '.join(result.args):<28} {result.seconds:7.1f} s wall, {result.cpu_seconds:7.1f} s CPU "
            f"(the machine: {'?' if result.machine_cpu_seconds is None else f'{result.machine_cpu_seconds:.1f}'} s), "
            f"{result.tests} tests, {result.failed} failed, {result.skipped} skipped, exit {result.exit_code}, "
            f"load before {load}"
        )
        for name in result.failures:
            print(f"    failed: {name}")
    print(f"  the {len(tier.slowest)} slowest tests:")
    for test, seconds in tier.slowest:
        print(f"  {seconds:8.2f} s  {test}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tier", choices=[*TIERS, "all"], default="all")
    parser.add_argument("--cold", action="store_true", help="fresh compile caches: what a first run costs")
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("pytest_args", nargs="*", help="more arguments for every pytest run (a room, -x, ...)")
    options = parser.parse_args()
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="suite-time-") as scratch:
        folder = Path(scratch)
        if options.cold:
            for variable in ("NUMBA_CACHE_DIR", "ARENA_CACHE_DIR", "ARENA_KIT_CACHE"):
                env[variable] = str(folder / variable.lower())
        names = list(TIERS) if options.tier == "all" else [options.tier]
        tiers = [run_tier(name, env, folder, options.pytest_args) for name in names]
    for tier in tiers:
        show(tier)
    record = {
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "cold": options.cold,
        "pytest_args": options.pytest_args,
        "python": sys.version.split()[0],
        "tiers": [asdict(tier) for tier in tiers],
    }
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten to {options.output}")
    return 0 if all(p.exit_code == 0 for tier in tiers for p in tier.passes) else 1


if __name__ == "__main__":
    sys.exit(main())
