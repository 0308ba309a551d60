"""A sequential test for "is A better than B?": stop a paired match as soon as the answer is known.

The GSPRT on paired trinomial outcomes (only A won, a tie, only B won) that ``arena match`` runs;
the test and why its error rates hold: docs/analysis.md (`arena match`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["SprtState", "Verdict", "gsprt", "log_likelihood_ratio", "wald_bounds"]

Verdict = Literal["H1", "H0", "continue"]

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


def gsprt(only_a: int, only_b: int, boards: int, delta: float, alpha: float = 0.05, beta: float = 0.05) -> SprtState:
    """The GSPRT of H0 ``delta = 0`` against H1 ``delta = d`` after ``boards`` paired boards, of which
    A alone won ``only_a`` and B alone ``only_b``; ``delta`` is a fraction (0.005 for half a point)."""
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
    llr = float(log_likelihood_ratio(np.array([only_a]), np.array([only_b]), np.array([boards]), delta)[0])
    verdict: Verdict = "H1" if llr >= upper else "H0" if llr <= lower else "continue"
    return SprtState(only_a, only_b, boards, delta, alpha, beta, llr, lower, upper, verdict)
