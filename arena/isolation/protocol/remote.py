"""A player in its own process, seen by the game loop as an ``Agent``.

The process is started once per worker and player and reused game after game (a ``new_game``
message, not a new process); it is restarted only when it died, was killed for a timeout, wrote
something that is not the protocol, or has used up a game's worth of its CPU limit. Only the line
protocol crosses the boundary: the process never holds the tournament seed, a board index or a
layout, and the arena process that does is made non-dumpable before the first bot starts.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from arena.isolation.processes.bot_process import (
    BotCpuTimeout,
    BotExited,
    BotOutputError,
    BotProcess,
    BotTimeout,
    make_undumpable,
)
from arena.isolation.protocol import messages as protocol
from arena.isolation.protocol import shared as shared_memory
from arena.isolation.protocol.bot_command import bot_environment
from arena.isolation.protocol.connection import BotConnection
from arena.isolation.sandbox.bubblewrap import Sandbox
from arena.limits import DEFAULT_LIMITS, Clock, Limits
from arena.outcome import AgentFailure, Outcome
from engine import Action, BoardSpec, FirstClick, InvalidActionError, Observation

__all__ = ["MAX_SETUP_FAILURES", "RemoteAgent"]

#: Consecutive failed starts after which a worker stops trying and fails the player's games at once.
MAX_SETUP_FAILURES = 3
#: Pipe latency allowed on top of the arena's own turnaround when a bot reports busy-waiting.
SPIN_SLACK = 50e-6

T = TypeVar("T")


class RemoteAgent:
    """Drives one bot process through the protocol; every failure becomes an ``AgentFailure``."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        limits: Limits = DEFAULT_LIMITS,
        *,
        env: Mapping[str, str] | None = None,
        spin: float = 0.0,
        shared: bool = False,
        sandbox: Sandbox | None = None,
        connect: Callable[[], BotConnection] | None = None,
    ) -> None:
        self.name = name
        #: How a bot is reached: None starts ``command`` as a ``BotProcess`` (the arena's only way); a test may give
        #: a function returning another unstarted ``BotConnection`` (arena.isolation.protocol.connection).
        self.connect = connect
        #: The sandbox each process of this player runs in (None: plain processes).
        self.sandbox = sandbox
        #: Seconds each end of the pipe busy-waits before blocking (``arena.isolation.processes.spin``).
        self.spin = spin
        #: Offer each process a shared-memory segment (``arena.isolation.protocol.shared``): for the
        #: arena's own Python host, which says in its hello whether it took it.
        self.shared = shared and connect is None and shared_memory.supported()
        self._channel: shared_memory.SharedChannel | None = None
        self._pending_channel: shared_memory.SharedChannel | None = None
        #: CPU seconds spent busy-waiting, on both ends, that ``cpu_seconds`` does not count.
        self._idle = 0.0
        #: Under the CPU clock: the CPU seconds the bot's process tree used on its last move (what the game's budget
        #: is charged).
        self.move_cpu = 0.0
        #: When the bot last replied, or the game started (a bot's claim of busy waiting is bounded
        #: by the wall time since then), and what it claimed this game against its CPU then.
        self._replied_at = 0.0
        self._claimed = 0.0
        #: The bot's CPU this game at the last reading (a lower bound of it now).
        self._cpu_seen = 0.0
        self._game_cpu = 0.0
        self.command = list(command)
        self.limits = limits
        self.env = dict(env) if env is not None else bot_environment()
        self.bot_name = ""
        self.bot_version = ""
        self.starts = 0
        self._process: BotConnection | None = None
        #: A started process whose hello is not read yet: (process or None, why not, deadline).
        self._pending: tuple[BotConnection | None, str, float] | None = None
        self._last_process: BotConnection | None = None
        self._in_game = False
        self._outbox: list[str] = []
        #: The game ``start`` began, until its first observation announces it to the bot.
        self._announce: tuple[BoardSpec, FirstClick, int, Limits] | None = None
        self._mines, self._rule = 0, FirstClick.SAFE  # the current game's
        self._last_tail: list[str] = []
        #: The arena's own host runs a Python player: its mistakes are told in Python terms.
        self.python_host = "arena.isolation.protocol.bot_host" in self.command[:3]
        self._setup_failures = 0
        self._setup_error: AgentFailure | None = None

    # -- the process ----------------------------------------------------------------------------------------------
    @property
    def process(self) -> BotConnection | None:
        return self._process

    def prepare(self) -> None:
        process = self._process
        if process is not None and (
            self._in_game or not process.alive or process.cpu_seconds() > self.limits.cpu_per_game
        ):
            # Mid-game (an interrupted game), dead, or a game's worth of CPU used: start afresh, so
            # that every game begins in sync and with at least a game's CPU budget left.
            self._stop()
        if self._process is not None:
            self._process.clear_stderr()
            self._last_tail = []
            return
        if self._setup_error is not None and self._setup_failures >= MAX_SETUP_FAILURES:
            raise AgentFailure(self._setup_error.outcome, self._setup_error.message)
        if self._pending is None:
            self._spawn()
        self._handshake()

    def _spawn(self) -> None:
        """Start a process and send ``hello`` without waiting: after a kill the replacement starts
        right away and loads while the worker plays other players' games."""
        make_undumpable()
        env, fds = self.env, ()
        channel = descriptor = None
        if self.shared:
            with contextlib.suppress(OSError, shared_memory.SharedChannelError):  # then lines only
                channel, descriptor = shared_memory.SharedChannel.create()
                env, fds = {**self.env, shared_memory.ENV_FD: str(descriptor)}, (descriptor,)
        process = (
            BotProcess(
                self.command,
                memory_mb=self.limits.memory_mb,
                cpu_seconds=self.limits.cpu_rlimit,
                env=env,
                spin=self.spin,
                pass_fds=fds,
                sandbox=self.sandbox,
            )
            if self.connect is None
            else self.connect()
        )
        deadline = time.monotonic() + self.limits.startup_time
        try:
            process.start()
        except OSError as error:
            self._pending = (None, f"cannot start the bot {self.command[0]!r}: {error}", deadline)
            if channel is not None:
                channel.close()
            return
        finally:
            if descriptor is not None:
                os.close(descriptor)  # the bot has its own copy now
        self._pending_channel = channel
        self.starts += 1
        with contextlib.suppress(BotTimeout, BotExited):  # the handshake will say what happened
            process.send(protocol.hello(), deadline)
        self._pending = (process, "", deadline)

    def _handshake(self) -> None:
        assert self._pending is not None
        process, problem, deadline = self._pending
        channel, self._pending_channel = self._pending_channel, None
        self._pending = None
        if process is None:
            self._setup_failed(None, Outcome.CRASHED, problem)
            return
        try:
            line = process.receive(deadline)
            self.bot_name, self.bot_version = protocol.decode_hello(line)
            if channel is not None and protocol.hello_transport(line) == "shared":
                self._channel, channel = channel, None
        except BotTimeout:
            self._setup_failed(
                process, Outcome.TIMEOUT, f"no answer to hello within {self.limits.startup_time:g} s (start-up)"
            )
        except BotExited:
            self._setup_failed(process, Outcome.CRASHED, f"the bot {process.exit_description()} before its hello")
        except (BotOutputError, protocol.ProtocolError) as error:
            self._setup_failed(process, Outcome.ILLEGAL, f"bad answer to hello: {error}")
        except protocol.BotReportedError as error:
            self._setup_failed(process, Outcome.ERROR, f"could not set up the player: {error}")
        except BaseException:  # a Ctrl-C while waiting: nothing refers to this process any more, so it goes now
            process.kill()
            raise
        finally:
            if channel is not None:
                channel.close()  # declined, or the start failed
        self._process = process
        self._setup_failures = 0
        self._setup_error = None
        self._last_tail = []

    def _setup_failed(self, process: BotConnection | None, outcome: Outcome, message: str) -> None:
        if process is not None:
            process.kill()
            self._last_tail = process.stderr_tail()
        self._setup_failures += 1
        self._setup_error = AgentFailure(outcome, message)
        raise AgentFailure(outcome, message)

    def _stop(self, *, kill: bool = True, respawn: bool = False) -> None:
        process = self._process
        outbox, self._outbox = self._outbox, []
        self._process = None
        self._in_game = False
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.close()
        if process is not None:
            self._last_process = process
            if kill:
                process.kill()
            else:
                process.close("\n".join([*outbox, protocol.quit_message()]))
            self._last_tail = process.stderr_tail()
        if respawn and self._pending is None:
            self._spawn()

    def close(self) -> None:
        """Ask the bot to quit, and kill its process group whatever it does."""
        self._stop(kill=False)
        pending, self._pending = self._pending, None
        if pending is not None and pending[0] is not None:
            pending[0].kill()
        channel, self._pending_channel = self._pending_channel, None
        if channel is not None:
            channel.close()

    # -- a game ---------------------------------------------------------------------------------------------------
    def _require(self) -> BotConnection:
        if self._process is None:
            raise AgentFailure(Outcome.CRASHED, "the bot is not running")
        return self._process

    def start(self, spec: BoardSpec, rule: FirstClick, seed: int, limits: Limits) -> None:
        process = self._require()
        self._in_game = True
        self._replied_at = time.perf_counter()
        self._claimed = 0.0
        self._cpu_seen = 0.0
        self._game_cpu = process.cpu_seconds() if self.spin > 0 else 0.0
        # The game is announced with its first observation: in the shared-memory segment when that is
        # how the observation goes, else as a line. Messages that take no reply wait in the outbox and
        # go out with the next observation: one write and one wake-up of the bot instead of two or three.
        self._announce = (spec, rule, seed, limits)
        self._mines, self._rule = spec.mines, rule

    def act(self, observation: Observation, budget: float) -> list[Action]:
        return self._act(observation.grid, observation.mines, observation.flags, observation.moves, budget, observation)

    def act_live(self, grid: np.ndarray, flags: int, moves: int, budget: float) -> list[Action]:
        """``act`` on the game's live grid (read-only) and counters, as the runner offers agents that
        have this method: the observation's grid is copied into the shared-memory segment, or into
        an ``Observation`` for the pipe, once instead of twice."""
        return self._act(grid, self._mines, flags, moves, budget, None)

    def _act(
        self, grid: np.ndarray, mines: int, flags: int, moves: int, budget: float, observation: Observation | None
    ) -> list[Action]:
        process = self._require()
        cpu_clock = self.limits.clock is Clock.CPU
        # Under the CPU clock the budget is the bot's CPU time, and the wall only a backstop for a bot that waits.
        deadline = time.monotonic() + budget * (self.limits.backstop if cpu_clock else 1.0)
        cpu_before = process.tree_cpu() if cpu_clock else 0.0
        process.cpu_deadline = cpu_before + budget if cpu_clock else None
        channel = self._channel
        sent = time.perf_counter()
        spun = process.spun
        try:
            if channel is not None and channel.fits(grid):
                actions, waited = self._exchange(
                    process, deadline, self._shared_reply, channel, grid, mines, flags, moves
                )
            else:
                if observation is None:
                    copy = grid.copy()
                    copy.flags.writeable = False
                    observation = Observation(copy, mines, self._rule, moves, flags)
                self._announce_by_line()
                message = "\n".join([*self._outbox, protocol.observation(observation)])
                self._outbox.clear()
                line = self._exchange(process, deadline, self._line_reply, message)
                actions, waited = self._parse_reply(line)
        except (protocol.ProtocolError, shared_memory.SharedChannelError) as error:
            self._stop(respawn=True)  # where its output stands is anyone's guess now
            raise AgentFailure(Outcome.ILLEGAL, str(error)) from None
        except protocol.BotReportedError as error:
            raise AgentFailure(Outcome.ERROR, str(error)) from None
        finally:
            self._idle += process.spun - spun
            process.cpu_deadline = None
            if cpu_clock:
                self.move_cpu = max(0.0, process.tree_cpu() - cpu_before)
        if waited > 0 and self.spin > 0:
            # Never more than the window, than the wall time the bot had to wait, nor in all than the
            # CPU its process used this game: a claim can only lower the bill toward zero.
            allowed = min(waited, self.spin, max(0.0, sent - self._replied_at) + SPIN_SLACK)
            claimed = self._claimed + allowed
            if claimed > self._cpu_seen:  # CPU only grows: the clock is read only when the bound may bite
                self._cpu_seen = max(0.0, process.cpu_seconds() - self._game_cpu)
                claimed = min(claimed, self._cpu_seen)
            self._idle += max(0.0, claimed - self._claimed)
            self._claimed = max(self._claimed, claimed)
        self._replied_at = time.perf_counter()
        return actions

    def _announce_by_line(self) -> None:
        """Put the pending game's ``new_game`` line in the outbox."""
        if self._announce is not None:
            spec, rule, seed, limits = self._announce
            self._outbox.append(protocol.new_game(spec, rule, seed, limits.move_time, limits.game_time))
            self._announce = None

    @staticmethod
    def _line_reply(process: BotConnection, deadline: float, message: str) -> bytes:
        process.send(message, deadline)
        return process.receive(deadline)

    def _shared_reply(
        self,
        process: BotConnection,
        deadline: float,
        channel: shared_memory.SharedChannel,
        grid: np.ndarray,
        mines: int,
        flags: int,
        moves: int,
    ) -> tuple[list[Action], float]:
        """The observation through the segment, the reply through it too (or as a line when the
        bot says so); lines waiting in the outbox go first, on the pipe, and the bot reads them
        before the observation."""
        announce = self._announce
        if announce is not None:
            spec, rule, seed, _ = announce
            if channel.announce(spec.name, rule, seed):
                self._announce = None
            else:
                self._announce_by_line()
        if self._outbox:
            process.send("\n".join(self._outbox), deadline)
            self._outbox.clear()
        if channel.post_grid(grid, mines, flags, moves, process.lines_sent):
            process.ring()
        if not channel.answered():
            process.spun += shared_memory.await_answer(channel, process, deadline, self.spin)
        if channel.status() == shared_memory.STATUS_PIPE:
            return self._parse_reply(process.receive(deadline))
        stray = process.pending_output()
        if stray:
            shown = stray[:120].decode("utf-8", "replace")
            raise protocol.ProtocolError(f"unexpected output {shown!r} besides a reply in shared memory")
        return channel.reply()

    def _parse_reply(self, line: bytes) -> tuple[list[Action], float]:
        """``protocol.parse_reply``, with a refusal explained in the bot's own terms where it can be."""
        try:
            return protocol.parse_reply(line)
        except InvalidActionError as refused:
            raise InvalidActionError(self._explain(line, str(refused))) from None

    def _explain(self, line: bytes, complaint: str) -> str:
        """Why a reply holds no playable action: the bot's ``why`` when it gave one (the Python host
        says what ``play()`` returned), else, for the Python host, the item it could not encode (its
        ``repr``, sent as text) in the words the engine uses in process, else the protocol's words.
        Runs only for a refused reply, so the reply is parsed a second time only then."""
        try:
            message = json.loads(line)
        except ValueError:
            return complaint
        why = message.get("why") if isinstance(message, dict) else None
        if isinstance(why, str) and why.strip():
            return why[:1000]
        items = message.get("actions") if isinstance(message, dict) else None
        if self.python_host and isinstance(items, list):
            for item in items:
                if isinstance(item, str):
                    return f"{item} is not an action; use Action.reveal/flag/unflag/chord(row, col)"
        return complaint

    def _exchange(self, process: BotConnection, deadline: float, talk: Callable[..., T], *args: Any) -> T:
        """``talk(process, deadline, *args)``; every way the process fails it ends the game."""
        started = time.monotonic()
        try:
            return talk(process, deadline, *args)
        except BotCpuTimeout:
            self._stop(respawn=True)
            raise AgentFailure(
                Outcome.TIMEOUT,
                f"no reply within the move's CPU time (limits: {self.limits.move_time:g} s of CPU per move, "
                f"{self.limits.game_time:g} s per game, +{self.limits.grace:g} s grace; clock cpu); the bot was killed",
            ) from None
        except BotTimeout:
            self._stop(respawn=True)
            waited = time.monotonic() - started
            if self.limits.clock is Clock.CPU:
                raise AgentFailure(
                    Outcome.TIMEOUT,
                    f"no reply within {waited:.2f} s of wall time, the CPU clock's backstop ({self.limits.backstop:g}"
                    " times the move's budget): a bot that waits instead of thinking; the bot was killed",
                ) from None
            raise AgentFailure(
                Outcome.TIMEOUT,
                f"no reply within {waited:.2f} s (limits: {self.limits.move_time:g} s per move, "
                f"{self.limits.game_time:g} s per game, +{self.limits.grace:g} s grace); the bot was killed",
            ) from None
        except BotOutputError as error:
            self._stop(respawn=True)
            raise AgentFailure(Outcome.ILLEGAL, str(error)) from None
        except BotExited:
            description = process.exit_description()
            code = process.returncode
            self._stop(respawn=True)
            if code is not None and code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
                raise AgentFailure(
                    Outcome.TIMEOUT, f"the bot used up its CPU limit ({self.limits.cpu_rlimit} s) and was stopped"
                ) from None
            raise AgentFailure(Outcome.CRASHED, f"the bot process {description}") from None

    def finish(self, outcome: Outcome, message: str) -> None:
        announced, self._announce = self._announce is None, None
        # A game the bot never heard of (it ended before its first observation) needs no end, and
        # the arena's own host has nothing to do with ``game_over``: the shared-memory transport omits it.
        if self._process is not None and self._in_game and announced and self._channel is None:
            self._outbox.append(protocol.game_over(outcome.value, message))
        self._in_game = False

    def cpu_seconds(self) -> float:
        """The CPU seconds of the process that plays (or, once killed, last played) the game, less
        the busy waits of both ends of the pipe (the arena's in this thread, the bot's as it reports
        them, bounded by what we saw): listening for the other end is not thinking."""
        process = self._process or self._last_process
        return (process.cpu_seconds() if process is not None else 0.0) - self._idle

    def diagnostics(self) -> list[str]:
        if self._process is not None:
            return self._process.stderr_tail()
        return list(self._last_tail)

    def __repr__(self) -> str:
        return f"<RemoteAgent {self.name!r} {' '.join(self.command)!r}>"
