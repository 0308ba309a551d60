"""apex's faster paths give exactly what their references give, to the last bit: the compiled
what-if (``whatif_fast``) against ``Outlook.outcomes_reference``, the vectorised shortlist against
its cell-by-cell reference, and ``probabilities_and_weight`` (the patterns' analyses) against ``analyze``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.play.runner import play_game
from engine import BEGINNER, EXPERT, FLAGGED, INTERMEDIATE, BoardSpec, FirstClick
from players.builtin.apex import ApexPlayer, whatif_fast
from players.builtin.apex import outlook as outlook_module
from players.builtin.apex import player as player_module
from players.builtin.apex.outlook import Outlook
from players.builtin.apex.whatif import ComponentStore
from players.builtin.apex.whatif_fast import SystemStore
from players.solver import InconsistentPositionError, analyze
from players.solver.analysis import probabilities_and_weight, weight_then_probabilities


def _played_positions(spec: BoardSpec, boards: int, seed: int) -> list[tuple[np.ndarray, int]]:
    """Every position apex builds an ``Outlook`` of in real games: its guesses' positions and the
    children its deep lookahead analyses (some with flags)."""
    seen: list[tuple[np.ndarray, int]] = []
    original = Outlook.__init__

    def spy(self: Outlook, grid: np.ndarray, mines: int, analysis: object) -> None:
        seen.append((np.array(grid, dtype=np.int8), int(mines)))
        original(self, grid, mines, analysis)

    player = ApexPlayer()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Outlook, "__init__", spy)
        for board in range(boards):
            play_game(player, "apex", spec, FirstClick.SAFE, seed, board)
    return seen


def _compare_every_cell(grid: np.ndarray, mines: int) -> int:
    """Compare the two what-ifs on every covered cell; the number of cells compared."""
    outlook = Outlook(grid, mines, analyze(grid, mines))
    compared = 0
    for cell in np.flatnonzero(outlook.covered).tolist():
        fast = outlook._outcomes_fast(cell)
        assert fast is not None, "declined on an ordinary position"
        reference = outlook.outcomes_reference(*divmod(cell, outlook.width))
        assert fast == reference, (grid, mines, cell)
        compared += 1
    return compared


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "boards"), [(BEGINNER, 30), (INTERMEDIATE, 8), (EXPERT, 3)], ids=str)
def test_compiled_what_if_equals_the_reference_in_played_games(spec: BoardSpec, boards: int) -> None:
    positions = _played_positions(spec, boards, 11)
    compared = flagged = 0
    for grid, mines in positions[:60]:
        compared += _compare_every_cell(grid, mines)
        flagged += bool((grid == FLAGGED).any())
    assert len(positions) >= 10
    assert compared > 500
    assert flagged > 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    height=st.integers(2, 7),
    width=st.integers(2, 8),
    density=st.floats(0.05, 0.45),
    reveal=st.floats(0.1, 0.8),
    flag=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_compiled_what_if_equals_the_reference_on_random_positions(
    height: int, width: int, density: float, reveal: float, flag: float, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    size = height * width
    mines = max(1, min(size - 1, round(density * size)))
    layout = np.zeros(size, dtype=bool)
    layout[rng.choice(size, mines, replace=False)] = True
    grid = np.full((height, width), -1, dtype=np.int8)
    mined = layout.reshape(height, width)
    padded = np.pad(mined.astype(np.int8), 1)
    numbers = sum(padded[1 + dr : 1 + dr + height, 1 + dc : 1 + dc + width] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    numbers -= mined
    shown = (rng.random((height, width)) < reveal) & ~mined
    grid[shown] = numbers[shown]
    grid[mined & (rng.random((height, width)) < flag * 0.5)] = FLAGGED
    if (grid == -1).any():  # a real layout fits, so the position is consistent
        _compare_every_cell(grid, mines)


def test_a_declined_what_if_falls_back_on_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    grid, mines = _played_positions(INTERMEDIATE, 3, 5)[0]
    expected = Outlook(grid, mines, analyze(grid, mines))
    calls = []

    def declined(*args: object) -> tuple:
        calls.append(args[0])
        return whatif_fast.DECLINED, 0, None, None, None, None

    monkeypatch.setattr(outlook_module.whatif_fast, "outcomes", declined)
    outlook = Outlook(grid, mines, analyze(grid, mines))
    cells = np.flatnonzero(outlook.covered).tolist()[:10]
    for cell in cells:
        row, col = divmod(cell, outlook.width)
        assert outlook.outcomes(row, col) == expected.outcomes_reference(row, col)
    assert calls == cells


def _candidates_reference(outlook: Outlook) -> list[tuple[int, int]]:
    """``ApexPlayer.candidates`` as it was written before it was vectorised: cell by cell."""
    p = outlook.probabilities
    live = outlook.covered & (p < 1.0)
    cells = np.flatnonzero(live)
    best = float(p[cells].min())
    limit = 1.0 - (1.0 - best) * (1.0 - player_module._TOLERANCE) + 1e-12
    near = cells[p[cells] <= limit]
    frontier = [int(x) for x in near if outlook.comp_of[x] >= 0]
    away = [int(x) for x in near if outlook.unconstrained[x]]
    width = outlook.width
    counts = player_module._unknown_neighbours(live & ~outlook.constant_mine, outlook.height, width)
    frontier.sort(key=lambda x: (round(float(p[x]), 12), int(counts[x]), x))
    away.sort(key=lambda x: (int(counts[x]), x))
    picked = frontier[: player_module._MAX_CANDIDATES]
    picked += away[: player_module._OFF_FRONTIER]
    picked.sort(key=lambda x: (round(float(p[x]), 12), int(counts[x]), x))
    return [divmod(x, width) for x in picked]


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "boards"), [(BEGINNER, 40), (EXPERT, 4)], ids=str)
def test_candidates_equal_the_cell_by_cell_reference(spec: BoardSpec, boards: int) -> None:
    player = ApexPlayer()
    checked = away = 0
    for grid, mines in _played_positions(spec, boards, 12):
        outlook = Outlook(grid, mines, analyze(grid, mines))
        if not (outlook.covered & (outlook.probabilities < 1.0)).any():
            continue
        got = player.candidates(outlook)
        assert got == _candidates_reference(outlook)
        assert got == player.candidates_numpy(outlook)
        checked += 1
        away += any(outlook.unconstrained[r * outlook.width + c] for r, c in got)
    assert checked > 30
    assert away > 0  # some lists hold cells away from the numbers


def _same_or_both_raise(grid: np.ndarray, mines: int) -> bool:
    """``probabilities_and_weight`` and ``weight_then_probabilities`` against ``analyze``: equal to
    the bit, or the same error (the two-step one raises at once, not when asked for probabilities)."""
    try:
        want = analyze(grid, mines)
    except InconsistentPositionError:
        with pytest.raises(InconsistentPositionError):
            probabilities_and_weight(grid, mines)
        with pytest.raises(InconsistentPositionError):
            weight_then_probabilities(grid, mines)
        return False
    probabilities, log_weight = probabilities_and_weight(grid, mines)
    np.testing.assert_array_equal(probabilities, want.probabilities)
    assert log_weight == want.log_weight
    weight, later = weight_then_probabilities(grid, mines)
    assert weight == want.log_weight
    first = later()
    assert first.shape == want.probabilities.shape and first.tobytes() == probabilities.tobytes()
    assert later() is first  # computed once
    return True


def test_probabilities_and_weight_equal_analyze_on_the_patterns_positions() -> None:
    # The positions apex's patterns ask about: a tile and its fellow mines flagged.
    checked = 0
    for grid, mines in _played_positions(EXPERT, 3, 13)[:25]:
        covered = np.flatnonzero(grid.reshape(-1) == -1)
        for tile in covered[:: max(1, covered.size // 6)].tolist():
            flagged = grid.copy()
            flagged.reshape(-1)[tile] = FLAGGED
            checked += _same_or_both_raise(flagged, mines)
    assert checked > 50


@settings(max_examples=40, deadline=None)
@given(
    height=st.integers(1, 6),
    width=st.integers(1, 7),
    mines=st.integers(0, 12),
    cells=st.lists(st.integers(-2, 8), min_size=42, max_size=42),
)
def test_probabilities_and_weight_equal_analyze_on_any_grid(height: int, width: int, mines: int, cells: list) -> None:
    # Arbitrary grids, most of them inconsistent: the same answer or the same error.
    grid = np.array(cells[: height * width], dtype=np.int8).reshape(height, width)
    _same_or_both_raise(grid, mines)


def test_stores_from_the_packed_analysis_equal_the_stores_built_component_by_component() -> None:
    checked = indexed = 0
    for grid, mines in _played_positions(INTERMEDIATE, 6, 14)[:40]:
        analysis = analyze(grid, mines)
        assert analysis.packed is not None
        outlook = Outlook(grid, mines, analysis)
        built = ComponentStore(analysis.components)
        for name in ("n", "total_ptr", "cell_ptr", "totals", "mine_counts", "support"):
            got, want = getattr(outlook._store, name), getattr(built, name)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), name
        systems = SystemStore(analysis.components)
        want = (systems.cell_ptr, systems.cells, systems.row_ptr, systems.rows, systems.rhs)
        for got, expected in zip(outlook._systems, want, strict=True):
            assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()
        # The compiled index against the numpy one, built component by component.
        flat, probabilities = grid.reshape(-1), analysis.probabilities.reshape(-1)
        want = outlook._index(flat, probabilities, analysis)
        got = (outlook.comp_of, outlook.unconstrained, outlook.constant_mine, outlook.covered)
        for name, a, b in zip(("comp_of", "unconstrained", "constant_mine", "covered"), got, want, strict=False):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name
        assert outlook.mines_left == want[4]
        indexed += int(outlook.constant_mine.sum()) + int((outlook.comp_of >= 0).sum())
        checked += len(analysis.components)
    assert checked > 20
    assert indexed > 100  # cells in components and known mines, not an empty index


@settings(max_examples=50, deadline=None)
@given(height=st.integers(1, 9), width=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_compiled_unknown_neighbours_equal_the_numpy_reference(height: int, width: int, seed: int) -> None:
    unknown = np.random.default_rng(seed).random(height * width) < 0.5
    got = whatif_fast.unknown_neighbours(unknown, height, width)
    want = player_module._unknown_neighbours(unknown, height, width)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_the_compiled_shortlist_leaves_a_position_without_a_possible_safe_cell_to_numpy() -> None:
    # Every covered cell a certain mine: no shortlist, and the numpy reference raises as it always did.
    n = 12
    p = np.full(n, np.nan)
    covered = np.zeros(n, dtype=bool)
    covered[[0, 5, 7]] = True
    p[[0, 5, 7]] = 1.0
    none = np.zeros(n, dtype=bool)
    ok, frontier, away, counts = whatif_fast.shortlist(p, covered, none, np.full(n, -1), none, 3, 4, 0.1, 2)
    assert not ok and frontier.size == 0 and away.size == 0
    p[5] = 0.25  # one possible safe cell, away from the numbers: the only one listed
    unconstrained = np.zeros(n, dtype=bool)
    unconstrained[5] = True
    ok, frontier, away, counts = whatif_fast.shortlist(p, covered, none, np.full(n, -1), unconstrained, 3, 4, 0.1, 2)
    assert ok and frontier.size == 0 and away.tolist() == [5]
    assert counts.tolist() == [1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0]  # cell 5's neighbours see it
