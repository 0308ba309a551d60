"""runner.play_game: every way a game can end, decided by the runner and never raised into the arena."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from arena.outcome import GameResult, Outcome
from arena.play.runner import default_move_limit, play_game
from engine import FLAGGED, Action, ActionKind, BoardSpec, FirstClick, Game, Observation
from players import Player
from players.registry import Registry

SPEC = BoardSpec(6, 6, 5)
SEED = 11
TIMINGS = ("cpu_ms", "wall_ms")


def deterministic(result: GameResult) -> dict[str, object]:
    return {k: v for k, v in result.as_row().items() if k not in TIMINGS}


def run(player: Any, *, spec: BoardSpec = SPEC, rule: FirstClick = FirstClick.SAFE, board: int = 0, **kw: Any):
    return play_game(player, "key", spec, rule, SEED, board, **kw)


def mine_of(spec: BoardSpec, rule: FirstClick, board: int, click: tuple[int, int]) -> tuple[int, int]:
    layout = Game(spec, rule, seed=SEED, index=board).mine_layout(click)
    rows, cols = layout.nonzero()
    return int(rows[0]), int(cols[0])


# -- games that end by the rules ----------------------------------------------------------------------------------


@pytest.mark.parametrize("board", [0, 1, 2])
def test_player_that_reveals_only_safe_cells_wins(cheater: Callable[..., Any], board: int) -> None:
    player = cheater(SPEC, FirstClick.SAFE, SEED, board, (2, 3))
    result = run(player, board=board)
    assert result.outcome is Outcome.WON
    assert result.won
    assert result.player == "key"
    assert result.board == board
    assert result.error == ""
    assert result.revealed_cells == SPEC.cells - SPEC.mines
    assert result.moves == result.reveals == player.played
    assert (result.flags, result.chords, result.guesses) == (0, 0, 0)
    assert result.bbbv_solved == result.bbbv > 0
    assert (result.first_row, result.first_col) == (2, 3)
    assert result.cpu_ms >= 0
    assert result.wall_ms >= 0


def test_revealing_a_mine_loses(scripted: Callable[..., Any]) -> None:
    click = (0, 0)
    mine = mine_of(SPEC, FirstClick.SAFE, 0, click)

    def script(observation: Observation) -> Action:
        return Action.reveal(*click) if observation.first_move else Action.reveal(*mine, guess=True)

    result = run(scripted(script))
    assert result.outcome is Outcome.LOST
    assert not result.won
    assert result.error == ""
    assert result.reveals == 2
    assert result.guesses == 1
    assert result.revealed_cells < SPEC.cells - SPEC.mines


def test_builtin_random_plays_legal_deterministic_games_on_an_easy_board() -> None:
    spec = BoardSpec(5, 5, 1)
    random = Registry().create("random")
    results = [play_game(random, "random", spec, FirstClick.OPENING, 0, b) for b in range(10)]
    again = [play_game(random, "random", spec, FirstClick.OPENING, 0, b) for b in range(10)]
    assert all(r.outcome in (Outcome.WON, Outcome.LOST) for r in results)
    assert sum(r.won for r in results) >= 8  # one mine after an opening: hardly ever a guess
    assert all((r.first_row, r.first_col) == (3, 3) for r in results)  # the corner-first-click under `opening`
    for r in results:
        if r.won:
            assert r.revealed_cells == spec.cells - spec.mines
            assert r.bbbv_solved == r.bbbv
    assert [deterministic(r) for r in results] == [deterministic(r) for r in again]


def test_mine_hit_in_the_middle_of_a_batch_ends_the_game(scripted: Callable[..., Any]) -> None:
    layout = Game(SPEC, FirstClick.SAFE, seed=SEED, index=0).mine_layout((0, 0))
    mine = mine_of(SPEC, FirstClick.SAFE, 0, (0, 0))
    safe = [(r, c) for r in range(SPEC.height) for c in range(SPEC.width) if not layout[r, c] and (r, c) != (0, 0)]
    result = run(scripted(lambda o: [Action.reveal(0, 0), Action.reveal(*mine), *(Action.reveal(*c) for c in safe)]))
    assert result.outcome is Outcome.LOST
    assert result.reveals == 2  # nothing after the mine is played
    assert result.error == ""


def test_actions_after_a_win_in_the_same_batch_are_ignored(cheater: Callable[..., Any]) -> None:
    mine = mine_of(SPEC, FirstClick.SAFE, 0, (0, 0))
    player = cheater(SPEC, FirstClick.SAFE, SEED, 0, (0, 0), batch=True, then=[Action.reveal(*mine), "junk"])
    result = run(player)
    assert result.outcome is Outcome.WON
    assert result.error == ""


# -- a bot's own failures -----------------------------------------------------------------------------------------


class Boom(Exception):
    pass


def test_exception_in_play_is_an_error_with_its_text(scripted: Callable[..., Any]) -> None:
    def script(observation: Observation) -> Action:
        if observation.first_move:
            return Action.reveal(0, 0)
        raise ValueError("the bot broke")

    result = run(scripted(script))
    assert result.outcome is Outcome.ERROR
    assert result.error == "ValueError: the bot broke"
    assert result.moves == 1


def test_exception_in_reset_is_an_error(scripted: Callable[..., Any]) -> None:
    player = scripted(lambda o: Action.reveal(0, 0))

    def reset(*args: Any) -> None:
        raise Boom("no reset for you")

    player.reset = reset
    result = run(player)
    assert result.outcome is Outcome.ERROR
    assert result.error == "Boom: no reset for you"
    assert result.moves == 0
    assert result.first_row is None
    assert result.first_col is None


def test_long_error_text_is_truncated(scripted: Callable[..., Any]) -> None:
    def script(observation: Observation) -> Action:
        raise RuntimeError("x" * 10_000)

    result = run(scripted(script))
    assert result.outcome is Outcome.ERROR
    assert result.error.startswith("RuntimeError: xxx")
    assert len(result.error) <= 2000


def _then(action: Any) -> Callable[[Observation], Any]:
    """Open at (2, 2) first, then answer ``action`` (called with the observation when callable)."""

    def script(observation: Observation) -> Any:
        if observation.first_move:
            return Action.reveal(2, 2)
        return action(observation) if callable(action) else action

    return script


def _revealed_cell(observation: Observation) -> Action:
    rows, cols = (observation.grid >= 0).nonzero()
    return Action.reveal(int(rows[-1]), int(cols[-1]))


def _covered_cell(observation: Observation) -> tuple[int, int]:
    rows, cols = (observation.grid == -1).nonzero()
    return int(rows[0]), int(cols[0])


ILLEGAL_ANSWERS = {
    "reveal-below-the-board": (Action.reveal(SPEC.height, 0), "InvalidActionError: cell (6, 0) is off"),
    "reveal-right-of-the-board": (Action.reveal(0, SPEC.width), "off the 6x6 board"),
    "reveal-negative-row": (Action.reveal(-1, 0), "off the 6x6 board"),
    "reveal-revealed-cell": (Action.reveal(2, 2), "IllegalActionError: cell (2, 2) is already revealed"),
    "reveal-revealed-cell-in-batch": (lambda o: [_revealed_cell(o)], "already revealed"),
    "flag-revealed-cell": (Action.flag(2, 2), "only covered cells can be flagged"),
    "unflag-covered-cell": (lambda o: Action.unflag(*_covered_cell(o)), "is not flagged"),
    "chord-covered-cell": (lambda o: Action.chord(*_covered_cell(o)), "not a revealed number"),
    "float-cell": (Action(ActionKind.REVEAL, 1.5, 0), "two whole numbers"),
    "unknown-kind": (("explode", 0, 0), "is not an action"),
    "string": ("reveal 0,0", "InvalidActionError: play() returned 'reveal 0,0', expected an Action or a list"),
    "none": (None, "play() returned None, expected an Action or a list of Actions"),
    "empty-list": ([], "play() returned an empty list; return at least one action"),
    "list-of-none": ([None], "None is not an action"),
    "short-tuple": (("reveal", 0), "is not an action"),
}


@pytest.mark.parametrize("answer,message", ILLEGAL_ANSWERS.values(), ids=ILLEGAL_ANSWERS.keys())
def test_illegal_or_non_action_answers_are_illegal(scripted: Callable[..., Any], answer: Any, message: str) -> None:
    result = run(scripted(_then(answer)))
    assert result.outcome is Outcome.ILLEGAL
    assert message in result.error
    assert result.first_row == 2  # the opening was played before the mistake


@pytest.mark.parametrize("answer", [None, "reveal 0,0", Action.reveal(-1, 0), Action.reveal(0, 99)])
def test_illegal_first_answer(scripted: Callable[..., Any], answer: Any) -> None:
    result = run(scripted(lambda o: answer))
    assert result.outcome is Outcome.ILLEGAL
    assert result.moves == 0
    assert result.error


@pytest.mark.parametrize("answer", [42, object()], ids=["int", "object"])
def test_non_iterable_non_action_is_illegal(scripted: Callable[..., Any], answer: Any) -> None:
    result = run(scripted(_then(answer)))
    assert result.outcome is Outcome.ILLEGAL


# -- the move limit -----------------------------------------------------------------------------------------------


def _flag_unflag(observation: Observation) -> Action:
    """Open a corner, then flag and unflag the same cell forever."""
    if observation.first_move:
        return Action.reveal(0, 0)
    flagged = np.argwhere(observation.grid == FLAGGED)
    if len(flagged):
        return Action.unflag(int(flagged[0][0]), int(flagged[0][1]))
    return Action.flag(*_covered_cell(observation))


def test_endless_flag_unflag_is_an_error_after_the_default_move_limit(scripted: Callable[..., Any]) -> None:
    limit = default_move_limit(SPEC)
    assert limit >= 3 * SPEC.cells  # room for every cell revealed, flagged and unflagged
    result = run(scripted(_flag_unflag))
    assert result.outcome is Outcome.ERROR
    assert result.error == f"no result after {limit} moves"
    assert result.moves == limit + 1
    assert result.flags > limit // 3


def test_endless_batches_stop_at_an_explicit_move_limit(scripted: Callable[..., Any]) -> None:
    def script(observation: Observation) -> list[Action]:
        if observation.first_move:
            return [Action.reveal(0, 0)]
        row, col = _covered_cell(observation)
        return [Action.flag(row, col), Action.unflag(row, col)] * 3

    result = run(scripted(script), move_limit=40)
    assert result.outcome is Outcome.ERROR
    assert result.error == "no result after 40 moves"
    assert 40 < result.moves <= 40 + 6


def test_a_win_within_the_move_limit_is_a_win(cheater: Callable[..., Any]) -> None:
    moves = run(cheater(SPEC, FirstClick.SAFE, SEED, 0, (0, 0))).moves
    result = run(cheater(SPEC, FirstClick.SAFE, SEED, 0, (0, 0)), move_limit=moves)
    assert result.outcome is Outcome.WON


def test_a_win_on_the_move_that_crosses_the_limit_is_a_win(cheater: Callable[..., Any]) -> None:
    moves = run(cheater(SPEC, FirstClick.SAFE, SEED, 0, (0, 0))).moves
    result = run(cheater(SPEC, FirstClick.SAFE, SEED, 0, (0, 0)), move_limit=moves - 1)
    assert result.outcome is Outcome.WON


# -- batches and guesses ------------------------------------------------------------------------------------------


def test_batch_reveals_of_cells_opened_by_flood_fill_are_not_punished(cheater: Callable[..., Any]) -> None:
    """One answer naming every safe cell: most of them are opened by the first reveal's flood fill."""
    spec, rule = BoardSpec(8, 8, 6), FirstClick.OPENING
    player = cheater(spec, rule, SEED, 0, (4, 4), batch=True, guesses=1)
    result = play_game(player, "cheat", spec, rule, SEED, 0)
    assert result.outcome is Outcome.WON, result.error
    assert result.error == ""
    safe = spec.cells - spec.mines
    assert player.played == safe  # everything was answered in one batch...
    assert result.reveals < safe  # ...and the cells opened meanwhile were skipped, not replayed
    assert result.moves == result.reveals
    assert result.guesses == 1
    assert result.revealed_cells == safe


