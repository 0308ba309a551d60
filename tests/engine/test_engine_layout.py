"""Seeded layouts, first-click rules, coupling between first clicks, and the text formats."""

from __future__ import annotations

import numpy as np
import pytest
from boards import draw_layout

from engine import (
    BEGINNER,
    COVERED,
    EXPERT,
    FLAGGED,
    MINE,
    BoardConfigError,
    BoardSpec,
    FirstClick,
    Game,
    GameStatus,
    LayoutFormatError,
)
from engine.layout import (
    board_permutation,
    format_layout,
    format_position,
    mines_from_permutation,
    parse_layout,
    parse_position,
    player_generator,
)

SEEDS = range(40)


def neighbourhood(height: int, width: int, row: int, col: int) -> np.ndarray:
    """Boolean mask of the 3x3 zone around (row, col), clipped to the board."""
    zone = np.zeros((height, width), dtype=bool)
    zone[max(row - 1, 0) : row + 2, max(col - 1, 0) : col + 2] = True
    return zone


# -- the documented derivation ---------------------------------------------------------------


def test_board_permutation_follows_the_documented_derivation() -> None:
    for seed, index in [(0, 0), (1, 2), (2**63 - 1, 7), (12345, 2**40)]:
        expected = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index]))).permutation(480)
        assert np.array_equal(board_permutation(EXPERT, seed, index), expected)


def test_draw_layout_places_mines_on_the_first_allowed_cells_of_the_permutation() -> None:
    perm = board_permutation(EXPERT, 3, 4)
    click = (5, 7)
    layout = draw_layout(EXPERT, "safe", 3, 4, click)
    allowed = [int(c) for c in perm if int(c) != 5 * 30 + 7][:99]
    expected = np.zeros(480, dtype=bool)
    expected[allowed] = True
    assert np.array_equal(layout.reshape(-1), expected)


def test_board_permutation_is_a_permutation() -> None:
    perm = board_permutation(BEGINNER, 9, 9)
    assert sorted(perm.tolist()) == list(range(81))


def test_layouts_depend_on_seed_and_index() -> None:
    base = draw_layout(EXPERT, "safe", 1, 1, (0, 0))
    assert np.array_equal(base, draw_layout(EXPERT, "safe", 1, 1, (0, 0)))
    assert not np.array_equal(base, draw_layout(EXPERT, "safe", 1, 2, (0, 0)))
    assert not np.array_equal(base, draw_layout(EXPERT, "safe", 2, 1, (0, 0)))
    # [seed, index] is not symmetric
    assert not np.array_equal(draw_layout(EXPERT, "none", 1, 2, (0, 0)), draw_layout(EXPERT, "none", 2, 1, (0, 0)))


