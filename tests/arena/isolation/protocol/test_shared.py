"""The shared-memory channel between the arena and its Python bot host: what crosses it is exactly what
the line protocol would carry, anything unusual still goes by pipe, and no game differs for it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from arena.isolation.processes.bot_process import BotTimeout
from arena.isolation.protocol import shared as shm
from arena.isolation.protocol.bot_command import host_command
from arena.isolation.protocol.remote import RemoteAgent
from arena.limits import Limits
from arena.outcome import Outcome
from arena.play.runner import play_game
from engine import BEGINNER, Action, ActionKind, BoardSpec, FirstClick, Game, InvalidActionError
from players.registry import Registry

pytestmark = pytest.mark.skipif(not shm.supported(), reason="the channel needs Linux on x86-64")

#: Not what these tests are about: limits no honest move reaches, however busy the machine.
LIMITS = Limits(move_time=60.0, game_time=600.0, startup_time=120)
TIMINGS = ("cpu_ms", "wall_ms")


@pytest.fixture
def pair() -> tuple[shm.SharedChannel, shm.SharedChannel]:
    """Both ends of one segment, in this process: the arena's and the bot's."""
    arena, fd = shm.SharedChannel.create(cells=600, actions=8)
    bot = shm.SharedChannel.attach(os.dup(fd))
    os.close(fd)
    yield arena, bot
    bot.close()
    arena.close()


def a_position() -> Game:
    game = Game(BEGINNER, FirstClick.SAFE, seed=5, index=2)
    game.apply(Action.reveal(0, 0))
    game.apply(Action.flag(8, 8))
    return game


def test_an_observation_arrives_as_the_engine_gives_it(pair: tuple[shm.SharedChannel, shm.SharedChannel]) -> None:
    arena, bot = pair
    expected = a_position().observation()
    assert bot.posted() == 0
    assert not arena.post(expected, lines=3)  # the bot is not asleep: no wake-up needed
    assert bot.posted() == 1 and bot.lines_before() == 3
    seen = bot.observation(FirstClick.SAFE)
    assert np.array_equal(seen.grid, expected.grid) and seen.grid.dtype == np.int8
    assert not seen.grid.flags.writeable
    assert (seen.mines, seen.flags, seen.moves, seen.rule) == (expected.mines, 1, 2, FirstClick.SAFE)
    bot.set_bot_sleeping(True)
    assert arena.post(expected, lines=3)  # now it is
    assert bot.posted() == 2


def test_a_new_game_is_announced_with_its_first_observation(
    pair: tuple[shm.SharedChannel, shm.SharedChannel],
) -> None:
    arena, bot = pair
    seed = (0xF123 << 112) | 0xFFFF_FFFF_FFFF_FFFF  # both words with their top bit set
    assert arena.announce("beginner", FirstClick.OPENING, seed)
    arena.post(a_position().observation(), lines=0)
    assert bot.new_game() == ("beginner", FirstClick.OPENING, seed)
    assert bot.board() == (9, 9, 10)
    assert bot.new_game() is None  # the same game goes on
    arena.post(a_position().observation(), lines=0)
    assert bot.new_game() is None
    assert arena.announce("ünïcode", FirstClick.NONE, 0)
    arena.post(a_position().observation(), lines=0)
    assert bot.new_game() == ("ünïcode", FirstClick.NONE, 0)
    # What does not fit is left to the new_game line.
    assert not arena.announce("x" * (shm.NAME_BYTES + 1), FirstClick.SAFE, 1)
    assert not arena.announce("beginner", FirstClick.SAFE, 1 << 128)
    arena.post(a_position().observation(), lines=1)
    assert bot.new_game() is None


def test_actions_come_back_with_their_guess_marks(pair: tuple[shm.SharedChannel, shm.SharedChannel]) -> None:
    arena, bot = pair
    arena.post(a_position().observation(), lines=0)
    bot.observation(FirstClick.SAFE)
    sent = [Action.reveal(3, 4, guess=True), Action.flag(1, 2), Action.chord(0, 0), Action.unflag(8, 8)]
    assert not arena.answered()
    assert bot.write_actions(sent, spun=25e-6)
    assert arena.answered() and arena.status() == shm.STATUS_ACTIONS
    actions, spun = arena.reply()
    assert actions == sent and all(type(a) is Action for a in actions)
    assert [a.guess for a in actions] == [True, False, False, False]
    assert spun == pytest.approx(25e-6)


@pytest.mark.parametrize(
    "answer",
    [
        [],  # no action: the pipe explains
        [("reveal", 1, 1)],  # a tuple, not an Action
        [Action.reveal(1, 1), "reveal 2,2"],
        [Action(ActionKind.REVEAL, 1.5, 2)],  # not whole numbers
        [Action(ActionKind.REVEAL, 2**40, 2)],  # beyond int32
        [Action("explode", 1, 2)],  # an unknown kind
        [Action.reveal(0, c) for c in range(9)],  # more than the segment holds
        [Action.reveal(1, 1, guess=True, note="why")],  # a note: only lines carry it
        [Action.flag(1, 1), Action.reveal(2, 2, p_mine=0.5)],
    ],
)
def test_anything_unusual_is_left_to_the_pipe(pair: tuple[shm.SharedChannel, shm.SharedChannel], answer: list) -> None:
    arena, bot = pair
    arena.post(a_position().observation(), lines=0)
    bot.observation(FirstClick.SAFE)
    assert not bot.write_actions(answer, spun=0.0)
    assert not arena.answered()  # nothing published: the bot answers by line and marks it
    bot.write_pipe_marker(0.0)
    assert arena.answered() and arena.status() == shm.STATUS_PIPE


def test_the_arena_refuses_what_a_bot_scribbles_into_the_segment(
    pair: tuple[shm.SharedChannel, shm.SharedChannel],
) -> None:
    arena, bot = pair
    arena.post(a_position().observation(), lines=0)
    bot.observation(FirstClick.SAFE)
    bot.write_actions([Action.reveal(1, 1)], spun=0.0)
    bot.actions[0, 0] = 7
    actions, _ = arena.reply()  # rows are played as they are: the engine refuses this one
    with pytest.raises(InvalidActionError, match="unknown action kind code 7"):
        a_position().play_answer(actions)
    bot.actions[0, 0] = -1  # not an index from the end
    with pytest.raises(InvalidActionError, match="unknown action kind code -1"):
        a_position().play_answer(arena.reply()[0])
    bot.actions[0] = (0, 99, 1, 0)
    with pytest.raises(InvalidActionError, match="off the"):
        a_position().play_answer(arena.reply()[0])
    bot.words[16 + 2] = 0  # COUNT
    with pytest.raises(InvalidActionError, match="no action"):
        arena.reply()
    bot.words[16 + 2] = 10**6  # COUNT
    with pytest.raises(shm.SharedChannelError, match="holds 8"):
        arena.reply()


def test_a_descriptor_that_is_not_a_segment_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "not-a-segment"
    path.write_bytes(b"\0" * 4096)
    with pytest.raises(shm.SharedChannelError, match="not an arena segment"):
        shm.SharedChannel.attach(os.open(path, os.O_RDWR))
    with pytest.raises(shm.SharedChannelError, match="cannot map"):
        shm.SharedChannel.attach(987_654)  # not an open descriptor
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with pytest.raises(shm.SharedChannelError):
        shm.SharedChannel.attach(os.open(empty, os.O_RDWR))


class SilentProcess:
    """Stands in for a bot process whose wake-up never comes. ``during(n)`` runs while the arena
    sleeps for the ``n``-th time (counting from 1): the bot's doing, at a known point of the wait."""

    def __init__(self, during: Callable[[int], None] = lambda n: None) -> None:
        self.waits: list[float] = []
        self.during = during

    def await_output(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.during(len(self.waits))
        time.sleep(seconds)


def test_a_lost_wake_up_costs_a_backstop_not_a_game(pair: tuple[shm.SharedChannel, shm.SharedChannel]) -> None:
    arena, bot = pair
    arena.post(a_position().observation(), lines=0)

    def answer_during_the_third_sleep(n: int) -> None:
        assert bot.arena_sleeping()
        if n == 3:
            bot.observation(FirstClick.SAFE)
            bot.write_actions([Action.reveal(1, 1)], spun=0.0)  # and no wake-up, although the arena sleeps

    process = SilentProcess(answer_during_the_third_sleep)
    shm.await_answer(arena, process, time.monotonic() + 60.0, spin=0.0)
    assert arena.answered()
    # It slept in short stretches, looking again after each, not to the deadline, and saw the
    # answer after the sleep during which it came.
    assert process.waits and max(process.waits) <= shm.BACKSTOP
    assert len(process.waits) == 3
    assert not bot.arena_sleeping()  # and says it is awake again


def test_waiting_past_the_deadline_is_a_timeout(pair: tuple[shm.SharedChannel, shm.SharedChannel]) -> None:
    arena, _ = pair
    arena.post(a_position().observation(), lines=0)
    with pytest.raises(BotTimeout):
        shm.await_answer(arena, SilentProcess(), time.monotonic() + 0.05, spin=1e-4)


def play(agent: RemoteAgent, spec: BoardSpec, boards: range) -> list[dict]:
    rows = []
    for board in boards:
        row = play_game(agent, agent.name, spec, FirstClick.SAFE, 23, board, limits=LIMITS).as_row()
        rows.append({k: v for k, v in row.items() if k not in TIMINGS})
    return rows


@pytest.mark.slow
@pytest.mark.parametrize("spin", [0.0, 200e-6])
def test_the_same_games_through_the_segment_as_by_lines_and_in_process(spin: float) -> None:
    player = Registry((), entry_points=False).create("mean-constraint")
    trusted = [
        play_game(player, "mean-constraint", BEGINNER, FirstClick.SAFE, 23, board).as_row() for board in range(25)
    ]
    trusted = [{k: v for k, v in row.items() if k not in TIMINGS} for row in trusted]
    for shared in (True, False):
        command = host_command("mean-constraint", entry_points=False, spin=spin)
        agent = RemoteAgent("mean-constraint", command, LIMITS, spin=spin, shared=shared)
        try:
            assert play(agent, BEGINNER, range(25)) == trusted
            assert (agent._channel is not None) is shared
        finally:
            agent.close()


@pytest.mark.slow
def test_a_board_whose_name_is_too_long_for_the_segment_is_announced_by_line() -> None:
    named = BoardSpec(9, 9, 10, "a board whose name is longer than the segment's sixty-four bytes for it")
    boards = [BEGINNER, named, named, BEGINNER, named]
    player = Registry((), entry_points=False).create("random")
    trusted = [
        play_game(player, "random", spec, FirstClick.SAFE, 23, board).as_row() for board, spec in enumerate(boards)
    ]
    agent = RemoteAgent("random", host_command("random", entry_points=False), LIMITS, shared=True)
    try:
        remote = [
            play_game(agent, "random", spec, FirstClick.SAFE, 23, board, limits=LIMITS).as_row()
            for board, spec in enumerate(boards)
        ]
        assert agent._channel is not None and agent.starts == 1
    finally:
        agent.close()
    assert [{k: v for k, v in r.items() if k not in TIMINGS} for r in remote] == [
        {k: v for k, v in r.items() if k not in TIMINGS} for r in trusted
    ]


@pytest.mark.slow
def test_a_board_larger_than_the_segment_goes_by_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shm, "DEFAULT_CELLS", 60)  # Beginner has 81 cells
    wide = BoardSpec(4, 10, 6, "small")
    agent = RemoteAgent("random", host_command("random", entry_points=False), LIMITS, shared=True)
    try:
        small = play(agent, wide, range(8))  # 40 cells: through the segment
        assert agent._channel is not None
        large = play(agent, BEGINNER, range(8))  # 81 cells: by lines, same process
        assert agent.starts == 1
    finally:
        agent.close()
    lines = RemoteAgent("random", host_command("random", entry_points=False), LIMITS, shared=False)
    try:
        assert play(lines, wide, range(8)) == small
        assert play(lines, BEGINNER, range(8)) == large
    finally:
        lines.close()


