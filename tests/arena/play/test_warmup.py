"""The first run's compile: shown, limited to the tournament's players, done once per kernel, and stopped by Ctrl-C.

The players here are plugin files run trusted, whose ``play`` calls a numba function compiled afresh in every
process (``cache=False``): every run really compiles, however warm numba's cache is, and nothing depends on
how fast the machine is.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from process_support import default_sigint

from arena.config import PlayerRef, TournamentConfig
from arena.limits import Isolation
from arena.play.warmup import STAMP_DIR_ENV, CompileEvent, compile_players, stale_players
from engine import BEGINNER, EXPERT, FirstClick

ARENA = Path(sys.executable).with_name("arena")

#: Players that log each game they play to ``<plugin>.log`` (the compile processes cannot see the test's
#: environment: they fork from a server started earlier). ``sleeper`` never finishes its warm-up game.
PLUGIN = """
import os
import time
from pathlib import Path

from numba import njit

from players import hookimpl
from players.builtin.random_player import RandomPlayer

LOG = Path(__file__).with_suffix(".log")


@njit(cache=False)
def _compiled(n):
    total = 0
    for i in range(n):
        total += i
    return total


class Logging(RandomPlayer):
    def play(self, observation):
        _compiled(3)
        with open(LOG, "a") as log:
            log.write(f"{self.name} {os.getpid()}\\n")
        return super().play(observation)


class Alpha(Logging):
    name = "alpha"


class Beta(Logging):
    name = "beta"


class Sleeper(Logging):
    name = "sleeper"

    def play(self, observation):
        super().play(observation)
        time.sleep(3600)


@hookimpl
def register_players(register):
    for cls in (Alpha, Beta, Sleeper):
        register(cls)
"""


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "compiling_bots.py"
    path.write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    return path


@pytest.fixture
def stamps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A compile-stamp folder of the test's own: every player starts out unprepared."""
    folder = tmp_path / "stamps"
    monkeypatch.setenv(STAMP_DIR_ENV, str(folder))
    return folder


def arena_command() -> list[str]:
    if ARENA.exists():
        return [str(ARENA)]
    return [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0] = 'arena'; sys.exit(main())"]


def logged(plugin: Path) -> list[str]:
    log = plugin.with_suffix(".log")
    return [line.split()[0] for line in log.read_text().splitlines()] if log.exists() else []


def config(*names: str) -> TournamentConfig:
    refs = tuple(PlayerRef(name=name) for name in names)
    return TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=1, games=2, players=refs, isolation=Isolation.TRUSTED)


