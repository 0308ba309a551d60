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
    folder = kit_builds.get(language)
    result = subprocess.run(
        TEST_COMMANDS[language], shell=True, cwd=folder, capture_output=True, text=True, timeout=900, check=False
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    passed = sum(int(n) for n in re.findall(PASSED[language], output))
    assert passed >= 8, f"only {passed} tests ran:\n{output[-2000:]}"


def test_a_changed_strategy_fails_none_of_the_python_clients_tests(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The client's tests test the client: an author's first change to the strategy (here: another first click
    and no certain moves) leaves them passing; the strategy's own example tests, the author's to change, see it."""
    import sys

    from arena.kits.new_bot import new_bot

    kit = new_bot("changed", "python", tmp_path / "changed")
    strategy = kit.folder / "strategy.py"
    text = strategy.read_text()
    changed = text.replace("return reply.reveal(0, 0)\n", "return reply.reveal(board.height - 1, board.width - 1)\n")
    changed = changed.replace("safe, mines = certain_moves(board)", "safe, mines = set(), set()")
    assert changed.count("board.height - 1, board.width - 1") == 1 and "set(), set()" in changed
    strategy.write_text(changed)

    def run(module: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "unittest", "-v", module]
        return subprocess.run(command, cwd=kit.folder, capture_output=True, text=True, timeout=300, check=False)

    client = run("tests.test_client")
    assert client.returncode == 0, client.stderr[-3000:]
    assert int(re.findall(r"Ran (\d+) tests?", client.stderr)[0]) >= 9
    own = run("tests.test_strategy")
    assert own.returncode != 0 and "test_first_clicks_by_rule" in own.stderr
