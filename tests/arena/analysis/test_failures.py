"""Why games failed: a Python player's mistakes in Python terms whichever way it runs, one count of failed
games in the table, the JSON and `arena errors`, and `arena errors` itself with a command that replays them."""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memory_transport import host_agent, scripted_agent, scripted_client
from rich.console import Console
from typer.testing import Result

from arena.analysis.failures import build_failure_report
from arena.analysis.leaderboard import build_leaderboard
from arena.cli.render import print_leaderboard
from arena.config import PlayerRef, TournamentConfig
from arena.isolation.protocol.bot_command import host_command
from arena.isolation.protocol.remote import RemoteAgent
from arena.limits import Limits
from arena.outcome import FAILURES, GameResult, Outcome
from arena.play.agents import TrustedAgent
from arena.play.runner import play_game
from arena.results.store import Store
from engine import BEGINNER, FirstClick
from players.registry import Registry

Cli = Callable[..., Result]
LIMITS = Limits(move_time=5.0, game_time=30.0, grace=0.5, startup_time=120)

#: The README's bot template as it stands: ``play`` is ``...``, so it returns None.
TEMPLATE_BOT = """
from engine import Action, Observation
from players import Player, hookimpl


class MyBot(Player):
    name = "my-bot"
    description = "what it does, in one line"

    def play(self, observation: Observation) -> list[Action]:
        # observation.grid: -1 covered, -2 flagged, 0-8 revealed; use self.rng for randomness
        ...


@hookimpl
def register_players(register):
    register(MyBot)
"""

#: Opens a corner, then answers game k's second move with the k-th of these mistakes (one process, one object,
#: plays the games in order in every mode).
MISTAKES_BOT = """
from engine import Action
from players import Player, hookimpl

ANSWERS = [None, "x", [], [None], 42, ("reveal",)]


class Mistakes(Player):
    name = "mistakes"
    description = "a different wrong answer each game"

    games = -1

    def reset(self, rng, spec, rule):
        super().reset(rng, spec, rule)
        self.games += 1

    def play(self, observation):
        if observation.first_move:
            return Action.reveal(0, 0)
        return ANSWERS[self.games % len(ANSWERS)]


@hookimpl
def register_players(register):
    register(Mistakes)
"""

#: The error column's reason for each game of the mistakes bot, in Python terms.
PYTHON_WORDS = [
    "InvalidActionError: play() returned None, expected an Action or a list of Actions",
    "InvalidActionError: play() returned 'x', expected an Action or a list of Actions",
    "InvalidActionError: play() returned an empty list; return at least one action",
    "InvalidActionError: None is not an action; use Action.reveal/flag/unflag/chord(row, col)",
    "InvalidActionError: play() returned 42, expected an Action or a list of Actions",
    "InvalidActionError: ('reveal',) is not an action; use Action.reveal/flag/unflag/chord(row, col)",
]


def reason(error: str) -> str:
    return error.partition("\nstderr:")[0]


def play_six(agent: Any) -> list[GameResult]:
    try:  # under `opening` the first click is a zero: every game reaches its second answer
        return [play_game(agent, "mistakes", BEGINNER, FirstClick.OPENING, 11, b, limits=LIMITS) for b in range(6)]
    finally:
        if hasattr(agent, "close"):
            agent.close()


@pytest.mark.parametrize(
    "mode",
    # By lines, in memory (tests/memory_transport.py): the words are the host's and the agent's, not the pipe's.
    ["trusted", "isolated by lines", pytest.param("isolated in shared memory", marks=pytest.mark.slow)],
)
def test_a_python_players_mistakes_read_in_python_terms(write_plugin: Callable[..., Path], mode: str) -> None:
    plugin = write_plugin(MISTAKES_BOT, "mistakes")
    if mode == "trusted":
        agent: Any = TrustedAgent(Registry([str(plugin)], entry_points=False).create("mistakes"))
    elif mode == "isolated by lines":
        agent = host_agent("mistakes", LIMITS, plugin_files=[str(plugin)])
    else:
        command = host_command("mistakes", plugin_files=[str(plugin)], entry_points=False, warm_up_time=0)
        agent = RemoteAgent("mistakes", command, LIMITS, shared=mode.endswith("memory"))
    results = play_six(agent)
    assert [r.outcome for r in results] == [Outcome.ILLEGAL] * 6
    for result, words in zip(results, PYTHON_WORDS, strict=True):
        assert reason(result.error).startswith(words), (mode, result.error)
    assert not any('{"actions"' in r.error for r in results)