def test_batch_reveal_of_a_cell_revealed_before_the_answer_is_illegal(cheater: Callable[..., Any]) -> None:
    player = cheater(SPEC, FirstClick.SAFE, SEED, 0, (0, 0))
    assert run(player).moves > 2  # the second answer does not win yet
    player = cheater(SPEC, FirstClick.SAFE, SEED, 0, (0, 0))
    first = player.play  # one safe cell per answer

    def play(observation: Observation) -> Any:
        action = first(observation)
        if observation.first_move:
            return action
        return [action, Action.reveal(0, 0)]  # (0, 0) was opened by the previous answer

    player.play = play
    result = run(player)
    assert result.outcome is Outcome.ILLEGAL
    assert "already revealed" in result.error


def test_guesses_count_reveals_marked_as_guesses(cheater: Callable[..., Any]) -> None:
    player = cheater(SPEC, FirstClick.SAFE, SEED, 1, (5, 5), guesses=3)
    result = run(player, board=1)
    assert result.outcome is Outcome.WON
    assert result.guesses == 3
    assert result.reveals > 3


def test_plain_tuples_with_a_guess_flag_count_as_guesses(scripted: Callable[..., Any]) -> None:
    mine = mine_of(SPEC, FirstClick.SAFE, 0, (0, 0))
    answers = iter([("reveal", 0, 0, True), [("flag", *mine), ("unflag", *mine), ("reveal", *mine, True)]])
    result = run(scripted(lambda o: next(answers)))
    assert result.outcome is Outcome.LOST
    assert result.guesses == 2
    assert (result.flags, result.reveals, result.moves) == (1, 2, 4)


