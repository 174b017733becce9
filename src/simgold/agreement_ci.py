"""Bootstrap confidence intervals on agreement (docs/methods.md section 11).

Percentile bootstrap, B resamples (default 1000), for the statistics of the agreement table:
``pairwise`` (mean pairwise-complete Spearman over rater pairs with a value), ``vs_mean``,
``vs_rest`` (means over raters) and ``alpha_interval``. Two schemes, both reported:

* ``items``: the items are drawn with replacement, every rater kept. A resample is a dataset of N
  items in which an item drawn twice is two items (as in the bootstrap of model scores): it counts
  twice for ``min_overlap`` and in the ranks (ties). The item means are those of all raters.
* ``raters``: the raters are drawn with replacement, every item kept. A rater drawn twice is one
  person: the pairs of a rater with its own copy are not pairs of raters and are left out of
  ``pairwise`` (they would add correlations of 1), and ``vs_rest`` leaves out every copy of the
  rater; ``vs_mean`` and alpha take the resample as it is (the item means and the values count each
  copy). The dataset values average over the drawn raters, each copy counting.

A resample where a statistic is undefined (no rater pair with a value, no rater with a value, or
no expected disagreement) is counted in ``n_undefined``; the interval comes from the others.

Seeds: one numpy Generator per scheme, seeded from a SHA-256 digest of the config seed and the
dataset, stage, subset and scheme names (``simgold.scoring.seed_for``), never Python's ``hash()``.

How it is fast. Everything is exact (tests compare with scipy on each resampled dataset):

* weighted ranks: a resample of items is a weight vector w (how often each item was drawn). In a
  group of entries (a rater pair's shared items, or a rater's items), the average rank of a value
  is the weight of the group's smaller values plus (its tie weight + 1) / 2; with the entries
  sorted once by (group, value), that is a cumulative sum per resample, for many resamples at once
  (a resamples x entries array, in bounded chunks). Spearman then comes from grouped sums: the
  rank variance is ``(W^3 - W - sum_ties (t^3 - t)) / 12`` and the covariance
  ``sum w r_a r_b - W (W + 1)^2 / 4``, exact in float64 (ranks are multiples of 1/2);
* raters resampled: the pairwise values do not depend on the other raters, so the mean over a
  resample's pairs is ``c' P c / c' D c`` for the draw counts c, a sparse matrix product for all
  resamples; alpha's sums per item are matrix products of the counts;
* ``vs_mean`` / ``vs_rest`` with raters resampled need the ranks of new item means: one sort of the
  drawn raters' ratings per resample.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from .scoring import seed_for

SCHEMES = ("items", "raters")
STATISTICS = ("pairwise", "vs_mean", "vs_rest", "alpha_interval")
CELLS = 1 << 22  # resamples x entries evaluated at once: bounds the memory (about 32 MB per array)
TABLE_COLUMNS = [
    "dataset", "stage", "subset", "statistic", "scheme", "value", "ci_low", "ci_high",
    "confidence", "resamples", "n_undefined", "note",
]  # fmt: skip


@dataclass
class Panel:
    """Ratings as integer-coded arrays: one entry per rating, sorted by item then rater."""

    item: np.ndarray
    rater: np.ndarray
    score: np.ndarray
    n_items: int
    n_raters: int

    @classmethod
    def from_ratings(cls, ratings: pd.DataFrame) -> "Panel":
        """From a ratings table (``item_id``, ``rater``, ``score``); ids are coded in sorted order."""
        ok = ratings["score"].notna().to_numpy()
        item, items = pd.factorize(ratings["item_id"][ok], sort=True)
        rater, raters = pd.factorize(ratings["rater"][ok], sort=True)
        return cls._sorted(item, rater, ratings["score"].to_numpy(float)[ok], len(items), len(raters))

    @classmethod
    def from_dense(cls, X: np.ndarray) -> "Panel":
        """From an items x raters array with NaN for no rating."""
        item, rater = np.nonzero(~np.isnan(X))
        return cls._sorted(item, rater, X[item, rater], X.shape[0], X.shape[1])

    @classmethod
    def _sorted(cls, item, rater, score, n_items, n_raters) -> "Panel":
        order = np.lexsort((rater, item))
        return cls(item[order].astype(np.int64), rater[order].astype(np.int64), score[order], n_items, n_raters)


# -------------------------------------------------------------------------------- weighted Spearman


@dataclass
class Entries:
    """Entries of groups (rater pairs, or raters), each an item with two integer codes whose order
    is the order of the two variables; sorted by group."""

    group: np.ndarray
    item: np.ndarray
    code_a: np.ndarray
    code_b: np.ndarray
    n_groups: int
    _runs: dict = field(default_factory=dict, repr=False)

    def runs(self, side: str) -> dict:
        """Runs of equal (group, code) in (group, code) order, computed once per side."""
        if side not in self._runs:
            code = self.code_a if side == "a" else self.code_b
            order = np.lexsort((code, self.group))
            g, c = self.group[order], code[order]
            new = np.r_[True, (g[1:] != g[:-1]) | (c[1:] != c[:-1])]
            run_of_sorted = np.cumsum(new) - 1
            run_of_entry = np.empty(len(order), dtype=np.int64)
            run_of_entry[order] = run_of_sorted
            run_group = g[new]
            first_run = np.flatnonzero(np.r_[True, run_group[1:] != run_group[:-1]])
            self._runs[side] = {
                "order": order,
                "starts": np.flatnonzero(new),
                "of_entry": run_of_entry,
                "group_first": first_run,  # index of each group's first run
                "first_of_run": np.repeat(first_run, np.diff(np.r_[first_run, len(run_group)])),
            }
        return self._runs[side]


def weighted_spearman(entries: Entries, weights: np.ndarray, min_overlap: int) -> np.ndarray:
    """Spearman per group for each row of ``weights`` (resamples x items: how often each item is
    drawn); NaN where the group has fewer than ``min_overlap`` drawn entries or a constant side.

    Examples
    --------
    >>> import numpy as np
    >>> e = Entries(np.zeros(4, int), np.arange(4), np.array([0, 1, 2, 3]), np.array([0, 2, 1, 3]), 1)
    >>> weighted_spearman(e, np.ones((1, 4)), 3).round(6).tolist()  # scipy: spearmanr -> 0.8
    [[0.8]]
    """
    out = np.full((len(weights), entries.n_groups), np.nan)
    if len(entries.group) == 0:
        return out
    group_start = np.flatnonzero(np.r_[True, entries.group[1:] != entries.group[:-1]])
    groups = entries.group[group_start]
    step = max(1, CELLS // len(entries.group))
    for k0 in range(0, len(weights), step):
        wt = weights[k0 : k0 + step][:, entries.item]
        ra, var_a = _ranks(entries.runs("a"), wt, group_start)
        rb, var_b = _ranks(entries.runs("b"), wt, group_start)
        W = np.add.reduceat(wt, group_start, axis=1)
        cov = np.add.reduceat(wt * ra * rb, group_start, axis=1) - W * ((W + 1.0) / 2.0) ** 2
        ok = (W >= min_overlap) & (var_a > 0) & (var_b > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            rho = np.where(ok, cov / np.sqrt(var_a * var_b), np.nan)
        out[k0 : k0 + step, groups] = np.clip(rho, -1.0, 1.0)
    return out


def _ranks(runs: dict, wt: np.ndarray, group_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks of each entry within its group under weights ``wt`` (resamples x entries), and
    each group's sum of squared deviations of the ranks, (W^3 - W - sum_ties (t^3 - t)) / 12."""
    tie = np.add.reduceat(wt[:, runs["order"]], runs["starts"], axis=1)  # weight of each run
    before = np.cumsum(tie, axis=1) - tie
    below = before - before[:, runs["first_of_run"]]  # weight of the group's smaller values
    rank = below + (tie + 1.0) / 2.0
    W = np.add.reduceat(tie, runs["group_first"], axis=1)
    ties = np.add.reduceat(tie**3 - tie, runs["group_first"], axis=1)
    return rank[:, runs["of_entry"]], (W**3 - W - ties) / 12.0


