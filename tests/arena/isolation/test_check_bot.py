"""``arena check-bot`` (``arena.isolation.check_bot.check``): a bot wrong in exactly one way fails exactly its own
check, a correct bot passes every one, and a command that does not start is one line, exit 2.

The broken bots (``tests/bots/broken/``) are ``tests/bots/broken/base.py`` with one thing changed each; they run
as a tournament would run them (in the sandbox where this machine has one, else without).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from repo import BOTS, ROOT
from rich.console import Console
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.check_bot import print_report
from arena.isolation.check_bot import driver
from arena.isolation.check_bot.check import CheckResult, Target

BOTS = BOTS / "broken"
STANDALONE = ROOT / "examples" / "standalone_bot.py"
CHECKS = [
    "hello",
    "one-line",
    "unknown-type",
    "unknown-fields",
    "empty-lines",
    "game-over",
    "quit",
    "many-games",
    "same-game",
    "first-click",
    "large-board",
    "legal-actions",
    "guess-cells",
]
#: Each broken bot and the one check it must fail.
BROKEN = {
    "bad_hello": "hello",
    "chatty": "one-line",
    "answers_unknown": "unknown-type",
    "strict_fields": "unknown-fields",
    "empty_lines": "empty-lines",
    "answers_game_over": "game-over",
    "ignores_quit": "quit",
    "few_games": "many-games",
    "unseeded": "same-game",
    "safe_only": "first-click",
    "small_boards": "large-board",
    "illegal": "legal-actions",
    "stray_guess": "guess-cells",
}
runner = CliRunner()
#: Broken bots caught only by output within a look after a message that takes no answer: on a busy
#: machine they get a longer look, so that a slow answer is still seen.
SEEN_IN_A_LOOK = {"answers_unknown", "answers_game_over"}


@pytest.fixture
def patient(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """A quit honoured within 10 s passes (a busy machine can take longer than the arena's second to
    end a process; the check ends as soon as it exits, so a correct bot costs no more)."""
    monkeypatch.setattr(driver, "QUIT_TIME", 10.0)
    return monkeypatch


def check(*args: str) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(app, ["check-bot", *args, "--json"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def test_every_check_has_a_broken_bot() -> None:
    assert sorted(BROKEN.values()) == sorted(CHECKS)


@pytest.mark.slow
@pytest.mark.parametrize("bot", sorted(BROKEN))
def test_a_bot_wrong_in_one_way_fails_exactly_its_own_check(bot: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if bot != "ignores_quit":  # which stays forever: the arena's second is enough to see it
        monkeypatch.setattr(driver, "QUIT_TIME", 10.0)
    if bot in SEEN_IN_A_LOOK:
        monkeypatch.setattr(driver, "QUIET", 2.0)
    code, report = check("--engine-bot", f"{bot.replace('_', '-')}={sys.executable} {BOTS / bot}.py")
    assert code == 1 and report["passed"] is False
    assert [c["id"] for c in report["checks"]] == CHECKS
    failed = {c["id"]: c for c in report["checks"] if not c["passed"]}
    assert list(failed) == [BROKEN[bot]], failed
    row = failed[BROKEN[bot]]
    assert row["expected"] and row["got"]


@pytest.mark.slow
def test_a_bot_that_does_not_flush_is_told_so_and_nothing_else_waits_for_it() -> None:
    code, report = check("--engine-bot", f"unflushed={sys.executable} {BOTS / 'unflushed.py'}", "--move-time", "1")
    rows = {c["id"]: c for c in report["checks"]}
    assert code == 1 and rows["hello"]["passed"]
    assert rows["one-line"]["got"].endswith("timeout (no reply within 1.5 s (is stdout flushed after each line?))")
    later = [row for key, row in rows.items() if key not in ("hello", "one-line")]
    assert len(later) == 11 and all(not r["passed"] and r["got"].startswith("not run: ") for r in later)


@pytest.mark.slow
@pytest.mark.parametrize("bot", [BOTS / "good.py", STANDALONE], ids=["base", "standalone"])
def test_a_correct_bot_passes_every_check(bot: Path, patient: pytest.MonkeyPatch) -> None:
    code, report = check("--engine-bot", f"ok={sys.executable} {bot}")
    failed = [c for c in report["checks"] if not c["passed"]]
    assert (code, failed) == (0, [])
    assert len(report["checks"]) == len(CHECKS)
    assert report["command"] == [sys.executable, str(bot)]


@pytest.mark.slow
def test_a_command_that_does_not_start_is_one_line_with_its_stderr(tmp_path: Path, one_error_line: Any) -> None:
    missing = tmp_path / "nope.py"
    line = one_error_line(runner.invoke(app, ["check-bot", "--engine-bot", f"x=python3 {missing}"]))
    assert line.startswith(f"error: engine bot 'x' did not start: 'python3 {missing}' exited with code 2 before")
    assert "can't open file" in line
    line = one_error_line(runner.invoke(app, ["check-bot", "--engine-bot", "x=no-such-program-for-check-bot"]))
    assert "'no-such-program-for-check-bot'" in line and "No such file or directory" in line


PLUGIN = """
from players import Action, Observation, Player, hookimpl


