"""The SQLite results store: schema, WAL, idempotent writes, resume queries and clear errors."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import re
import sqlite3
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import arena.results.store as store_module
from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult, Outcome, PlayerKey
from arena.results.guard import APPLICATION_ID
from arena.results.migrations import MIGRATIONS
from arena.results.store import GAME_COLUMNS, SCHEMA_VERSION, Store, StoreError, default_store
from engine import BEGINNER, BoardSpec, FirstClick

MakeResult = Callable[..., GameResult]


def config(seed: int = 1, games: int = 10, players: tuple[str, ...] = ("alpha", "beta")) -> TournamentConfig:
    refs = tuple(PlayerRef(name=n) for n in players)
    return TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=seed, games=games, players=refs)


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "arena.db") as db:
        yield db


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock that advances one second per call, so 'updated' orders tournaments by recency."""
    ticks = itertools.count()

    def now() -> str:
        tick = next(ticks)
        return f"2030-01-01T{tick // 3600:02d}:{tick // 60 % 60:02d}:{tick % 60:02d}+00:00"

    monkeypatch.setattr(store_module, "_now", now)


# -- schema -------------------------------------------------------------------------------------------------------


def test_new_store_creates_parent_folders_schema_and_meta(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "arena.db"
    with Store(path) as db:
        version = db.db.execute("PRAGMA user_version").fetchone()[0]
        columns = [row[1] for row in db.db.execute("PRAGMA table_info(games)")]
        pk = [row[1] for row in sorted(db.db.execute("PRAGMA table_info(games)"), key=lambda r: r[5]) if row[5]]
    assert path.is_file()
    assert {"meta", "tournaments", "players", "games"} <= tables(path)
    assert version == SCHEMA_VERSION
    assert set(GAME_COLUMNS) <= set(columns)
    assert {"tournament_id", "finished"} <= set(columns)
    assert pk == ["tournament_id", "player", "board"]


def test_store_uses_wal_journal(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store(path) as db:
        assert db.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # WAL is persistent: a plain connection opened later sees it too.
    with sqlite3.connect(path) as other:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reopening_keeps_everything(tmp_path: Path, make_result: MakeResult) -> None:
    path = tmp_path / "arena.db"
    cfg = config()
    with Store(path) as db:
        db.ensure_tournament(cfg, {})
        db.save(cfg.id, [make_result("alpha", 0)])
    with Store(path, create=False) as db:
        assert db.latest() == cfg.id
        assert len(db.games(cfg.id)) == 1


@pytest.mark.parametrize("read_only", [False, True])
def test_reader_sees_committed_games_while_store_is_open(
    tmp_path: Path, make_result: MakeResult, read_only: bool
) -> None:
    """Rows are committed as they are recorded: a second connection (a leaderboard mid-run) sees them at once."""
    path = tmp_path / "arena.db"
    cfg = config()
    with Store(path) as writer, Store(path, create=False, read_only=read_only) as reader:
        writer.ensure_tournament(cfg, {})
        writer.save(cfg.id, [make_result("alpha", 0), make_result("beta", 0)])
        assert len(reader.games(cfg.id)) == 2
        writer.save(cfg.id, [make_result("alpha", 1)])
        assert len(reader.games(cfg.id)) == 3


# -- writing ------------------------------------------------------------------------------------------------------


def test_record_returns_new_rows_and_ignores_duplicates(store: Store, make_result: MakeResult) -> None:
    cfg = config()
    store.ensure_tournament(cfg, {})
    first = [make_result("alpha", b) for b in range(3)]
    assert store.save(cfg.id, first) == 3
    assert store.save(cfg.id, first) == 0
    # A repeat with different figures is ignored too: the first result stands.
    changed = make_result("alpha", 1, Outcome.LOST, moves=99)
    assert store.save(cfg.id, [changed, make_result("alpha", 3), make_result("beta", 1)]) == 2
    assert store.save(cfg.id, []) == 0
    assert store.save(cfg.id, iter([make_result("beta", 2)])) == 1
    count = store.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ?", (cfg.id,)).fetchone()[0]
    assert count == 6
    game = next(g for g in store.games(cfg.id) if (g.player, g.board) == ("alpha", 1))
    assert game.outcome is Outcome.WON
    assert game.moves == 20


def test_record_round_trips_every_column(store: Store, make_result: MakeResult) -> None:
    cfg = config()
    store.ensure_tournament(cfg, {})
    results = [
        make_result("alpha", 0, Outcome.WON, cpu_ms=1.25, wall_ms=2.5, guesses=3),
        make_result("alpha", 1, Outcome.ERROR, first_row=None, first_col=None, moves=0, error="ValueError: boom"),
        make_result("beta", 0, Outcome.ILLEGAL, first_row=4, first_col=7, error="InvalidActionError: off"),
    ]
    store.save(cfg.id, results)
    stored = store.games(cfg.id)
    assert [(g.player, g.board) for g in stored] == [("alpha", 0), ("alpha", 1), ("beta", 0)]
    assert stored == results  # every field, typed as written
    assert all(type(g) is GameResult and type(g.outcome) is Outcome for g in stored)
    assert [g.won for g in stored] == [True, False, False]
    assert stored[1].first_row is None
    assert store.game(cfg.id, "alpha", 1) == results[1]
    # The columns as written: the won column the SQL readers use, the rest as GameResult.as_row says.
    rows = store.db.execute(
        f"SELECT {', '.join(GAME_COLUMNS)} FROM games WHERE tournament_id = ? ORDER BY player, board", (cfg.id,)
    ).fetchall()
    assert [dict(r) for r in rows] == [{c: result.as_row()[c] for c in GAME_COLUMNS} for result in results]
    assert [r["won"] for r in rows] == [1, 0, 0]


def test_same_player_and_board_in_two_tournaments_are_two_rows(store: Store, make_result: MakeResult) -> None:
    one, two = config(seed=1), config(seed=2)
    store.ensure_tournament(one, {})
    store.ensure_tournament(two, {})
    assert store.save(one.id, [make_result("alpha", 0)]) == 1
    assert store.save(two.id, [make_result("alpha", 0)]) == 1
    assert len(store.games(one.id)) == len(store.games(two.id)) == 1


def test_ensure_tournament_records_config_players_and_extends(store: Store) -> None:
    refs = (PlayerRef(name="alpha"), PlayerRef(name="beta", options={"depth": 2}))
    cfg = TournamentConfig.build(BEGINNER, FirstClick.OPENING, seed=9, games=10, players=refs)
    assert store.ensure_tournament(cfg, {"alpha": ("3", "builtin")}) == cfg.id
    stored = store.tournament(cfg.id)
    assert stored.difficulty == "beginner"
    assert (stored.spec.height, stored.spec.width, stored.spec.mines) == (9, 9, 10)
    assert (stored.rule, stored.seed, stored.boards) == (FirstClick.OPENING, 9, 10)
    assert stored.config_data["seed"] == 9
    assert json.loads(stored.config)["seed"] == 9
    players = {p.key: p for p in store.players(cfg.id)}
    assert set(players) == {"alpha", "beta[depth=2]"}
    assert (players["alpha"].version, players["alpha"].source) == ("3", "builtin")
    assert (players["alpha"].name, players["alpha"].options) == ("alpha", {})
    assert players["beta[depth=2]"].name == "beta"
    assert players["beta[depth=2]"].options == {"depth": 2}

    # More games extend the tournament; fewer never shrink it. A new player is added, versions updated.
    store.ensure_tournament(cfg.model_copy(update={"games": 25}), {"alpha": ("4", "builtin")})
    assert store.tournament(cfg.id).boards == 25
    more = cfg.model_copy(update={"games": 5, "players": (*refs, PlayerRef(name="gamma"))})
    assert store.ensure_tournament(more, {"alpha": ("4", "builtin"), "gamma": ("1", "file g.py")}) == cfg.id
    assert store.tournament(cfg.id).boards == 25
    players = {p.key: p for p in store.players(cfg.id)}
    assert set(players) == {"alpha", "beta[depth=2]", "gamma"}
    assert players["alpha"].version == "4"
    assert players["gamma"].source == "file g.py"
    assert len(store.tournaments()) == 1


# -- reading ------------------------------------------------------------------------------------------------------


def test_finished_is_per_player_and_below_games(store: Store, make_result: MakeResult) -> None:
    cfg, other = config(seed=1), config(seed=2)
    store.ensure_tournament(cfg, {})
    store.ensure_tournament(other, {})
    store.save(cfg.id, [make_result("alpha", b) for b in (0, 1, 2, 7, 12)])
    store.save(cfg.id, [make_result("beta", 1)])
    store.save(other.id, [make_result("beta", b) for b in range(5)])
    assert store.finished(cfg.id, ["alpha", "beta", "gamma"], 10) == {
        "alpha": {0, 1, 2, 7},
        "beta": {1},
        "gamma": set(),
    }
    assert store.finished(cfg.id, ["alpha"], 13) == {"alpha": {0, 1, 2, 7, 12}}
    assert store.finished(cfg.id, [], 10) == {}


def test_games_are_ordered_and_limited_to_the_first_boards(store: Store, make_result: MakeResult) -> None:
    cfg = config()
    store.ensure_tournament(cfg, {})
    store.save(cfg.id, [make_result(p, b) for b in (3, 0, 2, 1) for p in ("beta", "alpha")])
    assert [(g.player, g.board) for g in store.games(cfg.id, 2)] == [
        ("alpha", 0),
        ("alpha", 1),
        ("beta", 0),
        ("beta", 1),
    ]
    assert len(store.games(cfg.id)) == 8


def test_tournaments_and_latest(tmp_path: Path, clock: None, make_result: MakeResult) -> None:
    with Store(tmp_path / "arena.db") as db:
        with pytest.raises(StoreError, match="holds no tournament"):
            db.latest()
        one, two = config(seed=1), config(seed=2)
        db.ensure_tournament(one, {})
        db.ensure_tournament(two, {})
        db.save(one.id, [make_result("alpha", b) for b in range(4)])
        assert db.latest() == two.id
        listed = db.tournaments()
        assert [t.id for t in listed] == [two.id, one.id]
        assert {t.id: t.games_stored for t in listed} == {one.id: 4, two.id: 0}
        assert listed[1].seed == 1
        assert listed[0].last_finished is None and listed[1].last_finished is not None
        assert db.tournament(one.id).games_stored is None  # only the listing counts the games
        # Resuming a tournament makes it the latest again.
        db.ensure_tournament(one, {})
        assert db.latest() == one.id
        with pytest.raises(StoreError, match="no tournament 'nope'"):
            db.tournament("nope")


def test_latest_is_the_most_recent_even_within_one_second(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "_now", lambda: "2030-01-01T00:00:00+00:00")
    # The second tournament started has the larger id: an id tie-break puts the first one on top.
    first, second = sorted((config(seed=s) for s in (1, 2)), key=lambda c: c.id)
    with Store(tmp_path / "arena.db") as db:
        db.ensure_tournament(first, {})
        db.ensure_tournament(second, {})
        assert db.latest() == second.id


# -- what is not a store ------------------------------------------------------------------------------------------


def test_missing_store_without_create_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "arena.db"
    with pytest.raises(StoreError, match="no results store at") as info:
        Store(path, create=False)
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)
    assert not path.parent.exists()


def test_directory_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=re.escape(str(tmp_path))):
        Store(tmp_path, create=False)
    with pytest.raises(StoreError, match="cannot use"):
        Store(tmp_path, create=True)


