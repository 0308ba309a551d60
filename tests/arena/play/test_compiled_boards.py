"""Many compiled games to a call (``runner.play_compiled_boards``, ``worker.play_boards``) are the game-by-game
games: the same results, the same records, the same stored rows."""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.config import PlayerRef, RecordMode, TournamentConfig
from arena.outcome import GameBatch, GameResult, Outcome
from arena.play import runner, worker
from arena.play.tournament import plan_tournament, run_tournament
from arena.play.worker import init_worker, play, play_boards, runs
from arena.results import records
from arena.results.store import Store
from engine import BEGINNER, EXPERT, INTERMEDIATE, BoardSpec, FirstClick
from engine.compiled_game import CompiledGame, cpu_ns, wall_ns
from engine.layout import player_seed_words
from players.builtin import enumeration_compiled
from players.builtin.enumeration_player import EnumerationPlayer
from players.registry import Registry

TIMINGS = ("cpu_ms", "wall_ms")


def config_for(spec: BoardSpec, rule: FirstClick, games: int, **kwargs: object) -> TournamentConfig:
    return TournamentConfig.build(spec, rule, seed=77, games=games, players=(PlayerRef(name="enumeration"),), **kwargs)


def untimed(results: list[GameResult]) -> list[GameResult]:
    return [dataclasses.replace(r, **dict.fromkeys(TIMINGS, 0.0)) for r in results]


def batched(config: TournamentConfig, boards: list[int], size: int = 64) -> list[GameResult]:
    key = config.players[0].key
    out: list[GameResult] = []
    for start in range(0, len(boards), size):
        play_boards(config, boards[start : start + size], key, out)
    return out


@pytest.fixture(autouse=True)
def _worker() -> None:
    init_worker((), single_thread=False, pool=False, workers=1)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "rule", "games"),
    [
        (BEGINNER, FirstClick.SAFE, 400),
        (BEGINNER, FirstClick.NONE, 100),
        (BEGINNER, FirstClick.WINDOWS, 100),
        (INTERMEDIATE, FirstClick.OPENING, 40),
        (EXPERT, FirstClick.SAFE, 12),
        (BoardSpec(5, 7, 12), FirstClick.SAFE, 100),
    ],
    ids=["beginner", "beginner-none", "beginner-windows", "intermediate-opening", "expert", "dense"],
)
def test_batched_games_are_the_game_by_game_games(spec: BoardSpec, rule: FirstClick, games: int) -> None:
    config = config_for(spec, rule, games)
    key = config.players[0].key
    want = [play(config, board, key) for board in range(games)]
    got = batched(config, list(range(games)))
    assert len(got) == len(want) == games
    assert untimed(got) == untimed(want)  # records included
    assert all(r.record for r in got)
    assert {r.outcome for r in got} >= {Outcome.WON, Outcome.LOST}
    assert all(r.cpu_ms >= 0.0 and r.wall_ms >= 0.0 for r in got)


def test_games_left_to_python_within_a_batch_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every guess through numpy's arithmetic finished in Python (numpy's loops off, as when they are not
    found), and every position through the solver from Python: the batch hands those games to Python
    midway and goes on with the next board."""
    config = config_for(BEGINNER, FirstClick.SAFE, 80)
    key = config.players[0].key
    want = untimed([play(config, board, key) for board in range(80)])
    guesses, rest = [], []
    compiled = enumeration_compiled
    originals = compiled._guess_pending, compiled._python_step
    monkeypatch.setattr(compiled, "_guess_pending", lambda *a: guesses.append(1) or originals[0](*a))
    monkeypatch.setattr(compiled, "_python_step", lambda *a: rest.append(a[3]) or originals[1](*a))
    monkeypatch.setattr(compiled, "_EXACT_SHARES", False)
    monkeypatch.setattr(compiled, "NUMPY_LOOPS", False)
    assert untimed(batched(config, list(range(80)))) == want
    assert len(guesses) > 20  # back into the compiled loop in one call (``_run``)
    guesses.clear()
    monkeypatch.setattr(compiled, "_FAST_SEARCH_NODES", -1)
    monkeypatch.setattr(compiled, "_last", (None, 0, (), 0, ()))  # the probe is kept with the game's state
    assert untimed(batched(config, list(range(80)))) == want
    assert rest.count(enumeration_compiled.GENERAL) > 20  # the solver from Python


def test_guesses_through_numpys_loops_within_a_batch_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every guess through numpy's arithmetic, in compiled code with numpy's own loops: no game is handed to
    Python, and every game is the game-by-game one."""
    config = config_for(BEGINNER, FirstClick.SAFE, 80)
    key = config.players[0].key
    want = untimed([play(config, board, key) for board in range(80)])
    steps = []
    original = enumeration_compiled._python_step
    monkeypatch.setattr(enumeration_compiled, "_python_step", lambda *a: steps.append(a[3]) or original(*a))
    monkeypatch.setattr(enumeration_compiled, "_EXACT_SHARES", False)
    monkeypatch.setattr(enumeration_compiled, "NUMPY_LOOPS", True)
    assert untimed(batched(config, list(range(80)))) == want
    assert enumeration_compiled.GUESS not in steps


