"""The course-shell adapter (``arena/isolation/myai/host.py``): a student's ``MyAI.py`` played unmodified.

The host is driven here in this process against the engine, message by message as the arena sends them, with
agents written in the styles students write (tests/bots/myai/): what each gets from ``getAction``, the
coordinates both ways, what ends a game and why. ``test_an_agent_plays_through_the_sandbox`` and the CLI tests
play them as a tournament does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from myai_support import load_adapter
from repo import BOTS

from arena.isolation.protocol import messages as protocol
from arena.limits import SHELL_DIR, EngineBot, EngineBotError
from arena.results.store import Store
from engine import BEGINNER, BoardSpec, FirstClick, Game
from engine.layout import player_seed

AGENTS = BOTS / "myai"


host = load_adapter()


def play(agent: str, spec: BoardSpec = BEGINNER, rule: FirstClick = FirstClick.ZERO, board: int = 0) -> dict[str, Any]:
    """One game of ``agent`` through the host, as the arena plays it: the outcome, why, and the replies."""
    shell = host.Shell(str(SHELL_DIR), str(AGENTS / agent))
    game = Game(spec, rule, seed=0, index=board)
    game.open_start()
    start = json.loads(protocol.new_game(spec, rule, player_seed(0, board, agent), 10, 300))
    mine = host.Game(shell, start)
    replies: list[dict[str, Any]] = []
    while not game.over:
        grid = json.loads(protocol.observation(game.observation()))["grid"]
        try:
            reply = mine.observe(grid)
        except host.GameEnd as failure:
            outcome = "illegal" if failure.illegal else "resigned" if failure.resign else "error"
            return {"outcome": outcome, "why": str(failure), "replies": replies}
        replies.append(reply)
        actions, _ = protocol.parse_reply(json.dumps(reply))
        game.play_answer(actions)
    return {"outcome": "won" if game.won else "lost", "why": "", "replies": replies, "game": game, "host": mine}


def test_the_start_tile_is_the_arenas_zero_in_the_shells_coordinates() -> None:
    """x is the column, y the row from the bottom: the agent's first UNCOVER of its start tile is given 0
    without a move, and the queue agent then clears the start tile's opening."""
    checked = 0
    for board in range(20):
        game = Game(BEGINNER, FirstClick.ZERO, seed=0, index=board)
        row, col = game.start_cell  # type: ignore[misc]
        shell = host.Shell(str(SHELL_DIR), str(AGENTS / "queue"))
        game.open_start()
        mine = host.Game(shell, {"height": 9, "width": 9, "mines": 10, "rule": "zero", "seed": "0" * 32})
        mine.grid = json.loads(protocol.observation(game.observation()))["grid"]
        assert mine.start() == (row, col)
        try:
            mine.observe(mine.grid)
        except host.GameEnd as failure:  # the queue agent leaves once its queue is empty
            assert "LEAVE" in str(failure)
        agent_start = next(iter(mine.agent.board))
        assert agent_start == (col, BEGINNER.height - 1 - row) and mine.agent.board[agent_start] == 0
        checked += 1
    assert checked == 20


def test_a_queue_agent_wins_what_its_queue_clears_and_leaving_early_is_the_reason() -> None:
    outcomes = [play("queue", board=board) for board in range(30)]
    left = [o for o in outcomes if o["outcome"] == "resigned"]
    assert left and all("the agent left the game (LEAVE)" in o["why"] for o in left)
    assert all(o["outcome"] in ("resigned", "won") for o in outcomes)  # a queue of safe tiles never hits a mine
    # The opening's tiles are given free: the queue agent's replies are only the reveals the flood did not make.
    for o in outcomes:
        for reply in o["replies"]:
            assert reply["actions"][0][0] == "reveal"


def test_numbers_after_flag_and_unflag_are_minus_one_and_a_flagged_tile_is_uncovered() -> None:
    result = play("flagger")
    numbers = sys.modules["MyAI"].NUMBERS
    assert numbers[0] == 0  # the start tile
    assert numbers[1:6] == [-1, -1, -1, -1, -1]  # flag, unflag, flag, flag of an open tile, unflag of nothing
    kinds = [[a[0] for a in reply["actions"]] for reply in result["replies"]]
    assert kinds[:3] == [["flag"], ["unflag"], ["flag"]]
    assert kinds[3] == ["unflag", "reveal"]  # UNCOVER of a flagged tile, as the shell's world does it
    assert len(kinds) == 4, kinds  # the flag and unflag of the start tile changed nothing


def test_an_exception_is_an_error_naming_the_file_and_line() -> None:
    result = play("raises")
    assert result["outcome"] == "error"
    assert result["why"].startswith("MyAI.getAction raised ZeroDivisionError")
    assert "(MyAI.py, line 15)" in result["why"]


def test_an_action_off_the_board_is_illegal_in_the_shells_words() -> None:
    result = play("off_board")
    assert result["outcome"] == "illegal"
    assert "UNCOVER at (9, 0), off the board: x runs 0..8 (columns) and y 0..8 (rows, from the bottom)" in result["why"]


