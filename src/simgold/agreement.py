"""Inter-rater agreement (METHODS.md section 4), vectorised for crowd-scale data.

Spearman's rho with average ranks for ties, pairwise-complete: for two raters, both are ranked
on the items *both* rated. A pair with fewer than ``min_overlap`` shared items, or whose shared
scores are constant for either rater, gives no value and is counted.

Two paths compute the same thing:

* raters who rated every item of the subset ("complete" raters) are ranked once; all their pairs
  come from one matrix product of centred ranks;
* every other pair goes through a flat table of (pair, shared item) entries: ranks within each
  pair come from sorting integer rank codes inside the pair's group (ties averaged), and the
  correlations from grouped sums. Entries are processed in bounded chunks, so memory stays flat.

Both give exactly ``scipy.stats.spearmanr`` on the shared items (tests check this).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import rankdata

CHUNK_ENTRIES = 4_000_000


@dataclass
class RatingMatrix:
    """Items x raters scores with NaN where a rater did not rate an item."""

    X: np.ndarray
    items: np.ndarray
    raters: np.ndarray

    @classmethod
    def from_ratings(cls, ratings: pd.DataFrame, items=None) -> "RatingMatrix":
        item_codes, item_index = pd.factorize(ratings["item_id"], sort=True)
        rater_codes, rater_index = pd.factorize(ratings["rater"], sort=True)
        if items is not None:  # keep the given item order (and items nobody rated)
            item_index = pd.Index(items)
            item_codes = item_index.get_indexer(ratings["item_id"])
            if (item_codes < 0).any():
                raise ValueError("ratings refer to items that are not in the item list")
        X = np.full((len(item_index), len(rater_index)), np.nan)
        X[item_codes, rater_codes] = ratings["score"].to_numpy(float)
        return cls(X, np.asarray(item_index), np.asarray(rater_index))

    def subset(self, mask: np.ndarray) -> "RatingMatrix":
        return RatingMatrix(self.X[mask], self.items[mask], self.raters)


@dataclass
class PairResult:
    rho: np.ndarray  # raters x raters, NaN where no value; symmetric; NaN diagonal
    overlap: np.ndarray  # shared items per pair
    n_pairs: int  # pairs with a value
    n_few: int  # pairs with fewer than min_overlap shared items
    n_constant: int  # pairs with enough items but a constant vector
    min_overlap: int


def _rank_codes(X: np.ndarray) -> np.ndarray:
    """Dense integer codes of the values (order-preserving); -1 for missing."""
    codes = np.full(X.shape, -1, dtype=np.int64)
    present = ~np.isnan(X)
    codes[present] = np.unique(X[present], return_inverse=True)[1]
    return codes


def group_ranks(group: np.ndarray, code: np.ndarray, n_codes: int) -> np.ndarray:
    """Average ranks (1-based) of ``code`` within each ``group`` (any order of entries)."""
    key = group.astype(np.int64) * n_codes + code
    order = np.argsort(key, kind="stable")
    ks, gs = key[order], group[order]
    n = len(ks)
    first_of_group = np.r_[True, gs[1:] != gs[:-1]]
    group_start = np.flatnonzero(first_of_group)
    pos = np.arange(n) - np.repeat(group_start, np.diff(np.r_[group_start, n]))
    first_of_run = np.r_[True, ks[1:] != ks[:-1]]
    run_start = np.flatnonzero(first_of_run)
    run_len = np.diff(np.r_[run_start, n])
    run_rank = pos[run_start] + (run_len - 1) / 2.0 + 1.0
    ranks = np.empty(n)
    ranks[order] = np.repeat(run_rank, run_len)
    return ranks


def grouped_pearson(group: np.ndarray, a: np.ndarray, b: np.ndarray, n_groups: int):
    """Pearson r of (a, b) within each group; (r, n); r is NaN where either side is constant."""
    n = np.bincount(group, minlength=n_groups).astype(float)
    sa = np.bincount(group, a, n_groups)
    sb = np.bincount(group, b, n_groups)
    saa = np.bincount(group, a * a, n_groups)
    sbb = np.bincount(group, b * b, n_groups)
    sab = np.bincount(group, a * b, n_groups)
    va = n * saa - sa * sa
    vb = n * sbb - sb * sb
    cov = n * sab - sa * sb
    # ranks are multiples of 1/2, so a constant vector gives va == 0 up to rounding
    tol = 1e-9 * np.maximum(n * saa, 1.0)
    ok = (va > tol) & (vb > 1e-9 * np.maximum(n * sbb, 1.0))
    r = np.full(n_groups, np.nan)
    r[ok] = cov[ok] / np.sqrt(va[ok] * vb[ok])
    return np.clip(r, -1.0, 1.0), n.astype(np.int64)


def pairwise_spearman(X: np.ndarray, min_overlap: int = 5, previous: tuple | None = None) -> PairResult:
    """Pairwise-complete Spearman between every two columns (raters) of X.

    ``previous = (X_before, PairResult)`` reuses the values of pairs whose two columns did not
    change (calibration moves the scores of a few raters only).
    """
    R = X.shape[1]
    if previous is None:
        overlap = _overlap(X)
        return _counted(_pairwise(X, min_overlap, np.ones((R, R), dtype=bool), overlap), overlap, min_overlap)
    X_before, before = previous
    same = (np.isnan(X) == np.isnan(X_before)) & ((X == X_before) | np.isnan(X))
    changed = ~same.all(axis=0)
    if not changed.any():
        return before
    want = changed[:, None] | changed[None, :]
    # the overlap of X itself: a changed column may also have gained or lost ratings
    overlap = _overlap(X)
    rho = np.where(want, _pairwise(X, min_overlap, want, overlap), before.rho)
    return _counted(rho, overlap, min_overlap)


def _overlap(X: np.ndarray) -> np.ndarray:
    P = (~np.isnan(X)).astype(np.float32)
    return np.rint(P.T @ P).astype(np.int64)


def _pairwise(X: np.ndarray, min_overlap: int, want: np.ndarray, overlap: np.ndarray) -> np.ndarray:
    """The rho matrix for the wanted pairs (NaN elsewhere and where no value exists)."""
    n_items, R = X.shape
    present = ~np.isnan(X)
    rho = np.full((R, R), np.nan)
    enough = (overlap >= min_overlap) & want
    np.fill_diagonal(enough, False)

    complete = present.all(axis=0)
    idx = np.flatnonzero(complete & enough.any(axis=0))
    if len(idx) >= 2 and n_items >= min_overlap:
        ranks = rankdata(X[:, idx], axis=0)
        Z = ranks - ranks.mean(axis=0)
        norms = np.sqrt((Z * Z).sum(axis=0))
        const = norms <= 1e-9 * n_items
        Z[:, ~const] /= norms[~const]
        block = Z.T @ Z
        block[const, :] = np.nan
        block[:, const] = np.nan
        rho[np.ix_(idx, idx)] = np.clip(block, -1.0, 1.0)

    need = np.triu(enough & ~(complete[:, None] & complete[None, :]), k=1)
    if need.any():
        _sparse_pairs(X, present, need, rho)
    rho[~enough] = np.nan
    return rho


def _counted(rho: np.ndarray, overlap: np.ndarray, min_overlap: int) -> PairResult:
    upper = np.triu(np.ones(rho.shape, dtype=bool), k=1)
    n_pairs = int((upper & ~np.isnan(rho)).sum())
    n_few = int((upper & (overlap < min_overlap)).sum())
    return PairResult(rho, overlap, n_pairs, n_few, int(upper.sum()) - n_pairs - n_few, min_overlap)


def _sparse_pairs(X, present, need, rho) -> None:
    codes = _rank_codes(X)
    n_codes = int(codes.max()) + 1
    R = X.shape[1]
    batch_a, batch_b, batch_ga, batch_gb, batch_pair = [], [], [], [], []
    size = 0

    def flush():
        nonlocal size
        if not batch_pair:
            return
        pair = np.concatenate(batch_pair)
        ca, cb = np.concatenate(batch_a), np.concatenate(batch_b)
        ra = group_ranks(pair, ca, n_codes)
        rb = group_ranks(pair, cb, n_codes)
        n_groups = int(pair.max()) + 1
        r, _ = grouped_pearson(pair, ra, rb, n_groups)
        ga, gb = np.concatenate(batch_ga), np.concatenate(batch_gb)
        rho[ga, gb] = r[: len(ga)]
        rho[gb, ga] = r[: len(ga)]
        batch_a.clear(), batch_b.clear(), batch_ga.clear(), batch_gb.clear(), batch_pair.clear()
        size = 0

    next_pair = 0
    for a in range(R):
        partners = np.flatnonzero(need[a])
        if len(partners) == 0:
            continue
        rows = np.flatnonzero(present[:, a])
        both = present[np.ix_(rows, partners)].T  # partners x a's items
        b_local, item_local = np.nonzero(both)  # grouped by partner (row-major)
        if size and size + len(b_local) > CHUNK_ENTRIES:
            flush()
            next_pair = 0
        counts = np.bincount(b_local, minlength=len(partners))
        pair_ids = next_pair + np.arange(len(partners))
        items = rows[item_local]
        batch_pair.append(np.repeat(pair_ids, counts))
        batch_a.append(codes[items, a])
        batch_b.append(codes[items, partners[b_local]])
        batch_ga.append(np.full(len(partners), a))
        batch_gb.append(partners)
        next_pair += len(partners)
        size += len(b_local)
    flush()


# --------------------------------------------------------------------------------------------
# per-rater agreement with a reference (the item means)


def vs_reference(X: np.ndarray, min_overlap: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Per rater: Spearman with the item means of all raters (``vs_mean``) and of the other
    raters (``vs_rest``, leave one out; items nobody else rated are left out)."""
    present = ~np.isnan(X)
    item, rater = np.nonzero(present)
    x = X[item, rater]
    count = present.sum(axis=1)
    total = np.nansum(X, axis=1)
    R = X.shape[1]
    mean = total[item] / count[item]
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = (total[item] - x) / (count[item] - 1)
    keep = count[item] > 1
    return (
        _grouped_spearman(rater, x, mean, R, min_overlap),
        _grouped_spearman(rater[keep], x[keep], rest[keep], R, min_overlap),
    )


