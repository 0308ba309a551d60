"""A bot driven by hand over the protocol, for ``arena check-bot`` (``arena.isolation.check_bot.check``).

``RemoteAgent`` hides what a tournament forgives (a line written besides a reply is skipped with its
process, a reply to ``game_over`` is read as the next move's); the checker must see exactly that. So
a ``Session`` is one process of the bot with what it wrote unasked kept apart, and ``Checker.play``
is a small game loop over ``engine.Game`` that records every reply, the illegal ones and the stray
``guess`` cells, instead of stopping at the first.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.isolation.processes.bot_process import BotExited, BotOutputError, BotProcess, BotTimeout
from arena.isolation.protocol import messages as protocol
from arena.isolation.sandbox.bubblewrap import Sandbox
from arena.limits import Limits
from engine import BoardSpec, FirstClick, Game, InvalidActionError
from engine.errors import EngineError
from engine.layout import player_seed

__all__ = [
    "QUIET",
    "QUIT_TIME",
    "SEED",
    "BotDidNotStart",
    "BotSaidGarbage",
    "Checker",
    "Played",
    "Session",
    "Target",
    "ignored",
    "shown",
]

#: Seconds the checker watches for output that should not come.
QUIET = 0.25
#: Seconds a bot has to exit after ``quit`` before the arena kills it.
QUIT_TIME = 1.0
#: The seed of the checker's own games.
SEED = 20261128


class BotDidNotStart(Exception):
    """The command did not start, or ended before writing anything: one line saying why."""


class BotSaidGarbage(Exception):
    """Where a JSON object was due (a hello, a reply), the bot wrote something else: a protocol error, which a
    tournament scores at once (``illegal``), and so does the checker, with what the bot said."""

    def __init__(self, line: str, what: str) -> None:
        super().__init__(f"it wrote {shown(line)} where {what} was due")
        self.line = line


#: Seconds the checker waits, after a line that is not JSON where a hello was due, for the hello itself (a bot
#: may print a banner first): a hello follows its banner at once.
BANNER_TIME = 2.0
#: Lines that are not JSON read before a hello, at most, before the bot is said to speak no protocol.
BANNER_LINES = 20


@dataclass(frozen=True)
class Target:
    """The bot to check: its name, the command that starts it, and how a tournament would run it."""

    name: str
    command: tuple[str, ...]
    env: dict[str, str]
    sandbox: Sandbox | None = None


def shown(line: bytes | str, limit: int = 90) -> str:
    """What the bot wrote, quoted and cut for a report's cell."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return repr(text if len(text) <= limit else text[:limit] + "...")


