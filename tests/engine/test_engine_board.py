"""Board sizes, presets, first-click rules and the CLI-style parsers of engine.board."""

from __future__ import annotations

import pytest
from boards import draw_layout

from engine import BEGINNER, EXPERT, INTERMEDIATE, PRESETS, BoardConfigError, BoardSpec, EngineError, FirstClick, Game
from engine.board import MAX_CELLS, MAX_SIDE, parse_cell, resolve_board

# -- presets -------------------------------------------------------------------------------


def test_expert_is_16_rows_by_30_columns_with_99_mines() -> None:
    assert (EXPERT.height, EXPERT.width, EXPERT.mines) == (16, 30, 99)
    assert EXPERT.cells == 480
    assert EXPERT.size == "16x30"
    assert EXPERT.label == "expert"


@pytest.mark.parametrize(
    ("spec", "dims"),
    [(BEGINNER, (9, 9, 10)), (INTERMEDIATE, (16, 16, 40)), (EXPERT, (16, 30, 99))],
)
def test_presets(spec: BoardSpec, dims: tuple[int, int, int]) -> None:
    assert (spec.height, spec.width, spec.mines) == dims
    assert PRESETS[spec.name] is spec
    assert spec.to_dict() == {"name": spec.name, "height": dims[0], "width": dims[1], "mines": dims[2]}


def test_presets_are_exactly_the_three_classic_difficulties() -> None:
    assert list(PRESETS) == ["beginner", "intermediate", "expert"]


def test_custom_label_and_dict() -> None:
    spec = BoardSpec(10, 12, 20)
    assert spec.label == "10x12/20"
    assert spec.to_dict() == {"name": "10x12/20", "height": 10, "width": 12, "mines": 20}


def test_spec_is_frozen() -> None:
    with pytest.raises(AttributeError):
        EXPERT.mines = 1  # type: ignore[misc]


# -- invalid sizes -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("height", "width", "mines", "fragment"),
    [
        (0, 9, 1, "empty"),
        (9, 0, 1, "empty"),
        (-3, 9, 1, "empty"),
        (9, -1, 1, "empty"),
        (9, 9, 0, "at least 1"),
        (9, 9, -5, "at least 1"),
        (9, 9, 81, "do not fit"),
        (9, 9, 1000, "do not fit"),
        (1, 1, 1, "do not fit"),
        (MAX_SIDE + 1, 1, 1, "too large"),
        (1, 10**9, 1, "too large"),
        (600, 600, 10, "too large"),
    ],
)
def test_invalid_board_sizes_raise_with_a_helpful_message(height: int, width: int, mines: int, fragment: str) -> None:
    with pytest.raises(BoardConfigError, match=fragment) as info:
        BoardSpec(height, width, mines)
    assert f"{height}x{width}" in str(info.value) or str(mines) in str(info.value)


def test_too_many_mines_message_names_the_limit() -> None:
    with pytest.raises(BoardConfigError, match=r"at most 80 leave one safe cell"):
        BoardSpec(9, 9, 81)


def test_largest_allowed_board_is_accepted() -> None:
    spec = BoardSpec(MAX_CELLS // MAX_SIDE, MAX_SIDE, 1)
    assert spec.cells == MAX_CELLS


@pytest.mark.parametrize(
    ("height", "width", "mines"),
    [(9.0, 9, 10), (9, "9", 10), (9, 9, 10.5), (True, 9, 1), (9, 9, None)],
)
def test_non_integer_dimensions_are_refused(height: object, width: object, mines: object) -> None:
    with pytest.raises(BoardConfigError, match="whole number"):
        BoardSpec(height, width, mines)  # type: ignore[arg-type]


def test_errors_are_value_errors_and_engine_errors() -> None:
    with pytest.raises(ValueError):
        BoardSpec(0, 0, 0)
    with pytest.raises(EngineError):
        BoardSpec(0, 0, 0)


# -- first-click rules and their exclusion zones --------------------------------------------


def test_opening_on_3x3_with_one_mine_is_refused() -> None:
    spec = BoardSpec(3, 3, 1)  # fine on its own
    with pytest.raises(BoardConfigError, match=r"'opening' first-click rule; at most 0 fit"):
        spec.check_rule(FirstClick.OPENING)
    with pytest.raises(BoardConfigError, match="opening"):
        Game(spec, "opening")
    with pytest.raises(BoardConfigError, match="opening"):
        draw_layout(spec, "opening", 0, 0, (2, 2))
    for rule in ("safe", "none", "windows"):
        spec.check_rule(FirstClick.parse(rule))


@pytest.mark.parametrize(
    ("height", "width", "max_mines"),
    [(4, 4, 7), (9, 9, 72), (16, 30, 471), (1, 5, 2), (2, 2, 0), (1, 3, 0), (2, 5, 4)],
)
def test_opening_rule_capacity(height: int, width: int, max_mines: int) -> None:
    """The opening rule needs room for the largest 3x3 zone (clipped to the board)."""
    if max_mines >= 1:
        BoardSpec(height, width, max_mines).check_rule(FirstClick.OPENING)
    if max_mines + 1 <= height * width - 1:
        with pytest.raises(BoardConfigError, match=f"at most {max_mines} fit"):
            BoardSpec(height, width, max_mines + 1).check_rule(FirstClick.OPENING)


def test_safe_rule_allows_all_but_one_cell() -> None:
    spec = BoardSpec(3, 3, 8)
    spec.check_rule(FirstClick.SAFE)
    game = Game(spec, "safe", seed=5)
    assert game.reveal(1, 1) == 1
    assert game.won


def test_max_exclusion() -> None:
    assert FirstClick.OPENING.max_exclusion(16, 30) == 9
    assert FirstClick.OPENING.max_exclusion(1, 30) == 3
    assert FirstClick.OPENING.max_exclusion(2, 2) == 4
    assert FirstClick.SAFE.max_exclusion(16, 30) == 1


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("safe", FirstClick.SAFE),
        ("SAFE", FirstClick.SAFE),
        (" opening ", FirstClick.OPENING),
        ("None", FirstClick.NONE),
        ("windows", FirstClick.WINDOWS),
        (FirstClick.OPENING, FirstClick.OPENING),
    ],
)
def test_first_click_parse(text: str | FirstClick, rule: FirstClick) -> None:
    assert FirstClick.parse(text) is rule


