"""A store replaced, deleted, overwritten or truncated under a running tournament: the run stops with a
one-line error, and the games it committed are saved in a recovery store next to it.

The store is tampered with from the tournament's progress hook (called after each committed batch)
or, on the command line, by a trusted plugin player when it starts a chosen board: never by timing.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from recorder import Recorder

from arena.config import PlayerRef, TournamentConfig
from arena.play.backends import local
from arena.play.tournament import StoreLost, plan_tournament, run_tournament
from arena.results.store import Store, StoreDamaged
from engine import BoardSpec, FirstClick
from players.registry import Registry

SMALL = BoardSpec(6, 6, 5)
GARBAGE = b"\x00\x01 these bytes are not a database " * 200


def make_config(games: int = 16, seed: int = 2) -> TournamentConfig:
    return TournamentConfig.build(SMALL, FirstClick.SAFE, seed=seed, games=games, players=(PlayerRef(name="random"),))


def overwrite(path: Path) -> None:
    path.write_bytes(GARBAGE)  # as `cat junk > arena.db` does: the same file, its content gone


def truncate(path: Path) -> None:
    os.truncate(path, 0)


@pytest.fixture(autouse=True)
def commit_every_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every batch committed as it finishes (the in-process backend otherwise hands games over every half
    second): these tests damage the store between two commits of a run of a few milliseconds."""
    monkeypatch.setattr(local, "COMMIT_SECONDS", 0.0)


def truncate_half(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def replace(path: Path) -> None:
    other = path.with_name("other.db")
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
        db.execute("INSERT INTO notes VALUES ('mine')")
    db.close()
    os.replace(other, path)  # as an editor, a sync tool or `mv` does: another file at the path


def delete(path: Path) -> None:
    path.unlink()


def stored_games(path: Path) -> set[tuple[str, str, int]]:
    """(tournament, player, board) of every game in the store."""
    with Store(path, create=False, read_only=True) as db:
        return {(t.id, g.player, g.board) for t in db.tournaments() for g in db.games(t.id)}


def run_and_tamper(path: Path, tamper: Callable[[Path], None], after_batch: int) -> tuple[StoreLost, list[int]]:
    """Run a tournament on a store that already holds an earlier one; tamper after ``after_batch`` commits.
    Returns the error and the games committed per batch before the tamper."""
    committed: list[int] = []
    with Store(path) as store:
        earlier = make_config(games=3, seed=9)
        run_tournament(plan_tournament(earlier, store, Registry(), workers=1), store)

        def progress(games: int) -> None:
            committed.append(games)
            if len(committed) == after_batch:
                tamper(path)

        plan = plan_tournament(make_config(), store, Registry(), workers=1)
        with pytest.raises(StoreLost) as info:
            run_tournament(plan, store, Recorder(on_batch=progress))
    return info.value, committed


def saved_path(error: StoreLost) -> Path:
    found = re.search(r"saved in '([^']+)'", str(error))
    assert found, str(error)
    return Path(found.group(1))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("tamper", "needle"),
    [
        (overwrite, "was overwritten: it is no longer an SQLite database"),
        (truncate, "was truncated to 0 bytes"),
        (truncate_half, "was truncated to"),
    ],
)
def test_a_store_destroyed_in_place_stops_the_run_and_its_games_are_saved(
    tmp_path: Path, tamper: Callable[[Path], None], needle: str
) -> None:
    path = tmp_path / "arena.db"
    error, committed = run_and_tamper(path, tamper, after_batch=2)
    text = str(error)
    assert "\n" not in text
    assert f"the results store {str(path)!r} {needle}" in text
    assert "What it held is lost but the" in text
    saved = saved_path(error)
    assert saved.parent == tmp_path and saved.name.startswith("arena.db.recovered-")
    games = stored_games(saved)
    # Every game this Store committed (the earlier run's too) and the batch in hand when the damage was found.
    assert len(games) >= 3 + sum(committed) + 1
    assert f"the {len(games)} games committed since the run began" in text
    assert {board for tournament, _, board in games if tournament == make_config().id} >= set(range(sum(committed)))
    with Store(saved, create=False) as db:  # a real store: the run resumes in it
        summary = run_tournament(plan_tournament(make_config(), db, Registry(), workers=1), db)
        assert summary.played + summary.skipped == 16


@pytest.mark.parametrize(("tamper", "needle"), [(replace, "was replaced by another file"), (delete, "was deleted")])
def test_a_store_replaced_or_deleted_stops_the_run_and_all_of_it_is_saved(
    tmp_path: Path, tamper: Callable[[Path], None], needle: str
) -> None:
    path = tmp_path / "arena.db"
    error, committed = run_and_tamper(path, tamper, after_batch=2)
    text = str(error)
    assert f"the results store {str(path)!r} {needle}" in text
    assert "The whole store" in text
    games = stored_games(saved_path(error))
    with Store(saved_path(error), create=False, read_only=True) as db:
        assert len(db.tournaments()) == 2  # the earlier tournament too: the arena still held the original file
    assert len(games) >= 3 + sum(committed) + 1
    if tamper is replace:  # the file that took its place is left alone
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT text FROM notes").fetchall() == [("mine",)]
        db.close()
        assert not Path(f"{path}-wal").exists()
    else:
        assert not path.exists()


