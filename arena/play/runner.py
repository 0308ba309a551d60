"""Play one game between a player and a seeded board, and say exactly how it ended.

Every game ends in exactly one ``Outcome``. A bot's mistake (a bad action, an exception, a hang, a
crash, an endless stream of moves) is that bot's result for that game, never an exception in the
arena.

The loop talks to an ``Agent``: a ``TrustedAgent`` wraps a ``Player`` object in this process, and
``arena.isolation.RemoteAgent`` speaks the line protocol to a player in its own process. Both go
through this one loop, so the rules (batches, guesses, the move limit, the time limits) are the same
whichever way a player runs, and an honest deterministic player's games are identical in both.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

import numpy as np

from arena.answer import EXPECTED, as_actions
from arena.isolation.settings import DEFAULT_LIMITS, Limits
from arena.result import DIAGNOSTICS, ERROR_CHARS, AgentFailure, GameResult, Outcome
from arena.results import records
from engine import Action, BoardSpec, EngineError, FirstClick, Game, GameStats, Observation
from engine.compiled_game import CompiledGame
from engine.layout import player_seed, player_seed_words
from players import Player

__all__ = [
    "EXPECTED",
    "Agent",
    "TrustedAgent",
    "as_actions",
    "default_move_limit",
    "empty_record",
    "play_game",
]


def empty_record(spec: BoardSpec) -> bytes:
    """The record of a game without a move (the player could not be set up)."""
    return records.log_blob(_EMPTY_LOG, spec.height, spec.width)


_EMPTY_LOG = np.ones(1, dtype=np.int32)


@runtime_checkable
class Agent(Protocol):
    """What the game loop needs from a player, wherever it runs."""

    #: The registered name: it keys the player's own random seed on each board.
    name: str

    def prepare(self) -> None:
        """Be ready for a game (start or restart a process); not billed to the game. May raise
        ``AgentFailure`` when the player cannot be set up at all."""

    def start(self, spec: BoardSpec, rule: FirstClick, seed: int, limits: Limits) -> None:
        """A new game; ``seed`` is the player's own 128-bit seed for this board."""

    def act(self, observation: Observation, budget: float) -> Action | Iterable[Action] | None:
        """The player's answer, within ``budget`` seconds (the remote agent enforces it).

        An agent that sends the observation elsewhere may also define ``act_live(grid, flags,
        moves, budget)``, which ``play_game`` then calls instead, with the game's live read-only
        grid (valid only during the call) and counters: no ``Observation`` is built in this process
        for a player that is not here. The arena's ``RemoteAgent`` does."""

    def finish(self, outcome: Outcome, message: str) -> None:
        """The game is over. Must not raise."""

    def cpu_seconds(self) -> float:
        """CPU seconds used outside this thread so far (an isolated player's process), else 0."""

    def diagnostics(self) -> list[str]:
        """What the player left behind that explains a failure (its last stderr lines)."""

    def close(self) -> None:
        """Release the player for good (stop its process)."""