# -------------------------------------------------------------------------------- the entries


def pair_entries(panel: Panel) -> tuple[Entries, np.ndarray, np.ndarray]:
    """(entries of every rater pair sharing two or more items, first rater, second rater)."""
    start = np.r_[0, np.cumsum(np.bincount(panel.item, minlength=panel.n_items))]
    size = np.diff(start)
    position = np.arange(len(panel.item)) - start[panel.item]
    reps = size[panel.item] - 1 - position  # partners after this entry in its item
    left = np.repeat(np.arange(len(panel.item)), reps)
    offset = np.arange(len(left)) - np.repeat(np.cumsum(reps) - reps, reps)
    right = left + 1 + offset
    key = panel.rater[left] * panel.n_raters + panel.rater[right]  # rater[left] < rater[right]
    pair_keys, pair, shared = np.unique(key, return_inverse=True, return_counts=True)
    keep = shared[pair] >= 2
    order = np.argsort(pair[keep], kind="stable")
    left, right, pair = left[keep][order], right[keep][order], pair[keep][order]
    kept_pairs, pair = np.unique(pair, return_inverse=True)
    code = np.unique(panel.score, return_inverse=True)[1]
    entries = Entries(pair, panel.item[left], code[left], code[right], len(kept_pairs))
    keys = pair_keys[kept_pairs]
    return entries, keys // panel.n_raters, keys % panel.n_raters


