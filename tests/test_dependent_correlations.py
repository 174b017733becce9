"""Williams' test and the minimum significant difference, against a published worked example, a
hand computation, the independent implementation in `nlpstats` (after psych::r.test), and plain
loops written here."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pandas as pd
import pytest
from nlpstats.correlations.williams import williams_test as nlpstats_williams
from scipy.stats import pearsonr, spearmanr
from scipy.stats import t as student_t

from simgold import dependent_correlations
from simgold.dependent_correlations import (
    brentq,
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


# -------------------------------------------------------------------------------- in the scores


def test_paired_difference_carries_williams_test_on_the_shared_items():
    from simgold.scoring import paired_difference

    rng = np.random.default_rng(3)
    gold = rng.normal(size=120)
    a = gold + rng.normal(scale=0.8, size=120)
    b = gold + rng.normal(scale=1.3, size=120)
    b[:7] = np.nan  # b does not score 7 items: both tests use the 113 that both score
    row = paired_difference("d", "a", "b", gold, a, b, resamples=200)._asdict()
    ok = ~np.isnan(b)
    r_ag, r_bg, r_ab = (spearmanr(x, y).statistic for x, y in ((a[ok], gold[ok]), (b[ok], gold[ok]), (a[ok], b[ok])))
    expected = williams_test(r_ag, r_bg, r_ab, 113)
    assert row["n_used"] == 113 and row["value_a"] == pytest.approx(r_ag, abs=1e-12)
    assert row["r_ab"] == pytest.approx(r_ab, abs=1e-12)
    assert row["williams_t"] == pytest.approx(expected.t, abs=1e-9) and row["williams_p"] == pytest.approx(expected.p, abs=1e-12)
    assert row["williams_p"] < 0.05 and row["p"] < 0.05  # the two tests agree on a clear difference


def _scores(values: dict, n: int = 353) -> pd.DataFrame:
    rows = [(m, "spearman", "all", v, n) for m, v in values.items()]
    rows += [(m, "spearman", "pos=N", v - 0.1, 100) for m, v in values.items()]  # a subset: never the best
    rows += [(m, "pearson", "all", 0.99, n) for m in values]  # another metric: never the best
    return pd.DataFrame(rows, columns=["model", "metric", "subset", "value", "n_used"]).assign(dataset="ws353")


def test_dataset_msd_takes_the_best_spearman_and_the_two_best_models_correlation():
    scores = _scores({"glove": 0.50, "e5": 0.62, "minilm": 0.58})
    diffs = pd.DataFrame(
        {"model_a": ["e5", "e5", "glove"], "model_b": ["glove", "minilm", "minilm"], "r_ab": [0.40, 0.85, 0.55]}
    )
    table = dependent_correlations.dataset_msd("ws353", scores, diffs)
    assert table["r_jk_kind"].tolist() == ["fixed", "fixed", "fixed", "observed"]
    assert table["r_jk"].tolist() == [0.5, 0.7, 0.9, 0.85] and (table["r_best"] == 0.62).all() and (table["n"] == 353).all()
    for row in table.itertuples():  # each d is where Williams' test crosses p = 0.05
        assert williams_test(0.62, 0.62 - row.msd, row.r_jk, 353).p == pytest.approx(0.05, abs=1e-9)
    single = dependent_correlations.dataset_msd("ws353", _scores({"e5": 0.62}), diffs.iloc[:0])
    assert single["r_jk_kind"].tolist() == ["fixed"] * 3
    assert dependent_correlations.dataset_msd("x", _scores({"e5": np.nan}), diffs.iloc[:0]).empty


def test_with_msd_puts_the_value_beside_each_spearman_on_all_items():
    two = dependent_correlations.dataset_msd("ws353", _scores({"a": 0.6, "b": 0.5}), pd.DataFrame(
        {"model_a": ["a"], "model_b": ["b"], "r_ab": [0.8]}))  # fmt: skip
    one = dependent_correlations.dataset_msd("demo", _scores({"a": 0.6}, n=30).assign(dataset="demo"), pd.DataFrame(
        {"model_a": [], "model_b": [], "r_ab": []}))  # fmt: skip
    summary = pd.concat([_scores({"a": 0.6, "b": 0.5}), _scores({"a": 0.6}, n=30).assign(dataset="demo")])
    out = dependent_correlations.with_msd(summary, pd.concat([two, one]))
    head = (out["metric"] == "spearman") & (out["subset"] == "all")
    assert out.loc[~head, ["msd", "msd_r_jk"]].isna().all().all()
    ws = out[head & (out["dataset"] == "ws353")]
    assert (ws["msd"] == two["msd"].iloc[-1]).all() and (ws["msd_r_jk"] == 0.8).all()  # observed
    demo = out[head & (out["dataset"] == "demo")]
    assert demo["msd"].iloc[0] == one.loc[one["r_jk"] == 0.7, "msd"].iloc[0] and demo["msd_r_jk"].iloc[0] == 0.7


def test_msd_rows_are_named_as_the_table_columns():
    from simgold.dependent_correlations import MsdRow
    from simgold.tables import TABLES

    assert MsdRow._fields == TABLES["msd"].names
    table = msd_table("ws353", 353, 0.7, r_jk_observed=0.8)
    assert list(table.columns) == list(MsdRow._fields)
    assert [MsdRow(*r) for r in table.itertuples(index=False)] == [
        MsdRow("ws353", 353, 0.7, r, kind, 0.05, minimum_significant_difference(0.7, 353, r))
        for r, kind in ((0.5, "fixed"), (0.7, "fixed"), (0.9, "fixed"), (0.8, "observed"))
    ]


def test_brentq_is_scipys_to_the_bit():
    """The written-out Brent's method (the model-difference jobs need no scipy.optimize import)
    gives scipy's root to the bit: on the p-value curves it is used for and on other functions
    with roots anywhere in their bracket, including tight tolerances and exact zeros."""
    from scipy.optimize import brentq as scipy_brentq

    rng = np.random.default_rng(11)
    cases = []
    for _ in range(150):  # the msd's own function: Williams' p against a drop d, minus alpha
        r_best, r_jk, n = rng.uniform(0.2, 0.9), rng.uniform(0.1, 0.95), int(rng.integers(30, 3000))
        f = lambda d, r=r_best, j=r_jk, n=n: williams_test(r, r - d, j, n).p - 0.05  # noqa: E731
        grid = np.linspace(1e-6, r_best, 200)
        signs = np.sign([f(d) for d in grid])
        change = np.flatnonzero((signs[:-1] * signs[1:]) < 0)  # a finite value of each sign
        if len(change):
            cases.append((f, grid[change[0]], grid[change[0] + 1], 1e-12))
    for _ in range(150):  # polynomials and transcendental functions, roots anywhere
        root, scale, power = rng.uniform(-5, 5), rng.uniform(0.1, 10), int(rng.integers(1, 6))
        a, b = root - rng.uniform(0.01, 4), root + rng.uniform(0.01, 4)
        cases.append((lambda x, r=root, s=scale, p=power: s * (x - r) + (x - r) ** (2 * p + 1), a, b, 2e-12))
        cases.append((lambda x, r=root: math.tanh(x - r) + 0.1 * (x - r) ** 3, a, b, 1e-9))
        cases.append((lambda x, r=root, s=scale: math.exp(s * (x - r)) - 1, a, b, 2e-12))
    cases.append((lambda x: x, -1.0, 0.0, 2e-12))  # f(b) == 0
    assert len(cases) > 500
    for f, a, b, xtol in cases:
        assert brentq(f, a, b, xtol=xtol) == scipy_brentq(f, a, b, xtol=xtol)
    flat = lambda x: (x - 1.3) ** 9  # noqa: E731 (a root so flat that neither converges in 100 steps)
    with pytest.raises(RuntimeError):
        scipy_brentq(flat, -2.0, 5.0)
    with pytest.raises(RuntimeError, match="no convergence"):
        brentq(flat, -2.0, 5.0)
    with pytest.raises(ValueError, match="different signs"):
        brentq(lambda x: x * x + 1, -1.0, 1.0)
