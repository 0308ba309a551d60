"""``python -m arena.isolation.protocol.bot_host``: a registered Python player behind the line protocol.

The arena starts one host per worker and isolated player, and reuses it game after game. The host
loads the player the usual way (built-ins, entry points, ``--plugin`` files), warms it up, then
answers the arena's messages (docs/protocol.md) until ``quit`` or the end of its input. It is one
client of the protocol; a bot in any other language is another.

What the player can reach here is only what the protocol brings: observations and its own seed.
Its prints cannot corrupt the protocol (the real stdout is moved aside and fd 1 points at stderr),
it cannot read the arena's input (fd 0 is /dev/null), and an exception, even ``SystemExit``, is
reported as the player's error instead of ending the process.

    python -m arena.isolation.protocol.bot_host --player NAME [--options JSON] [--plugin FILE]... [--no-entry-points]
    python -m arena.isolation.protocol.bot_host --list [--plugin FILE]...  # the players these sources provide, as JSON
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import signal
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from typing import IO, Any

import numpy as np

from arena.answer import WARM_UP_SEED, as_actions
from arena.isolation.processes.spin import LineReader
from arena.isolation.protocol import messages as protocol
from arena.isolation.protocol import shared
from engine import BEGINNER, BoardSpec, FirstClick, Game, InvalidActionError, Observation
from engine.layout import player_generator
from players import Player
from players.registry import Registry

__all__ = ["Host", "main", "take_line"]


def _describe(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _claim_stdio() -> tuple[IO[bytes], int]:
    """Keep private copies of the protocol's pipes, and point fd 0 at /dev/null and fd 1 at stderr,
    so nothing the player does with the standard streams (even from C) can touch the protocol."""
    sys.stdout.flush()
    protocol_in, protocol_out = os.dup(0), os.dup(1)  # dup'ed descriptors are not inherited by children
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    return os.fdopen(protocol_in, "rb"), protocol_out


def _write(fd: int, line: str) -> None:
    data = memoryview((line + "\n").encode("utf-8"))
    while data:
        data = data[os.write(fd, data) :]


class Host:
    """One player and its game state, driven by the arena's messages."""

    def __init__(
        self,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        plugin_files: Sequence[str] = (),
        entry_points: bool = True,
        threads: int = 1,
        warm_up_time: float = 10.0,
    ) -> None:
        self.name = name
        self.version = ""
        self.player: Player | None = None
        self.error = ""
        self.spec: BoardSpec | None = None
        self.rule = FirstClick.SAFE
        self.pending_error = ""
        #: Whether observations come through shared memory (``arena.isolation.protocol.shared``).
        self.shared = False
        self._specs: dict[tuple[int, int, int, str], BoardSpec] = {}
        registry = Registry(plugin_files, entry_points=entry_points)
        try:
            _set_threads(threads)
            entry = registry.get(name)
            self.player = entry.create(options or {})
            self.version = entry.version
        except BaseException as error:  # reported in the hello reply: the arena scores every game
            broken = "; ".join(f"{f.source}: {f.error}" for f in registry.failures)
            self.error = _describe(error) + (f" (plugins skipped: {broken})" if broken else "")
            traceback.print_exc(file=sys.stderr)
            return
        if warm_up_time > 0:
            self.warm_up(warm_up_time)

    def warm_up(self, seconds: float) -> None:
        """One throwaway game, as trusted players get, so that compiling (or loading cached) numba
        code is not billed to the first real game. Bounded by a timer, because the player is not
        trusted: one that hangs or dies here is the arena's to score in a real game, not here."""
        assert self.player is not None
        try:
            with _time_limit(seconds):
                _warm_up_game(self.player)
        except BaseException as error:  # whatever it was, the real games will show it again
            print(f"bot_host: warm-up stopped: {_describe(error)}", file=sys.stderr, flush=True)
        gc.collect()  # the warm-up game (its own board, not a tournament's) is garbage now

    def handle(self, message: dict[str, Any], spun: float = 0.0) -> str | None:
        """The reply line to one message, or None when the message takes no reply. ``spun``: CPU
        seconds spent busy-waiting for messages since the last reply (reported with the answer)."""
        kind = message["type"]
        if kind == "hello":
            return protocol.hello_reply(self.name, self.version, self.error, "shared" if self.shared else "")
        if kind == "new_game":
            self.new_game(message)
        elif kind == "observation":
            return self.answer(message, spun)
        return None  # game_over needs nothing; unknown types are for later protocol versions

    def new_game(self, message: dict[str, Any]) -> None:
        """A ``new_game`` line."""
        try:
            height, width, mines = int(message["height"]), int(message["width"]), int(message["mines"])
            board, rule = str(message.get("board", "custom")), FirstClick(message["rule"])
            seed = int(message["seed"], 16)
        except BaseException as error:
            self.spec = None
            self.pending_error = _describe(error)
            traceback.print_exc(file=sys.stderr)
            return
        self.start_game(height, width, mines, board, rule, seed)

    def start_game(self, height: int, width: int, mines: int, board: str, rule: FirstClick, seed: int) -> None:
        """Reset the player for a new game (announced by a line or in shared memory)."""
        self.pending_error = ""
        try:
            key = (height, width, mines, board)
            spec = self._specs.get(key)
            if spec is None:
                spec = self._specs[key] = BoardSpec(height, width, mines, board)
            self.spec = spec
            self.rule = rule
            rng = np.random.Generator(np.random.PCG64(seed))
            if self.player is not None:
                self.player.reset(rng, spec, rule)
        except BaseException as error:  # the player's own reset may raise: its error, reported at its turn
            self.pending_error = _describe(error)
            traceback.print_exc(file=sys.stderr)

    def answer(self, message: dict[str, Any], spun: float = 0.0) -> str:
        refusal = self.refusal()
        if refusal is not None:
            return refusal
        assert self.spec is not None
        observation = protocol.observation_from(message, self.spec.height, self.spec.width, self.rule)
        reply = self.respond(observation)
        return reply if isinstance(reply, str) else self.encode(reply, spun)

    def refusal(self) -> str | None:
        """The error line for an observation this host cannot pass to a player, else None."""
        if self.player is None:
            return protocol.encode_error(f"could not set up the player: {self.error}")
        if self.pending_error:
            return protocol.encode_error(self.pending_error)
        if self.spec is None:
            return protocol.encode_error("observation before new_game")
        return None

    @staticmethod
    def encode(actions: list[Any], spun: float) -> str:
        """The reply line for the player's would-be actions (whatever they hold: a value whose truth
        or text raises is the player's error, as it would be in process)."""
        try:
            return protocol.encode_answer(actions, spun)
        except BaseException as error:
            return protocol.encode_error(_describe(error))

    def respond(self, observation: Observation) -> list[Any] | str:
        """What the player answers: its would-be actions (checked by the arena), or an error line."""
        assert self.player is not None
        try:
            answer = self.player.play(observation)
            try:
                return as_actions(answer)
            except InvalidActionError as refused:  # no action at all: refused, in the words a trusted run uses
                return refusal_line(str(refused))
        except BaseException as error:  # SystemExit and KeyboardInterrupt too: the player's error
            text = _describe(error)
            with contextlib.suppress(MemoryError):
                traceback.print_exc(file=sys.stderr)
            return protocol.encode_error(text)


