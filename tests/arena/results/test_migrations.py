"""The store's schema history: an older store migrates when opened for writing, reads unchanged when opened for
reading, and a store from a newer version is refused untouched. A new ``GameResult`` field is added here the way
a new version would add it: a field with a default, and a step that adds its column."""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult, Outcome
from arena.results import migrations
from arena.results.migrations import MIGRATIONS, Migration
from arena.results.store import SCHEMA_VERSION, Store, StoreError
from engine import BEGINNER, FirstClick


@dataclass(frozen=True, slots=True)
class ResultWithMistakes(GameResult):
    """A result of a later version: one more figure, with the default older games read as."""

    mistakes: int = 0


class NewerStore(Store):
    migrations = (
        *MIGRATIONS,
        Migration("mistakes", "ALTER TABLE games ADD COLUMN mistakes INTEGER NOT NULL DEFAULT 0"),
    )
    result_type = ResultWithMistakes


CONFIG = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=3, games=4, players=(PlayerRef(name="random"),))


def result(board: int, cls: type[GameResult] = GameResult, **extra: int) -> GameResult:
    return cls("random", board, Outcome.WON, 10, 9, 1, 0, 2, 12, 12, 71, 0, 0, 1.5, 2.5, "", None, **extra)


def old_store(path: Path, boards: int = 3) -> Path:
    with Store(path) as store:
        store.ensure_tournament(CONFIG, {})
        store.save(CONFIG.id, [result(b) for b in range(boards)])
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def steps(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY position")]


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def test_a_new_store_records_every_step_of_the_history(tmp_path: Path) -> None:
    path = old_store(tmp_path / "a.db")
    assert steps(path) == [m.name for m in MIGRATIONS] and len(MIGRATIONS) >= 2
    assert user_version(path) == SCHEMA_VERSION == len(MIGRATIONS)


def test_an_older_store_reads_unchanged_and_migrates_when_opened_for_writing(tmp_path: Path) -> None:
    path = old_store(tmp_path / "a.db")
    before = digest(path)
    with NewerStore(path, read_only=True) as store:
        games = store.games(CONFIG.id)
    assert digest(path) == before, "opening for reading changed the file"
    assert [g.board for g in games] == [0, 1, 2]
    assert all(type(g) is ResultWithMistakes and g.mistakes == 0 for g in games)

    with NewerStore(path) as store:
        store.save(CONFIG.id, [result(3, ResultWithMistakes, mistakes=5)])
        games = store.games(CONFIG.id)
    assert steps(path) == [*(m.name for m in MIGRATIONS), "mistakes"]
    assert user_version(path) == len(MIGRATIONS) + 1
    assert [(g.board, g.mistakes) for g in games] == [(0, 0), (1, 0), (2, 0), (3, 5)]
    assert games[0] == result(0, ResultWithMistakes)  # every other field as it was stored


@pytest.mark.parametrize("read_only", [True, False])
def test_a_store_from_a_newer_version_is_refused_untouched(tmp_path: Path, read_only: bool) -> None:
    path = old_store(tmp_path / "a.db")
    with NewerStore(path):
        pass
    before = digest(path)
    with pytest.raises(StoreError, match=r"newer minesweeper-arena \(schema step 'mistakes' is unknown here\)"):
        Store(path, read_only=read_only)
    assert digest(path) == before
    assert steps(path)[-1] == "mistakes"


def test_a_store_whose_history_differs_is_refused_untouched(tmp_path: Path) -> None:
    path = old_store(tmp_path / "a.db")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE migrations SET name = 'another-branch' WHERE position = 1")
    before = digest(path)
    with pytest.raises(StoreError, match="'another-branch' is unknown"):
        Store(path)
    assert digest(path) == before


def test_a_schema_1_store_from_before_the_history_reads_and_migrates(tmp_path: Path) -> None:
    """What every version before the history wrote: schema 1 in user_version, maybe without a records table."""
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.executescript(MIGRATIONS[0].sql)
        db.execute("INSERT INTO meta (key, value) VALUES ('created_by', 'old')")
        db.execute(
            "INSERT INTO tournaments VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (CONFIG.id, "beginner", 9, 9, 10, "safe", 3, 4, CONFIG.model_dump_json(), "2", "0.1", "t", "t", 1),
        )
        db.execute("INSERT INTO players VALUES (?,?,?,?,?,?)", (CONFIG.id, "random", "random", "{}", "1", "builtin"))
        row = result(0).as_row()
        db.execute(
            f"INSERT INTO games (tournament_id, {', '.join(row)}, finished) VALUES ({','.join('?' * (len(row) + 2))})",
            (CONFIG.id, *row.values(), "t"),
        )
        db.execute("PRAGMA user_version = 1")
    before = digest(path)
    with Store(path, read_only=True) as store:
        assert store.games(CONFIG.id) == [result(0)]
        assert store.records_stored(CONFIG.id) == 0
    assert digest(path) == before
    with Store(path) as store:
        assert store.games(CONFIG.id) == [result(0)]
    assert steps(path) == [m.name for m in MIGRATIONS]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'records'").fetchone()[0] == 1


def test_a_field_without_a_step_is_refused_with_the_column_named(tmp_path: Path) -> None:
    class Forgotten(Store):
        result_type = ResultWithMistakes

    with pytest.raises(StoreError, match=r"no step for the games column\(s\) \['mistakes'\]"):
        Forgotten(tmp_path / "new.db")


def test_pending_names_the_first_unknown_step() -> None:
    known = [Migration("a", ""), Migration("b", "")]
    assert [m.name for m in migrations.pending(["a"], Path("x"), known)] == ["b"]
    assert migrations.pending(["a", "b"], Path("x"), known) == []
    with pytest.raises(migrations.NewerStore, match="'c' is unknown"):
        migrations.pending(["a", "b", "c"], Path("x"), known)