@pytest.mark.parametrize("text", ["", "safer", "open", "xp", "0", None])
def test_first_click_parse_errors_list_the_rules(text: object) -> None:
    with pytest.raises(BoardConfigError, match="unknown first-click rule") as info:
        FirstClick.parse(text)  # type: ignore[arg-type]
    assert "safe, opening, none, windows" in str(info.value)


def test_first_click_str_is_its_value() -> None:
    assert str(FirstClick.OPENING) == "opening"
    assert f"{FirstClick.NONE}" == "none"


# -- resolve_board --------------------------------------------------------------------------


def test_resolve_board_default_is_beginner() -> None:
    assert resolve_board() is BEGINNER


@pytest.mark.parametrize("name", ["expert", "Expert", " EXPERT "])
def test_resolve_board_preset_names(name: str) -> None:
    assert resolve_board(name) is EXPERT


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"size": "16x30", "mines": 99}, EXPERT),
        ({"size": "16X30", "mines": 99}, EXPERT),
        ({"size": " 16 x 30 ", "mines": 99}, EXPERT),
        ({"size": "9x9/10"}, BEGINNER),
        ({"size": "9x9/10", "mines": 10}, BEGINNER),
        ({"difficulty": "9x9/10"}, BEGINNER),
        ({"difficulty": "16x16/40"}, INTERMEDIATE),
        ({"difficulty": "16x30", "mines": 99}, EXPERT),
    ],
)
def test_resolve_board_sizes_that_match_a_preset_return_it(kwargs: dict[str, object], expected: BoardSpec) -> None:
    assert resolve_board(**kwargs) is expected  # type: ignore[arg-type]


def test_resolve_board_custom() -> None:
    assert resolve_board(size="10x12", mines=20) == BoardSpec(10, 12, 20)
    assert resolve_board("30x16/99") == BoardSpec(30, 16, 99)  # transposed expert is a custom board
    assert resolve_board("30x16/99").label == "30x16/99"


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"difficulty": "impossible"}, "unknown difficulty 'impossible'; use one of: beginner, intermediate, expert"),
        ({"difficulty": "expert", "size": "9x9/10"}, "either a difficulty or a size"),
        ({"difficulty": "expert", "mines": 10}, "--mines goes with --size"),
        ({"size": "16x30"}, "needs a mine count"),
        ({"size": "16by30", "mines": 3}, "not of the form HxW"),
        ({"size": "16x", "mines": 3}, "not of the form HxW"),
        ({"size": "-3x5", "mines": 3}, "not of the form HxW"),
        ({"size": "9x9/10", "mines": 11}, "names a mine count and --mines gives another"),
        ({"size": "0x9/1"}, "empty"),
        ({"size": "9x9/0"}, "at least 1"),
        ({"size": "9x9/81"}, "do not fit"),
        ({"size": "16x30000000/99"}, "too large"),
    ],
)
def test_resolve_board_errors(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(BoardConfigError) as info:
        resolve_board(**kwargs)  # type: ignore[arg-type]
    assert fragment in str(info.value)


# -- cells ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "cell"), [("3,4", (3, 4)), (" 3 , 4 ", (3, 4)), ("0,0", (0, 0)), ("-1,2", (-1, 2))])
def test_parse_cell(text: str, cell: tuple[int, int]) -> None:
    assert parse_cell(text) == cell


@pytest.mark.parametrize(
    "text", ["", "3", "3,", "a,b", "1,2,3", "1;2", "1.5,2", "--1,2", "1,-", "\u00b2,1", "\u0661,1"]
)
def test_parse_cell_errors(text: str) -> None:
    with pytest.raises(BoardConfigError, match="ROW,COL"):
        parse_cell(text)


def test_check_cell() -> None:
    EXPERT.check_cell(15, 29)
    EXPERT.check_cell(0, 0)
    for cell in [(16, 0), (0, 30), (-1, 0), (0, -1)]:
        with pytest.raises(BoardConfigError, match=r"off the 16x30 board; rows run 0..15 and columns 0..29"):
            EXPERT.check_cell(*cell)
