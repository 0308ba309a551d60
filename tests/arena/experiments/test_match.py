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
    """The match's JSON, its exit code checked: 0 when the candidate is accepted as better, else 1."""
    result = cli("match", *args, "-d", "beginner", "-w", "1", "--store", store, "--json")
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.stdout)
    assert result.exit_code == (0 if data["verdict"] == "a_better" else 1)
    assert data["accepted"] is (result.exit_code == 0)
    return data


@pytest.mark.slow
def test_a_clear_difference_is_found_and_the_verdict_is_the_tests(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "arena.db"
    first = match(cli, store, "max-single-constraint", "random", "--delta", "1", "--batch", "100")
    assert first["verdict"] == "a_better"
    assert first["boards"] % 100 == 0
    assert first["played"] == 2 * first["boards"]
    assert first["llr"] >= first["upper"]
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


def test_undecided_at_max_games(cli: Cli, tmp_path: Path) -> None:
    result = match(
        cli, tmp_path / "a.db", "mean-constraint", "max-single-constraint", "--max-games", "30", "--batch", "20"
    )
    assert result["boards"] == 30
    assert result["verdict"] in ("undecided", "a_better", "not_better")
    if result["verdict"] == "undecided":
        assert result["lower"] < result["llr"] < result["upper"]


@pytest.mark.slow
def test_table_output_names_the_verdict(cli: Cli, tmp_path: Path) -> None:
    result = cli("match", "max-single-constraint", "random", "-d", "beginner", "-w", "1", "--store", tmp_path / "a.db")
    assert result.exit_code == 0, result.output
    assert "accepted: max-single-constraint is better than random by at least 1 point (H1 accepted)" in result.stdout
    assert "LLR" in result.stderr


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
    assert worse.stdout.startswith("not accepted: random is not better than max-single-constraint")
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
