"""``arena check-bot``: does a bot speak the protocol (docs/protocol.md) as a tournament needs it?

A tournament learns about a protocol mistake only as failed games, with the reason in a column. The
checker plays the bot through scripted situations instead, each in a process of its own (so that one
mistake fails one check, not every check after it), and says for each what was expected and what
came. It talks to the bot exactly as a tournament does (the same sandbox, limits and environment),
through its own small loop over ``engine.Game``, because it must see what the arena's loop forgives
or hides: a line written besides a reply, an answer to a message that takes none, a reply skipped.

Waiting for output that should not come (after ``game_over``, an unknown message, an empty line) is
a short look (``QUIET`` seconds) rather than a proof; everything else is decided by what the bot
wrote.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.isolation import protocol
from arena.isolation.process import BotExited, BotOutputError, BotProcess, BotTimeout
from arena.isolation.remote import bot_environment, engine_bot_sandbox, host_command, sandbox_for
from arena.isolation.sandbox import Sandbox, host_files
from arena.isolation.settings import EngineBot, Limits
from engine import BEGINNER, BoardSpec, FirstClick, Game, InvalidActionError
from engine.errors import EngineError
from engine.layout import player_seed

__all__ = ["QUIET", "BotDidNotStart", "CheckResult", "Target", "as_json", "check_bot", "engine_target", "plugin_target"]

#: Seconds the checker watches for output that should not come.
QUIET = 0.25
#: Seconds a bot has to exit after ``quit`` before the arena kills it.
QUIT_TIME = 1.0
#: The boards the checks play (the seed of the checker's own games, and a large custom board).
SEED = 20261128
LARGE = BoardSpec(50, 50, 500, "custom")
#: Games the "many games" check plays in one process.
MANY = 25


class BotDidNotStart(Exception):
    """The command did not start, or ended before writing anything: one line saying why."""


@dataclass(frozen=True)
class Target:
    """The bot to check: its name, the command that starts it, and how a tournament would run it."""

    name: str
    command: tuple[str, ...]
    env: dict[str, str]
    sandbox: Sandbox | None = None
    #: The arena's own Python host (a ``--plugin``): its hello arrives after its warm-up game.
    host: bool = False


@dataclass
class CheckResult:
    """One row of the report."""

    id: str
    title: str
    passed: bool
    expected: str
    got: str


def _show(line: bytes | str, limit: int = 90) -> str:
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
                self.hello_line = self.process.receive(deadline)
        except (BotExited, BotOutputError):
            how = self.process.exit_description()
            self.process.kill()
            tail = " | ".join(self.process.stderr_tail()[-3:])
            raise BotDidNotStart(f"{self.label} {how} before its hello" + (f": {tail}" if tail else "")) from None

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
        """The next JSON object the bot writes (lines that are not one are kept as stray output)."""
        deadline = time.monotonic() + seconds
        while True:
            line = self.process.receive(deadline)
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            if isinstance(message, dict):
                return message
            self.stray.append(line.decode("utf-8", "replace"))

    def close(self) -> None:
        self.process.close(protocol.quit_message(), wait=QUIT_TIME)


@dataclass
class Played:
    """One game as the checker saw it."""

    label: str
    #: ``won``, ``lost``, ``illegal`` (ended by an illegal action), or why it did not end by the rules.
    outcome: str
    detail: str = ""
    #: Every reply's actions, as played: the same game played alike has the same moves.
    moves: list[tuple[tuple[str, int, int], ...]] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        return self.outcome in ("won", "lost", "illegal")

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

    def session(self, hello: str | None = None) -> Session:
        session = Session(self.target, self.limits)
        session.start(hello, strict=False)  # a bad hello is the hello check's to report, not every check's
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
                        played.outcome, played.detail = "chatty", f"also wrote {_show(extra_lines[0])}"
                        return played
                if "error" in message:
                    played.outcome, played.detail = "error", f"the bot answered {_show(json.dumps(message))}"
                    break
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
        if played.outcome not in ("timeout", "exited"):
            with _ignored():
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
            self.bad_guesses.append(f"{where}: guess is {_show(json.dumps(guesses))}, not a list of [ROW, COL]")
            return
        for cell in guesses:
            if not (isinstance(cell, list) and len(cell) == 2 and tuple(cell) in reveals):
                self.bad_guesses.append(f"{where}: guess {_show(json.dumps(cell))} is not among its reveals")
                return


class _ignored:
    """Ignore a bot that is gone by the time it is told something (its end shows elsewhere)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> bool:
        return kind is not None and issubclass(kind, (BotExited, BotTimeout, BotOutputError))