@pytest.mark.parametrize("create", [False, True])
def test_text_file_is_not_a_store_and_is_left_alone(tmp_path: Path, create: bool) -> None:
    path = tmp_path / "notes.txt"
    content = "these are my notes, not a database\n" * 50
    path.write_text(content)
    with pytest.raises(StoreError, match=r"cannot use .* as a results store") as info:
        Store(path, create=create)
    assert "not a database" in str(info.value)
    assert path.read_text() == content


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def steps(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY position")]


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def from_a_newer_version(db: sqlite3.Connection) -> None:
    """What a newer version leaves: one more step recorded, and counted in user_version."""
    db.execute(
        "INSERT INTO migrations (position, name, applied) VALUES (?, 'from-the-future', 'later')", (SCHEMA_VERSION,)
    )
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")


def counted_but_not_recorded(db: sqlite3.Connection) -> None:
    """A schema number past this version's with no steps to show for it: nothing this version may migrate."""
    db.execute("PRAGMA user_version = 99")


def without_a_history(db: sqlite3.Connection) -> None:
    db.execute("DROP TABLE migrations")
    db.execute("PRAGMA user_version = 99")


@pytest.mark.parametrize(
    ("newer", "needle"),
    [
        (from_a_newer_version, r"newer minesweeper-arena \(schema step 'from-the-future' is unknown here\)"),
        (counted_but_not_recorded, f"has store schema 99 but records {SCHEMA_VERSION} schema steps; .* newer"),
        (without_a_history, "has store schema 99 but records 0 schema steps; .* newer or unknown"),
    ],
)
@pytest.mark.parametrize("read_only", [False, True])
def test_store_of_a_newer_schema_is_refused_untouched(
    tmp_path: Path, make_result: MakeResult, read_only: bool, newer: Callable[[sqlite3.Connection], None], needle: str
) -> None:
    path = tmp_path / "arena.db"
    cfg = config()
    with Store(path) as db:
        db.ensure_tournament(cfg, {})
        db.save(cfg.id, [make_result("alpha", 0)])
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        newer(db)
    before = digest(path)
    with pytest.raises(StoreError, match=needle) as info:
        Store(path, create=False, read_only=read_only)
    assert "\n" not in str(info.value)
    assert digest(path) == before
    if not read_only:  # (a reader may leave SQLite's -shm and an empty -wal beside it, as any reader of WAL does)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["arena.db"]


def old_store(path: Path, version: str, make_result: MakeResult) -> TournamentConfig:
    """A store as versions before ``user_version`` wrote it: schema 1's tables, without the records table or the
    migrations table, and the schema version in the meta table only."""
    cfg = config()
    with Store(path) as db:
        db.ensure_tournament(cfg, {})
        db.save(cfg.id, [make_result("alpha", 0), make_result("beta", 0)])
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("DROP TABLE migrations")
        db.execute("DROP TABLE records")
        db.execute("DROP TRIGGER IF EXISTS games_totals")
        db.execute("DROP TABLE game_totals")
        db.execute("DROP TABLE first_clicks")
        for table in ("tournament_names", "entrant_owners", "match_settings"):  # the labels' two steps
            db.execute(f"DROP TABLE {table}")
        for column in ("base", "fingerprint", "seen", "files"):  # the player-versions and player-files steps
            db.execute(f"ALTER TABLE players DROP COLUMN {column}")
        db.execute("PRAGMA user_version = 0")
        db.execute("PRAGMA application_id = 0")
        db.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (version,))
    assert tables(path) == {"meta", "tournaments", "players", "games"}
    return cfg


