"""``RemoteAgent``, an isolated player as the game loop sees it: the same games as trusted ones, limits set by the
kernel, restarts after a failure, an external bot (the stdlib example) in a real tournament, and the protocol's
failures (over the in-memory transport, tests/memory_transport.py, where a process is not what is tested)."""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import signal
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memory_transport import BotExit, host_agent, scripted_agent, scripted_client
from repo import BOTS, ROOT
from typer.testing import Result

from arena.config import PlayerRef, TournamentConfig
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.isolation.protocol.bot_command import host_command
from arena.isolation.protocol.remote import MAX_SETUP_FAILURES, RemoteAgent
from arena.limits import Isolation, Limits, SandboxMode
from arena.outcome import GameResult, Outcome
from arena.play.runner import play_game
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import BEGINNER, EXPERT, BoardSpec, FirstClick
from players.registry import PluginLoadError, Registry

STANDALONE = (sys.executable, str(ROOT / "examples" / "standalone_bot.py"))
TIMINGS = ("cpu_ms", "wall_ms")
LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc and prctl")
#: For tests about a move limit: a bot that never answers costs little.
FAST = Limits(move_time=1.0, game_time=60.0, grace=0.25, startup_time=60)
#: For every other test: limits no honest move reaches, however busy the machine.
GENEROUS = Limits(move_time=60.0, game_time=600.0, startup_time=120)

#: The start of every scripted engine bot: answers hello, then calls on_observation(message) for a reply.
PREAMBLE = """
import json, sys
def serve(on_observation, protocol=1):
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"protocol": protocol, "name": "scripted", "version": "0"}), flush=True)
        elif message["type"] == "observation":
            reply = on_observation(message)
            if reply is not None:
                print(json.dumps(reply), flush=True)
        elif message["type"] == "quit":
            return
"""


@pytest.fixture
def script_bot(tmp_path: Path) -> Callable[[str], list[str]]:
    """Write a stdlib bot (the preamble plus ``body``) and return its command."""

    def write(body: str) -> list[str]:
        path = tmp_path / f"bot_{abs(hash(body))}.py"
        path.write_text(PREAMBLE + textwrap.dedent(body), encoding="utf-8")
        return [sys.executable, str(path)]

    return write


def deterministic(games: list[GameResult]) -> list[GameResult]:
    """The games with their timings, the only figures that vary between runs, zeroed."""
    return [dataclasses.replace(g, **dict.fromkeys(TIMINGS, 0.0)) for g in games]


def play_tournament(path: Path, config: TournamentConfig, registry: Any = None, workers: int = 1) -> list[GameResult]:
    with Store(path) as store:
        run_tournament(plan_tournament(config, store, registry or Registry(), workers=workers), store)
        return store.games(config.id)


# -- the same games, trusted or isolated --------------------------------------------------------------------------


@pytest.mark.slow
def test_trusted_and_isolated_play_identical_games(tmp_path: Path) -> None:
    refs = (
        PlayerRef(name="random"),
        PlayerRef(name="random", options={"random_first_click": True}),
        PlayerRef(name="mean-constraint"),
    )
    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=31, games=30, players=refs)
    trusted = play_tournament(tmp_path / "t.db", config.model_copy(update={"isolation": Isolation.TRUSTED}))
    isolated = config.model_copy(update={"isolation": Isolation.ISOLATED})
    one = play_tournament(tmp_path / "i1.db", isolated)
    two = play_tournament(tmp_path / "i2.db", isolated, workers=2)
    assert len(trusted) == 90
    assert deterministic(one) == deterministic(trusted)
    assert deterministic(two) == deterministic(trusted)
    assert {r.outcome for r in trusted} == {Outcome.WON, Outcome.LOST}
    assert sum(r.guesses for r in one) > 0  # guess markers cross the boundary


def run_cli(*args: str | Path) -> Result:
    from typer.testing import CliRunner

    from arena.cli import app

    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.mark.slow