def engine_target(bot: EngineBot, limits: Limits, sandboxed: bool) -> Target:
    """An engine bot as a tournament runs it (in its sandbox, with its folder: ``engine_bot_sandbox``).
    Raises ``botfiles.ProgramError``."""
    box, env = engine_bot_sandbox(bot, limits.processes) if sandboxed else (None, bot_environment())
    return Target(bot.name, bot.command, env, box)


def plugin_target(name: str, plugin: str, limits: Limits, sandboxed: bool) -> Target:
    """Plugin player ``name`` of file (or folder) ``plugin`` behind the arena's Python host, as a
    tournament runs it isolated (on the line protocol: the checker reads lines)."""
    command = host_command(name, plugin_files=[plugin], entry_points=False, warm_up_time=limits.warm_up_time)
    box, env = (None, bot_environment())
    if sandboxed:
        box, env = sandbox_for(name, host_files([plugin], entry_points=False), limits.processes)
    return Target(name, tuple(command), env, box, host=True)


def _games(played: Sequence[Played]) -> str:
    failed = [p for p in played if not p.ended]
    return failed[0].summary() if failed else f"{len(played)} games played to their end"


def _with_field(line: str, **fields: Any) -> str:
    message = json.loads(line)
    message.update(fields)
    return json.dumps(message)


def check_bot(target: Target, limits: Limits) -> Iterator[CheckResult]:
    """Every check's result, in order. Raises ``BotDidNotStart`` when the bot's first process does not
    start; a bot that never answers ``hello`` fails every check that needs an answer."""
    checker = Checker(target, limits)
    session = Session(target, limits)
    try:
        session.start()
    except BotTimeout:
        session.close()
        silent = f"not run: no answer to hello within {limits.startup_time:g} s"
        yield CheckResult("hello", "answers hello", False, _HELLO, f"nothing within {limits.startup_time:g} s")
        for key, title, _ in _CHECKS[1:]:
            yield CheckResult(key, title, False, "", silent)
        yield CheckResult("legal-actions", "its actions are legal", False, "", silent)
        yield CheckResult("guess-cells", _GUESS_TITLE, False, "", silent)
        return
    try:
        yield _hello(session)
        yield _one_line(checker, session)
    finally:
        session.close()
    for key, title, run in _CHECKS[2:]:
        if checker.silent:
            yield CheckResult(key, title, False, "", "not run: no reply to an observation (one-line check)")
            continue
        try:
            yield CheckResult(key, title, *run(checker))
        except BotDidNotStart as error:
            yield CheckResult(key, title, False, "the bot starts again", f"it did not: {error}")
        except BotTimeout:
            yield CheckResult(key, title, False, "an answer to hello", f"none within {limits.startup_time:g} s")
    if checker.silent:
        for key, title in (("legal-actions", "its actions are legal"), ("guess-cells", _GUESS_TITLE)):
            yield CheckResult(key, title, False, "", "not run: no reply to an observation (one-line check)")
        return
    yield CheckResult(
        "legal-actions",
        "its actions are legal",
        not checker.illegal,
        "every reply playable by the rules",
        checker.illegal[0] if checker.illegal else "all were",
    )
    yield CheckResult(
        "guess-cells",
        _GUESS_TITLE,
        not checker.bad_guesses,
        "each guess cell revealed by the same reply",
        checker.bad_guesses[0] if checker.bad_guesses else "all were",
    )