def test_draw_layout_shape_dtype_and_count() -> None:
    for rule in FirstClick:
        layout = draw_layout(EXPERT, rule, 0, 0, (3, 3))
        assert layout.shape == (16, 30)
        assert layout.dtype == bool
        assert int(layout.sum()) == 99


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, "1", True, None])
def test_bad_seeds_are_refused(seed: object) -> None:
    with pytest.raises(BoardConfigError, match="seed"):
        draw_layout(EXPERT, "safe", seed, 0, (0, 0))  # type: ignore[arg-type]
    with pytest.raises(BoardConfigError, match="seed"):
        Game(EXPERT, seed=seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("index", [-1, 2**63, 2.0])
def test_bad_board_indices_are_refused(index: object) -> None:
    with pytest.raises(BoardConfigError, match="board index"):
        draw_layout(EXPERT, "safe", 0, index, (0, 0))  # type: ignore[arg-type]


def test_numpy_integer_seeds_are_accepted() -> None:
    assert np.array_equal(
        draw_layout(EXPERT, "safe", np.uint64(5), np.int32(2), (0, 0)), draw_layout(EXPERT, "safe", 5, 2, (0, 0))
    )


def test_draw_layout_off_board_click() -> None:
    with pytest.raises(BoardConfigError, match="off the 9x9 board"):
        draw_layout(BEGINNER, "safe", 0, 0, (9, 0))


def test_player_generator_is_deterministic_and_independent() -> None:
    a = player_generator(1, 2, "alice").integers(0, 2**62, size=4)
    assert np.array_equal(a, player_generator(1, 2, "alice").integers(0, 2**62, size=4))
    assert not np.array_equal(a, player_generator(1, 2, "bob").integers(0, 2**62, size=4))
    assert not np.array_equal(a, player_generator(1, 3, "alice").integers(0, 2**62, size=4))
    board = np.random.Generator(np.random.PCG64(np.random.SeedSequence([1, 2]))).integers(0, 2**62, size=4)
    assert not np.array_equal(a, board)


# -- first-click rules ---------------------------------------------------------------------------


@pytest.mark.parametrize("click", [(0, 0), (8, 8), (4, 4), (0, 5)])
def test_safe_rule_never_puts_a_mine_under_the_click(click: tuple[int, int]) -> None:
    dense = BoardSpec(9, 9, 80)  # every other cell is a mine
    for seed in SEEDS:
        layout = draw_layout(dense, "safe", seed, 0, click)
        assert not layout[click]
        assert int(layout.sum()) == 80
        game = Game(dense, "safe", seed=seed)
        assert game.reveal(*click) == 1
        assert game.won


@pytest.mark.parametrize("click", [(0, 0), (8, 8), (4, 4), (0, 5), (5, 0)])
def test_opening_rule_keeps_the_click_and_its_neighbours_free(click: tuple[int, int]) -> None:
    dense = BoardSpec(9, 9, 72)  # the tightest board the rule accepts
    zone = neighbourhood(9, 9, *click)
    for seed in SEEDS:
        layout = draw_layout(dense, "opening", seed, 0, click)
        assert not (layout & zone).any()
        assert int(layout.sum()) == 72
        game = Game(dense, "opening", seed=seed)
        revealed = game.reveal(*click)
        assert game.grid[click] == 0
        assert revealed >= int(zone.sum())
        assert (game.grid[zone] >= 0).all()
        assert np.array_equal(game.mine_layout(), layout)


def test_none_rule_can_lose_on_the_first_click() -> None:
    spec = BoardSpec(5, 5, 12)
    click = (2, 2)
    seed = next(s for s in range(1000) if draw_layout(spec, "none", s, 0, click)[click])
    game = Game(spec, "none", seed=seed)
    assert game.reveal(*click) == 0
    assert game.status is GameStatus.LOST
    assert game.exploded == click
    stats = game.stats()
    assert stats.first_click == click
    assert stats.rule is FirstClick.NONE
    assert stats.reveals == 1
    assert stats.revealed_cells == 0
    assert game.final_grid()[click] == MINE


def test_none_rule_hits_a_mine_at_the_mine_density() -> None:
    spec = BoardSpec(5, 5, 12)
    hits = sum(bool(draw_layout(spec, "none", s, 0, (0, 0))[0, 0]) for s in range(400))
    assert 130 < hits < 250  # expectation 192


def expected_windows(none_layout: np.ndarray, click: tuple[int, int]) -> np.ndarray:
    """The classic rule written out plainly: move a mine under the click to the first free cell."""
    expected = none_layout.copy()
    if expected[click]:
        expected[click] = False
        for r in range(expected.shape[0]):
            for c in range(expected.shape[1]):
                if (r, c) != click and not none_layout[r, c]:
                    expected[r, c] = True
                    return expected
    return expected


@pytest.mark.parametrize("click", [(0, 0), (2, 3), (4, 4), (0, 4)])
def test_windows_rule_moves_the_mine_to_the_top_left_most_free_cell(click: tuple[int, int]) -> None:
    spec = BoardSpec(5, 5, 15)
    moved = 0
    for seed in range(120):
        none = draw_layout(spec, "none", seed, 3, click)
        windows = draw_layout(spec, "windows", seed, 3, click)
        assert not windows[click]
        assert int(windows.sum()) == 15
        assert np.array_equal(windows, expected_windows(none, click))
        if none[click]:
            moved += 1
            diff = np.argwhere(none != windows)
            assert len(diff) == 2
            target = next(tuple(int(v) for v in cell) for cell in diff if tuple(cell) != click)
            # every cell before the target, row by row, was a mine (or the click itself)
            flat = np.ravel_multi_index(target, none.shape)
            before = none.reshape(-1)[:flat].copy()
            if np.ravel_multi_index(click, none.shape) < flat:
                before[np.ravel_multi_index(click, none.shape)] = True
            assert before.all()
        else:
            assert np.array_equal(none, windows)
    assert moved > 20


def test_windows_rule_hand_checked() -> None:
    """A 2x3 board whose first row is full: the mine under (0,0) moves to (1,0)."""
    spec = BoardSpec(2, 3, 4)
    for seed in range(200):
        none = draw_layout(spec, "none", seed, 0, (0, 1))
        if none[0].all() and not none[1, 0]:
            windows = draw_layout(spec, "windows", seed, 0, (0, 1))
            assert windows.tolist() == [[True, False, True], [True, *none[1, 1:].tolist()]]
            break
    else:
        pytest.fail("no seed with a full first row and a free (1,0)")


def test_windows_game_never_loses_on_the_first_click() -> None:
    spec = BoardSpec(4, 4, 15)
    for seed in SEEDS:
        game = Game(spec, "windows", seed=seed)
        game.reveal(1, 2)
        assert game.won


# -- coupling of the boards of players who click different first cells -------------------------


@pytest.mark.parametrize("spec", [BEGINNER, EXPERT, BoardSpec(4, 4, 10)])
def test_safe_layouts_for_two_clicks_differ_in_at_most_one_mine(spec: BoardSpec) -> None:
    rng = np.random.default_rng(0)
    for seed in SEEDS:
        a = tuple(int(v) for v in rng.integers(0, (spec.height, spec.width)))
        b = tuple(int(v) for v in rng.integers(0, (spec.height, spec.width)))
        la = draw_layout(spec, "safe", seed, 11, a)
        lb = draw_layout(spec, "safe", seed, 11, b)
        moved = int((la & ~lb).sum())
        assert moved == int((lb & ~la).sum()) <= 1
        if moved:
            # the only mine that moves is the one the other player's click pushed away
            assert la[b] or lb[a]


@pytest.mark.parametrize("spec", [BEGINNER, EXPERT])
def test_none_layouts_for_two_clicks_are_identical(spec: BoardSpec) -> None:
    for seed in SEEDS:
        base = draw_layout(spec, "none", seed, 2, (0, 0))
        for click in [(spec.height - 1, spec.width - 1), (3, 4), (0, 1)]:
            assert np.array_equal(base, draw_layout(spec, "none", seed, 2, click))


def test_opening_layouts_share_every_mine_outside_both_zones() -> None:
    for seed in SEEDS:
        la = draw_layout(EXPERT, "opening", seed, 0, (0, 0))
        lb = draw_layout(EXPERT, "opening", seed, 0, (8, 15))
        moved = int((la & ~lb).sum())
        assert moved == int((lb & ~la).sum()) <= 9


def test_game_layout_matches_draw_layout_before_and_after_the_first_reveal() -> None:
    for rule in FirstClick:
        game = Game(EXPERT, rule, seed=77, index=5)
        expected = draw_layout(EXPERT, rule, 77, 5, (7, 7))
        assert np.array_equal(game.mine_layout((7, 7)), expected)
        assert np.array_equal(game.mine_layout((0, 0)), draw_layout(EXPERT, rule, 77, 5, (0, 0)))
        game.reveal(7, 7)
        assert np.array_equal(game.mine_layout(), expected)
        assert np.array_equal(
            mines_from_permutation(EXPERT, board_permutation(EXPERT, 77, 5), rule, (7, 7)), expected.reshape(-1)
        )


# -- text formats ---------------------------------------------------------------------------------


LAYOUT_TEXT = "*....\n.....\n..*..\n....*"


def test_layout_round_trip() -> None:
    grid = parse_layout(LAYOUT_TEXT)
    assert grid.dtype == bool
    assert grid.shape == (4, 5)
    assert np.argwhere(grid).tolist() == [[0, 0], [2, 2], [3, 4]]
    assert format_layout(grid) == LAYOUT_TEXT
    drawn = draw_layout(EXPERT, "safe", 4, 4, (0, 0))
    assert np.array_equal(parse_layout(format_layout(drawn)), drawn)


def test_parse_layout_tolerates_surrounding_whitespace() -> None:
    assert np.array_equal(parse_layout("\n  *.\n  ..  \n\n"), np.array([[True, False], [False, False]]))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "the layout is empty"),
        ("   \n  \n", "the layout is empty"),
        ("*..\n..\n...", "layout line 2 has 2 cells but line 1 has 3"),
        ("*..\n...\n....", "layout line 3 has 4 cells but line 1 has 3"),
        ("*..\n..x", "layout line 2 column 3: 'x' is not '*' (mine) or '.' (safe)"),
        ("1..", "layout line 1 column 1: '1'"),
        ("..\n.#", "layout line 2 column 2: '#'"),
    ],
)
def test_parse_layout_errors(text: str, fragment: str) -> None:
    with pytest.raises(LayoutFormatError) as info:
        parse_layout(text)
    assert fragment in str(info.value)