@pytest.mark.slow
def test_errors_and_garbage_still_travel_by_line_and_the_next_game_is_clean(write_plugin) -> None:
    plugin = write_plugin(
        """
        from engine import Action
        from players import hookimpl
        from players.builtin.random_player import RandomPlayer

        class Moody(RandomPlayer):
            name = "moody"
            description = "random, except on some moves"

            def play(self, observation):
                if observation.moves == 1 and observation.grid[0, 0] == 1:
                    raise ValueError("a one in the corner")
                if observation.moves == 1 and observation.grid[0, 0] == 2:
                    return ["reveal 1,1"]
                return super().play(observation)

        @hookimpl
        def register_players(register):
            register(Moody)
        """,
        "moody_plugin",
    )
    command = host_command("moody", plugin_files=[str(plugin)], entry_points=False)
    agent = RemoteAgent("moody", command, LIMITS, shared=True)
    try:
        results = [play_game(agent, "moody", BEGINNER, FirstClick.SAFE, 3, board, limits=LIMITS) for board in range(40)]
        assert agent._channel is not None
        assert agent.starts == 1  # an error or an illegal answer does not cost the process
    finally:
        agent.close()
    outcomes = {r.outcome for r in results}
    assert {Outcome.ERROR, Outcome.ILLEGAL} <= outcomes
    assert outcomes & {Outcome.WON, Outcome.LOST}
    assert any("a one in the corner" in r.error for r in results if r.outcome is Outcome.ERROR)
    assert any("not an action" in r.error for r in results if r.outcome is Outcome.ILLEGAL)


