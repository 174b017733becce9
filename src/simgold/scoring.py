"""Model scoring (docs/methods.md section 7).

Similarity is cosine. Lookup is exact, then lower-cased when the model allows it. OOV policies:
``skip`` (the item is not scored and is counted), ``zero`` (an OOV word is a zero vector: cosine 0),
``mean`` (an OOV word gets the mean of every vector in the embedding file), ``subword`` (fastText
vectors built from subwords; other models: as ``skip``). ``oov_pairs`` (share of items with an OOV
word) and ``oov_words`` (share of distinct words) are always reported, as fractions.

Metrics: Spearman, Pearson and Kendall tau-b between the gold mean and the model's similarity, and
the A&G score (all comparisons and per type), each with a 95% percentile bootstrap CI (1000
resamples of items, or of comparisons, with a seed fixed per dataset, model and metric). Model
differences: a paired bootstrap over the items both models score, two-sided p for rho_A - rho_B.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import numpy as np
import pandas as pd

from .comparisons import TYPES, ag_score, ag_score_parts
from .embeddings import cosine
from .rank_correlation import rankdata
from .seeds import seed_for
from .tables import SUMMARY_EXTRAS, TABLES

SCORE_COLUMNS = TABLES["scores"].names  # the canonical schemas' columns, in order
PREDICTION_COLUMNS = TABLES["predictions"].names


class ScoreRow(NamedTuple):
    """One row of the scores table, by name (its fields are the table's columns, in order)."""

    dataset: str
    model: str
    metric: str
    subset: str
    value: float
    ci_low: float
    ci_high: float
    n_used: int
    n_total: int


class DifferenceRow(NamedTuple):
    """One row of the model_differences table, by name (its fields are the table's columns, in order)."""

    dataset: str
    model_a: str
    model_b: str
    metric: str
    n_used: int
    value_a: float
    value_b: float
    difference: float
    ci_low: float
    ci_high: float
    p: float
    r_ab: float
    williams_t: float
    williams_p: float


@dataclass(frozen=True)
class ScoringSettings:
    """The config's ``scoring`` block, resolved (the schema's defaults filled in by ``simgold.config``)."""

    resamples: int  # bootstrap resamples for each CI (0: no CIs)
    seed: int  # the root of every resample's seed (``simgold.seeds.seed_for``)
    confidence: float  # the CIs' coverage


class Vectors:
    """Lookup of a model's kept vectors with its OOV policy."""

    def __init__(self, table: pd.DataFrame, lowercase: bool, oov: str, mean: np.ndarray | None = None):
        self.oov, self.lowercase = oov, lowercase
        usable = table if oov == "subword" else table[table["source"] != "subword"]
        self.index = {w: i for i, w in enumerate(usable["word"])}
        dim = len(table["vector"].iloc[0]) if len(table) else (len(mean) if mean is not None else 0)
        self.matrix = np.vstack(usable["vector"].to_numpy()).astype(np.float64) if len(usable) else np.zeros((0, dim))
        self.dim = dim
        self.fallback = (
            np.zeros(dim) if oov == "zero" else (np.asarray(mean, dtype=np.float64) if oov == "mean" else None)
        )
        if oov == "mean" and mean is None:
            raise ValueError("oov: mean needs the mean vector of the embedding file")

    def find(self, word: str) -> int | None:
        if word in self.index:
            return self.index[word]
        if self.lowercase and word.lower() in self.index:
            return self.index[word.lower()]
        return None

    def pair_sims(self, words1, words2):
        """(similarities with NaN where not scored, OOV flags, the OOV words of each pair)."""
        n = len(words1)
        a, b = np.zeros((n, self.dim)), np.zeros((n, self.dim))
        oov = np.zeros(n, dtype=bool)
        missing = []
        for k, (w1, w2) in enumerate(zip(words1, words2)):
            lost = []
            for word, target in ((w1, a), (w2, b)):
                i = self.find(word)
                if i is None:
                    lost.append(word)
                    if self.fallback is not None:
                        target[k] = self.fallback
                else:
                    target[k] = self.matrix[i]
            oov[k] = bool(lost)
            missing.append(";".join(lost))
        sims = cosine(a, b)
        if self.fallback is None:
            sims = np.where(oov, np.nan, sims)
        return sims, oov, missing


def predictions(dataset: str, model: str, pairs: pd.DataFrame, vectors: Vectors) -> pd.DataFrame:
    sims, oov, missing = vectors.pair_sims(pairs["word1"].tolist(), pairs["word2"].tolist())
    return pd.DataFrame(
        {
            "dataset": dataset,
            "model": model,
            "item_id": pairs["item_id"].to_numpy(),
            "word1": pairs["word1"].to_numpy(),
            "word2": pairs["word2"].to_numpy(),
            "sim": sims,
            "oov": oov,
            "oov_words": missing,
        },
        columns=list(PREDICTION_COLUMNS),
    )


def oov_shares(pred: pd.DataFrame) -> dict:
    words = pd.concat([pred["word1"], pred["word2"]]).unique()
    lost = {w for joined in pred["oov_words"] for w in joined.split(";") if w}
    return {
        "oov_pairs": float(pred["oov"].mean()) if len(pred) else float("nan"),
        "oov_words": len(lost) / len(words) if len(words) else float("nan"),
    }


# --------------------------------------------------------------------------------------------
# bootstrap


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x = x - x.mean(axis=1, keepdims=True)
    y = y - y.mean(axis=1, keepdims=True)
    num = (x * y).sum(axis=1)
    den = np.sqrt((x * x).sum(axis=1) * (y * y).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def pearson(gold: np.ndarray, sim: np.ndarray) -> float:
    return float(_rowwise_pearson(gold[None, :], sim[None, :])[0])


def pearson_resamples(gold: np.ndarray, sim: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return _rowwise_pearson(gold[idx], sim[idx])


def spearman(gold: np.ndarray, sim: np.ndarray) -> float:
    return pearson(rankdata(gold), rankdata(sim))


def spearman_resamples(gold: np.ndarray, sim: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return _rowwise_pearson(rankdata(gold[idx], axis=1), rankdata(sim[idx], axis=1))


def kendall(gold: np.ndarray, sim: np.ndarray) -> float:
    """Kendall tau-b, scipy's to the last bit (the one resample that keeps every item once)."""
    return float(kendall_resamples(gold, sim, np.arange(len(gold))[None, :])[0])


def kendall_resamples(gold: np.ndarray, sim: np.ndarray, idx: np.ndarray, block: int = 1 << 22) -> np.ndarray:
    """Kendall tau-b of every resample, as ``scipy.stats.kendalltau(gold[i], sim[i])`` gives it.

    A resample only changes how often each item counts (w), so its concordant minus discordant pairs
    are ``w M w / 2`` with ``M[i, j] = sign(g_i - g_j) sign(s_i - s_j)``: one matrix product for all
    resamples (M built a block of columns at a time), and the tied pairs from the weight of each
    value. Every count is an integer below 2^24 in the product (exact in float32) and summed in
    float64, so the taus are scipy's to the last bit; scipy's final formula is applied to them."""
    n_resamples, n = idx.shape
    rows = np.arange(n_resamples)[:, None] * n
    W = np.bincount((rows + idx).ravel(), minlength=n_resamples * n).reshape(n_resamples, n).astype(np.float32)
    con_minus_dis = np.zeros(n_resamples)
    step = max(1, block // max(n, 1))
    for c in range(0, n, step):
        M = np.sign(gold[:, None] - gold[None, c : c + step]) * np.sign(sim[:, None] - sim[None, c : c + step])
        con_minus_dis += ((W @ M.astype(np.float32)).astype(np.float64) * W[:, c : c + step]).sum(axis=1)
    con_minus_dis /= 2
    total = n * (n - 1) / 2
    x_ties, y_ties = _tied_pairs(gold, W), _tied_pairs(sim, W)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = con_minus_dis / np.sqrt(total - x_ties) / np.sqrt(total - y_ties)
    tau = np.minimum(1.0, np.maximum(-1.0, tau))
    return np.where((x_ties == total) | (y_ties == total), np.nan, tau)


def _tied_pairs(values: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Per resample, the pairs of its items with equal values: sum over values of c (c - 1) / 2,
    c the resample's weight on that value."""
    order = np.argsort(values, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(values[order]) != 0])
    c = np.add.reduceat(W[:, order].astype(np.float64), starts, axis=1)
    return (c * (c - 1) / 2).sum(axis=1)


@dataclass(frozen=True)
class Metric:
    """A correlation between the gold means and a model's similarities: its value, and its value
    on every bootstrap resample at once (``idx``: one row of item indices per resample)."""

    point: Callable[[np.ndarray, np.ndarray], float]
    resamples: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


#: the correlation metrics, in the order of the scores table; adding one is one entry here
METRICS: dict[str, Metric] = {
    "spearman": Metric(spearman, spearman_resamples),
    "pearson": Metric(pearson, pearson_resamples),
    "kendall": Metric(kendall, kendall_resamples),
}


def _point(metric: str, gold: np.ndarray, sim: np.ndarray) -> float:
    return METRICS[metric].point(gold, sim) if len(gold) >= 3 else float("nan")


def _boot(metric: str, gold: np.ndarray, sim: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The metric on every resample (a row of item indices)."""
    return METRICS[metric].resamples(gold, sim, idx)


def _ci(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The percentile interval, over the resamples whose statistic is defined.

    Not ``scipy.stats.bootstrap``: it draws the same resamples and is no faster
    (``benchmarks/bootstrap.py``), but a resample whose statistic is undefined (a constant
    resample) makes its whole interval NaN, and its quantile interpolation differs from
    ``np.quantile`` in the last bit, which would change every published interval."""
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return float("nan"), float("nan")
    alpha = (1 - confidence) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return float(low), float(high)


def correlation_scores(dataset, model, gold, sim, n_total, settings: ScoringSettings, subset="all"):
    """Spearman, Pearson and Kendall tau-b over the items with both a gold mean and a similarity."""
    ok = ~np.isnan(gold) & ~np.isnan(sim)
    g, s = gold[ok], sim[ok]
    rows = []
    for metric in METRICS:
        value = _point(metric, g, s)
        low = high = float("nan")
        if len(g) >= 3 and settings.resamples:
            rng = np.random.default_rng(seed_for(settings.seed, dataset, model, metric, subset))
            idx = rng.integers(0, len(g), size=(settings.resamples, len(g)))
            low, high = _ci(_boot(metric, g, s, idx), settings.confidence)
        rows.append(
            ScoreRow(dataset, model, metric, subset, value, low, high, n_used=int(ok.sum()), n_total=int(n_total))
        )
    return rows


def comparison_scores(dataset, model, comps: pd.DataFrame, sim1, sim2, settings: ScoringSettings):
    """The A&G score over all comparisons and per type, with bootstrap CIs over comparisons."""
    s_all = ag_score_parts(sim1, sim2, comps["r"].to_numpy(float), comps["tie_to_w1"].to_numpy(bool))
    rows = []
    groups = [("all", np.ones(len(comps), dtype=bool))] + [
        (f"type={t}", (comps["type"] == t).to_numpy()) for t in TYPES if (comps["type"] == t).any()
    ]
    for subset, mask in groups:
        s = s_all[mask]
        used = s[~np.isnan(s)]
        value = ag_score(used)
        low = high = float("nan")
        if len(used) and settings.resamples:
            rng = np.random.default_rng(seed_for(settings.seed, dataset, model, "ag_score", subset))
            idx = rng.integers(0, len(used), size=(settings.resamples, len(used)))
            S = used[idx]
            weight = np.abs(S).sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                boot = np.where(weight > 0, np.maximum(S, 0).sum(axis=1) / weight, np.nan)
            low, high = _ci(boot, settings.confidence)
        rows.append(
            ScoreRow(dataset, model, "ag_score", subset, value, low, high, n_used=len(used), n_total=int(mask.sum()))
        )
    return rows


def paired_difference(dataset, model_a, model_b, gold, sim_a, sim_b, *, resamples=1000, seed=0, confidence=0.95):
    """Paired bootstrap of Spearman(A) - Spearman(B) over the items both models score, and beside
    it Williams' test of the two dependent correlations (``simgold.dependent_correlations``):
    ``r_ab`` (Spearman between the two models' predictions), ``williams_t``, ``williams_p``: one
    ``DifferenceRow``."""
    ok = ~np.isnan(gold) & ~np.isnan(sim_a) & ~np.isnan(sim_b)
    g, a, b = gold[ok], sim_a[ok], sim_b[ok]
    from .dependent_correlations import compare_predictions  # scipy.stats: imported where used

    williams = compare_predictions(g, a, b, "spearman")
    row = partial(DifferenceRow, dataset, model_a, model_b, "spearman", int(ok.sum()))
    williams_end = {"r_ab": williams["r_jk"], "williams_t": williams["t"], "williams_p": williams["p"]}
    if len(g) < 3:
        undefined = dict.fromkeys(("value_a", "value_b", "difference", "ci_low", "ci_high", "p"), np.nan)
        return row(**undefined, **williams_end)
    va, vb = _point("spearman", g, a), _point("spearman", g, b)
    rng = np.random.default_rng(seed_for(seed, dataset, model_a, model_b, "difference"))
    idx = rng.integers(0, len(g), size=(resamples, len(g)))
    diff = _boot("spearman", g, a, idx) - _boot("spearman", g, b, idx)
    diff = diff[~np.isnan(diff)]
    low, high = _ci(diff, confidence)
    p = min(1.0, 2.0 * min((diff <= 0).mean(), (diff >= 0).mean())) if len(diff) else np.nan
    return row(va, vb, va - vb, ci_low=low, ci_high=high, p=float(p), **williams_end)


# --------------------------------------------------------------------------------------------
# one dataset x one model


def pairs_for(dataset: str, kind: str, table: pd.DataFrame) -> pd.DataFrame:
    """The word pairs a model is asked about: the items, or (for ag files) every (target, word)
    pair of the comparisons."""
    if kind != "comparisons":
        return table[["item_id", "word1", "word2"]]
    pairs = pd.concat(
        [
            table[["target", "w1"]].set_axis(["word1", "word2"], axis=1),
            table[["target", "w2"]].set_axis(["word1", "word2"], axis=1),
        ]
    ).drop_duplicates()
    pairs = pairs.sort_values(["word1", "word2"]).reset_index(drop=True)
    pairs.insert(0, "item_id", [f"{dataset}:{a}|{b}" for a, b in zip(pairs["word1"], pairs["word2"])])
    return pairs


def words_of(table: pd.DataFrame) -> list[str]:
    """Every word of an items table (word1, word2) or comparisons table (target, w1, w2)."""
    cols = [c for c in ("word1", "word2", "target", "w1", "w2") if c in table.columns]
    return sorted({w for c in cols for w in table[c].dropna().tolist()})


def score_dataset(
    dataset: str,
    model: str,
    kind: str,
    pairs_table: pd.DataFrame,
    vectors: Vectors,
    *,
    gold: pd.DataFrame | None = None,
    comparisons: pd.DataFrame | None = None,
    agreement: pd.DataFrame | None = None,
    scoring: ScoringSettings,
    pred: pd.DataFrame | None = None,
):
    """Predictions and the scores table for one model on one dataset (``pred`` given: predictions
    made elsewhere, e.g. in context)."""
    if pred is None:
        pred = predictions(dataset, model, pairs_for(dataset, kind, pairs_table), vectors)
    rows = []
    if gold is not None:
        g = pred["item_id"].map(gold.set_index("item_id")["mean"]).to_numpy(float)
        rows += correlation_scores(dataset, model, g, pred["sim"].to_numpy(float), len(pred), scoring)
    if comparisons is not None and len(comparisons):
        sim1, _, _ = vectors.pair_sims(comparisons["target"].tolist(), comparisons["w1"].tolist())
        sim2, _, _ = vectors.pair_sims(comparisons["target"].tolist(), comparisons["w2"].tolist())
        rows += comparison_scores(dataset, model, comparisons, sim1, sim2, scoring)
    shares = oov_shares(pred)
    for metric in ("oov_pairs", "oov_words"):
        rows.append(ScoreRow(dataset, model, metric, "all", shares[metric], np.nan, np.nan, len(pred), len(pred)))
    ceiling = human_ceiling(agreement)
    rows.append(ScoreRow(dataset, model, "human_ceiling", "all", ceiling, np.nan, np.nan, n_used=0, n_total=0))
    return pred, pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def human_ceiling(agreement: pd.DataFrame | None) -> float:
    """Leave-one-out agreement (vs_rest) of the kept raters: what a model could hope to reach."""
    if agreement is None or agreement.empty:
        return float("nan")
    row = agreement[(agreement["stage"] == "filtered") & (agreement["subset"] == "all")]
    return float(row["vs_rest"].iloc[0]) if len(row) else float("nan")


def summary(scores: pd.DataFrame) -> pd.DataFrame:
    """Every dataset x model x metric with its CI, the OOV shares and the human ceiling beside it,
    and ``low_coverage`` where the model has no vector for more than half of the dataset's words."""
    is_extra = scores["metric"].isin(SUMMARY_EXTRAS)
    side = scores[is_extra].pivot_table(
        index=["dataset", "model"], columns="metric", values="value", aggfunc="first", dropna=False
    )
    out = scores[~is_extra].merge(side.reset_index(), on=["dataset", "model"], how="left")
    for col in SUMMARY_EXTRAS:
        if col not in out:
            out[col] = np.nan
    out["low_coverage"] = out["oov_words"] > 0.5
    return out.sort_values(["dataset", "model", "metric", "subset"], kind="stable").reset_index(drop=True)
