"""A bot's stderr, drained by a thread of its own so that a chatty bot never blocks on a full pipe, of which only
the last lines are kept (for the error column and ``arena check-bot``).

Apart from ``BotProcess`` because it is the one part of a bot's process that another thread reads, with its
own lock and its own idea of "settled" (what was written before a reply is kept by the time the reply is read).
"""

from __future__ import annotations

import collections
import contextlib
import os
import select
import threading
import time
from typing import IO

__all__ = ["StderrTail"]


class StderrTail:
    """Reads stderr to EOF in big chunks, keeping only the last lines: a flood costs one decode of a
    few lines per 64 KiB, and the bot never blocks on a full pipe. The draining thread owns the stream.

    ``settle`` tells whether everything written so far has been read and kept: the thread marks itself
    busy (under the lock) after ``poll`` saw data and before it reads, and idle once the lines are kept,
    so "not busy and nothing readable" means nothing is in flight."""

    def __init__(self, stream: IO[bytes], tail: collections.deque[str], chunk: int = 1 << 16, longest: int = 300):
        self.stream = stream
        self.tail = tail
        self.chunk = chunk
        self.longest = longest
        self._lock = threading.Lock()
        self._busy = False
        self._poll = select.poll()
        self._poll.register(stream.fileno(), select.POLLIN)

    def drain(self) -> None:
        pending = b""
        fd = self.stream.fileno()
        while True:
            try:
                self._poll.poll()
                with self._lock:
                    self._busy = True
                data = os.read(fd, self.chunk)
            except (OSError, ValueError):
                break
            if not data:
                break
            lines = (pending + data).split(b"\n")
            pending = lines.pop()[-self.longest :]
            for raw in lines[-(self.tail.maxlen or 20) :]:
                text = raw.decode("utf-8", "replace").rstrip("\r")
                if text.strip():
                    self.tail.append(text[: self.longest])
            with self._lock:
                self._busy = False
        if pending.strip():
            self.tail.append(pending.decode("utf-8", "replace")[: self.longest])
        with self._lock:
            self._busy = False
        with contextlib.suppress(OSError):
            self.stream.close()

    def settle(self, deadline: float) -> None:
        """Wait (no later than ``deadline``) until what is in the pipe now has been read and kept."""
        probe = select.poll()
        try:
            probe.register(self.stream.fileno(), select.POLLIN)
        except (OSError, ValueError):
            return  # closed: the thread has finished
        while time.monotonic() < deadline:
            with self._lock:
                if not self._busy and not any(events & select.POLLIN for _, events in probe.poll(0)):
                    return
            time.sleep(0.001)
