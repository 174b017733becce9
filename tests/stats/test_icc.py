"""Intraclass correlations (docs/methods.md section 4): Shrout & Fleiss's worked example with the
intervals R's psych::ICC prints for it, a plain ANOVA loop, and the stage on real ratings."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from simgold.stats import icc as icc_module
from simgold.stats.icc import one_way, two_way

#: Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges
SF = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)


def test_shrout_and_fleiss_example_with_psychs_intervals():
    """psych::ICC(sf) prints ICC1 0.17 [-0.133, 0.72], ICC2 0.29 [0.019, 0.76], ICC1k 0.44
    [-0.884, 0.91], ICC2k 0.62 [0.071, 0.93]; Shrout & Fleiss's Table 4 gives the values."""
    got = {i.form: i for i in two_way(SF, confidence=0.95) + one_way(SF.ravel(), np.repeat(np.arange(6), 4), confidence=0.95)}
    expected = {
        "ICC(1,1)": (0.17, -0.133, 0.72),
        "ICC(2,1)": (0.29, 0.019, 0.76),
        "ICC(1,k)": (0.44, -0.884, 0.91),
        "ICC(2,k)": (0.62, 0.071, 0.93),
    }
    for form, (value, low, high) in expected.items():
        assert round(got[form].value, 2) == value, form
        assert round(got[form].ci_low, 3) == low and round(got[form].ci_high, 2) == high, form


def _anova_loop(X):
    """Mean squares by their sums, one cell at a time."""
    n, k = len(X), len(X[0])
    grand = sum(map(sum, X)) / (n * k)
    rows = [sum(r) / k for r in X]
    cols = [sum(X[i][j] for i in range(n)) / n for j in range(k)]
    ss_r = k * sum((m - grand) ** 2 for m in rows)
    ss_c = n * sum((m - grand) ** 2 for m in cols)
    ss_t = sum((X[i][j] - grand) ** 2 for i in range(n) for j in range(k))
    ss_w = sum((X[i][j] - rows[i]) ** 2 for i in range(n) for j in range(k))
    return ss_r / (n - 1), ss_c / (k - 1), (ss_t - ss_r - ss_c) / ((n - 1) * (k - 1)), ss_w / (n * (k - 1))


def test_values_equal_the_formulas_on_anova_sums_written_here():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 7, (30, 5)).astype(float) + rng.uniform(0, 3, 30)[:, None]
    bms, jms, ems, wms = _anova_loop(X.tolist())
    n, k = X.shape
    single, average = two_way(X, confidence=0.95)
    assert single.value == pytest.approx((bms - ems) / (bms + (k - 1) * ems + k * (jms - ems) / n), abs=1e-12)
    assert average.value == pytest.approx((bms - ems) / (bms + (jms - ems) / n), abs=1e-12)
    one, many = one_way(X.ravel(), np.repeat(np.arange(n), k), confidence=0.95)
    assert one.value == pytest.approx((bms - wms) / (bms + (k - 1) * wms), abs=1e-12)
    assert many.value == pytest.approx((bms - wms) / bms, abs=1e-12)
    assert single.ci_low < single.value < single.ci_high and average.ci_low < average.value < average.ci_high


