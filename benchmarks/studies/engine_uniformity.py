"""Are the seeded layouts uniform? Per-cell mine frequencies over many boards, per first-click rule.

For each rule, boards ``0..N-1`` of one seed are drawn with the engine's own derivation
(``board_permutation`` + ``mines_from_permutation``, the same path ``Game`` takes) for one fixed
first click, and the number of boards with a mine on each cell is counted. As in the engine, all
rules share each board's permutation, so their statistics are correlated (``safe`` and ``none``
agree on every board whose permutation does not put the click among the first M cells).

* ``safe``: the clicked cell never holds a mine; the other ``n-1`` cells are uniform.
* ``opening``: no mine ever in the clicked cell's 3x3 zone; the other ``n-9`` cells are uniform.
* ``none``: all ``n`` cells uniform, the clicked cell included.
* ``windows`` (for contrast, not expected uniform): the moved mine piles up at the top-left,
  which also shows that the test has the power to see a bias.

Uniformity test: each board puts exactly ``M`` mines on distinct cells, so a cell's count is
Binomial(N, p) with p = M/k over the k allowed cells, and the counts are negatively correlated
(their sum is fixed). Pearson's statistic with the multinomial denominator ``N*p`` would then be
too small by a factor (1-p); the exact large-N form for draws without replacement is

    X = sum_i (O_i - N p)^2 / (N p (1 - p) k / (k - 1))  ~  chi2(k - 1).

Both are printed; the p-value comes from X (scipy if importable, else Wilson-Hilferty). A second
check looks at the joint law: the number of mines among the clicked cell's 8 neighbours must be
hypergeometric (chi-square over its classes, small classes pooled).

    python benchmarks/studies/engine_uniformity.py [--boards 500000] [--seed 7] [--click 7,14]

Writes benchmarks/studies/results/engine_uniformity.json.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from engine import EXPERT, BoardSpec, FirstClick
from engine.board import parse_cell, resolve_board
from engine.layout import board_permutation, mines_from_permutation

RESULTS = Path(__file__).resolve().parent / "results" / "engine_uniformity.json"
ALPHA = 0.001  # a check fails below this p-value

try:
    from scipy import stats as _scipy_stats
except ImportError:  # pragma: no cover - the fallback is for environments without scipy
    _scipy_stats = None


def chi2_sf(statistic: float, dof: int) -> tuple[float, str]:
    """Upper tail of chi-square: scipy if importable, else the Wilson-Hilferty normal approximation."""
    if _scipy_stats is not None:
        return float(_scipy_stats.chi2.sf(statistic, dof)), "scipy.stats.chi2.sf"
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2)), "Wilson-Hilferty normal approximation"


def uniformity(counts: np.ndarray, boards: int, mines: int) -> dict[str, Any]:
    """Test that ``counts`` (one per allowed cell) come from ``boards`` uniform draws of ``mines`` cells."""
    k = counts.size
    p = mines / k
    expected = boards * p
    resid = counts.astype(np.float64) - expected
    pearson = float((resid**2).sum() / expected)
    variance = boards * p * (1 - p) * k / (k - 1)
    statistic = float((resid**2).sum() / variance)
    dof = k - 1
    p_value, method = chi2_sf(statistic, dof)
    z = resid / math.sqrt(boards * p * (1 - p))
    freq = counts / boards
    return {
        "cells": k,
        "expected_frequency": p,
        "min_frequency": float(freq.min()),
        "max_frequency": float(freq.max()),
        "max_abs_z": float(np.abs(z).max()),
        "statistic": statistic,
        "pearson_multinomial": pearson,
        "dof": dof,
        "p_value": p_value,
        "p_value_method": method,
    }


def hypergeometric_pmf(population: int, successes: int, draws: int) -> np.ndarray:
    total = math.comb(population, draws)
    return np.array(
        [math.comb(successes, j) * math.comb(population - successes, draws - j) / total for j in range(draws + 1)]
    )


def neighbour_count_test(histogram: np.ndarray, boards: int, population: int, mines: int) -> dict[str, Any]:
    """Chi-square of the mine count among the click's neighbours against the hypergeometric law."""
    draws = histogram.size - 1
    expected = hypergeometric_pmf(population, mines, draws) * boards
    observed = histogram.astype(np.float64)
    # pool the upper tail until every class expects at least 5 boards
    while expected.size > 2 and expected[-1] < 5:
        expected = np.append(expected[:-2], expected[-2] + expected[-1])
        observed = np.append(observed[:-2], observed[-2] + observed[-1])
    statistic = float(((observed - expected) ** 2 / expected).sum())
    dof = expected.size - 1
    p_value, method = chi2_sf(statistic, dof)
    return {
        "neighbours": draws,
        "observed": histogram.tolist(),
        "expected": (hypergeometric_pmf(population, mines, draws) * boards).round(1).tolist(),
        "classes_after_pooling": int(expected.size),
        "statistic": statistic,
        "dof": dof,
        "p_value": p_value,
        "p_value_method": method,
    }


