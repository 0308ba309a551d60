"""One bot process: started under limits, spoken to line by line with deadlines, killed whole.

Everything here is about never letting a bot block the arena: writes and reads are non-blocking and wait with
``poll`` until a deadline (no ``readline`` without one); stderr is drained by a thread so a chatty bot can never
stall on a full pipe, and only its last lines are kept (``stderr_tail``); its CPU time is read from ``/proc`` and
its POSIX clock (``cpu``); the bot runs in its own session, so ``killpg`` takes its children down with it (and,
sandboxed, the sandbox's PID namespace takes every descendant, wherever it went:
``arena.isolation.sandbox.bubblewrap``).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import json
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from arena.isolation.processes.cpu import process_cpu_clock, tree_cpu_seconds
from arena.isolation.processes.spin import read_spinning
from arena.isolation.processes.stderr_tail import StderrTail
from arena.isolation.sandbox.bubblewrap import LAUNCHER, Sandbox, bot_pid

__all__ = [
    "BotCpuTimeout",
    "BotExited",
    "BotOutputError",
    "BotProcess",
    "BotProcessError",
    "BotTimeout",
    "kill_bot_groups",
    "make_undumpable",
]

_PR_SET_DUMPABLE = 4


def kill_bot_groups() -> None:
    """SIGKILL the process group of every child of this process that leads one, whatever state its
    ``BotProcess`` is in: the bots (each starts a session of its own) of a worker about to exit. Read
    from ``/proc`` (Linux; elsewhere nothing); an unreaped child's pid cannot have been reused."""
    me = os.getpid()
    try:
        tasks = os.listdir(f"/proc/{me}/task")
    except OSError:
        return
    for task in tasks:
        try:
            children = Path(f"/proc/{me}/task/{task}/children").read_text().split()
        except OSError:
            continue
        for pid in map(int, children):
            with contextlib.suppress(OSError):
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signal.SIGKILL)


class BotProcessError(Exception):
    """The bot process did not hold up its end of a read or a write."""


class BotTimeout(BotProcessError):
    """No complete line (or no room to write one) before the deadline."""


class BotCpuTimeout(BotTimeout):
    """Under the CPU clock: the bot's process tree used up the move's CPU time without a complete line."""


class BotExited(BotProcessError):
    """The process closed its pipes or died."""


class BotOutputError(BotProcessError):
    """A line longer than any honest reply could be."""