def _warm_up_game(player: Player) -> None:
    """The trusted warm-up's game (Beginner, ``WARM_UP_SEED``, board 0, the player's own generator
    for it), played move by move as the host plays real games; bounded by the caller's timer."""
    game = Game(BEGINNER, FirstClick.SAFE, seed=WARM_UP_SEED, index=0)
    player.reset(player_generator(WARM_UP_SEED, 0, player.name), BEGINNER, FirstClick.SAFE)
    while not game.over:
        game.play_answer(as_actions(player.play(game.observation())))


def refusal_line(why: str) -> str:
    """A reply the arena scores ``illegal`` (it holds no action) with the player's mistake in Python
    terms in ``why``, which the arena reports instead of its protocol-worded complaint."""
    return json.dumps({"actions": [], "why": why[:1000]})


class WarmUpTimeout(BaseException):
    """The warm-up ran out of time (a BaseException, so a player's ``except Exception`` cannot eat it)."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise ``WarmUpTimeout`` in this thread after ``seconds`` (where there is a real-time timer)."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise WarmUpTimeout(f"no end after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _set_threads(threads: int) -> None:
    import numba

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))


def list_players(plugin_files: Sequence[str], entry_points: bool) -> dict[str, Any]:
    registry = Registry(plugin_files, entry_points=entry_points)
    return {
        "players": [
            {"name": e.name, "description": e.description, "version": e.version, "source": e.source}
            for e in registry.players.values()
        ],
        "failures": [
            {"source": f.source, "error": f.error, "kind": f.kind, "names": list(f.names)} for f in registry.failures
        ],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arena.isolation.protocol.bot_host", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--player", help="registered player name")
    parser.add_argument("--options", default="{}", help="player options as a JSON object")
    parser.add_argument("--plugin", action="append", default=[], help="plugin file (repeatable)")
    parser.add_argument("--no-entry-points", action="store_true", help="skip installed plugins")
    parser.add_argument("--threads", type=int, default=1, help="numba threads")
    parser.add_argument("--warm-up-time", type=float, default=10.0, help="seconds for the warm-up game (0: none)")
    parser.add_argument(
        "--spin-us", type=float, default=0.0, help="microseconds to keep reading before blocking (0: never spin)"
    )
    parser.add_argument("--list", action="store_true", help="print the players these sources provide, as JSON")
    args = parser.parse_args(argv)
    if not args.list and not args.player:
        parser.error("--player is required")
    reader, out = _claim_stdio()  # before any plugin is imported: its prints go to stderr
    channel = _attach_channel()  # before too: the descriptor's name leaves the environment
    if args.list:
        _write(out, json.dumps(list_players(args.plugin, not args.no_entry_points)))
        return 0
    host = Host(
        args.player,
        json.loads(args.options),
        plugin_files=args.plugin,
        entry_points=not args.no_entry_points,
        threads=args.threads,
        warm_up_time=args.warm_up_time,
    )
    host.shared = channel is not None
    if channel is not None:
        serve_shared(host, channel, reader.fileno(), out, args.spin_us * 1e-6)
    else:
        serve_lines(host, reader.fileno(), out, args.spin_us * 1e-6)
    return 0


def _attach_channel() -> shared.SharedChannel | None:
    """The shared-memory segment the arena passed (``ARENA_SHARED_FD``), if any and usable."""
    descriptor = os.environ.pop(shared.ENV_FD, "")
    if not descriptor:
        return None
    try:
        return shared.SharedChannel.attach(int(descriptor))
    except (ValueError, shared.SharedChannelError) as error:
        print(f"bot_host: answering by lines only: {error}", file=sys.stderr, flush=True)
        return None


def take_line(host: Host, raw: bytes, spun: float = 0.0) -> tuple[bool, str | None]:
    """One line of the arena's, handled: (go on, the reply line or None). The host's whole reading of a line,
    apart from where the line came from and where the reply goes, so that the tests drive exactly this over an
    in-memory pair of streams (tests/memory_transport.py)."""
    try:
        message = protocol.read_message(raw)
    except protocol.ProtocolError as error:
        print(f"bot_host: ignoring a message that is not the protocol: {error}", file=sys.stderr)
        return True, None
    if message["type"] == "quit":
        return False, None
    try:
        return True, host.handle(message, spun)
    except protocol.ProtocolError as error:
        return True, protocol.encode_error(f"bot_host: {error}")


def _take_line(host: Host, raw: bytes, out: int, spun: float) -> tuple[bool, bool]:
    """Handle one line of the arena's and write its reply to ``out``: (go on, replied)."""
    go_on, reply = take_line(host, raw, spun)
    if reply is not None:
        _write(out, reply)
    return go_on, reply is not None