def test_the_standalone_example_bot_plays_a_tournament(tmp_path: Path) -> None:
    bot = f"standalone={' '.join(STANDALONE)}"
    args = ("tournament", "-n", "40", "--seed", "5", "-w", "1", "-q", "--json", "--engine-bot", bot)
    first = run_cli(*args, "-p", "standalone,random", "--store", tmp_path / "a.db")
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    rows = {r["player"]: r for r in data["rows"]}
    assert rows["standalone"]["games"] == 40
    assert rows["standalone"]["failed"] == 0
    assert rows["standalone"]["wins"] > 10  # the single-cell rules win most beginner boards
    assert data["run"]["isolation"] == "auto"
    # Again, with `random` isolated too: the same games for both (the bot's seed makes it repeatable).
    again = run_cli(*args, "-p", "standalone,random", "--isolation", "isolated", "--store", tmp_path / "b.db")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["run"]["isolation"] == "isolated"
    with Store(tmp_path / "a.db", create=False) as a, Store(tmp_path / "b.db", create=False) as b:
        first_rows, second_rows = a.games(a.latest()), b.games(b.latest())
        assert len(first_rows) == 80
        assert deterministic(first_rows) == deterministic(second_rows)
        mine = [r for r in first_rows if r.player == "standalone"]
        assert sum(r.guesses for r in mine) > 0
        sources = {p.key: p.source for p in a.players(a.latest())}
        assert sources["standalone"].startswith("engine ") and sources["random"] == "builtin"


PID_PLUGIN = """
import os
from pathlib import Path

from players import hookimpl
from players.builtin.random_player import RandomPlayer

print("a plugin printing at import time")
with open(Path(__file__).with_suffix(".pids"), "a") as pids:
    pids.write(f"{os.getpid()}\\n")


class Imported(RandomPlayer):
    name = "imported"


@hookimpl
def register_players(register):
    register(Imported)
"""


@pytest.mark.slow
def test_third_party_code_never_runs_in_the_arena_unless_trusted(tmp_path: Path) -> None:
    plugin = tmp_path / "pid_plugin.py"
    plugin.write_text(PID_PLUGIN, encoding="utf-8")
    pids = tmp_path / "pid_plugin.pids"
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('cannot load me')\n", encoding="utf-8")
    refs = (PlayerRef(name="imported"), PlayerRef(name="random"))
    # The plugin writes its PID next to itself: the sandbox (tested in sandbox/test_bubblewrap.py) would refuse that.
    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=2, games=6, players=refs, sandbox=SandboxMode.OFF)
    # A plugin that fails to import fails in the listing process, and (named with --plugin) stops the run.
    refused = PlayerCatalog.for_tournament([str(broken)], (), Isolation.AUTO, SandboxMode.OFF)
    assert [f.error for f in refused.failures] == ["ImportError: cannot load me"]
    with pytest.raises(PluginLoadError, match=r"broken\.py cannot be loaded: ImportError: cannot load me$"):
        refused.check_requested(["random"])
    catalog = PlayerCatalog.for_tournament([str(plugin)], (), Isolation.AUTO, SandboxMode.OFF)
    assert catalog.get("imported").source.startswith("file ")
    assert catalog.failures == []
    isolated = play_tournament(tmp_path / "auto.db", config, catalog)
    seen = {int(line) for line in pids.read_text().split()}
    assert os.getpid() not in seen
    assert len(seen) == 2  # the listing process and the player's own process
    trusted = config.model_copy(update={"isolation": Isolation.TRUSTED})
    in_process = play_tournament(
        tmp_path / "trusted.db",
        trusted,
        PlayerCatalog.for_tournament([str(plugin)], (), Isolation.TRUSTED, SandboxMode.OFF),
    )
    assert os.getpid() in {int(line) for line in pids.read_text().split()}
    assert deterministic(isolated) == deterministic(in_process)


def test_an_engine_bot_that_cannot_start_is_reported_before_the_tournament(tmp_path: Path) -> None:
    result = run_cli("tournament", "-n", "2", "--engine-bot", "ghost=/nonexistent/bot", "-p", "ghost")
    assert result.exit_code == 2
    assert result.stderr == "error: engine bot 'ghost': '/nonexistent/bot': no such file\n"  # one line, before any game


# -- limits and the sandbox ---------------------------------------------------------------------------------------


@LINUX
def test_the_kernel_limits_are_set_and_the_arena_is_not_readable() -> None:
    limits = Limits(memory_mb=700, game_time=20)
    agent = RemoteAgent("standalone", STANDALONE, limits)
    agent.prepare()
    try:
        assert agent.process is not None and agent.process.pid is not None
        pid = agent.process.pid
        table = {line[:26].strip(): line[26:].split() for line in Path(f"/proc/{pid}/limits").read_text().splitlines()}
        assert table["Max address space"][0] == str(700 * 1024 * 1024)
        assert table["Max cpu time"][0] == str(limits.cpu_rlimit)
        assert table["Max core file size"][0] == "0"
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        assert stat[2] == str(pid)  # its own process group (and session): killpg takes all of it
        assert stat[3] != Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[3]
        # The arena process that holds the layouts is non-dumpable, and a root bot has no CAP_SYS_PTRACE.
        assert ctypes.CDLL(None).prctl(3, 0, 0, 0, 0) == 0  # PR_GET_DUMPABLE
        capabilities = int(
            next(
                line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("CapEff")
            ).split()[1],
            16,
        )
        assert not capabilities & (1 << 19)
    finally:
        agent.close()
    assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split()[2] in "ZX"


