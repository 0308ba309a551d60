"""Points over several board sets (``arena.analysis.points``): the MOVER interval of the points, the comparison
with the leader, and the exact weighted McNemar test. Their coverage is measured in
``benchmarks/points_coverage.py``, not here."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.analysis.points import (
    SetCounts,
    SetPairs,
    compare_points,
    points_interval,
    weighted_mcnemar,
)
from arena.analysis.stats import mcnemar_exact, paired_difference, wilson_interval


@given(wins=st.integers(0, 500), extra=st.integers(1, 500), points=st.sampled_from([1, 2, 3, 0.5, 2.25]))
def test_one_set_is_its_wilson_interval_scaled(wins: int, extra: int, points: float) -> None:
    games = wins + extra
    low, high = wilson_interval(wins, games)
    total = points_interval([SetCounts(wins, games, points)])
    assert total.points == points * wins
    assert total.low == pytest.approx(max(0.0, points * games * low))
    assert total.high == pytest.approx(points * games * high)


@settings(max_examples=200)
@given(
    sets=st.lists(
        st.tuples(st.integers(0, 300), st.integers(0, 300), st.sampled_from([1, 2, 3, 0.5])), min_size=2, max_size=4
    )
)
def test_the_interval_holds_the_points_and_is_no_wider_than_the_sum_of_the_sets(
    sets: list[tuple[int, int, float]],
) -> None:
    """Adding independent sets in quadrature: narrower than adding their half-widths, wider than the widest."""
    counts = [SetCounts(w, w + lost, p) for w, lost, p in sets if w + lost > 0]
    if not counts:
        return
    total = points_interval(counts)
    assert total.low <= total.points + 1e-9 <= total.high + 2e-9
    singles = [points_interval([c]) for c in counts]
    assert total.high - total.points <= sum(s.high - s.points for s in singles) + 1e-9
    assert total.high - total.points >= max(s.high - s.points for s in singles) - 1e-9


def test_points_rank_a_course_as_its_world_scores_it() -> None:
    """8x8, 16x16, 16x30 at 1, 2, 3 points a win: 80 + 2 * 50 + 3 * 10 = 210 points."""
    total = points_interval([SetCounts(80, 100, 1), SetCounts(50, 100, 2), SetCounts(10, 100, 3)])
    assert total.points == 210
    assert 180 < total.low < 210 < total.high < 245


@pytest.mark.parametrize(("only_a", "only_b"), [(12, 4), (0, 0), (0, 7), (30, 30), (1, 0)])
def test_equal_points_make_the_weighted_test_mcnemars(only_a: int, only_b: int) -> None:
    assert weighted_mcnemar([SetPairs(100, only_a, only_b, 2)]) == pytest.approx(mcnemar_exact(only_a, only_b))


def _brute_p(sets: list[SetPairs]) -> float:
    """The exact p by listing every sign of every discordant board (small cases only)."""
    weights = [s.points for s in sets for _ in range(s.only_a + s.only_b)]
    observed = abs(sum(s.points * (s.only_a - s.only_b) for s in sets))
    hits = sum(
        abs(sum(w * sign for w, sign in zip(weights, signs, strict=True))) >= observed - 1e-9
        for signs in itertools.product((1, -1), repeat=len(weights))
    )
    return hits / 2 ** len(weights)


@settings(max_examples=60, deadline=None)
@given(
    sets=st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from([1, 2, 3, 0.5, 1.5])), min_size=1, max_size=3
    )
)
def test_the_weighted_test_is_exact(sets: list[tuple[int, int, float]]) -> None:
    pairs = [SetPairs(20, a, b, p) for a, b, p in sets]
    if sum(a + b for a, b, _ in sets) > 14:
        return
    assert weighted_mcnemar(pairs) == pytest.approx(_brute_p(pairs) if any(a + b for a, b, _ in sets) else 1.0)


def test_points_that_are_no_small_fraction_use_the_normal_approximation() -> None:
    p = weighted_mcnemar([SetPairs(100, 20, 5, math.pi), SetPairs(100, 3, 3, 1)])
    z = (math.pi * 15) / math.sqrt(math.pi**2 * 25 + 6)
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)))


def test_the_comparison_adds_each_sets_paired_interval() -> None:
    one = compare_points([SetPairs(100, 12, 4, 1)])
    d, low, high = paired_difference(12, 4, 100)
    assert (one.diff, one.low, one.high) == pytest.approx((8, 100 * low, 100 * high))
    assert d == pytest.approx(0.08)
    two = compare_points([SetPairs(100, 12, 4, 1), SetPairs(50, 2, 6, 3)])
    assert two.diff == 8 - 12
    assert two.low < two.diff < two.high
    small = [SetPairs(100, 5, 2, 1), SetPairs(50, 1, 4, 3)]
    assert compare_points(small).p_value == pytest.approx(_brute_p(small))