def serve_lines(host: Host, fd: int, out: int, spin: float) -> None:
    """Answer the arena's lines until ``quit`` or the end of the input."""
    lines = LineReader(fd, spin)
    for raw in lines:
        if not raw.strip():
            continue
        go_on, replied = _take_line(host, raw, out, lines.spun)
        if not go_on:
            return
        if replied:
            lines.spun = 0.0  # what it waited since its last reply went with this one


def serve_shared(host: Host, channel: shared.SharedChannel, fd: int, out: int, spin: float) -> None:
    """Answer observations posted in shared memory, and the arena's lines, until ``quit`` or the
    end of the input. Lines come first: the arena posts an observation only after the lines that
    precede it (``new_game``) are in the pipe, and says how many there were."""
    pipe = LineReader(fd)  # no spinning here: the busy wait is on the segment
    taken = 0  # non-empty lines handled so far
    spun = 0.0  # CPU seconds of busy waiting since the last reply
    backstop = shared.BACKSTOP  # the next blocking wait's longest sleep
    # One busy wait per reply, as the arena credits it (one window per reply): a host woken by its
    # backstop goes back to sleep without spinning again, which on a busy machine, where the next
    # observation is slow to come, would bill the extra spins to the player as thinking.
    may_spin = True

    def take_lines() -> bool:
        nonlocal taken, spun, may_spin
        for raw in pipe.lines():
            if not raw.strip():
                continue  # a wake-up
            taken += 1
            go_on, replied = _take_line(host, raw, out, spun)
            if not go_on:
                return False
            if replied:
                spun = 0.0
                may_spin = True
        return True

    while True:
        if pipe.unread and not take_lines():
            return
        if channel.posted() != channel.seq:
            while taken < channel.lines_before():
                if pipe.eof:
                    return
                pipe.fill(None)
                if not take_lines():
                    return
            _answer_shared(host, channel, out, spun)
            spun = 0.0
            backstop = shared.BACKSTOP
            may_spin = True
            continue
        if pipe.eof:
            return
        if spin > 0 and may_spin:
            may_spin = False
            started = time.thread_time()
            end = time.perf_counter() + spin
            while channel.posted() == channel.seq and time.perf_counter() < end:
                os.sched_yield()
            spun += time.thread_time() - started
            if channel.posted() != channel.seq:
                continue
        channel.set_bot_sleeping(True)
        if channel.posted() == channel.seq:
            pipe.fill(backstop)
            # An idle host (its player's turn has not come) looks again less and less often, so
            # that it does not take the cores from the bots that are playing.
            backstop = min(2 * backstop, shared.IDLE_BACKSTOP)
        channel.set_bot_sleeping(False)


def _answer_shared(host: Host, channel: shared.SharedChannel, out: int, spun: float) -> None:
    try:
        announced = channel.new_game()
        if announced is not None:
            host.start_game(*channel.board(), *announced)
    except shared.SharedChannelError as error:
        reply: list[Any] | str | None = protocol.encode_error(f"bot_host: {error}")
    else:
        reply = host.refusal()
    if reply is None:
        try:
            observation = channel.observation(host.rule)
        except shared.SharedChannelError as error:
            reply = protocol.encode_error(f"bot_host: {error}")
        else:
            reply = host.respond(observation)
    if isinstance(reply, str) or not channel.write_actions(reply, spun):
        _write(out, reply if isinstance(reply, str) else host.encode(reply, spun))
        channel.write_pipe_marker(spun)
    if channel.arena_sleeping():
        _write(out, "")  # wake it


if __name__ == "__main__":
    sys.exit(main())