def zone_mask(spec: BoardSpec, click: tuple[int, int]) -> np.ndarray:
    zone = np.zeros((spec.height, spec.width), dtype=bool)
    row, col = click
    zone[max(row - 1, 0) : row + 2, max(col - 1, 0) : col + 2] = True
    return zone.reshape(-1)


def run(spec: BoardSpec, boards: int, seed: int, click: tuple[int, int]) -> dict[str, Any]:
    rules = [FirstClick.SAFE, FirstClick.OPENING, FirstClick.NONE, FirstClick.WINDOWS]
    for rule in rules:
        spec.check_rule(rule)
    spec.check_cell(*click)
    n = spec.cells
    click_cell = click[0] * spec.width + click[1]
    zone = zone_mask(spec, click)
    ring = np.flatnonzero(zone & (np.arange(n) != click_cell))
    counts = {rule: np.zeros(n, dtype=np.int64) for rule in rules}
    neighbour_hist = {rule: np.zeros(ring.size + 1, dtype=np.int64) for rule in rules}
    bad_counts = {rule: 0 for rule in rules}
    # Accumulate masks in blocks: one vectorised sum per block instead of one per board.
    block = 4096
    masks = {rule: np.empty((block, n), dtype=np.uint8) for rule in rules}
    start = time.perf_counter()
    filled = 0
    for index in range(boards):
        perm = board_permutation(spec, seed, index)
        for rule in rules:
            mask = mines_from_permutation(spec, perm, rule, click)
            masks[rule][filled] = mask
        filled += 1
        if filled == block or index == boards - 1:
            for rule in rules:
                chunk = masks[rule][:filled]
                counts[rule] += chunk.sum(axis=0, dtype=np.int64)
                per_board = chunk.sum(axis=1, dtype=np.int64)
                bad_counts[rule] += int((per_board != spec.mines).sum())
                neighbour_hist[rule] += np.bincount(chunk[:, ring].sum(axis=1, dtype=np.int64), minlength=ring.size + 1)
            filled = 0
    elapsed = time.perf_counter() - start

    results: dict[str, Any] = {}
    everything = np.ones(n, dtype=bool)
    not_click = everything.copy()
    not_click[click_cell] = False
    allowed = {
        FirstClick.SAFE: not_click,
        FirstClick.OPENING: ~zone,
        FirstClick.NONE: everything,
        FirstClick.WINDOWS: not_click,
    }
    for rule in rules:
        c = counts[rule]
        entry: dict[str, Any] = {
            "boards_with_wrong_mine_count": bad_counts[rule],
            "mines_on_clicked_cell": int(c[click_cell]),
            "mines_in_3x3_zone": int(c[zone].sum()),
        }
        entry["uniformity"] = uniformity(c[allowed[rule]], boards, spec.mines)
        if rule is FirstClick.NONE:
            # all n cells; the clicked cell must hold a mine as often as any other
            p = spec.mines / n
            entry["clicked_cell_frequency"] = c[click_cell] / boards
            entry["clicked_cell_z"] = float((c[click_cell] - boards * p) / math.sqrt(boards * p * (1 - p)))
            entry["neighbours"] = neighbour_count_test(neighbour_hist[rule], boards, n, spec.mines)
        elif rule is FirstClick.SAFE:
            entry["neighbours"] = neighbour_count_test(neighbour_hist[rule], boards, n - 1, spec.mines)
        elif rule is FirstClick.OPENING:
            entry["neighbours_observed"] = neighbour_hist[rule].tolist()
        elif rule is FirstClick.WINDOWS:
            top_left = int(np.flatnonzero(allowed[rule])[0])
            entry["top_left_cell_frequency"] = c[top_left] / boards

        checks: dict[str, bool] = {"exact_mine_count": bad_counts[rule] == 0}
        if rule in (FirstClick.SAFE, FirstClick.WINDOWS):
            checks["clicked_cell_never_a_mine"] = entry["mines_on_clicked_cell"] == 0
        if rule is FirstClick.OPENING:
            checks["zone_never_has_a_mine"] = entry["mines_in_3x3_zone"] == 0
        if rule is FirstClick.NONE:
            checks["clicked_cell_like_the_others"] = abs(entry["clicked_cell_z"]) < 4
        if rule is not FirstClick.WINDOWS:
            checks["uniform"] = entry["uniformity"]["p_value"] >= ALPHA
            if "neighbours" in entry:
                checks["neighbour_count_hypergeometric"] = entry["neighbours"]["p_value"] >= ALPHA
        entry["checks"] = checks
        entry["expected_uniform"] = rule is not FirstClick.WINDOWS
        entry["passed"] = all(checks.values())
        results[rule.value] = entry
    return {"elapsed_s": elapsed, "rules": results}


