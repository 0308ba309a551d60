"""`arena replay`, `arena diff` and `arena play --replay` on a small stored tournament: the page carries the
stored game, --latest-loss finds the last lost board, diff lists exactly the split boards (and agrees with the
leaderboard's wins), and every wrong name is one line and exit code 2, without touching the store.

One of the two players carries an option (``random[random_first_click=true]``): a key with brackets and no
markup meaning, which the commands must print as it is and ``-p A,B`` must keep whole.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from arena.analysis.replay import first_divergence
from arena.analysis.replay.page import decode_layout, decode_page_moves
from arena.cli import app
from arena.cli.render import board_text
from arena.results.store import Store

A = "random[random_first_click=true]"
B = "max-single-constraint"
BOARDS = 12
RUNNER = CliRunner()


def run(*args: str | Path) -> Result:
    return RUNNER.invoke(app, [str(a) for a in args])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def tournament(store: Path, *extra: str) -> str:
    args = ("tournament", "-p", f"random,{B}", "--option", "random.random_first_click=true", "-n", BOARDS)
    ok(run(*args, "--workers", "1", "-q", "--store", store, *extra))
    return json.loads(ok(run("leaderboard", "--json", "--store", store)).stdout)["config"]["tournament_id"]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("replay") / "arena.db"
    return store, tournament(store)


@pytest.fixture(scope="module")
def unrecorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("norecord") / "arena.db"
    return store, tournament(store, "--record", "none")


def won(store: Path, tid: str) -> dict[str, dict[int, bool]]:
    with Store(store, read_only=True) as db:
        out: dict[str, dict[int, bool]] = {}
        for game in db.games(tid):
            out.setdefault(game.player, {})[game.board] = game.won
    return out


def page_data(path: Path) -> dict[str, Any]:
    page = path.read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))


def assert_is_stored_game(game: dict[str, Any], store: Path, tid: str, player: str, board: int) -> None:
    """The page's game is the stored one: every grid and every move as ``Store.replay`` plays the record."""
    with Store(store, read_only=True) as db:
        stored = db.replay(tid, player, board)
        outcome = db.game(tid, player, board).outcome
    assert (game["player"], game["board"], game["outcome"]) == (player, board, outcome)
    moves = decode_page_moves(game["moves"], game["cols"], game["w"])
    assert moves == [(m.kind.value, m.row, m.col, m.guess) for m in stored.record.moves]
    layout = decode_layout(game["layout"], game["rows"], game["cols"])
    assert (layout == stored.game.mine_layout()).all()


@pytest.mark.slow
def test_replay_writes_the_stored_game(stored: tuple[Path, str], tmp_path: Path) -> None:
    store, tid = stored
    out = tmp_path / "one.html"
    result = ok(run("replay", tid, "-p", B, "--board", 3, "--output", out, "--store", store))
    assert result.stdout.strip() == str(out)
    data = page_data(out)
    assert len(data["games"]) == 1 and data["probabilities"] is True
    assert_is_stored_game(data["games"][0], store, tid, B, 3)
    bare = tmp_path / "bare.html"
    ok(run("replay", "-p", B, "--board", 3, "--output", bare, "--store", store, "--no-probabilities"))  # the latest
    assert page_data(bare)["probabilities"] is False  # the overlay starts off


def test_latest_loss_is_the_last_board_the_player_did_not_win(stored: tuple[Path, str], tmp_path: Path) -> None:
    store, tid = stored
    lost = [board for board, w in won(store, tid)[A].items() if not w]
    assert lost, "the fixture's random player should lose a board"
    out = tmp_path / "loss.html"
    ok(run("replay", "--latest-loss", "-p", A, "--output", out, "--store", store))
    game = page_data(out)["games"][0]
    assert game["board"] == max(lost)
    with Store(store, read_only=True) as db:
        assert db.replay(tid, A, max(lost)).exploded is not None
    assert_is_stored_game(game, store, tid, A, max(lost))


def test_two_players_side_by_side(stored: tuple[Path, str], tmp_path: Path) -> None:
    store, tid = stored
    out = tmp_path / "pair.html"
    ok(run("replay", "-p", f"{A},{B}", "--board", 0, "--output", out, "--store", store))
    data = page_data(out)
    assert [g["player"] for g in data["games"]] == [A, B]
    for game, player in zip(data["games"], (A, B), strict=True):
        assert_is_stored_game(game, store, tid, player, 0)
    with Store(store, read_only=True) as db:
        assert data["divergence"] == first_divergence(db.game_record(tid, A, 0).moves, db.game_record(tid, B, 0).moves)


