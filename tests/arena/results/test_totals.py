"""The store's running totals (arena.results.totals) held to the reference: the leaderboard from every game.

Stores of random games (outcomes, figures, first clicks, boards spread over several chunks and click blocks,
stored in random batches, some twice) and random board limits give the same leaderboard by the totals as by
reading every game; so do real tournaments, stores migrated to the totals, and stores recovered from the journal.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.analysis.leaderboard import Leaderboard, build_leaderboard
from arena.config import PlayerRef, TournamentConfig
from arena.outcome import FAILURES, GameResult, Outcome
from arena.play.plan import BoardWork, pending_work
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.migrations import _TOTALS, CHUNK_BOARDS, CLICK_BLOCK_CHUNKS, MIGRATIONS
from arena.results.store import Store
from arena.results.totals import BLOCK_BOARDS, pair_counts
from engine import BEGINNER, FirstClick
from players.registry import Registry

MakeResult = Callable[..., GameResult]
#: Boards up to here: three click blocks and then some, so that limits cut chunks and blocks anywhere.
SPAN = 3 * BLOCK_BOARDS + 100
PLAYERS = ("alpha", "beta", "gamma")
FLOATS = ("ms_per_game", "bbbv_solved_fraction", "bbbv_per_second")


def assert_same(fast: Leaderboard, reference: Leaderboard) -> int:
    """Every figure equal, floats to their last bits; returns how many rows were compared."""
    assert fast.config == reference.config
    assert [r.player for r in fast.rows] == [r.player for r in reference.rows]
    for a, b in zip(fast.rows, reference.rows, strict=True):
        exact = a.model_dump(exclude=set(FLOATS))
        assert exact == b.model_dump(exclude=set(FLOATS)), a.player
        for name in FLOATS:
            x, y = getattr(a, name), getattr(b, name)
            assert (x is None) == (y is None), name
            if x is not None:
                assert x == pytest.approx(y, rel=1e-12, abs=1e-300), name
    return len(fast.rows)


def config(games: int = SPAN, players: tuple[str, ...] = PLAYERS) -> TournamentConfig:
    refs = tuple(PlayerRef(name=p) for p in players)
    return TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=11, games=games, players=refs)


def game(make_result: MakeResult, rng: random.Random, player: str, board: int, clicks: list) -> GameResult:
    outcome = rng.choice([Outcome.WON, Outcome.WON, Outcome.LOST, *FAILURES])
    bbbv = rng.choice([0, 1, 7, 30])
    row, col = rng.choice(clicks)
    return make_result(
        player,
        board,
        outcome,
        moves=rng.randrange(200),
        guesses=rng.randrange(5),
        bbbv=bbbv,
        bbbv_solved=rng.randrange(bbbv + 1),
        first_row=row,
        first_col=col,
        cpu_ms=rng.choice([0.0, rng.uniform(0.01, 50.0)]),
    )


def random_games(make_result: MakeResult, seed: int, players: int, dense: int, sparse: int) -> list[GameResult]:
    """Per player, ``dense`` boards from the start (whole chunks: masks with every bit) and ``sparse`` boards
    anywhere below SPAN; first clicks from a few cells and None, so that counts tie."""
    rng = random.Random(seed)
    results = []
    for player in PLAYERS[:players]:
        clicks = rng.sample([(0, 0), (4, 4), (8, 0), (None, None)], rng.randint(1, 4))
        boards = set(range(dense)) | {rng.randrange(SPAN) for _ in range(sparse)}
        results.extend(game(make_result, rng, player, board, clicks) for board in boards)
    rng.shuffle(results)
    return results


def stored(path: Path, results: list[GameResult], seed: int) -> tuple[Store, str]:
    """A store holding ``results``, saved in random batches, some twice."""
    rng = random.Random(seed)
    store = Store(path)
    cfg = config()
    store.ensure_tournament(cfg, {})
    at = 0
    while at < len(results):
        size = rng.randint(1, 200)
        batch = results[at : at + size]
        assert store.save(cfg.id, batch) == len(batch)
        if rng.random() < 0.2:
            assert store.save(cfg.id, batch) == 0  # a batch delivered twice
        at += size
    return store, cfg.id


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(1, 3),
    dense=st.sampled_from([0, 5, 63, 64, 200]),
    sparse=st.integers(0, 80),
    limits=st.lists(st.integers(1, SPAN), min_size=1, max_size=4),
)
def test_the_leaderboard_by_totals_is_the_leaderboard_of_every_game(
    make_result: MakeResult, seed: int, players: int, dense: int, sparse: int, limits: list[int]
) -> None:
    results = random_games(make_result, seed, players, dense, sparse)
    with tempfile.TemporaryDirectory() as folder:
        store, tid = stored(Path(folder) / "arena.db", results, seed)
        with store:
            compared = 0
            for limit in [*limits, None, BLOCK_BOARDS, BLOCK_BOARDS + 1, CHUNK_BOARDS]:
                fast = build_leaderboard(store, tid, limit)
                reference = build_leaderboard(store, tid, limit, reference=True)
                compared += assert_same(fast, reference)
            # Every player with a game shows, at least on the whole tournament.
            assert compared >= len({r.player for r in results})


@pytest.mark.slow
def test_paired_counts_cover_full_masks_and_partial_blocks(make_result: MakeResult, tmp_path: Path) -> None:
    """Every board of two whole blocks and a partial one: masks with all 63 bits set (the popcount's limit)."""
    rng = random.Random(5)
    boards = 2 * BLOCK_BOARDS + 70
    results = [
        make_result(p, b, Outcome.WON if rng.random() < 0.6 else Outcome.LOST)
        for p in ("alpha", "beta")
        for b in range(boards)
    ]
    store, tid = stored(tmp_path / "arena.db", results, 1)
    with store:
        won = {(r.player, r.board): r.outcome is Outcome.WON for r in results}
        for limit in (boards, BLOCK_BOARDS, 2 * BLOCK_BOARDS + 1, 62, 63, 64):
            counts = pair_counts(store, tid, "alpha", "beta", limit)
            a = [won["alpha", b] for b in range(limit)]
            b = [won["beta", b] for b in range(limit)]
            assert counts.games == limit
            assert counts.both == sum(x and y for x, y in zip(a, b, strict=True))
            assert counts.only_a == sum(x and not y for x, y in zip(a, b, strict=True)) > 0
            assert counts.only_b == sum(y and not x for x, y in zip(a, b, strict=True)) > 0
        assert_same(build_leaderboard(store, tid), build_leaderboard(store, tid, reference=True))


@pytest.mark.slow
def test_a_real_tournament_by_totals_and_by_every_game(tmp_path: Path) -> None:
    cfg = TournamentConfig.build(
        BEGINNER, FirstClick.SAFE, seed=3, games=40, players=(PlayerRef(name="random"), PlayerRef(name="rref"))
    )
    with Store(tmp_path / "arena.db") as store:
        run_tournament(plan_tournament(cfg, store, Registry(), workers=1), store)
        for limit in (None, 1, 17, 40):
            assert (
                assert_same(
                    build_leaderboard(store, cfg.id, limit), build_leaderboard(store, cfg.id, limit, reference=True)
                )
                == 2
            )


def remove_totals(path: Path) -> None:
    """Make ``path`` a store of the version before the totals: without their step, tables and trigger, nor the
    steps after it (player-versions' columns)."""
    step = [m.name for m in MIGRATIONS].index("game-totals")
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("DROP TRIGGER IF EXISTS games_totals")  # the step totals-at-commit dropped it
        db.execute("DROP TABLE game_totals")
        db.execute("DROP TABLE first_clicks")
        for column in ("base", "fingerprint", "seen"):  # the player-versions step's, after game-totals
            db.execute(f"ALTER TABLE players DROP COLUMN {column}")
        db.execute("DELETE FROM migrations WHERE position >= ?", (step,))
        db.execute(f"PRAGMA user_version = {step}")


@pytest.mark.slow
def test_an_older_store_reads_by_every_game_and_gains_the_totals_when_migrated(
    make_result: MakeResult, tmp_path: Path
) -> None:
    path = tmp_path / "arena.db"
    results = random_games(make_result, 7, 3, 100, 60)
    store, tid = stored(path, results, 7)
    with store:
        before = build_leaderboard(store, tid)
        tables = {
            t: store.db.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3").fetchall()
            for t in ("game_totals", "first_clicks")
        }
    remove_totals(path)
    with Store(path, read_only=True) as old:  # read-only: not migrated, read from every game
        assert not old.has_totals()
        assert_same(build_leaderboard(old, tid), before)
        finished = old.finished(tid, ["alpha"], 300)["alpha"]
        assert len(finished) >= 100
        assert old.unfinished(tid, ["alpha"], 300) == (
            {"alpha": [b for b in range(300) if b not in finished]},
            len(finished),
        )
    with Store(path) as migrated:  # the step fills the totals from the stored games
        assert migrated.has_totals()
        for table, rows in tables.items():
            again = migrated.db.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
            assert len(again) == len(rows) > 0
            for x, y in zip(again, rows, strict=True):
                assert x[:3] == y[:3]
                assert tuple(x[3:]) == pytest.approx(tuple(y[3:]), rel=1e-12)
        assert_same(build_leaderboard(migrated, tid), before)
        assert_same(build_leaderboard(migrated, tid), build_leaderboard(migrated, tid, reference=True))


def test_a_store_recovered_from_the_journal_has_its_totals(make_result: MakeResult, tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    results = random_games(make_result, 9, 2, 70, 30)
    store, tid = stored(path, results, 9)
    with store:
        before = build_leaderboard(store, tid)
        with open(path, "r+b") as damaged:  # destroyed in place: only the journal's copy is left
            damaged.write(b"\0" * 4096)
        saved, whole, games = store.recover(tid)
    assert not whole and games == len(results)
    with Store(saved, read_only=True) as recovered:
        assert recovered.has_totals()
        assert_same(build_leaderboard(recovered, tid), before)


@pytest.mark.slow
@given(seed=st.integers(0, 2**32), games=st.integers(1, 400), keep=st.floats(0.0, 1.0))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_pending_work_from_the_masks_is_what_every_game_leaves(
    make_result: MakeResult, seed: int, games: int, keep: float
) -> None:
    rng = random.Random(seed)
    results = [make_result(p, b) for p in ("alpha", "beta") for b in range(450) if rng.random() < keep]
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "arena.db") as store:
        cfg = config(games, ("alpha", "beta", "gamma"))
        store.ensure_tournament(cfg, {})
        store.save(cfg.id, results)
        keys = ["alpha", "beta", "gamma"]
        missing, done = store.unfinished(cfg.id, keys, games)
        finished = store.finished(cfg.id, keys, games)
        assert done == sum(len(f) for f in finished.values())
        for key in keys:
            assert missing[key] == [b for b in range(games) if b not in finished[key]]
        work, skipped = pending_work(cfg, store)
        expected = [BoardWork(b, tuple(k for k in keys if b not in finished[k])) for b in range(games)]
        assert work == tuple(w for w in expected if w.keys) and skipped == done


def test_the_step_counts_what_the_arena_knows() -> None:
    """The released step's literal SQL holds the chunk and block sizes and a column per failure outcome."""
    assert CHUNK_BOARDS == 63 and BLOCK_BOARDS == CHUNK_BOARDS * CLICK_BLOCK_CHUNKS == 4032
    assert "NEW.board / 63" in _TOTALS and "NEW.board % 63" in _TOTALS and "NEW.board / 4032" in _TOTALS
    outcomes = [o.value for o in Outcome if o is not Outcome.WON]
    assert len(outcomes) == 5
    for outcome in outcomes:
        assert f"NEW.outcome = '{outcome}'" in _TOTALS and f"{outcome} = {outcome} + excluded.{outcome}" in _TOTALS
