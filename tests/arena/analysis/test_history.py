"""`arena history NAME`: a player's win rate per version across tournaments of the same board and rule, and each
version against the one before it on the boards both played."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import Result

from arena.analysis.history import UnknownPlayer, player_history
from arena.analysis.stats import compare_paired, wilson_interval
from arena.config import PlayerRef, TournamentConfig
from arena.limits import Isolation
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import BoardSpec, FirstClick
from players.registry import Registry

SMALL = BoardSpec(6, 6, 5)
OTHER = BoardSpec(5, 7, 4)

#: Version 1 plays as random, version 2 as mean-constraint: two versions that split boards.
VBOT = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer
from players.builtin.single_constraint import MeanConstraintPlayer


class VBot({base}):
    name = "vbot"
    version = {version!r}


@hookimpl
def register_players(register):
    register(VBot)
"""


@pytest.fixture
def vbot(tmp_path: Path) -> Callable[[str, str], Registry]:
    def make(version: str, base: str) -> Registry:
        path = tmp_path / f"v{version}" / "vbot.py"
        path.parent.mkdir()
        path.write_text(VBOT.format(version=version, base=base))
        return Registry([path])

    return make


def play(store: Store, registry: Registry, seed: int, games: int, spec: BoardSpec = SMALL) -> str:
    refs = (PlayerRef(name="vbot"),)
    config = TournamentConfig.build(
        spec, FirstClick.SAFE, seed=seed, games=games, players=refs, isolation=Isolation.TRUSTED
    )
    return run_tournament(plan_tournament(config, store, registry, workers=1), store).tournament_id


@pytest.fixture
def history_store(tmp_path: Path, vbot: Callable[[str, str], Registry]) -> tuple[Path, list[str]]:
    """Two seeds of one board (version 1 on both, version 2 on the first only, fewer boards), and another board."""
    one, two = vbot("1", "RandomPlayer"), vbot("2", "MeanConstraintPlayer")
    path = tmp_path / "s.db"
    with Store(path) as store:
        ids = [play(store, one, seed=1, games=30), play(store, one, seed=2, games=20)]
        ids.append(play(store, two, seed=1, games=25))
        ids.append(play(store, one, seed=1, games=10, spec=OTHER))
    return path, ids


@pytest.mark.slow
def test_versions_pool_tournaments_of_a_board_and_pair_with_the_one_before(
    history_store: tuple[Path, list[str]],
) -> None:
    path, (seed1, seed2, _, _) = history_store
    with Store(path, read_only=True) as store:
        histories = player_history(store, "vbot")
        games = {(t, g.player, g.board): g.won for t in (seed1, seed2) for g in store.games(t)}
    assert [h.title for h in histories] == [
        "6x6, 5 mines · first click safe",
        "5x7, 4 mines · first click safe",
    ]
    small, _ = histories
    assert sorted(small.tournaments) == sorted({seed1, seed2})
    v1, v2 = small.versions
    assert (v1.version, v1.games, v1.tournaments) == ("1", 50, 2)
    assert (v2.version, v2.games, v2.tournaments, v2.keys) == ("2", 25, 1, ("vbot@2",))
    wins1 = sum(won for (_, player, _), won in games.items() if player == "vbot")
    assert v1.wins == wins1 and (v1.ci_low, v1.ci_high) == wilson_interval(wins1, 50)
    # Paired on the 25 boards of seed 1 both versions played, and nowhere else.
    mine = np.array([games[seed1, "vbot@2", b] for b in range(25)])
    theirs = np.array([games[seed1, "vbot", b] for b in range(25)])
    assert v1.vs_previous is None
    assert v2.vs_previous == compare_paired(mine, theirs)
    assert v2.vs_previous.games == 25 and v1.keys == ("vbot",)
    assert [v.version for v in histories[1].versions] == ["1"]


def test_history_command_prints_each_board_at_80_columns(
    history_store: tuple[Path, list[str]], cli: Callable[..., Result]
) -> None:
    path, _ = history_store
    result = cli("history", "vbot", "--store", path, columns=80)
    assert result.exit_code == 0, result.output
    assert "6x6, 5 mines" in result.stdout and "5x7, 4 mines" in result.stdout
    assert "vs previous" in result.stdout and all(len(line) <= 80 for line in result.stdout.splitlines())
    data = json.loads(cli("history", "vbot", "--store", path, "--json").stdout)
    versions = data["boards"][0]["versions"]
    assert [v["version"] for v in versions] == ["1", "2"] and versions[1]["vs_previous"]["boards"] == 25


def test_an_unknown_player_is_one_line_and_exit_2(
    history_store: tuple[Path, list[str]], cli: Callable[..., Result], one_error_line: Callable[[Result], str]
) -> None:
    path, _ = history_store
    before = path.read_bytes()
    line = one_error_line(cli("history", "nobody", "--store", path))
    assert "'nobody'" in line and path.read_bytes() == before
    with Store(path, read_only=True) as store, pytest.raises(UnknownPlayer):
        player_history(store, "random")  # a player of the arena, but not of this store
