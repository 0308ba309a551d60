"""Something expensive made once per test run, however many pytest-xdist workers ask for it.

A session fixture runs once per *worker*: under ``-n auto`` each worker would play the same tournament
for its own copy of a store. ``built_once`` makes it once in the run's shared temporary folder (the parent
of each worker's ``basetemp``, as pytest-xdist's documentation does it), under a file lock: the first
worker to ask builds it, the others wait for the lock and find it built. Without workers it is an ordinary
session folder. Only for what the tests read and never change.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

__all__ = ["built_once"]


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder ``name``, filled by ``build(folder)`` once for the whole run (all workers)."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by the workers of this run, and by nothing else
    folder = base / f"once-{name}"
    with open(base / f"once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker building it: wait for it
        if not (folder / ".built").exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed half-way
            folder.mkdir()
            build(folder)
            (folder / ".built").touch()
    return folder