def test_declined_boards_are_played_move_by_move() -> None:
    """Past the move limit the compiled game declines: that board is replayed move by move and says so."""
    config = config_for(EXPERT, FirstClick.SAFE, 3, move_limit=2)
    key = config.players[0].key
    got = batched(config, [0, 1, 2])
    assert untimed(got) == untimed([play(config, board, key) for board in range(3)])
    assert [r.outcome for r in got] == [Outcome.ERROR] * 3


def test_games_without_records() -> None:
    config = config_for(BEGINNER, FirstClick.SAFE, 50, record=RecordMode.NONE)
    key = config.players[0].key
    got = batched(config, list(range(50)), size=16)
    assert untimed(got) == untimed([play(config, board, key) for board in range(50)])
    assert all(r.record is None for r in got)


def test_a_player_without_the_batch_path_is_played_game_by_game() -> None:
    config = config_for(BEGINNER, FirstClick.SAFE, 5)
    key = config.players[0].key
    options_player = EnumerationPlayer({"counting": "rust"})
    boards = np.zeros((1, enumeration_compiled.BOARD_COLUMNS), np.int64)
    assert not options_player.play_compiled_boards(runner._compiled_game(BEGINNER, FirstClick.SAFE, 77, 0, True), 77,
                                                   np.zeros(1, np.int64), 100, boards, np.zeros(400, np.int32),
                                                   np.zeros(1, np.int64))  # fmt: skip
    assert runner.play_compiled_boards(options_player, key, BEGINNER, FirstClick.SAFE, 77, [0, 1], 100, True) is None
    assert batched(config, []) == []


def test_runs_keep_the_order_of_the_games() -> None:
    work = ((0, ("a",)), (1, ("a",)), (2, ("a", "b")), (3, ("b",)), (4, ("b",)), (5, ("a",)), (6, ("a",)))
    assert runs(work, 64) == [([0, 1], "a"), ([2], "a"), ([2, 3, 4], "b"), ([5, 6], "a")]
    assert runs(((0, ("a",)), (1, ("a",)), (2, ("a",))), 2) == [([0, 1], "a"), ([2], "a")]
    flat = [(board, key) for boards, key in runs(work, 2) for board in boards]
    assert flat == [(board, key) for board, keys in work for key in keys]


def test_many_blobs_in_one_call_are_each_games_blob() -> None:
    """``log_blobs`` is ``log_blob`` per game: played games, a long one (deflated), an empty placeholder."""
    logs, want = [], []
    player = EnumerationPlayer()
    for spec, board in ((BEGINNER, 1), (EXPERT, 2), (BEGINNER, 3)):
        game = CompiledGame(spec, FirstClick.SAFE, 5, board, record=True)
        assert player.play_compiled(game, player_seed_words(5, board, player.name), 10_000)
        logs.append((game.move_log(), spec))
    # A long log (1,500 one-cell reveals scattered over a 60x60 board): its blob is deflated.
    cells = [(i * 1237) % 3600 for i in range(1500)]
    long_log = np.array([1 + 4 * len(cells), *(x for cell in cells for x in (0, cell, 1, cell))], np.int32)
    logs.append((long_log, BoardSpec(60, 60, 3)))
    for log, spec in logs:
        want.append(records.log_blob(log, spec.height, spec.width))
        assert records.log_blobs(log, np.array([len(log)]), spec.height, spec.width) == [want[-1]]
    assert want[-1][1] == 1  # the long one deflated
    beginner = np.concatenate([logs[0][0], logs[2][0]])
    ends = np.array([len(logs[0][0]), len(logs[0][0]), len(beginner)])
    assert records.log_blobs(beginner, ends, 9, 9) == [want[0], b"", want[2]]


@given(
    st.lists(
        st.one_of(
            st.integers(0, 10**7),  # a Beginner game's nanoseconds
            st.integers(0, 10**9).map(lambda n: 100 * n + 50),  # exact halves, where the float decides
            st.integers(-(10**6), 2 * 10**15),  # negative (a wall clock's), and past where the float's error grows
        ),
        max_size=70,
    )
)
def test_a_runs_milliseconds_are_pythons_round(ns: list[int]) -> None:
    """``ns_to_ms`` (a run's clocks at once) is ``round(n / 1e6, 4)`` of each, to the bit."""
    found = runner.ns_to_ms(np.array(ns, dtype=np.int64))
    assert [x.hex() for x in found] == [round(n / 1e6, 4).hex() for n in ns]
    assert all(type(x) is float for x in found)


