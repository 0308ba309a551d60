"""`arena play`: the legend, plugin files and engine bots played as in a tournament (isolated, under the
time limits), exit code 1 when the bot fails and 0 when it merely loses, and a clean Ctrl-C.

No test depends on the machine's speed: limits are either generous (a start-up, a game) or face a bot
that never answers at all, and the Ctrl-C test waits for the bot to say it is hanging.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from process_support import default_sigint
from repo import ROOT
from typer.testing import Result

from arena.play.runner import play_game
from engine import BoardSpec, FirstClick
from players.registry import Registry

Cli = Callable[..., Result]
STANDALONE = f"standalone={sys.executable} {ROOT / 'examples' / 'standalone_bot.py'}"

#: One well-behaved player: reveals the first covered cell in reading order, and says where it runs.
#: Bots get a minimal environment of their own (nothing of the arena's), so a test hands its settings
#: to them in ``settings.json`` beside the plugin file, and runs them with ``--sandbox off`` when they
#: must write their pid to the test's folder (the sandbox forbids exactly that).
SWEEPER = """
import json
import os

from engine import Action
from players import Player, hookimpl


class Sweeper(Player):
    name = "sweeper"

    def play(self, observation):
        settings = os.path.join(os.path.dirname(__file__), "settings.json")
        pid_file = json.load(open(settings)).get("pid_file") if os.path.exists(settings) else None
        if pid_file:
            with open(pid_file, "w") as out:
                out.write(str(os.getpid()))
        rows, cols = (observation.grid < 0).nonzero()
        return Action.reveal(int(rows[0]), int(cols[0]))


@hookimpl
def register_players(register):
    register(Sweeper)
