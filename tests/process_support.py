"""Helpers for the tests that start the arena as a real process and signal it.

Run as a background job (``nohup python -m pytest &``, a job runner, a CI agent), the suite inherits
SIGINT *ignored*: a shell ignores it in the jobs it puts in the background, an ignored signal stays
ignored across ``exec``, and the arena rightly keeps it so (it is how a user says "do not stop on
Ctrl-C"). A test that sends SIGINT to check what Ctrl-C does must give its child the default SIGINT,
as a terminal's foreground job has it: ``preexec_fn=default_sigint``.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

__all__ = ["default_sigint", "running_with"]


def default_sigint() -> None:
    """In the child, before ``exec``: SIGINT back to its default, whatever the test process inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def running_with(tag: str) -> list[int]:
    """The live processes (not zombies) whose command line holds ``tag``: what a test that must leave no process
    behind looks for."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if tag in cmdline and state != "Z":
            found.append(int(entry))
    return found
