"""The ``zero`` first-click rule: the arena opens one zero tile of the board before the player's first turn,
chosen from the board alone (``engine.layout.zero_start``), so every player gets the same tile and layout."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import BoardSpec, FirstClick, Game
from engine.kernels import MINE, neighbour_numbers
from engine.layout import board_permutation, zero_start

boards = st.builds(
    lambda h, w, density: BoardSpec(h, w, max(1, min(int(h * w * density), h * w - min(h, 3) * min(w, 3)))),
    st.integers(4, 20),
    st.integers(4, 20),
    st.floats(0.05, 0.6),
)


@settings(max_examples=200, deadline=None)
@given(spec=boards, seed=st.integers(0, 2**63 - 1), index=st.integers(0, 10_000))
def test_the_start_tile_is_a_zero_and_opens_as_the_games_first_move(spec: BoardSpec, seed: int, index: int) -> None:
    game = Game(spec, FirstClick.ZERO, seed=seed, index=index)
    start = game.start_cell
    assert start is not None
    assert game.open_start()
    assert game.moves == 1 and game.first_click == start
    assert game.grid[start] == 0
    layout = game.mine_layout()
    assert int(layout.sum()) == spec.mines
    # The tile is the first zero, row by row, of its opening: a bot names it from what it sees.
    revealed_zeros = np.flatnonzero(game.grid.reshape(-1) == 0)
    assert revealed_zeros[0] == start[0] * spec.width + start[1]
    assert not game.open_start()  # once only


@settings(max_examples=100, deadline=None)
@given(
    spec=boards,
    seed=st.integers(0, 2**63 - 1),
    index=st.integers(0, 10_000),
    click=st.tuples(st.integers(0, 19), st.integers(0, 19)),
)
def test_every_player_gets_the_same_tile_and_layout(
    spec: BoardSpec, seed: int, index: int, click: tuple[int, int]
) -> None:
    """Nothing of the player's enters: not its name or seed (the tile is the board's), not a click it makes."""
    one = Game(spec, FirstClick.ZERO, seed=seed, index=index)
    other = Game(spec, FirstClick.ZERO, seed=seed, index=index)
    row, col = click[0] % spec.height, click[1] % spec.width
    assert one.start_cell == other.start_cell
    assert (one.mine_layout(click=(row, col)) == other.mine_layout(click=(0, 0))).all()
    one.open_start()
    other.open_start()
    assert (one.grid == other.grid).all()


@settings(max_examples=100, deadline=None)
@given(spec=boards, seed=st.integers(0, 2**63 - 1), index=st.integers(0, 10_000))
def test_the_layout_is_the_permutations_first_cells_when_it_has_a_zero(spec: BoardSpec, seed: int, index: int) -> None:
    """As the course's worlds: mines uniform over the board (none excluded), the tile the first zero among the
    safe cells in the permutation's order; only a board with no zero at all is drawn again around a tile."""
    perm = board_permutation(spec, seed, index)
    mines, start = zero_start(spec, perm)
    plain = np.zeros(spec.cells, dtype=np.uint8)
    plain[perm[: spec.mines]] = 1
    truth = np.empty(spec.cells, dtype=np.int8)
    neighbour_numbers(plain, spec.height, spec.width, truth)
    if (truth == 0).any():
        assert (mines == plain).all()
        first = next(int(c) for c in perm[spec.mines :] if truth[c] == 0)
        assert truth[start] == 0 and truth[first] == 0
    else:
        neighbour_numbers(mines, spec.height, spec.width, truth)
        assert truth[start] == 0 and truth[start] != MINE


def test_the_other_rules_have_no_start_tile() -> None:
    for rule in (FirstClick.SAFE, FirstClick.OPENING, FirstClick.NONE, FirstClick.WINDOWS):
        game = Game(BoardSpec(9, 9, 10), rule, seed=1, index=2)
        assert game.start_cell is None and not game.open_start() and game.moves == 0