class TrustedAgent:
    """A ``Player`` object in this process: the fast path for code the arena trusts. It gets no time
    limits: it could not be stopped mid-move anyway, and judging it after the fact would make an
    honest player's results depend on the machine's load (a JIT compile on a busy machine)."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name

    def prepare(self) -> None:
        pass

    def start(self, spec: BoardSpec, rule: FirstClick, seed: int, limits: Limits) -> None:
        self.player.reset(np.random.Generator(np.random.PCG64(seed)), spec, rule)

    def act(self, observation: Observation, budget: float) -> Action | Iterable[Action] | None:
        return self.player.play(observation)

    def finish(self, outcome: Outcome, message: str) -> None:
        pass

    def cpu_seconds(self) -> float:
        return 0.0

    def diagnostics(self) -> list[str]:
        return []

    def close(self) -> None:
        pass


def default_move_limit(spec: BoardSpec) -> int:
    """Generous: every cell revealed, flagged and unflagged twice over. Only a looping bot hits it."""
    return 6 * spec.cells + 100


def _with_diagnostics(error: str, lines: list[str]) -> str:
    """The message, then as many of the bot's last stderr lines as fit in the error column."""
    if not lines:
        return error[:ERROR_CHARS]
    head = error[: ERROR_CHARS // 3]
    room = ERROR_CHARS - len(head) - len(DIAGNOSTICS) + 1
    kept: list[str] = []
    for line in reversed(lines):
        if len(line) + 1 > room:
            break
        kept.append(line)
        room -= len(line) + 1
    if not kept:
        return head
    return head + DIAGNOSTICS + "\n".join(reversed(kept))


def play_game(
    player: Player | Agent,
    key: str,
    spec: BoardSpec,
    rule: FirstClick,
    seed: int,
    board: int,
    *,
    move_limit: int | None = None,
    limits: Limits | None = None,
    compiled: bool = True,
    on_move: Callable[[Game, Action], object] | None = None,
    record: bool = False,
) -> GameResult:
    """Play board ``board`` of ``seed`` to the end with ``player`` (registered as ``key``).

    A ``Player`` object (or ``TrustedAgent``) that plays whole games in compiled code
    (``Player.play_compiled``) does so unless ``compiled`` is false; its games are the same either
    way. ``on_move(game, action)`` is called after each move (for a display, as ``arena play``
    draws the board); the time it takes is not the player's. With ``record``, the result carries
    the game's moves as they were played (``GameResult.record``, ``arena.results.records``), whichever way
    the player runs: logged by the engine, on this loop or in the compiled game."""
    limit = move_limit or default_move_limit(spec)
    trusted = player.player if isinstance(player, TrustedAgent) else player
    compiled = compiled and on_move is None  # a display watches every move
    if compiled and isinstance(trusted, Player) and type(trusted).play_compiled is not Player.play_compiled:
        result = _play_compiled(trusted, key, spec, rule, seed, board, limit, record)
        if result is not None:
            return result
    agent: Agent = TrustedAgent(player) if isinstance(player, Player) else player
    limits = limits or DEFAULT_LIMITS
    try:
        agent.prepare()
    except AgentFailure as failure:
        message = _with_diagnostics(failure.message, agent.diagnostics())
        return GameResult.failed(key, board, failure.outcome, message, empty_record(spec) if record else None)
    game = Game(spec, rule, seed=seed, index=board, record=record)
    outcome: Outcome | None = None
    error = ""
    used = 0.0
    wall0 = time.perf_counter()
    cpu0 = time.thread_time()
    outside0 = agent.cpu_seconds()
    try:
        agent.start(spec, rule, player_seed(seed, board, agent.name), limits)
        used = time.perf_counter() - wall0
        act_live = getattr(agent, "act_live", None)
        while not game.over:
            if act_live is not None:
                asked = time.perf_counter()
                answer = act_live(game.grid, game.flags_placed, game.moves, limits.budget(used))
            else:
                observation = game.observation()
                asked = time.perf_counter()
                answer = agent.act(observation, limits.budget(used))
            used += time.perf_counter() - asked
            game.play_answer(as_actions(answer), on_move=None if on_move is None else functools.partial(on_move, game))
            if not game.over and game.moves > limit:
                outcome, error = Outcome.ERROR, f"no result after {limit} moves"
                break
    except AgentFailure as failure:
        outcome, error = failure.outcome, failure.message
    except EngineError as exc:
        outcome, error = Outcome.ILLEGAL, f"{type(exc).__name__}: {exc}"
    except (Exception, SystemExit) as exc:  # the bot's exception is its own result (KeyboardInterrupt is not)
        outcome, error = Outcome.ERROR, f"{type(exc).__name__}: {exc}"
    cpu_ms = max(0.0, (time.thread_time() - cpu0 + agent.cpu_seconds() - outside0) * 1000.0)
    wall_ms = (time.perf_counter() - wall0) * 1000.0
    if outcome is None:
        outcome = Outcome.WON if game.won else Outcome.LOST
    agent.finish(outcome, error)
    if outcome not in (Outcome.WON, Outcome.LOST):
        error = _with_diagnostics(error, agent.diagnostics())
    blob = records.log_blob(game.log, spec.height, spec.width, game.notes) if record else None
    return _result(key, board, outcome, game.stats(), game.guesses, cpu_ms, wall_ms, error, blob)


#: The ``CompiledGame`` this process plays its compiled games in, reset for each game.
_compiled: CompiledGame | None = None


def _compiled_game(spec: BoardSpec, rule: FirstClick, seed: int, board: int, record: bool) -> CompiledGame:
    """Board ``board`` of ``seed`` as a ``CompiledGame``: the last one, reset, when it has the same
    board size, rule and recording (a tournament's games all do), else a new one."""
    global _compiled
    game = _compiled
    if game is not None and game.spec is spec and game.rule is rule and bool(game.log.shape[0]) is record:
        game.reset(seed, board)
        return game
    _compiled = game = CompiledGame(spec, rule, seed, board, record=record)
    return game


def _play_compiled(
    player: Player, key: str, spec: BoardSpec, rule: FirstClick, seed: int, board: int, limit: int, record: bool
) -> GameResult | None:
    """The game through ``player.play_compiled``, or None when it declines (or fails, or its move
    log is unusable: then the move-by-move game, which is the same game, says how)."""
    wall0 = time.perf_counter()
    cpu0 = time.thread_time()
    game = _compiled_game(spec, rule, seed, board, record)
    try:
        done = player.play_compiled(game, player_seed_words(seed, board, player.name), limit)
    except Exception:
        done = False
    if not done:
        return None
    cpu_ms = max(0.0, (time.thread_time() - cpu0) * 1000.0)
    wall_ms = (time.perf_counter() - wall0) * 1000.0
    blob = None
    if record:
        if game.log[0] < 1:  # overflowed: only a move outside reveal/play_cells could do that
            return None
        blob = records.log_blob(game.log, spec.height, spec.width)
    # The row straight from the game's counters, without a GameStats in between: this runs for
    # every game, and a Beginner game is short.
    won, moves, reveals, flags, chords, guesses, bbbv, solved, revealed, first = game.figures()
    row, col = divmod(first, spec.width) if first >= 0 else (None, None)
    return GameResult(key, board, Outcome.WON if won else Outcome.LOST, moves, reveals, flags, chords, guesses, bbbv,
                      solved, revealed, row, col, round(cpu_ms, 4), round(wall_ms, 4), "", blob)  # fmt: skip


def _result(
    key: str,
    board: int,
    outcome: Outcome,
    stats: GameStats,
    guesses: int,
    cpu_ms: float,
    wall_ms: float,
    error: str,
    record: bytes | None = None,
) -> GameResult:
    first = stats.first_click
    return GameResult(
        player=key,
        board=board,
        outcome=outcome,
        moves=stats.moves,
        reveals=stats.reveals,
        flags=stats.flags,
        chords=stats.chords,
        guesses=guesses,
        bbbv=stats.bbbv,
        bbbv_solved=stats.bbbv_solved,
        revealed_cells=stats.revealed_cells,
        first_row=first[0] if first else None,
        first_col=first[1] if first else None,
        cpu_ms=round(cpu_ms, 4),
        wall_ms=round(wall_ms, 4),
        error=error[:ERROR_CHARS],
        record=record,
    )
