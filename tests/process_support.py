"""Helpers for the tests that start the arena as a real process and signal it.

Run as a background job (``nohup python -m pytest &``, a job runner, a CI agent), the suite inherits
SIGINT *ignored*: a shell ignores it in the jobs it puts in the background, an ignored signal stays
ignored across ``exec``, and the arena rightly keeps it so (it is how a user says "do not stop on
Ctrl-C"). A test that sends SIGINT to check what Ctrl-C does must give its child the default SIGINT,
as a terminal's foreground job has it: ``preexec_fn=default_sigint``.
"""

from __future__ import annotations

import signal

__all__ = ["default_sigint"]


def default_sigint() -> None:
    """In the child, before ``exec``: SIGINT back to its default, whatever the test process inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
