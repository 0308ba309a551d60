"""`arena losses`: the classes of a player's lost games add up, agree with a replay judged move by move, and
constructed positions land in the class their definition says."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from repo import BOTS
from rich.console import Console
from shared_once import built_once
from typer.testing import CliRunner, Result

from arena.analysis.losses import CLASSES, GameLoss, LossReport, classify, game_losses, tournament_losses
from arena.analysis.replay import ReplayGame, ReplayMove, replay
from arena.cli.losses import render
from arena.outcome import Outcome
from arena.results.records import GameRecord, Move
from arena.results.store import Store
from engine import COVERED, PRESETS, ActionKind, FirstClick, Game
from players.solver import analyze

Cli = Callable[..., Result]
RULES = ("safe", "opening", "none", "windows")
PLAYERS = ("random", "enumeration")
HOSTILE = BOTS / "hostile" / "raiser.py"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """Random and enumeration on 100 Beginner boards under every first-click rule: the store and the
    tournament id of each rule. Played once per run, whatever the number of workers (the tests only read it)."""
    from arena.cli import app

    def play(folder: Path) -> None:
        store, ids = folder / "arena.db", {}
        for rule in RULES:
            args = ["tournament", "-d", "beginner", "-n", "100", "-w", "1", "--first-click", rule]
            result = CliRunner().invoke(app, [*args, "--store", str(store), "-p", ",".join(PLAYERS), "--json"])
            assert result.exit_code == 0, result.output
            with Store(store, read_only=True) as db:
                ids[rule] = db.latest()
        (folder / "ids.json").write_text(json.dumps(ids), encoding="utf-8")

    folder = built_once(tmp_path_factory, "losses-store", play)
    return folder / "arena.db", json.loads((folder / "ids.json").read_text(encoding="utf-8"))


def losses_json(cli: Cli, store: Path, tournament: str, player: str) -> dict:
    result = cli("losses", tournament, "-p", player, "--store", store, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("player", PLAYERS)
def test_classes_add_up_to_the_losses(cli: Cli, played: tuple[Path, dict[str, str]], rule: str, player: str) -> None:
    store, ids = played
    data = losses_json(cli, store, ids[rule], player)
    with Store(store, read_only=True) as db:
        rows = [row for row in db.games(ids[rule]) if row.player == player]
    lost = sorted(row.board for row in rows if not row.won)
    assert data["games"] == len(rows) == 100
    assert data["losses"] == len(lost) > 0
    assert sum(data["classes"].values()) == data["losses"]
    assert sorted(b for boards in data["boards"].values() for b in boards) == lost
    assert {name: len(boards) for name, boards in data["boards"].items()} == data["classes"]
    assert data["classes"]["unanalysed"] == 0
    assert data["expected_losses"]["observed"] == sum(1 for row in rows if row.outcome is Outcome.LOST)
    histogram = data["guesses_per_game"]["histogram"]
    assert sum(histogram.values()) == 100
    assert data["expected_losses"]["guesses"] == sum(int(n) * games for n, games in histogram.items())
    if player == "enumeration":  # it never clicks a cell it could prove unsafe while a safe one is known
        assert data["classes"]["blunder"] == 0


def brute_force(store: Path, tournament: str, player: str) -> dict[int, tuple[list[float], str | None, float]]:
    """Each game replayed with the analysis of every position (``arena.analysis.replay``, no shortcut): the mine
    probability of every reveal that was above 0, and the fatal click's class by the definitions."""
    out = {}
    with Store(store, read_only=True) as db:
        t = db.tournament(tournament)
        for row in db.games(tournament):
            if row.player != player:
                continue
            record = db.game_record(tournament, player, row.board)
            moves = [ReplayMove(m.kind, m.row, m.col, m.guess) for m in record.moves]
            game = ReplayGame(player, PRESETS["beginner"], t.rule, t.seed, row.board, moves, row.outcome)
            rep = replay(game)
            guesses, kind, regret = [], None, 0.0
            for number in range(1, rep.moves + 1):
                choice = rep.choice(number)
                assert choice is not None and choice.move.kind is not ActionKind.CHORD
                if choice.move.kind is not ActionKind.REVEAL:
                    continue
                p = 0.0 if choice.probability is None else choice.probability  # None: a protected first click
                if p > 0:
                    guesses.append(p)
                if choice.fatal:
                    assert choice.safest is not None
                    if choice.safest == 0:
                        kind = "blunder"
                    elif p > choice.safest + 1e-9:
                        kind, regret = "suboptimal", p - choice.safest
                    else:
                        kind = "forced or fifty_fifty"
            out[row.board] = (guesses, kind, regret)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["safe", "none"])