@pytest.mark.slow
@LINUX
def test_the_cheater_finds_nothing_in_its_own_process() -> None:
    cheater = BOTS / "hostile" / "cheater.py"
    command = host_command("hostile-cheater", plugin_files=[str(cheater)], warm_up_time=0)
    agent = RemoteAgent("hostile-cheater", command, GENEROUS)
    try:
        result = play_game(agent, "hostile-cheater", EXPERT, FirstClick.SAFE, 5, 0, limits=GENEROUS)
        said = "\n".join(agent.diagnostics())
    finally:
        agent.close()
    assert result.outcome in (Outcome.WON, Outcome.LOST)
    assert "game not found" in said
    assert "mem: PermissionError" in said


@pytest.mark.slow
def test_a_bot_over_its_cpu_limit_is_a_timeout(script_bot: Callable[[str], list[str]]) -> None:
    command = script_bot(
        """
        def spin(message):
            while True:
                pass
        serve(spin)
        """
    )
    # RLIMIT_CPU 2 s; the wall clock allows two minutes, which no machine takes to give a spinning
    # process two CPU seconds: the kernel's limit is what stops it.
    limits = Limits(move_time=120, game_time=120, cpu_time=0.4, grace=0.25)
    agent = RemoteAgent("spinner", command, limits)
    result = play_game(agent, "spinner", BEGINNER, FirstClick.SAFE, 1, 0, limits=limits)
    agent.close()
    assert result.outcome is Outcome.TIMEOUT
    assert "CPU limit" in result.error


SLOW_STARTER = """
import time

from players import hookimpl
from players.builtin.random_player import RandomPlayer


class SlowStarter(RandomPlayer):
    name = "slow-starter"
    description = "random, once it has loaded for 5 s in its process's first move (as a JIT compile would)"
    loaded = False

    def play(self, observation):
        if not SlowStarter.loaded:
            time.sleep(5)
            SlowStarter.loaded = True
        return super().play(observation)


@hookimpl
def register_players(register):
    register(SlowStarter)
"""


@pytest.mark.slow
def test_an_honest_slow_start_is_not_billed_to_the_first_move(
    tmp_path: Path, write_plugin: Callable[[str, str], Path]
) -> None:
    # Loading takes longer than a move may (numba loading its cache on a busy machine does): the
    # host's warm-up game, part of the start-up budget, absorbs it. When the warm-up had only a
    # move's time, it was cut, and the first real move timed out loading the rest.
    plugin = write_plugin(SLOW_STARTER, "slow_starter")
    limits = Limits(move_time=2.0, game_time=600.0, grace=0.25, startup_time=120)
    config = TournamentConfig.build(
        BEGINNER, FirstClick.SAFE, seed=3, games=3, players=(PlayerRef(name="slow-starter"),), limits=limits
    )
    catalog = PlayerCatalog.for_tournament([str(plugin)], (), Isolation.AUTO)
    rows = play_tournament(tmp_path / "slow.db", config, catalog)
    assert [r.error for r in rows] == ["", "", ""]
    assert {r.outcome for r in rows} <= {Outcome.WON, Outcome.LOST}


HANGER = """
from players import Player, hookimpl


class Hanger(Player):
    name = "hanger"

    def play(self, observation):
        while True:
            pass


@hookimpl
def register_players(register):
    register(Hanger)
"""


@pytest.mark.slow
def test_a_player_that_hangs_in_its_warm_up_is_stopped_there_and_still_answers_hello(
    write_plugin: Callable[[str, str], Path],
) -> None:
    plugin = write_plugin(HANGER, "hanger")
    command = host_command("hanger", plugin_files=[str(plugin)], entry_points=False, warm_up_time=1)
    agent = RemoteAgent("hanger", command, FAST)
    try:
        result = play_game(agent, "hanger", BEGINNER, FirstClick.SAFE, 1, 0, limits=FAST)
    finally:
        agent.close()
    assert result.outcome is Outcome.TIMEOUT  # the real game's move, after a hello in time
    assert "bot_host: warm-up stopped: WarmUpTimeout: no end after 1 s" in result.error


