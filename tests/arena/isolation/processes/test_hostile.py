"""Hostile bots: each is recorded as its own outcome, the tournament always finishes, the honest players'
games are exactly what they are without the hostile ones, and a bot hunting for the layout finds nothing.

Every bot is a small plugin file under ``tests/bots/hostile/`` (one is an external executable). The move limit is
small (2 s) so that the bots that hang cost little, yet far above the milliseconds an honest move takes on
a loaded machine; the game limit is out of the way. The cheater's test is not about limits: it has none
that a slow machine could reach.
"""

from __future__ import annotations

import dataclasses
import pickle
import re
import sys
from pathlib import Path

import pytest
from repo import BOTS, ROOT
from shared_once import built_once

from arena.config import PlayerRef, TournamentConfig
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.isolation.sandbox import bubblewrap as sandbox
from arena.limits import EngineBot, Isolation, Limits
from arena.outcome import GameResult, Outcome
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.records import RecordError
from arena.results.store import Store
from engine import BEGINNER, EXPERT, BoardSpec, FirstClick

HOSTILE = BOTS / "hostile"
EXAMPLES = ROOT / "examples"
LIMITS = Limits(move_time=2.0, game_time=60.0, grace=0.25, memory_mb=1024, startup_time=60)
GENEROUS = Limits(move_time=60.0, game_time=600.0, memory_mb=1024, startup_time=120)
#: Two games each: the second is played by a bot started again after the first one's failure.
GAMES = 2
SEED = 7
TIMINGS = ("cpu_ms", "wall_ms")

HOSTILE_PLUGINS = ("raiser", "looper", "sleeper", "garbage", "exiter", "suicide", "hog", "flooder")
#: player -> (every game's outcome, a text every game's error column holds)
EXPECTED: dict[str, tuple[Outcome, str]] = {
    "hostile-raiser": (Outcome.ERROR, "RuntimeError: the raiser raised"),
    "hostile-looper": (Outcome.TIMEOUT, "no reply within"),
    "hostile-sleeper": (Outcome.TIMEOUT, "no reply within"),
    "hostile-garbage": (Outcome.ILLEGAL, "is not an action"),
    "hostile-exiter": (Outcome.ERROR, "SystemExit: 3"),
    "hostile-suicide": (Outcome.CRASHED, "the bot process killed by SIGKILL"),
    "hostile-hog": (Outcome.ERROR, "MemoryError"),
    "stdout-garbage": (Outcome.ILLEGAL, "unparsable output"),
}
HONEST = ("random", "mean-constraint", "local-bot", "standalone")
ENGINE_BOTS = (
    EngineBot(name="standalone", command=(sys.executable, str(EXAMPLES / "standalone_bot.py"))),
    EngineBot(name="stdout-garbage", command=(sys.executable, str(HOSTILE / "stdout_garbage_bot.py"))),
)


def deterministic(games: list[GameResult]) -> list[GameResult]:
    """The games with their timings, the only figures that vary between runs, zeroed."""
    return [dataclasses.replace(g, **dict.fromkeys(TIMINGS, 0.0)) for g in games]


def tournament(
    path: Path,
    players: tuple[str, ...],
    *,
    plugins: tuple[Path, ...],
    spec: BoardSpec = BEGINNER,
    games: int = GAMES,
    workers: int = 1,
    isolation: Isolation = Isolation.AUTO,
    engine_bots: tuple[EngineBot, ...] = (),
    limits: Limits = LIMITS,
) -> list[GameResult]:
    bots = tuple(b for b in engine_bots if b.name in players)
    config = TournamentConfig.build(
        spec,
        FirstClick.SAFE,
        seed=SEED,
        games=games,
        players=tuple(PlayerRef(name=p) for p in players),
        isolation=isolation,
        limits=limits,
        engine_bots=bots,
    )
    catalog = PlayerCatalog.for_tournament([str(p) for p in plugins], bots, isolation)
    with Store(path) as store:
        summary = run_tournament(plan_tournament(config, store, catalog, workers=workers), store)  # type: ignore[arg-type]
        assert summary.played == games * len(players)  # the tournament always finishes
        return store.games(config.id)


@dataclasses.dataclass(frozen=True)
class Replay:
    """A stored game and its record replayed: the error that raised ("" when it replayed) and its moves."""

    game: GameResult
    problem: str
    record_moves: int


@dataclasses.dataclass(frozen=True)
class HostileRun:
    """The hostile tournament's games by player, the honest players' games in a tournament of their own, and
    every game of the hostile one replayed from its record."""

    games: dict[str, list[GameResult]]
    clean: list[GameResult]
    replays: list[Replay]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> HostileRun:
    """Played once per run, whatever the number of workers: each worker reads the same pickled result."""

    def play(folder: Path) -> None:
        (folder / "run.pickle").write_bytes(pickle.dumps(play_hostile(folder)))

    folder = built_once(tmp_path_factory, "hostile", play)
    return pickle.loads((folder / "run.pickle").read_bytes())  # written by this run's own fixture


