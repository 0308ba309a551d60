"""The `arena` command line, in-process: JSON output, resuming, layouts, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from repo import ROOT
from typer.testing import Result

from arena.play.runner import play_game
from arena.results.store import Store
from engine import EXPERT, BoardSpec, FirstClick, Game
from players.registry import Registry

Cli = Callable[..., Result]
PLAYERS = "random,max-single-constraint,mean-constraint"
ROW_KEYS = {
    "player",
    "games",
    "wins",
    "win_rate",
    "ci_low",
    "ci_high",
    "ms_per_game",
    "guesses_per_game",
    "moves_per_win",
    "failed",
    "failed_by",
}


def ok_json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return json.loads(result.stdout)


def assert_usage_error(result: Result, *needles: str) -> None:
    """Exit code 2, one line on stderr starting with 'error:', nothing on stdout, no traceback."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert result.stdout.strip() == ""
    for needle in needles:
        assert needle in lines[0]


# -- arena tournament / leaderboard -------------------------------------------------------------------------------


@pytest.mark.slow
def test_tournament_json_rerun_and_leaderboard(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "arena.db"
    args = ("tournament", "-d", "beginner", "-n", "30", "--workers", "1", "--store", store, "-p", PLAYERS, "--json")
    first = ok_json(cli(*args))
    config = first["config"]
    assert (config["difficulty"], config["height"], config["width"], config["mines"]) == ("beginner", 9, 9, 10)
    assert (config["rule"], config["seed"], config["boards"]) == ("safe", 0, 30)
    rows = first["rows"]
    assert {r["player"] for r in rows} == set(PLAYERS.split(","))
    for row in rows:
        assert set(row) >= ROW_KEYS
        assert row["games"] == 30
        assert 0 <= row["wins"] <= 30
        assert row["win_rate"] == pytest.approx(row["wins"] / 30)
        assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
        assert row["failed"] == 0
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert [r["win_rate"] for r in rows] == sorted((r["win_rate"] for r in rows), reverse=True)
    assert first["run"]["played"] == 90
    assert first["run"]["skipped"] == 0
    assert first["run"]["workers"] == 1

    second = ok_json(cli(*args))
    assert (second["run"]["played"], second["run"]["skipped"]) == (0, 90)
    assert second["rows"] == rows
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 90

    board = ok_json(cli("leaderboard", "--store", store, "--json"))
    assert board["rows"] == rows
    assert board["config"] == config

    listed = ok_json(cli("leaderboard", "--list", "--json", "--store", store))
    assert len(listed) == 1
    assert listed[0]["id"] == config["tournament_id"]
    assert (listed[0]["rows_stored"], listed[0]["games"], listed[0]["seed"]) == (90, 30, 0)

    same = ok_json(cli("leaderboard", config["tournament_id"], "--store", store, "--json", "-n", "10"))
    assert same["config"]["boards"] == 10
    assert {r["games"] for r in same["rows"]} == {10}
    # The older option spelling still works; two different ids are refused.
    assert ok_json(cli("leaderboard", "-t", config["tournament_id"], "--store", store, "--json", "-n", "10")) == same
    assert_usage_error(cli("leaderboard", "other", "-t", config["tournament_id"], "--store", store), "two tournaments")


@pytest.mark.slow
def test_tournament_table_output(cli: Cli, tmp_path: Path) -> None:
    result = cli("tournament", "--size", "5x5", "--mines", "3", "-n", "4", "-w", "1", "--store", tmp_path / "a.db")
    assert result.exit_code == 0, result.output
    players = Registry().players
    assert len(players) >= 6, sorted(players)  # the built-in players, at least: an empty registry checks nothing
    for player in players:
        assert player in result.stdout
    assert "played" in result.stdout
    table = cli("leaderboard", "--store", tmp_path / "a.db")
    assert table.exit_code == 0, table.output
    assert "random" in table.stdout
    listed = cli("leaderboard", "--list", "--store", tmp_path / "a.db")
    assert listed.exit_code == 0, listed.output
    assert "5x5/3" in listed.stdout


def test_tournament_default_players_are_every_registered_player(cli: Cli, tmp_path: Path) -> None:
    args = ("tournament", "--size", "5x5", "--mines", "3", "-n", "2", "-w", "1", "-q", "--json")
    data = ok_json(cli(*args, "--store", tmp_path / "a.db"))
    registered = set(Registry().players)
    assert len(registered) >= 6, registered
    assert {r["player"] for r in data["rows"]} == registered


@pytest.mark.slow
def test_tournament_player_options(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "a.db"
    args = ("tournament", "--size", "6x6", "--mines", "4", "-n", "5", "-w", "1", "--store", store, "--json")
    data = ok_json(cli(*args, "-p", "random", "--option", "random.random_first_click=true"))
    assert [r["player"] for r in data["rows"]] == ["random[random_first_click=true]"]


def test_publish_from_the_command_line(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "a.db"
    ok_json(cli("tournament", "-n", "3", "-w", "1", "-p", "random", "--store", store, "--json"))
    result = cli("leaderboard", "--store", store, "--publish", tmp_path / "boards")
    assert result.exit_code == 0, result.output
    assert "published" in result.stdout
    assert json.loads((tmp_path / "boards" / "beginner-safe.json").read_text())["rows"][0]["player"] == "random"
    assert (tmp_path / "boards" / "beginner-safe.md").read_text().startswith("# Leaderboard: beginner")


@pytest.mark.slow
def test_interrupted_tournament_exits_130_and_resumes(
    cli: Cli, tmp_path: Path, interrupter_plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "a.db"
    # Trusted: only a player inside the arena's process can press Ctrl-C for it (isolated, it is its own error).
    args = ("tournament", "--seed", "3", "-n", "40", "-w", "1", "-p", "interrupter,random", "--store", store)
    args = (*args, "--isolation", "trusted")
    monkeypatch.setenv("ARENA_TEST_INTERRUPT", "3:30")
    stopped = cli(*args, "--plugin", interrupter_plugin, "-q")
    assert stopped.exit_code == 130, stopped.output
    assert "interrupted" in stopped.stderr
    assert "Resume with" in stopped.stderr
    assert "Traceback" not in stopped.output
    with Store(store, create=False) as db:
        kept = len(db.games(db.latest()))
    assert 0 < kept < 80
    monkeypatch.delenv("ARENA_TEST_INTERRUPT")
    resumed = ok_json(cli(*args, "--plugin", interrupter_plugin, "--json"))
    assert (resumed["run"]["played"], resumed["run"]["skipped"]) == (80 - kept, kept)
    assert {r["games"] for r in resumed["rows"]} == {40}


# -- arena boards -------------------------------------------------------------------------------------------------


def test_boards_prints_expert_layouts(cli: Cli) -> None:
    result = cli("boards", "-d", "expert", "--seed", "7", "-n", "3", "--click", "0,0")
    assert result.exit_code == 0, result.output
    blocks = result.stdout.rstrip("\n").split("\n\n")
    assert len(blocks) == 3
    for index, block in enumerate(blocks):
        lines = block.split("\n")
        assert len(lines) == 16
        assert all(len(line) == 30 and set(line) <= {"*", "."} for line in lines)
        assert block.count("*") == 99
        assert lines[0][0] == "."  # the first click is safe
        # The layout is the one the game draws for that first click.
        expected = Game(EXPERT, FirstClick.SAFE, seed=7, index=index).mine_layout((0, 0))
        assert np.array_equal(np.array([[ch == "*" for ch in line] for line in lines]), expected)
    assert len(set(blocks)) == 3

    data = ok_json(cli("boards", "-d", "expert", "--seed", "7", "-n", "3", "--click", "0,0", "--json"))
    assert [d["index"] for d in data] == [0, 1, 2]
    assert ["\n".join(d["rows"]) for d in data] == blocks
    shifted = ok_json(cli("boards", "-d", "expert", "--seed", "7", "-n", "2", "--start", "1", "--json"))
    assert shifted == data[1:]


def test_boards_with_the_opening_rule_keep_the_zone_free(cli: Cli) -> None:
    data = ok_json(cli("boards", "-d", "beginner", "--first-click", "opening", "--click", "5,5", "-n", "20", "--json"))
    assert len(data) == 20
    for board in data:
        grid = np.array([[ch == "*" for ch in row] for row in board["rows"]])
        assert grid.shape == (9, 9)
        assert grid.sum() == 10
        assert not grid[4:7, 4:7].any()


def test_boards_custom_size(cli: Cli) -> None:
    data = ok_json(cli("boards", "--size", "4x7", "--mines", "5", "--first-click", "none", "--json"))
    assert len(data) == 1
    assert [len(r) for r in data[0]["rows"]] == [7] * 4
    assert "".join(data[0]["rows"]).count("*") == 5


# -- arena play / players ----------------------------------------------------------------------------------------


def test_play_json_matches_the_tournament_runner(cli: Cli) -> None:
    data = ok_json(cli("play", "--player", "random", "-d", "beginner", "--seed", "1", "--json"))
    assert (data["player"], data["seed"], data["board"], data["difficulty"], data["rule"]) == (
        "random",
        1,
        0,
        "beginner",
        "safe",
    )
    assert data["status"] in ("won", "lost")
    assert data["problem"] == ""
    assert data["moves"][0] == "reveal 0,0"
    again = ok_json(cli("play", "--player", "random", "-d", "beginner", "--seed", "1", "--json"))
    assert again == data
    spec = BoardSpec(9, 9, 10, "beginner")
    result = play_game(Registry().create("random"), "random", spec, FirstClick.SAFE, 1, 0)
    assert data["status"] == result.outcome.value
    assert len(data["moves"]) == result.moves
    assert (data["bbbv"], data["bbbv_solved"]) == (result.bbbv, result.bbbv_solved)


def test_play_table_output(cli: Cli) -> None:
    result = cli("play", "--player", "mean-constraint", "--size", "5x5", "--mines", "2", "--delay", "0")
    assert result.exit_code == 0, result.output
    assert "mean-constraint" in result.stdout


PID_TELLER = """
import os

from players import hookimpl
from players.builtin.random_player import RandomPlayer


class Listed(RandomPlayer):
    name = "listed"
    description = f"imported by process {os.getpid()}"
    version = "7"


@hookimpl
def register_players(register):
    register(Listed)
"""


@pytest.mark.slow
def test_players_lists_a_plugin_without_importing_it_in_the_arena(
    cli: Cli, write_plugin: Callable[[str, str], Path]
) -> None:
    """As for a tournament or `arena play`: a plugin's code runs in a process of its own, not the CLI's."""
    plugin = write_plugin(PID_TELLER, "listed")
    by_name = {r["name"]: r for r in ok_json(cli("players", "--json", "--plugin", plugin))}
    assert by_name["listed"]["status"] == "ok"
    assert by_name["listed"]["version"] == "7"
    assert by_name["listed"]["source"].startswith("file ") and by_name["listed"]["source"].endswith("listed.py")
    assert by_name["random"]["source"] == "builtin"
    importer = int(by_name["listed"]["description"].removeprefix("imported by process "))
    assert importer != os.getpid()


@pytest.mark.slow
def test_players_lists_engine_bots_and_those_that_do_not_start(cli: Cli) -> None:
    standalone = ROOT / "examples" / "standalone_bot.py"
    data = ok_json(
        cli(
            "players",
            "--json",
            "--engine-bot",
            f"standalone={sys.executable} {standalone}",
            "--engine-bot",
            "ghost=/nonexistent/bot",
        )
    )
    by_name = {r["name"]: r for r in data}
    assert by_name["standalone"]["status"] == "ok"
    assert by_name["standalone"]["source"].startswith("engine ")
    failures = [r for r in data if r["name"] is None]
    assert len(failures) == 1 and "ghost" in failures[0]["source"]
    assert "cannot run" in failures[0]["status"]


@pytest.mark.slow
def test_players_reports_a_missing_plugin_file(cli: Cli, tmp_path: Path) -> None:
    data = ok_json(cli("players", "--json", "--plugin", tmp_path / "nope.py"))
    failures = [r for r in data if r["name"] is None]
    assert len(failures) == 1 and "does not exist" in failures[0]["status"]


@pytest.mark.slow
def test_plugin_players_join_a_tournament(cli: Cli, tmp_path: Path, bad_bots: Path) -> None:
    args = ("tournament", "-n", "2", "-w", "1", "-q", "--json", "--store", tmp_path / "a.db", "--plugin", bad_bots)
    data = ok_json(cli(*args, "-p", "off-board,raiser,nothing,random"))
    rows = {r["player"]: r for r in data["rows"]}
    assert {p: rows[p]["failed"] for p in ("off-board", "raiser", "nothing")} == {
        "off-board": 2,
        "raiser": 2,
        "nothing": 2,
    }
    assert rows["random"]["rank"] == 1


# -- bad input ----------------------------------------------------------------------------------------------------

BAD_INPUT = {
    "unknown-difficulty": (("tournament", "-d", "huge"), "unknown difficulty 'huge'"),
    "empty-size": (("tournament", "--size", "0x5", "--mines", "1"), "0x5"),
    "too-many-mines": (("tournament", "--size", "3x3", "--mines", "20"), "20 mines do not fit"),
    "size-not-a-size": (("tournament", "--size", "abc", "--mines", "1"), "'abc'"),
    "size-without-mines": (("tournament", "--size", "5x5"), "mine count"),
    "difficulty-and-size": (("tournament", "-d", "expert", "--size", "5x5", "--mines", "2"), "either"),
    "mines-do-not-fit-opening": (("boards", "--size", "3x3", "--mines", "1", "--first-click", "opening"), "opening"),
    "unknown-rule": (("tournament", "--first-click", "sometimes"), "unknown first-click rule 'sometimes'"),
    "unknown-player": (("tournament", "-p", "random,nobody"), "unknown player 'nobody'"),
    "player-twice": (("tournament", "-p", "random,random"), "player listed twice"),
    "negative-games": (("tournament", "-n", "-3"), "--games"),
    "zero-games": (("tournament", "-n", "0"), "--games"),
    "zero-workers": (("tournament", "--workers", "0"), "--workers"),
    "negative-seed": (("tournament", "--seed", "-1"), "--seed must be between 0 and 2**63-1, got -1"),
    "seed-too-large": (("tournament", "--seed", str(2**63)), f"--seed must be between 0 and 2**63-1, got {2**63}"),
    "match-negative-seed": (("match", "a", "b", "--seed", "-1"), "--seed must be between 0 and 2**63-1, got -1"),
    "sweep-negative-seed": (
        ("sweep", "--size", "5x5", "--mines", "2", "--seed", "-1"),
        "--seed must be between 0 and 2**63-1, got -1",
    ),
    "unknown-option": (("tournament", "-p", "random", "--option", "random.nope=1", "-q"), "nope"),
    "unknown-option-json": (("tournament", "-p", "random", "--option", "random.nope=1", "--json"), "nope"),
    "bad-option-value": (("tournament", "-p", "random", "-o", "random.random_first_click=[1]", "-q"), "random"),
    "option-for-absent-player": (("tournament", "-p", "random", "--option", "rref.x=1"), "'rref'"),
    "option-without-key": (("tournament", "-p", "random", "--option", "random=1"), "PLAYER.KEY=VALUE"),
    "boards-click-one-number": (("boards", "--click", "5"), "ROW,COL"),
    "boards-click-letters": (("boards", "--click", "a,b"), "ROW,COL"),
    "boards-click-off-board": (("boards", "--click", "9,0"), "off the 9x9 board"),
    "boards-negative-count": (("boards", "-n", "-1"), "--count"),
    "boards-unknown-difficulty": (("boards", "-d", "huge"), "unknown difficulty"),
    "play-unknown-player": (("play", "--player", "nobody"), "unknown player 'nobody'"),
    "engine-bot-twice": (
        ("tournament", "--engine-bot", "a=no-such-program-x", "--engine-bot", "a=no-such-program-y"),
        "error: --engine-bot 'a' is given twice; give each engine bot its own name",
    ),
    "play-engine-bot-twice": (
        ("play", "--engine-bot", "a=no-such-program-x", "--engine-bot", "a=no-such-program-y"),
        "error: --engine-bot 'a' is given twice; give each engine bot its own name",
    ),
    "play-bad-size": (("play", "--size", "0x5", "--mines", "1"), "0x5"),
    "play-negative-board": (("play", "--board", "-1"), "--board"),
    "play-negative-delay": (("play", "--delay", "-1"), "--delay"),
    "leaderboard-missing-store": (("leaderboard", "--store", "/nonexistent/x.db"), "/nonexistent/x.db"),
    "leaderboard-list-missing-store": (("leaderboard", "--list", "--store", "/nonexistent/x.db"), "no results store"),
    "leaderboard-zero-games": (("leaderboard", "-n", "0"), "--games"),
}


@pytest.mark.parametrize("args,needle", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_one_line_and_exit_code_2(cli: Cli, tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    extra = ("--store", tmp_path / "a.db") if args[0] == "tournament" else ()
    if args[0] == "leaderboard" and "--store" not in args:
        extra = ("--store", tmp_path / "a.db")
    assert_usage_error(cli(*args, *extra), needle)


@pytest.mark.parametrize("command", ["leaderboard", "tournament"])
@pytest.mark.parametrize("kind", ["directory", "garbage", "foreign-sqlite-with-data"])
def test_unusable_store_is_one_line_and_exit_code_2(cli: Cli, tmp_path: Path, command: str, kind: str) -> None:
    if kind == "directory":
        store = tmp_path / "folder"
        store.mkdir()
    elif kind == "garbage":
        store = tmp_path / "garbage.db"
        store.write_bytes(b"\x00\x01 not sqlite at all " * 100)
    else:
        store = tmp_path / "other.db"
        with sqlite3.connect(store) as db:
            db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            db.execute("INSERT INTO meta VALUES ('schema_version', '0')")
    before = store.read_bytes() if store.is_file() else None
    args = ("tournament", "-n", "1", "-p", "random", "-w", "1", "-q") if command == "tournament" else (command,)
    assert_usage_error(cli(*args, "--store", store), str(store))
    if before is not None and kind == "garbage":
        assert store.read_bytes() == before


@pytest.mark.slow
def test_leaderboard_errors_on_an_existing_store(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "a.db"
    Store(store).close()
    assert_usage_error(cli("leaderboard", "--store", store), "holds no tournament")
    ok_json(cli("tournament", "-n", "2", "-w", "1", "-p", "random", "--store", store, "--json"))
    assert_usage_error(cli("leaderboard", "nope", "--store", store), "no tournament 'nope'")
    assert ok_json(cli("leaderboard", "--list", "--json", "--store", store))[0]["rows_stored"] == 2


def test_bad_option_is_refused_before_touching_the_store(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "new.db"
    assert_usage_error(cli("tournament", "-p", "random", "--option", "random.nope=1", "--store", store), "nope")
    assert not store.exists()


@pytest.mark.parametrize("command", ["play", "tournament", "check-bot"])
def test_a_program_in_this_folder_named_without_its_folder_is_told_to_say_dot_slash(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """In a kit's folder, ``--engine-bot "kk=run.sh"``: a shell and the arena look ``run.sh`` up on the PATH, and
    the bot 'crashed' with "cannot run 'run.sh'"; now one line says what to type, before anything starts."""
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    extra = () if command == "check-bot" else ("--store", tmp_path / "a.db")
    assert_usage_error(
        cli(command, "--engine-bot", "kk=run.sh --fast", *extra),
        "error: engine bot 'kk': 'run.sh' is not a program on the PATH; the file in this folder is ./run.sh"
        ' (--engine-bot "kk=./run.sh --fast")',
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"]
