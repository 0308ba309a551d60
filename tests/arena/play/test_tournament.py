"""Tournaments: every player on every board, resumable, extendable, and the same for any number of workers."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from boards import draw_layout
from recorder import Recorder

import arena.play.plan
from arena.config import PlayerRef, TournamentConfig
from arena.limits import Isolation
from arena.outcome import GameResult, Outcome
from arena.play.tournament import TournamentInterrupted, plan_tournament, run_tournament
from arena.results.store import Store
from engine import BEGINNER, BoardSpec, FirstClick
from players.api import PlayerOptionsError
from players.registry import Registry, UnknownPlayerError

SMALL = BoardSpec(6, 6, 5)
TIMINGS = ("cpu_ms", "wall_ms")


def make_config(
    players: tuple[str, ...] = ("random", "mean-constraint"),
    *,
    games: int = 12,
    seed: int = 4,
    spec: BoardSpec = SMALL,
    rule: FirstClick = FirstClick.SAFE,
) -> TournamentConfig:
    refs = tuple(PlayerRef(name=n) for n in players)
    return TournamentConfig.build(spec, rule, seed=seed, games=games, players=refs)


def deterministic(games: list[GameResult]) -> list[GameResult]:
    """The games with their timings, the only figures that vary between runs, zeroed."""
    return [dataclasses.replace(g, **dict.fromkeys(TIMINGS, 0.0)) for g in games]


def count(store: Store, tournament_id: str) -> int:
    return store.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ?", (tournament_id,)).fetchone()[0]


def play(path: Path, config: TournamentConfig, registry: Registry | None = None, workers: int = 1):
    with Store(path) as store:
        summary = run_tournament(plan_tournament(config, store, registry or Registry(), workers=workers), store)
        return summary, store.games(config.id)


# -- the tournament as a value ------------------------------------------------------------------------------------


def test_id_depends_on_the_boards_only() -> None:
    base = make_config()
    assert base.id == make_config(players=("random",), games=500).id
    assert len(base.id) == 16
    others = [
        make_config(seed=5),
        make_config(rule=FirstClick.OPENING),
        make_config(spec=BoardSpec(6, 7, 5)),
        make_config(spec=BoardSpec(7, 6, 5)),
        make_config(spec=BoardSpec(6, 6, 6)),
    ]
    assert len({base.id, *(c.id for c in others)}) == 1 + len(others)


def test_player_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="player listed twice: random"):
        make_config(players=("random", "random"))


# -- playing ------------------------------------------------------------------------------------------------------


def test_every_player_plays_every_board_once(tmp_path: Path) -> None:
    config = make_config(games=10)
    events = Recorder()
    with Store(tmp_path / "a.db") as store:
        summary = run_tournament(plan_tournament(config, store, Registry(), workers=1), store, events)
        rows = store.games(config.id)
        assert count(store, config.id) == 20
        assert store.tournament(config.id).boards == 10
        assert {p.key for p in store.players(config.id)} == {"random", "mean-constraint"}
    assert (summary.tournament_id, summary.played, summary.skipped, summary.workers) == (config.id, 20, 0, 1)
    assert sum(events.batches) == 20
    assert sorted((r.player, r.board) for r in rows) == sorted(
        (p, b) for p in ("random", "mean-constraint") for b in range(10)
    )
    assert {r.outcome for r in rows} <= {Outcome.WON, Outcome.LOST}


@pytest.mark.parametrize(("seconds", "commits"), [(0.0, 10), (3600.0, 1)])
def test_one_worker_commits_every_batch_or_every_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: float, commits: int
) -> None:
    """With one worker, finished games are handed over every COMMIT_SECONDS (at a batch's end): every batch at 0,
    once at the end when the run is shorter; either way every game is stored once."""
    from arena.play.backends import local

    monkeypatch.setattr(local, "COMMIT_SECONDS", seconds)
    config = make_config(games=10)  # batches of one board: 10 // 8 boards
    events = Recorder()
    with Store(tmp_path / "a.db") as store:
        run_tournament(plan_tournament(config, store, Registry(), workers=1), store, events)
        assert count(store, config.id) == 20
    assert len(events.batches) == commits and sum(events.batches) == 20


def test_rerun_replays_nothing(tmp_path: Path) -> None:
    config = make_config(games=8)
    _, first = play(tmp_path / "a.db", config)
    summary, second = play(tmp_path / "a.db", config)
    assert (summary.played, summary.skipped) == (0, 16)
    assert second == first  # timings included: nothing was replayed


@pytest.mark.slow
def test_interrupted_tournament_keeps_finished_games_and_resumes(
    tmp_path: Path, interrupter_plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = make_config(players=("interrupter", "random"), games=40, seed=8)
    # Trusted: only a player inside the arena's process can press Ctrl-C for it (isolated, it is its own error).
    config = config.model_copy(update={"isolation": Isolation.TRUSTED})
    registry = Registry([interrupter_plugin])
    path = tmp_path / "interrupted.db"
    monkeypatch.setenv("ARENA_TEST_INTERRUPT", "8:22")
    with Store(path) as store, pytest.raises(TournamentInterrupted) as stop:
        run_tournament(plan_tournament(config, store, registry, workers=1), store)
    with Store(path, create=False) as store:
        kept = store.games(config.id)
    assert 0 < len(kept) < 80
    assert stop.value.recorded == len(kept)
    assert "interrupted after committing" in str(stop.value)
    # What was kept are whole boards played before the interrupted one, for both players.
    boards = sorted({r.board for r in kept})
    assert boards == list(range(len(boards)))
    assert max(boards) < 22
    assert len(kept) == 2 * len(boards)

    monkeypatch.delenv("ARENA_TEST_INTERRUPT")
    with Store(path) as store:
        summary = run_tournament(plan_tournament(config, store, registry, workers=1), store)
        resumed = store.games(config.id)
        assert count(store, config.id) == 80
    assert (summary.played, summary.skipped) == (80 - len(kept), len(kept))
    stored = {(r.player, r.board): r for r in resumed}
    assert all(stored[(r.player, r.board)] == r for r in kept)  # finished games were not replayed

    _, uninterrupted = play(tmp_path / "straight.db", config, Registry([interrupter_plugin]))
    assert deterministic(resumed) == deterministic(uninterrupted)


def test_more_games_play_only_the_new_boards(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    _, before = play(path, make_config(games=6))
    summary, after = play(path, make_config(games=10))
    assert (summary.played, summary.skipped) == (8, 12)
    assert len(after) == 20
    old = {(r.player, r.board): r for r in after if r.board < 6}
    assert old == {(r.player, r.board): r for r in before}
    with Store(path, create=False) as store:
        assert store.tournament(make_config().id).boards == 10
        # Fewer games than stored: nothing to play, nothing lost.
        summary = run_tournament(plan_tournament(make_config(games=3), store, Registry(), workers=1), store)
        assert (summary.played, summary.skipped) == (0, 6)
        assert count(store, make_config().id) == 20
    _, fresh = play(tmp_path / "fresh.db", make_config(games=10))
    assert deterministic(after) == deterministic(fresh)


def test_new_player_plays_only_its_own_games(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    _, before = play(path, make_config(players=("random",), games=8))
    summary, after = play(path, make_config(players=("random", "max-single-constraint"), games=8))
    assert (summary.played, summary.skipped) == (8, 8)
    assert [r for r in after if r.player == "random"] == before
    assert sorted(r.board for r in after if r.player == "max-single-constraint") == list(range(8))
    with Store(path, create=False) as store:
        assert {p.key for p in store.players(make_config().id)} == {"random", "max-single-constraint"}


def test_unknown_player_or_bad_option_fails_before_anything_is_stored(tmp_path: Path) -> None:
    bad_option = TournamentConfig.build(
        SMALL, FirstClick.SAFE, games=2, players=(PlayerRef(name="random", options={"nope": 1}),)
    )
    with Store(tmp_path / "a.db") as store:
        with pytest.raises(UnknownPlayerError, match="unknown player 'nobody'"):
            run_tournament(
                plan_tournament(make_config(players=("random", "nobody")), store, Registry(), workers=1), store
            )
        with pytest.raises(PlayerOptionsError, match="nope"):
            run_tournament(plan_tournament(bad_option, store, Registry(), workers=1), store)
        assert store.tournaments() == []


def test_player_options_change_the_leaderboard_identity(tmp_path: Path) -> None:
    refs = (PlayerRef(name="random"), PlayerRef(name="random", options={"random_first_click": True}))
    config = TournamentConfig.build(SMALL, FirstClick.SAFE, seed=2, games=6, players=refs)
    _, rows = play(tmp_path / "a.db", config)
    keys = {r.player for r in rows}
    assert keys == {"random", "random[random_first_click=true]"}
    corner = [(r.first_row, r.first_col) for r in rows if r.player == "random"]
    anywhere = [(r.first_row, r.first_col) for r in rows if r.player != "random"]
    assert set(corner) == {(0, 0)}
    assert set(anywhere) != {(0, 0)}


# -- determinism --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_one_and_two_workers_give_identical_games(tmp_path: Path) -> None:
    config = make_config(players=("random", "mean-constraint", "max-single-constraint"), games=60, seed=21)
    one_summary, one = play(tmp_path / "one.db", config, workers=1)
    two_summary, two = play(tmp_path / "two.db", config, workers=2)
    assert (one_summary.workers, two_summary.workers) == (1, 2)
    assert one_summary.played == two_summary.played == 180
    assert len(one) == len(two) == 180
    assert deterministic(one) == deterministic(two)
    assert len({r.outcome for r in one}) > 1  # a meaningful comparison: some won, some lost


def test_same_seed_same_games_different_seed_different_boards(tmp_path: Path) -> None:
    _, first = play(tmp_path / "a.db", make_config(seed=1, games=10))
    _, again = play(tmp_path / "b.db", make_config(seed=1, games=10))
    _, other = play(tmp_path / "c.db", make_config(seed=2, games=10))
    assert deterministic(first) == deterministic(again)
    assert deterministic(first) != deterministic(other)
    click = (0, 0)
    one = [draw_layout(BEGINNER, FirstClick.SAFE, 1, i, click) for i in range(5)]
    two = [draw_layout(BEGINNER, FirstClick.SAFE, 2, i, click) for i in range(5)]
    assert all(not np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    assert all(not np.array_equal(one[0], b) for b in one[1:])  # boards within a tournament differ too


def test_run_tournament_starts_no_more_workers_than_cores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena.play.plan, "default_workers", lambda: 1)
    summary, rows = play(tmp_path / "a.db", make_config(("random",), games=3), workers=500)
    assert summary.workers == 1
    assert len(rows) == 3