class Corner(Player):
    name = "{name}"

    def play(self, observation):
        covered = (observation.grid == Observation.COVERED).nonzero()
        if observation.first_move:
            return Action.reveal(0, 0)
        pick = self.rng.integers(len(covered[0]))
        return Action.reveal(int(covered[0][pick]), int(covered[1][pick]), guess=True)


@hookimpl
def register_players(register):
    register(Corner)
"""


@pytest.mark.slow
def test_a_plugin_is_checked_behind_the_arenas_host(
    tmp_path: Path, one_error_line: Any, patient: pytest.MonkeyPatch
) -> None:
    plugin = tmp_path / "corner.py"
    plugin.write_text(PLUGIN.format(name="corner"))
    code, report = check("--plugin", str(plugin))
    assert (code, [c["id"] for c in report["checks"] if not c["passed"]]) == (0, [])
    assert report["bot"] == "corner"
    two = tmp_path / "two.py"
    second = (
        "\n\nclass Other(Corner):\n    name = 'two'\n\n\n"
        "@hookimpl(specname='register_players')\ndef more(register):\n    register(Other)\n"
    )
    two.write_text(PLUGIN.format(name="one") + second)
    line = one_error_line(runner.invoke(app, ["check-bot", "--plugin", str(two)]))
    assert line == f"error: plugin {two} registers 2 players (one, two); name the one to check with -p"
    broken = tmp_path / "broken.py"
    broken.write_text("import helpers_that_are_not_there\n")
    line = one_error_line(runner.invoke(app, ["check-bot", "--plugin", str(broken)]))
    assert line.endswith("cannot be loaded: ModuleNotFoundError: No module named 'helpers_that_are_not_there'")
    line = one_error_line(runner.invoke(app, ["check-bot"]))
    assert line == "error: name the bot to check: --engine-bot NAME=COMMAND or --plugin FILE (one of them)"


def test_one_bot_at_a_time(tmp_path: Path, one_error_line: Any) -> None:
    """Two bots are refused before either starts (typer would otherwise keep the last option silently)."""
    started = tmp_path / "started"
    bot = f"{sys.executable} -c \"open('{started}', 'w')\""
    cases = [
        (["--engine-bot", f"a={bot}", "--engine-bot", f"b={bot}"], "2 (--engine-bot a, --engine-bot b)"),
        (["--engine-bot", f"a={bot}", "--plugin", "x.py"], "2 (--engine-bot a, --plugin x.py)"),
        (
            ["--plugin", "x.py", "--plugin", "y.py", "--plugin", "z.py"],
            "3 (--plugin x.py, --plugin y.py, --plugin z.py)",
        ),
    ]
    for options, listed in cases:
        line = one_error_line(runner.invoke(app, ["check-bot", *options]))
        assert line == f"error: check-bot checks one bot at a time, not {listed}: run it once for each"
    assert not started.exists()
    assert len(cases) == 3


def test_the_report_is_readable_at_80_columns() -> None:
    results = [
        CheckResult("hello", "answers hello", True, '{"protocol": 1, "name": ..., "version": ...}', "name 'x'"),
        CheckResult("quit", "exits on quit without answering", False, "gone within 1 s", "[red]still[/] running " * 8),
    ]
    target = Target("x", ("python3", "/a/long/path/" * 6 + "bot.py"), {})
    console = Console(width=80, record=True, file=open("/dev/null", "w"), color_system=None)  # noqa: SIM115
    print_report(console, target, results)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "[red]still[/]" in text  # what a bot wrote is text, never markup
    assert "FAIL" in text and "pass" in text
    assert text.strip().endswith("1 of 2 checks passed; failed: quit")
