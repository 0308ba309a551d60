"""Tests for arena.analysis.stats against published, hand-computed, exact-integer and (where installed) scipy values."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.analysis.stats import compare_paired, mcnemar_exact, paired_difference, wilson_interval, z_for_confidence

Z95 = 1.959963984540054  # published two-sided 95% critical value of the standard normal
FAST = settings(max_examples=60, deadline=None)


@st.composite
def wins_and_games(draw: st.DrawFn, max_games: int = 10_000) -> tuple[int, int]:
    games = draw(st.integers(min_value=0, max_value=max_games))
    wins = draw(st.integers(min_value=0, max_value=games))
    return wins, games


@st.composite
def paired_tables(draw: st.DrawFn, max_games: int = 2_000) -> tuple[int, int, int]:
    games = draw(st.integers(min_value=1, max_value=max_games))
    only_a = draw(st.integers(min_value=0, max_value=games))
    only_b = draw(st.integers(min_value=0, max_value=games - only_a))
    return only_a, only_b, games


# ----------------------------------------------------------------------------------------------------------------
# Critical values
# ----------------------------------------------------------------------------------------------------------------


def test_critical_values_match_published_values() -> None:
    assert z_for_confidence(0.95) == pytest.approx(Z95, rel=1e-14)
    assert z_for_confidence(0.90) == pytest.approx(1.6448536269514722, rel=1e-14)
    assert z_for_confidence(0.99) == pytest.approx(2.5758293035489004, rel=1e-14)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_confidence_must_lie_strictly_between_0_and_1(bad: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        z_for_confidence(bad)


# ----------------------------------------------------------------------------------------------------------------
# Wilson interval
# ----------------------------------------------------------------------------------------------------------------


def test_wilson_small_samples_match_hand_values() -> None:
    z2 = Z95 * Z95
    # 0/10: lower bound is 0 and upper is z^2 / (n + z^2); 10/10 is its mirror image.
    assert wilson_interval(0, 10) == (0.0, pytest.approx(z2 / (10 + z2), rel=1e-13))
    assert wilson_interval(10, 10) == (pytest.approx(10 / (10 + z2), rel=1e-13), 1.0)
    # 5/10: symmetric about 0.5 with half-width z sqrt(n/4 + z^2/4) / (n + z^2).
    spread = Z95 * math.sqrt(2.5 + z2 / 4) / (10 + z2)
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.5 - spread, rel=1e-13)
    assert high == pytest.approx(0.5 + spread, rel=1e-13)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert round(wilson_interval(0, 10)[1], 4) == 0.2775


@pytest.mark.slow
@pytest.mark.parametrize(("wins", "games"), [(0, 10), (10, 10), (5, 10), (1, 3), (380, 1000), (41, 100), (7, 1234)])
def test_wilson_matches_scipy(wins: int, games: int) -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    for confidence in (0.9, 0.95, 0.99):
        ref = scipy_stats.binomtest(wins, games).proportion_ci(confidence_level=confidence, method="wilson")
        low, high = wilson_interval(wins, games, confidence)
        assert low == pytest.approx(float(ref.low), rel=1e-12, abs=1e-15)
        assert high == pytest.approx(float(ref.high), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("games", "points"),
    # REFERENCES.md, "Statistics recipe": half-width at p ~ 0.38.
    [(1_000, 3.0), (10_000, 0.95), (100_000, 0.30), (1_000_000, 0.095)],
)
def test_wilson_half_width_at_38_percent_matches_reference(games: int, points: float) -> None:
    low, high = wilson_interval(round(0.38 * games), games)  # docs/statistics.md quotes these widths
    assert 100 * (high - low) / 2 == pytest.approx(points, rel=0.01)


def test_wilson_with_no_games_is_the_whole_range() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("wins", "games", "error"),
    [(11, 10, ValueError), (-1, 10, ValueError), (0, -1, ValueError), (1.5, 10, TypeError), (1, 10.0, TypeError)],
)
def test_wilson_rejects_bad_counts(wins: object, games: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        wilson_interval(wins, games)  # type: ignore[arg-type]


def test_wilson_error_message_is_clear() -> None:
    with pytest.raises(ValueError, match=r"wins \(11\) must not exceed games \(10\)"):
        wilson_interval(11, 10)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 10, confidence=1.0)


@FAST
@given(wins_and_games(), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_wilson_contains_estimate_and_stays_in_unit_interval(case: tuple[int, int], confidence: float) -> None:
    wins, games = case
    low, high = wilson_interval(wins, games, confidence)
    assert 0.0 <= low <= high <= 1.0
    if games:
        assert low <= wins / games <= high
        assert high - low > 0.0


@FAST
@given(wins_and_games(max_games=5_000))
def test_wilson_is_monotone_in_wins(case: tuple[int, int]) -> None:
    wins, games = case
    if wins == games:
        return
    low, high = wilson_interval(wins, games)
    next_low, next_high = wilson_interval(wins + 1, games)
    assert next_low > low
    assert next_high > high


# ----------------------------------------------------------------------------------------------------------------
# McNemar
# ----------------------------------------------------------------------------------------------------------------


def test_mcnemar_exact_values() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 0) == pytest.approx(0.0625, rel=1e-14)
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625, rel=1e-14)
    assert mcnemar_exact(1, 9) == pytest.approx(0.021484375, rel=1e-14)
    assert mcnemar_exact(2, 8) == pytest.approx(0.109375, rel=1e-14)
    assert mcnemar_exact(7, 7) == 1.0
    assert mcnemar_exact(1, 0) == mcnemar_exact(1, 2) == 1.0
    # Armitage & Berry culture-media example (12 vs 2 discordant specimens): exact two-sided P = 0.0129.
    assert mcnemar_exact(12, 2) == pytest.approx(0.0129, abs=5e-5)
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)
    with pytest.raises(TypeError):
        mcnemar_exact(1.0, 3)  # type: ignore[arg-type]


def _exact_p_half(k: int, n: int) -> float:
    """min(1, 2 P(X <= min(k, n-k))) for p = 1/2 in exact integer arithmetic."""
    m = min(k, n - k)
    tail = sum(math.comb(n, j) for j in range(m + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


@pytest.mark.parametrize("n", [2, 3, 7, 20, 51, 100, 333, 1000, 2001])
def test_mcnemar_matches_exact_integer_arithmetic(n: int) -> None:
    for k in sorted({0, 1, n // 3, n // 2 - 1 if n > 2 else 0, n // 2, n - 1, n}):
        assert mcnemar_exact(k, n - k) == pytest.approx(_exact_p_half(k, n), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize(
    ("only_a", "only_b"), [(495_000, 505_000), (497_000, 503_000), (49_000, 51_000), (4_990, 5_010), (4_600, 5_400)]
)
def test_mcnemar_matches_scipy_for_large_counts(only_a: int, only_b: int) -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    expected = scipy_stats.binomtest(only_a, only_a + only_b).pvalue
    assert mcnemar_exact(only_a, only_b) == pytest.approx(expected, rel=1e-8)


def test_mcnemar_beyond_float_range_is_zero_and_fast() -> None:
    assert mcnemar_exact(0, 1_000_000) == 0.0
    assert mcnemar_exact(4_600_000, 5_400_000) == 0.0  # log p is about -32000: no overflow, no error


@FAST
@given(st.integers(min_value=0, max_value=5_000), st.data())
def test_mcnemar_is_symmetric_and_a_probability(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(min_value=0, max_value=n))
    p_value = mcnemar_exact(k, n - k)
    assert 0.0 <= p_value <= 1.0
    assert p_value == mcnemar_exact(n - k, k)


# ----------------------------------------------------------------------------------------------------------------
# Paired difference (Tango's score interval)
# ----------------------------------------------------------------------------------------------------------------


def _reference_tango_statistic(delta: float, b: int, c: int, n: int) -> float:
    """Tango's score statistic with the nuisance parameter maximised numerically by scipy (independent check)."""
    optimize = pytest.importorskip("scipy.optimize")
    lo, hi = max(0.0, -delta), min(1.0, (1.0 - delta) / 2.0)  # p21 range keeping p12 = p21 + delta feasible

    def negative_log_likelihood(p21: float) -> float:
        p12 = p21 + delta
        rest = 1.0 - p12 - p21
        terms = [(b, p12), (c, p21), (n - b - c, rest)]
        return -sum(count * math.log(max(prob, 1e-300)) for count, prob in terms if count)

    p21 = optimize.minimize_scalar(
        negative_log_likelihood, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
    ).x
    return (b - c - n * delta) / math.sqrt(n * (2 * p21 + delta * (1 - delta)))


