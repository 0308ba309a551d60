"""Fixtures and settings for the whole suite.

The results store defaults to a per-user folder (``arena.paths``): no test may write there. Every
test session points ``$ARENA_STORE`` and ``$XDG_DATA_HOME`` into its own temporary folder, before
any test runs, so a command run without ``--store`` (in process or in a subprocess, which inherits
the environment) writes there. Tests about the default location set these variables themselves.

Hypothesis measures by the wall clock how long generating examples takes (``HealthCheck.too_slow``)
and how long each example runs (``deadline``): on a busy machine both grow several times over with
nothing wrong, so neither may fail a test here. Settings objects built in test modules start from
this profile; one that lists its own health checks to suppress must name ``too_slow`` again.

Markers (registered in pyproject, explained in docs/testing.md) follow what a test uses, so that a new test
gets them without asking: one that takes the ``browser`` fixture is ``browser``, one that takes ``kit_builds``
is ``kits``; both, every ``serial`` test and every test that takes a fixture playing a tournament for its
module (``SHARED_TOURNAMENTS``) are ``slow``, so the fast tier (``-m "not slow"``) never waits
for a browser, a compiler or a test that must run alone. A ``sandbox`` test skips, saying why, where this
machine cannot make the sandbox.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from collected import SUITE, whole_suite
from hypothesis import HealthCheck, settings
from repo import TESTS

settings.register_profile("arena", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("arena")


#: A kit's first build compiles C++, Rust or Java (``build`` allows each 900 s): a kit test's timeout.
KIT_TIMEOUT = 1200
#: Fixtures that play a tournament (or start a cluster) once for a module or a session: each test that takes
#: one is slow, since in the fast tier it would pay for the whole tournament alone.
SHARED_TOURNAMENTS = (
    "played",
    "stored",
    "unrecorded",
    "swept",
    "sweep_run",
    "history_store",
    "all_paths",
    "hostile_run",
    "cluster",
)
#: Marks a test gets from a fixture it takes (directly or through another fixture).
MARKS_BY_FIXTURE = {
    "browser": ("browser", "slow"),
    "kit_builds": ("kits", "slow"),
    **{fixture: ("slow",) for fixture in SHARED_TOURNAMENTS},
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        marks = {mark for fixture, named in MARKS_BY_FIXTURE.items() if fixture in fixtures for mark in named}
        if item.get_closest_marker("serial") is not None:
            marks.add("slow")
        for mark in sorted(marks):
            if item.get_closest_marker(mark) is None:
                item.add_marker(mark)
        if "kits" in marks and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(KIT_TIMEOUT))
    # The files with slow tests first, each kept whole (its module fixtures are made once), the longest
    # measured first: with workers (pytest-xdist hands tests out in this order) the long ones start early
    # instead of ending the run alone.
    files_with_slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    known = _file_seconds(items)
    items.sort(key=lambda item: (item.path not in files_with_slow, -known.get(item.path, 0.0)))
    # Every test with its markers, before `-m` deselects any (this hook runs before pytest's own): what
    # tests/test_fast_tier.py checks, without collecting the suite a second time.
    if whole_suite(config, TESTS):
        config.stash[SUITE] = {item.nodeid: frozenset(mark.name for mark in item.iter_markers()) for item in items}


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``-m serial`` (the README's second pass) picks about 20 tests of 2,000: importing every other test
    file only to deselect its tests cost about 9 s of CPU. ``serial`` is never added by a hook (see
    ``pytest_collection_modifyitems``), only written in the file itself (``@pytest.mark.serial``,
    ``pytestmark``), so a test file whose text never says ``serial`` holds no serial test and is skipped,
    unless a conftest.py below this one mentions the word (it might mark that folder's tests)."""
    if (config.option.markexpr or "").strip() != "serial" or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_") or not collection_path.is_file():
        return None
    try:
        folder = collection_path.parent.relative_to(TESTS)
    except ValueError:
        return None  # outside the suite's folder: pytest decides
    for depth in range(1, len(folder.parts) + 1):
        conftest = TESTS.joinpath(*folder.parts[:depth], "conftest.py")
        if conftest.is_file() and "serial" in conftest.read_text(encoding="utf-8"):
            return None
    return True if "serial" not in collection_path.read_text(encoding="utf-8") else None


#: The last timing of the suite (benchmarks/suite_time.py): its slowest tests and their seconds, per tier.
SUITE_TIME = TESTS.parent / "benchmarks" / "results" / "suite_time.json"


def _file_seconds(items: list[pytest.Item]) -> dict[Path, float]:
    """Each test file's seconds among the slowest tests of the last timing (none where it has none):
    like pytest-split's stored durations, without a file to keep by hand. A test renamed since is not
    found and its file sorts as unmeasured."""
    try:
        tiers = json.loads(SUITE_TIME.read_text(encoding="utf-8"))["tiers"]
        timed: dict[str, float] = {}
        for tier in tiers:  # a test among the slowest of two tiers: its longer time
            for test, seconds in tier["slowest"]:
                timed[test] = max(timed.get(test, 0.0), float(seconds))
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    seconds: dict[Path, float] = {}
    for item in items:
        if item.nodeid in timed:
            seconds[item.path] = seconds.get(item.path, 0.0) + timed[item.nodeid]
    return seconds