@pytest.mark.slow
def test_a_bot_killed_mid_game_crashes_that_game_only() -> None:
    agent = RemoteAgent("random", host_command("random", entry_points=False), LIMITS, shared=True)
    try:
        assert play_game(agent, "random", BEGINNER, FirstClick.SAFE, 4, 0, limits=LIMITS).outcome in (
            Outcome.WON,
            Outcome.LOST,
        )
        process = agent.process
        assert process is not None and agent._channel is not None

        class Killer:
            name = "random"

            def __getattr__(self, attribute: str) -> object:
                return getattr(agent, attribute)

            def act(self, observation: object, budget: float) -> object:
                os.kill(process.pid, 9)
                return agent.act(observation, budget)  # type: ignore[arg-type]

            def act_live(self, *args: object) -> object:
                os.kill(process.pid, 9)
                return agent.act_live(*args)  # type: ignore[arg-type]

        crashed = play_game(Killer(), "random", BEGINNER, FirstClick.SAFE, 4, 1, limits=LIMITS)  # type: ignore[arg-type]
        assert crashed.outcome is Outcome.CRASHED
        after = play_game(agent, "random", BEGINNER, FirstClick.SAFE, 4, 2, limits=LIMITS)
        assert after.outcome in (Outcome.WON, Outcome.LOST)
        assert agent.starts == 2 and agent._channel is not None
    finally:
        agent.close()