def make_undumpable() -> None:
    """Make the calling process non-dumpable (Linux), so that a bot running as the same user cannot
    read its memory through ``/proc/<pid>/mem`` or ptrace. Called by every arena process that knows
    the tournament's seed, before a bot can run: the one running the tournament
    (``arena.play.tournament.run_tournament``), every worker (``arena.play.worker.init_worker``) and
    the one starting a bot (``RemoteAgent``); harmless elsewhere (it only disables core dumps)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


#: Under the CPU clock, how often (seconds) a wait for a reply reads the bot's CPU time.
CPU_POLL = 0.02


class BotProcess:
    """A bot's process and its three pipes. Not thread-safe: one game loop drives it."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        memory_mb: int | None = None,
        cpu_seconds: int | None = None,
        env: Mapping[str, str] | None = None,
        stderr_lines: int = 20,
        max_line: int = 1 << 20,
        spin: float = 0.0,
        pass_fds: Sequence[int] = (),
        sandbox: Sandbox | None = None,
    ) -> None:
        self.command = list(command)
        #: Run in this sandbox (None: as a plain process under its limits).
        self.sandbox = sandbox
        self._cgroup: Path | None = None
        #: Descriptors the bot inherits (a shared-memory segment: ``arena.isolation.protocol.shared``).
        self.pass_fds = tuple(pass_fds)
        #: Non-empty protocol lines written to the bot so far (``send``).
        self.lines_sent = 0
        self.memory_mb = memory_mb
        self.cpu_seconds_limit = cpu_seconds
        self.env = dict(env) if env is not None else None
        self.max_line = max_line
        #: Seconds ``receive`` keeps reading before it blocks (``arena.isolation.processes.spin``).
        self.spin = spin
        #: CPU seconds of this thread that busy waits in ``receive`` have cost so far.
        self.spun = 0.0
        self._tail: collections.deque[str] = collections.deque(maxlen=stderr_lines)
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = bytearray()
        self._reader: threading.Thread | None = None
        self._stderr: StderrTail | None = None
        self._cpu: Callable[[], float] | None = None
        self._cpu_last = 0.0
        #: Under the CPU clock (``Limits.clock``): the reading of ``tree_cpu`` at which the move being waited for
        #: is over; None under the wall clock.
        self.cpu_deadline: float | None = None
        #: Reads the CPU seconds of the bot's whole process tree (a test may put a fake clock here).
        self.tree_cpu: Callable[[], float] = self._tree_cpu
        self._poll_in: select.poll | None = None
        self._poll_out: select.poll | None = None

    # -- life -----------------------------------------------------------------------------------------------------
    def start(self) -> None:
        limits = {"memory_mb": self.memory_mb, "cpu_seconds": self.cpu_seconds_limit}
        if self.sandbox is not None:
            argv, self._cgroup = self.sandbox.command(self.command, limits)
        else:
            # No sandbox to die with the arena (bwrap's --die-with-parent): the launcher asks the kernel instead.
            unsandboxed = {**limits, "die_with": os.getpid()}
            argv = [sys.executable, "-I", "-S", str(LAUNCHER), json.dumps(unsandboxed), "--", *self.command]
        self._tail.clear()
        self._buffer.clear()
        self._cpu_last = 0.0
        self.lines_sent = 0
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
            pass_fds=self.pass_fds,
            bufsize=0,
            env=self.env,
        )
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        os.set_blocking(self._proc.stdin.fileno(), False)
        os.set_blocking(self._proc.stdout.fileno(), False)
        self._poll_in = select.poll()
        self._poll_in.register(self._proc.stdout.fileno(), select.POLLIN)
        self._poll_out = select.poll()
        self._poll_out.register(self._proc.stdin.fileno(), select.POLLOUT)
        self._stderr = StderrTail(self._proc.stderr, self._tail)
        self._reader = threading.Thread(target=self._stderr.drain, name=f"bot-stderr-{self._proc.pid}")
        self._reader.daemon = True
        self._reader.start()
        # Sandboxed, the process started is bwrap: the bot's clock is found once it runs (``cpu_seconds``).
        self._cpu = process_cpu_clock(self._proc.pid) if self.sandbox is None else None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def started(self) -> bool:
        return self._proc is not None

    def kill(self) -> None:
        """SIGKILL the whole process group (the bot and anything it started), then reap it."""
        proc = self._proc
        if proc is None:
            return
        self.cpu_seconds()  # the last reading: the clock goes with the process
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be stopped: this is a formality
            proc.wait(timeout=5)
        Sandbox.release(self._cgroup)
        self._cgroup = None
        self._finish()

    def close(self, goodbye: str | None = None, wait: float = 1.0) -> None:
        """Say goodbye, give the bot ``wait`` seconds to leave, then kill whatever is left of its group."""
        proc = self._proc
        if proc is None:
            return
        if goodbye is not None and proc.poll() is None:
            try:
                self.send(goodbye, time.monotonic() + min(wait, 0.5))
                proc.wait(timeout=wait)
            except (BotProcessError, subprocess.TimeoutExpired):
                pass
        self.kill()
        self._proc = None

    def _finish(self) -> None:
        proc = self._proc
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if self._reader is not None:
            # The reader ends at EOF, once every holder of the pipe is gone; a grandchild that left
            # the process group could keep it open, so do not wait for it forever.
            self._reader.join(timeout=1.0)
        self._cpu = None

    def exit_description(self) -> str:
        """How the process ended, for the error column (waits briefly for a dying process)."""
        proc = self._proc
        if proc is None:
            return "not started"
        try:
            code = proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        if self.sandbox is not None and code > 128:
            code = -(code - 128)  # bwrap exits with 128 + the signal that killed the bot
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"killed by {name}"
        return f"exited with code {code}"

    @property
    def returncode(self) -> int | None:
        return self._proc.poll() if self._proc is not None else None

    # -- talking --------------------------------------------------------------------------------------------------
    def send(self, line: str, deadline: float) -> None:
        """Write one line, waiting for room in the pipe no later than ``deadline`` (monotonic)."""
        proc = self._proc
        if proc is None or proc.stdin is None or self._poll_out is None:
            raise BotExited("the bot is not running")
        data = memoryview((line + "\n").encode("utf-8"))
        self.lines_sent += line.count("\n") + 1  # protocol messages are never empty lines
        fd = proc.stdin.fileno()
        while data:
            try:
                written = os.write(fd, data)
                data = data[written:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError, ValueError, OSError) as error:
                raise BotExited(f"cannot write to the bot: {error}") from None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BotTimeout("the bot did not read its input in time")
            self._poll_out.poll(max(1, int(remaining * 1000)))

    def receive(self, deadline: float) -> bytes:
        """Read one non-empty line, waiting no later than ``deadline`` (monotonic)."""
        proc = self._proc
        if proc is None or proc.stdout is None or self._poll_in is None:
            raise BotExited("the bot is not running")
        fd = proc.stdout.fileno()
        buffer = self._buffer
        spin = self.spin
        while True:
            end = buffer.find(b"\n")
            while end >= 0:
                line = bytes(buffer[:end]).strip()
                del buffer[: end + 1]
                if line:
                    return line
                end = buffer.find(b"\n")
            if len(buffer) > self.max_line:
                raise BotOutputError(f"the bot wrote more than {self.max_line} bytes without a newline")
            if spin > 0:
                started = time.thread_time()
                try:
                    chunk = read_spinning(fd, min(spin, deadline - time.monotonic()))
                except OSError as error:
                    raise BotExited(f"cannot read from the bot: {error}") from None
                finally:
                    self.spun += time.thread_time() - started
                spin = 0.0  # once per reply: a slow bot is waited for by poll
                if chunk is not None:
                    if not chunk:
                        raise BotExited("the bot closed its output")
                    buffer += chunk
                    continue
            remaining = deadline - time.monotonic()
            wait = remaining if self.cpu_deadline is None else min(remaining, CPU_POLL)
            # Past the deadline, still take what is already waiting (poll with a zero timeout): a
            # line written in time must not be lost to a late reader.
            if not self._poll_in.poll(max(0, int(wait * 1000) + 1) if remaining > 0 else 0):
                if remaining <= 0:
                    raise BotTimeout("no complete line before the deadline")
                if self.cpu_deadline is not None and self.tree_cpu() >= self.cpu_deadline:
                    raise BotCpuTimeout("no complete line before the move's CPU time ran out")
                continue
            self._read_available(fd)

    def ring(self) -> None:
        """Write an empty line (ignored by the protocol) to wake a bot asleep on its input. A pipe
        that is full already holds wake-ups enough, so this never waits."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise BotExited("the bot is not running")
        try:
            os.write(proc.stdin.fileno(), b"\n")
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError) as error:
            raise BotExited(f"cannot write to the bot: {error}") from None

    def await_output(self, seconds: float) -> None:
        """Wait up to ``seconds`` for the bot to write; what it wrote joins the line buffer that
        ``receive`` reads. Raises ``BotExited`` at the end of its output."""
        proc = self._proc
        if proc is None or proc.stdout is None or self._poll_in is None:
            raise BotExited("the bot is not running")
        if self._poll_in.poll(max(0, math.ceil(seconds * 1000))):
            self._read_available(proc.stdout.fileno())
        if len(self._buffer) > self.max_line:
            raise BotOutputError(f"the bot wrote more than {self.max_line} bytes without a newline")

    def _read_available(self, fd: int) -> None:
        """Add what the bot's stdout holds to the line buffer (nothing when it holds nothing)."""
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError as error:
            raise BotExited(f"cannot read from the bot: {error}") from None
        if not chunk:
            raise BotExited("the bot closed its output")
        self._buffer += chunk

    def pending_output(self) -> bytes:
        """What the bot wrote that ``receive`` has not taken, less empty lines (which are dropped)."""
        if not self._buffer:
            return b""
        text = bytes(self._buffer).strip()
        if not text:
            self._buffer.clear()
        return text

    # -- what can be seen from outside ----------------------------------------------------------------------------
    def _tree_cpu(self) -> float:
        """CPU seconds of the bot's whole process tree (live processes, and the children they have reaped)."""
        if self._proc is None:
            return 0.0
        return tree_cpu_seconds(self._proc.pid)

    def cpu_seconds(self) -> float:
        """CPU seconds the process has used so far (the last reading once it is gone)."""
        if self._cpu is None and self.sandbox is not None and self.alive:
            assert self._proc is not None
            pid = bot_pid(self._proc.pid)
            self._cpu = process_cpu_clock(pid) if pid is not None else None
        if self._cpu is not None:
            try:
                self._cpu_last = self._cpu()
            except (OSError, ValueError, IndexError):
                self._cpu = None
        return self._cpu_last

    def stderr_tail(self, settle: float = 1.0) -> list[str]:
        """The last stderr lines. A live bot's lines already in the pipe are waited for (up to
        ``settle`` seconds): a bot that writes to stderr and then replies must find its lines here
        when the reply is read, although a thread drains stderr. The wait ends as soon as they are
        kept; its bound is for a bot that never stops writing, and generous, because on a busy
        machine the draining thread may wait a while for a core. A bot that has died is read to the end of its
        pipe (within ``settle``): its last words, often the reason it died, were written before it exited, but
        the draining thread may not have had a core since."""
        if self._stderr is not None and self.alive:
            self._stderr.settle(time.monotonic() + settle)
        elif self._reader is not None and self._reader.is_alive():
            self._reader.join(timeout=settle)
        return list(self._tail)

    def clear_stderr(self) -> None:
        self._tail.clear()
