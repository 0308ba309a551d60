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
