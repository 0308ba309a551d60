"""What people call a tournament and its entrants, and a match's test (``arena.results.labels``): recorded by
``Store.describe``, read back by ``StoreReader.labels``, replaced by a later call, left alone where not given; a
store from before the two steps reads as having none of it and gains the tables when opened for writing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from arena.config import PlayerRef, TournamentConfig
from arena.results.labels import Labels, MatchSettings
from arena.results.migrations import MIGRATIONS
from arena.results.store import Store
from engine import BEGINNER, FirstClick

CONFIG = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=4, games=2, players=(PlayerRef(name="random"),))
SETTINGS = MatchSettings(delta=2.5, alpha=0.05, beta=0.1, batch=50, max_games=400)


class StoreBeforeLabels(Store):
    """A store as the version before the two steps wrote it."""

    migrations = tuple(m for m in MIGRATIONS if m.name not in ("tournament-names-and-owners", "match-settings"))


def test_the_steps_say_what_they_add() -> None:
    names = [m.name for m in MIGRATIONS]
    assert "tournament-names-and-owners" in names and "match-settings" in names
    assert len(StoreBeforeLabels.migrations) == len(MIGRATIONS) - 2


def test_described_labels_read_back_and_a_later_call_replaces_only_what_it_gives(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        store.describe(CONFIG.id, name="Spring cup", owners={"random": "Ann", "apex": "<b>Bo</b>"})  # before games
        store.ensure_tournament(CONFIG, {})
        assert store.labels(CONFIG.id) == Labels("Spring cup", {"apex": "<b>Bo</b>", "random": "Ann"}, None)
        store.describe(CONFIG.id, owners={"random": "Ann Example"}, match=SETTINGS)
    with Store(tmp_path / "a.db", read_only=True) as store:
        labels = store.labels(CONFIG.id)
        assert labels.name == "Spring cup"  # not given the second time: kept
        assert labels.owners == {"apex": "<b>Bo</b>", "random": "Ann Example"}
        assert labels.owner("random") == "Ann Example" and labels.owner("nobody") == ""
        assert labels.match == SETTINGS
        assert store.labels("another") == Labels()


def test_a_store_from_before_the_steps_reads_empty_and_migrates_when_written(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with StoreBeforeLabels(path) as store:
        store.ensure_tournament(CONFIG, {})
    with Store(path, read_only=True) as store:
        assert store.labels(CONFIG.id) == Labels()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'match_settings'").fetchone()[0] == 0
    with Store(path) as store:
        store.describe(CONFIG.id, name="Later", match=SETTINGS)
    with Store(path, read_only=True) as store:
        assert store.labels(CONFIG.id) == Labels("Later", {}, SETTINGS)


def test_an_unreadable_settings_row_reads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    with Store(path) as store:
        store.describe(CONFIG.id, match=SETTINGS)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE match_settings SET settings = '{\"delta\": 1}'")
    with Store(path, read_only=True) as store:
        assert store.labels(CONFIG.id).match is None


def test_labels_are_in_the_recovered_store(tmp_path: Path) -> None:
    """A store overwritten while written: its recovery (from the journal) keeps the name, owners and settings."""
    path = tmp_path / "a.db"
    with Store(path) as store:
        store.ensure_tournament(CONFIG, {})
        store.describe(CONFIG.id, name="Cup", owners={"random": "Ann"}, match=SETTINGS)
        path.write_bytes(b"x" * 8192)  # overwritten in place
        target, whole, _ = store.recover(CONFIG.id)
    assert not whole  # saved from the journal, not copied whole
    with Store(target, read_only=True) as saved:
        assert saved.labels(CONFIG.id) == Labels("Cup", {"random": "Ann"}, SETTINGS)