def test_unbalanced_slots_use_k0():
    """Items with 2 to 5 ratings: the one-way ANOVA with k0 = (N - sum n_i^2 / N) / (n - 1)."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 6, 40)
    truth = rng.normal(size=40)
    groups = np.repeat(np.arange(40), sizes)
    values = truth[groups] + rng.normal(scale=0.8, size=len(groups))
    means = np.array([values[groups == g].mean() for g in range(40)])
    N, n = len(values), 40
    bms = sum(sizes * (means - values.mean()) ** 2) / (n - 1)
    wms = sum((values - means[groups]) ** 2) / (N - n)
    k0 = (N - (sizes**2).sum() / N) / (n - 1)
    single = one_way(values, groups, confidence=0.95)[0]
    assert single.value == pytest.approx((bms - wms) / (bms + (k0 - 1) * wms), abs=1e-12)
    assert one_way(values[:1], groups[:1], confidence=0.95)[0].value != one_way(values[:1], groups[:1], confidence=0.95)[0].value  # NaN: one item


@pytest.mark.shared
def test_the_stage_on_danish_ratings_uses_the_complete_block_and_says_so(cleaned):
    """Danish: 38 raters, 32 of them rated all 99 items; the ICC is theirs, the note says so, and
    it equals the two-way formulas on that block (taken here from the ratings)."""
    from simgold.stages.agreement import icc_levels

    t = cleaned("dsd-da")
    table = icc_levels("dsd-da", t["items"], {"raw": t["ratings"]}, confidence=0.9)
    assert table["form"].tolist() == ["ICC(2,1)", "ICC(2,k)"] and (table["confidence"] == 0.9).all()
    wide = t["ratings"].pivot(index="item_id", columns="rater", values="score")
    block = wide.loc[:, wide.notna().all()]
    assert block.shape == (99, 32) and (table["n_raters"] == 32).all() and (table["n_items"] == 99).all()
    assert table["note"].iloc[0] == "on the 32 of 38 raters who rated every item (a two-way ANOVA needs a complete block)"
    expected = two_way(block.to_numpy(float), 0.9)
    assert table["value"].tolist() == [i.value for i in expected] and table["ci_low"].tolist() == [i.ci_low for i in expected]
    assert 0.5 < table["value"].iloc[0] < table["value"].iloc[1] < 1  # one rater, then the mean of 32


def test_no_complete_block_gives_no_value_and_a_note():
    from simgold.stages.agreement import icc_levels

    ratings = pd.DataFrame({"item_id": ["a", "b", "c", "a", "b"], "rater": ["r1", "r1", "r1", "r2", "r2"],
                            "score": [1.0, 2.0, 3.0, 1.5, 2.5]})  # fmt: skip
    items = pd.DataFrame({"item_id": ["a", "b", "c"]})
    table = icc_levels("d", items, {"raw": ratings}, confidence=0.95)
    assert table["value"].isna().all() and table["note"].str.startswith("1 of 2 raters rated every one of the 3 items").all()


def test_degenerate_blocks_give_nan_and_a_note_or_an_exact_zero():
    """Constant ratings: no variance, no ICC. Each rater constant at another value (2, 4, 5): the
    items cannot be told apart, so the absolute agreement on them is 0 exactly (BMS = EMS = 0 and
    JMS = 28 > 0: ICC(2,1) = 0 / (3 x 28 / 12)), and with no residual variance there is no F
    interval. One item: none."""
    from simgold.stats.icc import one_way_note, two_way_note

    constant = two_way(np.full((5, 3), 3.0), confidence=0.95)
    assert all(np.isnan([i.value, i.ci_low, i.ci_high]).all() for i in constant)
    assert two_way_note(np.full((5, 3), 3.0), confidence=0.95) == "every rating is 3: no variance between items or raters, no ICC"
    flat = np.tile([2.0, 4.0, 5.0], (12, 1))
    assert icc_module._mean_squares(flat)[2] == 0.0  # EMS from the residuals: 0, not a rounding error
    assert [(i.value, np.isnan(i.ci_low), np.isnan(i.ci_high)) for i in two_way(flat, confidence=0.95)] == [(0.0, True, True)] * 2
    assert two_way_note(flat, confidence=0.95) == (
        "no residual variance (every rating is its item's mean plus its rater's shift): no F-based interval"
    )
    assert two_way_note(np.array([[2.0, 3.0, 4.0]]), confidence=0.95) == "1 item: an ICC needs two items or more"
    assert two_way_note(SF, confidence=0.95) == ""
    assert one_way_note(np.full(6, 3.0), np.repeat(np.arange(3), 2), confidence=0.95) == (
        "every rating is 3: no variance between or within items, no ICC"
    )
    assert one_way_note(SF.ravel(), np.repeat(np.arange(6), 4), confidence=0.95) == ""


def test_the_stage_says_why_a_block_has_no_icc():
    from simgold.stages.agreement import icc_levels

    def notes(ratings: pd.DataFrame) -> list[str]:
        items = pd.DataFrame({"item_id": sorted(ratings["item_id"].unique())})
        return icc_levels("d", items, {"raw": ratings}, confidence=0.95)["note"].tolist()

    one_item = pd.DataFrame({"item_id": "a", "rater": ["r1", "r2", "r3"], "score": [2.0, 3.0, 4.0]})
    assert notes(one_item) == ["1 item: an ICC needs two items or more"] * 2  # was "3 of 3 raters rated every one"
    constant = pd.DataFrame({"item_id": np.repeat(list("abcd"), 3), "rater": ["r1", "r2", "r3"] * 4, "score": 3.0})
    assert notes(constant) == ["every rating is 3: no variance between items or raters, no ICC"] * 2
    # a rater left out of the block and constant ratings on it: both said
    partial = pd.concat([constant, pd.DataFrame({"item_id": ["a"], "rater": ["r4"], "score": [5.0]})])
    both = (
        "on the 3 of 4 raters who rated every item (a two-way ANOVA needs a complete block); "
        "every rating is 3: no variance between items or raters, no ICC"
    )
    assert notes(partial) == [both, both]


def test_rating_slots_constant_within_items_or_with_equal_means_give_no_exception():
    """Issue 41: one_way divided by zero. Every item's slots agree (WMS = 0): perfect agreement, 1
    without an F interval. Every item mean 3 (BMS = 0): items 0 and 1 rated (2, 4) and (4, 2), WMS =
    (1 + 1 + 1 + 1) / (4 - 2) = 2, ICC(1,1) = (0 - 2) / (0 + 1 x 2) = -1 (its floor), ICC(1,k) =
    (0 - 2) / 0 has no value and no interval. The stage gives NaN and a note, not an exception."""
    from simgold.stages.agreement import icc_levels
    from simgold.stats.icc import one_way_note

    agree = one_way(np.array([2.0, 2, 5, 5, 4, 4]), np.array([0, 0, 1, 1, 2, 2]), confidence=0.95)
    assert [(i.value, np.isnan(i.ci_low), np.isnan(i.ci_high)) for i in agree] == [(1.0, True, True)] * 2
    equal = one_way(np.array([2.0, 4, 4, 2]), np.array([0, 0, 1, 1]), confidence=0.95)
    assert equal[0].value == -1.0 and np.isnan([equal[0].ci_low, equal[0].ci_high]).all()
    assert np.isnan([equal[1].value, equal[1].ci_low, equal[1].ci_high]).all()
    assert one_way_note(np.array([2.0, 4, 4, 2]), np.array([0, 0, 1, 1]), 0.95).startswith("the item means are all equal")
    # a slot dataset whose first slot always says 2 and second always 4: every item mean is 3
    slots = pd.DataFrame({"item_id": np.repeat(list("abcd"), 2), "rater": ["s1", "s2"] * 4, "score": [2.0, 4.0] * 4})
    items = pd.DataFrame({"item_id": list("abcd")})
    table = icc_levels("d", items, {"raw": slots}, persistent_raters=False, confidence=0.95)
    assert table["form"].tolist() == ["ICC(1,1)", "ICC(1,k)"] and table["value"].iloc[0] == -1.0
    assert np.isnan(table["value"].iloc[1]) and table[["ci_low", "ci_high"]].isna().all().all()
    assert table["note"].str.contains("the item means are all equal (no variance between items)", regex=False).all()
    same = pd.DataFrame({"item_id": np.repeat(list("abcd"), 2), "rater": ["s1", "s2"] * 4, "score": np.repeat([1.0, 2, 3, 5], 2)})
    table = icc_levels("d", items, {"raw": same}, persistent_raters=False, confidence=0.95)
    assert table["value"].tolist() == [1.0, 1.0] and table["note"].str.endswith("no variance within items: no F-based interval").all()


#: 4 items x 3 raters whose raters differ less than the residuals
SMALL = np.array([[1.0, 2, 3], [3, 1, 2], [2, 3, 1], [2, 2, 3]])


def test_icc2k_beyond_one_is_nan_with_a_note_never_a_reversed_interval():
    """Hand-computed: item means 2, 2, 2, 7/3 and rater means 2, 2, 9/4 about 25/12 give BMS = 1/12,
    JMS = 1/12, EMS = (59 - 12 (25/12)^2 - 1/4 - 1/6) / 6 = 13/12: ICC(2,k) = (1/12 - 13/12) /
    (1/12 + (1/12 - 13/12) / 4) = 6, and Spearman-Brown takes ICC(2,1)'s lower bound (below -1/2)
    past its pole, so the raw interval is reversed. Reported: ICC(2,1) = -2/3 with its interval,
    ICC(2,k) NaN, its row's note says why."""
    from simgold.stages.agreement import icc_levels

    raw = two_way(SMALL, confidence=0.95, raw=True)
    assert raw[0].value == pytest.approx(-2 / 3, abs=1e-12) and raw[1].value == pytest.approx(6.0, abs=1e-12)
    assert raw[1].ci_low > raw[1].ci_high  # the formula's own numbers, as pingouin prints them
    single, average = two_way(SMALL, confidence=0.95)
    assert single == raw[0] and np.isnan([average.value, average.ci_low, average.ci_high]).all()
    ratings = pd.DataFrame({"item_id": np.repeat(list("abcd"), 3), "rater": ["r1", "r2", "r3"] * 4, "score": SMALL.ravel()})
    table = icc_levels("d", pd.DataFrame({"item_id": list("abcd")}), {"raw": ratings}, confidence=0.95)
    assert table["value"].iloc[0] == pytest.approx(-2 / 3, abs=1e-12) and np.isnan(table["value"].iloc[1])
    assert table["note"].tolist() == ["", "ICC(2,k) = 6 lies beyond [-1, 1] (the formula on few items or raters): no value"]
    assert not (table["ci_low"] > table["ci_high"]).any()


@pytest.mark.parametrize("seed", range(3))
def test_no_reported_icc_or_bound_leaves_minus_one_to_one(seed):
    """Small random panels (3-5 items, 2-4 raters): every reported value and bound lies in [-1, 1],
    every interval is in order, and where the formula's value is inside [-1, 1] it is kept."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        X = rng.integers(1, 6, (int(rng.integers(3, 6)), int(rng.integers(2, 5)))).astype(float)
        groups = np.repeat(np.arange(X.shape[0]), X.shape[1])
        for raw, got in ((two_way(X, 0.9, raw=True), two_way(X, 0.9)), (one_way(X.ravel(), groups, 0.9, raw=True), one_way(X.ravel(), groups, 0.9))):
            for r, g in zip(raw, got):
                finite = [x for x in g[1:] if not np.isnan(x)]
                assert all(-1 <= x <= 1 for x in finite) and (np.isnan(g.ci_low) or g.ci_low <= g.ci_high)
                if -1 <= r.value <= 1:
                    assert g.value == r.value