def reference_entries(panel: Panel, leave_out: bool) -> Entries:
    """Entries of each rater with the item means (of all raters, or of the others)."""
    count = np.bincount(panel.item, minlength=panel.n_items)[panel.item]
    total = np.bincount(panel.item, panel.score, minlength=panel.n_items)[panel.item]
    if leave_out:
        keep = count > 1
        ref = (total[keep] - panel.score[keep]) / (count[keep] - 1)
    else:
        keep = np.ones(len(panel.item), dtype=bool)
        ref = total / count
    return _rater_entries(panel.rater[keep], panel.item[keep], panel.score[keep], ref, panel.n_raters)


def _rater_entries(rater, item, score, ref, n_raters) -> Entries:
    order = np.argsort(rater, kind="stable")
    code_a = np.unique(score, return_inverse=True)[1]
    code_b = np.unique(ref.round(10), return_inverse=True)[1]  # means equal to 10 decimals are ties
    return Entries(rater[order], item[order], code_a[order], code_b[order], n_raters)


# -------------------------------------------------------------------------------- resamples


def draws(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """resamples x n indices drawn with replacement (the resampled datasets' rows or columns)."""
    return rng.integers(0, n, size=(resamples, n))


def draw_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each of n units is drawn in each resample (resamples x n)."""
    rows = np.repeat(np.arange(len(idx)), idx.shape[1])
    return np.bincount(rows * n + idx.ravel(), minlength=len(idx) * n).reshape(len(idx), n).astype(float)


def _mean_over_groups(rho: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    """Per resample: the mean of the defined values (weighted by draw counts when given); NaN when
    none is defined."""
    defined = ~np.isnan(rho)
    w = defined if weight is None else defined * weight
    total = np.where(defined, rho, 0.0) * w
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(w.sum(axis=1) > 0, total.sum(axis=1) / w.sum(axis=1), np.nan)


def _alpha_from_sums(m, s1, s2, d) -> np.ndarray:
    """Interval alpha per resample from per-unit (weighted) counts, sums, sums of squares and
    within-unit disagreements, all resamples x units and zero for units that are not pairable."""
    n, S1, S2 = m.sum(axis=1), s1.sum(axis=1), s2.sum(axis=1)
    observed = d.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = 2.0 * (n * S2 - S1 * S1) / (n - 1.0)
        return np.where(expected > 0, 1.0 - observed / expected, np.nan)


def _within(m, s1, s2) -> np.ndarray:
    """sum_{i != j in u} (v_i - v_j)^2 / (m_u - 1) for units with m_u >= 2, else 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m >= 2, 2.0 * (m * s2 - s1 * s1) / (m - 1.0), 0.0)


