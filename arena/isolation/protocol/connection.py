"""What the arena's end of the protocol (``RemoteAgent``) needs of the other end: ``BotConnection``.

The arena has one kind: ``arena.isolation.processes.bot_process.BotProcess``, a bot in a process of its own (in
its sandbox, under its limits), which is the point of isolation. Naming what ``RemoteAgent`` uses of it lets the
protocol be driven without a process where a process is not what is looked at: the tests hold ``RemoteAgent``
and the Python bot host to the protocol over an in-memory pair of streams (tests/memory_transport.py), as a
chess library tests its engine protocol without starting an engine. That pair stays in the tests on purpose: in
the arena, a bot's code never runs in the arena's own process.

The errors a connection raises are the process's (``BotTimeout``, ``BotCpuTimeout``, ``BotExited``,
``BotOutputError``): ``RemoteAgent`` turns each into a game's outcome the same way whatever carried the lines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["BotConnection"]


class BotConnection(Protocol):
    """A bot the arena speaks to line by line: started once, reused game after game, killed when it fails."""

    #: Non-empty protocol lines written to the bot so far (the shared-memory channel counts them).
    lines_sent: int
    #: CPU seconds this thread spent busy-waiting for the bot (not billed to it).
    spun: float
    #: Under the CPU clock: the ``tree_cpu`` reading at which the move being waited for is over (None: wall clock).
    cpu_deadline: float | None
    #: The CPU seconds of the bot and everything it started.
    tree_cpu: Callable[[], float]

    def start(self) -> None:
        """Start the bot (``OSError`` when it cannot be)."""

    @property
    def alive(self) -> bool:
        """Whether the bot can still be spoken to."""

    @property
    def returncode(self) -> int | None:
        """How the bot ended (None while it runs): negative for a signal, as ``subprocess`` has it."""

    def send(self, line: str, deadline: float) -> None:
        """Write one line (or several joined by newlines) by ``deadline`` (monotonic)."""

    def receive(self, deadline: float) -> bytes:
        """The bot's next non-empty line, by ``deadline``."""

    def ring(self) -> None:
        """Wake a bot asleep on its input (an empty line, which the protocol ignores)."""

    def await_output(self, seconds: float) -> None:
        """Wait up to ``seconds`` for the bot to write."""

    def pending_output(self) -> bytes:
        """What the bot wrote that ``receive`` has not taken."""

    def kill(self) -> None:
        """End the bot at once, and everything it started."""

    def close(self, goodbye: str | None = None, wait: float = 1.0) -> None:
        """Say ``goodbye``, give the bot ``wait`` seconds to leave, then end it."""

    def exit_description(self) -> str:
        """How the bot ended, in the error column's words ("exited with code 3", "killed by SIGKILL")."""

    def cpu_seconds(self) -> float:
        """CPU seconds the bot has used so far (the last reading once it is gone)."""

    def stderr_tail(self, settle: float = 1.0) -> list[str]:
        """The last lines the bot wrote to its stderr."""

    def clear_stderr(self) -> None:
        """Forget the stderr lines kept so far (a new game's errors show its own lines)."""
