"""Game records: every game's moves as played, stored with its result, and refused unless they reproduce it."""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from repo import ROOT

from arena.cli.common import cli_errors
from arena.config import PlayerRef, RecordMode, TournamentConfig
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.limits import EngineBot, Isolation
from arena.outcome import GameResult, Outcome
from arena.play.runner import empty_record, play_game
from arena.play.tournament import plan_tournament, run_tournament
from arena.results import records
from arena.results.record_replay import Replayed, replay_record
from arena.results.records import GameRecord, RecordError, RecordMismatch, RecordMissing, decode, encode
from arena.results.store import Store, StoreError
from engine import BEGINNER, EXPERT, INTERMEDIATE, Action, BoardSpec, FirstClick, Game
from players import Player
from players.builtin import BUILTIN_PLAYERS
from players.registry import Registry

BUILTIN = tuple(sorted(cls.name for cls in BUILTIN_PLAYERS))
SMALL = BoardSpec(6, 7, 8)


def replay(spec: BoardSpec, rule: FirstClick, seed: int, board: int, result: GameResult) -> Replayed:
    assert result.record is not None
    return replay_record(spec, rule, seed, board, decode(result.record), result)


# -- a record reproduces its game ------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(BUILTIN),
    st.sampled_from(list(FirstClick)),
    st.sampled_from([BEGINNER, SMALL, BoardSpec(4, 9, 12)]),
    st.integers(0, 2**32),
    st.integers(0, 10_000),
    st.booleans(),
)
def test_every_builtin_players_record_reproduces_its_game(
    name: str, rule: FirstClick, spec: BoardSpec, seed: int, board: int, compiled: bool
) -> None:
    player = Registry((), entry_points=False).create(name)
    result = play_game(player, name, spec, rule, seed, board, record=True, compiled=compiled)
    assert result.outcome in (Outcome.WON, Outcome.LOST)
    played = replay(spec, rule, seed, board, result)
    record = played.record
    assert len(record) == result.moves == len(played.grids) - 1
    assert played.game.stats().bbbv == result.bbbv and played.game.status.value == result.outcome.value
    assert sum(len(move.opened) for move in record.moves) == result.revealed_cells
    assert sum(move.guess for move in record.moves) == result.guesses
    assert encode(record) == result.record  # the blob is a function of the record
    assert decode(encode(record)) == record
    if result.outcome is Outcome.LOST:
        assert played.exploded is not None and played.grids[-1][played.exploded] < 0


def test_the_compiled_and_the_move_by_move_game_keep_the_same_record() -> None:
    player = Registry((), entry_points=False).create("enumeration")
    for spec in (BEGINNER, INTERMEDIATE, EXPERT):
        for board in range(6):
            fast = play_game(player, "enumeration", spec, FirstClick.SAFE, 3, board, record=True)
            slow = play_game(player, "enumeration", spec, FirstClick.SAFE, 3, board, record=True, compiled=False)
            assert fast.record == slow.record


def test_records_are_compact() -> None:
    """Bytes per game (measured in full by benchmarks/records_cost.py): about 70 on Beginner, 400 on Expert."""
    player = Registry((), entry_points=False).create("enumeration")
    for spec, bound in ((BEGINNER, 80), (EXPERT, 450)):
        sizes = [len(play_game(player, "e", spec, FirstClick.SAFE, 9, b, record=True).record) for b in range(40)]
        assert np.mean(sizes) < bound


def test_a_damaged_or_newer_blob_is_a_record_error() -> None:
    blob = play_game(Registry((), entry_points=False).create("random"), "r", BEGINNER, "safe", 1, 1, record=True).record
    with pytest.raises(RecordError, match="format 2; this version reads format 1"):
        decode(bytes([2]) + blob[1:])
    with pytest.raises(RecordError, match="damaged"):
        decode(blob[:-1])
    with pytest.raises(RecordError, match="damaged"):
        decode(blob + b"\x00")
    with pytest.raises(RecordError):
        decode(b"")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_decode_to_a_record_or_a_record_error(tail: bytes) -> None:
    try:
        record = decode(bytes([1, tail[0] & 3 if tail else 0]) + tail[1:])
    except RecordError:
        return
    assert all(0 <= m.row < record.height and 0 <= m.col < record.width for m in record.moves)


