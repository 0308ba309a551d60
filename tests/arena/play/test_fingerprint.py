"""Fingerprints (``arena.play.fingerprint``) cover what a bot can run: a kit's folder with the strategy its author
edits, a plugin's helpers beside it; not its build output, caches or a results store beside it. A bot changed
without a new version plays as an entrant of its own, said in one warning line naming the changed files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from arena.play.fingerprint import scan

Cli = Callable[..., Result]


def test_a_folder_less_its_ignored_build_output_caches_and_stores(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    (kit / "src").mkdir(parents=True)
    (kit / "src" / "strategy.rs").write_text("fn play() {}\n")
    (kit / ".gitignore").write_text("# build output\ntarget/\n*.class\n/out.log\n")
    before = scan([kit])
    assert sorted(before.files) == [".gitignore", "src/strategy.rs"]
    for junk in ("target/release/bot", "Main.class", "src/Other.class", "out.log", "__pycache__/x.pyc"):
        (kit / junk).parent.mkdir(parents=True, exist_ok=True)
        (kit / junk).write_text("built")
    from arena.results.store import Store

    with Store(kit / "results.db"):  # a results store beside a bot changes with every game: never the bot
        pass
    assert scan([kit]) == before
    (kit / "src" / "strategy.rs").write_text("fn play() { guess(); }\n")
    after = scan([kit])
    assert after.hash != before.hash
    assert [name for name in after.files if after.files[name] != before.files.get(name)] == ["src/strategy.rs"]


def _rows(result: Result) -> dict[str, int]:
    assert result.exit_code == 0, result.output
    return {row["player"]: row["games"] for row in json.loads(result.stdout)["rows"]}


@pytest.mark.slow
def test_a_kits_strategy_changed_without_a_new_version_is_a_row_of_its_own(cli: Cli, tmp_path: Path) -> None:
    made = cli("new-bot", "kbot", "--language", "python", "--dir", tmp_path / "kbot")
    assert made.exit_code == 0, made.output
    store = tmp_path / "a.db"
    args = ("tournament", "-d", "beginner", "-n", "3", "-p", "kbot", "-w", "1", "--sandbox", "off", "--store", store)
    engine = ("--engine-bot", f"kbot={tmp_path / 'kbot' / 'run.sh'}")
    assert _rows(cli(*args, *engine, "--all-versions", "--json")) == {"kbot": 3}
    (tmp_path / "kbot" / ".pytest_cache").mkdir()  # what running the kit's tests leaves: not the bot
    (tmp_path / "kbot" / ".pytest_cache" / "v").write_text("cache")
    again = cli(*args, *engine, "--all-versions", "--json")
    assert _rows(again) == {"kbot": 3} and "warning" not in again.stderr
    strategy = tmp_path / "kbot" / "strategy.py"
    strategy.write_text(
        strategy.read_text().replace("row, col = covered[self.rng.below(len(covered))]", "row, col = covered[0]")
    )
    changed = cli(*args, *engine, "--all-versions", "--json")
    rows = _rows(changed)
    (new,) = [key for key in rows if key != "kbot"]
    assert new.startswith("kbot@1+") and rows == {"kbot": 3, new: 3}
    warning = [line for line in changed.stderr.splitlines() if line.startswith("warning:")]
    assert warning == [
        f"warning: kbot version 1 runs other code than its games here (changed: strategy.py): its games go to a row"
        f" of their own, {new}; bump the bot's version to name the change"
    ]


HELPED = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer
from helper import FIRST


class Helped(RandomPlayer):
    name = "helped"
    version = "1"


@hookimpl
def register_players(register):
    register(Helped)
"""


@pytest.mark.slow
def test_a_plugins_helper_beside_it_is_part_of_it(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "helped.py").write_text(HELPED)
    (folder / "helper.py").write_text("FIRST = (0, 0)\n")
    store = tmp_path / "a.db"
    args = ("tournament", "-d", "beginner", "-n", "2", "-p", "helped", "-w", "1", "--sandbox", "off", "--store", store)
    plugin = ("--plugin", str(folder / "helped.py"), "--all-versions", "--json")
    assert _rows(cli(*args, *plugin)) == {"helped": 2}
    (folder / "helper.py").write_text("FIRST = (1, 1)\n")
    changed = cli(*args, *plugin)
    assert len(_rows(changed)) == 2 and "(changed: helper.py)" in changed.stderr