def test_agrees_with_every_position_analysed(played: tuple[Path, dict[str, str]], rule: str) -> None:
    """The known-safe shortcut (no analysis for a reveal of a cell already proven safe) changes nothing:
    the guesses, their probabilities, the classes and the regret are those of a replay analysed at every
    step; and the expected losses are the sum of those probabilities."""
    store, ids = played
    expected = brute_force(store, ids[rule], "random")
    with Store(store, read_only=True) as db:
        report = tournament_losses(db, ids[rule], "random")
    assert len(report.games) == len(expected) == 100
    total = 0.0
    for game in report.games:
        guesses, kind, regret = expected[game.board]
        assert game.guesses == pytest.approx(guesses, abs=1e-12)
        if kind == "forced or fifty_fifty":
            assert game.kind in ("forced", "fifty_fifty")
        else:
            assert game.kind == kind
        assert game.regret == pytest.approx(regret, abs=1e-12)
        total += sum(guesses)
    assert report.expected_losses["expected"] == pytest.approx(total, abs=1e-9)
    assert report.regret["total"] == pytest.approx(sum(r for _, _, r in expected.values()), abs=1e-9)
    assert any(game.kind == "blunder" for game in report.games)


def parse(text: str) -> np.ndarray:
    return np.array([[COVERED if ch == "#" else int(ch) for ch in line] for line in text.split()], dtype=np.int8)


#: (position, mines, clicked cell, class, regret). The 4x4 is the corner 2x2 block with a mine on one of its
#: diagonals, every number around it the same either way, walled off by a proven mine at (2, 2).
CONSTRUCTED = [
    ("01##", 1, (0, 2), "blunder", 1.0),  # (0, 3) is proven safe
    ("#1#", 1, (0, 0), "fifty_fifty", 0.0),  # the isolated pair
    ("#1##", 2, (0, 0), "fifty_fifty", 0.0),  # a pair walled off by a proven mine
    ("##10 ##21 12#1 0111", 3, (0, 1), "fifty_fifty", 0.0),  # the 2x2
    ("##10 ##21 12#1 0111", 3, (0, 0), "fifty_fifty", 0.0),  # its corner: no number touches it
    ("#1###", 2, (0, 0), "forced", 0.0),  # 1/2 everywhere, but opening (0, 3) could tell the pair apart
    ("#1####", 2, (0, 3), "forced", 0.0),  # 1/3, the safest
    ("#1####", 2, (0, 0), "suboptimal", 0.5 - 1 / 3),  # 1/2 while a 1/3 cell existed
]


@pytest.mark.parametrize(("text", "mines", "cell", "kind", "regret"), CONSTRUCTED)
def test_constructed_positions(text: str, mines: int, cell: tuple[int, int], kind: str, regret: float) -> None:
    grid = parse(text)
    verdict = classify(grid, mines, analyze(grid, mines), [cell])
    assert verdict.kind == kind
    assert verdict.regret == pytest.approx(regret, abs=1e-12)


def test_a_flag_is_not_information() -> None:
    """A wrong flag on the only safe cell does not hide it: clicking elsewhere is still a blunder."""
    grid = parse("01##")
    grid[0, 3] = -2  # FLAGGED
    numbers = parse("01##")
    assert classify(grid, 1, analyze(numbers, 1), [(0, 2)]).kind == "blunder"