def test_a_failed_game_keeps_the_moves_played_before_the_failure(scripted: Callable[..., Player]) -> None:
    answers = iter([Action.reveal(0, 0), Action.reveal(0, 0)])  # the second reveal is illegal
    result = play_game(scripted(lambda o: next(answers)), "scripted", BEGINNER, FirstClick.SAFE, 2, 0, record=True)
    assert result.outcome is Outcome.ILLEGAL
    played = replay(BEGINNER, FirstClick.SAFE, 2, 0, result)
    assert [m.action for m in played.record.moves] == [Action.reveal(0, 0)]
    assert not played.game.over
    with pytest.raises(RecordMismatch, match="end the game playing; the stored outcome is won"):
        won = dataclasses.replace(result, outcome=Outcome.WON)
        replay_record(BEGINNER, FirstClick.SAFE, 2, 0, played.record, won)


def test_a_game_that_never_started_has_an_empty_record() -> None:
    result = GameResult.failed("x", 3, Outcome.CRASHED, "gone", empty_record(BEGINNER))
    played = replay(BEGINNER, FirstClick.SAFE, 1, 3, result)
    assert len(played.record) == 0 and len(played.grids) == 1


# -- notes ------------------------------------------------------------------------------------------------------------


NOTED_PLUGIN = """
from engine import Action
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class Noted(RandomPlayer):
    name = "noted"
    description = "random, explaining its guesses"

    def play(self, observation):
        answer = list(super().play(observation))
        return [a._replace(note=f"guess at {a.row},{a.col}", p_mine=0.25) if a.guess else a for a in answer]


@hookimpl
def register_players(register):
    register(Noted)
"""


def stored_records(path: Path, config: TournamentConfig) -> dict[tuple[str, int], GameRecord]:
    with Store(path) as store:
        return {
            (game.player, game.board): store.replay(config.id, game.player, game.board).record
            for game in store.games(config.id)
        }


@pytest.mark.slow
def test_notes_are_stored_with_their_moves_trusted_or_isolated(write_plugin: Callable[[str, str], Path]) -> None:
    plugin = write_plugin(NOTED_PLUGIN, "noted_plugin")
    folder = plugin.parent
    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=8, games=6, players=(PlayerRef(name="noted"),))
    kept = {}
    for mode in (Isolation.TRUSTED, Isolation.ISOLATED):
        run = config.model_copy(update={"isolation": mode})
        catalog = PlayerCatalog.for_tournament([str(plugin)], (), mode)
        with Store(folder / f"{mode.value}.db") as store:
            run_tournament(plan_tournament(run, store, catalog, workers=1), store)  # type: ignore[arg-type]
        kept[mode] = stored_records(folder / f"{mode.value}.db", config)
    assert kept[Isolation.TRUSTED] == kept[Isolation.ISOLATED]
    moves = [m for r in kept[Isolation.TRUSTED].values() for m in r.moves]
    noted = [m for m in moves if m.note]
    assert noted and len(noted) == sum(m.guess for m in moves)
    assert all((m.note, m.p_mine, m.guess) == (f"guess at {m.row},{m.col}", 0.25, True) for m in noted)


