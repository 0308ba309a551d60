"""An in-memory transport for the engine-bot protocol: ``RemoteAgent`` (the arena's end) speaks to a bot in the
test's own process over a pair of in-memory streams, so that a test of the protocol's messages starts no process
(as python-chess tests its engine protocol without starting an engine).

``MemoryBot`` is a ``BotConnection`` (arena.isolation.protocol.connection) whose other end is a *client*: a
function from one line the arena wrote to the lines the bot writes back. Two clients are here: the arena's own
Python bot host (``host_client``: ``bot_host.Host`` behind ``bot_host.take_line``, the very code the process
runs) and a scripted bot (``scripted_client``: a function of each message, for bots that misbehave on purpose).

The bot runs when it is spoken to and only then, so it has answered by the time ``send`` returns: a reply that is
not in the stream then will never come, and ``receive`` says ``BotTimeout`` at once instead of waiting for the
deadline. What a process adds (limits, deadlines on a real clock, signals, the sandbox, a bot that hangs or
floods) is not here; those tests start a process. tests/arena/isolation/protocol/test_memory_transport.py holds
this transport to the process: the same games over both.

It lives in the tests, not in ``arena``: in the arena a bot's code never runs in the arena's own process.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numba

from arena.isolation.processes.bot_process import BotCpuTimeout, BotExited, BotOutputError, BotTimeout
from arena.isolation.protocol import messages as protocol
from arena.isolation.protocol.bot_command import host_command
from arena.isolation.protocol.bot_host import Host, take_line
from arena.isolation.protocol.remote import RemoteAgent
from arena.limits import DEFAULT_LIMITS, Limits

__all__ = [
    "BotExit",
    "MemoryBot",
    "host_agent",
    "host_client",
    "scripted_agent",
    "scripted_client",
]

#: A bot's end of the pair: the lines it writes back for one line the arena wrote.
Client = Callable[[bytes], Sequence[str]]


class BotExit(Exception):
    """Raised by a client (or its factory) to end the bot with exit code ``code``, as ``sys.exit`` ends a process."""

    def __init__(self, code: int = 0) -> None:
        super().__init__(code)
        self.code = code


class MemoryBot:
    """A bot in this process, reached over two in-memory streams: ``to_bot`` (what the arena wrote and the bot has
    not read: at most a partial line) and ``from_bot`` (what the bot wrote and the arena has not read).

    ``start`` makes the client (a Python host loads its player then, as a process does when it starts); whatever
    the client prints, to stdout or stderr, is its stderr (the host's own process points stdout at stderr too)."""

    def __init__(self, make_client: Callable[[], Client], *, stderr_lines: int = 20, max_line: int = 1 << 20) -> None:
        self.make_client = make_client
        self.max_line = max_line
        self.lines_sent = 0
        self.spun = 0.0
        self.cpu_deadline: float | None = None
        self.tree_cpu: Callable[[], float] = self.cpu_seconds
        self.to_bot = bytearray()
        self.from_bot = bytearray()
        self._client: Client | None = None
        self._started = False
        self._code: int | None = None
        self._cpu = 0.0
        self._tail: deque[str] = deque(maxlen=stderr_lines)

    # -- life -----------------------------------------------------------------------------------------------------
    def start(self) -> None:
        self._started = True
        self._client = self._run(self.make_client)

    @property
    def alive(self) -> bool:
        return self._started and self._code is None

    @property
    def returncode(self) -> int | None:
        return self._code

    def kill(self) -> None:
        if self.alive:
            self._code = -signal.SIGKILL
        self._client = None

    def close(self, goodbye: str | None = None, wait: float = 1.0) -> None:
        if goodbye is not None and self.alive:
            with contextlib.suppress(BotExited):
                self.send(goodbye, time.monotonic() + wait)
        self.kill()

    def exit_description(self) -> str:
        """In ``BotProcess.exit_description``'s words; a live bot here "stopped answering"."""
        if not self._started:
            return "not started"
        if self._code is None:
            return "stopped answering"
        if self._code < 0:
            return f"killed by {signal.Signals(-self._code).name}"
        return f"exited with code {self._code}"

    # -- the two streams ------------------------------------------------------------------------------------------
    def send(self, line: str, deadline: float) -> None:
        if not self.alive:
            raise BotExited("cannot write to the bot: it has ended")
        self.to_bot += (line + "\n").encode("utf-8")
        self.lines_sent += line.count("\n") + 1
        self._serve()

    def ring(self) -> None:
        if not self.alive:
            raise BotExited("cannot write to the bot: it has ended")
        self.to_bot += b"\n"
        self._serve()

    def receive(self, deadline: float) -> bytes:
        while True:
            end = self.from_bot.find(b"\n")
            if end < 0:
                break
            line = bytes(self.from_bot[:end]).strip()
            del self.from_bot[: end + 1]
            if line:
                return line
        if len(self.from_bot) > self.max_line:
            raise BotOutputError(f"the bot wrote more than {self.max_line} bytes without a newline")
        if not self.alive:
            raise BotExited("the bot closed its output")
        if self.cpu_deadline is not None and self.tree_cpu() >= self.cpu_deadline:
            raise BotCpuTimeout("no complete line before the move's CPU time ran out")
        raise BotTimeout("no complete line before the deadline")  # it has said all it will say

    def await_output(self, seconds: float) -> None:
        if not self.alive and b"\n" not in self.from_bot:
            raise BotExited("the bot closed its output")

    def pending_output(self) -> bytes:
        text = bytes(self.from_bot).strip()
        if not text:
            self.from_bot.clear()
        return text

    # -- what can be seen from outside ----------------------------------------------------------------------------
    def cpu_seconds(self) -> float:
        """The CPU seconds this thread spent in the bot's code."""
        return self._cpu

    def stderr_tail(self, settle: float = 1.0) -> list[str]:
        return list(self._tail)

    def clear_stderr(self) -> None:
        self._tail.clear()

    # -- the bot's turn -------------------------------------------------------------------------------------------
    def _serve(self) -> None:
        """Let the bot read every whole line waiting for it, and keep what it writes back."""
        while self.alive and self._client is not None:
            end = self.to_bot.find(b"\n")
            if end < 0:
                return
            raw = bytes(self.to_bot[:end])
            del self.to_bot[: end + 1]
            if not raw.strip():
                continue  # a wake-up
            replies = self._run(functools.partial(self._client, raw))
            for reply in replies or ():
                self.from_bot += (reply + "\n").encode("utf-8")

    def _run(self, work: Callable[[], Any]) -> Any:
        """``work()`` as the bot's code: its prints kept as its stderr, its CPU counted, its end an exit code."""
        captured = io.StringIO()
        started = time.thread_time()
        try:
            with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
                try:
                    return work()
                except BotExit as end:
                    self._code = end.code
                except Exception:  # an uncaught error ends a Python program with code 1 and its traceback
                    traceback.print_exc()
                    self._code = 1
            return None
        finally:
            self._cpu += time.thread_time() - started
            for text in captured.getvalue().splitlines():
                if text.strip():
                    self._tail.append(text[:300])


def host_client(
    name: str,
    options: Mapping[str, Any] | None = None,
    *,
    plugin_files: Sequence[str] = (),
    entry_points: bool = False,
) -> Callable[[], Client]:
    """The arena's Python bot host for registered player ``name``, as ``host_command`` runs it (without the warm-up
    game, which needs a process's alarm): ``Host`` reads each line through ``take_line``, and ``quit`` ends it."""

    def start() -> Client:
        threads = numba.get_num_threads()
        try:
            host = Host(name, dict(options or {}), plugin_files=plugin_files, entry_points=entry_points, warm_up_time=0)
        finally:
            numba.set_num_threads(threads)  # the host sets the player's threads: this process's are the tests'

        def read(raw: bytes) -> list[str]:
            go_on, reply = take_line(host, raw)
            if not go_on:
                raise BotExit(0)
            return [] if reply is None else [reply]

        return read

    return start


def host_agent(
    name: str,
    limits: Limits = DEFAULT_LIMITS,
    options: Mapping[str, Any] | None = None,
    *,
    plugin_files: Sequence[str] = (),
    entry_points: bool = False,
) -> RemoteAgent:
    """A ``RemoteAgent`` for registered player ``name`` behind the Python host, in memory: the command is the one a
    process would run (so the agent reads the host's replies as the host's), the bot is ``host_client``'s."""
    command = host_command(name, options, plugin_files=plugin_files, entry_points=entry_points, warm_up_time=0)
    client = host_client(name, options, plugin_files=plugin_files, entry_points=entry_points)
    return RemoteAgent(name, command, limits, connect=lambda: MemoryBot(client))


def scripted_client(
    answer: Callable[[dict[str, Any]], Any],
    *,
    protocol_version: int = protocol.PROTOCOL_VERSION,
    name: str = "scripted",
    start: Callable[[], None] | None = None,
) -> Callable[[], Client]:
    """A bot that answers ``hello`` as ``name`` speaking ``protocol_version``, ends at ``quit``, and passes every other
    message to ``answer``: its reply (a dict is written as JSON, a string as it is, None is no reply). ``start``
    runs when the bot starts (it may print, as a bot's start-up does, or raise ``BotExit``)."""

    def begin() -> Client:
        if start is not None:
            start()

        def read(raw: bytes) -> list[str]:
            message = json.loads(raw)
            if message["type"] == "hello":
                return [json.dumps({"protocol": protocol_version, "name": name, "version": "0"})]
            if message["type"] == "quit":
                raise BotExit(0)
            reply = answer(message)
            if reply is None:
                return []
            return [reply if isinstance(reply, str) else json.dumps(reply)]

        return read

    return begin


def scripted_agent(name: str, make_client: Callable[[], Client], limits: Limits = DEFAULT_LIMITS) -> RemoteAgent:
    """A ``RemoteAgent`` for an engine bot whose other end is ``make_client`` (``scripted_client``), in memory."""
    return RemoteAgent(name, [f"memory:{name}"], limits, connect=lambda: MemoryBot(make_client))
