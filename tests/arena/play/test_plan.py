"""A tournament run as one value: what ``plan_tournament`` decides, and the events ``run_tournament`` tells."""

from __future__ import annotations

import dataclasses
import pickle
import signal
import threading
from pathlib import Path

import pydantic
import pytest
from recorder import Recorder

import arena.play.plan
from arena.config import PlayerRef, TournamentConfig
from arena.play.backends import BackendUnavailable, StopFlag, local
from arena.play.plan import BoardWork, pending_work, plan_tournament, plan_workers
from arena.play.tournament import TournamentInterrupted, TournamentSummary, run_tournament
from arena.play.warmup import STAMP_DIR_ENV
from arena.results.store import Store
from engine import BoardSpec, FirstClick
from players.registry import Registry

SMALL = BoardSpec(6, 6, 5)
PLAYERS = ("random", "mean-constraint")


def make_config(players: tuple[str, ...] = PLAYERS, games: int = 12, seed: int = 4) -> TournamentConfig:
    refs = tuple(PlayerRef(name=n) for n in players)
    return TournamentConfig.build(SMALL, FirstClick.SAFE, seed=seed, games=games, players=refs)


def stored(store: Store, config: TournamentConfig) -> set[tuple[str, int]]:
    return {(g.player, g.board) for g in store.games(config.id)}


@pytest.fixture
def every_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """One worker hands over every batch as it ends (not every few seconds): a run of 16 boards is 8 batches."""
    monkeypatch.setattr(local, "COMMIT_SECONDS", 0.0)


def stop_after_first_batch(games: int) -> None:
    raise KeyboardInterrupt  # what Ctrl-C raises


# -- the plan ------------------------------------------------------------------------------------------------------


def test_a_new_tournament_plans_every_game_and_stores_nothing(tmp_path: Path) -> None:
    config = make_config()
    with Store(tmp_path / "a.db") as store:
        plan = plan_tournament(config, store, Registry(), workers=1)
        assert store.tournaments() == []  # planning writes nothing
    assert (plan.tournament_id, plan.to_play, plan.skipped, plan.boards) == (config.id, 24, 0, 12)
    assert [item.board for item in plan.work] == list(range(12))
    assert {item.keys for item in plan.work} == {PLAYERS}
    assert [(e.base, e.key, e.source) for e in plan.entrants] == [(p, p, "builtin") for p in PLAYERS]
    assert plan.keys == {p: p for p in PLAYERS}
    assert set(plan.sources) == set(plan.fingerprints) == set(PLAYERS)
    assert (plan.workers, plan.backend, plan.address, plan.workers_note, plan.notes) == (1, "local", None, "", ())


@pytest.mark.slow  # a tournament is played
def test_after_a_partial_run_the_plan_holds_exactly_what_is_missing(tmp_path: Path, every_batch: None) -> None:
    config = make_config(games=16)
    every_game = {(p, b) for p in PLAYERS for b in range(16)}
    with Store(tmp_path / "a.db") as store:
        first = plan_tournament(config, store, Registry(), workers=1)
        with pytest.raises(TournamentInterrupted) as stop:
            run_tournament(first, store, Recorder(on_batch=stop_after_first_batch))
        done = stored(store, config)
        rest = plan_tournament(config, store, Registry(), workers=1)
        pending = {(key, item.board) for item in rest.work for key in item.keys}
        assert 0 < len(done) < 32 and stop.value.recorded == len(done)
        assert pending == every_game - done  # nothing played twice, nothing forgotten
        assert (rest.skipped, rest.to_play) == (len(done), 32 - len(done))
        assert [item.board for item in rest.work] == sorted({b for _, b in pending})
        summary = run_tournament(rest, store)
        assert (summary.played, summary.skipped) == (rest.to_play, rest.skipped)
        assert stored(store, config) == every_game
        assert plan_tournament(config, store, Registry(), workers=1).work == ()


