"""Williams' test and the minimum significant difference, against a published worked example, a
hand computation, the independent implementation in `nlpstats` (after psych::r.test), and plain
loops written here."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from nlpstats.correlations.williams import williams_test as nlpstats_williams
from scipy.stats import pearsonr, spearmanr
from scipy.stats import t as student_t

from simgold import dependent_correlations
from simgold.dependent_correlations import (
    compare_predictions,
    minimum_significant_difference,
    msd_any_score,
    msd_table,
    williams_test,
)


def test_docstring_examples():
    assert doctest.testmod(dependent_correlations).failed == 0


def test_published_worked_example():
    # Brysbaert's Hotelling-Williams example (Ghent CRR): r12 = .75, r13 = .69, r23 = .84, N = 240
    res = williams_test(0.75, 0.69, 0.84, 240)
    assert (round(res.t, 4), res.df, round(res.p, 4)) == (2.4934, 237, 0.0133)


def test_hand_computation():
    r_jg, r_kg, r_jk, n = 0.62, 0.48, 0.55, 99
    det = 1 - 0.62**2 - 0.48**2 - 0.55**2 + 2 * 0.62 * 0.48 * 0.55  # 1 - 0.9173 + 0.32736
    assert det == pytest.approx(0.41006, abs=1e-12)
    t = 0.14 * math.sqrt(98 * 1.55 / (2 * det * 98 / 96 + (1.1**2 / 4) * 0.45**3))
    res = williams_test(r_jg, r_kg, r_jk, n)
    assert res.t == pytest.approx(t, rel=1e-14) and res.df == 96
    assert res.p == pytest.approx(2 * student_t.sf(t, 96), rel=1e-12)
    assert williams_test(r_kg, r_jg, r_jk, n).t == pytest.approx(-t, rel=1e-14)  # antisymmetric


def test_vectorised_and_undefined():
    res = williams_test(np.array([0.6, 0.6]), np.array([0.5, 0.6]), 0.5, 100)
    assert res.t[1] == 0 and res.p[1] == pytest.approx(1.0)
    assert np.isnan(williams_test(0.9, -0.9, 0.9, 50).t)  # |R| < 0: not a correlation matrix
    assert np.isnan(williams_test(0.5, 0.4, 0.3, 3).p)  # n - 3 = 0 degrees of freedom


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("method", ["spearman", "pearson"])
def test_equals_nlpstats_on_predictions(seed, method):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    gold = rng.normal(size=n)
    a = gold + rng.normal(0, rng.uniform(0.5, 2), n)
    b = 0.5 * a + gold + rng.normal(0, rng.uniform(0.5, 3), n)
    if method == "spearman":
        a, gold = np.round(a, 1), np.round(gold, 1)  # ties: average ranks
    row = compare_predictions(gold, a, b, method)
    corr = spearmanr if method == "spearman" else pearsonr
    assert row["r_jg"] == pytest.approx(corr(a, gold)[0], abs=1e-12)
    assert row["r_kg"] == pytest.approx(corr(b, gold)[0], abs=1e-12)
    assert row["r_jk"] == pytest.approx(corr(a, b)[0], abs=1e-12)
    theirs = nlpstats_williams(a[:, None], b[:, None], gold[:, None], "system", method).pvalue
    assert row["p"] == pytest.approx(theirs, rel=1e-10, abs=1e-15)


def test_missing_predictions_are_left_out():
    gold = np.arange(10.0)
    a = gold.copy()
    a[3] = np.nan
    b = gold[::-1].copy()
    row = compare_predictions(gold, a, b)
    assert row["n"] == 9 and row["r_jg"] == pytest.approx(1.0) and row["r_kg"] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="method 'kendall': expected spearman or pearson"):
        compare_predictions(gold, a, b, "kendall")


@pytest.mark.parametrize("n", [30, 65, 99, 353, 999, 3000])
@pytest.mark.parametrize("r_jk", [0.5, 0.7, 0.9])
def test_msd_is_the_smallest_significant_difference(n, r_jk):
    r_best = 0.65
    d = minimum_significant_difference(r_best, n, r_jk)
    assert williams_test(r_best, r_best - d, r_jk, n).p == pytest.approx(0.05, abs=1e-9)
    # a plain scan: every smaller difference is not significant
    smaller = np.linspace(0, d, 2001)[1:-1]
    assert (np.array([williams_test(r_best, r_best - x, r_jk, n).p for x in smaller]) >= 0.05).all()
    assert williams_test(r_best, r_best - d - 1e-6, r_jk, n).p < 0.05


def test_msd_shrinks_with_size_and_agreement_between_models():
    table = [[minimum_significant_difference(0.6, n, r) for r in (0.5, 0.7, 0.9)] for n in (99, 353, 999)]
    table = np.array(table)
    assert (np.diff(table, axis=0) < 0).all() and (np.diff(table, axis=1) < 0).all()


def test_msd_undefined_when_nothing_can_be_significant():
    # 4 items (1 degree of freedom): t stays below t_0.975(1) = 12.7 for every valid r_kg
    assert np.isnan(minimum_significant_difference(0.2, 4, 0.0))
    assert np.isnan(minimum_significant_difference(0.5, 3, 0.5))  # 0 degrees of freedom
    out = msd_table("x", 353, 0.7, r_jk_observed=0.83)
    assert list(out["r_jk_kind"]) == ["fixed", "fixed", "fixed", "observed"]
    assert out["msd"].iloc[3] == pytest.approx(minimum_significant_difference(0.7, 353, 0.83))


def test_msd_any_score_is_the_worst_case_over_baselines():
    """Rastogi et al.'s tabulation as a plain loop: the largest difference d (steps of 0.001) for
    which some baseline r (steps of 0.01) is still not significant, plus one step."""
    n, r_jk = 203, 0.7
    ours = msd_any_score(n, r_jk)
    worst = 0.0
    for r in np.arange(0.0, 1.0, 0.01):
        for d in np.arange(0.001, 1.0 - r, 0.001):
            if williams_test(r + d, r, r_jk, n).p < 0.05:
                worst = max(worst, d)
                break
    assert ours == pytest.approx(worst, abs=0.001)