def application_id(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA application_id").fetchone()[0])


def test_a_store_from_before_user_version_opens_and_is_migrated(tmp_path: Path, make_result: MakeResult) -> None:
    path = tmp_path / "arena.db"
    cfg = old_store(path, "1", make_result)
    before = digest(path)
    with Store(path, read_only=True) as db:  # reading migrates nothing
        assert [(g.player, g.board) for g in db.games(cfg.id)] == [("alpha", 0), ("beta", 0)]
        assert db.records_stored(cfg.id) == 0
    assert digest(path) == before
    with Store(path, create=False) as db:
        assert db.save(cfg.id, [make_result("alpha", 1, record=b"not checked here")]) == 1
        assert len(db.games(cfg.id)) == 3
        assert db.records_stored(cfg.id) == 1
    assert user_version(path) == SCHEMA_VERSION
    assert steps(path) == [m.name for m in MIGRATIONS]  # schema 1's step recorded as applied, the rest run
    assert application_id(path) == APPLICATION_ID
    with Store(path, create=False) as db:  # migrated once: opening again changes nothing
        assert len(db.games(cfg.id)) == 3
    assert steps(path) == [m.name for m in MIGRATIONS]


@pytest.mark.parametrize(("version", "needle"), [("99", "has store schema 99"), ("x", "has store schema x")])
@pytest.mark.parametrize("read_only", [False, True])
def test_an_old_store_of_another_schema_is_refused_untouched(
    tmp_path: Path, make_result: MakeResult, version: str, needle: str, read_only: bool
) -> None:
    path = tmp_path / "arena.db"
    old_store(path, version, make_result)
    before = digest(path)
    with pytest.raises(StoreError, match=needle):
        Store(path, create=False, read_only=read_only)
    assert digest(path) == before


def test_the_games_table_is_derived_from_game_result() -> None:
    """GameResult's fields are the columns (the record has its own table), with ``won`` after the outcome."""
    names = [f.name for f in dataclasses.fields(GameResult) if f.name != "record"]
    assert [c for c in GAME_COLUMNS if c != "won"] == names
    assert GAME_COLUMNS.index("won") == GAME_COLUMNS.index("outcome") + 1


_SQL_TYPES = {int: "INTEGER", float: "REAL", str: "TEXT", PlayerKey: "TEXT", Outcome: "TEXT"}


def test_every_game_result_field_has_a_column_of_its_type(tmp_path: Path) -> None:
    """The history's steps make a column for every GameResult field, typed and nullable as its annotation says."""
    with Store(tmp_path / "arena.db") as db:
        columns = {row["name"]: row for row in db.db.execute("PRAGMA table_info(games)")}
    hints = typing.get_type_hints(GameResult)
    checked = 0
    for field in dataclasses.fields(GameResult):
        if field.name == "record":
            continue
        kinds = set(typing.get_args(hints[field.name])) or {hints[field.name]}
        nullable = type(None) in kinds
        (kind,) = kinds - {type(None)}
        assert field.name in columns, f"no games column for GameResult.{field.name}"
        assert (columns[field.name]["type"], not columns[field.name]["notnull"]) == (_SQL_TYPES[kind], nullable)
        checked += 1
    assert checked == len(GAME_COLUMNS) - 1 == 16
    assert {"tournament_id", "won", "finished"} <= set(columns)


@dataclasses.dataclass(frozen=True, slots=True)
class Wider(GameResult):
    """A result with a field a developer added without its migration step."""

    ratio: float | None = None


class Forgetful(Store):
    result_type = Wider


@pytest.mark.parametrize("existing", [False, True])
def test_a_game_result_field_without_a_migration_step_is_refused(
    tmp_path: Path, make_result: MakeResult, existing: bool
) -> None:
    """A new field needs a step that adds its column: without one, the store says so when it is opened for
    writing, new or not, and leaves the file as it was; reading takes the missing column as the default."""
    path = tmp_path / "arena.db"
    cfg = config()
    if existing:
        with Store(path) as db:
            db.ensure_tournament(cfg, {})
            db.save(cfg.id, [make_result("alpha", 0)])
    before = digest(path) if existing else None
    with pytest.raises(StoreError, match=r"schema history has no step for the games column\(s\) \['ratio'\]") as info:
        Forgetful(path)
    assert "\n" not in str(info.value)
    if existing:
        assert digest(path) == before
        with Forgetful(path, read_only=True) as db:
            assert [(type(g), g.ratio) for g in db.games(cfg.id)] == [(Wider, None)]
    else:
        assert user_version(path) == 0 and "games" not in tables(path)  # the migration was rolled back


def test_a_new_store_is_private_to_its_owner(tmp_path: Path) -> None:
    if sys.platform == "win32":
        pytest.skip("POSIX permissions")
    path = tmp_path / "arena.db"
    with Store(path) as db:
        db.ensure_tournament(config(), {})
        assert (path.stat().st_mode & 0o777) == 0o600
        assert (Path(f"{path}-wal").stat().st_mode & 0o777) == 0o600
    existing = tmp_path / "shared.db"
    Store(existing).close()
    existing.chmod(0o644)
    Store(existing).close()
    assert (existing.stat().st_mode & 0o777) == 0o644  # an existing store keeps the mode its owner chose


def test_foreign_sqlite_database_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE recipes (name TEXT)")
    try:
        with pytest.raises(StoreError):
            Store(path, create=False)
    finally:
        assert tables(path) == {"recipes"}


def test_custom_board_tournament_round_trips(store: Store) -> None:
    cfg = TournamentConfig.build(BoardSpec(5, 6, 4), FirstClick.NONE, seed=3, games=2)
    store.ensure_tournament(cfg, {})
    stored = store.tournament(cfg.id)
    assert stored.difficulty == "5x6/4"
    assert stored.spec == BoardSpec(5, 6, 4)
    assert stored.rule is FirstClick.NONE
    assert TournamentConfig.model_validate_json(stored.config) == cfg


# -- where the store lives ----------------------------------------------------------------------------------------


@pytest.fixture
def no_store_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No $ARENA_STORE, and a private $HOME and $XDG_DATA_HOME: what a user who configured nothing gets."""
    monkeypatch.delenv("ARENA_STORE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(sys, "platform", "linux")
    return tmp_path


def test_default_store_is_in_the_user_data_folder_not_the_current_one(no_store_env: Path) -> None:
    assert default_store() == no_store_env / "xdg" / "minesweeper-arena" / "arena.db"


def test_default_store_follows_the_xdg_rules(no_store_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home_default = no_store_env / "home" / ".local" / "share" / "minesweeper-arena" / "arena.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_store() == home_default
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")  # invalid by the XDG spec: ignored
    assert default_store() == home_default


@pytest.mark.parametrize(
    "platform,expected",
    [("darwin", ("home", "Library", "Application Support")), ("win32", ("local-app-data",))],
)
def test_default_store_on_macos_and_windows(
    no_store_env: Path, monkeypatch: pytest.MonkeyPatch, platform: str, expected: tuple[str, ...]
) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setenv("LOCALAPPDATA", str(no_store_env / "local-app-data"))
    assert default_store() == no_store_env.joinpath(*expected, "minesweeper-arena", "arena.db")


def test_arena_store_variable_overrides_the_default(no_store_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_STORE", str(no_store_env / "elsewhere.db"))
    assert default_store() == no_store_env / "elsewhere.db"
    monkeypatch.setenv("ARENA_STORE", "~/results.db")
    assert default_store() == no_store_env / "home" / "results.db"


def test_store_without_a_path_creates_the_default_folder(no_store_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(no_store_env)
    with Store() as db:
        assert db.path == no_store_env / "xdg" / "minesweeper-arena" / "arena.db"
    assert db.path.is_file()
    assert not (no_store_env / "leaderboards").exists()


def test_missing_default_store_points_at_results_of_older_versions(
    no_store_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(no_store_env)
    Store(no_store_env / "leaderboards" / "arena.db").close()
    with pytest.raises(StoreError, match=r"pass --store leaderboards.arena\.db") as info:
        Store(read_only=True)
    assert "\n" not in str(info.value)


# -- reading without writing --------------------------------------------------------------------------------------


def test_a_reader_cannot_write(tmp_path: Path, make_result: MakeResult) -> None:
    path = tmp_path / "arena.db"
    with Store(path) as db:
        db.ensure_tournament(config(), {})
    with Store(path, read_only=True) as reader, pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader.db.execute("DELETE FROM tournaments")


def test_a_read_only_store_in_a_read_only_folder_can_be_read(
    read_only_folder: tuple[Path, Callable[[], Any]], make_result: MakeResult
) -> None:
    folder, locked = read_only_folder
    path = folder / "arena.db"
    cfg = config()
    with Store(path) as db:
        db.ensure_tournament(cfg, {})
        db.save(cfg.id, [make_result("alpha", 0), make_result("beta", 0)])
    assert sorted(p.name for p in folder.iterdir()) == ["arena.db"]  # closed cleanly: no -wal, no -shm
    with locked(), Store(path, read_only=True) as reader:
        assert reader.latest() == cfg.id
        assert len(reader.games(cfg.id)) == 2
    assert sorted(p.name for p in folder.iterdir()) == ["arena.db"]
