"""The rank-correlation engine of the agreement stage (docs/methods.md section 4): pairwise Spearman
over shared items, vs_mean and vs_rest, interval alpha, sparse at crowd scale; and what it rests on:
the grouped ranks (``stats.grouped_ranks``) and the ranks and correlations of plain vectors
(``stats.correlation``).

Reference values come from scipy loops written out here, pandas' pairwise-complete
``DataFrame.corr(method="spearman")``, numpy's dense sums, the `krippendorff` package and
Krippendorff's worked example, not from the code under test.
"""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

import simgold.stats.correlation as correlation
import simgold.stats.grouped_ranks as grouped_ranks
import simgold.stats.rank_correlation as ag
from simgold.stats.rank_correlation import (
    PairResult,
    RatingMatrix,
    agreement,
    pairwise_spearman,
    row_sums,
    vs_reference,
)

from ..conftest import loop_pairwise


def random_matrix(seed, n=60, R=15, density=0.6, levels=7, complete=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, R)).astype(float)
    X[rng.random((n, R)) > density] = np.nan
    X[:, :complete] = rng.integers(0, levels, size=(n, complete))
    X[:, complete] = np.where(np.isnan(X[:, complete]), np.nan, 3.0)  # a constant rater
    X[: n - 4, R - 1] = np.nan  # a rater who shares too few items with anyone
    return X


def spearman(X, min_overlap=5, previous=None) -> PairResult:
    return pairwise_spearman(RatingMatrix.from_dense(X), min_overlap, previous)


def small_blocks(monkeypatch):
    """Every bound tiny: many blocks of triples and rows, and ranks by sorting as well as counting."""
    monkeypatch.setattr(ag, "CHUNK_ENTRIES", 50)
    monkeypatch.setattr(ag, "BLOCK_CELLS", 40)
    monkeypatch.setattr(ag, "ROW_CELLS", 30)
    monkeypatch.setattr(grouped_ranks, "RANK_TABLE_CELLS", 60)


@pytest.mark.parametrize("seed", range(6))
def test_pairwise_equals_scipy_loop(seed):
    X = random_matrix(seed, levels=3 + seed)
    res = spearman(X, min_overlap=5)
    rho, few, constant = loop_pairwise(X)
    np.testing.assert_allclose(res.dense(), rho, atol=1e-12, equal_nan=True)
    assert (res.n_few, res.n_constant) == (few, constant)
    assert res.n_pairs == int(np.triu(~np.isnan(rho), 1).sum())


def test_pairwise_with_continuous_values_and_small_blocks(monkeypatch):
    small_blocks(monkeypatch)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 20)).round(2)
    X[rng.random(X.shape) < 0.5] = np.nan
    X[:, :2] = rng.normal(size=(80, 2)).round(1)  # two complete raters
    np.testing.assert_allclose(spearman(X).dense(), loop_pairwise(X)[0], atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("seed", range(3))
def test_sparse_crowd_equals_pandas_pairwise_complete_corr(monkeypatch, seed):
    """Many raters with few ratings each: pandas ranks every pair on its shared items, as we do."""
    if seed == 2:
        small_blocks(monkeypatch)
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 7, size=(150, 120)).astype(float)
    X[rng.random(X.shape) > 0.15] = np.nan
    X[:, 0] = rng.integers(0, 7, 150)  # a complete rater among the others
    res = spearman(X, min_overlap=4)
    expected = pd.DataFrame(X).corr(method="spearman", min_periods=4).to_numpy().copy()
    np.fill_diagonal(expected, np.nan)
    np.testing.assert_allclose(res.dense(), expected, atol=1e-12, equal_nan=True)
    assert 0 < res.n_pairs < 120 * 119 // 2 and res.n_few > 0  # only some pairs share 4 items


