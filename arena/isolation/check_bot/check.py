"""``arena check-bot``: does a bot speak the protocol (docs/protocol.md) as a tournament needs it?

A tournament learns about a protocol mistake only as failed games, with the reason in a column. The
checker plays the bot through scripted situations instead, each in a process of its own (so that one
mistake fails one check, not every check after it), and says for each what was expected and what
came. It talks to the bot exactly as a tournament does (the same sandbox, limits and environment),
through its own small loop over ``engine.Game``, because it must see what the arena's loop forgives
or hides: a line written besides a reply, an answer to a message that takes none, a reply skipped.

Waiting for output that should not come (after ``game_over``, an unknown message, an empty line) is
a short look (``driver.QUIET`` seconds) rather than a proof; everything else is decided by what the bot
wrote.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from arena.isolation.check_bot import driver
from arena.isolation.check_bot.driver import (
    BotDidNotStart,
    BotSaidGarbage,
    Checker,
    Played,
    Session,
    Target,
    ignored,
    shown,
)
from arena.isolation.processes.bot_process import BotProcess, BotTimeout
from arena.isolation.protocol import messages as protocol
from arena.isolation.protocol.bot_command import bot_environment, engine_bot_sandbox, host_command, sandbox_for
from arena.isolation.sandbox.bubblewrap import host_files
from arena.limits import EngineBot, Limits
from engine import BEGINNER, BoardSpec, FirstClick

__all__ = [
    "BotDidNotStart",
    "CheckResult",
    "Target",
    "as_json",
    "check_bot",
    "engine_target",
    "load_failure",
    "package_target",
    "plugin_target",
]

#: The large custom board of the large-board check.
LARGE = BoardSpec(50, 50, 500, "custom")
#: Games the "many games" check plays in one process.
MANY = 25


@dataclass
class CheckResult:
    """One row of the report."""

    id: str
    title: str
    passed: bool
    expected: str
    got: str


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
    return Target(name, tuple(command), env, box)


def package_target(name: str, limits: Limits, sandboxed: bool) -> Target:
    """Player ``name`` of an installed package (an entry point) behind the arena's Python host, as a tournament
    runs it isolated."""
    command = host_command(name, entry_points=True, warm_up_time=limits.warm_up_time)
    box, env = (None, bot_environment())
    if sandboxed:
        box, env = sandbox_for(name, host_files([], entry_points=True), limits.processes)
    return Target(name, tuple(command), env, box)


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
        except BotSaidGarbage as error:
            yield CheckResult(key, title, False, "an answer to hello", str(error))
    if checker.silent or not checker.replies:
        why = "no reply to an observation (one-line check)" if checker.silent else "no check got a reply to check"
        for key, title in (("legal-actions", "its actions are legal"), ("guess-cells", _GUESS_TITLE)):
            yield CheckResult(key, title, False, "", f"not run: {why}")
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
        return CheckResult("hello", "answers hello", False, _HELLO, f"{shown(line)}: {error}")
    return CheckResult("hello", "answers hello", True, _HELLO, f"name {name!r}, version {version!r}")


def _one_line(checker: Checker, session: Session) -> CheckResult:
    expected = "one JSON line per observation, at once, nothing else"
    title = "one line per observation, flushed, nothing else on stdout"
    after_hello = session.unasked(driver.QUIET)
    if after_hello:
        return CheckResult("one-line", title, False, expected, f"after its hello it also wrote {shown(after_hello[0])}")
    played = checker.play(session, BEGINNER, FirstClick.SAFE, 0, quiet_after=8)
    if played.outcome in ("timeout", "protocol error") and not played.moves:
        checker.silent = True  # every other check would wait as long for nothing, or read the same garbage
    if played.outcome == "protocol error":
        return CheckResult("one-line", title, False, expected, played.summary())
    if session.stray:
        return CheckResult(
            "one-line", title, False, expected, f"{played.label}: it also wrote {shown(session.stray[0])}"
        )
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
                answers.extend(session.unasked(driver.QUIET))

        played = checker.play(session, BEGINNER, FirstClick.SAFE, 1, before=interject)
    finally:
        session.close()
    if answers:
        return False, expected, f"it answered {what} with {shown(answers[0])}"
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
        after = [line for line in session.unasked(driver.QUIET) if line.strip()]
    finally:
        session.close()
    return not after, expected, f"it answered {shown(after[0])}" if after else "no answer"


def _quit(checker: Checker) -> tuple[bool, str, str]:
    expected = f"no answer to quit, and the process gone within {driver.QUIT_TIME:g} s"
    session = checker.session()
    process = session.process
    try:
        checker.play(session, BEGINNER, FirstClick.SAFE, 4)
        session.unasked(driver.QUIET)  # what it says after game_over is the game-over check's business
        with ignored():
            process.send(protocol.quit_message(), time.monotonic() + 1.0)
        after = session.unasked(driver.QUIT_TIME) if process.alive else []
        gone = not process.alive or _exits_within(process, driver.QUIT_TIME)
    finally:
        process.kill()
    if after:
        return False, expected, f"it answered {shown(after[0])}"
    return gone, expected, "it exited" if gone else f"still running {driver.QUIT_TIME:g} s after quit"


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


def load_failure(results: Sequence[CheckResult]) -> str | None:
    """Why a bot could not set itself up, in its own words, when that is why its checks failed: the reason its
    ``hello`` carried (``{"error": ...}``; a course-shell agent's adapter names the file and the cause there), else
    None."""
    if not results or results[0].id != "hello" or results[0].passed:
        return None
    got = results[0].got
    return got.rpartition("': ")[2] if "': " in got else got


def as_json(results: Sequence[CheckResult]) -> list[dict[str, Any]]:
    return [asdict(r) for r in results]
