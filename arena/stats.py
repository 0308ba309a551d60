"""Statistics for comparing Minesweeper bots: intervals, exact tests, paired comparisons and SPRT.

Why this module exists
----------------------
A leaderboard row such as "39.8% win rate" means little without its uncertainty, and two bots that played the
*same* seeded boards must be compared with paired statistics: boards both bots win (or both lose) say nothing
about which is better, only the boards exactly one of them won ("discordant" boards) do. Ignoring the pairing
throws away most of the information and needs 3-10x more games for the same power.

What is here (see ``/work/shared/REFERENCES.md``, section "Statistics recipe"):

* :func:`wilson_interval`, :func:`half_width`, :func:`games_for_half_width` - one bot's win rate, and how many
  games a tournament needs for a given precision. Wilson is used rather than the Wald ``p +/- z*se`` interval
  because Wald collapses to zero width at 0 or n wins and undercovers for small n.
* :func:`binomial_two_sided_p` / :func:`log_binomial_two_sided_p` - exact binomial test, computed in log space
  with Loader's saddle-point binomial probabilities so that it stays exact for n up to 10^7 and beyond without
  overflow, and can report p-values far below the smallest float (``log_...``).
* :func:`mcnemar_exact` - exact McNemar test (binomial test on the discordant boards).
* :func:`paired_difference` - difference of win rates on the same boards with Tango's asymptotic score interval.
* :class:`PairedComparison`, :func:`compare_paired` - everything above for two aligned per-board win arrays.
* :func:`sprt_discordant` - Wald's sequential probability ratio test on the discordant boards, for stopping a
  match early *with a rule declared before the match starts*.

Only the standard library and numpy are used: scipy is not a runtime dependency of the arena.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

__all__ = [
    "PairedComparison",
    "SprtDecision",
    "SprtResult",
    "binomial_two_sided_p",
    "compare_paired",
    "games_for_half_width",
    "half_width",
    "log_binomial_two_sided_p",
    "mcnemar_exact",
    "normal_quantile",
    "paired_difference",
    "sprt_discordant",
    "wilson_interval",
    "z_for_confidence",
]

SprtDecision = Literal["accept H1", "accept H0", "continue"]

_STANDARD_NORMAL = NormalDist()
_LOG_2PI = math.log(2.0 * math.pi)
_LN_SQRT_2PI = 0.5 * _LOG_2PI
# Relative tolerance used by scipy.stats.binomtest when deciding which outcomes are "as or less likely" than the
# observed one; reproduced so that p-values for p != 0.5 agree with scipy's definition.
_BINOM_RELATIVE_TOLERANCE = 1e-7
# A tail sum stops once the remaining terms are provably below this fraction of what has been summed.
_TAIL_EPSILON = 2.0**-60


# ---------------------------------------------------------------------------------------------------------------
# Input validation
# ---------------------------------------------------------------------------------------------------------------


def _count(value: int, name: str) -> int:
    """Return ``value`` as a non-negative int; reject floats so that 10.5 games never slips through silently."""
    try:
        result = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer count, got {value!r} ({type(value).__name__})") from None
    if result < 0:
        raise ValueError(f"{name} must be non-negative, got {result}")
    return result


def _probability(value: float, name: str, *, open_interval: bool) -> float:
    """Validate a probability; ``open_interval`` excludes 0 and 1 where they would make the maths degenerate."""
    try:
        result = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {value!r}") from None
    if math.isnan(result):
        raise ValueError(f"{name} must not be NaN")
    if open_interval:
        if not 0.0 < result < 1.0:
            raise ValueError(f"{name} must be strictly between 0 and 1, got {result}")
    elif not 0.0 <= result <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1 inclusive, got {result}")
    return result


# ---------------------------------------------------------------------------------------------------------------
# Normal quantiles
# ---------------------------------------------------------------------------------------------------------------


def normal_quantile(probability: float) -> float:
    """Inverse CDF of the standard normal distribution.

    Uses :meth:`statistics.NormalDist.inv_cdf` (Wichura's AS241 algorithm, accurate to about 1e-16), so the arena
    needs no scipy at run time.
    """
    prob = _probability(probability, "probability", open_interval=True)
    return _STANDARD_NORMAL.inv_cdf(prob)


def z_for_confidence(confidence: float = 0.95) -> float:
    """Two-sided critical value ``z`` such that ``P(|Z| <= z) = confidence`` (1.959964 for 95%)."""
    conf = _probability(confidence, "confidence", open_interval=True)
    return _STANDARD_NORMAL.inv_cdf(0.5 + 0.5 * conf)


# ---------------------------------------------------------------------------------------------------------------
# One win rate: Wilson score interval and tournament planning
# ---------------------------------------------------------------------------------------------------------------


def wilson_interval(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a win rate.

    Why Wilson: it inverts the score test, so it has close to nominal coverage even for small ``games`` or win
    rates near 0 or 1, never leaves [0, 1], and never has zero width (0/10 wins still gives an upper bound of
    about 28%). With no games nothing is known, so the interval is the whole range (0.0, 1.0).

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


def half_width(wins: int, games: int, confidence: float = 0.95) -> float:
    """Half the width of the Wilson interval: the "+/- x points" to print next to a win rate."""
    low, high = wilson_interval(wins, games, confidence)
    return 0.5 * (high - low)


def _expected_half_width(p: float, games: int, z: float) -> float:
    """Wilson half-width when the observed win rate is exactly ``p`` (wins may be fractional here)."""
    n = float(games)
    return z * math.sqrt(n * p * (1.0 - p) + 0.25 * z * z) / (n + z * z)


def games_for_half_width(p: float, half_width: float, confidence: float = 0.95) -> int:
    """Smallest number of games whose Wilson interval half-width is at most ``half_width`` at win rate ``p``.

    Used to plan tournaments before running them: e.g. at p = 0.38 a +/-1 point interval needs about 9.1k
    games and +/-0.3 points about 100k. The Wilson half-width at win rate ``p`` is strictly decreasing in the
    number of games, so the answer comes from solving the quadratic in closed form and then checking the
    neighbouring integers. Zero games already give (0, 1), a half-width of 0.5, so ``half_width >= 0.5`` returns 0.
    """
    p = _probability(p, "p", open_interval=False)
    try:
        target = float(half_width)
    except (TypeError, ValueError):
        raise TypeError(f"half_width must be a real number, got {half_width!r}") from None
    if not target > 0.0 or math.isinf(target):
        raise ValueError(f"half_width must be a positive finite number, got {half_width!r}")
    z = z_for_confidence(confidence)
    if target >= 0.5:
        return 0
    pq = p * (1.0 - p)
    w2 = target * target
    # Solve w^2 (n + z^2)^2 = z^2 (n p q + z^2 / 4) for n (the larger root).
    root = z * z * (pq - 2.0 * w2 + math.sqrt(pq * pq + w2 * (1.0 - 4.0 * pq))) / (2.0 * w2)
    games = max(0, math.ceil(root))
    while games > 0 and _expected_half_width(p, games - 1, z) <= target:
        games -= 1
    while _expected_half_width(p, games, z) > target:
        games += 1
    return games


# ---------------------------------------------------------------------------------------------------------------
# Exact binomial test, in log space
# ---------------------------------------------------------------------------------------------------------------

_STIRLERR_SERIES = (1.0 / 12.0, 1.0 / 360.0, 1.0 / 1260.0, 1.0 / 1680.0, 1.0 / 1188.0)


def _stirlerr(n: int) -> float:
    """``log(n!) - log(sqrt(2 pi n) (n/e)^n)``, the error of Stirling's formula (Loader 2000)."""
    if n <= 15:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - _LN_SQRT_2PI
    s0, s1, s2, s3, s4 = _STIRLERR_SERIES
    nn = float(n) * n
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _bd0(x: float, mean: float) -> float:
    """Deviance term ``x log(x / mean) + mean - x``, with a series near ``x == mean`` to avoid cancellation."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        s = (x - mean) * v
        ej = 2.0 * x * v
        v2 = v * v
        for j in range(1, 1000):
            ej *= v2
            s_next = s + ej / (2 * j + 1)
            if s_next == s:
                return s_next
            s = s_next
    return x * math.log(x / mean) + mean - x


def _log_pmf(k: int, n: int, p: float) -> float:
    """Log of the binomial probability ``P(X = k)`` for ``0 < p < 1``, by Loader's saddle-point formula.

    Why not ``lgamma``: ``lgamma(10**7)`` is about 1.5e8, so its rounding error alone is ~3e-8 in the log, i.e.
    a relative error of ~3e-8 in the probability. Loader's formula keeps the error near machine precision.
    """
    q = 1.0 - p
    if k == 0:
        return n * math.log1p(-p)
    if k == n:
        return n * math.log(p)
    lc = _stirlerr(n) - _stirlerr(k) - _stirlerr(n - k) - _bd0(float(k), n * p) - _bd0(float(n - k), n * q)
    lf = _LOG_2PI + math.log(k) + math.log1p(-k / n)
    return lc - 0.5 * lf


def _log_add(a: float, b: float) -> float:
    """``log(exp(a) + exp(b))`` without overflow or underflow."""
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    high, low = (a, b) if a >= b else (b, a)
    return high + math.log1p(math.exp(low - high))


def _log_tail(start: int, n: int, p: float, direction: int) -> float:
    """Log of ``sum P(X = j)`` for j from ``start`` outward (``direction`` -1: down to 0, +1: up to n).

    The caller guarantees that the probabilities never increase moving outward from ``start`` (``start`` is on
    the far side of the mode), so the sum is dominated by its first term. Terms are generated relative to the
    first one with the exact ratio ``P(j-1)/P(j) = j q / ((n-j+1) p)`` and summed with :func:`math.fsum`; the
    loop stops once the geometric bound on everything left is below 2^-60 of the total. This needs only about
    ``9 sqrt(n p q)`` terms in the worst case (~14k for n = 10^7), never all n.
    """
    q = 1.0 - p
    log_first = _log_pmf(start, n, p)
    terms = [1.0]
    total = 1.0
    term = 1.0
    j = start
    while (direction < 0 and j > 0) or (direction > 0 and j < n):
        ratio = j * q / ((n - j + 1) * p) if direction < 0 else (n - j) * p / ((j + 1) * q)
        term *= ratio
        j += direction
        if term == 0.0:
            break
        terms.append(term)
        total += term
        if ratio < 1.0 and term * ratio / (1.0 - ratio) < _TAIL_EPSILON * total:
            break
    return log_first + math.log(math.fsum(terms))


def _validate_binomial(k: int, n: int, p: float) -> tuple[int, int, float]:
    k = _count(k, "k")
    n = _count(n, "n")
    if k > n:
        raise ValueError(f"k ({k}) must not exceed n ({n})")
    return k, n, _probability(p, "p", open_interval=False)


def log_binomial_two_sided_p(k: int, n: int, p: float = 0.5) -> float:
    """Natural log of the exact two-sided binomial test p-value (see :func:`binomial_two_sided_p`).

    Why a log version: with 10^6 games a real difference gives p-values like 1e-2000, which underflow to 0.0 as
    a float; the log still ranks and reports them (``log10 p = result / ln 10``).
    """
    k, n, p = _validate_binomial(k, n, p)
    if n == 0:
        return 0.0
    if p == 0.0:
        return 0.0 if k == 0 else -math.inf
    if p == 1.0:
        return 0.0 if k == n else -math.inf
    if p == 0.5:
        # Symmetric case: p = min(1, 2 P(X <= min(k, n - k))), with no tolerance needed.
        m = min(k, n - k)
        if 2 * m >= n - 1:
            # m is the middle outcome (n even) or one of the two middle outcomes (n odd): the tails cover all.
            return 0.0
        return min(0.0, math.log(2.0) + _log_tail(m, n, 0.5, -1))
    mean = n * p
    if k == mean:
        return 0.0
    threshold = _log_pmf(k, n, p) + math.log1p(_BINOM_RELATIVE_TOLERANCE)
    if k < mean:
        # Other tail: every i >= ceil(np) (where the pmf is non-increasing) with P(i) <= P(k) (1 + 1e-7).
        lo, hi = math.ceil(mean), n
        if _log_pmf(hi, n, p) > threshold:
            other = -math.inf
        else:
            while lo < hi:
                mid = (lo + hi) // 2
                if _log_pmf(mid, n, p) <= threshold:
                    hi = mid
                else:
                    lo = mid + 1
            other = _log_tail(lo, n, p, +1)
        own = _log_tail(k, n, p, -1)
    else:
        # Other tail: every i <= floor(np) (where the pmf is non-decreasing) with P(i) <= P(k) (1 + 1e-7).
        lo, hi = 0, math.floor(mean)
        if _log_pmf(lo, n, p) > threshold:
            other = -math.inf
        else:
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if _log_pmf(mid, n, p) <= threshold:
                    lo = mid
                else:
                    hi = mid - 1
            other = _log_tail(lo, n, p, -1)
        own = _log_tail(k, n, p, +1)
    return min(0.0, _log_add(own, other))


def binomial_two_sided_p(k: int, n: int, p: float = 0.5) -> float:
    """Exact two-sided binomial test p-value for ``k`` successes in ``n`` trials with success probability ``p``.

    For ``p = 0.5`` this is ``min(1, 2 P(X <= min(k, n - k)))``. For other ``p`` it is the sum of the
    probabilities of all outcomes no more likely than the observed one (with scipy's relative tolerance of
    1e-7), the definition used by ``scipy.stats.binomtest``. The computation is done in log space with Loader's
    accurate binomial probabilities and a truncated tail sum, so it is exact to about 1e-12 relative, fast, and
    neither overflows nor errors for n up to 10^7 and beyond; results below ~1e-308 underflow to 0.0 (use
    :func:`log_binomial_two_sided_p` to see them).
    """
    return math.exp(log_binomial_two_sided_p(k, n, p))


# ---------------------------------------------------------------------------------------------------------------
# Paired comparison of two bots on the same boards
# ---------------------------------------------------------------------------------------------------------------


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Exact McNemar p-value: a two-sided binomial test (p = 0.5) on the discordant boards.

    Why: boards both bots win or both lose carry no information about which bot is better; under "equally
    good", each discordant board is a fair coin flip between A and B. With no discordant boards there is no
    evidence either way and the p-value is 1.0.
    """
    only_a = _count(only_a, "only_a")
    only_b = _count(only_b, "only_b")
    discordant = only_a + only_b
    if discordant == 0:
        return 1.0
    return binomial_two_sided_p(only_a, discordant, 0.5)


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
      liberal there. ``benchmarks/studies/stats_paired_coverage.py`` computes exact coverage for 50 arena-like scenarios
      (20-1000 boards, discordance 5-30%, differences 0-10 points): Tango never falls below 93.9% (mean 96.0%,
      conservative only when a handful of discordant boards is expected, within 0.2 points of 95% from 300
      boards on), whereas Wald drops to 64% with few discordant boards and Agresti-Min is more conservative;
    * at ``delta = 0`` its statistic is exactly McNemar's ``(b - c) / sqrt(b + c)``, so the interval excludes 0
      exactly when the (asymptotic) McNemar test rejects - the interval and the test tell the same story (the
      exact McNemar p-value reported next to it is slightly more conservative near the boundary);
    * it depends only on the discordant counts and the number of boards, which is all the information the
      paired design carries (Newcombe's method also needs the concordant split and uses it only through a
      correlation correction); with no discordant boards it still gives a sensible, Wilson-like interval;
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
    :func:`mcnemar_exact`. Build it with :func:`compare_paired` (per-board win flags) or :meth:`from_counts`.
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

    @classmethod
    def from_counts(
        cls, both: int, only_a: int, only_b: int, neither: int, confidence: float = 0.95
    ) -> PairedComparison:
        """Build the comparison from the four cells of the paired 2x2 table."""
        both = _count(both, "both")
        only_a = _count(only_a, "only_a")
        only_b = _count(only_b, "only_b")
        neither = _count(neither, "neither")
        games = both + only_a + only_b + neither
        diff, low, high = paired_difference(only_a, only_b, games, confidence)
        return cls(
            games=games,
            both=both,
            only_a=only_a,
            only_b=only_b,
            neither=neither,
            diff=diff,
            diff_low=low,
            diff_high=high,
            p_value=mcnemar_exact(only_a, only_b),
            confidence=float(confidence),
        )

    @classmethod
    def from_wins(
        cls, wins_a: Sequence[bool] | np.ndarray, wins_b: Sequence[bool] | np.ndarray, confidence: float = 0.95
    ) -> PairedComparison:
        """Build the comparison from aligned per-board outcomes (same boards, same order), as `compare_paired`."""
        a = _as_outcomes(wins_a, "wins_a")
        b = _as_outcomes(wins_b, "wins_b")
        if a.shape != b.shape:
            raise ValueError(
                f"wins_a and wins_b must cover the same boards in the same order, got lengths {a.size} and {b.size}"
            )
        both = int(np.count_nonzero(a & b))
        only_a = int(np.count_nonzero(a & ~b))
        only_b = int(np.count_nonzero(~a & b))
        neither = a.size - both - only_a - only_b
        return cls.from_counts(both, only_a, only_b, neither, confidence)

    @property
    def win_rate_a(self) -> float:
        """Bot A's win rate on these boards (0.0 when there are none)."""
        return (self.both + self.only_a) / self.games if self.games else 0.0

    @property
    def win_rate_b(self) -> float:
        """Bot B's win rate on these boards (0.0 when there are none)."""
        return (self.both + self.only_b) / self.games if self.games else 0.0

    @property
    def discordant(self) -> int:
        """Boards exactly one bot won: the only ones that carry information about which bot is better."""
        return self.only_a + self.only_b


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
    return PairedComparison.from_wins(wins_a, wins_b, confidence)


# ---------------------------------------------------------------------------------------------------------------
# Sequential testing
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SprtResult:
    """State of an SPRT on discordant boards: the log-likelihood ratio, Wald's bounds and the decision."""

    only_a: int
    only_b: int
    p0: float
    p1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float
    decision: SprtDecision


def sprt_discordant(
    only_a: int,
    only_b: int,
    p0: float = 0.5,
    p1: float = 0.55,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SprtResult:
    """Wald's sequential probability ratio test on the discordant boards.

    On a discordant board A is the winner with probability ``s``; H0 is ``s = p0`` (by default: equally good),
    H1 is ``s = p1``. After each board (or batch) the log-likelihood ratio
    ``only_a log(p1/p0) + only_b log((1-p1)/(1-p0))`` is compared with Wald's bounds ``log((1-beta)/alpha)``
    (+2.944 for alpha = beta = 0.05: accept H1) and ``log(beta/(1-alpha))`` (-2.944: accept H0); in between,
    play on. The test controls both error rates (approximately ``alpha`` and ``beta``) however long it runs.

    The stopping rule must be declared before the match starts - ``p0``, ``p1``, ``alpha`` and ``beta`` fixed in
    advance and the match stopped only when this function says so. Stopping when a p-value from
    :func:`mcnemar_exact` happens to cross 0.05, or changing ``p1`` after looking, inflates the false-positive
    rate far beyond ``alpha``.

    Choosing ``p1``: if a win-rate difference ``d`` matters and a fraction ``r`` of boards are discordant, then
    ``p1 = 0.5 + d / (2 r)``; the default 0.55 is 1 point of win rate at 10% discordance (e.g. 38% vs 39%).
    """
    only_a = _count(only_a, "only_a")
    only_b = _count(only_b, "only_b")
    p0 = _probability(p0, "p0", open_interval=True)
    p1 = _probability(p1, "p1", open_interval=True)
    alpha = _probability(alpha, "alpha", open_interval=True)
    beta = _probability(beta, "beta", open_interval=True)
    if p0 == p1:
        raise ValueError(f"p0 and p1 must differ, got {p0} for both")
    if alpha + beta >= 1.0:
        raise ValueError(f"alpha + beta must be below 1, got {alpha} + {beta}")
    llr = only_a * math.log(p1 / p0) + only_b * math.log((1.0 - p1) / (1.0 - p0))
    upper = math.log((1.0 - beta) / alpha)
    lower = math.log(beta / (1.0 - alpha))
    decision: SprtDecision
    if llr >= upper:
        decision = "accept H1"
    elif llr <= lower:
        decision = "accept H0"
    else:
        decision = "continue"
    return SprtResult(
        only_a=only_a,
        only_b=only_b,
        p0=p0,
        p1=p1,
        alpha=alpha,
        beta=beta,
        llr=llr,
        lower=lower,
        upper=upper,
        decision=decision,
    )
