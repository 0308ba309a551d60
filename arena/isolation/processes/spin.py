"""Waiting for a pipe without falling asleep: a short busy wait before a blocking one.

A process blocked on a pipe is woken by the kernel when data arrives; on an idle (virtual) machine
that wake-up, not the copy, dominates a round trip: about 80 µs here against 3-5 µs for a reader
that keeps trying for a moment first (``benchmarks/isolation_overhead.py``). Bots and the arena
answer each other within tens of microseconds, so both ends try for a short window, yielding the
core to anyone else who wants it, and only then block. Used only where each side has a core of its
own (see ``spin_window``): on a busy machine the wake-ups are fast anyway and the busy wait would
take time from real work.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from collections.abc import Iterator

__all__ = ["DEFAULT_SPIN", "LineReader", "available_cores", "read_spinning", "spin_window"]

#: Seconds a reader keeps trying before it blocks, when spinning pays.
DEFAULT_SPIN = 200e-6


def spin_window(processes: int, cores: int | None = None) -> float:
    """The busy-wait window for ``processes`` runnable processes (workers and their bots) on this
    machine: ``DEFAULT_SPIN`` when every one has a core, otherwise 0 (never spin)."""
    available = cores if cores is not None else available_cores()
    return DEFAULT_SPIN if processes <= available else 0.0


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's total): the arena's
    default number of workers too (``arena.play.backends.local.default_workers``)."""
    counter = getattr(os, "process_cpu_count", None)  # Python 3.13+, which also honours PYTHON_CPU_COUNT
    if counter is not None:
        return max(1, counter() or 1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def read_spinning(fd: int, seconds: float, size: int = 1 << 16) -> bytes | None:
    """Read from non-blocking ``fd``, trying for up to ``seconds``; None when nothing came.
    ``b""`` is the end of the stream; ``OSError`` other than "would block" propagates."""
    if seconds <= 0:
        return None
    end = time.perf_counter() + seconds
    while True:
        try:
            return os.read(fd, size)
        except BlockingIOError:
            pass
        if time.perf_counter() >= end:
            return None
        os.sched_yield()


class LineReader:
    """The lines of ``fd`` (made non-blocking), without their newline, busy-waiting ``spin`` seconds
    before each blocking wait; a last line without a newline comes at the end of the stream.
    ``spun`` is the CPU time (this thread's) the busy waits have cost: time the process used for
    nothing but listening, which the bot host reports so that it is not billed as thinking."""

    def __init__(self, fd: int, spin: float = 0.0, size: int = 1 << 16) -> None:
        os.set_blocking(fd, False)
        self.fd = fd
        self.spin = spin
        self.size = size
        self.spun = 0.0
        #: The input has ended (what is left in the buffer is its last line).
        self.eof = False
        self._buffer = bytearray()

    @property
    def unread(self) -> bool:
        """Whether ``lines`` may have something (or the input has ended)."""
        return self.eof or bool(self._buffer)

    def fill(self, timeout: float | None) -> None:
        """Read what has come, waiting up to ``timeout`` seconds (None: for ever) for something."""
        if self.eof:
            return
        select.select([self.fd], [], [], timeout)
        with contextlib.suppress(BlockingIOError):
            self._take(os.read(self.fd, self.size))

    def _take(self, chunk: bytes) -> None:
        if chunk:
            self._buffer += chunk
        else:
            self.eof = True

    def lines(self) -> Iterator[bytes]:
        """The complete lines read so far (and, at the end of the input, a last partial one)."""
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                break
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            yield line
        if self.eof and buffer:
            line = bytes(buffer)
            buffer.clear()
            yield line

    def __iter__(self) -> Iterator[bytes]:
        while True:
            yield from self.lines()
            if self.eof:
                return
            if self.spin > 0:
                started = time.thread_time()
                chunk = read_spinning(self.fd, self.spin, self.size)
                self.spun += time.thread_time() - started
                if chunk is not None:
                    self._take(chunk)
                    continue
            self.fill(None)