class Session:
    """One process of the bot, spoken to as the arena does; it keeps what the bot wrote besides replies."""

    def __init__(self, target: Target, limits: Limits) -> None:
        self.target, self.limits = target, limits
        self.process = BotProcess(
            target.command,
            memory_mb=limits.memory_mb,
            cpu_seconds=limits.cpu_rlimit,
            env=target.env,
            sandbox=target.sandbox,
        )
        #: Lines that were not JSON objects where a reply was due, and lines that came unasked.
        self.stray: list[str] = []
        self.hello_line = b""

    def start(self, hello: str | None = None, *, strict: bool = True) -> None:
        """Start the process and read its answer to ``hello``: its first line, or (not ``strict``) its
        first JSON object, other lines being stray output. Raises ``BotDidNotStart`` when it cannot
        start or ends without a word, ``BotTimeout`` when it says nothing within the start-up time."""
        try:
            self.process.start()
        except OSError as error:
            raise BotDidNotStart(f"cannot run {self.label}: {error}") from None
        deadline = time.monotonic() + self.limits.startup_time
        try:
            self.process.send(hello or protocol.hello(), deadline)
            self.hello_line = self.process.receive(deadline)
            while not strict and not self.hello_line.startswith(b"{"):
                self.stray.append(self.hello_line.decode("utf-8", "replace"))
                if len(self.stray) >= BANNER_LINES:  # a new session: its stray lines are its hello's
                    raise BotSaidGarbage(self.stray[0], "its answer to hello")
                try:  # a banner is followed by the hello at once; a bot that wrote garbage instead says no more
                    self.hello_line = self.process.receive(min(deadline, time.monotonic() + BANNER_TIME))
                except BotTimeout:
                    raise BotSaidGarbage(self.stray[0], "its answer to hello") from None
        except (BotExited, BotOutputError):
            how = self.process.exit_description()
            self.process.kill()
            tail = " | ".join(self.process.stderr_tail()[-3:])
            raise BotDidNotStart(f"{self.label} {how} before its hello" + (f": {tail}" if tail else "")) from None
        except BaseException:  # no answer in time, garbage, a Ctrl-C: this process is no one's to keep
            self.process.kill()
            raise

    @property
    def label(self) -> str:
        return repr(" ".join(self.target.command))

    def send(self, *lines: str) -> None:
        self.unasked(0.0)
        self.process.send("\n".join(lines), time.monotonic() + 5.0)

    def unasked(self, seconds: float) -> list[str]:
        """What the bot writes within ``seconds`` without being asked (kept as stray output); less if
        it ends its output."""
        lines: list[str] = []
        deadline = time.monotonic() + seconds
        gone = False
        while True:
            if not gone:
                try:
                    self.process.await_output(max(0.0, deadline - time.monotonic()))
                except (BotExited, BotOutputError):
                    gone = True
            while True:  # the complete lines read so far
                try:
                    lines.append(self.process.receive(time.monotonic()).decode("utf-8", "replace"))
                except BotTimeout:
                    break
                except (BotExited, BotOutputError):
                    gone = True
                    break
            if gone or time.monotonic() >= deadline:
                break
        self.stray += lines
        return lines

    def reply(self, seconds: float) -> dict[str, Any]:
        """The bot's reply: the next JSON object it writes. A line that is not one is kept as stray output (the
        one-line check's to report) when the reply follows it at once; when none follows within
        ``BANNER_TIME``, ``BotSaidGarbage`` says what the bot wrote instead of a reply: a bot that writes
        garbage is told so in seconds, not after waiting out the move's time for a reply that never comes."""
        deadline = time.monotonic() + seconds
        first = ""
        skipped = 0
        while True:
            try:
                line = self.process.receive(deadline)
            except BotTimeout:
                if first:
                    raise BotSaidGarbage(first, "a reply") from None
                raise
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            if isinstance(message, dict):
                return message
            text = line.decode("utf-8", "replace")
            self.stray.append(text)
            first = first or text
            skipped += 1
            if skipped >= BANNER_LINES:
                raise BotSaidGarbage(first, "a reply")
            deadline = min(deadline, time.monotonic() + BANNER_TIME)

    def close(self) -> None:
        self.process.close(protocol.quit_message(), wait=QUIT_TIME)


@dataclass
class Played:
    """One game as the checker saw it."""

    label: str
    #: ``won``, ``lost``, ``illegal`` (ended by an illegal action), ``resigned`` (the bot gave it up), or why it
    #: did not end by the rules.
    outcome: str
    detail: str = ""
    #: Every reply's actions, as played: the same game played alike has the same moves.
    moves: list[tuple[tuple[str, int, int], ...]] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        return self.outcome in ("won", "lost", "illegal", "resigned")

    def summary(self) -> str:
        return f"{self.label}: {self.outcome}" + (f" ({self.detail})" if self.detail else "")


