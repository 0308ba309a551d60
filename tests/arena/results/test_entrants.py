"""Versions are part of a player's identity: games of two versions never share a row, a later version is a new
entrant ``KEY@VERSION`` on the same boards, leaderboards show each player's latest version unless asked for all,
and a version that runs again with other files is said once."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from recorder import Recorder
from repo import ROOT
from typer.testing import Result

from arena.analysis.leaderboard import build_leaderboard
from arena.config import PlayerRef, TournamentConfig
from arena.limits import Isolation
from arena.play.fingerprint import fingerprint_files
from arena.play.tournament import TournamentSummary, plan_tournament, run_tournament
from arena.results.entrants import Running, latest_keys, resolve_entrants, version_tag
from arena.results.migrations import MIGRATIONS
from arena.results.store import Store
from arena.results.stored import StoredPlayer
from engine import BoardSpec, FirstClick
from players import Player
from players.api import NAME_PATTERN
from players.registry import Registry, _version

SMALL = BoardSpec(6, 6, 5)

VBOT = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class VBot(RandomPlayer):
    name = "vbot"
    description = "random, at a version"
    version = {version!r}


@hookimpl
def register_players(register):
    register(VBot)
# {comment}
"""


def config(games: int = 6, players: tuple[str, ...] = ("vbot", "random")) -> TournamentConfig:
    refs = tuple(PlayerRef(name=n) for n in players)
    return TournamentConfig.build(
        SMALL, FirstClick.SAFE, seed=2, games=games, players=refs, isolation=Isolation.TRUSTED
    )


@pytest.fixture
def vbot(tmp_path: Path) -> Callable[..., Path]:
    """``vbot(folder, version, comment="")``: the plugin file ``folder/vbot.py`` at that version."""

    def write(folder: str, version: str, comment: str = "") -> Path:
        path = tmp_path / folder / "vbot.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(VBOT.format(version=version, comment=comment))
        return path

    return write


def play(cfg: TournamentConfig, store: Store, registry: Registry, notes: list[str]) -> TournamentSummary:
    """Plan and run ``cfg`` on one worker; the notes the run says go to ``notes``."""
    events = Recorder()
    summary = run_tournament(plan_tournament(cfg, store, registry, workers=1), store, events)
    notes.extend(events.notes)
    return summary


def rows(store: Store, tid: str) -> dict[str, int]:
    """Games per row of the tournament."""
    query = "SELECT player, COUNT(*) FROM games WHERE tournament_id = ? GROUP BY player"
    return {str(p): int(n) for p, n in store.db.execute(query, (tid,))}


def test_a_new_version_is_a_new_entrant_on_the_same_boards(tmp_path: Path, vbot: Callable[..., Path]) -> None:
    notes: list[str] = []
    with Store(tmp_path / "s.db") as store:
        first = play(config(6), store, Registry([vbot("v1", "1")]), notes)
        second = play(config(6), store, Registry([vbot("v2", "2")]), notes)
        assert first.keys == {"vbot": "vbot", "random": "random"}
        assert second.keys == {"vbot": "vbot@2", "random": "random"}
        assert second.played == 6  # version 2's games only; random's are stored already
        assert rows(store, first.tournament_id) == {"vbot": 6, "vbot@2": 6, "random": 6}
        # Both versions played the same boards with the same generator (they play alike): same results.
        games = {(g.player, g.board): g.won for g in store.games(first.tournament_id)}
        assert [games["vbot", b] for b in range(6)] == [games["vbot@2", b] for b in range(6)]
        # Version 1 again: back to its own row, nothing to play.
        again = play(config(6), store, Registry([vbot("v1", "1")]), notes)
        assert again.keys["vbot"] == "vbot" and again.played == 0
        versions = {p.key: (p.version, p.base) for p in store.players(first.tournament_id)}
        assert versions == {"vbot": ("1", "vbot"), "vbot@2": ("2", "vbot"), "random": (versions["random"][0], "random")}
    assert notes == []


def test_leaderboards_show_the_latest_version_unless_all_are_asked(tmp_path: Path, vbot: Callable[..., Path]) -> None:
    with Store(tmp_path / "s.db") as store:
        run_tournament(plan_tournament(config(5), store, Registry([vbot("v1", "1")]), workers=1), store)
        summary = run_tournament(plan_tournament(config(5), store, Registry([vbot("v2", "2")]), workers=1), store)
        latest = build_leaderboard(store, summary.tournament_id)
        every = build_leaderboard(store, summary.tournament_id, all_versions=True)
        for board in (latest, every):  # the running totals and the reference (every game) agree on who is shown
            reference = build_leaderboard(
                store, summary.tournament_id, reference=True, all_versions=board.hidden_versions == 0
            )
            assert [(r.player, r.label, r.games, r.wins) for r in board.rows] == [
                (r.player, r.label, r.games, r.wins) for r in reference.rows
            ]
            assert reference.hidden_versions == board.hidden_versions
        run_tournament(plan_tournament(config(5), store, Registry([vbot("v1", "1")]), workers=1), store)
        back = build_leaderboard(store, summary.tournament_id)
    assert sorted(r.player for r in latest.rows) == ["random", "vbot@2"] and latest.hidden_versions == 1
    assert sorted(r.player for r in every.rows) == ["random", "vbot", "vbot@2"] and every.hidden_versions == 0
    # With both versions shown, each row names its version; every row has its own games, never the sum.
    assert sorted(r.label for r in every.rows) == ["random", "vbot@1", "vbot@2"]
    assert [r.games for r in every.rows] == [5, 5, 5]
    # The latest version is the one that ran last, not the largest.
    assert sorted(r.player for r in back.rows) == ["random", "vbot"] and back.hidden_versions == 1


