"""The sequential test of `arena match`: its likelihood fits, bounds and verdicts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from arena.analysis.sequential import _constrained_mle, decide, effect_bounds, gsprt, log_likelihood_ratio, wald_bounds


def test_wald_bounds_for_five_percent_errors() -> None:
    lower, upper = wald_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(2.944, abs=1e-3)


@pytest.mark.parametrize("freqs", [(0.05, 0.9, 0.05), (0.2, 0.7, 0.1), (0.01, 0.5, 0.49), (0.3, 0.3, 0.4)])
@pytest.mark.parametrize("mean", [0.0, 0.005, 0.05, -0.1])
def test_constrained_fit_is_the_likelihood_maximum_with_that_mean(freqs: tuple[float, ...], mean: float) -> None:
    fitted = _constrained_mle(np.array([freqs]), mean)[0]
    assert fitted.sum() == pytest.approx(1.0)
    assert fitted @ np.array([-1.0, 0.0, 1.0]) == pytest.approx(mean, abs=1e-9)
    f = np.array(freqs)

    def loss(q: np.ndarray) -> float:
        probs = np.array([q[0], 1 - q[0] - q[1], q[1]])
        return math.inf if (probs <= 0).any() else -float(f @ np.log(probs))

    # Independent optimum: the free parameter is P(-1); P(+1) = P(-1) + mean.
    best = minimize(lambda x: loss(np.array([x[0], x[0] + mean])), x0=[0.2], method="Nelder-Mead", tol=1e-12)
    assert -loss(np.array([fitted[0], fitted[2]])) >= -best.fun - 1e-9


def test_llr_moves_the_right_way() -> None:
    # More boards only A won push towards H1, more only B won towards H0.
    base = gsprt(110, 100, 2000, 0.01).llr
    assert gsprt(130, 100, 2000, 0.01).llr > base > gsprt(100, 110, 2000, 0.01).llr


def test_matches_the_normal_approximation_on_many_boards() -> None:
    only_a, only_b, boards, delta = 1110, 1000, 20000, 0.005
    mean = (only_a - only_b) / boards
    var = (only_a + only_b) / boards - mean**2
    approx = boards * (delta * mean - delta**2 / 2) / var
    assert gsprt(only_a, only_b, boards, delta).llr == pytest.approx(approx, rel=0.02)


def test_verdicts() -> None:
    assert gsprt(0, 0, 0, 0.01).verdict == "continue"
    assert gsprt(1300, 1000, 20000, 0.01).verdict == "better"
    assert gsprt(1000, 1000, 20000, 0.01).verdict == "not_better"
    assert gsprt(60, 50, 1000, 0.01).verdict == "continue"
    # Boards with no split at all are evidence against a difference of a whole point.
    assert gsprt(0, 0, 2000, 0.01).verdict == "not_better"


@pytest.mark.parametrize(("only_a", "only_b", "verdict"), [(61, 14, "better"), (14, 61, "not_better")])
def test_a_large_effect_is_decided_by_the_effect_rule_after_one_batch(only_a: int, only_b: int, verdict: str) -> None:
    # The case: 15.7 points either way over 300 boards, a one-point delta. The GSPRT alone is undecided.
    state = gsprt(only_a, only_b, 300, 0.01)
    assert state.lower < state.llr < state.upper
    assert (state.verdict, state.rule) == (verdict, "effect")
    # The effect rule's interval is wider than the fixed-sample one (it holds at every look) and holds the estimate.
    assert state.effect_low < state.difference < state.effect_high
    assert state.effect_high - state.effect_low > 2 * 1.96 * math.sqrt((only_a + only_b) / 300**2)


def test_the_effect_rule_says_better_only_above_zero_and_not_better_only_below_delta() -> None:
    a, b, n = np.arange(0, 200), np.full(200, 50), np.full(200, 1000)
    low, high = effect_bounds(a, b, n, 0.05, 0.05)
    verdict, _ = decide(a, b, n, 0.01, 0.05, 0.05)
    checked = 0
    for i in range(200):
        if low[i] > 0:
            assert verdict[i] == 1
            checked += 1
        if high[i] < 0.01 and verdict[i] == -1:
            checked += 1
    assert checked > 100


def test_vectorised_equals_scalar() -> None:
    a, b, n = np.array([5, 50, 300]), np.array([3, 60, 250]), np.array([100, 1000, 4000])
    together = log_likelihood_ratio(a, b, n, 0.01)
    alone = [gsprt(int(x), int(y), int(z), 0.01).llr for x, y, z in zip(a, b, n, strict=True)]
    assert together == pytest.approx(alone)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5, 5, 8, 0.01), "only_a"),
        ((-1, 0, 8, 0.01), "only_a"),
        ((0, 0, 8, 0.0), "delta"),
        ((0, 0, 8, 1.5), "delta"),
    ],
)
def test_bad_arguments(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gsprt(*args)


def test_bad_error_rates() -> None:
    with pytest.raises(ValueError, match="alpha"):
        gsprt(0, 0, 8, 0.01, alpha=0.0)
    with pytest.raises(ValueError, match="beta"):
        gsprt(0, 0, 8, 0.01, beta=0.7)