def test_an_engine_bot_still_reads_the_protocols_words() -> None:
    # An engine bot that answers every observation with no action (in memory: tests/memory_transport.py).
    silent = scripted_client(lambda m: {"actions": []} if m["type"] == "observation" else None, name="silent")
    agent = scripted_agent("silent", silent, LIMITS)
    try:
        result = play_game(agent, "silent", BEGINNER, FirstClick.SAFE, 1, 0, limits=LIMITS)
    finally:
        agent.close()
    assert result.outcome is Outcome.ILLEGAL
    assert 'send {"actions"' in result.error


# -- one count of failed games ------------------------------------------------------------------------------------


@pytest.fixture
def mixed_store(tmp_path: Path, make_result: Callable[..., GameResult]) -> tuple[Path, str]:
    """Three players: clean; one of every failure; timeouts that differ only in their numbers."""
    players = ("clean", "mixed", "slow")
    config = TournamentConfig.build(
        BEGINNER, FirstClick.SAFE, seed=2, games=8, players=tuple(PlayerRef(name=p) for p in players)
    )
    results = []
    failures = {2: Outcome.ERROR, 3: Outcome.ILLEGAL, 4: Outcome.CRASHED, 5: Outcome.TIMEOUT, 6: Outcome.ERROR}
    for board in range(8):
        results.append(make_result("clean", board, Outcome.WON if board % 2 else Outcome.LOST))
        outcome = failures.get(board, Outcome.WON)
        error = {
            Outcome.ERROR: f"ValueError: bad value {board}\nstderr:\nTraceback (most recent call last):\nValueError",
            Outcome.ILLEGAL: "InvalidActionError: play() returned None, expected an Action or a list of Actions",
            Outcome.CRASHED: "the bot process killed by SIGKILL",
            Outcome.TIMEOUT: "no reply within 10.52 s",
        }.get(outcome, "")
        results.append(make_result("mixed", board, outcome, error=error))
        slow = f"no reply within {10 + board}.{board}1 s" if board < 3 else ""
        results.append(make_result("slow", board, Outcome.TIMEOUT if slow else Outcome.LOST, error=slow))
    path = tmp_path / "arena.db"
    with Store(path) as store:
        store.ensure_tournament(config, {"mixed": ("1", "file /somewhere/mixed.py")})
        store.save(config.id, results)
    return path, config.id


def test_the_table_the_json_and_arena_errors_count_the_same_failures(mixed_store: tuple[Path, str]) -> None:
    path, tid = mixed_store
    with Store(path) as store:
        board = build_leaderboard(store)
        report = build_failure_report(store, tid)
    rows = {r.player: r for r in board.rows}
    expected = {"clean": 0, "mixed": 5, "slow": 3}
    assert {p: r.failed for p, r in rows.items()} == expected
    assert {p: sum(r.failed_by.values()) for p, r in rows.items()} == expected
    assert set(rows["mixed"].failed_by) == {o.value for o in FAILURES}
    assert rows["mixed"].failed_by["timeout"] == 1  # timeouts count like every other failure
    assert {p.player: p.failed for p in report.players} == {"mixed": 5, "slow": 3}  # only players that failed

    console = Console(width=120, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    print_leaderboard(console, board, store=path)
    text = console.export_text()
    header = next(line for line in text.splitlines() if "player" in line)
    assert header.rstrip(" ┃").endswith("failed")
    shown = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) > 2 and cells[1] in expected:
            shown[cells[1]] = int(cells[-1])
    assert shown == expected
    assert "arena errors" in text


def test_distinct_errors_are_grouped_with_their_first_board(mixed_store: tuple[Path, str]) -> None:
    path, tid = mixed_store
    with Store(path) as store:
        report = build_failure_report(store, tid, "mixed", limit=10)
        slow = build_failure_report(store, tid, "slow").players[0]
        clean = build_failure_report(store, tid, "clean").players[0]
    mixed = report.players[0]
    assert mixed.outcomes == {"won": 3, "error": 2, "illegal": 1, "crashed": 1, "timeout": 1}
    assert [(f.outcome, f.board, f.games) for f in mixed.failures] == [
        ("error", 2, 2),  # "bad value 2" and "bad value 6" differ only in a number
        ("illegal", 3, 1),
        ("crashed", 4, 1),
        ("timeout", 5, 1),
    ]
    assert mixed.failures[0].message == "ValueError: bad value 2"
    assert mixed.failures[0].stderr == ["Traceback (most recent call last):", "ValueError"]
    assert (slow.distinct, slow.failures[0].games, slow.failures[0].board) == (1, 3, 0)
    assert (clean.failed, clean.failures) == (0, [])


