"""The rules of one game: reveal and flood fill, flags, chords, win and loss, errors, observation, 3BV."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from engine import (
    COVERED,
    EXPERT,
    FLAGGED,
    MINE,
    Action,
    ActionKind,
    BoardConfigError,
    BoardSpec,
    FirstClick,
    Game,
    GameStats,
    GameStatus,
    IllegalActionError,
    InvalidActionError,
    Observation,
)
from engine.layout import format_position, parse_layout

C, F = int(COVERED), int(FLAGGED)


def game_on(layout: np.ndarray, rule: str = "none") -> Game:
    return Game(BoardSpec(*layout.shape, int(layout.sum())), rule, layout=layout)


def game_of(text: str) -> Game:
    return game_on(parse_layout(text))


# -- reveal and flood fill -----------------------------------------------------------------


def test_flood_fill_opens_the_zero_region_and_its_border() -> None:
    game = game_of("*....\n.....\n.....\n....*")
    assert game.safe_left == 18
    assert game.reveal(0, 4) == 18
    assert format_position(game.grid) == "#1000\n11000\n00011\n0001#"
    assert game.status is GameStatus.WON
    assert game.won and game.over
    assert game.safe_left == 0


def test_flood_fill_stops_at_numbers() -> None:
    game = game_of("..*..\n..*..\n..*..")
    assert game.reveal(1, 0) == 6
    assert format_position(game.grid) == "02###\n03###\n02###"
    assert game.status is GameStatus.PLAYING
    assert game.reveal(0, 4) == 6
    assert game.won


def test_a_number_reveals_only_itself() -> None:
    game = game_of("*....\n.....\n.....\n....*")
    assert game.reveal(0, 1) == 1
    assert format_position(game.grid) == "#1###\n#####\n#####\n#####"


def test_flags_stop_the_flood() -> None:
    game = game_of("*....\n.....\n.....\n....*")
    game.flag(2, 2)
    assert game.reveal(0, 4) == 17
    assert format_position(game.grid) == "#1000\n11000\n00F11\n0001#"
    assert game.status is GameStatus.PLAYING
    assert game.safe_left == 1
    game.unflag(2, 2)
    assert game.reveal(2, 2) == 1
    assert game.won


def test_flood_fill_on_a_single_mine_board() -> None:
    game = game_of(".....\n.....\n..*..\n.....\n.....")
    assert game.reveal(0, 0) == 24
    assert game.won
    assert (game.final_grid()[1:4, 1:4] == np.array([[1, 1, 1], [1, MINE, 1], [1, 1, 1]])).all()


# -- win and loss --------------------------------------------------------------------------


def test_win_needs_every_safe_cell_revealed_and_flags_do_not_count() -> None:
    game = game_of("*.\n..")
    game.flag(0, 0)
    game.reveal(0, 1)
    game.reveal(1, 0)
    assert game.status is GameStatus.PLAYING
    game.reveal(1, 1)
    assert game.won
    stats = game.stats()
    assert stats.won
    assert stats.status is GameStatus.WON
    assert (stats.reveals, stats.flags, stats.moves, stats.revealed_cells) == (3, 1, 4, 3)


def test_a_mine_hit_with_one_safe_cell_left_is_lost_not_won() -> None:
    game = game_of("*.\n..")
    game.reveal(0, 1)
    game.reveal(1, 0)
    assert game.safe_left == 1
    assert game.reveal(0, 0) == 0
    assert game.status is GameStatus.LOST
    assert not game.won
    assert game.over
    assert game.exploded == (0, 0)
    assert game.safe_left == 1
    stats = game.stats()
    assert not stats.won
    assert stats.status is GameStatus.LOST
    assert stats.reveals == 3
    assert stats.revealed_cells == 2
    with pytest.raises(IllegalActionError, match="game is over"):
        game.reveal(1, 1)


def test_a_mine_hit_with_one_safe_cell_left_on_a_bigger_board() -> None:
    game = game_of("..*.*\n..*..\n..*.*")
    assert game.reveal(0, 0) == 6
    for cell in [(0, 3), (1, 3), (2, 3)]:
        assert game.reveal(*cell) == 1
    assert format_position(game.grid) == "02#3#\n03#5#\n02#3#"
    assert game.safe_left == 1
    game.flag(0, 4)
    assert game.reveal(2, 4) == 0
    assert game.status is GameStatus.LOST
    assert game.exploded == (2, 4)
    assert format_position(game.final_grid()) == "02*3F\n03*5#\n02*3*"


def test_revealing_a_mine_loses_and_the_view_does_not_show_it() -> None:
    game = game_of("..*\n...")
    game.reveal(0, 2)
    assert game.status is GameStatus.LOST
    assert game.grid[0, 2] == C
    assert game.final_grid()[0, 2] == MINE


# -- flags ---------------------------------------------------------------------------------


def test_flag_and_unflag() -> None:
    game = game_of("*..\n...\n..*")
    game.flag(0, 0)
    assert game.grid[0, 0] == F
    obs = game.observation()
    assert (obs.flags, obs.mines_left, obs.moves) == (1, 1, 1)
    game.flag(2, 2)
    game.flag(1, 1)
    assert game.observation().mines_left == -1  # the counter a human reads can go negative
    game.unflag(1, 1)
    assert game.grid[1, 1] == C
    obs = game.observation()
    assert (obs.flags, obs.mines_left, obs.moves) == (2, 0, 4)
    stats = game.stats()
    assert (stats.flags, stats.moves, stats.reveals) == (3, 4, 0)  # flag actions, not flags standing
    assert game.status is GameStatus.PLAYING


def test_flag_errors() -> None:
    game = game_of("*..\n...\n..*")
    game.flag(0, 0)
    with pytest.raises(IllegalActionError, match="already flagged"):
        game.flag(0, 0)
    with pytest.raises(IllegalActionError, match="flagged; unflag it"):
        game.reveal(0, 0)
    with pytest.raises(IllegalActionError, match="not flagged"):
        game.unflag(1, 1)
    game.reveal(0, 1)
    with pytest.raises(IllegalActionError, match="revealed; only covered cells can be flagged"):
        game.flag(0, 1)
    with pytest.raises(IllegalActionError, match="not flagged"):
        game.unflag(0, 1)


def test_flags_before_the_first_reveal_do_not_draw_the_layout() -> None:
    game = Game(EXPERT, "safe", seed=3)
    game.flag(0, 0)
    with pytest.raises(IllegalActionError, match="name the first click"):
        game.mine_layout()
    game.unflag(0, 0)
    game.reveal(0, 0)
    assert game.first_click == (0, 0)
    assert game.mine_layout().shape == (16, 30)


# -- chords --------------------------------------------------------------------------------


def test_chord_reveals_the_unflagged_neighbours() -> None:
    game = game_of("*.*\n...")
    game.reveal(1, 1)
    assert game.grid[1, 1] == 2
    game.flag(0, 0)
    game.flag(0, 2)
    assert game.chord(1, 1) == 3
    assert format_position(game.grid) == "F2F\n121"
    assert game.won
    stats = game.stats()
    assert (stats.chords, stats.reveals, stats.moves) == (1, 1, 4)


def test_chord_flood_fills_zeros() -> None:
    game = game_of("*....\n.....\n.....")
    game.reveal(1, 1)
    game.flag(0, 0)
    assert game.chord(1, 1) == 13
    assert game.won


def test_chord_onto_a_wrong_flag_loses() -> None:
    game = game_of("*.*\n...")
    game.reveal(1, 1)
    game.flag(0, 0)
    game.flag(0, 1)  # wrong: (0, 1) is safe and the mine at (0, 2) is left covered
    assert game.chord(1, 1) == 0
    assert game.status is GameStatus.LOST
    assert game.exploded == (0, 2)
    assert game.grid[1, 0] == C  # nothing is revealed by a losing chord
    assert game.stats().chords == 1


def test_chord_with_a_flag_mismatch_raises_and_changes_nothing() -> None:
    game = game_of("*.*\n...")
    game.reveal(1, 1)
    game.flag(0, 0)
    before = game.grid.copy()
    with pytest.raises(IllegalActionError, match=r"shows 2 but a different number of flags"):
        game.chord(1, 1)
    game.flag(0, 2)
    game.flag(0, 1)
    with pytest.raises(IllegalActionError, match="different number of flags"):
        game.chord(1, 1)
    assert game.status is GameStatus.PLAYING
    assert game.stats().chords == 0
    assert before[1, 0] == game.grid[1, 0] == C


def test_chord_with_nothing_left_to_reveal() -> None:
    game = game_of("*.*..\n.....")
    game.reveal(1, 1)
    game.flag(0, 0)
    game.flag(0, 2)
    for cell in [(0, 1), (1, 0), (1, 2)]:
        game.reveal(*cell)
    assert game.status is GameStatus.PLAYING
    with pytest.raises(IllegalActionError, match="no covered unflagged neighbour"):
        game.chord(1, 1)


def test_chord_on_something_other_than_a_number() -> None:
    game = game_of("..*..\n..*..\n..*..")
    with pytest.raises(IllegalActionError, match="not a revealed number"):
        game.chord(1, 1)  # before the first reveal
    game.reveal(1, 0)
    assert game.grid[1, 0] == 0
    with pytest.raises(IllegalActionError, match="not a revealed number"):
        game.chord(1, 0)  # a zero
    game.flag(0, 3)
    with pytest.raises(IllegalActionError, match="not a revealed number"):
        game.chord(0, 3)  # a flag
    with pytest.raises(IllegalActionError, match="not a revealed number"):
        game.chord(2, 4)  # covered
    assert game.stats().chords == 0


# -- typed errors ----------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["reveal", "flag", "unflag", "chord"])
@pytest.mark.parametrize("cell", [(-1, 0), (0, -1), (3, 0), (0, 5), (100, 100)])
def test_out_of_range_cells_are_invalid(method: str, cell: tuple[int, int]) -> None:
    game = game_of("*....\n.....\n.....")
    with pytest.raises(InvalidActionError, match=r"off the 3x5 board; rows run 0..2 and columns 0..4"):
        getattr(game, method)(*cell)
    assert game.stats().moves == 0


@pytest.mark.parametrize("method", ["reveal", "flag", "unflag", "chord"])
@pytest.mark.parametrize("cell", [(1.0, 0), (0, 1.5), ("1", 0), (None, 0), ((1,), 0), (np.float64(1), 0)])
def test_non_integer_cells_are_invalid(method: str, cell: tuple[object, object]) -> None:
    game = game_of("*....\n.....\n.....")
    with pytest.raises(InvalidActionError, match="two whole numbers"):
        getattr(game, method)(*cell)


def test_numpy_integer_cells_are_accepted() -> None:
    game = game_of("*....\n.....\n.....")
    game.reveal(np.int64(0), np.uint8(1))
    assert game.grid[0, 1] == 1
    assert game.first_click == (0, 1)
    assert type(game.first_click[0]) is int


def test_revealing_a_revealed_cell_is_illegal() -> None:
    game = game_of("..*..\n..*..\n..*..")
    game.reveal(0, 1)
    with pytest.raises(IllegalActionError, match="already revealed"):
        game.reveal(0, 1)
    game.reveal(2, 0)
    with pytest.raises(IllegalActionError, match="already revealed"):
        game.reveal(1, 1)  # revealed by the flood
    assert game.stats().reveals == 2


@pytest.mark.parametrize("won", [True, False])
def test_every_action_on_a_finished_game_is_illegal(won: bool) -> None:
    game = game_of("*.\n..")
    game.reveal(1, 0)
    if won:
        game.reveal(0, 1)
        game.reveal(1, 1)
    else:
        game.reveal(0, 0)
    assert game.over
    moves = game.stats().moves
    for method, cell in [
        ("reveal", (1, 1)),
        ("reveal", (0, 0)),
        ("flag", (0, 0)),
        ("unflag", (0, 0)),
        ("chord", (1, 0)),
    ]:
        with pytest.raises(IllegalActionError, match="game is over"):
            getattr(game, method)(*cell)
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(Action.reveal(1, 1))
    # an off-board cell is malformed whatever the game's state
    with pytest.raises(InvalidActionError):
        game.reveal(5, 5)
    assert game.stats().moves == moves


def test_error_hierarchy() -> None:
    assert issubclass(InvalidActionError, ValueError)
    assert not issubclass(IllegalActionError, InvalidActionError)
    assert not issubclass(InvalidActionError, IllegalActionError)


# -- actions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Action.reveal(3, 4), "reveal 3,4"),
        (Action.flag(0, 0), "flag 0,0"),
        (Action.unflag(15, 29), "unflag 15,29"),
        (Action.chord(1, 2), "chord 1,2"),
    ],
)
def test_action_text_round_trip(action: Action, text: str) -> None:
    assert str(action) == text
    assert Action.parse(text) == action
    assert Action.parse(str(action)) == action
    assert eval(repr(action), {"Action": Action}) == action
    assert repr(action) == f"Action.{action.kind.value}({action.row}, {action.col})"
    assert isinstance(action.kind, ActionKind)
    assert tuple(action)[:3] == (action.kind, action.row, action.col)


def test_guess_flag_round_trips_and_is_ignored_by_the_rules() -> None:
    action = Action.reveal(3, 4, guess=True)
    assert action.guess
    assert Action.parse(str(action)) == action
    assert eval(repr(action), {"Action": Action}) == action
    assert not Action.reveal(3, 4).guess
    game = game_of("*.*\n...")
    assert game.apply(Action.reveal(1, 1, guess=True)) == 1
    assert game.grid[1, 1] == 2


def test_action_parse_is_lenient_about_case_and_spaces() -> None:
    assert Action.parse("  REVEAL 3, 4 ") == Action.reveal(3, 4)
    assert Action.parse("Chord\t1 ,2") == Action.chord(1, 2)


@pytest.mark.parametrize("text", ["", "reveal", "reveal 3", "explode 1,2", "reveal 1,2,3", "reveal a,b", "3,4 reveal"])
def test_action_parse_errors(text: str) -> None:
    with pytest.raises(InvalidActionError, match="cannot read action"):
        Action.parse(text)


def test_apply() -> None:
    game = game_of("*.*\n...")
    assert game.apply(Action.reveal(1, 1)) == 1
    assert game.apply(Action.flag(0, 0)) == 0
    assert game.apply(Action.flag(0, 1)) == 0
    assert game.apply(Action.unflag(0, 1)) == 0
    assert game.apply(("flag", 0, 2)) == 0  # any (kind, row, col) triple works
    assert game.apply(Action.chord(1, 1)) == 3
    assert game.won


@pytest.mark.parametrize("action", [None, "reveal 1,1", ("explode", 0, 0), (0, 0), ("reveal", 0), 42])
def test_apply_rejects_malformed_actions(action: object) -> None:
    game = game_of("*.*\n...")
    with pytest.raises(InvalidActionError, match="not an action"):
        game.apply(action)  # type: ignore[arg-type]


# -- what a player sees ------------------------------------------------------------------------


def test_observation_grid_is_read_only() -> None:
    game = Game(EXPERT, "safe", seed=1)
    game.reveal(5, 5)
    obs = game.observation()
    assert obs.grid.dtype == np.int8
    assert obs.grid.shape == (16, 30)
    assert not obs.grid.flags.writeable
    with pytest.raises(ValueError):
        obs.grid[0, 0] = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.mines = 1  # type: ignore[misc]


def test_observation_is_a_copy() -> None:
    game = Game(EXPERT, "opening", seed=2)
    first = game.observation()
    assert first.first_move
    game.reveal(8, 8)
    kept = game.observation()
    kept_grid = kept.grid.copy()
    assert not kept.first_move
    assert not np.shares_memory(kept.grid, game.grid)
    safe = np.argwhere(~game.mine_layout() & (game.grid == C))
    game.reveal(*safe[0])
    game.flag(*np.argwhere(game.grid == C)[0])
    assert np.array_equal(kept.grid, kept_grid)
    assert (first.grid == C).all()
    assert kept.moves == 1 and game.observation().moves == 3


def test_observation_has_nothing_that_leads_to_the_layout() -> None:
    game = Game(EXPERT, "safe", seed=4)
    game.reveal(0, 0)
    obs = game.observation()
    assert {f.name for f in dataclasses.fields(obs)} == {"grid", "mines", "rule", "moves", "flags"}
    assert not hasattr(obs, "__dict__")
    for field in dataclasses.fields(obs):
        value = getattr(obs, field.name)
        assert not isinstance(value, Game)
        if isinstance(value, np.ndarray):
            assert value.base is None
            assert not np.shares_memory(value, game._truth)  # type: ignore[arg-type]
    assert type(obs.mines) is int and type(obs.moves) is int and type(obs.flags) is int
    assert obs.rule is FirstClick.SAFE
    assert (obs.height, obs.width, obs.mines) == (16, 30, 99)
    assert set(np.unique(obs.grid).tolist()) <= {C, *range(9)}


def test_game_grid_is_a_live_read_only_view() -> None:
    game = game_of("*....\n.....\n.....")
    grid = game.grid
    assert not grid.flags.writeable
    with pytest.raises(ValueError):
        grid[0, 0] = 0
    game.reveal(0, 1)
    assert grid[0, 1] == 1
    game.flag(0, 0)
    assert grid[0, 0] == F


def test_game_repr() -> None:
    game = Game(EXPERT, "opening", seed=3, index=4)
    assert repr(game) == "<Game expert rule=opening seed=3 index=4 status=playing moves=0>"


# -- fixed layouts and the statistics --------------------------------------------------------------


def test_stats_name_the_rule_and_the_first_click() -> None:
    game = Game(EXPERT, "opening", seed=9, index=1)
    assert game.stats().first_click is None
    assert game.stats().bbbv == 0
    game.reveal(4, 7)
    game.reveal(*np.argwhere(~game.mine_layout() & (game.grid == C))[0])
    stats = game.stats()
    assert isinstance(stats, GameStats)
    assert stats.rule is FirstClick.OPENING
    assert stats.first_click == (4, 7)
    assert game.first_click == (4, 7)


def test_a_fixed_layout_records_rule_and_first_click() -> None:
    game = game_of("*....\n.....\n.....")
    assert game.rule is FirstClick.NONE
    game.reveal(0, 1)
    game.reveal(2, 4)
    stats = game.stats()
    assert stats.rule is FirstClick.NONE
    assert stats.first_click == (0, 1)
    assert game_on(parse_layout("*."), "windows").stats().rule is FirstClick.WINDOWS


def test_a_fixed_layout_has_no_first_click_protection() -> None:
    game = game_on(parse_layout("*.\n.."), "safe")
    game.reveal(0, 0)
    assert game.status is GameStatus.LOST


@pytest.mark.parametrize("layout", [np.zeros((9, 9), bool), np.eye(9, dtype=bool), np.zeros((16, 30), bool)])
def test_game_refuses_a_layout_that_does_not_match_its_spec(layout: np.ndarray) -> None:
    with pytest.raises(BoardConfigError, match="does not match"):
        Game(BoardSpec(9, 9, 10), layout=layout)


# -- 3BV -----------------------------------------------------------------------------------------
# Every expected value below is counted by hand: 3BV = openings (connected regions of zeros)
# + numbers that touch no zero (each needs a click of its own).


@pytest.mark.parametrize(
    ("text", "bbbv"),
    [
        # one opening; every number touches it
        ("*....\n.....\n.....\n....*", 1),
        # no zero at all: each of the 4 numbers is a click
        ("*.*\n...", 4),
        # a centre mine on 3x3: eight isolated 1s
        ("...\n.*.\n...", 8),
        # a centre mine on 5x5: the ring of zeros is one opening, the eight 1s border it
        (".....\n.....\n..*..\n.....\n.....", 1),
        # zero, 1, mine, 2, mine, 1, zero: two openings and the isolated 2
        ("..*.*..", 3),
        # a wall of mines splits two openings; the column of numbers touches each
        ("...*...\n...*...\n...*...", 2),
        # zeros only in the corners (0,0) and (2,2): two openings; the 2 in the middle touches both
        ("..*\n...\n*..", 2),
        # a mine at each end of a row of 6: 1 opening (cells 2-3) + no isolated number
        ("*....*", 1),
        # three mines in a checker pattern on 2x3: the three safe cells (3, 2, 2) are isolated numbers
        ("*.*\n.*.", 3),
    ],
)
def test_bbbv_of_hand_made_layouts(text: str, bbbv: int) -> None:
    game = game_of(text)
    assert game.stats().bbbv == bbbv
    assert game.stats().bbbv_solved == 0


def test_bbbv_solved_counts_openings_and_isolated_numbers() -> None:
    # ..*.*.. numbers: 0 1 * 2 * 1 0 -> openings {0,1} and {5,6}, isolated 2 at column 3
    game = game_of("..*.*..")
    assert game.stats().bbbv == 3
    assert game.reveal(0, 0) == 2
    assert game.stats().bbbv_solved == 1
    assert game.reveal(0, 3) == 1
    assert game.stats().bbbv_solved == 2
    assert game.reveal(0, 5) == 1  # a number on an opening's border is not a 3BV click
    assert game.stats().bbbv_solved == 2
    assert game.reveal(0, 6) == 1
    assert game.stats().bbbv_solved == 3
    assert game.won


def test_bbbv_solved_after_a_loss() -> None:
    game = game_of("...*...\n...*...\n...*...")
    game.reveal(0, 0)
    game.reveal(1, 3)
    assert game.status is GameStatus.LOST
    stats = game.stats()
    assert (stats.bbbv, stats.bbbv_solved, stats.revealed_cells) == (2, 1, 9)


def test_bbbv_solved_equals_bbbv_on_a_win_by_3bv_clicks() -> None:
    game = game_of("...\n.*.\n...")
    for r, c in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)]:
        game.reveal(r, c)
        assert game.stats().bbbv_solved == game.stats().reveals
    assert game.won
    assert game.stats().bbbv_solved == game.stats().bbbv == 8


def test_observation_type() -> None:
    assert isinstance(game_of("*.").observation(), Observation)
