"""How a run stops on a signal: SIGTERM stops at once, a first Ctrl-C stops after the games in progress.

A tournament (``arena.play.tournament``) and a watched game (``arena play``) both stop this way, so that
a service manager's SIGTERM, a CI timeout or a person's Ctrl-C commits what is finished and closes the
workers and bots instead of leaving them running.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

from arena.play.backends import StopFlag

__all__ = ["Terminated", "ctrl_c_stops", "sigterm_stops"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is (``sigterm_stops``): it stops at once, as a second Ctrl-C does."""


@contextlib.contextmanager
def _handling(signum: int, handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """``handler`` for signal ``signum`` while it lasts. Only the main thread can set signal handlers;
    elsewhere, and where the signal is ignored, nothing changes."""
    previous = signal.getsignal(signum)
    if threading.current_thread() is not threading.main_thread() or previous in (signal.SIG_IGN, None):
        yield
        return
    signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, previous)


def sigterm_stops() -> contextlib.AbstractContextManager[None]:
    """While it lasts, SIGTERM (a service manager, ``kill``, a CI timeout) raises ``Terminated``: stop
    at once, commit what is back, and close workers and bots instead of dying with them running."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Terminated

    return _handling(signal.SIGTERM, handler)


def ctrl_c_stops(stop: StopFlag) -> contextlib.AbstractContextManager[None]:
    """While playing, the first Ctrl-C (SIGINT) sets ``stop``: running batches finish and are
    committed. The second raises KeyboardInterrupt: stop at once."""

    def handler(signum: int, frame: FrameType | None) -> None:
        if stop:
            raise KeyboardInterrupt
        stop.set()
        with contextlib.suppress(Exception):
            sys.stderr.write("\nstopping: committing the games in progress (Ctrl-C again to stop at once)\n")
            sys.stderr.flush()

    return _handling(signal.SIGINT, handler)