POSITION_TEXT = "##F1\n0123\n4567\n8f##"


def test_parse_position() -> None:
    grid = parse_position(POSITION_TEXT)
    assert grid.dtype == np.int8
    assert grid.tolist() == [
        [COVERED, COVERED, FLAGGED, 1],
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, FLAGGED, COVERED, COVERED],
    ]
    assert format_position(grid) == POSITION_TEXT.replace("f", "F")
    assert np.array_equal(parse_position(format_position(grid)), grid)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "the position is empty"),
        ("###\n##", "position line 2 has 2 cells but line 1 has 3"),
        ("###\n#9#", "position line 2 column 2: '9' is not '#' (covered), 'F' (flag) or a digit 0-8"),
        ("#*#", "position line 1 column 2: '*'"),
        ("##\n##\n#x", "position line 3 column 2: 'x'"),
        ("#.", "position line 1 column 2: '.'"),
    ],
)
def test_parse_position_errors(text: str, fragment: str) -> None:
    with pytest.raises(LayoutFormatError) as info:
        parse_position(text)
    assert fragment in str(info.value)


def test_format_position_of_a_lost_game_shows_mines() -> None:
    game = Game(BoardSpec(2, 2, 1), "none", layout=parse_layout("*.\n.."))
    game.reveal(1, 1)
    game.reveal(0, 0)
    assert format_position(game.final_grid()) == "*#\n#1"
    assert format_position(game.grid) == "##\n#1"