@pytest.mark.parametrize(("b", "c", "n"), [(40, 20, 160), (1, 7, 21), (6, 16, 161), (3, 2, 5), (55, 45, 1_000)])
def test_paired_interval_bounds_are_where_the_score_test_is_borderline(b: int, c: int, n: int) -> None:
    diff, low, high = paired_difference(b, c, n)
    assert diff == (b - c) / n
    assert _reference_tango_statistic(low, b, c, n) == pytest.approx(Z95, abs=2e-4)
    assert _reference_tango_statistic(high, b, c, n) == pytest.approx(-Z95, abs=2e-4)


def test_paired_interval_without_discordant_boards_is_wilson_like() -> None:
    # With only_a = only_b = 0 the bounds solve n d / (1 - d) = z^2, i.e. +/- z^2 / (n + z^2).
    for n in (1, 10, 1_000):
        diff, low, high = paired_difference(0, 0, n)
        bound = Z95 * Z95 / (n + Z95 * Z95)
        assert diff == 0.0
        assert low == pytest.approx(-bound, rel=1e-12)
        assert high == pytest.approx(bound, rel=1e-12)


def test_paired_interval_extremes_and_signs() -> None:
    assert paired_difference(0, 0, 0) == (0.0, -1.0, 1.0)
    diff, low, high = paired_difference(5, 0, 5)
    assert (diff, high) == (1.0, 1.0)
    assert 0.0 < low < 1.0
    diff, low, high = paired_difference(0, 5, 5)
    assert (diff, low) == (-1.0, -1.0)
    assert -1.0 < high < 0.0
    diff, low, high = paired_difference(120, 60, 1_000)
    assert diff == pytest.approx(0.06) and 0.0 < low < diff < high
    diff, low, high = paired_difference(60, 120, 1_000)
    assert diff == pytest.approx(-0.06) and low < diff < high < 0.0


