"""The running totals added at commit (arena.results.running) held to the trigger that kept them before, to the bit.

The reference is the released ``game-totals`` step's trigger itself: a database with the schema history up to the
step ``totals-at-commit`` (the trigger on the games table), fed the same rows in the same commits with the
statement ``Store.save`` used before. Random stores (several tournaments, players and versions, outcomes, first
clicks, floats whose sums round differently in another order; commits delivered twice, boards repeated within a
commit) must leave ``game_totals`` and ``first_clicks`` equal value by value and bit by bit, across commits and
across reopening the store (a resume), and a store made with the trigger and migrated must go on as the trigger
would have.
"""

from __future__ import annotations

import contextlib
import random
import re
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from repo import ROOT

from arena.analysis.leaderboard import build_leaderboard
from arena.config import PlayerRef, TournamentConfig
from arena.outcome import FAILURES, GameResult, Outcome
from arena.results.migrations import MIGRATIONS, migrate
from arena.results.store import Store, StoreError, _layout, game_rows
from arena.results.totals import BLOCK_BOARDS
from engine import BEGINNER, FirstClick

MakeResult = Callable[..., GameResult]
#: Players as the store keys them: plain, and other versions of them (``KEY@VERSION``, arena.results.entrants).
KEYS = ("alpha", "beta", "alpha@2", "beta@1.0.1")
#: The schema as the trigger kept the totals: every step before ``totals-at-commit``.
TRIGGER_STEPS = MIGRATIONS[: [m.name for m in MIGRATIONS].index("totals-at-commit")]
TABLES = ("game_totals", "first_clicks")


def config(seed: int, games: int = 3 * BLOCK_BOARDS) -> TournamentConfig:
    refs = tuple(PlayerRef(name=name) for name in ("alpha", "beta"))
    return TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=seed, games=games, players=refs)


def trigger_store(path: Path) -> sqlite3.Connection:
    """A store whose totals the trigger keeps (the reference), without a tournament row: the totals need none."""
    db = sqlite3.connect(path, isolation_level=None)
    with db:
        db.execute("BEGIN")
        migrate(db, [], TRIGGER_STEPS)
    assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'").fetchone()[0] == 1
    return db


