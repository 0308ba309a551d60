"""A sequential test for "is A better than B?": stop a paired match as soon as the answer is known.

Two stopping rules on paired trinomial outcomes (only A won, a tie, only B won), looked at together after each
batch, that ``arena match`` runs:

- the GSPRT of "A better by ``delta``" against "A no better": the rule that decides a difference near ``delta``
  with the fewest boards, and the one whose error rates ``alpha`` and ``beta`` are;
- a large-effect rule: an anytime-valid confidence sequence for the difference (a normal mixture, Robbins;
  Howard et al. 2021) at a tenth of ``alpha`` and of ``beta``, which says "better" once it lies above 0 and
  "not better" once it lies below ``delta``. Against a one-point ``delta`` the GSPRT's ratio grows only as fast
  as one point allows, so a change fifteen points better or worse would take as many boards as a one-point
  change; this rule decides it after a batch or two.

The union of the two rules errs at most ``alpha + alpha / 10`` (and ``beta + beta / 10``) by its construction;
measured, within ``alpha`` and ``beta`` (``benchmarks/sprt_error_rates.py``, docs/statistics.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = [
    "EFFECT_SHARE",
    "SprtState",
    "Verdict",
    "decide",
    "effect_bounds",
    "gsprt",
    "log_likelihood_ratio",
    "wald_bounds",
]

#: ``better``: A better (by ``delta``, or by a large effect); ``not_better``: A no better (or worse);
#: ``continue``: neither yet.
Verdict = Literal["better", "not_better", "continue"]
#: The large-effect rule's share of each error rate.
EFFECT_SHARE = 0.1
#: The normal mixture's prior variance, in boards' worth of variance: its confidence sequence is tightest about
#: where this much variance has accumulated (a few hundred boards at a usual split), where a large effect shows.
_MIXTURE_RHO = 25.0

#: Added to each outcome's count before the maximum-likelihood fit: keeps an outcome never seen yet
#: (no split board after the first batch) from forcing an infinite log-likelihood ratio.
_PSEUDO_COUNT = 1e-3
_OUTCOMES = np.array([-1.0, 0.0, 1.0])


@dataclass(frozen=True, slots=True)
class SprtState:
    """The test after some boards: the counts, the log-likelihood ratio, its bounds and the verdict."""

    only_a: int
    only_b: int
    boards: int
    delta: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float
    verdict: Verdict
    #: The large-effect rule's anytime-valid interval for the difference (fractions), and which rule decided
    #: (``sprt``, ``effect``; "" while undecided).
    effect_low: float = -1.0
    effect_high: float = 1.0
    rule: str = ""

    @property
    def difference(self) -> float:
        """The observed difference of win rates, A minus B, as a fraction."""
        return (self.only_a - self.only_b) / self.boards if self.boards else 0.0


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the log-likelihood ratio: below the first accept H0, above the second H1."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _constrained_mle(freqs: np.ndarray, mean: float) -> np.ndarray:
    """For each row of ``freqs`` (frequencies of -1, 0, +1), the trinomial closest to it in likelihood
    whose mean is ``mean``.

    The Lagrange conditions give ``p_i = f_i / (1 + lam (x_i - mean))``; ``lam`` is the root of
    ``sum f_i (x_i - mean) / (1 + lam (x_i - mean))``, which decreases in ``lam`` on the interval where
    every ``p_i`` is positive, so bisection finds it (rows at once: the benchmark tests thousands of
    simulated matches together)."""
    shifts = _OUTCOMES - mean
    lo = np.full(freqs.shape[0], -1.0 / shifts.max())  # 1 + lam * shift > 0 at both ends
    hi = np.full(freqs.shape[0], -1.0 / shifts.min())
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        positive = (freqs * shifts / (1.0 + mid[:, None] * shifts)).sum(axis=1) > 0.0
        lo = np.where(positive, mid, lo)
        hi = np.where(positive, hi, mid)
    probs = freqs / (1.0 + (0.5 * (lo + hi))[:, None] * shifts)
    return probs / probs.sum(axis=1, keepdims=True)


def log_likelihood_ratio(only_a: np.ndarray, only_b: np.ndarray, boards: np.ndarray, delta: float) -> np.ndarray:
    """The GSPRT's log-likelihood ratio of H1 (``delta``) over H0 (0), for arrays of counts."""
    observed = np.stack([only_b, boards - only_a - only_b, only_a], axis=1).astype(float)
    counts = observed + _PSEUDO_COUNT
    freqs = counts / counts.sum(axis=1, keepdims=True)
    p0 = _constrained_mle(freqs, 0.0)
    p1 = _constrained_mle(freqs, delta)
    return np.where(observed > 0, observed * np.log(p1 / p0), 0.0).sum(axis=1)