_HELLO = '{"protocol": 1, "name": ..., "version": ...}'
_GUESS_TITLE = "its guess cells are among its reveals"


def _hello(session: Session) -> CheckResult:
    line = session.hello_line
    try:
        name, version = protocol.decode_hello(line)
    except (protocol.ProtocolError, protocol.BotReportedError) as error:
        return CheckResult("hello", "answers hello", False, _HELLO, f"{_show(line)}: {error}")
    return CheckResult("hello", "answers hello", True, _HELLO, f"name {name!r}, version {version!r}")


def _one_line(checker: Checker, session: Session) -> CheckResult:
    expected = "one JSON line per observation, at once, nothing else"
    title = "one line per observation, flushed, nothing else on stdout"
    after_hello = session.unasked(QUIET)
    if after_hello:
        return CheckResult("one-line", title, False, expected, f"after its hello it also wrote {_show(after_hello[0])}")
    played = checker.play(session, BEGINNER, FirstClick.SAFE, 0, quiet_after=8)
    if session.stray:
        return CheckResult(
            "one-line", title, False, expected, f"{played.label}: it also wrote {_show(session.stray[0])}"
        )
    if played.outcome == "timeout" and not played.moves:
        checker.silent = True  # every other check would wait as long for nothing
    if played.outcome in ("chatty", "timeout", "exited"):
        return CheckResult("one-line", title, False, expected, played.summary())
    return CheckResult("one-line", title, True, expected, f"{len(played.moves)} replies, one line each")


def _quiet_after(checker: Checker, message: str, what: str, *, hello: str | None = None) -> tuple[bool, str, str]:
    """The bot neither answers ``message`` (sent before a game and before its third observation) nor
    stops playing because of it."""
    expected = f"no answer to {what}, then play on"
    session = checker.session(hello)
    try:
        answers: list[str] = []

        def interject(move: int) -> None:
            if move in (0, 2):
                session.send(message)
                answers.extend(session.unasked(QUIET))

        played = checker.play(session, BEGINNER, FirstClick.SAFE, 1, before=interject)
    finally:
        session.close()
    if answers:
        return False, expected, f"it answered {what} with {_show(answers[0])}"
    return played.ended, expected, "answered nothing, played on" if played.ended else played.summary()


def _unknown_type(checker: Checker) -> tuple[bool, str, str]:
    return _quiet_after(checker, json.dumps({"type": "arena_later_message"}), "an unknown type")


def _unknown_fields(checker: Checker) -> tuple[bool, str, str]:
    expected = "the extra fields of hello, new_game and observation ignored"
    hello = _with_field(protocol.hello(), features=["later"])
    try:
        session = checker.session(hello)
    except BotTimeout:
        return False, expected, "no answer to a hello with an extra field"
    except BotDidNotStart as error:
        return False, expected, f"a hello with an extra field ended it: {error}"
    try:

        def extra(line: str) -> str:
            return _with_field(line, later_field={"x": 1}, hint=None)

        played = checker.play(session, BEGINNER, FirstClick.SAFE, 2, extra=extra)
    finally:
        session.close()
    return played.ended, expected, "ignored, played on" if played.ended else played.summary()


def _empty_lines(checker: Checker) -> tuple[bool, str, str]:
    return _quiet_after(checker, "", "an empty line")


def _game_over(checker: Checker) -> tuple[bool, str, str]:
    expected = "no answer to game_over"
    session = checker.session()
    try:
        played = checker.play(session, BEGINNER, FirstClick.SAFE, 3)
        if not played.ended:
            return False, expected, f"not run: {played.summary()}"
        after = [line for line in session.unasked(QUIET) if line.strip()]
    finally:
        session.close()
    return not after, expected, f"it answered {_show(after[0])}" if after else "no answer"