def alpha_items(panel: Panel, weights: np.ndarray) -> np.ndarray:
    """Interval alpha per resample of items (weights: resamples x items)."""
    v = panel.score - panel.score.mean()  # centred: no cancellation in the sums of squares
    m = np.bincount(panel.item, minlength=panel.n_items).astype(float)
    s1 = np.bincount(panel.item, v, panel.n_items)
    s2 = np.bincount(panel.item, v * v, panel.n_items)
    pairable = m >= 2
    d = _within(m, s1, s2)
    parts = [weights * (x * pairable) for x in (m, s1, s2)]
    return _alpha_from_sums(*parts, weights * d)


def alpha_raters(panel: Panel, counts: np.ndarray) -> np.ndarray:
    """Interval alpha per resample of raters (counts: resamples x raters)."""
    v = panel.score - panel.score.mean()
    shape = (panel.n_items, panel.n_raters)
    out = []
    for data in (np.ones(len(v)), v, v * v):
        matrix = sparse.csr_matrix((data, (panel.item, panel.rater)), shape=shape)
        out.append(np.asarray(matrix @ counts.T).T)  # resamples x items
    m, s1, s2 = out
    pairable = m >= 2
    return _alpha_from_sums(m * pairable, s1 * pairable, s2 * pairable, _within(m, s1, s2))


def pairwise_raters(a, b, rho: np.ndarray, counts: np.ndarray, n_raters: int) -> np.ndarray:
    """Mean pairwise value per resample of raters: sum c_a c_b rho_ab / sum c_a c_b over the
    pairs of different raters with a value (a rater's pairs with its own copies left out)."""
    ok = ~np.isnan(rho)
    shape = (n_raters, n_raters)
    values = sparse.csr_matrix((rho[ok], (a[ok], b[ok])), shape=shape)
    defined = sparse.csr_matrix((np.ones(int(ok.sum())), (a[ok], b[ok])), shape=shape)
    num = (np.asarray(values.T @ counts.T).T * counts).sum(axis=1)
    den = (np.asarray(defined.T @ counts.T).T * counts).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def reference_raters(panel: Panel, counts: np.ndarray, leave_out: bool, min_overlap: int) -> np.ndarray:
    """vs_mean (or vs_rest) per resample of raters: the item means of the drawn raters (each copy
    counting; for vs_rest without any copy of the rater itself), Spearman per drawn rater, the mean
    over the drawn raters weighted by their counts."""
    out = np.full(len(counts), np.nan)
    ones = np.ones((1, panel.n_items))
    for k, c in enumerate(counts):
        cw = c[panel.rater]
        total = np.bincount(panel.item, cw * panel.score, panel.n_items)[panel.item]
        weight = np.bincount(panel.item, cw, panel.n_items)[panel.item]
        keep = cw > 0
        if leave_out:
            keep &= weight - cw > 0
            ref = (total[keep] - cw[keep] * panel.score[keep]) / (weight[keep] - cw[keep])
        else:
            ref = total[keep] / weight[keep]
        entries = _rater_entries(panel.rater[keep], panel.item[keep], panel.score[keep], ref, panel.n_raters)
        rho = weighted_spearman(entries, ones, min_overlap)
        out[k] = _mean_over_groups(rho, c[None, :])[0]
    return out


# -------------------------------------------------------------------------------- per stage and subset


@dataclass
class AgreementCI:
    """The CI table (one row per statistic and scheme) and the bootstrap replicates behind it
    (``(statistic, scheme) -> array`` of B values, NaN where undefined)."""

    table: pd.DataFrame
    replicates: dict


def point_estimates(panel: Panel, min_overlap: int = 5, statistics=STATISTICS) -> dict[str, float]:
    """The statistics on the data as they are (every item and rater once)."""
    one = np.ones((1, panel.n_items))
    out = {}
    if "pairwise" in statistics:
        out["pairwise"] = _mean_over_groups(weighted_spearman(pair_entries(panel)[0], one, min_overlap))[0]
    for name, leave_out in (("vs_mean", False), ("vs_rest", True)):
        if name in statistics:
            rho = weighted_spearman(reference_entries(panel, leave_out), one, min_overlap)
            out[name] = _mean_over_groups(rho)[0]
    if "alpha_interval" in statistics:
        out["alpha_interval"] = alpha_items(panel, one)[0]
    return {k: float(v) for k, v in out.items()}


