"""``arena compete``: the example competition end to end, and a competition run again: after an interruption
(every finished game kept), with more boards, and after one entrant's new version (only its games played)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from recorder import Recorder
from repo import ROOT

from arena.isolation.check_bot.check import CheckResult
from arena.play.backends import local

EXAMPLE = ROOT / "examples" / "competition"
#: What a run of the example leaves beside it (ignored by git), never copied.
_RUN_FILES = shutil.ignore_patterns("competition.db*", "competition-results", "__pycache__")


def _web_extra() -> bool:
    try:
        import arena.web.site  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.slow
def test_the_example_competition_end_to_end(tmp_path: Path, cli) -> None:
    """Three entrants in three forms (a plugin file, an engine command, a Python kit made by ``arena new-bot``):
    the kit is built, each is checked with check-bot's checks, each plays every board, the results are
    published. The plugin's class calls itself ``fewest-numbers``: it plays as its entrant, ``alice``."""
    folder = tmp_path / "competition"
    shutil.copytree(EXAMPLE, folder, ignore=_RUN_FILES)
    result = cli("compete", folder / "competition.toml", "--workers", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    board = data["leaderboard"]
    assert {row["player"]: row["games"] for row in board["rows"]} == {"alice": 20, "bob": 20, "carol": 20}
    assert all(row["failed"] == 0 for row in board["rows"])
    assert [e["status"] for e in data["entrants"]] == ["played"] * 3
    assert {e["name"]: e["owner"] for e in data["entrants"]}["carol"] == "Carol Shaw"
    assert data["run"] == data["run"] | {"played": 60, "skipped": 0, "store": str(folder / "competition.db")}
    results = folder / "competition-results"
    markdown = (results / "leaderboard.md").read_text()
    assert markdown.startswith("# Example cup\n")
    assert sum(f"| {name} |" in markdown for name in ("alice", "bob", "carol")) == 3
    assert json.loads((results / "leaderboard.json").read_text())["leaderboard"]["rows"] == board["rows"]
    if _web_extra():
        assert (results / "site" / "index.html").is_file()
        assert data["run"]["site"] == str(results / "site")
    else:
        assert "needs the web extra" in data["run"]["site_note"]


BOT = (EXAMPLE / "bob" / "bot.py").read_text()


def _two_bots(folder: Path, boards: int) -> Path:
    """A competition of two engine bots (quick to start), each a copy of the example's ``bob``."""
    for name in ("bob", "bea"):
        (folder / name).mkdir(exist_ok=True)
        script = folder / name / "bot.py"
        script.write_text(BOT)
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    path = folder / "cup.toml"
    path.write_text(
        f'name = "rerun cup"\nsandbox = "auto"\n[boards]\ndifficulty = "beginner"\ncount = {boards}\n'
        '[limits]\nmove_time = 30\n\n[[entrants]]\nname = "bob"\nowner = "B"\ncommand = "python3 bob/bot.py"\n'
        '[[entrants]]\nname = "bea"\nowner = "E"\ncommand = ["python3", "bea/bot.py"]\nfolder = "bea"\n'
    )
    return path


@pytest.fixture
def checks_pass(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """check-bot's checks replaced by one that passes (the example's test runs the real ones): these tests are
    about what is played, and each real check costs seconds. Returns the names checked, in order."""
    checked: list[str] = []

    def passing(target: Any, limits: Any) -> Iterator[CheckResult]:
        checked.append(target.name)
        yield CheckResult("hello", "answers hello", True, "a hello", "one")

    monkeypatch.setattr("arena.competition.prepare.check_bot", passing)
    return checked


def _run(cli: Any, path: Path) -> dict[str, Any]:
    result = cli("compete", path, "--workers", "1", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.slow
def test_a_rerun_plays_only_what_the_store_lacks(tmp_path: Path, cli, checks_pass, monkeypatch) -> None:
    path = _two_bots(tmp_path, 6)
    # Interrupted after its first commit (a Ctrl-C), the competition keeps every finished game...
    monkeypatch.setattr(local, "COMMIT_SECONDS", 0.0)  # commit each batch: the interruption lands mid-run
    import arena.cli.tournament  # noqa: F401 (imported now, it binds the real run_tournament, not the one patched here)
    import arena.play.tournament as tournament

    real = tournament.run_tournament

    def interrupted(plan: Any, store: Any, events: Any = None, **kwargs: Any) -> Any:
        def stop(n: int) -> None:
            raise KeyboardInterrupt

        return real(plan, store, Recorder(on_batch=stop), **kwargs)

    monkeypatch.setattr(tournament, "run_tournament", interrupted)
    result = cli("compete", path, "--workers", "1", "-q")
    assert result.exit_code == 130, result.output
    assert "games committed; the same command resumes the competition" in result.stderr
    committed = int(result.stderr.split("interrupted: ")[1].split()[0])
    assert 0 < committed < 12
    monkeypatch.setattr(tournament, "run_tournament", real)
    # ... and the same command plays the rest.
    data = _run(cli, path)
    assert (data["run"]["played"], data["run"]["skipped"]) == (12 - committed, committed)
    # Nothing left: nothing played.
    assert (_run(cli, path)["run"]["played"], checks_pass[-2:]) == (0, ["bob", "bea"])
    # More boards: only the new boards are played.
    path.write_text(path.read_text().replace("count = 6", "count = 9"))
    data = _run(cli, path)
    assert (data["run"]["played"], data["run"]["skipped"]) == (6, 12)
    assert {row["player"]: row["games"] for row in data["leaderboard"]["rows"]} == {"bob": 9, "bea": 9}
    # The store keeps the competition's name and each entrant's owner, which its pages show.
    from arena.results.store import Store

    with Store(data["run"]["store"], read_only=True) as store:
        labels = store.labels(data["leaderboard"]["config"]["tournament_id"])
    assert (labels.name, labels.owners) == ("rerun cup", {"bob": "B", "bea": "E"})


@pytest.mark.slow
def test_a_new_version_plays_only_its_own_games(tmp_path: Path, cli, checks_pass) -> None:
    """One entrant changed (its hello says version 2): the rerun plays that version on every board and nothing
    else; the leaderboard shows the new version, the old one's row is kept, hidden."""
    path = _two_bots(tmp_path, 5)
    first = _run(cli, path)
    assert first["run"]["played"] == 10
    bob = tmp_path / "bob" / "bot.py"
    bob.write_text(
        bob.read_text().replace(
            'NAME, VERSION, PROTOCOL = "centre", "1", 1', 'NAME, VERSION, PROTOCOL = "centre", "2", 1'
        )
    )
    assert '"2", 1' in bob.read_text()
    data = _run(cli, path)
    assert (data["run"]["played"], data["run"]["skipped"]) == (5, 5)
    rows = {row["player"]: (row["version"], row["games"]) for row in data["leaderboard"]["rows"]}
    assert rows == {"bob@2": ("2", 5), "bea": ("1", 5)}
    assert data["leaderboard"]["hidden_versions"] == 1
    entrants = {e["name"]: (e["player"], e["version"]) for e in data["entrants"]}
    assert entrants == {"bob": ("bob@2", "2"), "bea": ("bea", "1")}
    markdown = (tmp_path / "cup-results" / "leaderboard.md").read_text()
    assert "| bob@2 | B | 2 | 5 |" in markdown


@pytest.mark.slow
def test_an_entrant_that_fails_is_left_out_and_the_others_play(tmp_path: Path, cli) -> None:
    """A kit whose build fails, a plugin that cannot be imported and a bot that does not start are reported with
    their reasons; the one that passes check-bot's (real) checks plays alone."""
    path = _two_bots(tmp_path, 3)
    kit = tmp_path / "broken"
    kit.mkdir()
    (kit / "build.sh").write_text("#!/bin/sh\necho 'compiler: strategy.x:3: missing ;' >&2\nexit 3\n")
    (kit / "run.sh").write_text("#!/bin/sh\nexit 0\n")
    for script in kit.iterdir():
        script.chmod(0o755)
    (tmp_path / "mute").mkdir()
    (tmp_path / "mute" / "mute.py").write_text("import sys\nsys.exit(4)\n")
    text = path.read_text().replace(
        'command = ["python3", "bea/bot.py"]\nfolder = "bea"', 'command = "python3 mute/mute.py"'
    )
    (tmp_path / "fragile").mkdir()
    (tmp_path / "fragile" / "bot.py").write_text("import numpy\nimport no_such_module_for_the_arena\n")
    text += '[[entrants]]\nname = "fragile"\nowner = "F"\nplugin = "fragile"\n'
    path.write_text(text + '[[entrants]]\nname = "kitty"\nowner = "K"\nkit = "broken"\n')
    data = _run(cli, path)
    status = {e["name"]: (e["status"], e["reason"]) for e in data["entrants"]}
    assert status["bob"] == ("played", "")
    assert status["kitty"] == ("left out", "build: build.sh failed (exit 3): compiler: strategy.x:3: missing ;")
    assert status["fragile"] == (
        "left out",
        "load: ModuleNotFoundError: No module named 'no_such_module_for_the_arena'",
    )
    assert status["bea"][0] == "left out" and status["bea"][1].startswith("check: "), status
    assert "did not start" in status["bea"][1], status
    assert {row["player"]: row["games"] for row in data["leaderboard"]["rows"]} == {"bob": 3}
    markdown = (tmp_path / "cup-results" / "leaderboard.md").read_text()
    assert "left out: build: build.sh failed (exit 3)" in markdown


PACKAGE_BOT = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class CupBot(RandomPlayer):
    name = "cup-bot"
    version = "3"


@hookimpl
def register_players(register):
    register(CupBot)
"""


@pytest.mark.slow
def test_a_package_entrant_plays_under_its_players_name(
    tmp_path: Path, cli, checks_pass, monkeypatch: pytest.MonkeyPatch, one_error_line
) -> None:
    """An installed package (here its metadata and module in a folder on the path, as pip leaves them) plays
    through its entry point, in a process of its own; its version is the class's and the package's. The arena
    cannot rename a package's player: another name is bad input that names the package's players."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "arena_test_cup_bot.py").write_text(PACKAGE_BOT)
    info = site / "arena_test_cup_bot-0.4.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-test-cup-bot\nVersion: 0.4\n")
    (info / "entry_points.txt").write_text("[minesweeper_arena]\nbot = arena_test_cup_bot\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    path = _two_bots(tmp_path, 3)
    text = path.read_text().replace('sandbox = "auto"', "sandbox = false")
    path.write_text(text + '[[entrants]]\nname = "cup-bot"\nowner = "P"\npackage = "arena_test_cup_bot"\n')
    data = _run(cli, path)
    rows = {row["player"]: (row["version"], row["games"], row["failed"]) for row in data["leaderboard"]["rows"]}
    assert rows["cup-bot"] == ("3+0.4", 3, 0)
    assert len(rows) == 3
    path.write_text(path.read_text().replace('name = "cup-bot"', 'name = "cup"'))
    line = one_error_line(cli("compete", path))
    number = path.read_text().splitlines().index('name = "cup"') + 1
    assert f"cup.toml:{number}: entrants[3].name: " in line
    assert "package 'arena_test_cup_bot' registers cup-bot" in line
    # An engine bot may not take an installed player's name either.
    bots_only = path.read_text().split('[[entrants]]\nname = "cup"')[0].replace('name = "bea"', 'name = "cup-bot"')
    path.write_text(bots_only)
    stored = {p: p.stat().st_mtime_ns for p in tmp_path.glob("cup.db*")}
    line = one_error_line(cli("compete", path))
    assert "entrants[2].name: 'cup-bot' is the name of a player of package arena-test-cup-bot" in line
    assert {p: p.stat().st_mtime_ns for p in tmp_path.glob("cup.db*")} == stored  # the store untouched


@pytest.mark.slow
def test_a_shared_store_shows_the_competitions_entrants_only(tmp_path: Path, cli, checks_pass) -> None:
    """Another run on the same boards in the same store (``random``, better than both bots here) is not part of
    the competition: its leaderboard ranks the entrants among themselves, compared with their own leader, exactly
    as in a store of its own."""
    path = _two_bots(tmp_path, 12)
    own = _run(cli, path)["leaderboard"]
    shared = tmp_path / "shared.db"
    played = cli("tournament", "-d", "beginner", "-n", "12", "-p", "random", "--store", shared, "-q")
    assert played.exit_code == 0, played.output
    result = cli("compete", path, "--workers", "1", "--json", "--store", shared)
    assert result.exit_code == 0, result.output
    board = json.loads(result.stdout)["leaderboard"]
    assert [row["player"] for row in board["rows"]] == [row["player"] for row in own["rows"]]
    assert [row["rank"] for row in board["rows"]] == [1, 2]
    assert board["rows"][0]["diff"] is None and board["rows"][1]["paired_games"] == 12
    # Its limits (30 s a move) are not the ordinary tournament's: the boards are the same, the tournaments two.
    listed = json.loads(cli("leaderboard", "--list", "--store", shared, "--json").stdout)
    assert len(listed) == 2 and len({t["id"] for t in listed}) == 2
    rows = {}
    for t in listed:
        shown = json.loads(cli("leaderboard", t["id"], "--store", shared, "--json").stdout)
        rows[t["id"]] = {r["player"] for r in shown["rows"]}
    assert sorted(map(sorted, rows.values())) == [["bea", "bob"], ["random"]]
    for mine, theirs in zip(board["rows"], own["rows"], strict=True):
        keys = ("wins", "games", "diff", "diff_low", "diff_high", "p_value", "only_player", "only_leader")
        assert {k: mine[k] for k in keys} == {k: theirs[k] for k in keys}


@pytest.mark.sandbox
def test_results_a_sandboxed_bot_would_see_are_refused(tmp_path: Path, cli, one_error_line) -> None:
    """A plugin file beside the competition file sees that folder, where the results (and their replays, the
    boards' layouts) would go: refused before anything runs; another --out plays."""
    (tmp_path / "mine.py").write_text(PACKAGE_BOT)
    path = tmp_path / "cup.toml"
    path.write_text(
        'name = "c"\nsandbox = true\n[boards]\ndifficulty = "beginner"\ncount = 2\n'
        '[[entrants]]\nname = "mine"\nowner = "M"\nplugin = "mine.py"\n'
    )
    line = one_error_line(cli("compete", path))
    assert f"the results folder {tmp_path / 'cup-results'} is inside the folder entrant 'mine' sees" in line
    assert not list(tmp_path.glob("cup.db*")) and not (tmp_path / "cup-results").exists()


@pytest.mark.slow
@pytest.mark.skipif(not _web_extra(), reason="the static site needs the web extra: pip install -e '.[web]'")
def test_results_only_competitions_get_a_site_without_replays(tmp_path: Path, cli, checks_pass) -> None:
    """``record = "none"`` stores no moves, so the site has the leaderboards and no replays."""
    path = _two_bots(tmp_path, 3)
    path.write_text(path.read_text().replace('sandbox = "auto"\n', 'sandbox = "auto"\nrecord = "none"\n'))
    data = _run(cli, path)
    site = tmp_path / "cup-results" / "site"
    assert data["run"]["site"] == str(site) and (site / "index.html").is_file()
    pages = [p.relative_to(site).as_posix() for p in site.rglob("*.html")]
    assert pages and not [p for p in pages if "/g/" in p], pages


def test_ctrl_c_during_the_checks_plays_and_stores_nothing(tmp_path: Path, cli, monkeypatch) -> None:
    path = _two_bots(tmp_path, 3)

    def interrupted(target: Any, limits: Any) -> Iterator[CheckResult]:
        raise KeyboardInterrupt
        yield  # a generator, as check_bot is

    monkeypatch.setattr("arena.competition.prepare.check_bot", interrupted)
    result = cli("compete", path)
    assert result.exit_code == 130, result.output
    assert "interrupted before the games: nothing was played" in result.stderr
    assert not list(tmp_path.glob("cup.db*")) and not (tmp_path / "cup-results").exists()


def test_the_examples_kit_is_what_arena_new_bot_writes_today(tmp_path: Path) -> None:
    """carol is a kit committed as `arena new-bot carol --language python` wrote it: it may not drift from the
    template (a fix to the kit reaches the example when this test is run and the example written again)."""
    from arena.kits.new_bot import new_bot

    new_bot("carol", "python", tmp_path / "carol")
    written = {
        p.relative_to(tmp_path / "carol"): p.read_bytes() for p in (tmp_path / "carol").rglob("*") if p.is_file()
    }
    example = EXAMPLE / "carol"
    committed = {
        p.relative_to(example): p.read_bytes()
        for p in example.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    assert len(written) >= 7, sorted(written)
    assert committed == written, sorted(set(committed) ^ set(written)) or "a file's content differs"