@pytest.mark.slow
def test_the_compile_is_shown_and_prepares_only_the_tournaments_players(
    plugin: Path, stamps: Path, tmp_path: Path
) -> None:
    args = ["tournament", "-n", "2", "-w", "2", "-p", "alpha,random", "--isolation", "trusted", "--plugin", plugin]
    env = {**os.environ, STAMP_DIR_ENV: str(stamps)}
    done = subprocess.run(
        [*arena_command(), *map(str, args), "--store", str(tmp_path / "a.db"), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    notice = next(line for line in lines if line.startswith("compiling the players' numba code, first run only"))
    assert notice.endswith(": alpha, random")
    assert any(line.startswith("compiled in ") for line in lines)
    assert "beta" not in done.stderr and "beta" not in logged(plugin)
    assert json.loads(done.stdout)["run"]["played"] == 4

    # Stamped: the next run prepares nothing, says nothing about compiling, and plays the same way.
    again = subprocess.run(
        [*arena_command(), *map(str, args), "--store", str(tmp_path / "b.db"), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert again.returncode == 0, again.stderr
    assert "compil" not in again.stderr


def test_stale_players_are_the_trusted_unstamped_ones(plugin: Path, stamps: Path) -> None:
    tournament = config("alpha", "beta")
    keys = [ref.key for ref in tournament.players]
    assert [ref.key for ref in stale_players(tournament, keys)] == ["alpha", "beta"]
    assert [ref.key for ref in stale_players(tournament, ["beta"])] == ["beta"]
    isolated = tournament.model_copy(update={"isolation": Isolation.ISOLATED})
    assert stale_players(isolated, keys) == []  # an isolated player compiles in its own process


@pytest.mark.slow
def test_compile_players_reports_each_player_and_stamps_it(plugin: Path, stamps: Path) -> None:
    tournament = config("alpha", "beta")
    events: list[CompileEvent] = []
    stale = stale_players(tournament, ["alpha", "beta"])
    compile_players(tournament, stale, (str(plugin),), 2, events.append)
    kinds = [(e.kind, e.key) for e in events]
    assert kinds[0] == ("begin", "") and events[0].keys == ("alpha", "beta")
    assert kinds[-1] == ("end", "")
    for key in ("alpha", "beta"):
        assert ("compiling", key) in kinds
        assert ("done", key) in kinds
    assert all(not e.error for e in events)
    assert set(logged(plugin)) == {"alpha", "beta"}
    # A player whose numba code cannot be cached is stamped all the same: its files did not change.
    assert len(list(stamps.glob("*.json"))) == 2
    assert stale_players(tournament, ["alpha", "beta"]) == []
    # Another kind of board takes other paths: prepared again.
    expert = TournamentConfig.build(EXPERT, FirstClick.SAFE, players=tournament.players, isolation=Isolation.TRUSTED)
    assert [ref.key for ref in stale_players(expert, ["alpha", "beta"])] == ["alpha", "beta"]


@pytest.mark.slow
def test_a_player_that_fails_to_prepare_is_reported_not_fatal(stamps: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(
        textwrap.dedent(
            """
            from players import hookimpl
            from players.builtin.random_player import RandomPlayer

            class Broken(RandomPlayer):
                name = "broken"

                def __init__(self, options=None):
                    raise RuntimeError("no luck")

            @hookimpl
            def register_players(register):
                register(Broken)
            """
        ),
        encoding="utf-8",
    )
    tournament = config("broken")
    events: list[CompileEvent] = []
    compile_players(tournament, list(tournament.players), (str(broken),), 1, events.append)
    done = [e for e in events if e.kind == "done"]
    assert len(done) == 1 and "RuntimeError: no luck" in done[0].error
    assert stale_players(tournament, ["broken"]) == list(tournament.players)  # not stamped


@pytest.mark.serial  # signals
@pytest.mark.timeout(600)  # its own deadlines: 300 s to compile on a busy machine, then 60 s
def test_ctrl_c_while_compiling_stops_at_once(plugin: Path, stamps: Path, tmp_path: Path) -> None:
    err = tmp_path / "arena.err"
    args = ["tournament", "-n", "5", "-w", "1", "-p", "sleeper", "--isolation", "trusted", "--plugin", str(plugin)]
    with open(err, "w") as stderr:
        process = subprocess.Popen(
            [*arena_command(), *args, "--store", str(tmp_path / "c.db")],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, STAMP_DIR_ENV: str(stamps)},
            preexec_fn=default_sigint,  # SIGINT as a foreground job has it, even in a background run
        )
    try:
        deadline = time.monotonic() + 300
        while "compiling the players' numba code" not in err.read_text():
            assert process.poll() is None, err.read_text()
            assert time.monotonic() < deadline, f"no compile notice:\n{err.read_text()}"
            time.sleep(0.05)
        while "sleeper" not in logged(plugin):  # inside its warm-up game, which never ends
            assert time.monotonic() < deadline, err.read_text()
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
        code = process.wait(timeout=60)  # generous: the point is that it does not wait for the warm-up (an hour)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    deadline = time.monotonic() + 60  # nothing of the arena is left running in its session
    while group_alive(process.pid):
        assert time.monotonic() < deadline, "processes of the arena are still running"
        time.sleep(0.1)
    text = err.read_text()
    assert code == 130, text
    assert "interrupted:" in text and "Resume with:" in text
    assert "Traceback" not in text and "Warning" not in text  # nor a leaked-semaphore warning at exit


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


#: Imports the module at argv[1] (its kernel is cached), waits for the file argv[2], calls the kernel with the
#: compile locks installed and prints how many compiles it ran.
COMPILE_SHARED = """
import os, sys, time
from numba.core import event
from arena.play.warmup import _lock_kernels

_lock_kernels()
compiled = []

class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(1)

    def on_end(self, ev):
        pass

event.register("numba:compile", Count())
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import shared_kernel as module

while not os.path.exists(sys.argv[2]):
    time.sleep(0.001)
module.kernel(10)
print(len(compiled))
"""


@pytest.mark.slow
def test_two_processes_compile_a_kernel_once(tmp_path: Path) -> None:
    path = tmp_path / "shared_kernel.py"
    path.write_text(
        textwrap.dedent(
            """
            from numba import njit

            @njit(cache=True)
            def kernel(n):
                total = 0.0
                for i in range(n):
                    total += (i * 0.5) ** 2
                return total
            """
        ),
        encoding="utf-8",
    )
    go = tmp_path / "go"
    processes = [
        subprocess.Popen([sys.executable, "-c", COMPILE_SHARED, str(path), str(go)], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    time.sleep(0.5)  # most likely both are waiting by now; if not, the late one finds the kernel cached
    go.touch()
    counts = sorted(int(process.communicate(timeout=300)[0]) for process in processes)
    assert counts == [0, 1]  # one compiled it, the other waited for its lock and loaded it from the cache
