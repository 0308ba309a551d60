"""The engine's move log: every move as played (kind, cell, guess mark, the cells it opened), the same
whichever way the moves were played (one by one, an ``Actions`` array, the compiled game)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import Action, Actions, BoardSpec, EngineError, FirstClick, Game
from engine.compiled_game import CompiledGame, play_cells, reveal
from engine.kernels import COVERED, LOG_OVERFLOW, log_move


def entries(log: np.ndarray) -> list[tuple[int, int, list[int]]]:
    """(code, cell, sorted opened cells) per move."""
    out = []
    i = 1
    while i < log[0]:
        code, cell, n = (int(v) for v in log[i : i + 3])
        out.append((code, cell, sorted(int(c) for c in log[i + 3 : i + 3 + n])))
        i += 3 + n
    return out


def test_a_game_that_does_not_record_has_no_log() -> None:
    game = Game(BoardSpec(5, 5, 3), FirstClick.SAFE, seed=1)
    game.reveal(0, 0)
    assert game.move_log() is None
    assert game.notes == {}


def enclosed() -> np.ndarray:
    """A 4x4 layout whose bottom-right cell is safe but walled in by the two mines beside it."""
    layout = np.zeros((4, 4), dtype=bool)
    layout[2, 3] = layout[3, 2] = True
    return layout


def test_each_move_logs_its_kind_cell_guess_and_the_cells_it_opened() -> None:
    game = Game(BoardSpec(4, 4, 2), FirstClick.NONE, layout=enclosed(), record=True)
    game.apply(Action.reveal(0, 0, guess=True))  # a zero: the flood opens all but the corner and its mines
    opened = [cell for cell in range(16) if game.grid.reshape(-1)[cell] >= 0]
    assert len(opened) == 13
    game.apply(Action.flag(2, 3))
    game.apply(Action.unflag(2, 3))
    game.apply(Action.flag(2, 3))
    game.apply(Action.flag(3, 2))
    assert entries(game.move_log()) == [
        (0 + 4, 0, opened),
        (1, 11, []),
        (2, 11, []),
        (1, 11, []),
        (1, 14, []),
    ]
    assert game.moves == 5


def test_a_chord_logs_the_cells_it_opened_and_a_mine_hit_opens_none() -> None:
    layout = np.zeros((3, 3), dtype=bool)
    layout[0, 2] = True
    game = Game(BoardSpec(3, 3, 1), FirstClick.NONE, layout=layout, record=True)
    game.apply(Action.reveal(0, 1))  # a 1
    game.apply(Action.flag(0, 2))
    game.apply(Action.chord(0, 1))  # opens (0, 0), (1, 0), (1, 1), (1, 2) and the zeros' flood
    assert game.won
    chord = entries(game.move_log())[2]
    assert chord[:2] == (3, 1)
    assert chord[2] == [0, 3, 4, 5, 6, 7, 8]
    wrong = Game(BoardSpec(3, 3, 1), FirstClick.NONE, layout=layout, record=True)
    wrong.apply(Action.reveal(0, 1))
    wrong.apply(Action.flag(1, 2))  # the wrong cell
    wrong.apply(Action.chord(0, 1))  # hits the mine at (0, 2)
    assert not wrong.won and wrong.exploded == (0, 2)
    assert entries(wrong.move_log())[2] == (3, 1, [])


def test_a_losing_reveal_logs_the_move_and_opens_nothing() -> None:
    layout = np.zeros((3, 3), dtype=bool)
    layout[2, 2] = True
    game = Game(BoardSpec(3, 3, 1), FirstClick.NONE, layout=layout, record=True)
    game.apply(Action.reveal(2, 2, guess=True))
    assert entries(game.move_log()) == [(4, 8, [])]


def test_notes_stay_with_their_moves_and_a_skipped_actions_note_with_the_move_before() -> None:
    game = Game(BoardSpec(4, 4, 2), FirstClick.NONE, layout=enclosed(), record=True)
    game.play_answer(
        [
            Action.reveal(0, 0, note="a corner", p_mine=0.0625),
            Action.reveal(0, 1, note="opened already"),  # skipped: the flood opened it
            Action.flag(2, 3, note="certain"),
        ]
    )
    assert game.moves == 2
    assert game.notes == {0: ("a corner\nopened already", 0.0625), 1: ("certain", None)}


def test_the_log_grows_for_games_longer_than_it_was_sized_for() -> None:
    game = Game(BoardSpec(2, 2, 1), FirstClick.SAFE, seed=3, record=True)
    game.reveal(0, 0)
    covered = [(r, c) for r in range(2) for c in range(2) if game.grid[r, c] == COVERED]
    row, col = covered[0]
    for _ in range(200):  # flag, unflag: legal forever, far beyond a log sized for a move per cell
        game.apply(Action.flag(row, col))
        game.apply(Action.unflag(row, col))
    game.play_answer(Actions(np.array([[1, row, col, 0], [2, row, col, 0]] * 50, dtype=np.int32)))
    log = entries(game.move_log())
    assert len(log) == game.moves == 1 + 400 + 100
    assert log[-1] == (2, row * 2 + col, [])


def test_log_move_refuses_to_write_past_the_end() -> None:
    log = np.zeros(6, dtype=np.int32)
    log[0] = 1
    stack = np.arange(10, dtype=np.int64)
    log_move(log, 0, False, 3, stack, 2)  # 5 slots: fits
    assert log[0] == 6
    log_move(log, 1, False, 4, stack, 0)
    assert log[0] == LOG_OVERFLOW
    log_move(log, 1, False, 4, stack, 0)  # stays overflowed, writes nothing
    assert log[0] == LOG_OVERFLOW


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(
    st.integers(2, 7),
    st.integers(2, 7),
    st.data(),
    st.sampled_from([r for r in FirstClick if r.player_clicks]),  # the compiled game: not zero
    st.integers(0, 2**40),
)
def test_one_by_one_actions_arrays_and_the_compiled_game_log_the_same_moves(
    height: int, width: int, data: st.DataObject, rule: FirstClick, seed: int
) -> None:
    cells = height * width
    free = min(cells - rule.max_exclusion(height, width), cells - 1)
    assume(free >= 1)
    spec = BoardSpec(height, width, data.draw(st.integers(1, free)))
    one = Game(spec, rule, seed=seed, index=2, record=True)
    rows = Game(spec, rule, seed=seed, index=2, record=True)
    compiled = CompiledGame(spec, rule, seed, 2, record=True)
    first = data.draw(st.integers(0, cells - 1))
    one.apply(Action.reveal(*divmod(first, width), guess=True))
    rows.play_answer(Actions(np.array([[0, first // width, first % width, 1]], dtype=np.int32)))
    assert reveal(compiled.view, compiled.truth, compiled.labels, compiled.perm, height, width, spec.mines,
                  compiled.rule_code, compiled.stack, compiled.counters, first, True, compiled.log)  # fmt: skip
    for _ in range(data.draw(st.integers(0, 5))):
        if one.over:
            break
        covered = [c for c in range(cells) if one.grid.reshape(-1)[c] == COVERED]
        if not covered:  # every covered cell flagged, a safe one among them
            break
        safe = data.draw(st.lists(st.sampled_from(covered), max_size=4, unique=True))
        flags = data.draw(st.lists(st.sampled_from(covered), max_size=2, unique=True))
        flags = [c for c in flags if c not in safe]
        guess = data.draw(st.booleans())
        answer = Actions.cells([divmod(c, width) for c in safe], [divmod(c, width) for c in flags], guess=guess)
        refused = []
        for game, given_as in ((one, list(answer)), (rows, answer)):
            try:
                game.play_answer(given_as)
                refused.append(False)
            except EngineError:  # a flag on a cell an earlier reveal opened: the moves before it stay played
                refused.append(True)
        as_cells = [np.array([[c // width for c in cs], [c % width for c in cs]], dtype=np.int64).reshape(2, -1)
                    for cs in (safe, flags)]  # fmt: skip
        played = play_cells(compiled.view, compiled.truth, height, width, as_cells[0], as_cells[1], guess,
                            compiled.stack, compiled.hit, compiled.counters, compiled.log)  # fmt: skip
        assert refused == [not played, not played]
        if not played:
            break
    assert entries(one.move_log()) == entries(rows.move_log()) == entries(compiled.move_log())
    assert len(entries(one.move_log())) == one.moves
    opened = sorted(c for _, _, cs in entries(one.move_log()) for c in cs)
    assert opened == [c for c in range(cells) if one.grid.reshape(-1)[c] >= 0]