def test_an_agent_that_never_leaves_stops_at_the_shells_move_limit() -> None:
    result = play("never_leaves")
    assert result["outcome"] == "resigned"
    assert f"the course shell's move limit is {2 * BEGINNER.cells}" in result["why"]
    assert result["replies"] == []  # re-uncovering an open tile never reaches the engine


def test_a_board_printing_agent_plays_whole_games(capsys: pytest.CaptureFixture[str]) -> None:
    results = [play("printer", board=board) for board in range(10)]
    assert {r["outcome"] for r in results} <= {"won", "lost"}
    assert sum(len(r["replies"]) for r in results) > 10  # it played on after its opening, guessing
    assert "new game 9 9 10" in capsys.readouterr().out


@pytest.mark.parametrize("rule", [FirstClick.SAFE, FirstClick.OPENING, FirstClick.NONE, FirstClick.WINDOWS])
def test_under_another_rule_the_host_clicks_the_centre_and_gives_it_as_the_start(rule: FirstClick) -> None:
    result = play("queue", rule=rule, board=3)
    assert result["replies"][0] == {"actions": [["reveal", 4, 4]]}
    assert result["outcome"] in ("won", "lost", "resigned")


@pytest.mark.parametrize(
    ("agent", "words"),
    [
        (
            "import_fails",
            "MyAI.py: the import failed: ModuleNotFoundError: No module named 'helpers' (MyAI.py, line 5)",
        ),
        (
            "constructor_raises",
            "MyAI.py: MyAI(8, 8, 10, 0, 0) raised IndexError: list index out of range (MyAI.py, line 10)",
        ),
    ],
)
def test_a_broken_agent_fails_its_hello_in_one_line(agent: str, words: str) -> None:
    """The host answers hello with the error, so every game and ``arena check-bot`` say it."""
    process = subprocess.run(
        [sys.executable, str(SHELL_DIR / "host.py"), str(SHELL_DIR), str(AGENTS / agent)],
        input='{"type":"hello","protocol":1}\n{"type":"quit"}\n',
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    hello = json.loads(process.stdout.splitlines()[0])
    assert hello["error"] == words
    assert len(process.stdout.splitlines()) == 1


def test_a_folder_without_myai_is_refused_in_one_line() -> None:
    with pytest.raises(EngineBotError) as refused:
        EngineBot.parse(f"x={AGENTS / 'no_agent'}")
    assert (
        str(refused.value) == f"{AGENTS / 'no_agent' / 'MyAI.py'}: no MyAI.py, MyAI.java or MyAI.cpp there "
        "(a course-shell agent's folder holds one; an engine bot's command is a program)"
    )
    bot = EngineBot.parse(f"x={AGENTS / 'queue'}")
    assert bot.shell_folder == str(AGENTS / "queue") and bot.folder == str(AGENTS / "queue")


def _tournament(tmp_path: Path, agent: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from arena.cli import main; main()", "tournament", "-d", "beginner",
         "--first-click", "zero", "--engine-bot", f"{agent}={AGENTS / agent}", "-p", agent,
         "--store", str(tmp_path / "s.db"), "-w", "1", "-q", "--json", *options],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )  # fmt: skip


def test_an_agent_plays_through_the_sandbox_and_its_prints_stay_in_its_log(tmp_path: Path) -> None:
    result = _tournament(tmp_path, "printer", "-n", "6")
    assert result.returncode == 0, result.stderr[-2000:]
    with Store(tmp_path / "s.db", create=False, read_only=True) as db:
        games = db.games(db.latest())
    assert len(games) == 6 and {g.outcome.value for g in games} <= {"won", "lost"}, [g.error for g in games]
    assert all(g.first_row is not None for g in games)


def test_a_raising_agent_fails_its_games_with_the_reason(tmp_path: Path) -> None:
    result = _tournament(tmp_path, "raises", "-n", "2")
    assert result.returncode == 0, result.stderr[-2000:]
    with Store(tmp_path / "s.db", create=False, read_only=True) as db:
        games = db.games(db.latest())
    assert [g.outcome.value for g in games] == ["error", "error"]
    assert all("MyAI.getAction raised ZeroDivisionError" in g.error for g in games)


def test_an_agent_that_leaves_passes_check_bot_and_its_games_say_why(tmp_path: Path) -> None:
    """LEAVE is the shell's way to give a game up: ``resign`` in the protocol, an end of the game check-bot allows
    (so a competition keeps the agent), scored as a game not won with the agent's reason."""
    checked = subprocess.run(
        [sys.executable, "-c", "from arena.cli import main; main()", "check-bot", "--engine-bot",
         f"queue={AGENTS / 'queue'}", "--json"],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )  # fmt: skip
    report = json.loads(checked.stdout)
    assert checked.returncode == 0 and report["passed"], [c for c in report["checks"] if not c["passed"]]
    assert len(report["checks"]) >= 10
    result = _tournament(tmp_path, "queue", "-n", "8")
    assert result.returncode == 0, result.stderr[-2000:]
    with Store(tmp_path / "s.db", create=False, read_only=True) as db:
        games = db.games(db.latest())
    left = [g for g in games if g.outcome.value != "won"]
    assert left and all(g.error.startswith("the agent left the game (LEAVE)") for g in left)
