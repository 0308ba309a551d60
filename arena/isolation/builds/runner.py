"""Run a bot's ``build.sh`` and take down whatever it leaves running: the first process of a build.

Run by path with the standard library only (``python -I -S runner.py OPTIONS_JSON -- COMMAND...``), inside
the sandbox (or, with the sandbox off, as a plain process) by ``arena.isolation.builds.build``. It sets the limits the
kernel keeps per process (the largest file, the data a process may hold where no memory cgroup caps the whole
build), makes itself the *subreaper* of the build, runs the command, and when the command has exited it kills every
process still running below it (a daemon started by the build, a forgotten ``sleep &``) and says so in the log:
orphans are handed to the nearest subreaper, so none escapes by double-forking or ``setsid``. It exits with the
command's exit code (128 + N for signal N, as a shell says it).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import time

__all__ = ["main"]

_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38
#: Rounds of killing leftovers: a killed process's own children are handed to this one, and killed next round.
_ROUNDS = 50
#: How long leftovers may settle before they are named: a shell's ``sleep &`` is a copy of the shell until it has
#: started ``sleep``, and its name would be the shell's.
_SETTLE = 0.3


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _limit(kind: int, value: object) -> None:
    if isinstance(value, int) and value > 0:
        resource.setrlimit(kind, (value, value))


def _children() -> list[int]:
    """This process's children (orphans handed to it included), read from /proc."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{os.getpid()}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{os.getpid()}/task/{task}/children") as file:
                found += [int(p) for p in file.read().split()]
        except (OSError, ValueError):
            continue
    return sorted(set(found))


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            words = file.read().split(b"\0")
        text = " ".join(w.decode("utf-8", "replace") for w in words if w)
    except OSError:
        text = ""
    return (text[:60] + "...") if len(text) > 63 else (text or f"pid {pid}")


def _reap_leftovers() -> list[str]:
    """Kill every process left below this one; what each was (its command line)."""
    seen: list[str] = []
    for round in range(_ROUNDS):
        children = _children()
        if not children:
            break
        if round == 0:
            time.sleep(_SETTLE)
            children = _children()
        for pid in children:
            seen.append(_name(pid))
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    # Zombies that finished on their own meanwhile.
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    return seen


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: runner.py OPTIONS_JSON -- COMMAND [ARGS...]\n")
        return 2
    options, command = json.loads(argv[0]), argv[2:]
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        _limit(resource.RLIMIT_FSIZE, options.get("file_bytes"))
        _limit(resource.RLIMIT_DATA, options.get("data_bytes"))
        _limit(resource.RLIMIT_NPROC, options.get("processes"))
    except (OSError, ValueError) as error:
        sys.stderr.write(f"arena: cannot set the build's limits: {error}\n")
        return 126
    if sys.platform.startswith("linux"):
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    # Inherited by the build: a file past the limit fails its write with "File too large" (which the log then
    # shows) instead of killing the writer silently; a closed pipe stops a writer as in a shell.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        child = subprocess.Popen(command, restore_signals=False)
    except OSError as error:
        sys.stderr.write(f"arena: cannot run {' '.join(command)}: {error}\n")
        return 127
    code = child.wait()
    left = _reap_leftovers()
    if left:
        count = f"{len(left)} process{'es' if len(left) != 1 else ''}"
        sys.stderr.write(f"arena: {command[-1]} exited leaving {count} running, killed: {'; '.join(left)}\n")
    sys.stderr.flush()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