# -- arena errors -------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_readme_template_bot_gets_a_reason_and_a_command_that_reproduces_it(
    cli: Cli, tmp_path: Path, write_plugin: Callable[..., Path]
) -> None:
    plugin = write_plugin(TEMPLATE_BOT, "my_bot")
    store = tmp_path / "a.db"
    args = ("tournament", "--plugin", plugin, "-p", "my-bot,random", "-n", "3", "-w", "1", "-q", "--store", store)
    played = cli(*args)
    assert played.exit_code == 0, played.output
    out = " ".join(played.stdout.split())
    assert "my-bot failed 3 of 3 games (3 illegal)" in out
    tid = json.loads(cli("leaderboard", "--store", store, "--json").stdout)["config"]["tournament_id"]
    assert f"See why: arena errors {tid} -p my-bot --store {store}" in played.stdout

    shown = cli("errors", "-p", "my-bot", "--store", store)
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.stdout.split())
    assert "3 of 3 games failed" in text
    assert "illegal in 3 games, first on board 0" in text
    assert "play() returned None, expected an Action or a list of Actions" in text
    replay = f"arena play --player my-bot --plugin {plugin} -d beginner --seed 0 --board 0"
    assert replay in shown.stdout.splitlines()[-1]

    data = json.loads(cli("errors", tid, "-p", "my-bot", "--store", store, "--json").stdout)
    (entry,) = data["players"]
    assert (entry["player"], entry["games"], entry["failed"], entry["outcomes"]) == ("my-bot", 3, 3, {"illegal": 3})
    (failure,) = entry["failures"]
    assert failure["reproduce"] == replay
    assert failure["message"].startswith("InvalidActionError: play() returned None")

    again = cli(*shlex.split(replay)[1:], "--json")  # the command replays the failure (exit 1: the bot failed)
    assert again.exit_code == 1, again.output
    assert json.loads(again.stdout)["problem"]

    everyone = json.loads(cli("errors", "--store", store, "--json").stdout)
    assert [p["player"] for p in everyone["players"]] == ["my-bot"]  # random failed nothing


@pytest.mark.slow
def test_the_reproduce_command_of_a_player_under_an_alias_keeps_its_alias(
    cli: Cli, tmp_path: Path, write_plugin: Callable[..., Path]
) -> None:
    """``--plugin oops=PATH``: the player is named ``oops`` only under that alias, so the command that reproduces
    its failure says it, and runs as printed."""
    plugin = write_plugin(TEMPLATE_BOT, "my_bot")
    store = tmp_path / "a.db"
    played = cli("tournament", "--plugin", f"oops={plugin}", "-p", "oops", "-n", "1", "-w", "1", "-q", "--store", store)
    assert played.exit_code == 0, played.output
    data = json.loads(cli("errors", "-p", "oops", "--store", store, "--json").stdout)
    (failure,) = data["players"][0]["failures"]
    replay = f"arena play --player oops --plugin oops={plugin} -d beginner --seed 0 --board 0"
    assert failure["reproduce"] == replay
    shown = cli("errors", "-p", "oops", "--store", store)
    assert replay in shown.stdout.splitlines()[-1]
    again = cli(*shlex.split(replay)[1:], "--json")  # as printed: exit 1, the bot failed again
    assert again.exit_code == 1, again.output
    assert "play() returned None" in json.loads(again.stdout)["problem"]


def test_arena_errors_with_nothing_failed_and_bad_input(cli: Cli, mixed_store: tuple[Path, str]) -> None:
    path, tid = mixed_store
    clean = cli("errors", tid, "-p", "clean", "--store", path)
    assert clean.exit_code == 0, clean.output
    assert "0 of 8 games failed" in clean.stdout
    for args, needle in (
        (("-p", "nobody"), "no player 'nobody'"),
        (("--limit", "0"), "--limit"),
        (("0123456789abcdef",), "no tournament"),
    ):
        result = cli("errors", *args, "--store", path)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        assert re.match(r"^error: .*", result.stderr.strip()) and needle in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_an_engine_bots_failure_gets_a_replay_command_that_replays_it(cli: Cli, tmp_path: Path) -> None:
    # `arena errors` used to say an engine bot cannot be replayed; `arena play --engine-bot` replays it.
    from repo import BOTS

    bot = f"{sys.executable} {BOTS / 'broken' / 'illegal.py'}"
    store = tmp_path / "a.db"
    engine = ("--engine-bot", f"ill={bot}", "--sandbox", "off")
    played = cli("tournament", *engine, "-p", "ill", "-n", "2", "-w", "1", "-q", "--store", store)
    assert played.exit_code == 0, played.output
    shown = cli("errors", "-p", "ill", "--store", store)
    assert shown.exit_code == 0, shown.output
    assert "cannot replay" not in shown.stdout
    (line,) = [line for line in shown.stdout.splitlines() if "replay: " in line]
    replay = line.split("replay: ", 1)[1]
    assert replay.startswith(f"arena play --player ill --engine-bot 'ill={bot}'")
    again = cli(*shlex.split(replay)[1:], "--sandbox", "off", "--json")  # the bot fails again: exit 1
    assert again.exit_code == 1, again.output
    assert json.loads(again.stdout)["problem"]
