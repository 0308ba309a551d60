"""Each kit's own unit tests pass, run with its language's usual tool as its README says."""

from __future__ import annotations

import re
import subprocess

import pytest

from arena.kits import LANGUAGES
from arena.kits.new_bot import TEST_COMMANDS

#: How each tool reports what it ran: (pattern, group with the count of tests or checks that passed).
PASSED = {
    "python": r"Ran (\d+) tests?",
    "javascript": r"# pass (\d+)",
    "cpp": r"(\d+) of \d+ checks passed",
    "rust": r"test result: ok\. (\d+) passed",
    "java": r"(\d+) of \d+ tests passed",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_kits_unit_tests_pass(kit_builds, language: str) -> None:  # type: ignore[no-untyped-def]
    with kit_builds.in_place(language) as folder:  # its test builds are kept for the kit's copies
        result = subprocess.run(
            TEST_COMMANDS[language], shell=True, cwd=folder, capture_output=True, text=True, timeout=900, check=False
        )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    passed = sum(int(n) for n in re.findall(PASSED[language], output))
    assert passed >= 8, f"only {passed} tests ran:\n{output[-2000:]}"


#: Each kit's first change of an author's: another first click, and no certain moves. (file, [(old, new)])
CHANGES = {
    "python": (
        "strategy.py",
        [
            ("return reply.reveal(0, 0)\n", "return reply.reveal(board.height - 1, board.width - 1)\n"),
            ("safe, mines = certain_moves(board)", "safe, mines = set(), set()"),
        ],
    ),
    "rust": (
        "src/strategy.rs",
        [
            ("_ => reply.reveal(0, 0),", "_ => reply.reveal(board.height - 1, board.width - 1),"),
            (
                "let (safe, mines) = certain_moves(board);",
                "let (safe, mines) = (Vec::<Cell>::new(), Vec::<Cell>::new());",
            ),
        ],
    ),
    "cpp": (
        "src/strategy.cpp",
        [
            (
                "            return reply.reveal(0, 0);\n",
                "            return reply.reveal(board.height() - 1, board.width() - 1);\n",
            ),
            ("        certain_moves(board, safe, mines);\n", ""),
        ],
    ),
    "java": (
        "src/main/java/bot/Strategy.java",
        [
            (
                "            return reply.reveal(0, 0);\n",
                "            return reply.reveal(board.height - 1, board.width - 1);\n",
            ),
            ("byte[] fact = certainMoves(board);", "byte[] fact = new byte[board.height * board.width];"),
        ],
    ),
    "javascript": (
        "src/strategy.js",
        [
            ("      return reply.reveal(0, 0);\n", "      return reply.reveal(board.height - 1, board.width - 1);\n"),
            ("const { safe, mines } = certainMoves(board);", "const safe = [], mines = [];"),
        ],
    ),
}
#: Each kit's two test commands: the client's tests alone, and the strategy's.
SPLIT_TESTS = {
    "python": ("python3 -m unittest -v tests.test_client", "python3 -m unittest -v tests.test_strategy"),
    "javascript": ("node --test test/client.test.js", "node --test test/strategy.test.js"),
    "rust": ("cargo test --test client", "cargo test --test strategy"),
    "java": ("./test.sh bot.ClientTest", "./test.sh bot.StrategyTest"),
    "cpp": ("make --no-print-directory test-client", "make --no-print-directory test-strategy"),
}


@pytest.mark.slow
@pytest.mark.parametrize("language", sorted(CHANGES))
def test_a_changed_strategy_fails_none_of_the_clients_tests(kit_builds, tmp_path, language: str) -> None:  # type: ignore[no-untyped-def]
    """The client's tests test the client: an author's first change to the strategy (another first click, no
    certain moves) leaves them passing; the strategy's own example tests, the author's to change, see it.

    The author's kit is a copy of the built one (its build products' times kept), changed: as on the author's
    machine, the language's own tool rebuilds what the change touches (make, cargo), not what it does not."""
    folder = kit_builds.copy(language, tmp_path / "changed")
    name, edits = CHANGES[language]
    strategy = folder / name
    text = strategy.read_text()
    for old, new in edits:
        assert text.count(old) == 1, (language, old)
        text = text.replace(old, new)
    strategy.write_text(text)
    client_tests, strategy_tests = SPLIT_TESTS[language]

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, shell=True, cwd=folder, capture_output=True, text=True, timeout=900)

    client = run(client_tests)
    output = client.stdout + client.stderr
    assert client.returncode == 0, output[-3000:]
    assert sum(int(n) for n in re.findall(PASSED[language], output)) >= 8, output[-2000:]
    own = run(strategy_tests)
    said = (own.stdout + own.stderr).lower().replace("_", "").replace(" ", "")
    assert own.returncode != 0 and "firstclick" in said  # the strategy's own first-click test saw the change
