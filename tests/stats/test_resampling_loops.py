"""Every reported column of the resampling stages against a plain loop written here.

``paired_difference`` (the paired bootstrap of rho_A - rho_B) and ``noise_check`` (noisy copies of
the word vectors) are vectorised; a slip in *what* they resample or threshold (a one-sided p, model
B resampled on other items than model A, the wrong percentile, a curve averaged over the wrong
samples) still gives plausible numbers. Here the same random streams are drawn again (the seeds
come from ``simgold.stats.seeds.seed_for``, as documented) and every statistic is recomputed one
resample at a time with scipy/numpy, on data chosen so that such slips show: unequal sizes, values
that vary, missing values, model differences that straddle 0 and noise curves that are not all
monotonic. Preconditions assert that the data are not degenerate, so the checks keep their teeth.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from simgold.stages.noise import noise_check
from simgold.stages.scores import paired_difference
from simgold.stats.seeds import seed_for

CORRELATION = {"spearman": lambda x, y: spearmanr(x, y)[0], "pearson": lambda x, y: pearsonr(x, y)[0]}
RESAMPLES, SEED, CONFIDENCE = 300, 7, 0.95


def _two_similar_models(n=110):
    """Gold means and two models of about the same quality; NaN in B's sims and in the gold."""
    rng = np.random.default_rng(2024)
    gold = rng.uniform(0, 10, n)
    sim_a = 0.05 * gold + rng.normal(0, 0.35, n)
    sim_b = 0.05 * gold + rng.normal(0, 0.35, n)
    sim_b[rng.choice(n, 9, replace=False)] = np.nan
    gold[rng.choice(n, 3, replace=False)] = np.nan
    return gold, sim_a, sim_b


def _paired_bootstrap_by_loop(metric, gold, sim_a, sim_b):
    """The paired bootstrap, one resample at a time: both models on the same resampled items."""
    ok = ~np.isnan(gold) & ~np.isnan(sim_a) & ~np.isnan(sim_b)
    g, a, b = gold[ok], sim_a[ok], sim_b[ok]
    corr = CORRELATION[metric]
    extra = () if metric == "spearman" else (metric,)
    rng = np.random.default_rng(seed_for(SEED, "ds", "A", "B", "difference", *extra))
    idx = rng.integers(0, len(g), size=(RESAMPLES, len(g)))
    diffs = []
    for rows in idx:
        diffs.append(corr(g[rows], a[rows]) - corr(g[rows], b[rows]))
    diffs = np.array(diffs)
    diffs = diffs[~np.isnan(diffs)]
    below, above = int(np.sum(diffs <= 0)), int(np.sum(diffs >= 0))  # counts: the observed sample is one more
    low, high = np.quantile(diffs, [(1 - CONFIDENCE) / 2, 1 - (1 - CONFIDENCE) / 2])
    return {
        "n_used": int(ok.sum()),
        "value_a": corr(g, a),
        "value_b": corr(g, b),
        "difference": corr(g, a) - corr(g, b),
        "ci_low": low,
        "ci_high": high,
        "p": min(1.0, 2 * (min(below, above) + 1) / (len(diffs) + 1)),
        "one_sided": (below, above),
    }


@pytest.mark.parametrize("metric", ["spearman", "pearson"])
def test_paired_difference_equals_a_plain_bootstrap_loop(metric):
    """value_a, value_b, difference, the percentile CI and the two-sided p, to 1e-12."""
    gold, sim_a, sim_b = _two_similar_models()
    row = paired_difference(
        "ds", "A", "B", gold, sim_a, sim_b, resamples=RESAMPLES, seed=SEED, confidence=CONFIDENCE, metric=metric
    )
    expected = _paired_bootstrap_by_loop(metric, gold, sim_a, sim_b)
    # not degenerate: items dropped for NaN, differences on both sides of 0 (one-sided p != two-sided)
    assert expected["n_used"] < len(gold) and row.n_used == expected["n_used"]
    assert min(expected["one_sided"]) > 0.1 * RESAMPLES and expected["p"] < 0.95
    assert expected["ci_low"] < 0 < expected["ci_high"]
    for column in ("value_a", "value_b", "difference", "ci_low", "ci_high", "p"):
        assert getattr(row, column) == pytest.approx(expected[column], abs=1e-12), f"{metric} {column}"


def test_paired_difference_resamples_both_models_on_the_same_items():
    """B a monotone transform of A: on shared resampled items every Spearman difference is 0."""
    gold, sim_a, _ = _two_similar_models()
    sim_b = np.exp(sim_a)  # the same ranks as A
    sim_b[::11] = np.nan
    row = paired_difference("ds", "A", "B", gold, sim_a, sim_b, resamples=RESAMPLES, seed=SEED)
    assert (row.difference, row.ci_low, row.ci_high, row.p) == (0.0, 0.0, 0.0, 1.0), "resamples not paired"


# --------------------------------------------------------------------------------------------
# noise check

WORDS, DIM, ITEMS, K, M, NOISE_SEED = 13, 7, 20, 7, 5, 3
LEVELS = np.array([0.0, 0.9, 1.0, 1.1])


