"""`arena match`: a sequential test played on stored boards, resumable, with a verdict that can be checked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from arena.analysis.sequential import gsprt
from arena.experiments.match import looks, parse_player_spec
from arena.results.store import Store

Cli = Callable[..., Result]


def match(cli: Cli, store: Path, *args: str) -> dict:
    result = cli("match", *args, "-d", "beginner", "-w", "1", "--store", store, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


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
    won = {(r["player"], r["board"]): r["won"] for r in rows}
    a_only = sum(won[("max-single-constraint", i)] and not won[("random", i)] for i in range(first["boards"]))
    b_only = sum(won[("random", i)] and not won[("max-single-constraint", i)] for i in range(first["boards"]))
    assert (first["only_a"], first["only_b"]) == (a_only, b_only)
    assert first["llr"] == pytest.approx(gsprt(a_only, b_only, first["boards"], 0.01).llr)

    # Run again: nothing is played, the same verdict at the same board.
    again = match(cli, store, "max-single-constraint", "random", "--delta", "1", "--batch", "100")
    assert again["played"] == 0
    assert {k: v for k, v in again.items() if k != "played"} == {k: v for k, v in first.items() if k != "played"}


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


def test_table_output_names_the_verdict(cli: Cli, tmp_path: Path) -> None:
    result = cli("match", "max-single-constraint", "random", "-d", "beginner", "-w", "1", "--store", tmp_path / "a.db")
    assert result.exit_code == 0, result.output
    assert "max-single-constraint is better than random by at least 1 point (H1 accepted)" in result.stdout
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