def replicates(panel: Panel, item_idx, rater_idx, min_overlap: int = 5, statistics=STATISTICS) -> dict:
    """Bootstrap replicates for given draws: ``item_idx`` (resamples x items) and ``rater_idx``
    (resamples x raters) index the resampled datasets' items and raters (either may be None)."""
    out = {}
    if item_idx is not None:
        w = draw_counts(item_idx, panel.n_items)
        if "pairwise" in statistics:
            out["pairwise", "items"] = _mean_over_groups(weighted_spearman(pair_entries(panel)[0], w, min_overlap))
        for name, leave_out in (("vs_mean", False), ("vs_rest", True)):
            if name in statistics:
                rho = weighted_spearman(reference_entries(panel, leave_out), w, min_overlap)
                out[name, "items"] = _mean_over_groups(rho)
        if "alpha_interval" in statistics:
            out["alpha_interval", "items"] = alpha_items(panel, w)
    if rater_idx is not None:
        c = draw_counts(rater_idx, panel.n_raters)
        if "pairwise" in statistics:
            entries, a, b = pair_entries(panel)
            rho = weighted_spearman(entries, np.ones((1, panel.n_items)), min_overlap)[0]
            out["pairwise", "raters"] = pairwise_raters(a, b, rho, c, panel.n_raters)
        for name, leave_out in (("vs_mean", False), ("vs_rest", True)):
            if name in statistics:
                out[name, "raters"] = reference_raters(panel, c, leave_out, min_overlap)
        if "alpha_interval" in statistics:
            out["alpha_interval", "raters"] = alpha_raters(panel, c)
    return out


def percentile_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, int]:
    """(low, high, resamples where the statistic is undefined): the percentile interval of the
    defined replicates (numpy's linear quantiles), NaN when none is defined.

    Examples
    --------
    >>> percentile_interval(np.array([1.0, 2.0, np.nan, 3.0, 4.0]), 0.5)
    (1.75, 3.25, 1)
    """
    defined = values[~np.isnan(values)]
    if len(defined) == 0:
        return float("nan"), float("nan"), len(values)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    return float(low), float(high), int(len(values) - len(defined))


def agreement_cis(
    dataset: str,
    stage: str,
    subset: str,
    ratings: pd.DataFrame,
    *,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    min_overlap: int = 5,
    statistics=STATISTICS,
    schemes=SCHEMES,
) -> AgreementCI:
    """Percentile bootstrap CIs of the agreement statistics of one ratings table (one stage and
    subset), resampling items and, separately, raters.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(0, 6, 30)
    >>> r = pd.DataFrame([(i, j, round(truth[i] + rng.normal())) for i in range(30) for j in range(6)],
    ...                  columns=["item_id", "rater", "score"])
    >>> ci = agreement_cis("toy", "raw", "all", r, resamples=200)
    >>> row = ci.table.set_index(["statistic", "scheme"]).loc[("pairwise", "items")]
    >>> bool(row["ci_low"] < row["value"] < row["ci_high"]), int(row["n_undefined"])
    (True, 0)
    """
    panel = Panel.from_ratings(ratings)
    point = point_estimates(panel, min_overlap, statistics)
    idx = {}
    for scheme, n in (("items", panel.n_items), ("raters", panel.n_raters)):
        if scheme in schemes:
            rng = np.random.default_rng(seed_for(seed, dataset, stage, subset, scheme))
            idx[scheme] = draws(n, resamples, rng)
    reps = replicates(panel, idx.get("items"), idx.get("raters"), min_overlap, statistics)
    rows = []
    for (statistic, scheme), values in sorted(reps.items(), key=lambda kv: (STATISTICS.index(kv[0][0]), kv[0][1])):
        low, high, undefined = percentile_interval(values, confidence)
        note = f"{undefined} of {resamples} resamples without a value" if undefined else ""
        rows.append((dataset, stage, subset, statistic, scheme, point[statistic], low, high, confidence, resamples, undefined, note))
    return AgreementCI(pd.DataFrame(rows, columns=TABLE_COLUMNS), reps)
