"""A bot's CPU time, read from outside its process: the whole process tree's (``tree_cpu_seconds``: what the CPU
clock bills a move, children included) and one process's own, finely (``process_cpu_clock``: what a game's CPU
budget and the busy-wait credit are measured against).

Apart from ``BotProcess`` because both are Linux's ``/proc`` and POSIX clocks, not pipes and deadlines, and
because the CPU clock's tests read them alone (tests/arena/play/test_cpu_clock.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["process_cpu_clock", "tree_cpu_seconds"]


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user and system) of process ``root`` and every live descendant, with the children each has
    reaped, from ``/proc`` (Linux; 0.0 elsewhere or once the process is gone). A process that exits between two
    reads stops counting until its parent reaps it."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    todo, seen = [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            tasks = os.listdir(f"/proc/{pid}/task")
        except (OSError, IndexError):
            continue
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        for task in tasks:
            with contextlib.suppress(OSError, ValueError):
                todo.extend(int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    return total / ticks


def process_cpu_clock(pid: int) -> Callable[[], float] | None:
    """A function reading the CPU seconds (all threads) of process ``pid``, at nanosecond resolution
    through its POSIX CPU clock, else from /proc in clock ticks; None where neither exists."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        clock = ctypes.c_int()
        if libc.clock_getcpuclockid(pid, ctypes.byref(clock)) == 0:
            spec = _Timespec()

            def read() -> float:
                if libc.clock_gettime(clock.value, ctypes.byref(spec)) != 0:
                    raise OSError(ctypes.get_errno(), "clock_gettime")
                return spec.tv_sec + spec.tv_nsec / 1e9

            read()
            return read
    except (OSError, AttributeError):
        pass
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        ticks = os.sysconf("SC_CLK_TCK")

        def read_proc() -> float:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / ticks

        return read_proc
    return None