def test_the_same_version_with_other_files_is_said_once(tmp_path: Path, vbot: Callable[..., Path]) -> None:
    notes: list[str] = []
    with Store(tmp_path / "s.db") as store:
        play(config(3), store, Registry([vbot("a", "2")]), notes)
        assert notes == []
        changed = Registry([vbot("b", "2", "changed without a new version")])
        summary = play(config(4), store, changed, notes)
        assert len(notes) == 1 and "vbot version 2" in notes[0] and "other files" in notes[0]
        assert summary.keys["vbot"] == "vbot"  # the same version: the same row
        play(config(5), store, Registry([vbot("b", "2", "changed without a new version")]), notes)
        assert len(notes) == 1  # said once
        fingerprints = {p.key: p.fingerprint for p in store.players(summary.tournament_id)}
    assert fingerprints["vbot"] and fingerprints["random"] == ""  # a built-in player has none


def test_an_older_store_reads_and_resumes_its_rows(tmp_path: Path, vbot: Callable[..., Path]) -> None:
    """A store from before versions counted: read-only it reads as it was; written, its plain rows are the
    first version's, and a rerun plays nothing again."""
    path = tmp_path / "old.db"
    with Store(path) as store:
        summary = run_tournament(plan_tournament(config(4), store, Registry([vbot("v1", "1")]), workers=1), store)
    step = [m.name for m in MIGRATIONS].index("player-versions")
    with sqlite3.connect(path) as db:  # back to the store the version before this step wrote
        for column in ("base", "fingerprint", "seen"):
            db.execute(f"ALTER TABLE players DROP COLUMN {column}")
        db.execute("DELETE FROM migrations WHERE position >= ?", (step,))
        db.execute(f"PRAGMA user_version = {step}")
        assert "base" not in [row[1] for row in db.execute("PRAGMA table_info(players)")]
    with Store(path, read_only=True) as store:
        board = build_leaderboard(store, summary.tournament_id)
        assert sorted((r.player, r.games) for r in board.rows) == [("random", 4), ("vbot", 4)]
        assert {p.key: p.base for p in store.players(summary.tournament_id)} == {"random": "random", "vbot": "vbot"}
    with Store(path) as store:
        again = run_tournament(plan_tournament(config(4), store, Registry([vbot("v1", "1")]), workers=1), store)
        assert again.played == 0 and again.keys["vbot"] == "vbot"
        newer = run_tournament(plan_tournament(config(4), store, Registry([vbot("v2", "2")]), workers=1), store)
        assert newer.played == 4 and rows(store, summary.tournament_id)["vbot@2"] == 4


# -- the rules, as values ------------------------------------------------------------------------------------------


def entrant(key: str, version: str, seen: int = 1, fingerprint: str = "", base: str = "") -> StoredPlayer:
    return StoredPlayer(key, key.partition("@")[0], {}, version, "x", base=base or key.partition("@")[0],
                        fingerprint=fingerprint, seen=seen)  # fmt: skip


def test_resolve_names_each_version_once() -> None:
    cfg = config(3, ("vbot",))
    stored = [entrant("vbot", "1", 1, "aaa"), entrant("vbot@2", "2", 2, "bbb")]
    cases = {("1", "aaa"): "vbot", ("2", "bbb"): "vbot@2", ("3", "ccc"): "vbot@3", ("1.0 beta", ""): None}
    for (version, fingerprint), key in cases.items():
        resolved, notes = resolve_entrants(cfg, stored, {"vbot": Running(version, "file x", fingerprint)})
        got = resolved.players[0].key
        assert got == (key or f"vbot@{version_tag(version)}") and notes == []
    assert len(cases) == 4
    resolved, notes = resolve_entrants(cfg, [], {"vbot": Running("7", "file x", "zzz")})
    assert resolved.players[0].key == "vbot" and notes == []  # a player the tournament has not seen: plain key
    _, notes = resolve_entrants(cfg, stored, {"vbot": Running("2", "file x", "other")})
    assert len(notes) == 1 and "bbb" in notes[0] and "other" in notes[0]