class _DealToWorkers:
    """A plugin of its own, since tests/conftest.py's own ``pytest_collection_modifyitems`` must run before
    ``-m`` deselects (it keeps the whole suite's list) and this one after."""

    @staticmethod
    @pytest.hookimpl(trylast=True)  # after `-m` and `-k` deselected: the list xdist's controller deals out
    def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
        deal_to_workers(items)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_DealToWorkers(), "arena-deal-to-workers")


def _guess(tests: list[pytest.Item]) -> float:
    """Seconds for a file none of whose tests is among the last timing's slowest: a second per slow test,
    a twentieth per other one (most take milliseconds)."""
    slow = sum(1 for item in tests if item.get_closest_marker("slow") is not None)
    return slow + (len(tests) - slow) / 20


def deal_to_workers(items: list[pytest.Item]) -> None:
    """Under workers (``worksteal``), give each worker's first block a fair share of the long files.
    ``worksteal`` hands worker i the i-th contiguous block of the list and an idle worker steals from the
    *end* of another's queue: with every slow file at the front of the list, the first worker would run
    the longest ones one after another while the others steal only short tests. Here the slow files are
    dealt, longest first, to the block with the least measured work so far (``_guess`` for a file not
    measured), and each block is filled up to its size with the other tests in their order.
    Every worker collects the same list, so every worker computes the same order."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    if workers < 2 or len(items) < 2 * workers:
        return
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    known = _file_seconds(items)
    files: dict[Path, list[pytest.Item]] = {}
    rest: list[pytest.Item] = []
    for item in items:
        if item.path in slow_files:
            files.setdefault(item.path, []).append(item)
        else:
            rest.append(item)
    # The blocks' sizes as worksteal cuts them: len // workers, then the rest shared among the others.
    sizes, left = [], len(items)
    for nodes_remaining in range(workers, 0, -1):
        sizes.append(left // nodes_remaining)
        left -= sizes[-1]
    blocks: list[list[pytest.Item]] = [[] for _ in range(workers)]
    work = [0.0] * workers
    for path in sorted(files, key=lambda path: -known.get(path, _guess(files[path]))):
        chosen = min(range(workers), key=lambda block: (work[block], block))
        blocks[chosen].extend(files[path])
        work[chosen] += known.get(path, _guess(files[path]))
    rest.reverse()
    for block, size in zip(blocks, sizes, strict=True):
        while len(block) < size and rest:
            block.append(rest.pop())
    items[:] = [item for block in blocks for item in block] + rest[::-1]


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: absent with `-p no:xdist`
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: half as many workers again as there are cores (3 on 2 cores). Many tests wait rather than
    compute (a bot's reply, check-bot's timed checks, a browser, a server, a compiler's pipe): with one worker
    per core a core idles while its worker waits. PYTEST_XDIST_AUTO_NUM_WORKERS still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or config.option.numprocesses != "auto":
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + max(1, cores // 2)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Work stealing unless `--dist` says otherwise. xdist's default (``load``) deals the first quarter of the
    tests out alternately, so a module's tests (and its module-scoped tournament) land on both workers, and
    whatever a worker was dealt stays its own while the other one idles at the end; ``worksteal`` gives each
    worker one contiguous half (a file's tests together, the slow files first) and an idle worker takes half
    of the other's queue."""
    chosen = [*config.invocation_params.args, *os.environ.get("PYTEST_ADDOPTS", "").split()]
    if config.getvalue("dist") != "load" or any(arg.startswith("--dist") for arg in chosen):
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Under workers, the controller compiles the built-in players' numba code once, before any worker starts.

    Otherwise every worker that first meets a kernel compiles it at the same moment as the others (each its own
    copy: three times the CPU of one compile) inside whichever test called it first, and on a busy machine with
    a cold cache (a fresh clone) such a test ran past its 300 s timeout. This is the arena's own compile step
    (``arena tournament`` runs it before its first game): a process per core, each kernel compiled by one, a stamp
    when done; with a warm cache it finds nothing stale and costs a few file reads."""
    config = session.config
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", None):
        return
    from arena.config import PlayerRef, TournamentConfig
    from arena.limits import Isolation
    from arena.play.warmup import compile_players, stale_players
    from engine import EXPERT, FirstClick
    from players.builtin import BUILTIN_PLAYERS

    players = tuple(PlayerRef(name=cls.name) for cls in BUILTIN_PLAYERS)
    tournament = TournamentConfig.build(
        EXPERT, FirstClick.SAFE, seed=1, games=1, players=players, isolation=Isolation.TRUSTED
    )
    stale = stale_players(tournament, [ref.key for ref in players])
    if stale:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            names = ", ".join(ref.key for ref in stale)
            reporter.write_line(f"compiling the built-in players once before the workers start: {names}")
        compile_players(tournament, stale, (), os.cpu_count() or 2)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("sandbox") is not None:
        from arena.isolation.sandbox import bubblewrap as sandbox

        why = sandbox.unavailable()
        if why is not None:
            pytest.skip(f"no sandbox: {why}")


@pytest.fixture(scope="session", autouse=True)
def _private_user_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    folder = tmp_path_factory.mktemp("user-data")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(folder))
        patch.setenv("ARENA_STORE", str(folder / "default-store.db"))
        yield


@pytest.fixture
def one_error_line() -> Callable[[Any], str]:
    """Check that a CLI result is bad input as the arena reports it (exit code 2, nothing on stdout,
    one ``error:`` line on stderr) and return that line."""

    def check(result: Any) -> str:
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("error: ")
        return lines[0]

    return check