def test_results_are_deterministic_except_timings(cheater: Callable[..., Any]) -> None:
    random = Registry().create("random")
    one = play_game(random, "random", BoardSpec(9, 9, 10), FirstClick.SAFE, 5, 3)
    two = play_game(Registry().create("random"), "random", BoardSpec(9, 9, 10), FirstClick.SAFE, 5, 3)
    assert deterministic(one) == deterministic(two)
    # The record has a table of its own (arena.results.records); as_row is the games table's row.
    assert set(one.as_row()) == {f.name for f in dataclasses.fields(GameResult)} - {"record"} | {"won"}
    assert one.as_row()["outcome"] in {o.value for o in Outcome}


class _AsList(Player):
    """Another player's answers, each turned into a plain list of ``Action`` (under its name, so
    with its random stream)."""

    def __init__(self, inner: Player) -> None:
        super().__init__()
        self.inner = inner
        self.name = inner.name

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        self.inner.reset(rng, spec, rule)

    def play(self, observation: Observation) -> Any:
        return list(self.inner.play(observation))


@pytest.mark.parametrize("rule", [FirstClick.SAFE, FirstClick.OPENING])
def test_answers_as_actions_arrays_give_the_same_results_as_lists(rule: FirstClick) -> None:
    """The enumeration player answers with ``Actions`` (played in compiled calls); as lists, every
    game's result is the same, moves, guesses and all."""
    from players.builtin.enumeration_player import EnumerationPlayer

    spec = BoardSpec(9, 9, 10)
    arrays = [deterministic(run(EnumerationPlayer(), spec=spec, rule=rule, board=b)) for b in range(40)]
    lists = [deterministic(run(_AsList(EnumerationPlayer()), spec=spec, rule=rule, board=b)) for b in range(40)]
    assert arrays == lists
    assert {r["outcome"] for r in arrays} == {Outcome.WON, Outcome.LOST}
    assert sum(r["guesses"] for r in arrays) > 0


def test_compiled_games_in_turn_on_other_boards_are_each_their_own_game() -> None:
    """The runner plays compiled games in one reused ``CompiledGame``: switching board size, rule or
    recording between games gives each game exactly its move-by-move result and record."""
    player = Registry((), entry_points=False).create("enumeration", {})
    plan = [(SPEC, FirstClick.SAFE, True), (SPEC, FirstClick.SAFE, True), (BoardSpec(5, 7, 6), FirstClick.SAFE, True),
            (SPEC, FirstClick.NONE, True), (SPEC, FirstClick.NONE, False), (SPEC, FirstClick.SAFE, True)]  # fmt: skip
    for board, (spec, rule, record) in enumerate(plan):
        got = run(player, spec=spec, rule=rule, board=board, record=record)
        want = run(player, spec=spec, rule=rule, board=board, record=record, compiled=False)
        assert deterministic(got) == deterministic(want)
        assert got.record == want.record