def test_resolve_keeps_options_in_the_base() -> None:
    ref = PlayerRef(name="random", options={"subsets": True})
    cfg = TournamentConfig.build(SMALL, FirstClick.SAFE, games=2, players=(ref,))
    stored = [entrant(ref.key, "1", base=ref.key)]
    resolved, _ = resolve_entrants(cfg, stored, {ref.key: Running("2", "builtin")})
    assert resolved.players[0].key == "random[subsets=true]@2"
    assert resolved.players[0].base == ref.key and resolved.players[0].options == {"subsets": True}


def test_latest_keys_pick_the_newest_run_among_the_rows_shown() -> None:
    entrants = [entrant("a", "1", 1), entrant("a@2", "2", 3), entrant("a@3", "3", 2), entrant("b", "1", 1)]
    assert latest_keys(entrants, ["a", "a@2", "a@3", "b", "stray"]) == {"a@2", "b", "stray"}
    assert latest_keys(entrants, ["a", "a@3"]) == {"a@3"}  # the newest has no games here: the next newest


@given(st.text(max_size=80))
def test_a_version_tag_is_always_a_short_plain_word(version: str) -> None:
    tag = version_tag(version)
    assert NAME_PATTERN.match(tag.lower().replace("+", "-")) and len(tag) <= 40
    assert "@" not in tag and not any(c.isspace() for c in tag)


@given(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}", fullmatch=True))
def test_a_plain_version_is_its_own_tag(version: str) -> None:
    assert version_tag(version) == version


def test_a_package_version_moves_the_players_version() -> None:
    class Plain(Player):
        name = "plain"

        def play(self, observation):  # type: ignore[no-untyped-def]
            return []

    class Declared(Plain):
        version = "3"

    assert _version(Plain, "") == "1"
    assert _version(Plain, "0.2.0") == "0.2.0"
    assert _version(Declared, "0.2.0") == "3+0.2.0"
    assert _version(Declared, "") == "3"


def test_fingerprints_follow_contents_not_place(tmp_path: Path) -> None:
    for folder, text in (("a", "x = 1\n"), ("b", "x = 1\n"), ("c", "x = 2\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bot.py").write_text(text)
        (tmp_path / folder / "__pycache__").mkdir()
        (tmp_path / folder / "__pycache__" / "bot.pyc").write_bytes(folder.encode())  # caches never count
    a, b, c = (fingerprint_files([tmp_path / f]) for f in "abc")
    assert a == b != c and len(a) == 16
    assert fingerprint_files([tmp_path / "a" / "bot.py"]) == fingerprint_files([tmp_path / "b" / "bot.py"])
    assert fingerprint_files([tmp_path / "missing"]) == ""


def test_the_leaderboard_command_shows_the_latest_version_or_all(
    tmp_path: Path, vbot: Callable[..., Path], cli: Callable[..., Result]
) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        run_tournament(plan_tournament(config(4), store, Registry([vbot("v1", "1")]), workers=1), store)
        run_tournament(plan_tournament(config(4), store, Registry([vbot("v2", "2")]), workers=1), store)
    latest = cli("leaderboard", "--store", path, columns=80)
    assert latest.exit_code == 0, latest.output
    assert "vbot@2" in latest.stdout and "vbot@1" not in latest.stdout
    assert "1 row of older versions not shown (--all-versions shows them)" in latest.stdout
    every = cli("leaderboard", "--store", path, "--all-versions", columns=80)
    assert every.exit_code == 0, every.output
    assert "vbot@1" in every.stdout and "vbot@2" in every.stdout and "not shown" not in every.stdout
    assert all(len(line) <= 80 for line in every.stdout.splitlines())
    data = json.loads(cli("leaderboard", "--store", path, "--json").stdout)
    assert [r["player"] for r in data["rows"]].count("vbot@2") == 1 and data["hidden_versions"] == 1


@pytest.mark.slow
def test_an_engine_bots_hello_version_is_its_version(tmp_path: Path, cli: Callable[..., Result]) -> None:
    source = (ROOT / "examples" / "standalone_bot.py").read_text()
    assert 'VERSION = "1"' in source
    path = tmp_path / "s.db"
    keys = []
    for version in ("1", "2"):
        bot = tmp_path / f"v{version}" / "bot.py"
        bot.parent.mkdir()
        bot.write_text(source.replace('VERSION = "1"', f'VERSION = "{version}"'))
        engine = f"sb={sys.executable} {bot}"
        args = ("tournament", "-d", "beginner", "-n", "2", "-p", "sb", "--engine-bot", engine, "--sandbox", "off")
        result = cli(*args, "-w", "1", "--all-versions", "--store", path, "--json")
        assert result.exit_code == 0, result.output
        keys.append(sorted(row["player"] for row in json.loads(result.stdout)["rows"]))
    assert keys == [["sb"], ["sb", "sb@2"]]
    with Store(path, read_only=True) as store:
        entrants = {p.key: (p.version, bool(p.fingerprint)) for p in store.players(store.latest())}
    assert entrants == {"sb": ("1", True), "sb@2": ("2", True)}