# -- every path to the store -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def all_paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One tournament with every way a game is played (compiled, move by move, isolated host, engine
    bot), played trusted and again with every player isolated."""
    folder = tmp_path_factory.mktemp("records")
    bot = EngineBot(name="standalone", command=(sys.executable, str(ROOT / "examples" / "standalone_bot.py")))
    refs = tuple(PlayerRef(name=n) for n in ("enumeration", "random", "mean-constraint", "standalone"))
    config = TournamentConfig.build(SMALL, FirstClick.SAFE, seed=12, games=10, players=refs, engine_bots=(bot,))
    out: dict[str, Any] = {"config": config}
    for mode in (Isolation.AUTO, Isolation.ISOLATED):
        path = folder / f"{mode.value}.db"
        catalog = PlayerCatalog.for_tournament([], (bot,), mode)
        with Store(path) as store:
            run_tournament(
                plan_tournament(config.model_copy(update={"isolation": mode}), store, catalog, workers=1), store
            )  # type: ignore[arg-type]
            blobs = store.db.execute("SELECT player, board, data FROM records ORDER BY player, board").fetchall()
            out[mode.value] = {(p, b): bytes(d) for p, b, d in blobs}
            out[f"{mode.value}-games"] = len(store.games(config.id))
        out[f"{mode.value}-path"] = path
    return out


@pytest.mark.slow
def test_every_game_of_every_path_is_stored_with_a_record_that_replays(all_paths: dict[str, Any]) -> None:
    config = all_paths["config"]
    assert len(all_paths["auto"]) == all_paths["auto-games"] == 40
    kept = stored_records(all_paths["auto-path"], config)  # Store.replay checks each against its stored result
    assert {player for player, _ in kept} == {"enumeration", "random", "mean-constraint", "standalone"}
    notes = [m.note for (player, _), r in kept.items() for m in r.moves if m.note]
    assert notes and all(n.startswith("no certain move") for n in notes)  # the engine bot's notes


def test_trusted_and_isolated_games_keep_identical_records(all_paths: dict[str, Any]) -> None:
    assert all_paths["auto"] == all_paths["isolated"]


@pytest.mark.slow
def test_record_none_stores_results_only_and_reading_says_records_are_missing(tmp_path: Path) -> None:
    refs = (PlayerRef(name="random"),)
    config = TournamentConfig.build(SMALL, FirstClick.SAFE, seed=3, games=4, players=refs, record=RecordMode.NONE)
    with Store(tmp_path / "a.db") as store:
        run_tournament(plan_tournament(config, store, Registry(), workers=1), store)
        assert len(store.games(config.id)) == 4
        assert store.records_stored(config.id) == 0
        with pytest.raises(RecordMissing, match=r"records are missing.*--record none"):
            store.game_record(config.id, "random", 2)
        with pytest.raises(RecordMissing):
            store.replay(config.id, "random", 2)
        with pytest.raises(StoreError, match="no game of 'random' on board 9"):
            store.game_record(config.id, "random", 9)
        with pytest.raises(StoreError, match="no tournament"):
            store.game_record("feedbeeffeedbeef", "random", 2)
        # Extending the tournament with records on: the new games have them, the old ones still do not.
        run_tournament(
            plan_tournament(
                config.model_copy(update={"games": 6, "record": RecordMode.MOVES}), store, Registry(), workers=1
            ),
            store,
        )
        assert store.records_stored(config.id) == 2
        assert len(store.game_record(config.id, "random", 5)) > 0


def test_a_store_from_before_records_loads_and_says_records_are_missing(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    config = TournamentConfig.build(SMALL, FirstClick.SAFE, seed=3, games=3, players=(PlayerRef(name="random"),))
    with Store(path) as store:
        run_tournament(plan_tournament(config, store, Registry(), workers=1), store)
    # What a store written before records looks like: schema 1 in user_version, without the history's table.
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("DROP TABLE records")
        db.execute("DROP TABLE migrations")
        for column in ("base", "fingerprint", "seen", "files"):  # the player-versions and player-files steps
            db.execute(f"ALTER TABLE players DROP COLUMN {column}")
        db.execute("PRAGMA user_version = 1")
    with Store(path, read_only=True) as store:  # as the replay commands open it: no table is created
        assert len(store.games(config.id)) == 3
        assert store.records_stored(config.id) == 0
        with pytest.raises(RecordMissing, match="records are missing"):
            store.game_record(config.id, "random", 0)
    with Store(path) as store:  # opened for writing: migrated, and its games still have no records
        assert len(store.games(config.id)) == 3
        assert store.records_stored(config.id) == 0
        with pytest.raises(RecordMissing, match="records are missing"):
            store.game_record(config.id, "random", 0)


def test_a_game_and_its_record_are_committed_together(tmp_path: Path) -> None:
    config = TournamentConfig.build(SMALL, FirstClick.SAFE, seed=3, games=3, players=(PlayerRef(name="random"),))
    player = Registry((), entry_points=False).create("random")
    results = [play_game(player, "random", SMALL, FirstClick.SAFE, 3, b, record=True) for b in range(3)]
    with Store(tmp_path / "a.db") as store:
        store.ensure_tournament(config, {})
        store.db.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON records WHEN NEW.board = 2 BEGIN SELECT RAISE(ABORT, 'no'); END"
        )
        with pytest.raises(sqlite3.IntegrityError):
            store.save(config.id, results)
        assert store.games(config.id) == [] and store.records_stored(config.id) == 0
        store.db.execute("DROP TRIGGER refuse")
        assert store.save(config.id, results) == 3
        assert store.save(config.id, results) == 0  # a batch delivered twice changes nothing
        assert store.records_stored(config.id) == 3


def test_the_cli_records_moves_by_default_and_none_on_request(tmp_path: Path, cli: Callable[..., Any]) -> None:
    for mode, expected in (("moves", 3), ("none", 0)):
        path = tmp_path / f"{mode}.db"
        args = ["tournament", "--size", "6x7", "--mines", "8", "-n", "3", "-p", "random", "-w", "1", "--store", path]
        result = cli(*args, "--json", *(["--record", mode] if mode == "none" else []))
        assert result.exit_code == 0, result.output
        with Store(path) as store:
            assert store.records_stored(store.latest()) == expected
    bad = cli("tournament", "-n", "1", "--record", "all", "--store", tmp_path / "x.db")
    assert bad.exit_code == 2
    assert "moves" in bad.output and "none" in bad.output


def test_a_missing_record_is_one_line_and_exit_2_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    @cli_errors
    def command() -> None:
        raise RecordMissing("records are missing: the game was stored without its moves")

    with pytest.raises(typer.Exit) as stop:
        command()
    assert stop.value.exit_code == 2
    assert capsys.readouterr().err.strip() == "error: records are missing: the game was stored without its moves"


def test_notes_from_an_action_list_stay_on_the_game() -> None:
    game = Game(BEGINNER, FirstClick.SAFE, seed=1, record=True)
    game.play_answer([Action.reveal(0, 0, guess=True, note="corner", p_mine=0.12)])
    blob = records.log_blob(game.move_log(), 9, 9, game.notes)
    move = decode(blob).moves[0]
    assert (move.note, move.p_mine, move.guess) == ("corner", 0.12, True)
    assert move.action == Action.reveal(0, 0, guess=True, note="corner", p_mine=0.12)


def viewer_note(note: str, p_mine: float | None) -> Any:
    return {"note": note, "p_mine": p_mine} if p_mine is not None else note or None


def test_the_replay_viewer_plays_a_stored_record_as_ours_does(all_paths: dict[str, Any]) -> None:
    """The mapping the replay commands use: a stored ``Move`` is the viewer's ``ReplayMove`` field for field
    (the note with its p_mine as the viewer's JSON-object note)."""
    from arena.analysis.replay import ReplayGame, ReplayMove, first_divergence
    from arena.analysis.replay import replay as view

    config = all_paths["config"]
    with Store(all_paths["auto-path"], read_only=True) as store:
        for player in ("enumeration", "standalone"):
            ours = store.replay(config.id, player, 3)
            stored = store.game(config.id, player, 3)
            moves = [
                ReplayMove(m.kind, m.row, m.col, m.guess, viewer_note(m.note, m.p_mine), m.opened)
                for m in ours.record.moves
            ]
            game = ReplayGame(player, config.spec, config.rule, config.seed, 3, moves, stored.outcome, stored.error)
            theirs = view(game, probabilities=False)
            assert [step.grid.tolist() for step in theirs.steps] == [grid.tolist() for grid in ours.grids]
        enumeration = store.game_record(config.id, "enumeration", 3)
        assert first_divergence(enumeration.moves, enumeration.moves) is None