@FAST
@given(paired_tables(), st.sampled_from([0.9, 0.95, 0.99]))
def test_paired_interval_contains_estimate_within_range(table: tuple[int, int, int], confidence: float) -> None:
    only_a, only_b, games = table
    diff, low, high = paired_difference(only_a, only_b, games, confidence)
    assert -1.0 <= low <= diff <= high <= 1.0
    assert high > low
    mirrored = paired_difference(only_b, only_a, games, confidence)
    assert mirrored[0] == -diff
    assert mirrored[1] == pytest.approx(-high, abs=1e-12)
    assert mirrored[2] == pytest.approx(-low, abs=1e-12)


@FAST
@given(paired_tables())
def test_paired_interval_excludes_zero_exactly_when_asymptotic_mcnemar_rejects(table: tuple[int, int, int]) -> None:
    only_a, only_b, games = table
    discordant = only_a + only_b
    mcnemar_z = abs(only_a - only_b) / math.sqrt(discordant) if discordant else 0.0
    if abs(mcnemar_z - Z95) < 1e-9:
        return  # exactly on the boundary: either answer is right
    _, low, high = paired_difference(only_a, only_b, games)
    assert (not low <= 0.0 <= high) == (mcnemar_z > Z95)


def test_paired_interval_has_roughly_nominal_coverage() -> None:
    rng = np.random.default_rng(12345)
    # (games, P(both), P(only A), P(only B)): win rates 0.35-0.85, discordance 6-20%.
    scenarios = [(300, 0.30, 0.07, 0.05), (1_000, 0.33, 0.03, 0.03), (200, 0.75, 0.10, 0.06), (60, 0.5, 0.05, 0.05)]
    for games, p_both, p_a, p_b in scenarios:
        tables = rng.multinomial(games, [p_both, p_a, p_b, 1 - p_both - p_a - p_b], size=600)
        truth = p_a - p_b
        hits = 0
        for _, only_a, only_b, _ in tables:
            _, low, high = paired_difference(int(only_a), int(only_b), games)
            hits += low <= truth <= high
        assert 0.92 <= hits / len(tables) <= 0.985, (games, p_a, p_b, hits / len(tables))


@pytest.mark.parametrize(
    ("args", "error"),
    [((6, 5, 10), ValueError), ((-1, 0, 10), ValueError), ((0, 0, -1), ValueError), ((0.5, 0, 10), TypeError)],
)
def test_paired_difference_validation(args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        paired_difference(*args)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------------------------------
# compare_paired
# ----------------------------------------------------------------------------------------------------------------


def test_compare_paired_counts_the_table() -> None:
    wins_a = [True, True, False, False, True, True, False, True]
    wins_b = [True, False, True, False, False, True, False, False]
    result = compare_paired(wins_a, wins_b)
    assert (result.games, result.both, result.only_a, result.only_b, result.neither) == (8, 2, 3, 1, 2)
    assert result.diff == pytest.approx(2 / 8)
    assert result.diff_low <= result.diff <= result.diff_high
    assert result.p_value == pytest.approx(mcnemar_exact(3, 1))
    assert result.p_value == pytest.approx(0.625)
    assert result.diff == pytest.approx(5 / 8 - 3 / 8)  # the difference of the two win rates
    assert (result.diff, result.diff_low, result.diff_high) == paired_difference(3, 1, 8)
    assert compare_paired(np.array(wins_a, dtype=np.int64), np.array(wins_b, dtype=float)) == result
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.diff = 0.0  # type: ignore[misc]


def test_compare_paired_on_simulated_boards() -> None:
    rng = np.random.default_rng(7)
    difficulty = rng.random(20_000)
    wins_a = difficulty < 0.40  # A wins every board B wins, plus 2% more
    wins_b = difficulty < 0.38
    result = compare_paired(wins_a, wins_b)
    assert result.only_b == 0
    assert result.both + result.only_a == int(wins_a.sum())
    assert result.diff == pytest.approx(result.only_a / 20_000)
    assert 0.0 < result.diff_low < result.diff < result.diff_high
    assert result.p_value < 1e-100


def test_compare_paired_empty_and_validation() -> None:
    empty = compare_paired([], [])
    assert (empty.games, empty.diff, empty.diff_low, empty.diff_high, empty.p_value) == (0, 0.0, -1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="same boards"):
        compare_paired([True, False], [True])
    with pytest.raises(ValueError, match="one-dimensional"):
        compare_paired(np.ones((2, 2), dtype=bool), np.ones((2, 2), dtype=bool))
    with pytest.raises(ValueError, match="0/1"):
        compare_paired([0, 2], [1, 0])
    with pytest.raises(TypeError):
        compare_paired(["yes", "no"], ["no", "yes"])
