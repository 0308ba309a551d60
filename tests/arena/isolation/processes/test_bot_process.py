"""One bot process (``BotProcess``): every read and write waits no later than its deadline, a line has a bound,
and the stderr written before a reply is kept by the time the reply is read."""

from __future__ import annotations

import sys
import textwrap
import time

import pytest

from arena.isolation.processes.bot_process import BotExited, BotOutputError, BotProcess, BotTimeout
from arena.isolation.processes.stderr_tail import StderrTail


def test_writing_to_a_bot_that_never_reads_stops_at_the_deadline() -> None:
    # A write that ignored the deadline would block until the bot exits, and then fail as BotExited.
    process = BotProcess([sys.executable, "-c", "import time; time.sleep(60)"])
    process.start()
    started = time.monotonic()
    try:
        with pytest.raises(BotTimeout):
            process.send("x" * (4 << 20), time.monotonic() + 0.5)  # far more than a pipe holds
        assert time.monotonic() - started >= 0.5  # not before the deadline either
    finally:
        process.kill()


def test_an_endless_line_is_refused() -> None:
    code = "import sys, time; sys.stdout.write('x' * 200000); sys.stdout.flush(); time.sleep(30)"
    process = BotProcess([sys.executable, "-c", code], max_line=50_000)
    process.start()
    try:
        with pytest.raises(BotOutputError):
            process.receive(time.monotonic() + 120)
    finally:
        process.kill()


def test_stderr_written_before_a_reply_is_in_the_tail_when_the_reply_arrives() -> None:
    # A thread drains stderr; the reply on stdout can overtake it. The tail must wait for it.
    code = textwrap.dedent(
        """
        import sys
        for i, line in enumerate(sys.stdin):
            sys.stderr.write(f"marker {i}\\n"); sys.stderr.flush()
            sys.stdout.write("reply\\n"); sys.stdout.flush()
        """
    )
    process = BotProcess([sys.executable, "-c", code])
    process.start()
    try:
        for i in range(300):
            process.send("go", time.monotonic() + 120)
            assert process.receive(time.monotonic() + 120) == b"reply"
            assert process.stderr_tail(settle=10)[-1] == f"marker {i}"  # returns once it is settled
    finally:
        process.kill()


def test_the_last_words_of_a_bot_that_died_are_in_the_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    # The draining thread may not have had a core by the time the bot's death is seen (a busy machine): the
    # tail then reads the pipe to its end rather than return without the reason the bot died. The thread is
    # made late on purpose here; the old tail returned [] at once for a bot no longer alive.
    drain = StderrTail.drain

    def late_drain(self: StderrTail) -> None:
        time.sleep(0.3)
        drain(self)

    monkeypatch.setattr(StderrTail, "drain", late_drain)
    process = BotProcess(["sh", "-c", "echo 'python3: No such file or directory' >&2; exit 2"])
    process.start()
    try:
        with pytest.raises(BotExited):
            process.receive(time.monotonic() + 60)
        assert process.exit_description() == "exited with code 2" and not process.alive
        assert process.stderr_tail(settle=30) == ["python3: No such file or directory"]
    finally:
        process.kill()
