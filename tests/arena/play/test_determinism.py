"""Nothing different: every game (all but the timings) is byte-identical whoever plays it and in whatever order.

One worker in this process, a pool of two, a Dask LocalCluster, boards played in reversed or shuffled order,
with the global random state disturbed in between: the same serialised rows, hash for hash.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult
from arena.play.backends.dask_cluster import dask_available
from arena.play.tournament import TournamentSummary, plan_tournament, run_tournament
from arena.results.store import Store
from engine import BEGINNER, FirstClick
from players.registry import Registry

TIMINGS = ("cpu_ms", "wall_ms")
GAMES = 48
PLAYERS = ("random", "mean-constraint", "rref", "enumeration")


def config() -> TournamentConfig:
    refs = tuple(PlayerRef(name=name) for name in PLAYERS)
    return TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=77, games=GAMES, players=refs)


def serialised(rows: list[GameResult]) -> bytes:
    """The games' columns without their timings, as bytes: what "byte-identical" compares."""
    games = [{k: v for k, v in game.as_row().items() if k not in TIMINGS} for game in rows]
    return json.dumps(games, sort_keys=True).encode()


def play(path: Path, *, order: Sequence[int] | None = None, **kwargs: object) -> tuple[TournamentSummary, bytes]:
    # Disturb every global random state a player could (wrongly) read: it must not matter.
    random.seed(len(str(path)))
    np.random.seed(len(str(path)) % 2**32)
    with Store(path) as store:
        plan = plan_tournament(config(), store, Registry(), order=order, **kwargs)  # type: ignore[arg-type]
        summary = run_tournament(plan, store)
        rows = store.games(config().id)
    assert len(rows) == GAMES * len(PLAYERS)
    return summary, serialised(rows)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    summary, data = play(tmp_path_factory.mktemp("one") / "one.db", workers=1)
    assert summary.workers == 1
    outcomes = {game["outcome"] for game in json.loads(data)}
    assert outcomes >= {"won", "lost"}  # a meaningful comparison
    return data


@pytest.mark.slow
def test_two_workers_play_the_same_games(tmp_path: Path, reference: bytes) -> None:
    summary, data = play(tmp_path / "two.db", workers=2)
    assert (summary.workers, summary.backend) == (2, "local")
    assert hashlib.sha256(data).hexdigest() == hashlib.sha256(reference).hexdigest()


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("how", ["reversed", "shuffled"])
def test_any_order_of_play_gives_the_same_games(tmp_path: Path, reference: bytes, how: str, workers: int) -> None:
    boards = list(range(GAMES))
    if how == "reversed":
        boards.reverse()
    else:
        random.Random(5).shuffle(boards)
    _, data = play(tmp_path / "ordered.db", order=boards, workers=workers)
    assert data == reference


def test_order_must_list_every_pending_board(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store, pytest.raises(ValueError, match="pending board"):
        run_tournament(plan_tournament(config(), store, Registry(), workers=1, order=range(GAMES - 1)), store)


@pytest.mark.slow
def test_resuming_with_another_backend_changes_nothing(tmp_path: Path, reference: bytes) -> None:
    half = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=77, games=GAMES // 2, players=config().players)
    with Store(tmp_path / "mixed.db") as store:
        run_tournament(plan_tournament(half, store, Registry(), workers=2, order=range(GAMES // 2 - 1, -1, -1)), store)
    _, data = play(tmp_path / "mixed.db", workers=1)
    assert data == reference


@pytest.mark.slow
@pytest.mark.skipif(not dask_available(), reason="dask is not installed: pip install -e '.[dask]'")
def test_a_dask_local_cluster_plays_the_same_games(tmp_path: Path, reference: bytes) -> None:
    boards = list(range(GAMES))
    random.Random(9).shuffle(boards)
    summary, data = play(tmp_path / "dask.db", backend="dask", workers=2, order=boards)
    assert (summary.workers, summary.backend) == (2, "dask")
    assert data == reference