def play_hostile(folder: Path) -> HostileRun:
    plugins = (*(HOSTILE / f"{name}.py" for name in HOSTILE_PLUGINS), EXAMPLES / "local_bot.py")
    players = (*HONEST, *EXPECTED, "hostile-flooder")
    rows = tournament(folder / "hostile.db", players, plugins=plugins, workers=1, engine_bots=ENGINE_BOTS)
    clean = tournament(
        folder / "clean.db", HONEST, plugins=(EXAMPLES / "local_bot.py",), workers=1, engine_bots=ENGINE_BOTS
    )
    by_player: dict[str, list[GameResult]] = {}
    for row in rows:
        by_player.setdefault(row.player, []).append(row)
    replays = []  # every game's record, replayed against its stored result
    with Store(folder / "hostile.db") as store:
        tournament_id = store.latest()
        for row in rows:
            try:
                played = store.replay(tournament_id, row.player, row.board)
                replays.append(Replay(row, "", len(played.record)))
            except RecordError as error:
                replays.append(Replay(row, str(error), -1))
    return HostileRun(by_player, clean, replays)


@pytest.mark.slow
@pytest.mark.parametrize("player", EXPECTED)
def test_each_hostile_bot_is_recorded_as_its_outcome(hostile_run: HostileRun, player: str) -> None:
    outcome, text = EXPECTED[player]
    rows = hostile_run.games[player]
    assert len(rows) == GAMES
    for row in rows:
        assert row.outcome is outcome, row.error
        assert text in row.error
        assert len(row.error) <= 2000
        assert not row.won


def test_the_stderr_tail_is_kept_in_the_error_column(hostile_run: HostileRun) -> None:
    rows = hostile_run.games["hostile-raiser"]
    assert len(rows) == GAMES
    for row in rows:
        assert "\nstderr:\n" in row.error
        assert "raiser-marker: about to raise" in row.error


def test_a_timed_out_bot_is_killed_with_its_whole_process_group(hostile_run: HostileRun) -> None:
    sleeper = hostile_run.games["hostile-sleeper"]
    pids = [int(m) for row in sleeper for m in re.findall(r"sleeper-child-pid (\d+)", row.error)]
    assert pids, "the sleeper's stderr should name its child"
    if sandbox.unavailable() is None:
        # Sandboxed (the default where it can be had), the PIDs the bot sees are its namespace's, not the
        # host's: sandbox/test_bubblewrap.py finds every descendant of a bot that daemonizes by a marker instead.
        return
    for pid in pids:
        stat = Path(f"/proc/{pid}/stat")
        alive = stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        assert not alive, f"the sleeper's child {pid} survived the timeout"


def test_a_chatty_bot_neither_blocks_nor_corrupts_the_protocol(hostile_run: HostileRun) -> None:
    rows = hostile_run.games["hostile-flooder"]
    assert len(rows) == GAMES
    assert {r.outcome for r in rows} <= {Outcome.WON, Outcome.LOST}
    assert all(r.error == "" for r in rows)


def test_honest_players_are_unaffected_by_hostile_ones(hostile_run: HostileRun) -> None:
    honest = sorted((r for p in HONEST for r in hostile_run.games[p]), key=lambda r: (r.player, r.board))
    clean = sorted(hostile_run.clean, key=lambda r: (r.player, r.board))
    assert len(clean) == GAMES * len(HONEST)
    assert deterministic(honest) == deterministic(clean)
    assert {r.outcome for r in honest} <= {Outcome.WON, Outcome.LOST}


def test_every_game_keeps_a_record_that_replays_to_its_outcome_even_a_failure(
    hostile_run: HostileRun,
) -> None:
    replays = hostile_run.replays
    assert {r.game.player for r in replays} == {*HONEST, *EXPECTED, "hostile-flooder"}
    assert [r for r in replays if r.problem] == []
    assert all(r.record_moves == r.game.moves for r in replays)
    # Moves before a failure:
    assert any(r.game.moves > 0 and r.game.outcome not in (Outcome.WON, Outcome.LOST) for r in replays)


@pytest.mark.slow
def test_the_cheater_wins_in_process_but_not_isolated(tmp_path: Path) -> None:
    """Expert with blind guesses practically never wins; with the layout it always does. The cheater
    finds the layout when trusted (so the test can tell), and nothing when isolated."""
    cheater = (HOSTILE / "cheater.py",)
    trusted = tournament(
        tmp_path / "trusted.db",
        ("hostile-cheater",),
        plugins=cheater,
        spec=EXPERT,
        games=4,
        isolation=Isolation.TRUSTED,
        limits=GENEROUS,
    )
    assert sum(r.won for r in trusted) >= 3
    isolated = tournament(
        tmp_path / "isolated.db", ("hostile-cheater",), plugins=cheater, spec=EXPERT, games=25, limits=GENEROUS
    )
    assert len(isolated) == 25
    assert {r.outcome for r in isolated} <= {Outcome.WON, Outcome.LOST}
    assert sum(r.won for r in isolated) == 0