def test_a_result_made_from_its_values_is_the_dataclasses() -> None:
    values = ("enumeration", 5, Outcome.LOST, 20, 15, 1, 2, 3, 12, 9, 60, None, 4, 0.0612, 0.0633, "", b"\x01\x00")
    made, reference = runner._new_result(values), GameResult(*values)
    assert type(made) is GameResult and made == reference and hash(made) == hash(reference)
    assert [getattr(made, f.name) for f in dataclasses.fields(GameResult)] == list(values)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.board = 6  # type: ignore[misc]


def test_a_game_batch_holds_the_same_games_and_stores_the_same_rows(tmp_path: Path) -> None:
    """``play_boards`` into a ``GameBatch`` (the one-worker tournament's) keeps the compiled games as their values:
    read back they are the games played into a list, and the store writes the same rows and records from it as
    from its ``GameResult``s."""
    config = config_for(BEGINNER, FirstClick.SAFE, 200)
    key = config.players[0].key
    batch = GameBatch()
    for start in range(0, 200, 64):
        play_boards(config, list(range(start, min(200, start + 64))), key, batch)
    as_values = sum(type(item) is tuple for item in batch.items)
    assert len(batch) == 200 and as_values >= 190  # the first game of the player by play(), a GameResult
    results = list(batch)
    assert all(type(r) is GameResult for r in results) and [r.board for r in results] == list(range(200))
    assert batch[5] == results[5] and batch[-1] == results[-1] and batch[10:13] == results[10:13]
    assert untimed(results) == untimed(batched(config, list(range(200))))
    tables = []
    for name, games in (("batch", batch), ("list", results)):
        with Store(tmp_path / f"{name}.db") as store:
            store.ensure_tournament(config, {})
            assert store.save(config.id, games) == 200
            rows = [tuple(r) for r in store.db.execute("SELECT * FROM games ORDER BY player, board")]
            kept = [tuple(r) for r in store.db.execute("SELECT * FROM records ORDER BY player, board")]
            totals = [tuple(r) for r in store.db.execute("SELECT * FROM game_totals ORDER BY chunk")]
            tables.append(([row[:-1] for row in rows], kept, totals))  # but the time of the commit
    assert tables[0] == tables[1] and len(tables[0][0]) == len(tables[0][1]) == 200


def test_clocks_are_pythons() -> None:
    buf = np.zeros(2, np.int64)
    before = time.perf_counter_ns()
    now = wall_ns(buf)
    assert before <= now <= time.perf_counter_ns()
    cpu_before = time.thread_time_ns()
    cpu = cpu_ns(buf)
    assert cpu_before <= cpu <= time.thread_time_ns()


@pytest.mark.slow
def test_a_one_worker_store_is_the_game_by_game_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store written by the one-worker tournament (batched compiled games) holds, row by row, the games and
    records a store written game by game through the move-by-move player holds."""
    config = config_for(BEGINNER, FirstClick.SAFE, 300)
    batches = []
    # The one-worker tournament's runs: their games kept as values in a GameBatch (compiled_values).
    original = worker.compiled_values
    monkeypatch.setattr(worker, "compiled_values", lambda *a: batches.append(len(a[5])) or original(*a))
    with Store(tmp_path / "fast.db") as store:
        run_tournament(plan_tournament(config, store, Registry(), workers=1), store)
    assert sum(batches) == 299  # the first game by play(), which sets the player up
    monkeypatch.setattr(worker, "compiled_values", lambda *a: None)
    monkeypatch.setattr(worker, "play_compiled_boards", lambda *a: None)
    monkeypatch.setattr(EnumerationPlayer, "play_compiled", lambda *a: False)
    with Store(tmp_path / "reference.db") as store:
        run_tournament(plan_tournament(config, store, Registry(), workers=1), store)
    tables = {}
    for name in ("fast", "reference"):
        with sqlite3.connect(tmp_path / f"{name}.db") as db:
            db.row_factory = sqlite3.Row
            games = [dict(row) for row in db.execute("SELECT * FROM games ORDER BY player, board")]
            for row in games:
                for column in (*TIMINGS, "finished"):
                    row.pop(column)
            kept = db.execute("SELECT player, board, data FROM records ORDER BY player, board").fetchall()
            tables[name] = (games, [tuple(row) for row in kept])
    games, kept = tables["fast"]
    assert len(games) == len(kept) == 300
    assert tables["fast"] == tables["reference"]
    assert {row["outcome"] for row in games} == {"won", "lost"}
