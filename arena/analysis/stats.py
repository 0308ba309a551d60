"""The statistics of the leaderboard: a win rate's interval and the paired comparison of two players.

Two players that played the *same* seeded boards are compared with paired statistics: boards both
win (or both lose) say nothing about which is better, only the boards exactly one of them won (the
"discordant" boards) do. ``docs/statistics.md`` says how to read each leaderboard column; the
docstrings here say why each method was chosen. The sequential test of ``arena match`` is
``arena/analysis/sequential.py``; the exact binomial test of the benchmarks is scipy's.

Only the standard library and numpy are used: scipy is not a run-time dependency of the arena.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

__all__ = [
    "PairedComparison",
    "compare_paired",
    "compare_paired_counts",
    "mcnemar_exact",
    "paired_difference",
    "wilson_interval",
    "z_for_confidence",
]

# A tail sum stops once the remaining terms are provably below this fraction of what has been summed.
_TAIL_EPSILON = 2.0**-60


def _count(value: int, name: str) -> int:
    """Return ``value`` as a non-negative int; reject floats so that 10.5 games never slips through silently."""
    try:
        result = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer count, got {value!r} ({type(value).__name__})") from None
    if result < 0:
        raise ValueError(f"{name} must be non-negative, got {result}")
    return result


def z_for_confidence(confidence: float = 0.95) -> float:
    """Two-sided critical value ``z`` such that ``P(|Z| <= z) = confidence`` (1.959964 for 95%)."""
    try:
        conf = float(confidence)
    except (TypeError, ValueError):
        raise TypeError(f"confidence must be a real number, got {confidence!r}") from None
    if not 0.0 < conf < 1.0:  # also refuses NaN
        raise ValueError(f"confidence must be strictly between 0 and 1, got {conf}")
    return NormalDist().inv_cdf(0.5 + 0.5 * conf)


def wilson_interval(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a win rate.

    Why Wilson: it inverts the score test, so it has close to nominal coverage even for small ``games`` or win
    rates near 0 or 1, never leaves [0, 1], and never has zero width (0/10 wins still gives an upper bound of
    about 28%), unlike the Wald ``p +/- z*se`` interval. With no games nothing is known: (0.0, 1.0).

    Raises ``ValueError`` if ``wins`` or ``games`` is negative or ``wins > games``.
    """
    wins = _count(wins, "wins")
    games = _count(games, "games")
    if wins > games:
        raise ValueError(f"wins ({wins}) must not exceed games ({games})")
    z = z_for_confidence(confidence)
    if games == 0:
        return 0.0, 1.0
    z2 = z * z
    n = float(games)
    denominator = 2.0 * (n + z2)
    center = (2.0 * wins + z2) / denominator
    spread = z * math.sqrt(4.0 * wins * (games - wins) / n + z2) / denominator
    # At 0 or n wins the bound is exactly 0 or 1 in exact arithmetic; pin it so rounding cannot leak outside.
    low = 0.0 if wins == 0 else max(0.0, center - spread)
    high = 1.0 if wins == games else min(1.0, center + spread)
    return low, high


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Exact McNemar p-value: a two-sided binomial test (p = 0.5) on the discordant boards.

    Why: boards both bots win or both lose carry no information about which bot is better; under "equally
    good", each discordant board is a fair coin flip between A and B, so the p-value is
    ``min(1, 2 P(X <= min(only_a, only_b)))`` for ``X ~ Binomial(only_a + only_b, 1/2)``. With no discordant
    boards there is no evidence either way and the p-value is 1.0. Values below the smallest float are 0.0.
    """
    only_a = _count(only_a, "only_a")
    only_b = _count(only_b, "only_b")
    n = only_a + only_b
    k = min(only_a, only_b)
    if 2 * k >= n - 1:  # the middle outcome(s): the two tails cover everything (also n = 0)
        return 1.0
    # P(X = k) in log space (no overflow for any n), then the tail summed outward from k relative to it with
    # the exact ratio P(j-1) / P(j) = j / (n-j+1) < 1, which shrinks as j falls: the sum needs only the terms
    # within a few standard deviations of k, and stops when a geometric bound on the rest is negligible.
    log_first = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2.0)
    terms, total, term = [1.0], 1.0, 1.0
    for j in range(k, 0, -1):
        ratio = j / (n - j + 1)
        term *= ratio
        if term == 0.0:
            break
        terms.append(term)
        total += term
        if term * ratio / (1.0 - ratio) < _TAIL_EPSILON * total:
            break
    return min(1.0, math.exp(math.log(2.0) + log_first + math.log(math.fsum(terms))))


def _tango_statistic(delta: float, only_a: int, only_b: int, games: int) -> float:
    """Tango's score statistic for ``H: P(A wins) - P(B wins) = delta`` (decreasing in ``delta``).

    ``p21`` is the constrained maximum-likelihood estimate of P(only B wins) under the hypothesis, the
    non-negative root of ``2n x^2 + b x + c = 0`` with the coefficients below (Tango 1998), evaluated with the
    numerically stable form of the quadratic formula.
    """
    n = float(games)
    b_coef = -only_a - only_b + (2.0 * n - only_a + only_b) * delta
    c_coef = -only_b * delta * (1.0 - delta)
    a_coef = 2.0 * n
    root = math.sqrt(max(0.0, b_coef * b_coef - 4.0 * a_coef * c_coef))
    p21 = -2.0 * c_coef / (b_coef + root) if b_coef > 0.0 else (root - b_coef) / (2.0 * a_coef)
    numerator = only_a - only_b - n * delta
    variance = n * (2.0 * p21 + delta * (1.0 - delta))
    if variance <= 0.0:
        return 0.0 if numerator == 0.0 else math.copysign(math.inf, numerator)
    return numerator / math.sqrt(variance)


def _bisect_decreasing(lo: float, hi: float, target: float, only_a: int, only_b: int, games: int) -> float:
    """Root of ``_tango_statistic(delta) = target`` on [lo, hi] by bisection to full double precision."""
    while True:
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            return mid
        if _tango_statistic(mid, only_a, only_b, games) > target:
            lo = mid
        else:
            hi = mid


def paired_difference(only_a: int, only_b: int, games: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """Difference of win rates A - B on the same boards, with a confidence interval: ``(diff, low, high)``.

    ``diff = (only_a - only_b) / games``. The interval is Tango's (1998) asymptotic score interval for the
    difference of paired proportions: the set of differences not rejected by the score test whose nuisance
    parameter (the discordance rate) is profiled out by constrained maximum likelihood.

    Why Tango rather than Wald, Agresti-Min or Newcombe's hybrid score interval:

    * it is a score-test inversion, like Wilson for one proportion, and the reviews of paired-proportion
      intervals (Newcombe 1998; Fagerland, Lydersen & Laake 2014, Stat Med 33:2850) find its coverage close to
      nominal across the parameter space, including small samples and few discordant pairs, while Wald is badly
      liberal there (``benchmarks/studies/stats_paired_coverage.py`` computes the exact coverage of arena-like cases);
    * at ``delta = 0`` its statistic is exactly McNemar's ``(b - c) / sqrt(b + c)``, so the interval excludes 0
      exactly when the (asymptotic) McNemar test rejects - the interval and the test tell the same story (the
      exact McNemar p-value reported next to it is slightly more conservative near the boundary);
    * it depends only on the discordant counts and the number of boards, which is all the information the
      paired design carries; with no discordant boards it still gives a sensible, Wilson-like interval;
    * it always lies in [-1, 1] and contains the point estimate.

    With ``games == 0`` nothing is known: ``(0.0, -1.0, 1.0)``.
    """
    only_a = _count(only_a, "only_a")
    only_b = _count(only_b, "only_b")
    games = _count(games, "games")
    if only_a + only_b > games:
        raise ValueError(f"only_a + only_b ({only_a} + {only_b}) must not exceed games ({games})")
    z = z_for_confidence(confidence)
    if games == 0:
        return 0.0, -1.0, 1.0
    diff = (only_a - only_b) / games
    low = -1.0 if only_b == games else _bisect_decreasing(-1.0, diff, z, only_a, only_b, games)
    high = 1.0 if only_a == games else _bisect_decreasing(diff, 1.0, -z, only_a, only_b, games)
    return diff, max(-1.0, min(low, diff)), min(1.0, max(high, diff))


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """Bot A against bot B on the same boards: the 2x2 table, the difference A - B and the exact McNemar test.

    ``both``/``neither`` count boards both/neither bot won; ``only_a``/``only_b`` are the discordant boards that
    carry all the information. ``diff`` is ``(only_a - only_b) / games`` with Tango's score interval
    ``[diff_low, diff_high]`` at level ``confidence`` (see :func:`paired_difference`); ``p_value`` is
    :func:`mcnemar_exact`.
    """

    games: int
    both: int
    only_a: int
    only_b: int
    neither: int
    diff: float
    diff_low: float
    diff_high: float
    p_value: float
    confidence: float = 0.95


def _as_outcomes(values: Sequence[bool] | np.ndarray, name: str) -> np.ndarray:
    """Convert per-board outcomes to a 1-D bool array, refusing anything but booleans or 0/1 values."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one outcome per board), got shape {array.shape}")
    if array.dtype == np.bool_:
        return array
    if array.size == 0:
        return np.zeros(0, dtype=bool)
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise TypeError(f"{name} must hold booleans or 0/1 values, got dtype {array.dtype}")
    if not np.all((array == 0) | (array == 1)):
        raise ValueError(f"{name} must hold only booleans or 0/1 values")
    return array == 1


