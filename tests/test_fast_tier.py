"""The fast tier (``python -m pytest -m "not slow"``) covers every family of the code: a change to any module
meets at least one of its tests in the inner loop, not only in the whole suite.

A family is a top-level package (``engine``, ``players``) or a package of ``arena`` (``arena/results/``...);
its room is ``tests/engine/``, ``tests/players/`` or ``tests/arena/<family>/`` (docs/testing.md). A family made of
rooms only (``arena/isolation/``: ``processes/``, ``protocol/``..., no module of its own) has them in its tests
too, and each counts here as a family of its own: ``tests/arena/isolation/protocol/`` must hold a fast test of
``arena/isolation/protocol/``. (A family with modules of its own and a package beside them, as ``arena/play/`` has
``backends/``, keeps that package's tests in the family's room.) The
test asks pytest itself which tests the fast tier selects, so it sees every marker however it was given
(a decorator, ``pytestmark``, a fixture through tests/conftest.py). Run as a script, it prints each
family's fast and slow tests and the families without a fast one.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from repo import ROOT, TESTS

FAST = "not slow"


def _packages(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.iterdir()) if (p / "__init__.py").is_file()]


def families() -> dict[str, Path]:
    """Each family of the code (and each room of a family made of rooms only) and the room its tests live in."""
    rooms = {name: TESTS / name for name in ("engine", "players")}
    for package in _packages(ROOT / "arena"):
        rooms[f"arena/{package.name}"] = TESTS / "arena" / package.name
        if any(p.name != "__init__.py" for p in package.glob("*.py")):
            continue  # a family with modules of its own: one room
        for room in _packages(package):
            rooms[f"arena/{package.name}/{room.name}"] = TESTS / "arena" / package.name / room.name
    return rooms


def test_every_room_of_the_code_has_its_room_of_tests() -> None:
    rooms = families()
    inner = [family for family in rooms if family.count("/") == 2]
    assert "arena/isolation/protocol" in inner, inner  # the walk went into the families made of rooms
    empty = [family for family, room in rooms.items() if not any(room.rglob("test_*.py"))]
    assert empty == [], f"rooms of the code without tests in their room (docs/testing.md): {empty}"


def selected(expression: str) -> list[str]:
    """The node ids pytest selects with ``-m expression`` (collected in a process of its own, without workers)."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", expression, "-p", "no:cacheprovider"]
    command += ["-n", "0", str(TESTS)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def count_by_family(node_ids: list[str]) -> Counter[str]:
    rooms = families()
    count: Counter[str] = Counter()
    for node in node_ids:
        path = (ROOT / node.split("::")[0]).resolve()
        for family, room in rooms.items():
            if path.is_relative_to(room):
                count[family] += 1
    return count


@pytest.mark.slow  # it collects the whole suite again, in a process of its own
def test_every_family_has_a_test_in_the_fast_tier() -> None:
    rooms = families()
    assert {"engine", "players", "arena/results", "arena/play"} <= set(rooms)  # the walk found the families
    fast = count_by_family(selected(FAST))
    without = sorted(family for family in rooms if fast[family] == 0)
    assert without == [], f"families without a test in the fast tier (`-m {FAST!r}`): {without}"


def main() -> int:
    fast, every = count_by_family(selected(FAST)), count_by_family(selected(""))
    print(f"{'family':<26} {'fast':>6} {'all':>6}")
    for family in families():
        print(f"{family:<26} {fast[family]:>6} {every[family]:>6}")
    without = [family for family in families() if fast[family] == 0]
    print(f"families without a fast test: {', '.join(without) if without else 'none'}")
    return 1 if without else 0


if __name__ == "__main__":
    sys.exit(main())