def test_a_store_replaced_after_the_last_batch_is_noticed_before_the_run_reports_success(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    error, committed = run_and_tamper(path, replace, after_batch=8)  # 16 boards, 2 per batch: the last one
    assert len(committed) == 8
    assert "was replaced by another file" in str(error)
    assert len(stored_games(saved_path(error))) == 3 + 16


def test_an_untouched_store_passes_every_check(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store(path) as store:
        run_tournament(plan_tournament(make_config(), store, Registry(), workers=1), store)
        store.verify()
    with Store(path, create=False) as store:  # reopened (the WAL checkpointed into the file): still fine
        store.verify()
        assert len(store.games(make_config().id)) == 16
    assert not list(tmp_path.glob("*.recovered-*"))


def test_corruption_sqlite_finds_is_damage_and_other_errors_are_not(tmp_path: Path, make_result: Any) -> None:
    path = tmp_path / "arena.db"
    config = make_config()
    with Store(path) as store:
        store.ensure_tournament(config, {})
        store.db.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON games WHEN NEW.board = 1 BEGIN SELECT RAISE(ABORT, 'no'); END"
        )
        with pytest.raises(sqlite3.IntegrityError):
            store.save(config.id, [make_result("random", 1)])
        store.db.execute("DROP TRIGGER refuse")
        store.save(config.id, [make_result("random", 0)])
        # The pages of the games table overwritten, the header intact: only SQLite can tell.
        page = store.db.execute("PRAGMA page_size").fetchone()[0]
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        with open(path, "r+b") as file:
            file.seek(page)
            file.write(b"\xff" * (path.stat().st_size - page))
        store.db.execute("PRAGMA cache_size = 0")  # nothing of the file cached: the next write reads it
        store.db.execute("PRAGMA shrink_memory")
        with pytest.raises(StoreDamaged, match=r"is damaged: .*malformed"):
            store.save(config.id, [make_result("random", b) for b in range(2, 40)])
        _, whole, games = store.recover(config.id)
        assert (whole, games) == (False, 1)


TAMPER_PLUGIN = """
import os

from engine.layout import player_generator
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class Vandal(RandomPlayer):
    name = "vandal"
    description = "random, but overwrites the file ARENA_TEST_VANDAL names when it starts one chosen board"

    def reset(self, rng, spec, rule):
        seed, board, path = os.environ["ARENA_TEST_VANDAL"].split(":", 2)
        if rng.bit_generator.state == player_generator(int(seed), int(board), self.name).bit_generator.state:
            with open(path, "wb") as file:
                file.write(b"not a database any more" * 100)
        super().reset(rng, spec, rule)


@hookimpl
def register_players(register):
    register(Vandal)
"""


@pytest.mark.slow
def test_the_command_line_says_it_in_one_line_exits_1_and_the_games_can_be_read_back(
    tmp_path: Path, write_plugin: Callable[[str, str], Path], cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "arena.db"
    plugin = write_plugin(TAMPER_PLUGIN, "vandal_plugin")
    monkeypatch.setenv("ARENA_TEST_VANDAL", f"3:10:{store}")
    args = ("tournament", "--seed", "3", "-n", "20", "-w", "1", "-p", "vandal,random", "--isolation", "trusted")
    result = cli(*args, "--plugin", plugin, "--store", store, "-q")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: the results store {str(store)!r} was overwritten")
    assert "resume with --store" in lines[0]
    saved = Path(re.search(r"saved in '([^']+)'", lines[0]).group(1))  # type: ignore[union-attr]
    shown = cli("leaderboard", "--store", saved, "--json")
    assert shown.exit_code == 0, shown.output
    assert {(p, b) for _, p, b in stored_games(saved)} >= {(p, b) for p in ("random", "vandal") for b in range(10)}


def test_when_nothing_can_be_saved_the_error_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Store, "recover", fail)
    error, _ = run_and_tamper(tmp_path / "arena.db", overwrite, after_batch=1)
    assert "\n" not in str(error)
    assert str(error).endswith(
        "the tournament stopped, and saving its games elsewhere failed too: [Errno 13] Permission denied"
    )


def test_two_arenas_writing_one_store_do_not_see_each_others_checkpoints_as_damage(
    tmp_path: Path, make_result: Any
) -> None:
    """Another writer's checkpoints rewrite the header and grow the file: the same database, no alarm."""
    path = tmp_path / "arena.db"
    one, two = make_config(seed=1), make_config(seed=2)
    with Store(path) as first, Store(path) as second:
        for store in (first, second):
            store.db.execute("PRAGMA wal_autocheckpoint = 1")  # a checkpoint after every commit
        first.ensure_tournament(one, {})
        second.ensure_tournament(two, {})
        for batch in range(40):
            boards = range(batch * 20, batch * 20 + 20)
            first.save(one.id, [make_result("random", b, error="x" * 500) for b in boards])
            second.save(two.id, [make_result("random", b, error="y" * 500) for b in boards])
        first.verify()
        second.verify()
        assert len(first.games(two.id)) == len(second.games(one.id)) == 800


def test_a_journal_that_fails_costs_its_copy_not_the_games(tmp_path: Path, make_result: Any) -> None:
    config = make_config()
    with Store(tmp_path / "arena.db") as store:
        store.ensure_tournament(config, {})
        store._journal.execute("DROP TABLE saved")  # as a full temporary folder would make it fail
        assert store.save(config.id, [make_result("random", 0)]) == 1
        assert store.save(config.id, [make_result("random", 1)]) == 1
        assert len(store.games(config.id)) == 2