def compare_paired(
    wins_a: Sequence[bool] | np.ndarray, wins_b: Sequence[bool] | np.ndarray, confidence: float = 0.95
) -> PairedComparison:
    """Compare two bots from aligned per-board win flags (element i of both arrays is the same seeded board)."""
    a = _as_outcomes(wins_a, "wins_a")
    b = _as_outcomes(wins_b, "wins_b")
    if a.shape != b.shape:
        raise ValueError(
            f"wins_a and wins_b must cover the same boards in the same order, got lengths {a.size} and {b.size}"
        )
    both = int(np.count_nonzero(a & b))
    only_a = int(np.count_nonzero(a & ~b))
    only_b = int(np.count_nonzero(~a & b))
    return compare_paired_counts(a.size, both, only_a, only_b, confidence)


def compare_paired_counts(
    games: int, both: int, only_a: int, only_b: int, confidence: float = 0.95
) -> PairedComparison:
    """``compare_paired`` from the 2x2 table's counts (``games`` boards, ``both`` won by both, ``only_a`` and
    ``only_b`` by one), which is all it reads: for counts kept without the per-board flags."""
    if both + only_a + only_b > games:
        raise ValueError(f"both + only_a + only_b ({both} + {only_a} + {only_b}) must not exceed games ({games})")
    diff, low, high = paired_difference(only_a, only_b, games, confidence)
    return PairedComparison(
        games=games,
        both=both,
        only_a=only_a,
        only_b=only_b,
        neither=games - both - only_a - only_b,
        diff=diff,
        diff_low=low,
        diff_high=high,
        p_value=mcnemar_exact(only_a, only_b),
        confidence=float(confidence),
    )