def effect_bounds(
    only_a: np.ndarray, only_b: np.ndarray, boards: np.ndarray, alpha: float, beta: float
) -> tuple[np.ndarray, np.ndarray]:
    """The large-effect rule's interval for the difference, valid at every look at once: below the first with
    chance at most ``EFFECT_SHARE * alpha``, above the second at most ``EFFECT_SHARE * beta``.

    The one-sided normal-mixture boundary for a sum of bounded differences: ``sqrt(2 (V + rho) log(sqrt((V +
    rho) / rho) / a))`` with ``V`` the variance seen so far (boards times the per-board variance, estimated from
    the splits)."""
    n = np.maximum(boards.astype(float), 1.0)
    diff = (only_a - only_b) / n
    variance = n * np.maximum((only_a + only_b) / n - diff**2, 0.0) + _MIXTURE_RHO
    spread = np.log(np.sqrt(variance / _MIXTURE_RHO))

    def width(error: float) -> np.ndarray:
        return np.sqrt(2.0 * variance * (spread - math.log(EFFECT_SHARE * error))) / n

    low, high = diff - width(alpha), diff + width(beta)
    return np.where(boards > 0, low, -1.0), np.where(boards > 0, high, 1.0)


def decide(
    only_a: np.ndarray, only_b: np.ndarray, boards: np.ndarray, delta: float, alpha: float, beta: float
) -> tuple[np.ndarray, np.ndarray]:
    """For arrays of counts, the verdict of both rules together (1 better, -1 not better, 0 continue) and the
    log-likelihood ratio. Where the rules disagree ("better" by one, "not better" by the other: a difference
    shown above 0 but below ``delta``), the verdict is "not better": not by the least difference that matters."""
    lower, upper = wald_bounds(alpha, beta)
    llr = log_likelihood_ratio(only_a, only_b, boards, delta)
    low, high = effect_bounds(only_a, only_b, boards, alpha, beta)
    better = (llr >= upper) | (low > 0.0)
    worse = (llr <= lower) | (high < delta)
    verdict = np.where(worse, -1, np.where(better, 1, 0))
    return np.where(boards > 0, verdict, 0), llr


def gsprt(only_a: int, only_b: int, boards: int, delta: float, alpha: float = 0.05, beta: float = 0.05) -> SprtState:
    """The test of "A no better" against "A better by ``delta``" after ``boards`` paired boards, of which A alone
    won ``only_a`` and B alone ``only_b``; ``delta`` is a fraction (0.005 for half a point). Both rules of the
    module decide: ``rule`` says which did."""
    if min(only_a, only_b) < 0 or only_a + only_b > boards:
        raise ValueError(f"need 0 <= only_a, only_b and only_a + only_b <= boards, got {only_a}, {only_b}, {boards}")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie between 0 and 1 (a fraction of games), got {delta}")
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < value < 0.5:
            raise ValueError(f"{name} must lie between 0 and 0.5, got {value}")
    lower, upper = wald_bounds(alpha, beta)
    if boards == 0:
        return SprtState(only_a, only_b, 0, delta, alpha, beta, 0.0, lower, upper, "continue")
    a, b, n = np.array([only_a]), np.array([only_b]), np.array([boards])
    code, llrs = decide(a, b, n, delta, alpha, beta)
    low, high = (float(x[0]) for x in effect_bounds(a, b, n, alpha, beta))
    llr = float(llrs[0])
    verdict: Verdict = "better" if code[0] > 0 else "not_better" if code[0] < 0 else "continue"
    rule = "" if verdict == "continue" else "sprt" if llr >= upper or llr <= lower else "effect"
    return SprtState(only_a, only_b, boards, delta, alpha, beta, llr, lower, upper, verdict, low, high, rule)
