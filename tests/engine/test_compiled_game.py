"""CompiledGame plays moves exactly as Game does: same views, figures and refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import Actions, BoardConfigError, BoardSpec, EngineError, FirstClick, Game
from engine.compiled_game import CompiledGame, play_cells, reveal


def compiled_reveal(game: CompiledGame, cell: int, guess: bool) -> bool:
    return reveal(game.view, game.truth, game.labels, game.perm, game.height, game.width, game.spec.mines,
                  game.rule_code, game.stack, game.counters, cell, guess, game.log)  # fmt: skip


def compiled_cells(game: CompiledGame, safe: np.ndarray, mines: np.ndarray, guess: bool) -> bool:
    return play_cells(game.view, game.truth, game.height, game.width, safe, mines, guess, game.stack, game.hit,
                      game.counters, game.log)  # fmt: skip


def same(game: Game, compiled: CompiledGame) -> None:
    assert np.array_equal(game.grid.reshape(-1), compiled.view)
    assert game.stats() == compiled.stats()
    assert game.guesses == compiled.guesses
    assert game.status is compiled.status


def as_cells(cells: list[int], width: int) -> np.ndarray:
    return np.array([[c // width for c in cells], [c % width for c in cells]], dtype=np.int64).reshape(2, -1)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 8),
    st.integers(2, 8),
    st.data(),
    st.sampled_from([r for r in FirstClick if r.player_clicks]),  # zero: tests/engine/test_zero_rule.py
    st.integers(0, 2**40),
)
def test_random_games_match(height: int, width: int, data: st.DataObject, rule: FirstClick, seed: int) -> None:
    cells = height * width
    free = min(cells - rule.max_exclusion(height, width), cells - 1)
    assume(free >= 1)
    spec = BoardSpec(height, width, data.draw(st.integers(1, free)))
    game = Game(spec, rule, seed=seed, index=3)
    compiled = CompiledGame(spec, rule, seed, 3)
    first = data.draw(st.integers(0, cells - 1))
    guess = data.draw(st.booleans())
    game.reveal(*divmod(first, width))
    if guess:
        game._guesses += 1  # what Game.apply adds for a reveal marked as a guess
    assert compiled_reveal(compiled, first, guess)
    same(game, compiled)
    for _ in range(data.draw(st.integers(0, 6))):
        if game.over:
            assert not compiled_reveal(compiled, first, False)
            break
        # Mostly covered cells; sometimes any cell, so that refusals are compared too.
        pool = st.integers(0, cells - 1)
        safe = data.draw(st.lists(pool, max_size=4))
        flags = data.draw(st.lists(pool, max_size=3))
        guess = data.draw(st.booleans())
        s, f = as_cells(safe, width), as_cells(flags, width)
        try:
            game.play_answer(Actions.cells(s, f, guess=guess))
            refused = False
        except EngineError:
            refused = True
        assert compiled_cells(compiled, s, f, guess) is not refused
        same(game, compiled)


def test_first_reveal_under_none_can_lose() -> None:
    spec = BoardSpec(3, 3, 8)
    for index in range(20):
        game = Game(spec, FirstClick.NONE, seed=1, index=index)
        compiled = CompiledGame(spec, FirstClick.NONE, 1, index)
        game.reveal(1, 1)
        assert compiled_reveal(compiled, 4, False)
        same(game, compiled)


@pytest.mark.parametrize("cell", [-1, 9, 4])
def test_refused_reveals(cell: int) -> None:
    spec = BoardSpec(3, 3, 1)
    compiled = CompiledGame(spec, FirstClick.SAFE, 0, 0)
    if cell == 4:
        assert compiled_reveal(compiled, 4, False)
    before = compiled.counters.copy()
    assert not compiled_reveal(compiled, cell, False)
    assert np.array_equal(before, compiled.counters)


@pytest.mark.parametrize(("seed", "index"), [(-1, 0), (0, -5), (2**63, 0)])
def test_seeds_are_checked_like_games(seed: int, index: int) -> None:
    with pytest.raises(BoardConfigError) as game_error:
        Game(BoardSpec(3, 3, 1), FirstClick.SAFE, seed=seed, index=index)
    with pytest.raises(BoardConfigError) as compiled_error:
        CompiledGame(BoardSpec(3, 3, 1), FirstClick.SAFE, seed, index)
    assert str(compiled_error.value) == str(game_error.value)


@pytest.mark.parametrize("record", [False, True])
def test_a_reset_game_is_a_new_game(record: bool) -> None:
    """The arena plays game after game in one object: after ``reset`` it plays exactly as a new one."""
    spec = BoardSpec(4, 5, 6)
    reused = CompiledGame(spec, FirstClick.SAFE, 9, 0, record=record)
    for index in range(12):
        fresh = CompiledGame(spec, FirstClick.SAFE, 9, index, record=record)
        if index:
            reused.reset(9, index)
        for game in (fresh, reused):
            for cell in (7, 0, 19, 12, 3):
                compiled_reveal(game, cell, True)
        for name in ("view", "truth", "labels", "counters", "perm"):
            assert np.array_equal(getattr(reused, name), getattr(fresh, name)), name
        assert reused.stats() == fresh.stats()
        assert np.array_equal(reused.move_log(), fresh.move_log()) if record else reused.move_log() is None


def test_figures_are_the_stats() -> None:
    spec = BoardSpec(6, 6, 5)
    for index in range(20):
        game = CompiledGame(spec, FirstClick.SAFE, 4, index)
        for cell in (14, 0, 35, 5, 30):
            compiled_reveal(game, cell, cell != 14)
        stats = game.stats()
        won, moves, reveals, flags, chords, guesses, bbbv, solved, revealed, first = game.figures()
        assert won is stats.won
        assert (moves, reveals, flags, chords, bbbv, solved, revealed) == (
            stats.moves, stats.reveals, stats.flags, stats.chords, stats.bbbv, stats.bbbv_solved, stats.revealed_cells
        )  # fmt: skip
        assert divmod(first, 6) == stats.first_click
        assert guesses == game.guesses == reveals - 1


@pytest.mark.parametrize(("seed", "index"), [(-1, 0), (0, -5), (2**63, 0), (True, 0), (0, 1.0)])
def test_reset_checks_seeds(seed: object, index: object) -> None:
    game = CompiledGame(BoardSpec(3, 3, 1), FirstClick.SAFE, 0, 0)
    with pytest.raises(BoardConfigError):
        game.reset(seed, index)  # type: ignore[arg-type]
    game.reset(np.int64(5), np.uint8(2))  # numpy integers are whole numbers too
    assert np.array_equal(game.perm, CompiledGame(BoardSpec(3, 3, 1), FirstClick.SAFE, 5, 2).perm)