def _quit(checker: Checker) -> tuple[bool, str, str]:
    expected = f"no answer to quit, and the process gone within {QUIT_TIME:g} s"
    session = checker.session()
    process = session.process
    try:
        checker.play(session, BEGINNER, FirstClick.SAFE, 4)
        session.unasked(QUIET)  # what it says after game_over is the game-over check's business
        with _ignored():
            process.send(protocol.quit_message(), time.monotonic() + 1.0)
        after = session.unasked(QUIT_TIME) if process.alive else []
        gone = not process.alive or _exits_within(process, QUIT_TIME)
    finally:
        process.kill()
    if after:
        return False, expected, f"it answered {_show(after[0])}"
    return gone, expected, "it exited" if gone else f"still running {QUIT_TIME:g} s after quit"


def _exits_within(process: BotProcess, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while process.alive and time.monotonic() < deadline:
        time.sleep(0.01)
    return not process.alive


def _many_games(checker: Checker) -> tuple[bool, str, str]:
    session = checker.session()
    try:
        played = []
        for board in range(MANY):
            played.append(checker.play(session, BEGINNER, FirstClick.SAFE, 100 + board))
            if not played[-1].ended:
                break
    finally:
        session.close()
    return all(p.ended for p in played) and len(played) == MANY, f"{MANY} games in one process", _games(played)


def _same_game(checker: Checker) -> tuple[bool, str, str]:
    expected = "the same moves on the same board and seed, in one process and in another"
    boards = (200, 201, 202)
    first, second = checker.session(), checker.session()
    try:
        plays = {b: [checker.play(first, BEGINNER, FirstClick.SAFE, b)] for b in boards}
        for board in boards:  # again, after other games, and in a fresh process
            plays[board].append(checker.play(first, BEGINNER, FirstClick.SAFE, board))
            plays[board].append(checker.play(second, BEGINNER, FirstClick.SAFE, board))
    finally:
        first.close()
        second.close()
    for board, (one, *others) in plays.items():
        for other, where in zip(others, ("later in the same process", "in another process"), strict=True):
            if not other.ended or not one.ended:
                return False, expected, (one if not one.ended else other).summary()
            if other.moves != one.moves:
                step = next((i for i, (a, b) in enumerate(zip(one.moves, other.moves, strict=False)) if a != b), None)
                step = step if step is not None else min(len(one.moves), len(other.moves))
                return False, expected, f"board {board} {where}: reply {step + 1} differs"
    return True, expected, f"{len(boards)} boards, each played alike 3 times"


def _first_click(checker: Checker) -> tuple[bool, str, str]:
    session = checker.session()
    try:
        played = [checker.play(session, BEGINNER, rule, 300 + i) for i, rule in enumerate(FirstClick)]
    finally:
        session.close()
    rules = ", ".join(r.value for r in FirstClick)
    return all(p.ended for p in played), f"a game under each rule ({rules})", _games(played)


def _large_board(checker: Checker) -> tuple[bool, str, str]:
    limits = checker.limits
    expected = (
        f"a {LARGE.height}x{LARGE.width} game with {LARGE.mines} mines in time "
        f"({limits.move_time:g} s a move, {limits.game_time:g} s a game)"
    )
    session = checker.session()
    try:
        played = checker.play(session, LARGE, FirstClick.SAFE, 0)
    finally:
        session.close()
    return played.ended, expected, played.summary()


_CHECKS: list[tuple[str, str, Callable[[Checker], tuple[bool, str, str]]]] = [
    ("hello", "answers hello", lambda c: (False, "", "")),
    ("one-line", "one line per observation, flushed, nothing else on stdout", lambda c: (False, "", "")),
    ("unknown-type", "ignores unknown message types", _unknown_type),
    ("unknown-fields", "ignores unknown fields", _unknown_fields),
    ("empty-lines", "ignores empty lines", _empty_lines),
    ("game-over", "takes game_over without answering", _game_over),
    ("quit", "exits on quit without answering", _quit),
    ("many-games", "plays many games in one process", _many_games),
    ("same-game", "plays the same game the same way twice", _same_game),
    ("first-click", "handles every first-click rule", _first_click),
    ("large-board", "plays a large custom board within the limits", _large_board),
]


def as_json(results: Sequence[CheckResult]) -> list[dict[str, Any]]:
    return [asdict(r) for r in results]
