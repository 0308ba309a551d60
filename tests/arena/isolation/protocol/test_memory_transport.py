"""The in-memory transport (tests/memory_transport.py) held to the process it stands in for: the same games, the
same failures in the same words, whether ``RemoteAgent`` speaks to the Python host over a pipe to a process or
over a pair of in-memory streams. The tests that use it test the protocol's messages, not the process."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memory_transport import BotExit, MemoryBot, host_agent, host_client, scripted_agent, scripted_client

from arena.isolation.processes.bot_process import BotExited, BotTimeout
from arena.isolation.protocol import messages as protocol
from arena.isolation.protocol.bot_command import host_command
from arena.isolation.protocol.remote import RemoteAgent
from arena.limits import Limits
from arena.outcome import GameResult, Outcome
from arena.play.runner import play_game
from engine import BEGINNER, BoardSpec, FirstClick
from players.registry import Registry

#: Not what these tests are about: limits no honest move reaches, however busy the machine.
LIMITS = Limits(move_time=60.0, game_time=600.0, startup_time=120)
TIMINGS = ("cpu_ms", "wall_ms")
#: The players compared, with their options: the default, options that change its play, a numba player (the last
#: two also over a process: options cross the boundary, and a compiled player's guesses).
PLAYERS = [("random", {}), ("random", {"random_first_click": True}), ("mean-constraint", {})]
SMALL = BoardSpec(6, 7, 8, "small")

MOODY = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer

class Moody(RandomPlayer):
    name = "moody"
    description = "random, except on some moves: an error, a reply that is no action, a print"

    def play(self, observation):
        if observation.moves == 1 and observation.grid[0, 0] == 1:
            raise ValueError("a one in the corner")
        if observation.moves == 1 and observation.grid[0, 0] == 2:
            return ["reveal 1,1"]
        if observation.moves == 1:
            print("thinking out loud")
        return super().play(observation)

@hookimpl
def register_players(register):
    register(Moody)
"""


def rows(agent: Any, spec: BoardSpec, boards: range, name: str, seed: int = 23) -> list[dict[str, object]]:
    """The games of ``agent`` on ``boards``, as the store's rows without their timings."""
    played: list[GameResult] = []
    try:
        for board in boards:
            played.append(play_game(agent, name, spec, FirstClick.SAFE, seed, board, limits=LIMITS))
    finally:
        if hasattr(agent, "close"):
            agent.close()
    return [{k: v for k, v in r.as_row().items() if k not in TIMINGS} for r in played]


def outcomes_and_reasons(agent: Any, boards: range, name: str) -> list[tuple[Outcome, str]]:
    """Each game's outcome and its error's first line (what the bot's stderr adds below it may differ)."""
    return [(Outcome(r["outcome"]), str(r["error"]).split("\n")[0]) for r in rows(agent, BEGINNER, boards, name, 3)]


@pytest.mark.parametrize(("name", "options"), PLAYERS, ids=["random", "random-options", "mean-constraint"])
def test_the_host_in_memory_plays_the_games_it_plays_in_the_arena(name: str, options: dict[str, Any]) -> None:
    trusted = rows(Registry((), entry_points=False).create(name, options), SMALL, range(12), name)
    agent = host_agent(name, LIMITS, options)
    in_memory = rows(agent, SMALL, range(12), name)
    assert len(in_memory) == 12 and in_memory == trusted
    assert {r["outcome"] for r in trusted} <= {"won", "lost"} and agent.starts == 1


@pytest.mark.slow  # it starts a process per player: the reference the transport is held to
@pytest.mark.parametrize(("name", "options"), PLAYERS[1:], ids=["random-options", "mean-constraint"])
def test_the_same_games_over_the_pipe_and_in_memory(name: str, options: dict[str, Any]) -> None:
    command = host_command(name, options, entry_points=False, warm_up_time=0)
    by_process = rows(RemoteAgent(name, command, LIMITS), BEGINNER, range(15), name)
    in_memory = rows(host_agent(name, LIMITS, options), BEGINNER, range(15), name)
    assert len(by_process) == 15 and in_memory == by_process
    assert sum(int(r["guesses"]) for r in by_process) > 0  # guess marks crossed both ways


