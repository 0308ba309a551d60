"""The course's Java and C++ shells: a folder holding ``MyAI.java`` (or ``MyAI.cpp`` and ``MyAI.hpp``) built in the
build sandbox (``arena/isolation/builds/shells.py``) and played, unmodified, through the Python adapter
(``arena/isolation/myai/host.py``), which asks the built driver for each ``MyAI`` and ``getAction``.

The agents (tests/bots/myai/java/, tests/bots/myai/cpp/) are written in the styles students write: a queue of
safe tiles (with a helper class in a file of its own, and the course's own world or main still in the folder), one
that raises or throws, one that returns an action off the board, and one that plays ``examples/standalone_bot.py``'s
strategy, which must play exactly its games. Each agent is built once per test run (``shared_once``), and then
found built (the build is named by its sources' digest).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from myai_support import load_adapter
from repo import BOTS, ROOT
from shared_once import built_once

from arena.isolation.builds.shells import build_shell, java_package
from arena.isolation.protocol import messages as protocol
from arena.limits import SHELL_DIR, EngineBot, EngineBotError, SandboxMode
from arena.results import records
from arena.results.store import Store
from arena.shells import SHELLS, agent_sources, build_folder, shell_of
from engine import BEGINNER, EXPERT, INTERMEDIATE, BoardSpec, FirstClick, Game
from engine.layout import player_seed

host = load_adapter()
AGENTS = {language: BOTS / "myai" / language for language in ("java", "cpp")}
LANGUAGES = ("java", "cpp")
#: What each shell's build and run need (the C++ shell needs no JSON library, unlike the C++ kit).
TOOLCHAINS = {"java": ("javac", "java"), "cpp": ("g++",)}


def missing_toolchain(language: str) -> str | None:
    """Why the ``language`` shell cannot be built here (what installs it), or None."""
    absent = [program for program in TOOLCHAINS[language] if shutil.which(program) is None]
    package = {"java": "default-jdk-headless", "cpp": "g++"}[language]
    return f"the {language} shell needs {' and '.join(absent)} (Debian: apt-get install {package})" if absent else None


@pytest.fixture(scope="session")
def shell_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Path]]:
    """Every Java and C++ test agent built in the sandbox once per run: ``[language][agent]`` its build folder."""
    available = {language: missing_toolchain(language) is None for language in LANGUAGES}

    def build(folder: Path) -> None:
        agents = [p for language in LANGUAGES if available[language] for p in sorted(AGENTS[language].iterdir())]
        with ThreadPoolExecutor(max_workers=2) as pool:  # a compiler each, on the suite's two cores
            builds = list(pool.map(lambda agent: build_shell(agent, sandbox=SandboxMode.REQUIRE), agents))
        failures = {f"{a.parent.name}/{a.name}": b.summary() for a, b in zip(agents, builds, strict=True) if not b.ok}
        (folder / "failures.json").write_text(json.dumps(failures))

    folder = built_once(tmp_path_factory, "myai-shell-builds", build)
    failures = json.loads((folder / "failures.json").read_text())
    assert not failures, failures
    return {
        language: {p.name: build_folder(p, shell_of(p)) for p in AGENTS[language].iterdir() if p.is_dir()}  # type: ignore[arg-type]
        for language in LANGUAGES
        if available[language]
    }


def built(shell_builds: dict[str, dict[str, Path]], language: str, agent: str) -> Path:
    if language not in shell_builds:
        pytest.skip(missing_toolchain(language) or "")
    return shell_builds[language][agent]


def play(
    language: str, agent: str, build: Path, spec: BoardSpec = BEGINNER, board: int = 0, name: str = "agent"
) -> dict[str, Any]:
    """One game of a compiled agent through the adapter, message by message as the arena plays it (the driver
    runs here, outside the sandbox: the tournaments below play in it)."""
    shell = host.Compiled(str(SHELL_DIR), str(AGENTS[language] / agent), str(build))
    try:
        game = Game(spec, FirstClick.ZERO, seed=0, index=board, record=True)
        game.open_start()
        start = json.loads(protocol.new_game(spec, FirstClick.ZERO, player_seed(0, board, name), 10, 300))
        shell.ai.seed = start["seed"]
        mine = host.Game(shell, start)
        while not game.over:
            grid = json.loads(protocol.observation(game.observation()))["grid"]
            try:
                reply = mine.observe(grid)
            except host.GameEnd as failure:
                outcome = "illegal" if failure.illegal else "resigned" if failure.resign else "error"
                return {"outcome": outcome, "why": str(failure), "game": game}
            actions, _ = protocol.parse_reply(json.dumps(reply))
            game.play_answer(actions)
        return {"outcome": "won" if game.won else "lost", "why": "", "game": game}
    finally:
        if shell.process is not None:
            shell.process.kill()
            shell.process.wait()


# -- the shells, without building anything --------------------------------------------------------------------------
def test_a_folder_says_its_shell_and_only_the_students_sources_are_built() -> None:
    java, cpp = shell_of(AGENTS["java"] / "queue"), shell_of(AGENTS["cpp"] / "queue")
    assert java is not None and (java.language, java.origin) == ("java", 1)
    assert cpp is not None and (cpp.language, cpp.origin) == ("cpp", 0)
    assert shell_of(BOTS / "myai" / "queue") == SHELLS[0] and shell_of(BOTS / "myai" / "no_agent") is None
    # The course's own world and main stay out; a helper class of the student's goes in.
    assert [p.name for p in agent_sources(AGENTS["java"] / "queue", java)] == ["MyAI.java", "Tile.java"]
    assert [p.name for p in agent_sources(AGENTS["cpp"] / "queue", cpp)] == ["MyAI.cpp", "MyAI.hpp"]


def test_the_build_is_named_by_the_sources(tmp_path: Path) -> None:
    agent = tmp_path / "ann"
    agent.mkdir()
    (agent / "MyAI.java").write_text("package src;\npublic class MyAI extends AI {}\n")
    shell = shell_of(agent)
    assert shell is not None
    first = build_folder(agent, shell)
    (agent / "World.java").write_text("the course's world changes nothing")
    assert build_folder(agent, shell) == first
    (agent / "Helper.java").write_text("package src; class Helper {}")
    assert build_folder(agent, shell) != first


def test_the_java_package_is_read_as_javac_reads_it() -> None:
    assert java_package("/*\n package nope;\n*/\npackage src;\nimport src.Action.ACTION;") == "src"
    assert java_package("// package nope;\nimport java.util.List;\npublic class MyAI {}") is None
    assert java_package("package edu.uci.cs171 ;") == "edu.uci.cs171"


def test_an_engine_bot_of_a_compiled_shell_names_its_build() -> None:
    bot = EngineBot.parse(f"ann={AGENTS['java'] / 'queue'}")
    assert bot.shell_folder == str(AGENTS["java"] / "queue") and bot.folder == bot.shell_folder
    assert bot.shell_build is not None and Path(bot.shell_build).name.startswith("java-")
    assert EngineBot.parse(f"py={BOTS / 'myai' / 'queue'}").shell_build is None


def test_a_course_project_folder_is_refused_with_where_its_agent_is(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "MyAI.java").write_text("package src;")
    with pytest.raises(EngineBotError) as refused:
        EngineBot.parse(f"ann={tmp_path}")
    assert str(refused.value).endswith(f"; the course's project keeps it in src: give {tmp_path / 'src'}")


# -- built, and played through the adapter ---------------------------------------------------------------------------


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_queue_agent_plays_in_the_shells_coordinates(shell_builds: Any, language: str) -> None:
    """The start tile goes to the constructor in the shell's coordinates (Java's from 1): the queue agent uncovers
    the tiles of its start's opening, every one of them given free (the arena's reveal of the start opened them),
    and leaves. A coordinate mapped wrong would uncover a tile the flood did not open: an engine move, a mine."""
    build = built(shell_builds, language, "queue")
    outcomes = [play(language, "queue", build, board=board) for board in range(12)]
    assert {o["outcome"] for o in outcomes} <= {"won", "resigned"}, outcomes
    left = [o for o in outcomes if o["outcome"] == "resigned"]
    assert left and all(o["why"].startswith("the agent left the game (LEAVE) with ") for o in left)
    # Every agent move the engine saw was a reveal of a covered tile (a wrong mapping would reveal a mine or
    # uncover a tile twice, which the adapter gives free and never sends).
    played = [_moves(o["game"]) for o in outcomes]
    assert [len(moves) for moves in played] == [1] * 12  # the arena's opening of the start tile, and nothing else
    assert all(len(moves[0][3]) > 1 for moves in played)


Played = tuple[str, int, int, tuple[tuple[int, int], ...]]


def _moves(game: Game) -> list[Played]:
    """The engine's moves of ``game``: kind, cell and the cells it opened, as the store records them."""
    record = records.decode(records.log_blob(game.move_log(), game.spec.height, game.spec.width))
    return [(m.kind.value, m.row, m.col, m.opened) for m in record.moves]


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("java", "MyAI.getAction raised ArithmeticException: / by zero (MyAI.java, line 19)"),
        ("cpp", "MyAI::getAction threw std::out_of_range: vector::_M_range_check: __n (which is 5) >= this->size() "),
    ],
)
def test_an_exception_is_an_error_naming_what_was_thrown(shell_builds: Any, language: str, words: str) -> None:
    result = play(language, "raises", built(shell_builds, language, "raises"))
    assert result["outcome"] == "error"
    assert result["why"].startswith(words), result["why"]


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("java", "MyAI.getAction returned UNCOVER at (9, 0), off the board: x runs 1..9 (columns) and y 1..9"),
        ("cpp", "MyAI::getAction returned UNCOVER at (9, 0), off the board: x runs 0..8 (columns) and y 0..8"),
    ],
)
def test_an_action_off_the_board_is_illegal_in_the_shells_own_coordinates(
    shell_builds: Any, language: str, words: str
) -> None:
    result = play(language, "off_board", built(shell_builds, language, "off_board"))
    assert result["outcome"] == "illegal"
    assert result["why"].startswith(words), result["why"]


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_standalone_agent_plays_the_examples_games_move_for_move(shell_builds: Any, language: str) -> None:
    """The identical-moves check: the Java or C++ agent playing ``examples/standalone_bot.py``'s strategy (its
    guesses from the shared generator seeded from the shell's ``seed``) makes the example's moves, one for one,
    and ends each game as it does: a coordinate mapped wrong, a number given wrongly, a flood's tiles not given
    free or a move spent twice would show here. The example plays through the protocol here too."""
    build = built(shell_builds, language, "standalone")
    compared = moves = 0
    for spec, boards in ((BEGINNER, 25), (INTERMEDIATE, 6), (EXPERT, 4)):
        for board in range(boards):
            mine = play(language, "standalone", build, spec, board, name="kit")
            theirs = _example_game(spec, board)
            assert mine["outcome"] == theirs[0], (spec, board, mine["why"])
            assert _moves(mine["game"]) == theirs[1], (spec, board)
            compared += 1
            moves += len(theirs[1])
    assert compared == 35 and moves > 500, (compared, moves)


