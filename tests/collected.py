"""The whole suite as this pytest session collected it, with each test's markers, before ``-m`` chose any.

A run of the whole suite (the README's two passes, the fast tier) has already collected every test and
given each its markers (tests/conftest.py adds those that follow from fixtures). tests/conftest.py keeps
that list in the session's stash, so that a test about the suite itself (tests/test_fast_tier.py) reads it
instead of collecting the suite again in a process of its own; a run of fewer files has no list here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

__all__ = ["SUITE", "whole_suite"]

#: Each collected test's node id and the names of its markers; set only when the run collected every test.
SUITE = pytest.StashKey[dict[str, frozenset[str]]]()


def whole_suite(config: pytest.Config, tests: Path) -> bool:
    """Whether this run collects every test under ``tests``: no narrower path and nothing ``--ignore``d.
    (``-m``, ``-k`` and ``--deselect`` choose among the collected tests after the list is taken.)"""
    if any(config.getoption(name, None) for name in ("ignore", "ignore_glob")):
        return False
    where = Path(config.invocation_params.dir)
    args: Sequence[str] = config.args or ()
    paths = {(where / arg).resolve() for arg in args}
    return bool(paths) and all(path in (tests, tests.parent) for path in paths)