def _grouped_spearman(group, a, b, n_groups, min_overlap) -> np.ndarray:
    if len(group) == 0:
        return np.full(n_groups, np.nan)
    ca = np.unique(a, return_inverse=True)[1]
    cb = np.unique(b, return_inverse=True)[1]
    ra = group_ranks(group, ca, int(ca.max()) + 1)
    rb = group_ranks(group, cb, int(cb.max()) + 1)
    r, n = grouped_pearson(group, ra, rb, n_groups)
    r[n < min_overlap] = np.nan
    return r


# --------------------------------------------------------------------------------------------


def krippendorff_alpha_interval(X: np.ndarray) -> float:
    """Krippendorff's alpha with the interval metric; units are rows, values need no rater identity.

    alpha = 1 - D_o / D_e over the pairable values (units with at least two values):
    D_o = (1/n) sum_u sum_{i != j in u} (v_i - v_j)^2 / (m_u - 1), D_e = sum_{i != j} (v_i - v_j)^2 / (n (n - 1)).
    """
    present = ~np.isnan(X)
    m = present.sum(axis=1)
    units = m >= 2
    if units.sum() == 0:
        return float("nan")
    V = np.where(present, X, 0.0)[units]
    m = m[units].astype(float)
    s1, s2 = V.sum(axis=1), (V * V).sum(axis=1)
    n = m.sum()
    within = (2.0 * (m * s2 - s1 * s1) / (m - 1)).sum()
    S1, S2 = s1.sum(), s2.sum()
    total = 2.0 * (n * S2 - S1 * S1)
    if total <= 0:
        return float("nan")
    return float(1.0 - (n - 1) * within / total)


