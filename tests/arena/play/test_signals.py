"""Nothing lost, nothing duplicated: a real ``arena tournament`` process, stopped by real signals.

Each test starts the command line, waits (polling the SQLite store) until some games are committed,
then sends SIGINT (to the process, or to its process group as a terminal's Ctrl-C does), SIGKILL to the
arena, or SIGKILL to one of its worker processes. Afterwards the store must hold exactly one row per
(player, board) once the tournament is rerun, and every game (all columns but the timings) must equal
the same tournament played without interruption.

The player is `random` behind a gate: a worker's 300th game waits until the test opens it (creates a
file). So the tournament cannot end before the signal, however slow the test is to notice the first
commits and however fast the games go; when it once did (4000 games are four seconds), a Ctrl-C came
too late to interrupt anything.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from process_support import default_sigint

from arena.config import PlayerRef, TournamentConfig
from arena.limits import Isolation
from arena.outcome import GameResult
from arena.play.backends.dask_cluster import dask_available
from arena.play.tournament import WorkerCrashError, plan_tournament, run_tournament
from arena.results.store import Store
from engine import BEGINNER, EXPERT, FirstClick
from players.registry import Registry

#: Signals, and deadlines of their own (300 s for a bot to start on a busy machine, 120 s to stop): run alone.
pytestmark = [pytest.mark.serial, pytest.mark.timeout(600)]

SEED = 20261122
#: Expert ``random``: each of a run's two workers stops at its 300th game (``GATE_SOURCE``); the first to
#: stop holds at most 300 games and one batch (64 local, 150 with Dask at this size), which leaves the other
#: at least 750, so both reach their gate before the run ends. Every run plays the rest when resumed, and
#: the reference plays them all: more games only cost time (4000 took about 40 s more of the serial pass).
GAMES = 1200
PLAYERS = ("gated-random",)
TIMINGS = ("cpu_ms", "wall_ms")
ARENA = Path(sys.executable).with_name("arena")


def arena_command() -> list[str]:
    if ARENA.exists():
        return [str(ARENA)]
    return [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0] = 'arena'; sys.exit(main())"]


def config() -> TournamentConfig:
    refs = tuple(PlayerRef(name=name) for name in PLAYERS)
    return TournamentConfig.build(EXPERT, FirstClick.SAFE, seed=SEED, games=GAMES, players=refs)


def tournament_args(store: Path, plugin: Path) -> list[str]:
    players = ",".join(PLAYERS)
    return [
        "tournament", "-d", "expert", "-n", str(GAMES), "--seed", str(SEED), "-p", players, "--store", str(store),
        "--plugin", str(plugin), "--isolation", "trusted",
    ]  # fmt: skip


#: ``random``, but the game a worker process starts as its ``GATE_AT``-th waits until the file named by
#: ``$ARENA_TEST_GATE`` exists (when that is set: never in this process). 300 is past the first batch of
#: a local worker (64 boards) and of a Dask one (150 for ``GAMES`` on two workers), so some games are
#: committed before it waits.
GATE_SOURCE = """
import os
import time

from players import hookimpl
from players.builtin.random_player import RandomPlayer

GATE_AT = 300


class GatedRandom(RandomPlayer):
    name = "gated-random"
    description = "random, but a worker's 300th game waits for the test to open the gate"
    started = 0

    def reset(self, rng, spec, rule):
        GatedRandom.started += 1
        gate = os.environ.get("ARENA_TEST_GATE")
        if gate and GatedRandom.started == GATE_AT:
            while not os.path.exists(gate):
                time.sleep(0.01)
        super().reset(rng, spec, rule)


@hookimpl
def register_players(register):
    register(GatedRandom)
