"""The Dask backend against a real LocalCluster: same games, streamed results, plugins, a lost worker.

Skipped (with the reason) only where dask is not installed; CI installs it through the ``test`` extra.
The one-line error for a missing dask is tested everywhere, by hiding the module.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from recorder import Recorder

from arena.config import PlayerRef, TournamentConfig
from arena.limits import Isolation
from arena.outcome import GameResult
from arena.play.backends import BackendUnavailable, make_backend
from arena.play.backends.dask_cluster import ADDRESS_ENV, INSTALL_HINT, DaskBackend, dask_available
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import BEGINNER, FirstClick
from players.registry import Registry

needs_dask = pytest.mark.skipif(not dask_available(), reason="dask is not installed: pip install -e '.[dask]'")
TIMINGS = ("cpu_ms", "wall_ms")

PLUGIN = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class Plugged(RandomPlayer):
    name = "plugged"
    description = "random, loaded from a plugin file on every Dask worker"


@hookimpl
def register_players(register):
    register(Plugged)
"""


def make_config(players: tuple[str, ...] = ("random", "mean-constraint"), games: int = 40, **fields: Any):
    refs = tuple(PlayerRef(name=name) for name in players)
    return TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=11, games=games, players=refs, **fields)


def games(path: Path, config: TournamentConfig) -> list[GameResult]:
    """The stored games with their timings, the only figures that vary between runs, zeroed."""
    with Store(path, create=False) as store:
        rows = store.games(config.id)
    return [dataclasses.replace(g, **dict.fromkeys(TIMINGS, 0.0)) for g in rows]


def local(path: Path, config: TournamentConfig, registry: Registry | None = None) -> list[GameResult]:
    with Store(path) as store:
        run_tournament(plan_tournament(config, store, registry or Registry(), workers=1), store)
    return games(path, config)


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskBackend]:
    """A LocalCluster of 2 single-threaded worker processes, shared by this module's tests."""
    if not dask_available():
        pytest.skip("dask is not installed: pip install -e '.[dask]'")
    backend = DaskBackend(workers=2)
    backend.start()
    yield backend
    backend.close()


# -- without dask -------------------------------------------------------------------------------------------------


def test_without_dask_the_backend_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cli: Callable[..., Any]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    assert not dask_available()
    with pytest.raises(BackendUnavailable, match=r"minesweeper-arena\[dask\]"):
        make_backend("dask")
    store = tmp_path / "a.db"
    result = cli("tournament", "-n", "3", "-p", "random", "--backend", "dask", "--store", store)
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {INSTALL_HINT}"
    assert not store.exists()  # refused before anything was stored


def test_backend_and_address_are_checked(cli: Callable[..., Any], tmp_path: Path) -> None:
    result = cli("tournament", "-n", "3", "--backend", "spark", "--store", tmp_path / "a.db")
    assert result.exit_code == 2
    assert "--backend must be local or dask" in result.stderr
    result = cli("tournament", "-n", "3", "--address", "tcp://127.0.0.1:1", "--store", tmp_path / "a.db")
    assert result.exit_code == 2
    assert "--address needs --backend dask" in result.stderr


@needs_dask
def test_address_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ADDRESS_ENV, "tcp://scheduler.example:8786")
    assert DaskBackend().address == "tcp://scheduler.example:8786"
    assert DaskBackend("tcp://other:8786").address == "tcp://other:8786"
    monkeypatch.delenv(ADDRESS_ENV)
    assert DaskBackend().address is None  # a LocalCluster


@needs_dask
def test_an_unreachable_scheduler_is_a_one_line_error(
    cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.play.backends.dask_cluster.CONNECT_TIMEOUT", "1s")
    result = cli(
        "tournament", "-n", "3", "-p", "random", "--backend", "dask", "--address", "tcp://127.0.0.1:9", "--store",
        tmp_path / "a.db",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in result.stderr
    assert "Traceback" not in result.output


# -- against a LocalCluster ---------------------------------------------------------------------------------------


@pytest.mark.slow
@needs_dask
def test_results_stream_back_and_equal_the_local_ones(tmp_path: Path, cluster: DaskBackend) -> None:
    config = make_config(("random", "mean-constraint", "enumeration"))
    events = Recorder()
    with Store(tmp_path / "dask.db") as store:
        summary = run_tournament(plan_tournament(config, store, Registry()), store, events, backend=cluster)
    assert (summary.played, summary.workers, summary.backend) == (120, 2, "dask")
    assert sum(events.batches) == 120
    assert len(events.batches) > 1  # committed batch by batch, as they finished
    assert games(tmp_path / "dask.db", config) == local(tmp_path / "local.db", config)


@needs_dask
def test_the_cli_runs_on_a_cluster_by_address(cli: Callable[..., Any], tmp_path: Path, cluster: DaskBackend) -> None:
    store = tmp_path / "a.db"
    args = ("tournament", "-n", "30", "--seed", "11", "-p", "random", "--store", store, "--json", "--backend", "dask")
    result = cli(*args, "--address", cluster.scheduler_address)
    assert result.exit_code == 0, result.output
    assert '"backend": "dask"' in result.stdout
    config = make_config(("random",), games=30)
    assert games(store, config) == local(tmp_path / "local.db", config)


@pytest.mark.slow
@needs_dask
def test_workers_load_the_plugin_files(tmp_path: Path, cluster: DaskBackend, write_plugin: Callable[..., Path]) -> None:
    plugin = write_plugin(PLUGIN, "plugged_plugin")
    # Trusted: the Dask worker itself loads the plugin file (isolated, its own process would).
    config = make_config(("plugged", "random"), games=24, isolation=Isolation.TRUSTED)
    with Store(tmp_path / "dask.db") as store:
        run_tournament(plan_tournament(config, store, Registry([plugin])), store, backend=cluster)
    rows = games(tmp_path / "dask.db", config)
    assert {r.player for r in rows} == {"plugged", "random"}
    assert all(r.error == "" for r in rows)
    assert rows == local(tmp_path / "local.db", config, Registry([plugin]))


@pytest.mark.slow
@needs_dask
def test_a_killed_worker_loses_nothing_and_duplicates_nothing(tmp_path: Path, cluster: DaskBackend) -> None:
    config = make_config(("random", "enumeration"), games=400)
    client = cluster.start()
    pids = client.run(os.getpid)
    killed: list[int] = []

    def kill_one_worker(_: int) -> None:
        if not killed:  # after the first batch is committed, while others run
            victim = sorted(pids.values())[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    with Store(tmp_path / "dask.db") as store:
        plan = plan_tournament(config, store, Registry())
        summary = run_tournament(plan, store, Recorder(on_batch=kill_one_worker), backend=cluster)
        (count,) = store.db.execute("SELECT COUNT(*) FROM games").fetchone()
    assert killed
    assert summary.played == count == 800
    assert games(tmp_path / "dask.db", config) == local(tmp_path / "local.db", config)
    client.wait_for_workers(2, timeout=60)  # the nanny brought the worker back
    assert killed[0] not in client.run(os.getpid).values()