@pytest.mark.slow  # a tournament is played
def test_a_player_added_later_plays_only_its_boards(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        run_tournament(plan_tournament(make_config(players=("random",), games=3), store, Registry(), workers=1), store)
        work, skipped = pending_work(make_config(games=4), store)
    assert skipped == 3
    assert work == (
        BoardWork(board=0, keys=("mean-constraint",)),
        BoardWork(board=1, keys=("mean-constraint",)),
        BoardWork(board=2, keys=("mean-constraint",)),
        BoardWork(board=3, keys=("random", "mean-constraint")),
    )


def test_a_plan_is_a_frozen_value_that_pickles(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        plan = plan_tournament(make_config(), store, Registry(), workers=1)
    for change in (
        lambda: setattr(plan, "workers", 2),
        lambda: setattr(plan, "to_play", 0),
        lambda: setattr(plan.entrants[0], "version", "9"),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            change()
    with pytest.raises(pydantic.ValidationError):
        plan.config.games = 3  # type: ignore[misc]
    assert isinstance(plan.work, tuple) and isinstance(plan.entrants, tuple) and isinstance(plan.work[0], tuple)
    plan.keys["random"] = "changed"  # a copy each time: the plan is not changed through it
    assert plan.keys["random"] == "random"
    # Plain data: made in one process, it can be played in another.
    copy = pickle.loads(pickle.dumps(plan))
    assert copy == plan and copy is not plan and copy.to_play == 24


def test_a_plan_names_its_work_and_its_workers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(arena.play.plan, "default_workers", lambda: 2)
    with Store(tmp_path / "a.db") as store:
        plan = plan_tournament(make_config(games=1), store, Registry(), workers=4)
    item = plan.work[0]
    assert (item.board, item.keys) == (0, PLAYERS)
    assert (plan.workers, plan.workers_note) == (1, "--workers 4 capped at 1: only 1 board to play")
    workers = plan_workers(4, 10)
    assert (workers.count, workers.note) == (2, "--workers 4 capped at 2: this machine has 2 cores")


def test_order_plays_the_boards_in_that_order(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        plan = plan_tournament(make_config(games=4), store, Registry(), workers=1, order=[2, 0, 3, 1])
        assert [item.board for item in plan.work] == [2, 0, 3, 1]
        with pytest.raises(ValueError, match="pending board"):
            plan_tournament(make_config(games=4), store, Registry(), workers=1, order=[2, 0, 3])


@pytest.mark.parametrize(
    "requested,boards,expected",
    [
        (None, 24, (2, "")),  # the default: one per core, nothing to say
        (None, 1, (1, "")),
        (2, 24, (2, "")),
        (500, 24, (2, "--workers 500 capped at 2: this machine has 2 cores")),
        (500, 2, (2, "--workers 500 capped at 2: this machine has 2 cores")),
        (2, 1, (1, "--workers 2 capped at 1: only 1 board to play")),
        (500, 0, (1, "")),  # nothing to play: no pool, no note
    ],
)
def test_plan_workers_caps_at_cores_and_pending_boards(
    monkeypatch: pytest.MonkeyPatch, requested: int | None, boards: int, expected: tuple[int, str]
) -> None:
    monkeypatch.setattr(arena.play.plan, "default_workers", lambda: 2)
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    assert plan_workers(requested, boards) == expected
    assert plan_workers(requested, boards, "dask") == expected  # a LocalCluster runs on this machine too


def test_plan_workers_leaves_a_remote_cluster_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena.play.plan, "default_workers", lambda: 2)
    assert plan_workers(500, 24, "dask", "tcp://scheduler:8786") == (500, "")
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://scheduler:8786")
    assert plan_workers(500, 24, "dask") == (500, "")


# -- the events of a run ---------------------------------------------------------------------------------------------


@pytest.mark.slow  # a tournament is played
def test_a_run_tells_its_events_in_order(tmp_path: Path, every_batch: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STAMP_DIR_ENV, str(tmp_path / "stamps"))  # no player known compiled: the compile step runs
    with Store(tmp_path / "a.db") as store:
        plan = dataclasses.replace(plan_tournament(make_config(games=16), store, Registry(), workers=1), notes=("hi",))
        events = Recorder()
        summary = run_tournament(plan, store, events)
    compiled = [event.kind for name, event in events.events if name == "compiling"]
    assert compiled[0] == "begin" and compiled[-1] == "end" and compiled.count("done") == 2
    assert events.names == ["started", "note", *["compiling"] * len(compiled), *["batch_done"] * 8, "finished"]
    assert events.events[0][1] is plan and events.notes == ["hi"]
    assert events.batches == [4] * 8  # two boards a batch, two players a board
    assert events.events[-1][1] == summary == TournamentSummary(plan.tournament_id, 32, 0, 1, "local", plan.keys)


@pytest.mark.slow  # a tournament is played
def test_a_run_with_nothing_to_play_starts_and_finishes(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        run_tournament(plan_tournament(make_config(games=2), store, Registry(), workers=1), store)
        events = Recorder()
        summary = run_tournament(plan_tournament(make_config(games=2), store, Registry(), workers=1), store, events)
    assert events.names == ["started", "finished"] and (summary.played, summary.skipped) == (0, 4)


@pytest.mark.slow  # a tournament is played
def test_an_interrupted_run_tells_what_it_committed(tmp_path: Path, every_batch: None) -> None:
    with Store(tmp_path / "a.db") as store:
        plan = plan_tournament(make_config(games=16), store, Registry(), workers=1)
        events = Recorder(on_batch=stop_after_first_batch)
        with pytest.raises(TournamentInterrupted) as stop:
            run_tournament(plan, store, events)
    names = [name for name in events.names if name != "compiling"]
    assert names == ["started", "batch_done", "interrupted"]
    assert events.events[-1][1] == (stop.value.recorded, signal.SIGINT) and stop.value.recorded >= 4


def test_a_run_that_cannot_start_tells_why(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        plan = plan_tournament(make_config(), store, Registry(), workers=1, backend="nowhere")
        events = Recorder()
        with pytest.raises(BackendUnavailable, match="unknown backend 'nowhere'") as error:
            run_tournament(plan, store, events)
        assert store.tournaments() == []  # it failed before anything was stored
    assert events.names == ["started", "failed"] and events.events[-1][1] is error.value


@pytest.mark.slow  # a tournament is played
def test_a_plan_made_here_runs_in_another_thread_stops_on_its_flag_and_resumes(
    tmp_path: Path, every_batch: None
) -> None:
    """What a host does: plan, then play in a background thread with its own connection to the store, stopped
    by a flag (signals reach only the main thread); the next plan resumes where it stopped."""
    config, path = make_config(games=16), tmp_path / "a.db"
    with Store(path) as store:
        plan = plan_tournament(config, store, Registry(), workers=1)
    stop = StopFlag()
    ended: list[BaseException] = []

    def play() -> None:
        with Store(path) as own:
            try:
                run_tournament(plan, own, Recorder(on_batch=lambda games: stop.set()), stop=stop)
            except BaseException as error:
                ended.append(error)

    thread = threading.Thread(target=play)
    thread.start()
    thread.join()
    assert len(ended) == 1 and isinstance(ended[0], TournamentInterrupted)
    recorded = ended[0].recorded
    with Store(path) as store:
        assert 0 < recorded < 32 and len(stored(store, config)) == recorded
        rest = plan_tournament(config, store, Registry(), workers=1)
        assert (rest.skipped, rest.to_play) == (recorded, 32 - recorded)
        assert run_tournament(rest, store).played == 32 - recorded
        assert len(stored(store, config)) == 32
