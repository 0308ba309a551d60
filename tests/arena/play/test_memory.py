"""A worker gives back the pages it no longer uses (``arena.play.memory``) and plays exactly the same games.

Behaviour, not timing: what is checked is that the pages dropped are only clean read-only file pages (code that
runs again afterwards still works, data written before is intact) and that a pool tournament, whose workers
drop them after importing and after each kernel load, stores the same games as one played in this process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.config import PlayerRef, TournamentConfig
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import BEGINNER, FirstClick
from players.registry import Registry

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/smaps and madvise: Linux only")

#: In a fresh interpreter: import numba and numpy, compile a kernel, drop the clean pages, then use all of it again.
PROBE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from numba import njit
    from arena.play import memory

    @njit
    def total(a):
        s = 0.0
        for x in a:
            s += x
        return s

    data = np.arange(1000, dtype=np.float64)
    before = total(data)
    rss = memory.resident_kb()
    memory.release_unused()
    mappings = len(memory._known)
    released = rss - memory.resident_kb()
    memory.release_during_loads()
    memory.release_during_loads()  # twice: wraps numba's cache loading once
    from numba.core import caching
    wrapped = caching.Cache.load_overload.releases_pages

    @njit
    def twice(a):
        return 2.0 * total(a)

    after = (total(data), twice(data), float(np.linalg.norm(data[:3])), sorted({"b": 1, "a": 2}))
    print(json.dumps({"before": before, "after": after, "mappings": mappings, "released": released,
                      "wrapped": wrapped}))
    """
)


@pytest.mark.slow
@linux
def test_dropping_clean_pages_keeps_code_and_data_working() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = __import__("json").loads(done.stdout)
    assert out["before"] == 499500.0
    assert out["after"] == [499500.0, 999000.0, pytest.approx(2.2360679775), ["a", "b"]]
    # numba's LLVM, numpy's and Python's libraries: dozens of clean read-only file mappings, megabytes given back.
    assert out["mappings"] >= 10
    assert out["released"] > 1024
    assert out["wrapped"] is True


def test_release_unused_in_this_process_returns_a_size_and_changes_nothing_seen() -> None:
    from arena.play import memory

    values = list(range(1000))
    released = memory.release_unused()
    assert released >= 0
    assert values == list(range(1000))


def _games(store: Store, tournament_id: str) -> list[tuple[object, ...]]:
    return [
        (g.player, g.board, g.outcome, g.moves, g.reveals, g.flags, g.guesses, g.bbbv_solved, g.first_row, g.first_col)
        for g in store.games(tournament_id)
    ]


@pytest.mark.slow
@linux
def test_a_pool_tournament_whose_workers_release_pages_plays_the_same_games(tmp_path: Path) -> None:
    players = tuple(PlayerRef(name=name) for name in ("enumeration", "random"))
    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=5, games=24, players=players)
    results = {}
    for workers in (1, 2):  # one worker plays in this process (no release); two are a pool (releasing)
        with Store(tmp_path / f"{workers}.db") as store:
            run_tournament(plan_tournament(config, store, Registry(entry_points=False), workers=workers), store)
            results[workers] = _games(store, config.id)
    assert len(results[1]) == 48
    assert results[2] == results[1]
