"""The two board sets and the close (arena/host/boards.py): one secret seed drawn once, its published hash,
the deadline closing the competition once, and the private set playing other boards than the public one."""

from __future__ import annotations

import datetime as dt
import hashlib
import sqlite3
from pathlib import Path

import pytest
from host_support import write_cup

from arena.competition.hosting import HostSpec
from arena.competition.spec import load_competition
from arena.host.boards import BoardSets, close, closed_at, commitment, private_seed
from arena.host.db import HostPaths, connect
from arena.host.job import scrub
from engine.layout import MAX_SEED


@pytest.fixture
def db(tmp_path: Path) -> sqlite3.Connection:
    return connect(HostPaths(tmp_path / "cup-host"))


def test_the_seed_is_drawn_once_and_committed_to(db: sqlite3.Connection) -> None:
    seed = private_seed(db)
    assert 0 <= seed <= MAX_SEED
    assert private_seed(db) == seed, "a second start drew another seed"
    assert commitment(seed) == hashlib.sha256(str(seed).encode()).hexdigest()
    assert commitment(seed) != commitment(seed + 1)


def test_the_deadline_closes_once(db: sqlite3.Connection) -> None:
    past = HostSpec(deadline=dt.datetime(2026, 1, 1, 12, 0))
    future = HostSpec(deadline=dt.datetime.now(dt.UTC) + dt.timedelta(days=1))
    assert closed_at(db, future) is None
    assert closed_at(db, HostSpec()) is None
    assert closed_at(db, past) == "2026-01-01 12:00:00 UTC"
    assert closed_at(db, future) == "2026-01-01 12:00:00 UTC", "a later file's deadline reopened it"
    assert close(db) == "2026-01-01 12:00:00 UTC", "--close moved the time it closed at"


def test_close_now(db: sqlite3.Connection) -> None:
    when = close(db)
    assert when.endswith(" UTC") and closed_at(db, HostSpec()) == when


def test_the_private_set_is_other_boards_of_the_same_kind(tmp_path: Path, db: sqlite3.Connection) -> None:
    loaded = load_competition(write_cup(tmp_path / "cup", count=6, private=4))
    sets = BoardSets(loaded.competition, private_seed(db))
    public, private = sets.config(False), sets.config(True)
    assert (public.games, private.games) == (6, 4)
    assert public.seed == 11 and private.seed == sets.seed
    assert (public.height, public.width, public.mines, public.rule) == (
        private.height, private.width, private.mines, private.rule,
    )  # fmt: skip
    assert sets.public_id != sets.private_id


def test_scrub_removes_the_seed_from_any_text() -> None:
    seed = 1234567890123
    text = f"TournamentConfig(seed={seed}, games=4) failed; seed {seed}"
    assert str(seed) not in scrub(text, seed) and scrub(text, seed).count("<private seed>") == 2


def test_leaderboards_are_made_again_only_when_the_store_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from arena.host import boards
    from arena.host.queue import Submission

    made: list[tuple[str, ...]] = []
    monkeypatch.setattr(boards, "_build", lambda store, tid, names: made.append(names) or names)
    store = tmp_path / "public.db"
    store.write_bytes(b"x")
    cache = boards.LeaderboardCache(ttl=0)  # past its ttl at once: only the store's state can keep it
    rows = {"alice": Submission.__new__(Submission)}
    object.__setattr__(rows["alice"], "player", "alice.1")
    answers = [cache.get(store, "t1", rows, private=False) for _ in range(3)]
    assert made == [("alice.1",)] and answers == [("alice.1",)] * 3
    with store.open("ab") as handle:  # a commit of games
        handle.write(b"y")
    os.utime(store, ns=(store.stat().st_atime_ns, store.stat().st_mtime_ns + 1_000_000))
    cache.get(store, "t1", rows, private=False)
    assert len(made) == 2
    other = {"bob": Submission.__new__(Submission)}  # another set of players: its own entry, the first kept
    object.__setattr__(other["bob"], "player", "bob.1")
    cache.get(store, "t1", other, private=False)
    cache.get(store, "t1", rows, private=False)
    assert made == [("alice.1",), ("alice.1",), ("bob.1",)]
