"""``arena compete`` builds kits in the sandbox: a broken kit is left out with its first error's file and line, its
whole log kept and published in the results folder; ``--build-outside-sandbox`` builds as the organizer, and says
so (arena/competition/prepare.py, arena/cli/compete.py)."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from repo import EXAMPLES

from arena.isolation.check_bot.check import CheckResult
from arena.isolation.sandbox import bubblewrap as sandbox
from arena.kits import new_bot
from arena.kits.toolchains import missing_toolchain

BOT = (EXAMPLES / "competition" / "bob" / "bot.py").read_text()


@pytest.fixture
def checks_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """check-bot's checks replaced by one that passes: these tests are about the builds."""

    def passing(target: Any, limits: Any) -> Iterator[CheckResult]:
        yield CheckResult("hello", "answers hello", True, "a hello", "one")

    monkeypatch.setattr("arena.competition.prepare.check_bot", passing)


def _cup(folder: Path, kits: dict[str, str], sandboxed: str = "auto") -> Path:
    """A competition of ``bob`` (an engine bot) and the kits ``{name: folder}``, on one board."""
    (folder / "bob").mkdir()
    script = folder / "bob" / "bot.py"
    script.write_text(BOT)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    text = (
        f'name = "build cup"\nsandbox = "{sandboxed}"\n[boards]\ndifficulty = "beginner"\ncount = 1\n'
        '[limits]\nmove_time = 30\n\n[[entrants]]\nname = "bob"\nowner = "B"\ncommand = "python3 bob/bot.py"\n'
    )
    for name, kit in kits.items():
        text += f'[[entrants]]\nname = "{name}"\nowner = "K"\nkit = "{kit}"\n'
    path = folder / "cup.toml"
    path.write_text(text)
    return path


def _python_kit(folder: Path, *, broken: bool = False, escape: bool = False) -> Path:
    reason = missing_toolchain("python")
    if reason:
        pytest.skip(reason)
    new_bot("kit", "python", folder)
    if broken:
        lines = (folder / "strategy.py").read_text().splitlines(keepends=True)
        lines.insert(15, "def broken(:\n")
        (folder / "strategy.py").write_text("".join(lines))
    if escape:  # a build that writes beside its folder: only possible outside the sandbox
        script = (folder / "build.sh").read_text()
        cd = "|| exit 1\n"
        (folder / "build.sh").write_text(script.replace(cd, cd + "touch ../escaped.txt\n", 1))
    return folder


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.kits
def test_a_broken_kit_is_left_out_with_its_first_error_and_its_log_published(tmp_path: Path, cli, checks_pass) -> None:
    _python_kit(tmp_path / "kitty", broken=True)
    path = _cup(tmp_path, {"kitty": "kitty"})
    result = cli("compete", path, "--workers", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    entrants = {e["name"]: e for e in data["entrants"]}
    kitty = entrants["kitty"]
    assert kitty["status"] == "left out"
    assert kitty["reason"] == "build: build.sh failed (exit 1): strategy.py:16: SyntaxError: invalid syntax"
    assert kitty["build"] == kitty["build"] | {
        "ok": False,
        "reason": "exit 1",
        "first_error": {"file": "strategy.py", "line": 16, "message": "SyntaxError: invalid syntax"},
        "sandboxed": True,
        "log": "builds/kitty.log",
    }
    assert entrants["bob"]["build"] is None and entrants["bob"]["status"] == "played"
    results = tmp_path / "cup-results"
    log = (results / "builds" / "kitty.log").read_text()
    assert "in the sandbox" in log.splitlines()[0] and "SyntaxError: invalid syntax" in log
    assert f"kitty: whole build log: {results / 'builds' / 'kitty.log'}" in result.stderr
    markdown = (results / "leaderboard.md").read_text()
    row = next(line for line in markdown.splitlines() if line.startswith("| kitty |"))
    assert "strategy.py:16" in row and row.endswith("| [builds/kitty.log](builds/kitty.log) |")
    assert json.loads((results / "leaderboard.json").read_text())["entrants"] == data["entrants"]
    assert str(results / "builds" / "kitty.log") in data["run"]["published"]


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.kits
def test_kits_build_in_the_sandbox_unless_the_organizer_asks(tmp_path: Path, cli, checks_pass) -> None:
    """The same kit's build writes beside its folder: in the sandbox that write never reaches the machine; with
    --build-outside-sandbox it does (the build runs as the organizer), and the log says where it ran."""
    _python_kit(tmp_path / "kitty", escape=True)
    path = _cup(tmp_path, {"kitty": "kitty"})
    result = cli("compete", path, "--workers", "1")
    assert result.exit_code == 0, result.output
    assert f"wrote 1 build log in {tmp_path / 'cup-results' / 'builds'}" in result.stdout
    assert not (tmp_path / "escaped.txt").exists()
    assert "building kitty: " in result.stderr and "build.sh, in the sandbox" in result.stderr
    log = (tmp_path / "cup-results" / "builds" / "kitty.log").read_text()
    assert "in the sandbox" in log.splitlines()[0] and log.splitlines()[-1].startswith("arena: built in ")

    result = cli("compete", path, "--workers", "1", "--build-outside-sandbox")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "escaped.txt").exists()
    assert "build.sh, OUTSIDE the sandbox" in result.stderr
    assert "kitty: built outside the sandbox in " in result.stderr
    log = (tmp_path / "cup-results" / "builds" / "kitty.log").read_text()
    assert "OUTSIDE the sandbox" in log.splitlines()[0]


def test_a_machine_without_the_sandbox_builds_nothing_unless_asked(
    tmp_path: Path, cli, one_error_line, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = tmp_path / "kitty"
    kit.mkdir()
    (kit / "build.sh").write_text("#!/bin/sh\ntouch built\n")
    (kit / "run.sh").write_text("#!/bin/sh\nexit 0\n")
    path = _cup(tmp_path, {"kitty": "kitty"}, sandboxed="off")
    monkeypatch.setattr(sandbox, "unavailable", lambda: "bubblewrap (bwrap) is not installed")
    line = one_error_line(cli("compete", path))
    assert line == (
        "error: the kits are built in the sandbox, which this machine cannot make (bubblewrap (bwrap) is not "
        "installed); --build-outside-sandbox builds them as you, with your rights, files and network"
    )
    assert not (kit / "built").exists() and not (tmp_path / "cup-results").exists()


def test_the_flags_help_says_what_it_means(cli) -> None:
    result = cli("compete", "--help", columns=200)
    assert result.exit_code == 0
    text = " ".join(result.stdout.replace("│", " ").split())
    assert "--build-outside-sandbox" in text
    assert "Run each kit's build.sh as you, outside the sandbox: with your rights, your files, your environment" in text