"""


@pytest.fixture(scope="module")
def gate_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("plugin") / "gated_random.py"
    path.write_text(GATE_SOURCE, encoding="utf-8")
    return path


def deterministic(games: list[GameResult]) -> list[GameResult]:
    """The games with their timings, the only figures that vary between runs, zeroed."""
    return [dataclasses.replace(g, **dict.fromkeys(TIMINGS, 0.0)) for g in games]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory, gate_plugin: Path) -> list[GameResult]:
    """The reference: the same tournament, played in this process without any interruption."""
    path = tmp_path_factory.mktemp("reference") / "reference.db"
    trusted = config().model_copy(update={"isolation": Isolation.TRUSTED})
    with Store(path) as store:
        run_tournament(plan_tournament(trusted, store, Registry([gate_plugin]), workers=1), store)
        return deterministic(store.games(config().id))


class Arena:
    """A running ``arena tournament`` process whose output goes to files (orphans must not hold our pipes).
    Its gate (``GATE_SOURCE``) is the file ``gate`` in ``cwd``: ``open_gate(cwd)`` opens it."""

    def __init__(self, args: list[str], cwd: Path, name: str) -> None:
        self.out = cwd / f"{name}.out"
        self.err = cwd / f"{name}.err"
        env = {**os.environ, "ARENA_TEST_GATE": str(cwd / "gate")}
        with open(self.out, "w") as out, open(self.err, "w") as err:
            # A session of its own: its process group is what a terminal's Ctrl-C would reach.
            self.process = subprocess.Popen(
                arena_command() + args,
                cwd=cwd,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env=env,
                preexec_fn=default_sigint,  # SIGINT as a foreground job has it, even in a background run
            )

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait(self, timeout: float = 180.0) -> int:
        return self.process.wait(timeout=timeout)

    def stderr(self) -> str:
        return self.err.read_text()

    def descendants(self) -> list[int]:
        return descendants(self.pid)

    def kill_all(self) -> None:
        """Teardown: whatever is left of this arena's process tree (only processes we started)."""
        for pid in [*self.descendants(), self.pid]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid``, from /proc (Linux)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            found.append(child)
            found.extend(descendants(child))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])