def trigger_save(db: sqlite3.Connection, tournament_id: str, results: list[GameResult]) -> int:
    """One commit as ``Store.save`` made it before: every row through ``INSERT OR IGNORE``, the trigger adding."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        return db.executemany(_layout(GameResult)[1], game_rows(GameResult, tournament_id, results, "t")).rowcount


def tables(db: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    """Both totals tables, every value with its type and every float as its bits (``float.hex``)."""
    return {
        table: [
            tuple((type(v).__name__, v.hex() if isinstance(v, float) else v) for v in row)
            for row in db.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3, 4, 5")
        ]
        for table in TABLES
    }


def game(make_result: MakeResult, rng: random.Random, player: str, board: int) -> GameResult:
    outcome = rng.choice([Outcome.WON, Outcome.WON, Outcome.LOST, *FAILURES])
    bbbv = rng.choice([0, 1, 3, 7, 30])
    row, col = rng.choice([(0, 0), (4, 4), (8, 0), (None, None)])
    # Magnitudes far apart and full precision: sums that round differently in any other order.
    cpu = rng.choice([0.0, rng.uniform(0.0, 0.1), rng.uniform(0.0, 1e6), round(rng.uniform(0.0, 5.0), 4)])
    return make_result(
        player,
        board,
        outcome,
        moves=rng.randrange(300),
        guesses=rng.randrange(6),
        bbbv=bbbv,
        bbbv_solved=rng.randrange(bbbv + 1),
        first_row=row,
        first_col=col,
        cpu_ms=cpu,
    )


def commits(make_result: MakeResult, seed: int, players: int, games: int) -> list[tuple[int, list[GameResult]]]:
    """Commits of random games, each to one of two tournaments (0 or 1): boards anywhere below three click blocks
    and runs of consecutive ones, some commits delivered twice, some boards twice within a commit."""
    rng = random.Random(seed)
    out: list[tuple[int, list[GameResult]]] = []
    made = 0
    while made < games:
        batch = []
        player = rng.choice(KEYS[:players])
        start = rng.randrange(3 * BLOCK_BOARDS)
        for i in range(rng.randint(1, 150)):
            who = player if rng.random() < 0.8 else rng.choice(KEYS[:players])
            board = start + i if rng.random() < 0.7 else rng.randrange(3 * BLOCK_BOARDS)
            batch.append(game(make_result, rng, who, board))
            if rng.random() < 0.05:
                batch.append(game(make_result, rng, who, board))  # the same board again: the first counts
        tournament = rng.randrange(2)
        out.append((tournament, batch))
        if rng.random() < 0.15:
            out.append((tournament, list(batch)))  # delivered twice
        made += len(batch)
    return out


def play_both(
    store: Store, reference: sqlite3.Connection, ids: list[str], commits: list[tuple[int, list[GameResult]]]
) -> int:
    """The same commits to the store and to the reference; returns how many games were new (both agree)."""
    added = 0
    for tournament, batch in commits:
        new = store.save(ids[tournament], batch)
        assert new == trigger_save(reference, ids[tournament], batch)
        added += new
    return added


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(1, len(KEYS)),
    games=st.integers(1, 1500),
    reopen=st.integers(0, 4),
)
def test_the_totals_added_at_commit_are_the_triggers_to_the_bit(
    make_result: MakeResult, seed: int, players: int, games: int, reopen: int
) -> None:
    """Across commits, tournaments, players and versions, and a store closed and opened again (a resume) after
    ``reopen`` commits of every five."""
    todo = commits(make_result, seed, players, games)
    ids = [config(seed).id, config(seed + 1).id]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "arena.db"
        with contextlib.closing(trigger_store(Path(folder) / "reference.db")) as reference:
            added = 0
            for start in range(0, len(todo), 5):
                with Store(path) as store:  # a new process resuming the store, as a rerun would
                    added += play_both(store, reference, ids, todo[start : start + reopen])
                with Store(path) as store:
                    added += play_both(store, reference, ids, todo[start + reopen : start + 5])
            with Store(path, read_only=True) as store:
                assert tables(store.db) == tables(reference)
                stored = store.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                assert stored == added == reference.execute("SELECT COUNT(*) FROM games").fetchone()[0] > 0
                assert store.db.execute("SELECT SUM(games) FROM game_totals").fetchone()[0] == stored


@pytest.mark.slow
def test_a_store_made_with_the_trigger_migrates_and_goes_on_as_the_trigger_would(
    make_result: MakeResult, tmp_path: Path
) -> None:
    """A store of the version before: its trigger goes with the step, its totals stay, and the next commits add to
    them as the trigger would have; that version refuses the migrated store."""
    todo = commits(make_result, 3, 4, 3000)
    ids = [config(3).id, config(4).id]
    old, reference = tmp_path / "old.db", tmp_path / "reference.db"
    half = len(todo) // 2
    with contextlib.closing(trigger_store(old)) as db, contextlib.closing(trigger_store(reference)) as ref:
        for tournament, batch in todo[:half]:
            assert trigger_save(db, ids[tournament], batch) == trigger_save(ref, ids[tournament], batch)
    with Store(old) as store, contextlib.closing(sqlite3.connect(reference, isolation_level=None)) as ref:
        assert store.db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall() == []
        steps = [row[0] for row in store.db.execute("SELECT name FROM migrations ORDER BY position")]
        assert steps == [m.name for m in MIGRATIONS] and "totals-at-commit" in steps
        assert tables(store.db) == tables(ref)  # the step leaves the totals as they were
        assert play_both(store, ref, ids, todo[half:]) > 0
        assert tables(store.db) == tables(ref)

    class TriggerVersion(Store):
        migrations = TRIGGER_STEPS

    for read_only in (False, True):
        with pytest.raises(StoreError, match="'totals-at-commit' is unknown here"):
            TriggerVersion(old, read_only=read_only)


def test_totals_that_lost_a_game_are_made_again_from_the_games(make_result: MakeResult, tmp_path: Path) -> None:
    """A store whose totals miss games it holds (never made by the arena's writers): the commit that meets one
    makes the totals of the blocks it touches again, and the leaderboard is again the one of every game."""
    rng = random.Random(2)
    cfg = config(5)
    with Store(tmp_path / "arena.db") as store:
        store.ensure_tournament(cfg, {})
        store.save(cfg.id, [game(make_result, rng, p, b) for p in ("alpha", "beta") for b in range(300)])
        store.db.execute("DELETE FROM game_totals WHERE player = 'alpha' AND chunk = 1")
        assert store.save(cfg.id, [game(make_result, rng, "alpha", b) for b in range(60, 70)]) == 0
        assert store.save(cfg.id, [game(make_result, rng, "alpha", b) for b in (5, 300, 301)]) == 2
        rows = store.db.execute("SELECT SUM(games), SUM(wins) FROM game_totals WHERE player = 'alpha'").fetchone()
        games = store.games(cfg.id)
        alpha = [g for g in games if g.player == "alpha"]
        assert tuple(rows) == (302, sum(g.won for g in alpha)) and len(games) == 602
        fast, reference = build_leaderboard(store, cfg.id), build_leaderboard(store, cfg.id, reference=True)
        assert fast.rows[0].games == reference.rows[0].games == 302
        floats = {"ms_per_game", "bbbv_solved_fraction", "bbbv_per_second"}
        for a, b in zip(fast.rows, reference.rows, strict=True):
            assert a.model_dump(exclude=floats) == b.model_dump(exclude=floats)
            assert [getattr(a, f) for f in sorted(floats)] == pytest.approx([getattr(b, f) for f in sorted(floats)])
        assert store.unfinished(cfg.id, ["alpha"], 310) == ({"alpha": [*range(302, 310)]}, 302)


def test_every_writer_of_games_rows_goes_through_the_store() -> None:
    """The arena's only statement that inserts games rows is the store's (whose ``_insert`` adds the totals);
    a store made new has no trigger left."""
    root = ROOT / "arena"
    writers = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if re.search(r"INTO\s+games\b", path.read_text(encoding="utf-8"), re.IGNORECASE)
    ]
    assert writers == ["results/store.py"]
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "arena.db") as store:
        assert store.db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'").fetchone()[0] == 0