def test_diff_lists_exactly_the_split_boards_and_agrees_with_the_leaderboard(stored: tuple[Path, str]) -> None:
    store, tid = stored
    data = json.loads(ok(run("diff", A, B, "--json", "--store", store)).stdout)
    wins = won(store, tid)
    assert data["only_a"] == [x for x in range(BOARDS) if wins[A][x] and not wins[B][x]]
    assert data["only_b"] == [x for x in range(BOARDS) if wins[B][x] and not wins[A][x]]
    assert data["only_a"] or data["only_b"], "the fixture should have split boards"
    assert data["both"] + data["neither"] + len(data["only_a"]) + len(data["only_b"]) == BOARDS
    board = json.loads(ok(run("leaderboard", "-t", tid, "--json", "--store", store)).stdout)
    rows = {row["player"]: row["wins"] for row in board["rows"]}
    assert len(data["only_a"]) - len(data["only_b"]) == rows[A] - rows[B]
    with Store(store, read_only=True) as db:
        for split in data["only_a"] + data["only_b"]:
            at = first_divergence(db.game_record(tid, A, split).moves, db.game_record(tid, B, split).moves)
            assert data["diverged_at"][str(split)] == at + 1


def test_diff_table_prints_names_as_text_within_80_columns(stored: tuple[Path, str]) -> None:
    store, tid = stored
    out = ok(run("diff", tid, A, B, "--store", store)).stdout
    assert A in out  # brackets shown, not eaten as markup
    assert max(len(line) for line in out.splitlines()) <= 80
    data = json.loads(ok(run("diff", tid, A, B, "--json", "--store", store)).stdout)
    for board in data["only_a"] + data["only_b"]:
        assert re.search(rf"^│\s+{board} │", out, re.M)


def test_diff_html_writes_an_index_and_one_replay_per_split_board(stored: tuple[Path, str], tmp_path: Path) -> None:
    store, _ = stored
    data = json.loads(ok(run("diff", A, B, "--json", "--store", store)).stdout)
    split = sorted(data["only_a"] + data["only_b"])
    ok(run("diff", A, B, "--html", tmp_path / "out", "--store", store))
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert "index.html" in files and len(files) == len(split) + 1
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<a href="([^"]+)">replay</a>', index)
    assert len(links) == len(split)
    for link, board in zip(links, split, strict=True):
        games = page_data(tmp_path / "out" / link)["games"]
        assert [(g["player"], g["board"]) for g in games] == [(A, board), (B, board)]


def test_play_replay_shows_the_final_grid(stored: tuple[Path, str]) -> None:
    store, tid = stored
    out = ok(run("play", "--replay", tid, "--board", 2, "-p", B, "--store", store, "--delay", "0")).stdout
    with Store(store, read_only=True) as db:
        game = db.replay(tid, B, 2).game
        moves = len(db.game_record(tid, B, 2))
    console = Console(width=200, record=True, color_system=None)
    console.print(board_text(game.final_grid(), game.exploded))
    for line in console.export_text().splitlines():
        assert line.rstrip() in out
    assert f"move {moves} / {moves}" in out


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


BAD: dict[str, Callable[[str], tuple[tuple[str | int, ...], str]]] = {
    "unknown tournament": lambda tid: (("replay", "nope", "-p", B, "--board", 0), "no tournament 'nope'"),
    "unknown board": lambda tid: (("replay", tid, "-p", B, "--board", 99), "no board 99"),
    "unknown player": lambda tid: (("replay", tid, "-p", "nobody", "--board", 0), "no player 'nobody'"),
    "diff unknown player": lambda tid: (("diff", tid, A, "nobody"), "no player 'nobody'"),
    "diff unknown tournament": lambda tid: (("diff", "nope", A, B), "no tournament 'nope'"),
    "play unknown board": lambda tid: (("play", "--replay", tid, "-p", B, "--board", -1), "no board -1"),
    "play unknown player": lambda tid: (("play", "--replay", tid, "-p", "nobody"), "no player 'nobody'"),
    "neither board nor latest loss": lambda tid: (("replay", tid, "-p", B), "--board N or --latest-loss"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_and_exit_2(case: str, stored: tuple[Path, str], tmp_path: Path) -> None:
    store, tid = stored
    before = digest(store)
    args, words = BAD[case](tid)
    result = run(*args, "--store", store, *(("--output", tmp_path / "x.html") if args[0] == "replay" else ()))
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr
    assert result.stdout == ""
    assert digest(store) == before and not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("command", ["replay", "diff", "play"])
def test_a_store_without_records_says_so(
    command: str, stored: tuple[Path, str], unrecorded: tuple[Path, str], tmp_path: Path
) -> None:
    """The same games as ``stored`` (so the same split boards for diff), stored with ``--record none``."""
    store, tid = unrecorded
    before = digest(store)
    args = {
        "replay": ("replay", tid, "-p", B, "--board", 0, "--output", tmp_path / "x.html"),
        "diff": ("diff", tid, A, B),
        "play": ("play", "--replay", tid, "-p", B, "--board", 0),
    }[command]
    result = run(*args, "--store", store)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "records are missing" in result.stderr
    assert digest(store) == before