def report(spec: BoardSpec, boards: int, seed: int, click: tuple[int, int], outcome: dict[str, Any]) -> None:
    print(
        f"{spec.label} ({spec.height}x{spec.width}, {spec.mines} mines), first click {click}, "
        f"{boards} boards of seed {seed}, drawn in {outcome['elapsed_s']:.1f} s"
    )
    for name, entry in outcome["rules"].items():
        u = entry["uniformity"]
        label = name if entry["expected_uniform"] else f"{name} (contrast: biased by design)"
        print(f"\n[{label}]")
        print(
            f"  per-cell uniformity over {u['cells']} cells: X = {u['statistic']:.1f}, dof = {u['dof']}, "
            f"p = {u['p_value']:.4g}   (plain Pearson {u['pearson_multinomial']:.1f}; {u['p_value_method']})"
        )
        print(
            f"  frequency expected {u['expected_frequency']:.5f}, observed {u['min_frequency']:.5f} .. "
            f"{u['max_frequency']:.5f}, max |z| = {u['max_abs_z']:.2f}"
        )
        print(
            f"  mines on the clicked cell: {entry['mines_on_clicked_cell']}, in its 3x3 zone: "
            f"{entry['mines_in_3x3_zone']}, boards with a wrong mine count: {entry['boards_with_wrong_mine_count']}"
        )
        if "clicked_cell_frequency" in entry:
            print(
                f"  clicked cell frequency {entry['clicked_cell_frequency']:.5f} (z = {entry['clicked_cell_z']:+.2f})"
            )
        if "top_left_cell_frequency" in entry:
            print(f"  top-left free cell frequency {entry['top_left_cell_frequency']:.5f}")
        if "neighbours" in entry:
            nb = entry["neighbours"]
            print(
                f"  mines among the click's {nb['neighbours']} neighbours vs hypergeometric: "
                f"X = {nb['statistic']:.2f}, dof = {nb['dof']}, p = {nb['p_value']:.4g}"
            )
        verdict = "PASS" if entry["passed"] else "FAIL"
        if not entry["expected_uniform"]:
            verdict = "info (bias detected)" if u["p_value"] < ALPHA else "info (bias NOT detected)"
        print(f"  checks: {entry['checks']} -> {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=500_000, help="boards per rule (default 500000)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the boards")
    parser.add_argument("--board", default="expert", help="difficulty or HxW/M (default expert)")
    parser.add_argument("--click", default="7,14", help="the fixed first click ROW,COL (default 7,14)")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON results")
    args = parser.parse_args(argv)
    spec = resolve_board(args.board) if args.board != "expert" else EXPERT
    click = parse_cell(args.click)

    outcome = run(spec, args.boards, args.seed, click)
    report(spec, args.boards, args.seed, click, outcome)
    passed = all(e["passed"] for e in outcome["rules"].values() if e["expected_uniform"])
    print(f"\noverall: {'PASS' if passed else 'FAIL'} (alpha = {ALPHA})")

    result = {
        "benchmark": "engine_uniformity",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "board": spec.to_dict(),
        "boards": args.boards,
        "seed": args.seed,
        "click": list(click),
        "alpha": ALPHA,
        "statistic": "sum (O-E)^2 / (N p (1-p) k/(k-1)) ~ chi2(k-1), for draws without replacement",
        "passed": passed,
        **outcome,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.output.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    tmp.replace(args.output)
    print(f"saved {args.output}")
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