_EXAMPLE: dict[tuple[str, int], tuple[str, list[Played]]] = {}


def _example_game(spec: BoardSpec, board: int) -> tuple[str, list[Played]]:
    """The example's game on ``board``, played through the line protocol in its own process (kept for the
    other language's test)."""
    key = (spec.name, board)
    if key not in _EXAMPLE:
        example = subprocess.Popen(
            [sys.executable, str(ROOT / "examples" / "standalone_bot.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert example.stdin is not None and example.stdout is not None
        try:
            game = Game(spec, FirstClick.ZERO, seed=0, index=board, record=True)
            game.open_start()
            example.stdin.write(protocol.new_game(spec, FirstClick.ZERO, player_seed(0, board, "kit"), 10, 300) + "\n")
            while not game.over:
                example.stdin.write(protocol.observation(game.observation()) + "\n")
                example.stdin.flush()
                actions, _ = protocol.parse_reply(example.stdout.readline())
                game.play_answer(actions)
        finally:
            example.kill()
            example.wait()
        _EXAMPLE[key] = ("won" if game.won else "lost", _moves(game))
    return _EXAMPLE[key]


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
def test_a_constructor_that_throws_fails_the_hello_in_one_line(shell_builds: Any) -> None:
    """The adapter builds one agent when it starts (``MyAI(8, 8, 10, 1, 1)`` in the Java shell's coordinates) and
    answers hello with what went wrong, so ``arena check-bot`` and every game say it."""
    build = built(shell_builds, "java", "constructor_raises")
    process = subprocess.run(
        [sys.executable, str(SHELL_DIR / "host.py"), str(SHELL_DIR), str(AGENTS["java"] / "constructor_raises"),
         str(build)],
        input='{"type":"hello","protocol":1}\n{"type":"quit"}\n',
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    (line,) = process.stdout.splitlines()
    assert json.loads(line)["error"] == (
        "MyAI.java: MyAI(8, 8, 10, 1, 1) raised ArrayIndexOutOfBoundsException: Index 8 out of bounds for length 8 "
        "(MyAI.java, line 11)"
    )


# -- through the arena: the sandbox, the CLI, a competition ------------------------------------------------------------
def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from arena.cli import main; main()", *args],
        capture_output=True, text=True, timeout=900, check=False, cwd=tmp_path,
    )  # fmt: skip


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_agent_plays_a_tournament_in_the_sandbox_and_its_prints_stay_in_its_log(
    shell_builds: Any, tmp_path: Path, language: str
) -> None:
    built(shell_builds, language, "queue")
    result = _cli(
        tmp_path, "tournament", "-d", "beginner", "--first-click", "zero", "-n", "4", "--sandbox", "require",
        "--engine-bot", f"q={AGENTS[language] / 'queue'}", "-p", "q", "--store", str(tmp_path / "s.db"),
        "-w", "1", "-q", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "building" not in result.stderr  # built once, by the fixture: found by its sources' digest
    with Store(tmp_path / "s.db", create=False, read_only=True) as db:
        games = db.games(db.latest())
    assert len(games) == 4 and {g.outcome.value for g in games} <= {"won", "error"}, [g.error for g in games]
    left = [g for g in games if g.outcome.value == "error"]
    assert left and all(g.error.startswith("the agent left the game (LEAVE)") for g in left)
    assert all("number 0 at" in g.error for g in left)  # its prints: in its log, never in the protocol
    # LEAVE is scored as any bot's unfinished game: failed (error), never lost (a lost game is a mine uncovered).
    (row,) = json.loads(result.stdout)["rows"]
    assert (row["games"], row["wins"], row["failed"]) == (4, 4 - len(left), len(left))
    errors = _cli(tmp_path, "errors", "--store", str(tmp_path / "s.db"))
    assert errors.returncode == 0, errors.stderr
    # The replay command plays the folder again, as it was given: the adapter and the build are the arena's.
    assert f"--engine-bot q={AGENTS[language] / 'queue'} -d beginner --first-click zero" in errors.stdout


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
def test_an_agent_that_does_not_compile_is_one_line_with_its_first_error(tmp_path: Path) -> None:
    if missing_toolchain("cpp"):
        pytest.skip(missing_toolchain("cpp") or "")
    agent = tmp_path / "ann"
    agent.mkdir()
    (agent / "MyAI.hpp").write_text('#include "Agent.hpp"\nclass MyAI : public Agent {\n};\n')
    (agent / "MyAI.cpp").write_text('#include "MyAI.hpp"\nint broken() { return nothing; }\n')
    result = _cli(tmp_path, "check-bot", "--engine-bot", f"ann={agent}")
    assert result.returncode == 2, result.stderr
    (line,) = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
    assert line.startswith("error: engine bot 'ann': MyAI.cpp failed to build (exit 1; MyAI.cpp:2: ")
    assert "nothing" in line and "was not declared" in line and line.endswith(".log")


def _processes_running(path: str) -> list[int]:
    """The processes whose command line names ``path``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if path in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
def test_an_agent_that_loops_times_out_and_leaves_no_process_behind(shell_builds: Any, tmp_path: Path) -> None:
    """Outside the sandbox too: the arena kills the adapter's session for its timeout (``killpg``), and the agent's
    program, the adapter's child in that session, dies with it."""
    build = built(shell_builds, "cpp", "loops")
    result = _cli(
        tmp_path, "tournament", "-d", "beginner", "--first-click", "zero", "-n", "1", "--sandbox", "off",
        "--move-time", "1", "--engine-bot", f"loops={AGENTS['cpp'] / 'loops'}", "-p", "loops",
        "--store", str(tmp_path / "s.db"), "-w", "1", "-q", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    with Store(tmp_path / "s.db", create=False, read_only=True) as db:
        (game,) = db.games(db.latest())
    assert game.outcome.value == "timeout", game.error
    assert _processes_running(str(build / "arena_agent")) == []


@pytest.mark.kits
@pytest.mark.sandbox
@pytest.mark.slow
def test_a_competition_builds_its_java_and_cpp_agents_and_leaves_out_one_that_does_not_compile(
    shell_builds: Any, tmp_path: Path
) -> None:
    built(shell_builds, "java", "standalone")
    built(shell_builds, "cpp", "standalone")
    for language in LANGUAGES:
        shutil.copytree(AGENTS[language] / "standalone", tmp_path / language)
    (tmp_path / "dan").mkdir()
    (tmp_path / "dan" / "MyAI.java").write_text("package src;\npublic class MyAI extends AI {\n  int x = ;\n}\n")
    path = tmp_path / "course.toml"
    path.write_text(
        'name = "course"\nsandbox = "require"\n\n[[sets]]\nname = "small"\nwidth = 8\nheight = 8\nmines = 10\n'
        'first_click = "zero"\ncount = 4\npoints = 1\n\n'
        + "".join(f'[[entrants]]\nname = "{n}"\nowner = "{n}"\nmyai = "{n}"\n\n' for n in ("java", "cpp", "dan"))
    )
    result = _cli(tmp_path, "compete", str(path), "--workers", "1", "--json")
    assert result.returncode == 0, result.stderr[-2000:]
    data = json.loads(result.stdout)
    status = {e["name"]: (e["status"], e["reason"]) for e in data["entrants"]}
    assert status["java"] == ("played", "") and status["cpp"] == ("played", ""), status
    assert status["dan"][0] == "left out"
    assert status["dan"][1].startswith("build: MyAI.java failed to build (exit 1; MyAI.java:3: "), status["dan"]
    log = tmp_path / "course-results" / "builds" / "dan.log"
    assert "MyAI.java:3: error:" in log.read_text()
    (row,) = [r for r in data["points"] if r["entrant"] == "java"]
    assert row["sets"]["small"]["games"] == 4