"""

SMALL = ("--size", "5x5", "--mines", "3")


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result


def failure_line(result: Result) -> str:
    """Exit code 1, no traceback, and exactly one line on stderr: the reason."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.stderr  # (the bot's own traceback may be in the JSON's "problem")
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def gone(pid: int, within: float = 30.0) -> bool:
    """Whether process ``pid`` has ended (waiting up to ``within`` seconds for it to be reaped)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


# -- what the screen shows -----------------------------------------------------------------------------------------


def test_play_shows_a_legend_of_the_symbols(cli: Cli) -> None:
    out = ok(cli("play", "--player", "random", *SMALL, "--delay", "0")).stdout
    for symbol, meaning in (("■", "covered"), ("·", "no mine around"), ("⚑", "flag"), ("✱", "mine")):
        assert f"{symbol} {meaning}" in out
    assert "1-8 mines near" in out
    assert "the mine that was hit" in out


@pytest.mark.parametrize(("columns", "gap"), [(80, " "), (40, "")])
def test_a_board_row_is_one_line_whatever_the_terminal(cli: Cli, columns: int, gap: str) -> None:
    """An Expert board (30 cells, 60 columns spaced) in a 40-column terminal is drawn one column a cell; with the
    spaces it would wrap each row onto two lines, and read as a board of 32 rows of 18."""
    out = ok(cli("play", "--player", "random", "-d", "expert", "--delay", "0", columns=columns)).stdout
    cells = set("■⚑✱·12345678 ")
    stripped = [line.strip("│ ") for line in out.splitlines()]
    rows = [row for row in stripped if row and set(row) <= cells]
    assert len(rows) == 16, out
    assert all(len(row) == len(gap.join("x" * 30)) for row in rows), rows  # 59 spaced, 30 without
    assert max(len(line) for line in out.splitlines()) <= columns


def test_a_normal_loss_exits_0(cli: Cli) -> None:
    args = ("play", "--player", "random", "--size", "5x5", "--mines", "20", "--seed", "0")
    data = json.loads(ok(cli(*args, "--json")).stdout)
    assert data["status"] == "lost"
    assert data["problem"] == ""
    shown = ok(cli(*args))
    assert "lost" in shown.stdout
    assert shown.stderr == ""


# -- plugin files and engine bots, run as a tournament runs them -----------------------------------------------------


@pytest.mark.slow
def test_play_a_plugin_file_in_a_process_of_its_own(
    cli: Cli, write_plugin: Callable[[str, str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin = write_plugin(SWEEPER, "sweeper")
    pid_file = tmp_path / "pid"
    (plugin.parent / "settings.json").write_text(json.dumps({"pid_file": str(pid_file)}))
    shown = ok(cli("play", "--plugin", plugin, *SMALL, "--sandbox", "off"))  # no --player: the file's only player
    assert "sweeper · 5x5/3" in shown.stdout
    assert "■ covered" in shown.stdout
    assert any(word in shown.stdout for word in ("won ·", "lost ·"))
    assert int(pid_file.read_text()) != os.getpid()  # isolated, as in a tournament
    data = json.loads(ok(cli("play", "--plugin", plugin, *SMALL, "--json", "--sandbox", "off")).stdout)
    assert data["player"] == "sweeper"
    assert data["moves"][0] == "reveal 0,0"
    trusted = json.loads(ok(cli("play", "--plugin", plugin, *SMALL, "--json", "--isolation", "trusted")).stdout)
    assert int(pid_file.read_text()) == os.getpid()
    assert trusted == data  # the same game wherever it runs


@pytest.mark.slow
def test_play_an_engine_bot_like_a_tournament_does(cli: Cli, tmp_path: Path) -> None:
    shown = ok(cli("play", "--engine-bot", STANDALONE, "-d", "beginner", "--seed", "3"))
    assert "standalone · beginner" in shown.stdout
    assert "⚑ flag" in shown.stdout
    data = json.loads(ok(cli("play", "--engine-bot", STANDALONE, "-d", "beginner", "--seed", "3", "--json")).stdout)
    assert data["player"] == "standalone"
    assert data["status"] in ("won", "lost")
    assert data["moves"]
    store = tmp_path / "a.db"
    args = ("tournament", "-d", "beginner", "--seed", "3", "-n", "1", "-w", "1", "-q", "--json", "--store", store)
    board = json.loads(ok(cli(*args, "--engine-bot", STANDALONE, "-p", "standalone")).stdout)
    assert board["rows"][0]["wins"] == (data["status"] == "won")


def test_play_takes_player_options(cli: Cli) -> None:
    args = ("play", "--player", "random", "-d", "beginner", "--seed", "1", "--json")
    data = json.loads(ok(cli(*args, "-o", "random.random_first_click=true")).stdout)
    assert data["player"] == "random[random_first_click=true]"
    spec = BoardSpec(9, 9, 10, "beginner")
    player = Registry().create("random", {"random_first_click": True})
    assert len(data["moves"]) == play_game(player, data["player"], spec, FirstClick.SAFE, 1, 0).moves


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("-o", "other.x=1"), "names player 'other'"),
        (("-o", "random.no_such_option=1"), "no_such_option"),
        (("--engine-bot", "a=true", "--engine-bot", "b=true"), "choose one with --player"),
        (("--engine-bot", "no equals sign"), "NAME=COMMAND"),
        (("--move-time", "0"), "move_time"),
    ],
)
def test_play_refuses_bad_player_input_with_exit_2(cli: Cli, args: tuple[str, ...], needle: str) -> None:
    result = cli("play", *SMALL, *args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert needle in result.stderr


@pytest.mark.slow
def test_play_asks_which_player_when_a_plugin_file_offers_several(cli: Cli, bad_bots: Path) -> None:
    result = cli("play", "--plugin", bad_bots, *SMALL)
    assert result.exit_code == 2, result.output
    assert "crasher, hanger, nothing, off-board, raiser, stubborn: choose one with --player" in result.stderr


# -- a bot that fails: exit 1 and the reason in one line --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bot", "reason"),
    [
        ("raiser", "raiser failed (error): RuntimeError: [bold]the bot broke[/bold]"),  # markup shown as text
        ("nothing", "nothing failed (illegal): InvalidActionError: play() returned None, expected an Action"),
        ("off-board", "off-board failed (illegal):"),
        ("stubborn", "stubborn failed (illegal):"),
        (
            "crasher",
            "crasher failed (crashed): the bot process exited with code 3 (its stderr ends: crasher: giving",
        ),
    ],
)
def test_a_failing_bot_exits_1_with_the_reason(cli: Cli, bad_bots: Path, bot: str, reason: str) -> None:
    result = cli("play", "--plugin", bad_bots, "--player", bot, *SMALL, "--json")
    assert reason in failure_line(result)
    data: dict[str, Any] = json.loads(result.stdout)
    assert data["status"] in ("error", "illegal", "crashed")
    assert data["problem"]


def test_a_trusted_bot_that_raises_exits_1_too(cli: Cli, bad_bots: Path) -> None:
    result = cli("play", "--plugin", bad_bots, "--player", "raiser", *SMALL, "--isolation", "trusted")
    assert "raiser failed (error): RuntimeError: [bold]the bot broke[/bold]" in failure_line(result)
    assert "error · move 1" in result.stdout  # the board is still shown, as the bot left it
    assert "■ covered" in result.stdout


def test_an_engine_bot_that_cannot_start_exits_1(cli: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-bot"
    line = failure_line(cli("play", "--engine-bot", f"ghost={missing}", *SMALL))
    assert "ghost failed (crashed)" in line
    assert "no-such-bot" in line


@pytest.mark.slow
def test_a_hanging_bot_is_stopped_by_the_move_time_limit(
    cli: Cli, bad_bots: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "pid"
    (bad_bots.parent / "settings.json").write_text(json.dumps({"pid_file": str(pid_file)}))
    # The bot never answers, so any limit is exceeded; start-up has its own (60 s) limit.
    result = cli("play", "--plugin", bad_bots, "--player", "hanger", *SMALL, "--move-time", "1", "--sandbox", "off")
    line = failure_line(result)
    assert "hanger failed (timeout): no reply within" in line
    assert "the bot was killed" in line
    assert gone(int(pid_file.read_text()))


# -- Ctrl-C -----------------------------------------------------------------------------------------------------


@pytest.mark.serial  # signals
@pytest.mark.timeout(600)  # its own deadlines: 300 s to start on a busy machine, then 120 s
@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
@pytest.mark.parametrize("rows", ["9", "5"], ids=["in-the-warm-up-before-hello", "in-the-game"])
def test_ctrl_c_or_sigterm_stops_play_and_its_bot(bad_bots: Path, tmp_path: Path, rows: str, stop: str) -> None:
    """A real SIGINT to the command's process group (what a terminal's Ctrl-C sends), or SIGTERM to its
    process, while the bot hangs, in its warm-up game (the arena waits for its hello) or in the game itself
    (the arena waits for a move)."""
    pid_file = tmp_path / "pid"
    (bad_bots.parent / "settings.json").write_text(json.dumps({"pid_file": str(pid_file), "hang_rows": rows}))
    env = dict(os.environ)
    command = [sys.executable, "-c", "from arena.cli import main; main()", "play", "--plugin", str(bad_bots)]
    command += ["--player", "hanger", *SMALL, "--move-time", "600", "--sandbox", "off"]
    with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
        # SIGINT as a foreground job has it, even when the suite runs in the background (SIGINT ignored).
        arena = subprocess.Popen(
            command, stdout=out, stderr=err, env=env, cwd=tmp_path, start_new_session=True, preexec_fn=default_sigint
        )
    try:
        deadline = time.monotonic() + 300
        while not pid_file.exists() or not pid_file.read_text():
            assert arena.poll() is None, (tmp_path / "err").read_text()
            assert time.monotonic() < deadline, "the bot never started its game"
            time.sleep(0.05)
        bot = int(pid_file.read_text())
        if stop == "ctrl-c":
            os.killpg(arena.pid, signal.SIGINT)
        else:
            os.kill(arena.pid, signal.SIGTERM)
        code = arena.wait(timeout=120)
    finally:
        if arena.poll() is None:
            arena.kill()
    stderr = (tmp_path / "err").read_text()
    assert code == (130 if stop == "ctrl-c" else 143), stderr
    assert ("interrupted" if stop == "ctrl-c" else "terminated") in stderr
    assert "Traceback" not in stderr
    assert gone(bot)