def test_incremental_update_equals_full_recomputation():
    X = random_matrix(3)
    before = spearman(X)
    X2 = X.copy()
    X2[:, [1, 6]] = np.clip(X2[:, [1, 6]] + 1, 0, 6)  # a complete rater and another one
    m, m2 = RatingMatrix.from_dense(X), RatingMatrix.from_dense(X2)
    np.testing.assert_allclose(
        pairwise_spearman(m2, previous=(m, before), min_overlap=5).dense(),
        loop_pairwise(X2)[0],
        atol=1e-12,
        equal_nan=True,
    )
    assert pairwise_spearman(m, previous=(m, before), min_overlap=5) is before


def test_incremental_update_when_a_rater_loses_ratings():
    # the counts of too-few and constant pairs follow the new missing values, as a full loop has them
    X = random_matrix(4)
    before = spearman(X)
    X2 = X.copy()
    X2[5:, 0] = np.nan  # rater 0 keeps 5 ratings: below min_overlap with most raters
    res = pairwise_spearman(RatingMatrix.from_dense(X2), previous=(RatingMatrix.from_dense(X), before), min_overlap=5)
    rho, few, constant = loop_pairwise(X2)
    np.testing.assert_allclose(res.dense(), rho, atol=1e-12, equal_nan=True)
    assert (res.n_few, res.n_constant) == (few, constant) and few > before.n_few


def test_restricted_pairs_equal_the_pairs_of_the_kept_raters():
    X = random_matrix(5)
    keep = np.ones(X.shape[1], dtype=bool)
    keep[[1, 4, 9]] = False
    res = spearman(X).restrict(keep)
    rho, few, constant = loop_pairwise(X[:, keep])
    np.testing.assert_allclose(res.dense(), rho, atol=1e-12, equal_nan=True)
    assert (res.n_raters, res.n_few, res.n_constant) == (keep.sum(), few, constant)