@dataclass
class AgreementStats:
    """Agreement of one rating matrix (one stage, one subset)."""

    raters: np.ndarray
    n_items_per_rater: np.ndarray
    mean_score_per_rater: np.ndarray
    avg_pairwise: np.ndarray
    vs_mean: np.ndarray
    vs_rest: np.ndarray
    pairs: PairResult
    alpha: float
    n_items: int
    mean_score: float

    def summary(self) -> dict:
        rho = self.pairs.rho
        values = rho[np.triu_indices_from(rho, k=1)]
        values = values[~np.isnan(values)]
        avg = self.avg_pairwise[~np.isnan(self.avg_pairwise)]
        vm = self.vs_mean[~np.isnan(self.vs_mean)]
        vr = self.vs_rest[~np.isnan(self.vs_rest)]
        return {
            "n_raters": int((self.n_items_per_rater > 0).sum()),
            "n_items": self.n_items,
            "n_ratings": int(self.n_items_per_rater.sum()),
            "mean_score": self.mean_score,
            "n_pairs": self.pairs.n_pairs,
            "n_pairs_few_items": self.pairs.n_few,
            "n_pairs_constant": self.pairs.n_constant,
            "pairwise": _mean(values),
            "pairwise_min": float(values.min()) if len(values) else np.nan,
            "pairwise_max": float(values.max()) if len(values) else np.nan,
            "consistency": float(np.std(avg, ddof=1)) if len(avg) > 1 else np.nan,
            "vs_mean": _mean(vm),
            "vs_mean_min": float(vm.min()) if len(vm) else np.nan,
            "vs_mean_max": float(vm.max()) if len(vm) else np.nan,
            "vs_rest": _mean(vr),
            "vs_rest_min": float(vr.min()) if len(vr) else np.nan,
            "vs_rest_max": float(vr.max()) if len(vr) else np.nan,
            "alpha_interval": self.alpha,
        }


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else float("nan")