def test_a_process_that_used_a_games_cpu_is_recycled_before_the_next_game() -> None:
    limits = Limits(cpu_time=0.001)  # every start-up already uses more
    agent = RemoteAgent("standalone", STANDALONE, limits)
    results = [play_game(agent, "standalone", BEGINNER, FirstClick.SAFE, 1, b, limits=limits) for b in range(3)]
    agent.close()
    assert {r.outcome for r in results} <= {Outcome.WON, Outcome.LOST}
    assert agent.starts == 3


# -- failures -------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_bot_that_never_answers_times_out_and_is_restarted(script_bot: Callable[[str], list[str]]) -> None:
    command = script_bot(
        """
        def ignore(message):
            return None
        serve(ignore)
        """
    )
    agent = RemoteAgent("mute", command, FAST)
    results = [play_game(agent, "mute", BEGINNER, FirstClick.SAFE, 1, b, limits=FAST) for b in range(2)]
    agent.close()
    assert [r.outcome for r in results] == [Outcome.TIMEOUT, Outcome.TIMEOUT]
    # Stopped by the move limit (1 s), not the game's (60 s): however busy the machine, a kill and a
    # restart take nowhere near a minute.
    assert all(FAST.move_time <= r.wall_ms / 1000 < FAST.game_time for r in results)
    assert agent.starts >= 2


def test_ctrl_c_while_waiting_for_a_bot_stops_at_once_and_the_bot_restarts(
    script_bot: Callable[[str], list[str]],
) -> None:
    # The bot presses "Ctrl-C" in the arena (SIGUSR1, made a KeyboardInterrupt here) once it holds
    # the observation, and never answers: the arena is then surely waiting for it. Not stopping at
    # once would end the game as a timeout, a minute later, instead of raising.
    command = script_bot(
        """
        import os, signal
        def interrupt(message):
            os.kill(os.getppid(), signal.SIGUSR1)
        serve(interrupt)
        """
    )
    limits = Limits(move_time=60, startup_time=120)
    agent = RemoteAgent("mute", command, limits)

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGUSR1, interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            play_game(agent, "mute", BEGINNER, FirstClick.SAFE, 1, 0, limits=limits)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    agent.prepare()  # the interrupted game left the bot mid-game: it starts afresh
    assert agent.starts == 2
    agent.close()


def test_the_standalone_bot_needs_nothing_but_the_standard_library() -> None:
    spec = BoardSpec(2, 3, 1)
    # -I -S: no site-packages, no PYTHONPATH, no current directory: the project cannot be imported.
    agent = RemoteAgent("standalone", [sys.executable, "-I", "-S", STANDALONE[1]], GENEROUS)
    results = [play_game(agent, "standalone", spec, FirstClick.SAFE, 9, b, limits=GENEROUS) for b in range(5)]
    agent.close()
    assert {r.outcome for r in results} <= {Outcome.WON, Outcome.LOST}
    assert agent.starts == 1  # one process for every game


# -- the protocol's messages, in memory (tests/memory_transport.py): no process is what these look at -----------


def test_a_bot_that_cannot_start_fails_its_games_and_is_not_retried_forever() -> None:
    def broken() -> None:
        print("broken")
        raise BotExit(3)

    agent = scripted_agent("dead", scripted_client(lambda message: None, start=broken))
    results = [play_game(agent, "dead", BEGINNER, FirstClick.SAFE, 1, b, limits=GENEROUS) for b in range(5)]
    assert {r.outcome for r in results} == {Outcome.CRASHED}
    assert "exited with code 3 before its hello" in results[0].error
    assert "broken" in results[0].error
    assert agent.starts == MAX_SETUP_FAILURES


def test_a_bot_speaking_another_protocol_version_is_illegal() -> None:
    agent = scripted_agent("future", scripted_client(lambda message: None, protocol_version=2), GENEROUS)
    result = play_game(agent, "future", BEGINNER, FirstClick.SAFE, 1, 0, limits=GENEROUS)
    assert result.outcome is Outcome.ILLEGAL
    assert "speaks protocol 2" in result.error


def test_an_isolated_player_with_bad_options_is_an_error() -> None:
    agent = host_agent("random", GENEROUS, {"no_such_option": 1})
    result = play_game(agent, "random", BEGINNER, FirstClick.SAFE, 1, 0, limits=GENEROUS)
    agent.close()
    assert result.outcome is Outcome.ERROR
    assert "could not set up the player: PlayerOptionsError" in result.error
