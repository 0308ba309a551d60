"""Start a bot under kernel limits: set them in a fresh process, then ``exec`` the bot.

Run by path with the standard library only (``python -I -S launch.py LIMITS_JSON -- COMMAND...``),
inside the sandbox as its first command (and, for a root arena, outside it to join the bot's pids
cgroup). Which limits and why: docs/isolation.md (kernel limits).

Outside the sandbox (``--sandbox off``) the launcher is also what ends a bot with its arena, however the
arena ends (``kill -9`` included): ``{"die_with": PID}`` asks the kernel for SIGKILL when the parent goes
(``PR_SET_PDEATHSIG``, as the sandbox's ``--die-with-parent``), then checks that PID is still the parent,
since it may have died before the request. The kernel sends it when the *thread* that started the bot
exits, not the whole process: the arena starts its bots from the thread that plays their games.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys

__all__ = ["apply_limits", "die_with_parent", "main"]

_PR_SET_NO_NEW_PRIVS = 38
_PR_CAPBSET_DROP = 24
_CAP_SYS_PTRACE = 19
_PR_SET_PDEATHSIG = 1


def _prctl(option: int, value: int) -> bool:
    """Whether ``prctl(option, value)`` succeeded (False where there is no prctl: not Linux)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # not Linux, or no prctl: the limits above still hold
        return False


def die_with_parent(parent: int) -> bool:
    """Ask for SIGKILL when the parent ``parent`` exits; False when it has already gone (the caller exits)."""
    if sys.platform.startswith("linux"):
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    return os.getppid() == parent


def apply_limits(limits: dict[str, float | str | None]) -> None:
    memory_mb = limits.get("memory_mb")
    if memory_mb:
        size = int(memory_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    cpu = limits.get("cpu_seconds")
    if cpu:
        # SIGXCPU at the soft limit, SIGKILL one second later if the bot ignores it.
        soft = int(cpu)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    processes = limits.get("processes")
    if processes:
        resource.setrlimit(resource.RLIMIT_NPROC, (int(processes), int(processes)))
    cgroup = limits.get("cgroup")
    if cgroup:
        with open(os.path.join(str(cgroup), "cgroup.procs"), "w") as procs:
            procs.write(str(os.getpid()))
    if sys.platform.startswith("linux"):
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)
        if os.geteuid() == 0:
            _prctl(_PR_CAPBSET_DROP, _CAP_SYS_PTRACE)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: launch.py LIMITS_JSON -- COMMAND [ARGS...]\n")
        return 2
    limits, command = json.loads(argv[0]), argv[2:]
    parent = limits.pop("die_with", None)
    if parent is not None and not die_with_parent(int(parent)):
        return 1  # the arena died while the bot was starting: nobody is left to play against
    try:
        apply_limits(limits)
    except (OSError, ValueError) as error:
        sys.stderr.write(f"arena launch: cannot set limits {limits}: {error}\n")
        return 126
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.stderr.write(f"arena launch: cannot run {command[0]!r}: {error}\n")
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