def test_json_shape(cli: Cli, played: tuple[Path, dict[str, str]]) -> None:
    store, ids = played
    data = losses_json(cli, store, ids["safe"], "random")
    assert set(data) == {
        "player",
        "tournament",
        "games",
        "losses",
        "classes",
        "boards",
        "regret",
        "guesses_per_game",
        "expected_losses",
    }
    assert data["player"] == "random" and data["tournament"] == ids["safe"]
    assert list(data["classes"]) == list(data["boards"]) == list(CLASSES)
    assert set(data["regret"]) == {"total", "per_game"}
    assert all(set(item) == {"board", "regret"} and item["regret"] > 0 for item in data["regret"]["per_game"])
    assert set(data["expected_losses"]) == {"guesses", "expected", "sd", "low", "high", "observed", "consistent"}
    e = data["expected_losses"]
    assert e["low"] <= e["expected"] <= e["high"]
    assert e["high"] - e["expected"] == pytest.approx(1.959963984540054 * e["sd"])


def test_default_tournament_is_the_latest_and_the_table_prints(cli: Cli, played: tuple[Path, dict[str, str]]) -> None:
    store, ids = played
    result = cli("losses", "-p", "enumeration", "--store", store)
    assert result.exit_code == 0, result.output
    assert ids[RULES[-1]] in result.stdout and "fifty_fifty" in result.stdout and "expected losses" in result.stdout


def test_table_fits_80_columns_and_names_are_not_markup() -> None:
    games = [GameLoss(b, "lost", (0.25, 0.5), "suboptimal", 0.125) for b in range(30)]
    games += [GameLoss(99, "timeout", (), "failure")]
    report = LossReport("[bold red]evil[/]", "0123456789abcdef", "expert 16x30/99, first click safe", games)
    console = Console(width=80, record=True, color_system=None)
    console.print(render(report))
    text = console.export_text()
    assert "[bold red]evil[/]" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    assert report.classes["suboptimal"] == 30 and report.classes["failure"] == 1 and report.losses == 31
    assert report.regret["total"] == pytest.approx(30 * 0.125)
    assert report.expected_losses["expected"] == pytest.approx(30 * 0.75)
    assert report.expected_losses["sd"] == pytest.approx(math.sqrt(30 * (0.25 * 0.75 + 0.25)))
    assert report.expected_losses["observed"] == 30


@pytest.mark.slow
def test_failures_are_their_own_class(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "arena.db"
    args = ["tournament", "-d", "beginner", "-n", "4", "-w", "1", "--store", store, "--plugin", HOSTILE]
    result = cli(*args, "-p", "hostile-raiser")
    assert result.exit_code == 0, result.output
    result = cli("losses", "-p", "hostile-raiser", "--store", store, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["classes"]["failure"] == data["losses"] == 4
    assert data["boards"]["failure"] == [0, 1, 2, 3]


def test_a_game_record_is_judged_without_a_store() -> None:
    """``game_losses`` on a record alone: a game lost on its first click under the rule ``none``."""
    spec = PRESETS["beginner"]
    game = Game(spec, FirstClick.NONE, seed=3, index=0)
    game.reveal(0, 0)  # draws the layout
    layout = game.mine_layout()
    row, col = map(int, np.argwhere(layout)[0])
    record = GameRecord(spec.height, spec.width, (Move(ActionKind.REVEAL, row, col),))
    judged = game_losses(spec, FirstClick.NONE, 3, 0, record)
    assert judged.outcome == "lost" and judged.kind == "forced"
    assert judged.guesses == pytest.approx((spec.mines / (spec.height * spec.width),))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-p", "nobody"], "no player 'nobody'"),
        (["no-such-tournament", "-p", "random"], "no tournament 'no-such-tournament'"),
        ([], "--player NAME is required"),
    ],
)
def test_bad_input_is_one_line(cli: Cli, played: tuple[Path, dict[str, str]], args: list[str], message: str) -> None:
    store, _ = played
    result = cli("losses", *args, "--store", store)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_store_without_records_is_one_line(cli: Cli, tmp_path: Path) -> None:
    store = tmp_path / "arena.db"
    args = ["tournament", "-d", "beginner", "-n", "3", "-w", "1", "-p", "random", "--record", "none"]
    result = cli(*args, "--store", store)
    assert result.exit_code == 0, result.output
    result = cli("losses", "-p", "random", "--store", store)
    assert result.exit_code == 2
    assert "records are missing" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    missing = cli("losses", "-p", "random", "--store", tmp_path / "none.db")
    assert missing.exit_code == 2 and "no results store" in missing.stderr
