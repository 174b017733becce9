"""Best-Worst Scaling statistics: counting against plain counts, a hand-computed example and the
counting of bwsample and maxdiff (PyPI); the MaxDiff fit against an independent dense
maximum-likelihood fit, choix's Bradley-Terry (k = 2) and a numerically differentiated Hessian;
a simulated crowd (tests/stats/bws_crowd.py) whose truth counting and the logit recover, whose
split-half reliability the simulation predicts and whose random clicker is the rater flagged;
the edge cases."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import pearsonr, spearmanr

from simgold.stats.bws import (
    CodedAnswers,
    answers_needed,
    coded_answers,
    counting_intervals,
    counting_scores,
    maxdiff_accuracy,
    rater_agreement,
    split_half,
)
from simgold.stats.maxdiff_model import maxdiff_fit
from simgold.stats.resampling import draws, halves_within_groups

from ..conftest import peer
from .bws_crowd import simulate

# a small hand-made study: (rater, tuple, best, worst)
HAND = [
    ("ann", ("a", "b", "c", "d"), "a", "d"),
    ("bob", ("a", "b", "c", "d"), "b", "d"),
    ("cat", ("a", "b", "c", "d"), "a", "c"),
    ("ann", ("b", "c", "e", "f"), "e", "f"),
    ("bob", ("b", "c", "e", "f"), "e", "c"),
    ("cat", ("a", "d", "e", "f"), "a", "f"),
    ("ann", ("c", "d", "e"), "e", "d"),  # k = 3 in the same study
]
NAMES = sorted({w for _, t, _, _ in HAND for w in t})


def plain_counting(a, rows, n_items):
    """Counting scores of the answers ``rows`` by a plain loop: (best - worst) / shown, NaN unshown."""
    net, shown = np.zeros(n_items), np.zeros(n_items)
    for j in rows:
        shown[a.tuples[j][a.tuples[j] >= 0]] += 1
        net[a.best[j]] += 1
        net[a.worst[j]] -= 1
    return np.where(shown > 0, net / np.where(shown > 0, shown, 1), np.nan)


def _coded(rows=HAND, names=NAMES) -> CodedAnswers:
    """The answers through the long-array constructor, as the stage hands them over."""
    code = {w: i for i, w in enumerate(names)}
    raters = sorted({r for r, *_ in rows})
    tuple_ids = {t: i for i, t in enumerate(dict.fromkeys(t for _, t, _, _ in rows))}
    long = []
    for answer, (rater, tup, best, worst) in enumerate(rows):
        for position, w in enumerate(tup, start=1):
            choice = 1 if w == best else -1 if w == worst else 0
            long.append((answer, position, code[w], choice, tuple_ids[tup], raters.index(rater)))
    cols = [np.array(c) for c in zip(*long)]
    return coded_answers(*cols, n_items=len(names))


# -------------------------------------------------------------------------------- counting


def test_counting_against_a_plain_count():
    shown, best, worst = Counter(), Counter(), Counter()
    for _, tup, b, w in HAND:
        for item in tup:
            shown[item] += 1
        best[b] += 1
        worst[w] += 1
    s = counting_scores(_coded())
    for i, name in enumerate(NAMES):
        assert s.n_shown[i] == shown[name] and s.n_best[i] == best[name] and s.n_worst[i] == worst[name]
        assert s.score[i] == (best[name] - worst[name]) / shown[name]


def test_counting_by_hand():
    # a: shown 4 (three abcd, one adef), best 3 -> 3/4; d: shown 5, worst 3 -> -3/5; e: shown 4, best 3 -> 3/4
    # f: shown 3, worst 2 -> -2/3; c: shown 6, worst 2 -> -1/3; b: shown 5, best 1 -> 1/5
    s = counting_scores(_coded()).score
    assert s.tolist() == [0.75, 0.2, -1 / 3, -0.6, 0.75, -2 / 3]
    a = _coded()
    assert a.tuples.shape == (7, 4) and a.tuples[6].tolist() == [2, 3, 4, -1]  # the 3-tuple padded with -1
    unseen = counting_scores(CodedAnswers(a.tuples, a.best, a.worst, 8, a.tuple_code, a.rater))
    assert np.isnan(unseen.score[6:]).all() and unseen.n_shown[6:].tolist() == [0, 0]


def test_counting_against_bwsample():
    bwsample = peer("bwsample")
    # bwsample's scoring_orme divides best minus worst by the number of ALL answers, not by the
    # item's showings (Orme's definition as Kiritchenko & Mohammad use it), and leaves out items
    # never chosen: the numerators agree exactly, and the scores wherever every item is shown in
    # every answer. Its states: 1 best, 2 worst, 0 neither.
    rows = [r for r in HAND if len(r[1]) == 4]
    evaluations = [([1 if w == b else 2 if w == x else 0 for w in t], list(t)) for _, t, b, x in rows]
    ids, scores = bwsample.scoring_orme(evaluations)
    ours = counting_scores(_coded(rows))
    for name, score in zip(ids, scores):
        i = NAMES.index(name)
        assert score * len(rows) == pytest.approx(ours.n_best[i] - ours.n_worst[i], abs=1e-12)
    same = [("r", ("a", "b", "c", "d"), b, w) for b, w in [("a", "d"), ("b", "d"), ("a", "c"), ("c", "b")]]
    ids, scores = bwsample.scoring_orme([([1 if w == b else 2 if w == x else 0 for w in t], list(t))
                                         for _, t, b, x in same])  # fmt: skip
    ours = counting_scores(_coded(same, ["a", "b", "c", "d"])).score
    assert dict(zip(ids.tolist(), scores.tolist())) == pytest.approx({"a": 0.5, "b": 0.0, "c": 0.0, "d": -0.5})
    assert ours.tolist() == [0.5, 0.0, 0.0, -0.5]


def test_counting_against_maxdiff():
    peer("maxdiff")
    import pandas as pd
    from maxdiff import calculate_scores_no_ci, perform_maxdiff_analysis

    # maxdiff's net score is ours times 100 (percent); an item never shown gets 0 there, NaN here
    rows = [r for r in HAND if len(r[1]) == 4]
    a = _coded(rows)
    ours = counting_scores(CodedAnswers(a.tuples, a.best, a.worst, 7, a.tuple_code, a.rater)).score
    theirs = perform_maxdiff_analysis(a.tuples, a.best, a.worst, np.arange(7))["Score"].to_numpy()
    np.testing.assert_allclose(theirs[:6], 100 * ours[:6], rtol=1e-14)
    assert theirs[6] == 0 and np.isnan(ours[6])
    df = pd.DataFrame([list(t) + [b, w] for _, t, b, w in rows], columns=["i1", "i2", "i3", "i4", "best", "worst"])
    table = calculate_scores_no_ci(df, ["i1", "i2", "i3", "i4"], "best", "worst").set_index("Item")["Score"]
    assert {n: table[n] for n in NAMES} == pytest.approx({n: 100 * s for n, s in zip(NAMES, ours[:6])}, rel=1e-14)


def test_counting_intervals_are_the_plain_bootstrap_of_the_same_draws():
    a = _coded()
    low, high = counting_intervals(a, 300, np.random.default_rng(5), 0.9)
    idx = draws(a.n_answers, 300, np.random.default_rng(5))  # one block: the same draws
    boot = np.full((300, len(NAMES)), np.nan)
    for r, row in enumerate(idx):
        shown, net = np.zeros(len(NAMES)), np.zeros(len(NAMES))
        for j in row:
            for item in a.tuples[j][a.tuples[j] >= 0]:
                shown[item] += 1
            net[a.best[j]] += 1
            net[a.worst[j]] -= 1
        boot[r] = np.where(shown > 0, net / np.where(shown > 0, shown, 1), np.nan)
    for i in range(len(NAMES)):
        defined = boot[:, i][~np.isnan(boot[:, i])]
        assert (low[i], high[i]) == pytest.approx(tuple(np.quantile(defined, [0.05, 0.95])), abs=1e-12)


def test_counting_intervals_by_rater_resample_whole_raters():
    a = _coded()
    low, high = counting_intervals(a, 300, np.random.default_rng(2), 0.9, by="raters")
    idx = draws(3, 300, np.random.default_rng(2))
    boot = []
    for row in idx:
        weights = np.bincount(row, minlength=3)[a.rater].astype(float)
        shown = np.zeros(len(NAMES))
        net = np.zeros(len(NAMES))
        for j, wt in enumerate(weights):
            shown[a.tuples[j][a.tuples[j] >= 0]] += wt
            net[a.best[j]] += wt
            net[a.worst[j]] -= wt
        boot.append(np.where(shown > 0, net / np.where(shown > 0, shown, 1), np.nan))
    boot = np.array(boot)
    for i in range(len(NAMES)):
        defined = boot[:, i][~np.isnan(boot[:, i])]
        assert (low[i], high[i]) == pytest.approx(tuple(np.quantile(defined, [0.05, 0.95])), abs=1e-12)
    with pytest.raises(ValueError, match="by="):
        counting_intervals(a, 10, np.random.default_rng(0), 0.9, by="items")


# -------------------------------------------------------------------------------- the MaxDiff model


def _dense_objective(u, rows, penalty):
    """-loglik over every ordered pair of each answer, written out, plus the penalty."""
    value = 0.5 * penalty * float(u @ u)
    for tup, b, w in rows:
        pairs = [u[i] - u[j] for i in tup for j in tup if i != j]
        value -= (u[b] - u[w]) - np.log(np.sum(np.exp(pairs)))
    return value


def _rows(a):
    return [([int(i) for i in t if i >= 0], int(b), int(w)) for t, b, w in zip(a.tuples, a.best, a.worst)]


def test_maxdiff_fit_against_a_dense_maximum_likelihood_fit():
    a = _coded()
    fit = maxdiff_fit(a, penalty=0.1)
    rows = _rows(a)
    ref = minimize(_dense_objective, np.zeros(len(NAMES)), args=(rows, 0.1), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(fit.utility, ref.x - ref.x.mean(), atol=1e-5)
    assert fit.converged and abs(fit.utility.sum()) < 1e-12 and fit.penalty == 0.1
    assert fit.log_likelihood == pytest.approx(-_dense_objective(fit.utility, rows, 0.0), abs=1e-10)
    # the ordering follows counting here: a and e lead, d and f trail
    assert set(np.argsort(fit.utility)[-2:]) == {0, 4} and set(np.argsort(fit.utility)[:2]) == {3, 5}


def test_maxdiff_fit_is_bradley_terry_for_pairs():
    choix = peer("choix")
    rng = np.random.default_rng(3)
    pairs = [tuple(rng.choice(6, 2, replace=False)) for _ in range(80)]
    strength = np.array([1.0, 0.5, 0.2, 0.0, -0.4, -1.0])
    won = [(i, j) if rng.random() < 1 / (1 + np.exp(strength[j] - strength[i])) else (j, i) for i, j in pairs]
    a = CodedAnswers(np.array(won), np.array([w for w, _ in won]), np.array([lo for _, lo in won]), 6,
                     np.arange(80), np.full(80, -1))  # fmt: skip
    # P(i over j) = exp(u_i - u_j) / (exp(u_i - u_j) + exp(u_j - u_i)) = logistic(2 (u_i - u_j)): theta = 2u;
    # our penalty / 2 * sum(u^2) = penalty / 8 * sum(theta^2), choix's alpha * sum(theta^2): alpha = penalty / 8
    fit = maxdiff_fit(a, penalty=0.4)
    theta = choix.opt_pairwise(6, won, alpha=0.4 / 8, method="BFGS", tol=1e-10)
    np.testing.assert_allclose(2 * fit.utility, theta - theta.mean(), atol=1e-6)
    assert abs(theta.mean()) < 1e-6  # the penalty centres choix's fit too


def test_an_item_always_chosen_best_gets_a_finite_utility():
    t = np.array([[0, 1, 2, 3], [0, 2, 4, 5], [0, 1, 3, 5], [1, 2, 4, 5]])
    a = CodedAnswers(t, np.array([0, 0, 0, 1]), np.array([3, 4, 5, 5]), 6, np.arange(4), np.full(4, -1))
    fit = maxdiff_fit(a)
    assert fit.converged and np.isfinite(fit.utility).all() and np.isfinite(fit.se).all()
    assert fit.utility[0] == fit.utility.max() and 2.0 < fit.utility[0] < 10.0
    stronger = maxdiff_fit(a, penalty=1.0)
    assert stronger.utility[0] < fit.utility[0]  # the penalty shrinks it


def test_standard_errors_are_the_inverse_of_a_numerical_hessian():
    a = _coded()
    fit = maxdiff_fit(a, penalty=0.05, confidence=0.9)
    rows, n = _rows(a), len(NAMES)
    # an orthonormal basis of the sum-to-zero subspace; the objective's Hessian there by central differences
    basis = np.linalg.qr(np.c_[np.ones(n), np.eye(n)[:, : n - 1]])[0][:, 1:]
    h, H = 1e-4, np.zeros((n - 1, n - 1))
    for i in range(n - 1):
        for j in range(n - 1):
            e_i, e_j = basis[:, i] * h, basis[:, j] * h
            f = [_dense_objective(fit.utility + si * e_i + sj * e_j, rows, 0.05) for si, sj in
                 ((1, 1), (1, -1), (-1, 1), (-1, -1))]  # fmt: skip
            H[i, j] = (f[0] - f[1] - f[2] + f[3]) / (4 * h * h)
    se = np.sqrt(np.diag(basis @ np.linalg.inv(H) @ basis.T))
    np.testing.assert_allclose(fit.se, se, rtol=1e-5)
    np.testing.assert_allclose(fit.ci_high - fit.utility, 1.6448536269514722 * fit.se, rtol=1e-12)
    assert fit.note == ""


def test_items_never_shown_have_no_utility():
    a = _coded()
    fit = maxdiff_fit(CodedAnswers(a.tuples, a.best, a.worst, 8, a.tuple_code, a.rater))
    assert np.isnan(fit.utility[6:]).all() and np.isnan(fit.se[6:]).all()
    np.testing.assert_allclose(fit.utility[:6], maxdiff_fit(a).utility, atol=1e-8)


# -------------------------------------------------------------------------------- the simulated crowd

SEEDS_REFERENCE, SEEDS_TESTED = range(100, 120), range(5)


def _plain_counting(crowd):
    """Counting written as a loop over the answers (independent of the code under test)."""
    a = crowd.answers
    net, shown = np.zeros(a.n_items), np.zeros(a.n_items)
    for tup, b, w in zip(a.tuples, a.best, a.worst):
        shown[tup] += 1
        net[b] += 1
        net[w] -= 1
    return net / shown


def _plain_split_half(crowd, rng):
    """One split of each tuple's answers into halves (a loop over tuples), scipy's Spearman."""
    a = crowd.answers
    halves = [([], []), ([], [])]
    for t in np.unique(a.tuple_code):
        rows = rng.permutation(np.flatnonzero(a.tuple_code == t))
        for half, part in enumerate((rows[: len(rows) // 2], rows[len(rows) // 2 :])):
            halves[half][0].extend(part)
    scores = [plain_counting(a, rows, a.n_items) for rows, _ in halves]
    both = ~np.isnan(scores[0]) & ~np.isnan(scores[1])
    return spearmanr(scores[0][both], scores[1][both])[0]


@pytest.fixture(scope="module")
def expected():
    """Over 20 other seeds: the Spearman with the truth of the plain count and of the raters' mean
    perceived values (the noise's own ordering), and the plain split-half correlation; mean and
    seed-to-seed SD (one run's standard error)."""
    plain, perceived, halves = [], [], []
    for seed in SEEDS_REFERENCE:
        crowd = simulate(seed)
        plain.append(spearmanr(crowd.value, _plain_counting(crowd))[0])
        a, p = crowd.answers, crowd.perceived
        seen = ~np.isnan(p)
        sums = np.bincount(a.tuples[seen], p[seen], a.n_items) / np.bincount(a.tuples[seen], minlength=a.n_items)
        perceived.append(spearmanr(crowd.value, sums)[0])
        rng = np.random.default_rng(seed)
        halves.append(np.mean([_plain_split_half(crowd, rng) for _ in range(5)]))
    return {k: (np.mean(v), np.std(v, ddof=1)) for k, v in
            {"counting": plain, "perceived": perceived, "half": halves}.items()}  # fmt: skip


@pytest.mark.parametrize("seed", SEEDS_TESTED)
def test_counting_and_the_logit_recover_the_truth(seed, expected):
    crowd = simulate(seed)
    mean, sd = expected["counting"]
    ceiling = expected["perceived"][0] + 3 * expected["perceived"][1]
    counting = spearmanr(crowd.value, counting_scores(crowd.answers).score)[0]
    logit = spearmanr(crowd.value, maxdiff_fit(crowd.answers).utility)[0]
    assert mean - 3 * sd < counting < ceiling
    assert mean - 3 * sd < logit < ceiling
    assert 0.8 < mean < 0.95 and sd < 0.03  # the simulation is informative but not trivial


@pytest.mark.parametrize("seed", SEEDS_TESTED)
def test_split_half_falls_in_the_simulated_range(seed, expected):
    crowd = simulate(seed)
    shr = split_half(crowd.answers, 20, np.random.default_rng(seed), 0.95)
    mean, sd = expected["half"]
    assert mean - 3 * sd < shr.spearman < mean + 3 * sd
    assert shr.spearman_brown == pytest.approx(2 * shr.spearman / (1 + shr.spearman), abs=1e-15)
    assert shr.ci_low < shr.spearman_brown < shr.ci_high and shr.n_tuples_split == 180 and shr.n_tuples_left_out == 0
    assert shr.n_items == 240.0 and shr.note == ""


@pytest.mark.parametrize("seed", SEEDS_TESTED)
def test_the_random_clicker_is_the_rater_flagged(seed):
    crowd = simulate(seed)
    agreement = rater_agreement(crowd.answers)
    assert np.argmin(agreement.both) == crowd.clickers[0]
    assert (agreement.n_scored == agreement.n_answers).all() and agreement.note == [""] * 9
    assert agreement.best[crowd.clickers[0]] < 0.4 < agreement.best[:8].min()


# -------------------------------------------------------------------------------- split-half and raters


def test_split_half_is_the_plain_split_of_the_same_halves():
    crowd = simulate(7, n_items=40, rounds=2, answers_per_tuple=3)
    a = crowd.answers
    shr = split_half(a, 4, np.random.default_rng(1), 0.95)
    first = halves_within_groups(a.tuple_code, 20, 4, np.random.default_rng(1))  # answers already by tuple
    rho, r = [], []
    for split in first:
        scores = [plain_counting(a, rows, 40) for rows in (np.flatnonzero(split), np.flatnonzero(~split))]
        both = ~np.isnan(scores[0]) & ~np.isnan(scores[1])
        rho.append(spearmanr(scores[0][both], scores[1][both])[0])
        r.append(pearsonr(scores[0][both], scores[1][both])[0])
    np.testing.assert_allclose(shr.spearman_trials, rho, atol=1e-12)
    np.testing.assert_allclose(shr.pearson_trials, r, atol=1e-12)
    assert shr.spearman == pytest.approx(np.mean(rho), abs=1e-12)


def test_split_half_leaves_single_answer_tuples_out():
    a = _coded()  # tuples: abcd x3, bcef x2, adef x1, cde x1
    shr = split_half(a, 10, np.random.default_rng(0), 0.95)
    assert (shr.n_tuples_split, shr.n_tuples_left_out) == (2, 2)
    lone = CodedAnswers(a.tuples[5:], a.best[5:], a.worst[5:], 6, a.tuple_code[5:], a.rater[5:])
    nothing = split_half(lone, 10, np.random.default_rng(0), 0.95)
    assert np.isnan(nothing.spearman_brown) and "nothing to split" in nothing.note


def test_a_rater_with_a_single_answer_gets_nan_with_a_note():
    rows = HAND + [("dan", ("a", "b", "c", "d"), "a", "d")]
    agreement = rater_agreement(_coded(rows))
    assert agreement.n_answers.tolist() == [3, 2, 2, 1]
    assert np.isnan(agreement.both[3]) and agreement.note[3] == "a single answer: no agreement"
    # bob (rater 1) against ann, cat and dan: a 4/4, b 0/4, c -1/5, d -3/5, e 2/3, f -2/2
    # abcd: best b (a is higher), worst d (the lowest): 0 and 1; bcef: best e (the highest), worst c (f is lower): 1 and 0
    assert (agreement.best[1], agreement.worst[1], agreement.both[1]) == (0.5, 0.5, 0.5)
    assert agreement.note[:3] == ["", "", ""] and agreement.n_scored.tolist() == [3, 2, 2, 1]


def test_an_item_in_a_single_tuple():
    # g is in a single tuple with a single answer (bob's): the others never scored it
    rows = HAND + [("bob", ("a", "b", "g", "d"), "g", "d")]
    names = NAMES + ["g"]
    a = _coded(rows, names)
    assert counting_scores(a).score[6] == 1.0
    agreement = rater_agreement(a)
    assert agreement.n_scored[1] == 2 and agreement.n_answers[1] == 3  # the abgd answer is not judged
    shr = split_half(a, 5, np.random.default_rng(0), 0.95)
    # abcd (3 answers) and bcef (2) are split; adef, cde and abgd (1 each) left out: g is in no half
    assert (shr.n_items, shr.n_tuples_split, shr.n_tuples_left_out) == (6.0, 2, 3)
    fit = maxdiff_fit(a)
    assert np.isfinite(fit.utility[6]) and fit.se[6] > fit.se[:6].max()  # one answer: the least certain


def test_answers_needed_by_the_spearman_brown_formula():
    # SHR 0.8 from 2 answers per tuple: one answer r1 = 0.8 / (2 - 0.8) = 2/3;
    # 0.9 needs m = 0.9 (1 - 2/3) / (2/3 * 0.1) = 4.5 -> 5; 0.95 needs 0.95 / 3 / (2/3 * 0.05) = 9.5 -> 10
    assert answers_needed(0.8, 2, 0.9) == 5.0
    assert answers_needed(0.8, 2, 0.95) == 10.0
    assert answers_needed(0.6, 1, 0.5) == 1.0 and np.isnan(answers_needed(float("nan"), 2, 0.9))


# -------------------------------------------------------------------------------- model accuracy


def test_maxdiff_accuracy_with_majority_ties_and_skipped_tuples():
    a = _coded()
    similarity = np.array([0.9, 0.5, 0.1, 0.0, 0.8, 0.3])  # a b c d e f
    acc = maxdiff_accuracy(a, similarity, 200, np.random.default_rng(0), 0.95)
    # abcd: best a (2 of 3) guess a: right; worst d (2 of 3) guess d: right
    # bcef: best e 2/2, guess e: right; worst f and c tie 1-1, guess c (lowest 0.1): right (a tie counts)
    # adef: best a, guess a: right; worst f, guess d: wrong.  cde: best e, guess e: right; worst d, guess d: right
    assert (acc.best, acc.worst, acc.both, acc.n_tuples, acc.n_skipped) == (1.0, 0.75, 0.875, 4, 0)
    assert acc.best_ci == (1.0, 1.0) and acc.worst_ci[0] < 0.75 < acc.worst_ci[1] + 1e-12
    similarity[5] = np.nan  # f: bcef and adef have an item without a similarity
    acc = maxdiff_accuracy(a, similarity, 200, np.random.default_rng(0), 0.95)
    assert (acc.best, acc.worst, acc.n_tuples, acc.n_skipped) == (1.0, 1.0, 2, 2)


def test_a_level_the_resamples_cannot_support_gives_no_interval():
    """One beyond each end of a 95% interval needs 40 resamples: with 39 an item's counting
    interval and the MaxDiff accuracy's intervals are NaN (the accuracy with a note), not the
    extremes; with 40 they exist; with none asked there is no note."""
    a = _coded()
    for by in ("answers", "raters"):
        low, high = counting_intervals(a, 39, np.random.default_rng(1), 0.95, by=by)
        assert np.isnan(low).all() and np.isnan(high).all()
        low, high = counting_intervals(a, 40, np.random.default_rng(1), 0.95, by=by)
        shown = ~np.isnan(low)
        assert shown.any() and (low[shown] <= high[shown]).all()
    similarity = np.array([0.9, 0.5, 0.1, 0.0, 0.8, 0.3])
    few = maxdiff_accuracy(a, similarity, 39, np.random.default_rng(0), 0.95)
    assert np.isnan(few.worst_ci).all() and np.isnan(few.both_ci).all() and few.worst == 0.75
    assert few.note == "39 resamples with a value: no 95% interval (at least 40 needed)"
    enough = maxdiff_accuracy(a, similarity, 40, np.random.default_rng(0), 0.95)
    assert not np.isnan(enough.worst_ci).any() and enough.note == ""
    none = maxdiff_accuracy(a, similarity, 0, np.random.default_rng(0), 0.95)
    assert np.isnan(none.worst_ci).all() and none.note == ""


def test_maxdiff_accuracy_against_a_plain_majority():
    crowd = simulate(3)
    a = crowd.answers
    sim = crowd.value + np.random.default_rng(0).normal(size=a.n_items)
    acc = maxdiff_accuracy(a, sim, 100, np.random.default_rng(0), 0.95)
    right_best, right_worst = [], []
    for t in np.unique(a.tuple_code):
        rows = np.flatnonzero(a.tuple_code == t)
        items = a.tuples[rows[0]]
        for chosen, guess, right in ((a.best, items[np.argmax(sim[items])], right_best),
                                     (a.worst, items[np.argmin(sim[items])], right_worst)):  # fmt: skip
            votes = Counter(chosen[rows].tolist())
            right.append(votes[guess] == max(votes.values()))
    assert acc.best == pytest.approx(np.mean(right_best), abs=1e-15)
    assert acc.worst == pytest.approx(np.mean(right_worst), abs=1e-15)
    assert acc.both == pytest.approx((acc.best + acc.worst) / 2, abs=1e-15) and acc.resamples == 100


def test_counting_intervals_in_blocks_are_those_of_one_draw():
    # 4000 answers of 4 items: the resamples are drawn and counted in blocks (memory); numpy's
    # bounded integers give the same draws in blocks as in one call, so the intervals are one draw's
    a = simulate(11, n_items=2000, rounds=8, answers_per_tuple=1).answers
    low, high = counting_intervals(a, 300, np.random.default_rng(4), 0.95)
    idx = draws(a.n_answers, 300, np.random.default_rng(4))
    boot = np.empty((300, a.n_items))
    for r, row in enumerate(idx):
        shown, net = np.zeros(a.n_items), np.zeros(a.n_items)
        np.add.at(shown, a.tuples[row].ravel(), 1.0)
        np.add.at(net, a.best[row], 1.0)
        np.add.at(net, a.worst[row], -1.0)
        boot[r] = np.where(shown > 0, net / np.where(shown > 0, shown, 1), np.nan)
    ref = np.array([np.quantile(c[~np.isnan(c)], [0.025, 0.975]) for c in boot.T])
    np.testing.assert_allclose(low, ref[:, 0], atol=1e-12)
    np.testing.assert_allclose(high, ref[:, 1], atol=1e-12)
    assert np.isnan(boot).any()  # some items unseen in some resamples: both paths of the intervals run
