"""What the pages' tests share besides fixtures (``tests/arena/web/conftest.py``): the hostile bot, the CLI in a
subprocess, the browser's settings. A module of its own: under ``--import-mode=importlib`` a conftest cannot be
imported.

The tournament is played once per session, in a subprocess through the CLI as a user would: Beginner, 24
boards, ``random``, ``mean-constraint`` and ``evil``, a plugin bot whose version, notes and error messages
(with stderr) are script and markup payloads; the pages must show them as text.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

#: A payload that runs if it is ever parsed as markup: it sets ``window.pwned`` (checked in the browser).
SCRIPT = "<script>window.pwned=1</script>"
IMAGE = '<img src=x onerror="window.pwned=2">'
EVIL_SOURCE = f"""
import sys

from players import Action, Observation, Player, hookimpl


class Evil(Player):
    name = "evil"
    description = {IMAGE!r}
    version = {SCRIPT!r}

    def play(self, observation):
        if observation.first_move:
            if self.rng.random() < 0.2:
                sys.stderr.write({IMAGE!r} + "\\n")
                sys.stderr.flush()
                raise ValueError({SCRIPT!r})
            return [Action.reveal(*self.first_click(observation), note={SCRIPT!r})]
        covered = (observation.grid == Observation.COVERED).nonzero()
        pick = self.rng.integers(len(covered[0]))
        note = {SCRIPT!r} + " " + {IMAGE!r}
        return [Action.reveal(int(covered[0][pick]), int(covered[1][pick]), guess=True, note=note, p_mine=0.5)]


@hookimpl
def register_players(register):
    register(Evil)
"""
#: The competition's name and owners the session's store is labelled with (as ``arena compete`` labels its
#: tournament): text a stranger wrote, payloads among it.
COMPETITION = f"Evil cup {SCRIPT}"
OWNERS = {"evil": IMAGE, "random": "Ann Example", "mean-constraint": "Bo & Co"}
PLAYERS = ("random", "mean-constraint", "evil")
BOARDS = 24
#: The browser: Debian's package puts it here; ARENA_TEST_CHROMIUM names another.
CHROMIUM = os.environ.get("ARENA_TEST_CHROMIUM", "/usr/bin/chromium")
#: Headless, and quiet: no background connections (this machine's closed network refuses them anyway).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> Iterator[Any]:
    """Debian's Chromium driven by playwright, for a module-scoped ``browser`` fixture (playwright's sync API runs
    one event loop at a time); the test skips, saying why, without playwright or Chromium."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed: python -m pip install -e '.[test]'")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        found = shutil.which("chromium")
        pytest.skip(
            f"no Chromium at {CHROMIUM} (on PATH: {found or 'none'}): apt-get install chromium, "
            "or set ARENA_TEST_CHROMIUM to a Chromium binary"
        )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def arena(*args: str | Path, check: bool = True, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run the ``arena`` command in a subprocess, as a user would."""
    command = [sys.executable, "-c", "from arena.cli import main; main()", *map(str, args)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, **kwargs)
    if check and result.returncode != 0:
        raise AssertionError(f"arena {' '.join(map(str, args))} failed ({result.returncode}): {result.stderr}")
    return result


@dataclass(frozen=True)
class Stored:
    path: Path
    tournament: str
    plugin: Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: A slow player (a few milliseconds a game), so that a tournament lasts long enough to be watched live.
SLOW_SOURCE = """
import time

from players import hookimpl
from players.builtin.random_player import RandomPlayer


class Slow(RandomPlayer):
    name = "slow"
    description = "random, a few milliseconds a game"

    def reset(self, rng, spec, rule):
        time.sleep(0.004)
        super().reset(rng, spec, rule)


@hookimpl
def register_players(register):
    register(Slow)
"""
