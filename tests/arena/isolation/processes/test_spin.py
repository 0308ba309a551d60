"""Busy-waiting pipes: the line reader, when spinning is allowed, and that busy waits are not billed
as a bot's thinking (nor can a bot that claims to have waited shave more than the arena saw)."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable

import pytest

from arena.isolation.processes.spin import DEFAULT_SPIN, LineReader, read_spinning, spin_window
from arena.isolation.protocol import messages as protocol
from arena.isolation.protocol.bot_command import host_command
from arena.isolation.protocol.remote import RemoteAgent
from arena.limits import Limits
from arena.play.runner import play_game
from engine import BEGINNER, Action, FirstClick
from players.builtin.random_player import RandomPlayer

#: Not what these tests are about: limits no honest move reaches, however busy the machine.
LIMITS = Limits(move_time=60.0, game_time=600.0, startup_time=120)


@pytest.mark.parametrize("spin", [0.0, 0.001])
def test_the_line_reader_splits_joins_and_ends(spin: float) -> None:
    read, write = os.pipe()
    reader = LineReader(read, spin)

    def feed() -> None:
        for chunk in (b"one\ntw", b"o\n", b"", b"\nthree\nfour"):
            os.write(write, chunk) if chunk else time.sleep(0.01)
        os.close(write)

    thread = threading.Thread(target=feed)
    thread.start()
    assert list(reader) == [b"one", b"two", b"", b"three", b"four"]
    thread.join()
    os.close(read)


def test_read_spinning_gives_up_after_its_window_and_sees_the_end() -> None:
    read, write = os.pipe()
    os.set_blocking(read, False)
    started = time.perf_counter()
    assert read_spinning(read, 0.002) is None
    assert time.perf_counter() - started >= 0.002
    assert read_spinning(read, 0.0) is None  # no window: never tries
    os.write(write, b"x")
    assert read_spinning(read, 0.002) == b"x"
    os.close(write)
    assert read_spinning(read, 0.002) == b""
    os.close(read)


def test_spinning_only_when_every_process_has_a_core() -> None:
    assert spin_window(2, cores=2) == DEFAULT_SPIN
    assert spin_window(3, cores=2) == 0.0
    assert spin_window(4, cores=8) == DEFAULT_SPIN


def test_a_reply_reports_its_busy_wait_and_the_arena_reads_it() -> None:
    line = protocol.encode_answer([Action.reveal(1, 2, guess=True)], 0.000125)
    actions, spun = protocol.parse_reply(line)
    assert actions == [Action.reveal(1, 2, guess=True)]
    assert spun == pytest.approx(0.000125)
    assert protocol.parse_reply(protocol.encode_answer([Action.flag(0, 0)]))[1] == 0.0
    for bogus in ('"lots"', "-5", "1e12", "true"):
        assert protocol.parse_reply(f'{{"actions":[["reveal",0,0]],"spin_us":{bogus}}}')[1] == 0.0


@pytest.fixture
def liar(tmp_path: os.PathLike[str]) -> Callable[[float], list[str]]:
    """A stdlib bot that claims ``claim_us`` of busy waiting in every reply and burns no CPU."""

    def command(claim_us: float) -> list[str]:
        path = os.path.join(tmp_path, f"liar_{int(claim_us)}.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(
                "import json, sys\n"
                "for line in sys.stdin:\n"
                "    m = json.loads(line)\n"
                "    if m['type'] == 'hello':\n"
                "        print(json.dumps({'protocol': 1, 'name': 'liar', 'version': '0'}), flush=True)\n"
                "    elif m['type'] == 'observation':\n"
                "        g = m['grid']\n"
                "        cell = next((r, c) for r, row in enumerate(g) for c, v in enumerate(row) if v == '#')\n"
                f"        print(json.dumps({{'actions': [['reveal', *cell]], 'spin_us': {claim_us}}}), flush=True)\n"
                "    elif m['type'] == 'quit':\n"
                "        break\n"
            )
        return [sys.executable, path]

    return command


def test_a_bot_cannot_claim_more_busy_waiting_than_its_window(liar: Callable[[float], list[str]]) -> None:
    # It claims a whole second per reply; at most the window per move is taken off its bill (plus
    # the arena's own busy wait, one window per move at most), and never more than its CPU.
    window = 0.001
    lying = RemoteAgent("liar", liar(1e6), LIMITS, spin=window)
    try:
        play_game(lying, "liar", BEGINNER, FirstClick.SAFE, 3, 99, limits=LIMITS)  # loads the engine's kernels
        for board in range(4):
            idle = lying._idle
            assert lying.process is not None
            cpu = lying.process.cpu_seconds()
            result = play_game(lying, "liar", BEGINNER, FirstClick.SAFE, 3, board, limits=LIMITS)
            assert lying._idle - idle <= 2 * result.moves * window + 1e-9
            assert lying._claimed <= lying.process.cpu_seconds() - cpu + 1e-9
            assert result.cpu_ms >= 0.0
    finally:
        lying.close()


def test_the_core_count_has_a_fallback_where_affinity_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert spin_window(2) == DEFAULT_SPIN
    assert spin_window(3) == 0.0


class SlowArena:
    """An agent whose arena side takes ``GAP`` between a reply and the next observation, longer
    than the spin window: a spinning bot busy-waits through a whole window after each reply, and
    every such wait falls within the wall time the arena can vouch for, however busy the machine."""

    GAP = 0.020

    def __init__(self, inner: RemoteAgent) -> None:
        self.inner = inner
        self.name = inner.name

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def act(self, observation: object, budget: float) -> object:
        time.sleep(self.GAP)
        return self.inner.act(observation, budget)  # type: ignore[arg-type]

    def act_live(self, *args: object) -> object:
        time.sleep(self.GAP)
        return self.inner.act_live(*args)  # type: ignore[arg-type]


@pytest.mark.serial  # compares CPU times measured in two runs
@pytest.mark.parametrize("shared", [False, True], ids=["lines", "shared-memory"])
def test_busy_waits_are_not_billed_as_thinking(shared: bool) -> None:
    # The same player behind spinning and blocking waits: unbilled, the bot's busy waits would add
    # most of a window (3 ms) per move here, still about 0.5 ms with two busy loops on two cores.
    # The window is shorter than the arena's gap, so each busy wait is credited whole however late
    # the arena reads the reply. The host spins once per reply: one woken by its backstop (5 ms,
    # in shared memory) before the observation came used to spin again, and only a window per
    # reply is credited, so about 3 ms per move here were billed.
    window = 0.003
    assert window < SlowArena.GAP
    figures = {}
    play_game(RandomPlayer(), "random", BEGINNER, FirstClick.SAFE, 11, 99)  # loads the engine's kernels
    for spin in (0.0, window):
        command = host_command("random", entry_points=False, spin=spin)
        agent = RemoteAgent("random", command, LIMITS, spin=spin, shared=shared)
        try:
            results = [
                play_game(SlowArena(agent), "random", BEGINNER, FirstClick.SAFE, 11, board, limits=LIMITS)  # type: ignore[arg-type]
                for board in range(6)
            ]
            assert (agent._channel is not None) is shared
        finally:
            agent.close()
        figures[spin] = (sum(r.cpu_ms for r in results), sum(r.moves for r in results))
    (blocking, moves), (spinning, _) = figures[0.0], figures[window]
    assert spinning < blocking + moves * 0.3
