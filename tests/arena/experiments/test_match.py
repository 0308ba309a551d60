"""`arena match`: a sequential test played on stored boards, resumable, with a verdict that can be checked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from recorder import Recorder
from typer.testing import Result

from arena.analysis.sequential import SprtState, gsprt
from arena.analysis.stats import paired_difference
from arena.config import PlayerRef, TournamentConfig
from arena.experiments.match import MatchEvents, looks, parse_player_spec, run_match
from arena.play.backends import local
from arena.results.store import Store
from engine import BEGINNER, FirstClick
from players.registry import Registry

Cli = Callable[..., Result]


def match(cli: Cli, store: Path, *args: str) -> dict:
    """The match's JSON, its exit code checked: 0 better, 1 not better, 3 undecided."""
    result = cli("match", *args, "-d", "beginner", "-w", "1", "--store", store, "--json")
    assert result.exit_code in (0, 1, 3), result.output
    data = json.loads(result.stdout)
    assert result.exit_code == {"better": 0, "not_better": 1, "undecided": 3}[data["verdict"]] == data["exit_code"]
    assert data["accepted"] is (result.exit_code == 0)
    return data


@pytest.mark.slow
def test_a_clear_difference_is_found_and_the_verdict_is_the_tests(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "arena.db"
    first = match(cli, store, "max-single-constraint", "random", "--delta", "1", "--batch", "100")
    assert first["verdict"] == "better"
    assert first["boards"] % 100 == 0
    assert first["played"] == 2 * first["boards"]
    assert first["llr"] >= first["upper"] or first["decided_by"] == "effect"
    # The verdict is the test's on the stored boards, and no earlier look had decided.
    with Store(store, create=False) as db:
        rows = db.games(first["tournament"], first["boards"])
    assert len(rows) == 2 * first["boards"]
    won = {(g.player, g.board): g.won for g in rows}
    a_only = sum(won[("max-single-constraint", i)] and not won[("random", i)] for i in range(first["boards"]))
    b_only = sum(won[("random", i)] and not won[("max-single-constraint", i)] for i in range(first["boards"]))
    assert (first["only_a"], first["only_b"]) == (a_only, b_only)
    # The gate's figures: the split boards themselves, and the paired difference with its interval.
    a_won = [i for i in range(first["boards"]) if won[("max-single-constraint", i)] and not won[("random", i)]]
    b_won = [i for i in range(first["boards"]) if won[("random", i)] and not won[("max-single-constraint", i)]]
    assert (first["only_a_boards"], first["only_b_boards"]) == (a_won, b_won) and len(a_won) == a_only
    diff, low, high = paired_difference(a_only, b_only, first["boards"])
    assert first["paired_difference"] == pytest.approx({"diff": 100 * diff, "low": 100 * low, "high": 100 * high})
    assert low > 0 and first["rows"] == ["max-single-constraint", "random"]
    assert first["llr"] == pytest.approx(gsprt(a_only, b_only, first["boards"], 0.01).llr)

    # Run again: nothing is played, the same verdict at the same board.
    again = match(cli, store, "max-single-constraint", "random", "--delta", "1", "--batch", "100")
    assert again["played"] == 0
    assert {k: v for k, v in again.items() if k != "played"} == {k: v for k, v in first.items() if k != "played"}


@pytest.mark.slow
def test_the_same_player_is_not_better_than_itself_with_a_no_op_option(cli: Cli, tmp_path: Path) -> None:
    # random_first_click=false is random's default: the same player under another name, identical games.
    result = match(
        cli, tmp_path / "a.db", "random[random_first_click=false]", "random", "--delta", "5", "--batch", "100"
    )
    assert (result["only_a"], result["only_b"]) == (0, 0)
    assert result["verdict"] == "not_better"


@pytest.mark.slow
def test_undecided_at_max_games_is_exit_3_with_what_the_boards_show(cli: Cli, tmp_path: Path) -> None:
    # Identical games (a no-op option) and too few boards to tell a five-point difference from none.
    args = ("random[random_first_click=false]", "random", "--delta", "5", "--max-games", "20", "--batch", "20")
    result = match(cli, tmp_path / "a.db", *args)
    assert (result["verdict"], result["boards"], result["exit_code"]) == ("undecided", 20, 3)
    assert result["lower"] < result["llr"] < result["upper"]
    table = cli("match", *args, "-d", "beginner", "-w", "1", "--store", tmp_path / "a.db")
    assert table.exit_code == 3, table.output
    assert table.stdout.startswith("undecided after 20 boards (--max-games): +0.00 points, 95% CI [")
    assert "below what this many boards can show" not in table.stdout


@pytest.mark.slow
def test_table_output_names_the_verdict(cli: Cli, tmp_path: Path) -> None:
    result = cli("match", "max-single-constraint", "random", "-d", "beginner", "-w", "1", "--store", tmp_path / "a.db")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("better: max-single-constraint is better than random by at least 1 point (+")
    assert "LLR" in result.stderr


@pytest.mark.parametrize(
    ("cand", "base", "code", "start"),
    [
        ("mean-constraint", "random", 0, "better: mean-constraint is better than random by at least 1 point"),
        ("random", "mean-constraint", 1, "not better: random is worse than mean-constraint"),
    ],
)
@pytest.mark.slow
def test_a_large_effect_either_way_is_decided_within_two_looks(
    cli: Cli, tmp_path: Path, cand: str, base: str, code: int, start: str
) -> None:
    # A one-point delta and a difference of tens of points: decided within 200 boards (the GSPRT alone needs
    # far more: its ratio grows as fast as one point allows), never left undecided at the budget.
    result = cli(
        "match",
        cand,
        base,
        "-d",
        "beginner",
        "-w",
        "1",
        "--batch",
        "100",
        "--max-games",
        "300",
        "--store",
        tmp_path / "a.db",
        "--json",
    )
    data = json.loads(result.stdout)
    assert (result.exit_code, data["decided_by"]) == (code, "effect"), result.output
    assert data["boards"] <= 200
    assert data["says"].startswith(start)


def test_the_verdict_claims_only_what_its_interval_shows() -> None:
    from arena.analysis.sequential import gsprt
    from arena.cli.match import verdict_line

    seen: set[str] = set()
    cases = [
        (a, b, n, d)
        for a, b, n in (
            (300, 200, 2000),
            (61, 14, 300),
            (1300, 1000, 20000),
            (30, 0, 40),
            (14, 61, 300),
            (1000, 1000, 20000),
            (100, 80, 20000),
        )
        for d in (0.01, 0.05)
    ]
    for only_a, only_b, boards, delta in cases:
        state = gsprt(only_a, only_b, boards, delta)
        _, low, high = paired_difference(only_a, only_b, boards)
        line = verdict_line(state, "a", "b", low, high)
        points = f"{100 * delta:g} point"
        assert line.startswith(
            {"better": "better:", "not_better": "not better:", "continue": "undecided"}[state.verdict]
        )
        assert (f"by at least {points}" in line) <= (low >= delta), line
        assert ("worse" in line) <= (high < 0), line
        assert (f"not better than b by {points}" in line) <= (high < delta), line
        assert (f"by less than {points}" in line) <= (low > 0 and high < delta), line
        seen.add(line.split(" (")[0].replace(points + "s", "D").replace(points, "D"))
    # Every wording of a decided verdict came up.
    assert seen >= {
        "better: a is better than b by at least D",
        "better: a is better than b",
        "not better: a is worse than b",
        "not better: a is better than b by less than D",
        "not better: a is not better than b by D",
    }, seen


@pytest.mark.slow
def test_a_match_is_a_tournament_of_its_own_not_rows_of_the_ordinary_leaderboard(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "a.db"
    ordinary = cli(
        "tournament",
        "-d",
        "beginner",
        "-n",
        "20",
        "-p",
        "random,mean-constraint",
        "-w",
        "1",
        "--store",
        store,
        "--json",
    )
    assert ordinary.exit_code == 0, ordinary.output
    data = match(cli, store, "max-single-constraint", "random", "--batch", "100")
    assert data["tournament"] != json.loads(ordinary.stdout)["config"]["tournament_id"]
    board = cli("leaderboard", "--store", store, "--json")
    rows = {row["player"]: row["games"] for row in json.loads(board.stdout)["rows"]}
    assert rows == {"random": 20, "mean-constraint": 20}
    listed = cli("leaderboard", "--list", "--store", store)
    assert "match max-single-constraint vs random" in listed.stdout
    own = json.loads(cli("leaderboard", data["tournament"], "--store", store, "--json").stdout)
    assert {row["player"] for row in own["rows"]} == {"max-single-constraint", "random"}


def test_looks_every_batch_and_at_the_end() -> None:
    assert looks(100, 300) == [100, 200, 300]
    assert looks(100, 250) == [100, 200, 250]
    with pytest.raises(ValueError, match="batch"):
        looks(0, 10)


def test_player_specs() -> None:
    assert parse_player_spec("apex").key == "apex"
    ref = parse_player_spec("random[subsets=true,random_first_click=false]")
    assert ref.options == {"subsets": True, "random_first_click": False}
    assert parse_player_spec(ref.key) == ref
    with pytest.raises(ValueError, match="brackets"):
        parse_player_spec("random[subsets=true")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("random", "random"), "same player"),
        (("random", "nosuchplayer"), "nosuchplayer"),
        (("random", "random[nosuch=1]"), "nosuch"),
        (("random", "max-single-constraint", "--delta", "0"), "--delta"),
        (("random", "max-single-constraint", "--alpha", "0.7"), "--alpha"),
        (("random", "max-single-constraint", "--batch", "500", "--max-games", "100"), "--batch"),
        (("random", "max-single-constraint", "--density", "0.3"), "--density"),
    ],
)
def test_bad_input_is_one_line(cli: Cli, tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    result = cli("match", *args, "--store", tmp_path / "a.db")
    assert result.exit_code == 2, result.output
    assert needle in result.stderr
    assert not (tmp_path / "a.db").exists()


@pytest.mark.slow
def test_the_gate_prints_decision_boards_difference_and_splits(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "a.db"
    better = cli("match", "max-single-constraint", "random", "-d", "beginner", "-w", "1", "--store", store)
    worse = cli("match", "random", "max-single-constraint", "-d", "beginner", "-w", "1", "--store", store)
    assert (better.exit_code, worse.exit_code) == (0, 1), better.output + worse.output
    assert worse.stdout.startswith("not better: random is worse than max-single-constraint")
    for result in (better, worse):
        lines = result.stdout.splitlines()
        assert [line.split(":")[0] for line in lines[:4]] == [
            lines[0].split(":")[0],
            "boards played",
            "paired difference",
            "split boards",
        ]
        assert "95% CI [" in lines[2] and "won by" in lines[3] and "won by" in lines[4]


def test_an_error_is_exit_2_not_a_verdict(cli: Cli, tmp_path: Path) -> None:
    result = cli("match", "nobody", "random", "-d", "beginner", "--store", tmp_path / "a.db")
    assert result.exit_code == 2 and "nobody" in result.stderr and not (tmp_path / "a.db").exists()
    result = cli("match", "apex", "random", "--backend", "slurm", "--store", tmp_path / "a.db")
    assert result.exit_code == 2 and "--backend" in result.stderr


VERSIONED = """
from players import hookimpl
from players.builtin.{module} import {cls}


class MyBot({cls}):
    name = "my-bot"
    version = "{version}"


@hookimpl
def register_players(register):
    register(MyBot)
"""


@pytest.mark.slow
def test_two_versions_of_one_plugin_play_side_by_side_under_aliases(cli: Cli, tmp_path: Path) -> None:
    versions = {"1": ("random_player", "RandomPlayer"), "2": ("single_constraint", "MaxSingleConstraintPlayer")}
    files = {}
    for version, (module, cls) in versions.items():
        files[version] = tmp_path / f"v{version}" / "my_bot.py"
        files[version].parent.mkdir()
        files[version].write_text(VERSIONED.format(module=module, cls=cls, version=version))
    plugins = ("--plugin", f"base={files['1']}", "--plugin", f"cand={files['2']}")
    data = match(cli, tmp_path / "a.db", "cand", "base", *plugins, "--batch", "100", "--max-games", "200")
    assert data["rows"] == ["cand", "base"] and data["boards"] in (100, 200)
    with Store(tmp_path / "a.db", read_only=True) as db:
        players = {p.key: (p.version, p.source) for p in db.players(data["tournament"])}
    # The source is the --plugin value that plays each again (arena errors' command that reproduces a failure):
    # alias and file.
    assert players == {"base": ("1", f"file base={files['1']}"), "cand": ("2", f"file cand={files['2']}")}


@pytest.mark.slow
@pytest.mark.parametrize(("alias", "needle"), [("Cand", "the alias 'Cand' must be"), ("random", "already registered")])
def test_an_alias_the_arena_refuses_is_one_line_and_nothing_stored(
    cli: Cli, tmp_path: Path, one_error_line: Callable[[Result], str], alias: str, needle: str
) -> None:
    plugin = tmp_path / "my_bot.py"
    plugin.write_text(VERSIONED.format(module="random_player", cls="RandomPlayer", version="1"))
    for command in ("match", "tournament"):
        players = (alias, "mean-constraint") if command == "match" else ("-p", "mean-constraint")
        result = cli(command, *players, "--plugin", f"{alias}={plugin}", "--store", tmp_path / "a.db")
        assert needle in one_error_line(result)
    assert not (tmp_path / "a.db").exists()


class MatchRecorder(Recorder, MatchEvents):
    """The tournament events of each batch's run, and each look at the test."""

    def looked(self, state: SprtState) -> None:
        self.events.append(("looked", state))


@pytest.mark.slow  # tournaments are played
def test_each_batch_is_a_planned_run_and_the_test_is_looked_at_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local, "COMMIT_SECONDS", 3600.0)  # one worker hands a run's games over once, at its end
    refs = (PlayerRef(name="max-single-constraint"), PlayerRef(name="random"))
    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=3, games=1, players=refs)
    events = MatchRecorder()
    with Store(tmp_path / "a.db") as store:
        result = run_match(config, store, Registry(), delta=0.9, batch=5, max_games=15, workers=1, events=events)
    names = [name for name in events.names if name != "compiling"]
    runs = [5, 10, 15].index(result.state.boards) + 1
    assert runs >= 1 and names == ["started", "batch_done", "finished", "looked"] * runs
    assert [state.boards for name, state in events.events if name == "looked"] == [5, 10, 15][:runs]
    assert sum(events.batches) == result.played == 10 * runs  # two players, five boards a batch
    plans = [plan for name, plan in events.events if name == "started"]
    assert [plan.config.games for plan in plans] == [5, 10, 15][:runs]  # each run plans only its new boards
    assert all(plan.skipped == 10 * i and plan.to_play == 10 for i, plan in enumerate(plans))