def test_rater_means_and_row_sums_are_numpys_dense_sums_to_the_bit(monkeypatch):
    small_blocks(monkeypatch)
    rng = np.random.default_rng(2)
    X = rng.normal(size=(70, 40)).round(1)  # tenths: sums depend on their order
    X[rng.random(X.shape) < 0.4] = np.nan
    rho = spearman(X, min_overlap=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(rho.rater_means(), np.nanmean(rho.dense(), axis=1))
    m = RatingMatrix.from_dense(X)
    np.testing.assert_array_equal(row_sums([(m.item, m.rater, m.score)], m.shape), np.nansum(X, axis=1))
    halves = np.round(X * 2) / 2  # on a grid of 1/2 every order gives the same sum
    m = RatingMatrix.from_dense(halves)
    np.testing.assert_array_equal(row_sums([(m.item, m.rater, m.score)], m.shape), np.nansum(halves, axis=1))


def test_argsort_ints_packed_and_not():
    rng = np.random.default_rng(0)
    for high in (50, 2**62):  # keys that fit beside their positions in 63 bits, and keys that do not
        key = rng.integers(0, high, 5000) // 7  # ties
        order = grouped_ranks.argsort_ints(key)
        assert np.array_equal(key[order], np.sort(key)) and np.array_equal(np.sort(order), np.arange(5000))


@pytest.mark.parametrize("table_cells", [grouped_ranks.RANK_TABLE_CELLS, 0], ids=["counting sort", "sort"])
def test_weighted_group_ranks_are_the_ranks_of_the_entries_repeated(table_cells, monkeypatch):
    """An entry of weight k is k tied entries (an item drawn k times): its rank, and the groups'
    counts and sums, are those of the entries repeated (weight 0: left out)."""
    monkeypatch.setattr(grouped_ranks, "RANK_TABLE_CELLS", table_cells)
    rng = np.random.default_rng(0)
    group, code, weight = rng.integers(0, 6, 400), rng.integers(0, 5, 400), rng.integers(0, 4, 400)
    ranks, sums = grouped_ranks.group_ranks(group, code, 7, 5, weight.astype(float))  # group 6 has no entry
    repeated = np.repeat(np.arange(400), weight)
    ranks_of_copies, sums_of_copies = grouped_ranks.group_ranks(group[repeated], code[repeated], 7, 5)
    np.testing.assert_array_equal(ranks[repeated], ranks_of_copies)
    for got, expected in zip(sums, sums_of_copies):
        np.testing.assert_array_equal(got, expected)


def test_rating_matrix_keeps_the_last_of_two_scores_and_drops_nan():
    m = RatingMatrix.from_entries(
        np.array([1, 0, 1, 2]), np.array([0, 0, 0, 1]), np.array([3.0, 1.0, 5.0, np.nan]), ["a", "b", "c"], ["r", "s"]
    )
    expected = np.array([[1.0, np.nan], [5.0, np.nan], [np.nan, np.nan]])
    np.testing.assert_array_equal(m.dense(), expected)
    np.testing.assert_array_equal(m.subset(np.array([False, True, True])).dense(), expected[1:])
    np.testing.assert_array_equal(m.keep_raters(np.array([False, True])).dense(), expected[:, 1:])


@pytest.mark.parametrize("seed", range(4))
def test_vs_mean_and_vs_rest_equal_scipy(seed):
    X = random_matrix(seed)
    vm, vr = vs_reference(RatingMatrix.from_dense(X), min_overlap=5)
    mean = np.nanmean(X, axis=1)
    for a in range(X.shape[1]):
        m = ~np.isnan(X[:, a])
        others = np.delete(X, a, axis=1)
        has_other = (~np.isnan(others)).any(axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref_m = spearmanr(X[m, a], mean[m])[0] if m.sum() >= 5 else np.nan
            rest = np.nanmean(others[m & has_other], axis=1)
            ref_r = spearmanr(X[m & has_other, a], rest)[0] if (m & has_other).sum() >= 5 else np.nan
        np.testing.assert_allclose([vm[a], vr[a]], [ref_m, ref_r], atol=1e-12, equal_nan=True)


def test_alpha_krippendorff_worked_example():
    nan = np.nan
    data = np.array(  # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", 4 coders x 12 units
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
            [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
        ]
    )
    assert agreement(RatingMatrix.from_dense(data.T), min_overlap=5).alpha == pytest.approx(0.849, abs=5e-4)


@pytest.mark.parametrize("seed", range(4))
def test_alpha_equals_krippendorff_package(seed):
    X = random_matrix(seed)
    expected = krippendorff.alpha(reliability_data=X.T, level_of_measurement="interval")
    assert agreement(RatingMatrix.from_dense(X), min_overlap=5).alpha == pytest.approx(expected, abs=1e-12)


def test_rankdata_is_scipys_to_the_bit():
    """Ranks without scipy.stats: equal, bit for bit, to scipy's on ties, floats, NaN and empty input."""
    from scipy.stats import rankdata as scipy_rankdata

    from simgold.stats.correlation import rankdata

    rng = np.random.default_rng(7)
    for _ in range(200):
        n, levels = int(rng.integers(0, 30)), int(rng.integers(1, 6))
        x = rng.integers(0, levels, size=n).astype(float) if rng.random() < 0.7 else rng.normal(size=n)
        assert np.array_equal(rankdata(x), scipy_rankdata(x))
        block = rng.integers(0, levels, size=(4, n)).astype(float)
        if n:
            block[1, int(rng.integers(0, n))] = np.nan  # the row (axis 1) or the column (axis 0) becomes NaN
        for axis in (0, 1):
            assert np.array_equal(rankdata(block, axis=axis), scipy_rankdata(block, axis=axis), equal_nan=True)
    assert rankdata([3.0, 1.0, 3.0, 2.0]).tolist() == [3.5, 1.0, 3.5, 2.0]  # by hand


def test_rankdata_omitting_nan_is_scipys_to_the_bit():
    """``nan_policy="omit"`` (split-half reliability): NaN stays NaN, the rest ranked among themselves,
    as scipy ranks them, with ties, infinities and whole NaN slices."""
    from scipy.stats import rankdata as scipy_rankdata

    from simgold.stats.correlation import rankdata

    rng = np.random.default_rng(11)
    for trial in range(200):
        shape = (int(rng.integers(1, 30)), int(rng.integers(1, 8)))
        x = rng.integers(0, 5, size=shape).astype(float) + (rng.random(shape) if trial % 2 else 0.0)
        x[rng.random(shape) < 0.25] = np.nan
        x[rng.random(shape) < 0.05] = np.inf
        for axis in (0, 1):
            ours, scipys = rankdata(x, axis=axis, nan_policy="omit"), scipy_rankdata(x, axis=axis, nan_policy="omit")
            assert np.array_equal(ours, scipys, equal_nan=True)
    assert np.array_equal(rankdata([2.0, np.nan, 1.0, 2.0], nan_policy="omit"), [2.5, np.nan, 1.0, 2.5], equal_nan=True)
    with pytest.raises(ValueError, match="nan_policy"):
        rankdata([1.0], nan_policy="raise")


def test_spearman_is_scipys_on_levels_ties_and_constants():
    """Spearman (the noise trend, the translation correlations, the scores): scipy's statistic to
    1e-12 on repeated levels and tied scores; NaN for a constant input, as scipy."""
    import warnings

    from scipy.stats import spearmanr

    from simgold.stats.correlation import spearman

    rng = np.random.default_rng(5)
    for trial in range(100):
        per_level = int(rng.integers(1, 300))
        levels = np.repeat(np.round(0.2 * np.arange(int(rng.integers(2, 17))), 10), per_level)
        scores = rng.random(len(levels))
        scores = np.round(scores, 2) if trial % 2 else scores - 0.3 * levels
        assert spearman(levels, scores) == pytest.approx(spearmanr(levels, scores)[0], abs=1e-12, rel=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        flat = np.ones(len(levels))
        assert np.isnan(spearman(levels, flat)) and np.isnan(spearmanr(levels, flat)[0])


def test_pearson_is_scipys_on_random_tied_and_constant_inputs():
    """Pearson (CoSimLex subtask 2, the scores): scipy's statistic to 1e-12, on lengths from 3 to
    800, magnitudes from 1e-3 to 1e3 and rounded (tied) values; NaN for a constant input (also
    one whose mean rounds away from its value), as scipy."""
    import warnings

    from scipy.stats import pearsonr

    from simgold.stats.correlation import pearson

    rng = np.random.default_rng(8)
    for trial in range(1000):
        n = int(rng.integers(3, 800))
        x = rng.normal(size=n) * 10 ** rng.uniform(-3, 3)
        y = 0.3 * x / np.abs(x).max() + rng.normal(size=n)
        if trial % 3 == 0:
            x, y = np.round(x, 1), np.round(rng.uniform(0, 10, n))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a rounded input can be constant: NaN, checked as such
            ours, theirs = pearson(x, y), pearsonr(x, y)[0]
        assert ours == pytest.approx(theirs, abs=1e-12, rel=0, nan_ok=True), (trial, ours, theirs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for flat in (np.full(5, 0.7), np.full(7, 0.1)):  # 7 x 0.1 has a mean of 0.09999999999999999
            assert np.isnan(pearson(flat, np.arange(len(flat)))) and np.isnan(pearsonr(flat, np.arange(len(flat)))[0])
            assert np.isnan(pearson(np.arange(len(flat)), flat))


def test_row_correlations_are_scipys_row_by_row():
    """The vectorised forms (the bootstrap's resamples, the noise copies) equal scipy's pearsonr and
    spearmanr on each row to 1e-12, with a 1-D second argument broadcast over the rows and a
    constant row giving NaN."""
    import warnings

    from scipy.stats import pearsonr, spearmanr

    from simgold.stats.correlation import pearson_rows, spearman_rows

    rng = np.random.default_rng(12)
    x = np.round(rng.normal(size=(60, 50)), 1)  # ties
    y = rng.normal(size=(60, 50)) + 0.5 * x
    x[7] = 3.0  # a constant row
    gold = np.round(rng.uniform(0, 5, 50), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ours, reference in ((pearson_rows, pearsonr), (spearman_rows, spearmanr)):
            np.testing.assert_allclose(
                ours(x, y), [reference(a, b)[0] for a, b in zip(x, y)], rtol=0, atol=1e-12, equal_nan=True
            )
            np.testing.assert_allclose(
                ours(y, gold), [reference(b, gold)[0] for b in y], rtol=0, atol=1e-12, equal_nan=True
            )
    assert np.isnan(pearson_rows(x, y)[7]) and np.isnan(spearman_rows(x, y)[7])


def test_group_ranks_of_nothing_is_empty_groups():
    """One rater, or raters sharing no item, leave nothing to rank in a resample: empty groups, no IndexError."""
    from simgold.stats.grouped_ranks import group_ranks

    empty = np.empty(0, dtype=np.int64)
    for weight in (None, np.empty(0)):
        ranks, (n, s, ss) = group_ranks(empty, empty, 3, 5, weight)
        assert len(ranks) == 0 and n.tolist() == s.tolist() == ss.tolist() == [0.0, 0.0, 0.0]


def test_vs_mean_needs_an_item_with_two_ratings():
    """One rater, or raters who share no item: every item's mean is its one rating, and vs_mean
    would be 1 whatever the ratings. It is NaN; one shared item brings it back."""
    one = RatingMatrix.from_dense(np.arange(8.0)[:, None])
    apart = RatingMatrix.from_dense(np.array([[1.0, np.nan]] * 3 + [[np.nan, 2.0]] * 3) + np.arange(6.0)[:, None])
    for m in (one, apart):
        vs_mean, vs_rest = ag.vs_reference(m, min_overlap=3)
        assert np.isnan(vs_mean).all() and np.isnan(vs_rest).all()
    X = np.array([[1.0, np.nan]] * 3 + [[np.nan, 2.0]] * 3 + [[4.0, 5.0]]) + np.arange(7.0)[:, None]
    vs_mean, _ = ag.vs_reference(RatingMatrix.from_dense(X), min_overlap=3)
    assert vs_mean.tolist() == [1.0, 1.0]  # each rater's items ranked as their means rank them


def test_why_a_correlation_is_undefined():
    note = correlation.undefined_correlation_note
    assert note([1.0, 2.0, 3.0], [3.0, 1.0, 2.0]) == ""
    assert note([1.0, np.nan, 3.0, 2.0], [1.0, 2.0, np.nan, 3.0]) == (
        "2 items with a gold score and a similarity: a correlation needs 3 or more"
    )  # only the items with both count
    assert note([1.0], what="m") == "1 item with a gold score: a correlation needs 3 or more"
    constant_gold = note([2.5, 2.5, 2.5], [1.0, 2.0, 3.0])
    assert constant_gold == "the gold standard gives every item the same score (2.5): no correlation"
    constant_sim = note([1.0, 2.0, 3.0], [0.5, 0.5, 0.5], what="glove")
    assert constant_sim == "glove gives every pair the same similarity: no correlation"
    # where the note says so, the correlations are NaN
    assert np.isnan(correlation.spearman([2.5, 2.5, 2.5], [1.0, 2.0, 3.0]))
    assert np.isnan(correlation.pearson([1.0, 2.0, 3.0], [0.5] * 3))


@pytest.mark.parametrize("levels", [7, 40])  # a table of codes per partner; buckets sorted past TABLE_CODES codes
def test_compiled_pairs_are_numpys_to_the_bit(monkeypatch, levels):
    """The numba loops (pair_kernel) and numpy's way (no numba: shared_items' blocks, row_sums,
    masks) give the same pairs, values, incremental update, restriction and rater means, bit for bit."""
    import simgold.stats.pair_kernel as pair_kernel

    monkeypatch.setattr(pair_kernel, "PAIR_BLOCK", 40)  # many output blocks
    monkeypatch.setattr(pair_kernel, "COMPILED_FROM", 0)  # compiled however small the job
    monkeypatch.setattr(ag, "CHUNK_ENTRIES", 50)  # numpy's way: many blocks of triples
    rng = np.random.default_rng(levels)
    X = random_matrix(levels, n=80, R=30, density=0.4, levels=levels)
    X2 = X.copy()
    X2[:, [1, 6, 7]] += 0.5  # a complete rater and two others change
    keep = np.ones(X.shape[1], dtype=bool)
    keep[rng.choice(X.shape[1], 5, replace=False)] = False

    def run():
        m, m2 = RatingMatrix.from_dense(X), RatingMatrix.from_dense(X2)
        first = pairwise_spearman(m, 5)
        second = pairwise_spearman(m2, 5, previous=(m, first))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parts = [(p.a, p.b, p.rho, p.rater_means()) for p in (first, second, second.restrict(keep))]
        return [np.asarray(x, float) for part in parts for x in part]

    compiled = run()
    assert pair_kernel.kernels()  # numba is there, so the first run was compiled
    monkeypatch.setattr(ag, "kernels_for", lambda triples=None: {})
    for ours, numpy_way in zip(compiled, run(), strict=True):
        np.testing.assert_array_equal(ours, numpy_way)
    rho, few, constant = loop_pairwise(X2)  # and both are the scipy loop's
    np.testing.assert_allclose(spearman(X2).dense(), rho, atol=1e-12, equal_nan=True)
    assert len(compiled[4]) == X.shape[1] * (X.shape[1] - 1) // 2 - few


def test_a_job_takes_the_compiled_loops_from_its_count_of_triples(monkeypatch):
    """The (pair, shared item) triples that decide whether numba loads are counted from the dense
    matrix (pairs of raters sharing each item), and a small job in a fresh process loads no numba."""
    import subprocess
    import sys

    from simgold.stats.pair_kernel import COMPILED_FROM, triples_of

    X = random_matrix(3, n=50, R=12, density=0.5)
    rated = ~np.isnan(X)
    all_pairs = sum(int(rated[i, a] and rated[i, b]) for i in range(50) for a in range(12) for b in range(a + 1, 12))
    changed = np.zeros(12, dtype=bool)
    changed[[2, 5]] = True
    with_changed = sum(
        int(rated[i, a] and rated[i, b]) for i in range(50) for a in (2, 5) for b in range(12) if b != a
    )  # a pair of two changed raters counted from both
    m = RatingMatrix.from_dense(X)
    assert (triples_of(m, None), triples_of(m, changed)) == (all_pairs, with_changed)
    code = (
        "import sys, numpy as np\n"
        "import simgold.stats.pair_kernel as pk\n"
        "from simgold.stats.rank_correlation import RatingMatrix, pairwise_spearman\n"
        "X = np.random.default_rng(0).integers(0, 7, (2000, 1000)).astype(float)\n"
        "X[np.random.default_rng(1).random(X.shape) > 0.1] = np.nan\n"
        "m = RatingMatrix.from_dense(X)\n"
        "if sys.argv[1] == 'at': pk.COMPILED_FROM = pk.triples_of(m, None)  # this job just reaches it\n"
        "pairs = pairwise_spearman(m, 5)\n"
        "means, kept = pairs.rater_means(), pairs.restrict(np.arange(1000) % 3 > 0)\n"
        "print(pk.triples_of(m, None), pairs.n_pairs, kept.n_pairs, np.nansum(means), 'numba' in sys.modules)\n"
    )
    small, at = (
        subprocess.run([sys.executable, "-c", code, arg], capture_output=True, text=True, check=True).stdout.split()
        for arg in ("small", "at")
    )
    assert int(small[0]) < COMPILED_FROM and small[-1] == "False"  # ~10 M triples: numpy's blocks, no numba
    assert at[-1] == "True" and small[:-1] == at[:-1]  # compiled at the threshold: the same pairs and means