def agreement(matrix: RatingMatrix, min_overlap: int = 5, pairs: PairResult | None = None) -> AgreementStats:
    """Every statistic of METHODS.md section 4 for one rating matrix.

    ``pairs`` may be given when the pairwise values are already known (the pairwise-complete
    Spearman of two raters does not depend on the other raters, so dropping raters keeps them).
    """
    X = matrix.X
    present = ~np.isnan(X)
    if pairs is None:
        pairs = pairwise_spearman(X, min_overlap)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a rater with no pair value: NaN, counted
        avg = np.nanmean(pairs.rho, axis=1) if X.shape[1] else np.array([])
    vs_mean, vs_rest = vs_reference(X, min_overlap)
    n_per = present.sum(axis=0)
    with np.errstate(invalid="ignore"):
        mean_per = np.where(n_per > 0, np.nansum(X, axis=0) / np.maximum(n_per, 1), np.nan)
    return AgreementStats(
        raters=matrix.raters,
        n_items_per_rater=n_per,
        mean_score_per_rater=mean_per,
        avg_pairwise=avg,
        vs_mean=vs_mean,
        vs_rest=vs_rest,
        pairs=pairs,
        alpha=krippendorff_alpha_interval(X),
        n_items=int(present.any(axis=1).sum()),
        mean_score=float(np.nanmean(X)) if present.any() else float("nan"),
    )


def restrict_pairs(pairs: PairResult, keep: np.ndarray) -> PairResult:
    """The pairwise result for a subset of raters (a boolean mask over the raters)."""
    return _counted(pairs.rho[np.ix_(keep, keep)], pairs.overlap[np.ix_(keep, keep)], pairs.min_overlap)