class Checker:
    """Runs the checks on one target; collects the illegal replies and stray guesses of every game."""

    def __init__(self, target: Target, limits: Limits) -> None:
        self.target, self.limits = target, limits
        self.illegal: list[str] = []
        self.bad_guesses: list[str] = []
        #: The bot answered no observation in time: the checks that play games are not run.
        self.silent = False
        #: Replies to observations read and checked, over every check: the legal-actions and guess-cells
        #: checks pass only when there were some.
        self.replies = 0

    def session(self, hello: str | None = None) -> Session:
        """A new process of the bot, past its hello (``Session.start``, not strict: a bad hello is the hello
        check's to report, not every check's); a process that does not get there is gone."""
        session = Session(self.target, self.limits)
        session.start(hello, strict=False)
        return session

    def play(
        self,
        session: Session,
        spec: BoardSpec,
        rule: FirstClick,
        board: int,
        *,
        extra: Callable[[str], str] = lambda line: line,
        before: Callable[[int], None] | None = None,
        quiet_after: int = 0,
    ) -> Played:
        """Board ``board`` of the checker's seed, to its end. ``extra`` rewrites each message (unknown
        fields); ``before(move)`` runs before each observation; the first ``quiet_after`` replies are
        each followed by a look for output that should not come."""
        label = f"{spec.name} {spec.height}x{spec.width} board {board}, first click {rule.value}"
        game = Game(spec, rule, seed=SEED, index=board)
        game.open_start()  # the zero rule's opening, as a tournament makes it
        played = Played(label, "")
        seed = player_seed(SEED, board, self.target.name)
        pending = [extra(protocol.new_game(spec, rule, seed, self.limits.move_time, self.limits.game_time))]
        used, limit = 0.0, 6 * spec.cells + 100
        try:
            while not game.over:
                if before is not None:
                    before(game.moves)
                session.send(*pending, extra(protocol.observation(game.observation())))
                pending = []
                asked = time.monotonic()
                message = session.reply(self.limits.budget(used))
                used += time.monotonic() - asked
                if len(played.moves) < quiet_after:
                    extra_lines = session.unasked(QUIET)
                    if extra_lines:
                        played.outcome, played.detail = "chatty", f"also wrote {shown(extra_lines[0])}"
                        return played
                if "error" in message:
                    played.outcome, played.detail = "error", f"the bot answered {shown(json.dumps(message))}"
                    break
                if "resign" in message:  # giving the game up is an end the protocol allows (a shell's LEAVE)
                    played.outcome, played.detail = "resigned", shown(str(message["resign"]))
                    break
                self.replies += 1
                where = f"{label}, reply {len(played.moves) + 1}"
                self._check_guess(message, where)
                try:
                    actions, _ = protocol.parse_reply(json.dumps({k: v for k, v in message.items() if k != "guess"}))
                    played.moves.append(tuple((a.kind.value, a.row, a.col) for a in actions))
                    game.play_answer(actions)
                except (InvalidActionError, EngineError, protocol.ProtocolError) as error:
                    self.illegal.append(f"{where}: {error}")
                    played.outcome, played.detail = "illegal", str(error)
                    break
                if not game.over and game.moves > limit:
                    played.outcome, played.detail = "unfinished", f"no result after {limit} moves"
                    break
        except BotSaidGarbage as error:
            played.outcome, played.detail = "protocol error", str(error)
        except BotTimeout:
            played.outcome = "timeout"
            played.detail = f"no reply within {self.limits.budget(used):.1f} s (is stdout flushed after each line?)"
        except (BotExited, BotOutputError) as error:
            played.outcome = "exited"
            played.detail = f"{session.process.exit_description()}" if isinstance(error, BotExited) else str(error)
            tail = session.process.stderr_tail()[-1:]
            played.detail += f": {tail[0]}" if tail else ""
        if not played.outcome:
            played.outcome = "won" if game.won else "lost"
        if played.outcome not in ("timeout", "exited", "protocol error"):
            with ignored():
                session.send(extra(protocol.game_over(played.outcome if played.ended else "error", played.detail)))
        return played

    def _check_guess(self, message: dict[str, Any], where: str) -> None:
        """A ``guess`` must name cells among this reply's reveals (checked apart from the actions, so
        that a stray guess fails only its own check)."""
        guesses = message.get("guess")
        if guesses is None:
            return
        actions = message.get("actions")
        reveals = {
            (a[1], a[2]) for a in actions if isinstance(a, list) and len(a) == 3 and a[0] == "reveal"
        } if isinstance(actions, list) else set()  # fmt: skip
        if not isinstance(guesses, list):
            self.bad_guesses.append(f"{where}: guess is {shown(json.dumps(guesses))}, not a list of [ROW, COL]")
            return
        for cell in guesses:
            if not (isinstance(cell, list) and len(cell) == 2 and tuple(cell) in reveals):
                self.bad_guesses.append(f"{where}: guess {shown(json.dumps(cell))} is not among its reveals")
                return


class ignored:
    """Ignore a bot that is gone by the time it is told something (its end shows elsewhere)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> bool:
        return kind is not None and issubclass(kind, (BotExited, BotTimeout, BotOutputError))