def _noise_inputs():
    """13 words x 7 dims, 20 items that use every word (none dropped), and an identity pair."""
    rng = np.random.default_rng(17)
    vectors = rng.normal(size=(WORDS, DIM)).astype(np.float32)
    first = np.concatenate([np.arange(WORDS), rng.integers(0, WORDS, ITEMS - WORDS)])
    second = np.concatenate([rng.permutation(WORDS), rng.integers(0, WORDS, ITEMS - WORDS)])
    second[-1] = first[-1]  # an identity pair: cosine 1 up to rounding
    a, b = vectors[first].astype(np.float64), vectors[second].astype(np.float64)
    cosines = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    gold = 5 + 4 * cosines + rng.normal(0, 0.5, ITEMS)  # related to the vectors, so noise lowers the score
    return vectors, first, second, gold


def _noise_scores_by_loop(vectors, first, second, gold, levels=LEVELS):
    """(levels, m, k) Spearman scores, one noisy copy at a time from each level's own stream."""
    streams = np.random.SeedSequence(seed_for(NOISE_SEED, "ds", "mod", "noise")).spawn(len(levels))
    scores = np.empty((len(levels), M, K))
    for li, level in enumerate(levels):
        draws = np.random.default_rng(streams[li]).random((M * K, WORDS, DIM), dtype=np.float32)
        for s in range(M * K):  # sample s belongs to repetition s // k, as noise_check reshapes (m, k)
            noisy = vectors if level == 0 else draws[s] * np.float32(2 * level) - np.float32(level) + vectors
            a, b = noisy[first].astype(np.float64), noisy[second].astype(np.float64)
            sims = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
            scores[li, s // K, s % K] = spearmanr(np.round(sims, 12), gold)[0]
    return scores


def test_noise_check_columns_equal_a_plain_loop():
    """mean, sd, p2_5, p97_5 per level; trend_spearman and monotonic_share over the curves."""
    vectors, first, second, gold = _noise_inputs()
    table = noise_check(
        "ds", "mod", vectors, first, second, gold, levels=LEVELS, k=K, m=M, seed=NOISE_SEED, relative=False
    )
    scores = _noise_scores_by_loop(vectors, first, second, gold)
    decreasing = []
    for j in range(M):  # repetition j's curve: per level, the mean of its own k samples
        curve = [np.mean(scores[li, j]) for li in range(len(LEVELS))]
        decreasing.append(all(curve[i + 1] < curve[i] for i in range(len(curve) - 1)))
    share = sum(decreasing) / M
    pooled_levels, pooled_scores = [], []
    for li, level in enumerate(LEVELS):
        pooled_levels += [level] * (M * K)
        pooled_scores += list(scores[li].ravel())
    trend = spearmanr(pooled_levels, pooled_scores)[0]
    # not degenerate: some curves decrease strictly and some do not; p2.5 and p5 differ at every noisy level
    assert 0 < share < 1
    for li in range(1, len(LEVELS)):
        assert np.quantile(scores[li], 0.025) < np.quantile(scores[li], 0.05)
    for li in range(len(LEVELS)):
        row, pooled = table.iloc[li], scores[li].ravel()
        assert row["mean"] == pytest.approx(np.mean(pooled), abs=1e-12), f"mean at level {li}"
        assert row["sd"] == pytest.approx(np.std(pooled, ddof=1), abs=1e-12), f"sd at level {li}"
        assert row["p2_5"] == pytest.approx(np.quantile(pooled, 0.025), abs=1e-12), f"p2_5 at level {li}"
        assert row["p97_5"] == pytest.approx(np.quantile(pooled, 0.975), abs=1e-12), f"p97_5 at level {li}"
    assert table["trend_spearman"].to_numpy() == pytest.approx(np.full(len(LEVELS), trend), abs=1e-12)
    assert (table["monotonic_share"] == share).all(), f"monotonic_share {table['monotonic_share'].iloc[0]} != {share}"


def test_noise_check_a_plateau_is_not_a_strict_decrease():
    """A level below float32's resolution leaves the scores as at 0: no curve decreases strictly."""
    vectors, first, second, gold = _noise_inputs()
    levels = np.array([0.0, 1e-9, 0.9])
    table = noise_check(
        "ds", "mod", vectors, first, second, gold, levels=levels, k=K, m=M, seed=NOISE_SEED, relative=False
    )
    scores = _noise_scores_by_loop(vectors, first, second, gold, levels)
    assert (scores[1] == scores[0]).all() and (scores[2].mean(axis=1) < scores[0].mean(axis=1)).all()
    assert (table["monotonic_share"] == 0).all(), "a flat step counted as a decrease"


def test_bootstrap_p_counts_the_observed_sample_and_is_never_0():
    """Issue 41: a bootstrap p is at least 1 / (B + 1). Hand-computed: B = 4 defined differences, one
    of them <= 0: two-sided 2 (1 + 1) / 5 = 0.8; none <= 0: 2 / 5, one-sided (above 0) 1 / 5, (below
    0) (4 + 1) / 5; a difference of exactly 0 counts on both sides; every one 0: 1, not 2."""
    from simgold.stats.resampling import bootstrap_p

    assert bootstrap_p(np.array([0.1, 0.2, -0.1, 0.3, np.nan])) == 0.8
    above = np.array([0.1, 0.2, 0.3, 0.4])
    assert (bootstrap_p(above), bootstrap_p(above, "greater"), bootstrap_p(above, "less")) == (0.4, 0.2, 1.0)
    assert bootstrap_p(np.array([0.0, 0.1, 0.2, 0.3, 0.4])) == 2 * 2 / 6
    assert bootstrap_p(np.zeros(9)) == 1.0 and np.isnan(bootstrap_p(np.array([np.nan])))
    with pytest.raises(ValueError, match="alternative 'above'"):
        bootstrap_p(above, "above")