def committed(store: Path) -> int:
    try:
        with sqlite3.connect(store, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error:  # not created yet
        return 0


def open_gate(cwd: Path) -> None:
    (cwd / "gate").touch()


def wait_for_stderr(arena: Arena, text: str, timeout: float = 120.0) -> None:
    """Until the arena has written ``text`` to stderr (its answer to a signal, say)."""
    deadline = time.monotonic() + timeout
    while text not in arena.stderr():
        assert time.monotonic() < deadline, f"no {text!r} within {timeout}s:\n{arena.stderr()}"
        assert arena.process.poll() is None, f"the arena exited without {text!r}:\n{arena.stderr()}"
        time.sleep(0.02)


def wait_for_rows(arena: Arena, store: Path, timeout: float = 120.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = committed(store)
        if rows:
            return rows
        assert arena.process.poll() is None, f"the arena exited early:\n{arena.stderr()}"
        time.sleep(0.02)
    raise AssertionError(f"no game committed within {timeout}s:\n{arena.stderr()}")


def stored(store: Path) -> list[GameResult]:
    with Store(store, create=False) as db:
        return db.games(config().id)


def assert_complete(store: Path, reference: list[GameResult]) -> None:
    """One row per (player, board), none twice, every game as in the uninterrupted run."""
    with sqlite3.connect(store) as db:
        (count,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
        twice = db.execute("SELECT player, board FROM games GROUP BY tournament_id, player, board HAVING COUNT(*) > 1")
        assert twice.fetchall() == []
    assert count == GAMES * len(PLAYERS)
    assert deterministic(stored(store)) == reference


@pytest.fixture
def arenas() -> Iterator[list[Arena]]:
    started: list[Arena] = []
    yield started
    for arena in started:
        arena.kill_all()


def start(arenas: list[Arena], args: list[str], cwd: Path, name: str) -> Arena:
    arena = Arena(args, cwd, name)
    arenas.append(arena)
    return arena


def resume_command(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    line = lines[next(i for i, text in enumerate(lines) if "Resume with:" in text) + 1]
    words = shlex.split(line)
    assert words[0] == "arena"
    return words[1:]


# -- SIGINT -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["process", "group"])
def test_sigint_commits_finished_games_and_prints_the_command_that_resumes(
    target: str, tmp_path: Path, arenas: list[Arena], uninterrupted: list[GameResult], gate_plugin: Path
) -> None:
    store = tmp_path / "arena.db"
    # The group variant keeps the progress bar: the Ctrl-C a user sends from a terminal.
    quiet = ["-q"] if target == "process" else []
    arena = start(arenas, [*tournament_args(store, gate_plugin), "-w", "2", *quiet], tmp_path, "first")
    wait_for_rows(arena, store)
    if target == "group":
        os.killpg(arena.pid, signal.SIGINT)
    else:
        os.kill(arena.pid, signal.SIGINT)
    wait_for_stderr(arena, "stopping: committing the games in progress")
    open_gate(tmp_path)  # the games in progress finish; the others are never started
    assert arena.wait() == 130, arena.stderr()
    stderr = arena.stderr()
    assert "Traceback" not in stderr
    kept = stored(store)
    assert 0 < len(kept) < GAMES
    assert f"interrupted: {len(kept)} games committed this run" in stderr
    assert deterministic(kept) == [r for r in uninterrupted if (r.player, r.board) in _keys(kept)]

    again = start(arenas, resume_command(stderr), tmp_path, "resumed")
    assert again.wait() == 0, again.stderr()
    assert_complete(store, uninterrupted)
    resumed = {(r.player, r.board): r for r in stored(store)}
    assert all(resumed[(r.player, r.board)] == r for r in kept)  # timings too: nothing was replayed


def _keys(rows: list[GameResult]) -> set[tuple[str, int]]:
    return {(r.player, r.board) for r in rows}


# -- SIGTERM ------------------------------------------------------------------------------------------------------


def test_sigterm_stops_at_once_commits_and_leaves_no_worker_behind(
    tmp_path: Path, arenas: list[Arena], uninterrupted: list[GameResult], gate_plugin: Path
) -> None:
    store = tmp_path / "arena.db"
    arena = start(arenas, [*tournament_args(store, gate_plugin), "-w", "2", "-q"], tmp_path, "terminated")
    wait_for_rows(arena, store)
    family = arena.descendants()
    os.kill(arena.pid, signal.SIGTERM)  # the gate stays shut: SIGTERM does not wait for running games
    assert arena.wait() == 128 + signal.SIGTERM, arena.stderr()
    stderr = arena.stderr()
    assert "Traceback" not in stderr
    assert "Warning" not in stderr  # no "leaked semaphore" from workers that exited at once
    kept = stored(store)
    assert 0 < len(kept) < GAMES
    assert f"terminated: {len(kept)} games committed this run" in stderr
    assert deterministic(kept) == [r for r in uninterrupted if (r.player, r.board) in _keys(kept)]
    deadline = time.monotonic() + 120  # a generous bound: the loop ends as soon as they are gone
    while any(alive(pid) for pid in family) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in family if alive(pid)] == []

    open_gate(tmp_path)
    again = start(arenas, resume_command(stderr), tmp_path, "resumed")
    assert again.wait() == 0, again.stderr()
    assert_complete(store, uninterrupted)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_leaves_no_unsandboxed_bot_behind(
    workers: str, tmp_path: Path, arenas: list[Arena], bad_bots: Path
) -> None:
    """A bot hung in play(), outside the sandbox (which would end it with its parent), is stopped
    with the arena: by the arena itself (one worker) or by its worker, told to stop (two)."""
    pid_file = tmp_path / "bot.pid"
    (bad_bots.parent / "settings.json").write_text(json.dumps({"pid_file": str(pid_file)}))
    store = tmp_path / "arena.db"
    args = [
        "tournament", "--size", "5x5", "--mines", "3", "-n", "4", "-p", "hanger", "--plugin", str(bad_bots),
        "--sandbox", "off", "--move-time", "3600", "--game-time", "3600", "-w", workers, "-q", "--store", str(store),
    ]  # fmt: skip
    arena = start(arenas, args, tmp_path, "hung")
    deadline = time.monotonic() + 300  # start-up on a busy machine: generous, ends when the bot hangs
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < deadline, f"the bot did not hang within 300 s:\n{arena.stderr()}"
        assert arena.process.poll() is None, f"the arena exited early:\n{arena.stderr()}"
        time.sleep(0.05)
    bot = int(pid_file.read_text())
    assert alive(bot)
    os.kill(arena.pid, signal.SIGTERM)
    assert arena.wait() == 128 + signal.SIGTERM, arena.stderr()
    assert "Traceback" not in arena.stderr()
    assert "Warning" not in arena.stderr()
    deadline = time.monotonic() + 60
    while alive(bot) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(bot), "the hung bot outlived the arena"


# -- SIGKILL ------------------------------------------------------------------------------------------------------


def test_sigkill_of_the_arena_loses_nothing_and_leaves_no_worker_behind(
    tmp_path: Path, arenas: list[Arena], uninterrupted: list[GameResult], gate_plugin: Path
) -> None:
    store = tmp_path / "arena.db"
    arena = start(arenas, [*tournament_args(store, gate_plugin), "-w", "2", "-q"], tmp_path, "killed")
    wait_for_rows(arena, store)
    family = arena.descendants()
    assert family, "the pool's processes should be running"
    os.kill(arena.pid, signal.SIGKILL)
    assert arena.wait() == -signal.SIGKILL
    # Workers notice that the arena is gone and exit instead of lingering as orphans.
    deadline = time.monotonic() + 120  # a generous bound: the loop ends as soon as they are gone
    while any(alive(pid) for pid in family) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in family if alive(pid)] == []
    kept = stored(store)
    assert 0 < len(kept) < GAMES

    # Resumed by one worker in its own process: the number of workers changes nothing either.
    open_gate(tmp_path)
    again = start(arenas, [*tournament_args(store, gate_plugin), "-w", "1", "-q", "--json"], tmp_path, "rerun")
    assert again.wait() == 0, again.stderr()
    assert_complete(store, uninterrupted)
    resumed = {(r.player, r.board): r for r in stored(store)}
    assert all(resumed[(r.player, r.board)] == r for r in kept)


#: A plugin player that hangs in every game on a 5x5 board (not in its host's 9x9 warm-up game), renamed
#: ``hanging`` (its ``comm``) meanwhile; its file's unique name, on the bot host's command line, is how the
#: test finds its process, sandboxed or not. Killed earlier (in its warm-up), a bot ends anyway, at its next
#: read of the arena's closed pipe: only one that waits for nothing from the arena needs the kernel's help.
HANGER = """
import time

from engine import Action
from players import Player, hookimpl


class Hanger(Player):
    name = "hanger"

    def play(self, observation):
        if observation.height == 5:
            with open("/proc/self/comm", "w") as comm:
                comm.write("hanging")
            time.sleep(3600)
        rows, cols = (observation.grid < 0).nonzero()
        return Action.reveal(int(rows[0]), int(cols[0]))


@hookimpl
def register_players(register):
    register(Hanger)
"""


def bot_hosts(marker: str, comm: str | None = None) -> list[int]:
    """The bot hosts (``arena.isolation.protocol.bot_host``, not the arena, bwrap or the launcher before its
    ``exec``) whose command line names ``marker`` (and whose ``comm`` is ``comm``, when given)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            name = (entry / "comm").read_text().strip()
        except OSError:
            continue
        words = [word.decode(errors="replace") for word in argv]
        host = any(word.endswith("bot_host") for word in words) and name != "bwrap" and comm in (None, name)
        launcher = any(word.endswith("launch.py") for word in words)
        if host and not launcher and any(marker in word for word in words) and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def starter(bot: int) -> int:
    """The arena's process that started ``bot``: its parent, or bwrap's parent for a sandboxed bot."""
    try:
        pid = parent_of(bot)
        while Path(f"/proc/{pid}/comm").read_text().strip() == "bwrap":
            pid = parent_of(pid)
    except OSError:  # gone meanwhile
        return 0
    return pid


def started_by_a_worker(arena: Arena, bot: int) -> bool:
    """Whether ``bot`` was started by one of the arena's pool workers (the arena may run a bot of its own too)."""
    return starter(bot) in set(arena.descendants()) - {arena.pid}


#: (command, sandbox mode, what is killed): ``play`` starts its bot itself; ``tournament -w 2`` from a pool worker,
#: which notices its arena's death and ends its bots, but dies with them only through the kernel when it is
#: itself killed.
ENDINGS = [
    ("play", "off", "arena"),
    ("tournament", "off", "arena"),
    ("tournament", "off", "worker"),
    ("play", "require", "arena"),
    ("tournament", "require", "worker"),
]


@pytest.mark.parametrize(
    ("command", "mode", "victim"),
    [pytest.param(*e, id="-".join(e), marks=[pytest.mark.sandbox] if e[1] == "require" else []) for e in ENDINGS],
)
def test_a_bot_ends_with_its_parent_however_that_ends(
    command: str, mode: str, victim: str, tmp_path: Path, arenas: list[Arena]
) -> None:
    """``kill -9`` of the arena, or of the pool worker that started a bot, ends the bot with it: sandboxed
    by bwrap's ``--die-with-parent`` (the namespace goes with its init), unsandboxed by the parent-death
    signal the launcher asks the kernel for."""
    marker = f"hang_{uuid.uuid4().hex[:12]}"
    plugin = tmp_path / f"{marker}.py"
    plugin.write_text(HANGER, encoding="utf-8")
    args = [command, "--size", "5x5", "--mines", "3", "-p", "hanger", "--plugin", str(plugin), "--sandbox", mode]
    args += ["--move-time", "3600", "--store", str(tmp_path / "arena.db")]
    if command == "tournament":
        args += ["-n", "400", "-w", "2", "-q", "--game-time", "3600"]  # enough boards for a pool of two
    arena = start(arenas, args, tmp_path, "killed")
    try:
        deadline = time.monotonic() + 300  # start-up on a busy machine: generous, ends when the bot runs
        while not (
            bots := [b for b in bot_hosts(marker, "hanging") if victim == "arena" or started_by_a_worker(arena, b)]
        ):
            assert time.monotonic() < deadline, f"no bot host within 300 s:\n{arena.stderr()}"
            assert arena.process.poll() is None, f"the arena exited early:\n{arena.stderr()}"
            time.sleep(0.05)
        assert committed(tmp_path / "arena.db") == 0  # mid-run: the bot hangs in its first game
        if victim == "arena":
            os.kill(arena.pid, signal.SIGKILL)
            assert arena.wait() == -signal.SIGKILL
        else:
            workers = {starter(bot) for bot in bots}
            for worker in workers:
                os.kill(worker, signal.SIGKILL)
        deadline = time.monotonic() + 120  # a generous bound: the loop ends as soon as they are gone
        while any(alive(bot) for bot in bots) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [bot for bot in bots if alive(bot)] == [], "the bot outlived its parent"
    finally:  # what a failure left: ours alone (the unique file name), never anyone else's
        arena.kill_all()
        for pid in bot_hosts(marker):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_sigkill_of_a_worker_is_survived_in_the_same_run(
    tmp_path: Path, arenas: list[Arena], uninterrupted: list[GameResult], gate_plugin: Path
) -> None:
    store = tmp_path / "arena.db"
    arena = start(arenas, [*tournament_args(store, gate_plugin), "-w", "2", "-q"], tmp_path, "worker-killed")
    wait_for_rows(arena, store)
    # Pool workers are the forkserver's children, so grandchildren of the arena.
    workers = [pid for pid in arena.descendants() if parent_of(pid) != arena.pid]
    assert len(workers) == 2, workers
    os.kill(workers[0], signal.SIGKILL)
    open_gate(tmp_path)
    assert arena.wait() == 0, arena.stderr()
    assert "Traceback" not in arena.stderr()
    assert_complete(store, uninterrupted)


# -- the Dask backend ---------------------------------------------------------------------------------------------


@pytest.mark.skipif(not dask_available(), reason="dask is not installed: pip install -e '.[dask]'")
def test_ctrl_c_with_the_dask_backend_lets_running_batches_finish_and_resumes(
    tmp_path: Path, arenas: list[Arena], uninterrupted: list[GameResult], gate_plugin: Path
) -> None:
    store = tmp_path / "arena.db"
    args = [*tournament_args(store, gate_plugin), "-w", "2", "-q", "--backend", "dask"]
    arena = start(arenas, args, tmp_path, "dask")
    wait_for_rows(arena, store)
    os.killpg(arena.pid, signal.SIGINT)  # the LocalCluster's workers get it too, as from a terminal
    wait_for_stderr(arena, "stopping: committing the games in progress")
    open_gate(tmp_path)
    assert arena.wait() == 130, arena.stderr()
    stderr = arena.stderr()
    kept = stored(store)
    assert 0 < len(kept) < GAMES
    assert f"interrupted: {len(kept)} games committed this run" in stderr
    assert "--backend dask" in stderr

    again = start(arenas, resume_command(stderr), tmp_path, "dask-resumed")
    assert again.wait() == 0, again.stderr()
    assert_complete(store, uninterrupted)


# -- a player that kills its own worker ---------------------------------------------------------------------------

CRASHER = """
import os
import signal

from engine.layout import player_generator
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class Crasher(RandomPlayer):
    name = "crasher"
    description = "random, but it SIGKILLs its own process on one board"

    def reset(self, rng, spec, rule):
        if rng.bit_generator.state == player_generator(SEED, BOARD, self.name).bit_generator.state:
            os.kill(os.getpid(), signal.SIGKILL)
        super().reset(rng, spec, rule)


@hookimpl
def register_players(register):
    register(Crasher)
"""


def test_a_batch_that_keeps_killing_its_worker_is_named_not_retried_forever(
    tmp_path: Path, write_plugin: Callable[..., Path]
) -> None:
    seed, board, games = 5, 100, 200
    plugin = write_plugin(CRASHER.replace("SEED", str(seed)).replace("BOARD", str(board)), "crasher_plugin")
    refs = (PlayerRef(name="crasher"), PlayerRef(name="random"))
    # Trusted: the player runs inside the pool's worker, so its SIGKILL takes the worker down.
    crashing = TournamentConfig.build(
        BEGINNER, FirstClick.SAFE, seed=seed, games=games, players=refs, isolation=Isolation.TRUSTED
    )
    with Store(tmp_path / "a.db") as store:
        with pytest.raises(WorkerCrashError) as error:
            run_tournament(plan_tournament(crashing, store, Registry([plugin]), workers=2), store)
        rows = store.games(crashing.id)
    # 200 boards, 2 workers: batches of 12 boards; only the culprit's batch is named (suspects run alone).
    assert "died 3 times while playing boards 96-107;" in str(error.value)
    assert "rerun to resume" in str(error.value)
    assert rows and all(r.board not in range(96, 108) for r in rows)
    assert len({(r.player, r.board) for r in rows}) == len(rows)
