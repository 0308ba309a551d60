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
    script = tmp_path / "dies.py"
    script.write_text("import sys\nsys.exit('no luck today')\n")
    line = one_error_line(runner.invoke(app, ["check-bot", "--engine-bot", f"x=python3 {script}"]))
    assert line.startswith(f"error: engine bot 'x' did not start: 'python3 {script}' exited with code 1 before")
    assert "no luck today" in line


@pytest.mark.parametrize("command", ["play", "tournament", "match", "check-bot"])
def test_a_missing_bot_command_is_bad_input_not_a_crash(command: str, tmp_path: Path, one_error_line: Any) -> None:
    players = {"tournament": ["-p", "x"], "match": ["x", "random"]}.get(command, [])
    for bot, needle in (
        (f"python3 {tmp_path / 'nope.py'}", f"python3 runs '{tmp_path / 'nope.py'}', which does not exist"),
        (str(tmp_path / "kit" / "run.sh"), f"'{tmp_path / 'kit' / 'run.sh'}': no such file"),
        ("no-such-program-for-check-bot", "'no-such-program-for-check-bot': not a program on the PATH"),
    ):
        args = [command, *players, "--engine-bot", f"x={bot}"]
        if command != "check-bot":
            args += ["--store", str(tmp_path / "a.db")]
        line = one_error_line(runner.invoke(app, args))
        assert line == f"error: engine bot 'x': {needle}"
    assert not (tmp_path / "a.db").exists()


@pytest.mark.slow
def test_a_bot_answering_garbage_is_rejected_in_seconds_without_a_pass_or_a_pile_up(tmp_path: Path) -> None:
    # Every line answered with garbage: the hello check fails with what it said, the one-line check with the
    # protocol error, every other check says it was not run, none passes, and no process waits for another.
    notes = tmp_path / "pids"
    notes.mkdir()
    bot = f"garbage={sys.executable} {BOTS / 'garbage.py'} {notes}"
    code, report = check("--engine-bot", bot, "--sandbox", "off")
    rows = {c["id"]: c for c in report["checks"]}
    assert code == 1 and list(rows) == CHECKS and not any(r["passed"] for r in rows.values())
    assert rows["hello"]["got"].startswith("'garbage!': ")
    assert rows["one-line"]["got"].endswith("protocol error (it wrote 'garbage!' where a reply was due)")
    later = [r for key, r in rows.items() if key not in ("hello", "one-line")]
    assert len(later) == 11 and all(r["got"].startswith("not run: ") for r in later), later
    started = sorted(notes.glob("pid-*"))
    alive_at_start = [int(p.read_text()) for p in notes.glob("alive-*")]
    assert len(started) == 1 and alive_at_start == [0]
    for noted in started:  # and none is left behind
        pid = int(noted.name.removeprefix("pid-"))
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()


@pytest.mark.slow
def test_a_bot_whose_hello_is_garbage_fails_each_check_fast_and_alone(tmp_path: Path) -> None:
    # Garbage to hello, a correct player after it: each check's own process fails at its hello within seconds
    # (never "none within 60 s"), and each is gone before the next one starts: no pile-up.
    notes = tmp_path / "pids"
    notes.mkdir()
    bot = f"late={sys.executable} {BOTS / 'garbage_hello.py'} {notes}"
    code, report = check("--engine-bot", bot, "--sandbox", "off")
    rows = {c["id"]: c for c in report["checks"]}
    assert code == 1 and rows["hello"]["got"].startswith("'garbage!': ") and rows["one-line"]["passed"]
    later = [rows[key] for key in CHECKS[2:-2]]
    assert len(later) == 9 and all(
        not r["passed"] and r["got"] == "it wrote 'garbage!' where its answer to hello was due" for r in later
    ), later
    assert [rows["legal-actions"]["passed"], rows["guess-cells"]["passed"]] == [True, True]  # one-line's game
    alive_at_start = [int(p.read_text()) for p in notes.glob("alive-*")]
    assert len(alive_at_start) == 10 and max(alive_at_start) == 0, alive_at_start


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
