"""Play one game between a player and a seeded board, and say exactly how it ended.

Every game ends in exactly one ``Outcome``. A bot's mistake (a bad action, an exception, a hang, a
crash, an endless stream of moves) is that bot's result for that game, never an exception in the
arena.

The loop talks to an ``Agent`` (``arena.play.agents``): a ``TrustedAgent`` wraps a ``Player`` object
in this process, and ``arena.isolation.RemoteAgent`` speaks the line protocol to a player in its own
process. Both go
through this one loop, so the rules (batches, guesses, the move limit, the time limits) are the same
whichever way a player runs, and an honest deterministic player's games are identical in both.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from arena.answer import EXPECTED, WARM_UP_SEED, as_actions
from arena.limits import DEFAULT_LIMITS, Clock, Limits
from arena.outcome import DIAGNOSTICS, ERROR_CHARS, AgentFailure, GameResult, Outcome
from arena.play.agents import Agent, TrustedAgent
from arena.results import records
from arena.results.records import log_blobs
from engine import BEGINNER, Action, BoardSpec, EngineError, FirstClick, Game, GameStats
from engine.compiled_game import FIGURES, CompiledGame
from engine.layout import MAX_SEED, player_generator, player_seed, player_seed_words
from players import Player

__all__ = [
    "EXPECTED",
    "as_actions",
    "compiled_values",
    "default_move_limit",
    "empty_record",
    "is_warm_up",
    "ns_to_ms",
    "play_compiled_boards",
    "play_game",
    "warm_up",
]


def empty_record(spec: BoardSpec) -> bytes:
    """The record of a game without a move (the player could not be set up)."""
    return records.log_blob(_EMPTY_LOG, spec.height, spec.width)


_EMPTY_LOG = np.ones(1, dtype=np.int32)


def warm_up(player: Player | TrustedAgent) -> None:
    """Play one throwaway game so that compiling (or loading cached) numba code is not billed
    to the first real game's time. Its result is discarded. A ``TrustedAgent`` plays it only while
    it is cold, once."""
    if isinstance(player, TrustedAgent):
        if not player.cold:
            return
        player.cold = False
        player = player.player
    play_game(player, "warm-up", BEGINNER, FirstClick.SAFE, WARM_UP_SEED, 0)


def is_warm_up(rng: np.random.Generator, name: str) -> bool:
    """Whether ``rng``, as ``Player.reset`` receives it, is player ``name``'s generator for the
    warm-up game. For a bot that must play the warm-up unlike real games (the tests' hostile bots):
    counting games instead breaks when a slow start cuts the warm-up short before its first move."""
    return bool(rng.bit_generator.state == player_generator(WARM_UP_SEED, 0, name).bit_generator.state)


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
    way. A cold ``TrustedAgent`` (as ``agent_for`` makes them) plays its warm-up game first.
    ``on_move(game, action)`` is called after each move (for a display, as ``arena play``
    draws the board); the time it takes is not the player's. With ``record``, the result carries
    the game's moves as they were played (``GameResult.record``, ``arena.results.records``), whichever way
    the player runs: logged by the engine, on this loop or in the compiled game."""
    if isinstance(player, TrustedAgent) and player.cold:
        warm_up(player)
    limit = move_limit or default_move_limit(spec)
    trusted = player.player if isinstance(player, TrustedAgent) else player
    # A display watches every move; the zero rule's opening is the arena's, which the compiled games do not make.
    compiled = compiled and on_move is None and rule != FirstClick.ZERO  # (rule may be given as its text)
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
        game.open_start()  # the zero rule's opening, before the player's first turn
        agent.start(spec, rule, player_seed(seed, board, agent.name), limits)
        used = time.perf_counter() - wall0 if limits.clock is Clock.WALL else 0.0
        act_live = getattr(agent, "act_live", None)
        while not game.over:
            if act_live is not None:
                asked = time.perf_counter()
                answer = act_live(game.grid, game.flags_placed, game.moves, limits.budget(used))
            else:
                observation = game.observation()
                asked = time.perf_counter()
                answer = agent.act(observation, limits.budget(used))
            spent = time.perf_counter() - asked
            # Under the CPU clock an isolated bot's game budget is charged its CPU time (the agent measures it).
            used += getattr(agent, "move_cpu", spent) if limits.clock is Clock.CPU else spent
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


#: ``Player.play_compiled_boards``' columns after the game's figures: CPU and wall nanoseconds, done.
_CPU_NS, _WALL_NS, _DONE = FIGURES, FIGURES + 1, FIGURES + 2
_OUTCOMES = (Outcome.LOST, Outcome.WON)


def play_compiled_boards(
    player: Player, key: str, spec: BoardSpec, rule: FirstClick, seed: int, boards: list[int], limit: int, record: bool
) -> list[GameResult | None] | None:
    """``_play_compiled`` on each of ``boards`` through ``player.play_compiled_boards``, many games to a
    compiled call: the same games, results and records (``tests/arena/play/test_compiled_boards.py``). None when
    the player does not offer it; a board it did not finish is None (``play_game`` then plays it). Each
    game's CPU and wall time run from its reset to its end, as ``_play_compiled``'s do."""
    values = compiled_values(player, key, spec, rule, seed, boards, limit, record)
    return None if values is None else [None if v is None else _new_result(v) for v in values]


def compiled_values(
    player: Player, key: str, spec: BoardSpec, rule: FirstClick, seed: int, boards: list[int], limit: int, record: bool
) -> list[tuple[Any, ...] | None] | None:
    """``play_compiled_boards`` with each result as the tuple of its field values (``GameResult(*values)``), for
    a ``GameBatch`` that keeps them so (``arena.play.worker.play_boards``)."""
    if type(player).play_compiled_boards is Player.play_compiled_boards or not boards or rule == FirstClick.ZERO:
        return None
    if not (0 <= seed <= MAX_SEED and min(boards) >= 0 and max(boards) <= MAX_SEED):
        return None  # the checks' own words come from the game-by-game path
    n = len(boards)
    game = _compiled_game(spec, rule, seed, boards[0], record)
    figures = np.zeros((n, FIGURES + 3), np.int64)
    logs = np.empty(n * game.log.shape[0], np.int32)
    log_ends = np.zeros(n, np.int64)
    try:
        offered = player.play_compiled_boards(game, seed, np.array(boards, np.int64), limit, figures, logs, log_ends)
    except Exception:
        return [None] * n
    if not offered:
        return None
    blobs: list[bytes | None] = log_blobs(logs, log_ends, spec.height, spec.width) if record else [None] * n
    width = spec.width
    cpu_ms = ns_to_ms(np.maximum(figures[:, _CPU_NS], 0))
    wall_ms = ns_to_ms(figures[:, _WALL_NS])
    results: list[tuple[Any, ...] | None] = []
    for board, row, cpu, wall, blob in zip(boards, figures.tolist(), cpu_ms, wall_ms, blobs, strict=True):
        won, moves, reveals, flags, chords, guesses, bbbv, solved, revealed, first, _, _, done = row
        if not done:
            results.append(None)
            continue
        first_row, first_col = divmod(first, width) if first >= 0 else (None, None)
        results.append((key, board, _OUTCOMES[won], moves, reveals, flags, chords, guesses, bbbv, solved, revealed,
                        first_row, first_col, cpu, wall, "", blob))  # fmt: skip
    return results


#: Nanoseconds from which ``ns_to_ms`` leaves the rounding to ``round``: there a float's error could reach half a
#: tenth of a microsecond (1e15 ns: eleven days).
_EXACT_NS = 10**15


def ns_to_ms(ns: np.ndarray) -> list[float]:
    """``round(n / 1e6, 4)`` of each integer ``n`` of ``ns``, the same floats, for a run of games at once: the
    nearest multiple of a tenth of a microsecond is ``n`` to the nearest hundred, whose quotient by 1e4 is the
    float ``round`` returns; only an exact half (``n % 100 == 50``, where ``round`` decides by the float
    ``n / 1e6``), a negative ``n`` or an enormous one is left to ``round`` itself
    (``tests/arena/play/test_compiled_boards.py`` holds the two equal). Two rounds a game cost 1.6 us."""
    hundreds, rest = np.divmod(ns, 100)
    out = ((hundreds + (rest > 50)) / 1e4).tolist()
    for i in np.flatnonzero((rest == 50) | (ns < 0) | (ns >= _EXACT_NS)).tolist():
        out[i] = round(int(ns[i]) / 1e6, 4)
    return out


#: Each ``GameResult`` slot's setter, in the order of its fields.
_SETTERS = tuple(getattr(GameResult, f.name).__set__ for f in dataclasses.fields(GameResult))
_NEW = object.__new__


def _new_result(values: tuple[object, ...]) -> GameResult:
    """``GameResult(*values)``, a quarter cheaper: the dataclass's ``__init__`` sets each of its seventeen slots
    through ``object.__setattr__`` (as a frozen dataclass must), this through the slots' descriptors. For the
    compiled runs, one result a game (``tests/arena/play/test_compiled_boards.py`` holds the two equal); a
    ``__post_init__``, should ``GameResult`` gain one, would need ``__init__``."""
    result = _NEW(GameResult)
    for set_slot, value in zip(_SETTERS, values, strict=True):
        set_slot(result, value)
    return result


assert not hasattr(GameResult, "__post_init__"), "_new_result would skip it"


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
