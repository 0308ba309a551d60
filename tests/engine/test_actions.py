"""``Actions``: many moves as one array, read as ``Action`` values and played in compiled calls.

The property tests play the same answers as a list of ``Action`` and as an ``Actions`` on twin games
and require the same game afterwards: view, figures, status, and the same error (type and words)
at the same point."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    BEGINNER,
    Action,
    ActionKind,
    Actions,
    BoardSpec,
    EngineError,
    FirstClick,
    Game,
    InvalidActionError,
)

KIND_OF = {ActionKind.REVEAL: 0, ActionKind.FLAG: 1, ActionKind.UNFLAG: 2, ActionKind.CHORD: 3}


def rows_of(actions: list[Action]) -> Actions:
    return Actions([(KIND_OF[a.kind], a.row, a.col, int(a.guess)) for a in actions])


def state(game: Game) -> tuple:
    stats = game.stats()
    return (game.grid.tobytes(), game.status, game.exploded, game.guesses, game.safe_left, stats)


def play(game: Game, answer: object) -> str | None:
    try:
        game.play_answer(answer)  # type: ignore[arg-type]
    except EngineError as error:
        return f"{type(error).__name__}: {error}"
    return None


def test_actions_read_as_a_sequence_of_action() -> None:
    actions = Actions.cells(np.array([[1, 2], [3, 4]]), [(5, 6)])
    assert len(actions) == 3
    assert list(actions) == [Action.reveal(1, 3), Action.reveal(2, 4), Action.flag(5, 6)]
    assert actions == [Action.reveal(1, 3), Action.reveal(2, 4), Action.flag(5, 6)]
    assert [Action.reveal(1, 3), Action.reveal(2, 4), Action.flag(5, 6)] == actions
    assert actions[2] == Action.flag(5, 6)
    assert actions[:1] == Actions.cells([(1, 3)])
    assert actions != Actions.cells([(1, 3)])
    assert Actions.cells([(0, 1)], guess=True) == [Action.reveal(0, 1, guess=True)]
    assert repr(Actions.cells([(0, 1)])) == "Actions([Action.reveal(0, 1)])"
    assert not Actions.cells()


def test_a_guess_mark_on_a_flag_reads_as_no_guess_and_is_not_counted() -> None:
    actions = Actions([(1, 0, 0, 1)])
    assert actions == [Action.flag(0, 0)]
    game = Game(BEGINNER, FirstClick.SAFE, seed=1, index=1)
    game.play_answer(actions)
    assert game.guesses == 0


def test_rows_that_are_not_moves_are_refused_when_read_or_played() -> None:
    with pytest.raises(InvalidActionError, match="shape"):
        Actions(np.zeros((2, 3), dtype=np.int32))
    with pytest.raises(InvalidActionError, match="unknown action kind code 9"):
        list(Actions([(9, 0, 0, 0)]))
    game = Game(BEGINNER, FirstClick.SAFE, seed=1, index=1)
    with pytest.raises(InvalidActionError, match="unknown action kind code 9"):
        game.play_answer(Actions([(1, 0, 0, 0), (9, 0, 0, 0)]))
    assert game.grid[0, 0] == -2  # the flag before it stays played


@pytest.mark.parametrize(
    "rows",
    [
        np.array([[0, 2**33 + 1, 1, 0]], dtype=np.int64),  # would wrap round to row 1
        [[0, 2**40, 1, 0]],
        [[0, 1.5, 1, 0]],
        [["reveal", 1, 1, 0]],
    ],
)
def test_rows_that_do_not_fit_int32_whole_numbers_are_refused_not_wrapped(rows: object) -> None:
    with pytest.raises(InvalidActionError, match="32 bits"):
        Actions(rows)


def test_cells_that_do_not_fit_int32_are_refused_not_wrapped() -> None:
    with pytest.raises(InvalidActionError, match="32 bits"):
        Actions.cells(np.array([[2**32 + 1], [1]]))
    with pytest.raises(InvalidActionError, match="32 bits"):
        Actions.cells(flag=[(1, -(2**31) - 1)])
    assert Actions.cells(np.array([[2**31 - 1], [-(2**31)]])) == [Action.reveal(2**31 - 1, -(2**31))]


def test_a_later_reveal_of_a_cell_the_answer_opened_is_skipped_but_a_repeat_of_an_old_one_is_not() -> None:
    game = Game(BEGINNER, FirstClick.OPENING, seed=3, index=0)
    game.play_answer(Actions.cells([(0, 0)]))
    opened = np.argwhere(game.grid >= 0)
    assert len(opened) > 1
    twin = Game(BEGINNER, FirstClick.OPENING, seed=3, index=0)
    twin.play_answer(Actions.cells([(0, 0), *opened.tolist()]))
    assert twin.grid.tobytes() == game.grid.tobytes() and twin.moves == 1
    with pytest.raises(EngineError, match="already revealed"):
        game.play_answer(Actions.cells([(0, 0)]))


cells = st.tuples(st.integers(-1, 9), st.integers(-1, 9))
moves = st.lists(
    st.tuples(st.sampled_from(list(ActionKind)), cells, st.booleans()).map(
        lambda t: Action(t[0], t[1][0], t[1][1], t[2])
    ),
    min_size=1,
    max_size=12,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    rule=st.sampled_from([FirstClick.SAFE, FirstClick.OPENING, FirstClick.NONE]),
    answers=st.lists(moves, min_size=1, max_size=8),
)
def test_an_answer_plays_the_same_as_a_list_and_as_rows(seed: int, rule: FirstClick, answers: list) -> None:
    spec = BoardSpec(9, 9, 10)
    by_list = Game(spec, rule, seed=seed)
    by_rows = Game(spec, rule, seed=seed)
    for answer in answers:
        if by_list.over:
            break
        error = play(by_list, answer)
        assert play(by_rows, rows_of(answer)) == error
        assert state(by_rows) == state(by_list)
        if error:
            break


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), rule=st.sampled_from([FirstClick.SAFE, FirstClick.NONE]))
def test_whole_games_of_certain_moves_play_the_same_both_ways(seed: int, rule: FirstClick) -> None:
    """Answers that open and flag whole regions (flood fills, chords, a win or a loss)."""
    from players.deduction import certain_actions

    spec = BoardSpec(9, 9, 10)
    by_list = Game(spec, rule, seed=seed)
    by_rows = Game(spec, rule, seed=seed)
    rng = np.random.default_rng(seed)
    while not by_list.over:
        grid = by_list.grid
        answer = certain_actions(by_list.observation())
        numbers = np.argwhere(grid > 0)
        if len(numbers) and rng.random() < 0.3:
            r, c = numbers[rng.integers(len(numbers))]
            answer = [Action.chord(int(r), int(c)), *answer]
        if not answer:
            covered = np.argwhere(grid == -1)
            r, c = covered[rng.integers(len(covered))]
            answer = [Action.reveal(int(r), int(c), guess=True)]
        error = play(by_list, answer)
        assert play(by_rows, rows_of(answer)) == error
        assert state(by_rows) == state(by_list)
        if error:
            break