@pytest.mark.slow  # a process: the reference
def test_the_same_errors_in_the_same_words_over_the_pipe_and_in_memory(
    write_plugin: Callable[[str, str], Path],
) -> None:
    plugin = str(write_plugin(MOODY, "moody_plugin"))
    command = host_command("moody", plugin_files=[plugin], entry_points=False, warm_up_time=0)
    by_process = outcomes_and_reasons(RemoteAgent("moody", command, LIMITS), range(40), "moody")
    in_memory = outcomes_and_reasons(host_agent("moody", LIMITS, plugin_files=[plugin]), range(40), "moody")
    assert in_memory == by_process
    seen = {outcome for outcome, _ in by_process}
    assert {Outcome.ERROR, Outcome.ILLEGAL} <= seen and seen & {Outcome.WON, Outcome.LOST}


def test_what_the_host_prints_is_its_stderr_and_the_error_column_shows_it(
    write_plugin: Callable[[str, str], Path],
) -> None:
    plugin = str(write_plugin(MOODY, "moody_plugin"))
    agent = host_agent("moody", LIMITS, plugin_files=[plugin])
    results = [play_game(agent, "moody", BEGINNER, FirstClick.SAFE, 3, b, limits=LIMITS) for b in range(40)]
    agent.close()
    errors = [r for r in results if r.outcome is Outcome.ERROR]
    assert errors, "no game raised: the boards no longer reach the plugin's error"
    for result in errors:  # the reason, then the host's traceback from the bot's stderr, as a process gives it
        assert result.error.startswith("ValueError: a one in the corner\nstderr:"), result.error
        assert "Traceback (most recent call last)" in result.error
    assert agent.starts == 1  # an error costs the game, not the bot


def test_a_line_is_read_only_when_whole_and_a_reply_never_written_is_a_timeout_at_once() -> None:
    heard: list[str] = []
    bot = MemoryBot(scripted_client(lambda message: heard.append(message["type"])))
    bot.start()
    bot.send(protocol.hello(), 0.0)
    assert bot.receive(0.0).startswith(b'{"protocol": 1')
    bot.to_bot += b'{"type": "game_o'  # half a line: the bot has not read it
    bot.send('ver", "outcome": "won"}', 0.0)
    assert heard == ["game_over"] and bot.lines_sent == 2
    with pytest.raises(BotTimeout):
        bot.receive(0.0)  # it answered nothing, and runs only when spoken to
    bot.close(protocol.quit_message())
    assert bot.returncode == 0 and bot.exit_description() == "exited with code 0"
    with pytest.raises(BotExited):
        bot.send(protocol.hello(), 0.0)


def test_a_bot_that_ends_at_its_start_is_an_exit_code_with_its_stderr() -> None:
    def fail() -> None:
        print("no model file")
        raise BotExit(4)

    bot = MemoryBot(scripted_client(lambda message: None, start=fail))
    bot.start()
    assert not bot.alive and bot.exit_description() == "exited with code 4"
    assert bot.stderr_tail() == ["no model file"]
    with pytest.raises(BotExited):
        bot.receive(0.0)
    crashing = MemoryBot(host_client("random"))
    crashing.start()
    crashing.kill()
    assert crashing.exit_description() == "killed by SIGKILL"


def first_covered(message: dict[str, Any]) -> dict[str, Any]:
    """A reply revealing the first covered cell of the observation's grid."""
    cell = next((r, c) for r, row in enumerate(message["grid"]) for c, value in enumerate(row) if value == "#")
    return {"actions": [["reveal", *cell]]}


def test_a_scripted_bots_garbage_is_illegal_and_the_next_game_has_a_new_bot() -> None:
    said = []

    def answer(message: dict[str, Any]) -> Any:
        if message["type"] != "observation":
            return None
        said.append(message["moves"])
        return "not json" if len(said) == 1 else first_covered(message)

    agent = scripted_agent("garbage", scripted_client(answer), LIMITS)
    results = [play_game(agent, "garbage", BEGINNER, FirstClick.SAFE, 1, b, limits=LIMITS) for b in range(3)]
    agent.close()
    assert results[0].outcome is Outcome.ILLEGAL and "not json" in results[0].error
    assert {r.outcome for r in results[1:]} <= {Outcome.WON, Outcome.LOST}
    assert agent.starts == 2  # garbage costs the bot its process (the next game starts in sync), as it would a process
