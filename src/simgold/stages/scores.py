"""Model scoring (docs/methods.md section 7).

Similarity is cosine. Lookup is exact, then lower-cased when the model allows it. OOV policies:
``skip`` (the item is not scored and is counted), ``zero`` (an OOV word is a zero vector: cosine 0),
``mean`` (an OOV word gets the mean of every vector in the embedding file), ``subword`` (fastText
vectors built from subwords; other models: as ``skip``). ``oov_pairs`` (share of items with an OOV
word) and ``oov_words`` (share of distinct words) are always reported, as fractions; their note names the words
out of vocabulary by their vectors, with their lines (``simgold.stages.vectors``).

Metrics: Spearman, Pearson and Kendall tau-b between the gold mean and the model's similarity, and
the A&G score (all comparisons and per type), each with a 95% percentile bootstrap CI (1000
resamples of items, or of comparisons, with a seed fixed per dataset, model and metric). Model
differences: a paired bootstrap over the items both models score, two-sided p for rho_A - rho_B.

The comparisons (A&G) a dataset is scored on are ``simgold.stages.comparisons``'; the similarity of
two words in their context paragraph, for a contextual model on a two-context dataset, is
``simgold.stages.in_context``'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import numpy as np
import pandas as pd

from simgold.io.schema import schema_defaults
from simgold.stages.comparisons import TYPES, ag_score, ag_score_parts
from simgold.stages.vectors import Vectors, unusable_note
from simgold.io.tables import SUMMARY_EXTRAS, TABLES
from simgold.stats.dependent_correlations import compare_predictions
from simgold.stats.multiple import benjamini_hochberg, holm
from simgold.stats.correlation import MIN_CORRELATION_ITEMS, pearson, spearman, undefined_correlation_note
from simgold.stats.resampling import (
    draws,
    kendall,
    kendall_resamples,
    min_resamples,
    paired_bootstrap,
    pearson_resamples,
    spearman_resamples,
    supported_interval,
)
from simgold.stats.seeds import seed_for

__all__ = ["DIFFERENCE_METRICS", "METRICS", "PREDICTION_COLUMNS", "SCORE_COLUMNS", "DifferenceRow", "Metric",
           "Metrics", "ScoreRow", "ScoringSettings", "across_datasets", "comparison_scores",
           "correlation_scores", "human_ceiling", "oov_shares", "paired_difference", "predictions", "raters_below",
           "score_dataset", "summary", "with_holm", "words_of"]  # fmt: skip

# --------------------------------------------------------------------------------------------
# scores


SCORE_COLUMNS = TABLES["scores"].names  # the canonical schemas' columns, in order
_SCORING = schema_defaults("properties", "scoring")
PREDICTION_COLUMNS = TABLES["predictions"].names


class ScoreRow(NamedTuple):
    """One row of the scores table, by name (its fields are the table's columns, in order).

    Attributes
    ----------
    fields : str, int, float
        The table's columns, in order, as declared below.
    """

    dataset: str
    model: str
    metric: str
    subset: str
    value: float
    ci_low: float
    ci_high: float
    confidence: float
    n_used: int
    n_total: int
    note: str = ""  # why the value (or its CI) is missing


class DifferenceRow(NamedTuple):
    """One row of the model_differences table, by name (its fields are the table's columns, in order).

    Attributes
    ----------
    fields : str, int, float
        The table's columns, in order, as declared below.
    """

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
    confidence: float
    p: float
    r_ab: float
    williams_t: float
    williams_p: float
    zou_low: float  # Zou's (2007) CI of the difference of the two dependent correlations, at the configured level
    zou_high: float
    p_holm: float  # the bootstrap p, Holm-adjusted over the dataset's model pairs (per metric)
    williams_p_holm: float  # Williams' p, likewise
    note: str  # why a test is missing (empty when both ran)


@dataclass(frozen=True)
class ScoringSettings:
    """The config's ``scoring`` block, resolved (the schema's defaults filled in by ``simgold.io.config``).

    Attributes
    ----------
    resamples, seed, confidence, msd_min_coverage, min_shared_items : int or float
        The block's keys, as the comments below say.
    """

    resamples: int  # bootstrap resamples for each CI (0: no CIs)
    seed: int  # the root of every resample's seed (``simgold.stats.seeds.seed_for``)
    confidence: float  # the CIs' coverage
    # the schema's defaults (the config fills them; a notebook may leave them out)
    # the share of a dataset's items a model must score to carry its MSD
    msd_min_coverage: float = _SCORING["msd_min_coverage"]
    min_shared_items: int = _SCORING["min_shared_items"]  # two models are compared on at least this many shared items

    @property
    def level(self) -> float:
        """The level a score row's CI columns carry: NaN where no CI is drawn (no resamples)."""
        return self.confidence if self.resamples else float("nan")


def predictions(dataset: str, model: str, pairs: pd.DataFrame, vectors: Vectors) -> pd.DataFrame:
    """One cosine per word pair, NaN where a word is out of the vocabulary (``oov``, ``oov_words``).

    Parameters
    ----------
    dataset, model : str
        The dataset's and the model's names.
    pairs : pandas.DataFrame
        ``item_id``, ``word1``, ``word2``.
    vectors : Vectors
        The model's vectors and OOV policy.

    Returns
    -------
    pandas.DataFrame
        The predictions table.
    """
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
    """``oov_pairs`` (the share of pairs with an OOV word) and ``oov_words`` (of distinct words).

    Parameters
    ----------
    pred : pandas.DataFrame
        A predictions table.

    Returns
    -------
    dict
        The two shares, as fractions (NaN without pairs).
    """
    words = pd.concat([pred["word1"], pred["word2"]]).unique()
    lost = {w for joined in pred["oov_words"] for w in joined.split(";") if w}
    return {
        "oov_pairs": float(pred["oov"].mean()) if len(pred) else float("nan"),
        "oov_words": len(lost) / len(words) if len(words) else float("nan"),
    }


# --------------------------------------------------------------------------------------------
# bootstrap


@dataclass(frozen=True)
class Metric:
    """A correlation between the gold means and a model's similarities (an entry of ``METRICS``).

    Parameters
    ----------
    point : callable
        ``point(gold, sim) -> float``: its value on the items with both (at least 3 of them).
    resamples : callable
        ``resamples(gold, sim, idx) -> array``: its value on every bootstrap resample at once
        (``idx``: one row of item indices per resample); NaN where a resample leaves it undefined.
    """

    point: Callable[[np.ndarray, np.ndarray], float]
    resamples: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


class Metrics(dict):
    """The registry of correlation metrics (``METRICS``): name -> ``Metric``, in the order of the
    scores table's rows. ``correlation_scores`` (and so ``score_dataset``, the scores table of
    every dataset x model, and ``simgold.evaluate``) reads it when it runs: a metric is one entry,
    scored with a percentile bootstrap CI seeded by its name.

    Parameters
    ----------
    entries : dict
        The registry's entries, by name.

    Examples
    --------
    Say the share of variance explained, Pearson's r squared:

    >>> METRICS["r_squared"] = Metric(
    ...     point=lambda gold, sim: pearson(gold, sim) ** 2,
    ...     resamples=lambda gold, sim, idx: pearson_resamples(gold, sim, idx) ** 2,
    ... )
    >>> gold, sim = np.array([1.0, 2, 3, 4, 5]), np.array([0.1, 0.3, 0.2, 0.5, 0.4])
    >>> rows = correlation_scores("toy", "m", gold, sim, 5, ScoringSettings(resamples=100, seed=0, confidence=0.95))
    >>> [(row.metric, round(row.value, 6)) for row in rows]  # 2 of 10 pairs discordant: tau 0.6
    [('spearman', 0.8), ('pearson', 0.8), ('kendall', 0.6), ('r_squared', 0.64)]

    It is a row of the scores table of ``score_dataset`` too:

    >>> table = pd.DataFrame({"word": ["a", "b", "c", "d"], "vector": [np.array(v, float) for v in
    ...     ([1, 0], [1, 1], [0, 1], [1, 2])], "source": "vocab", "line": [1, 2, 3, 4]})
    >>> pairs = pd.DataFrame({"item_id": ["i1", "i2", "i3", "i4"], "word1": ["a", "a", "a", "b"],
    ...     "word2": ["b", "c", "d", "c"]})
    >>> gold = pd.DataFrame({"item_id": ["i1", "i2", "i3", "i4"], "mean": [3.0, 1.0, 2.0, 4.0]})
    >>> _, scores = score_dataset("toy", "m", "means", pairs, Vectors(table, False, "skip"), gold=gold,
    ...     scoring=ScoringSettings(resamples=0, seed=0, confidence=0.95))
    >>> scores["metric"].tolist()
    ['spearman', 'pearson', 'kendall', 'r_squared', 'oov_pairs', 'oov_words', 'human_ceiling', 'raters_below']
    >>> del METRICS["r_squared"]
    """


METRICS: dict[str, Metric] = Metrics(
    {
        "spearman": Metric(spearman, spearman_resamples),
        "pearson": Metric(pearson, pearson_resamples),
        "kendall": Metric(kendall, kendall_resamples),
    }
)


def _point(metric: str, gold: np.ndarray, sim: np.ndarray) -> float:
    if undefined_correlation_note(gold, sim):  # too few items, or a constant: no correlation to compute
        return float("nan")
    return METRICS[metric].point(gold, sim)


def _boot(metric: str, gold: np.ndarray, sim: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The metric on every resample (a row of item indices)."""
    return METRICS[metric].resamples(gold, sim, idx)


def correlation_scores(dataset, model, gold, sim, n_total, settings: ScoringSettings, subset="all"):
    """Each metric of ``METRICS`` (Spearman, Pearson, Kendall tau-b) over the items with both a gold
    mean and a similarity, with its bootstrap CI: one ``ScoreRow`` per metric. A metric without a
    value (fewer than 3 items, a constant gold standard or constant similarities) has no CI either,
    and its note says why.

    Parameters
    ----------
    dataset, model : str
        The dataset's and the model's names.
    gold : object
        Float array: the gold mean of each item (NaN: none).
    sim : object
        Float array: the model's similarity of each item (NaN: out of vocabulary).
    n_total : object
        The dataset's number of items (``n_total`` of each row).
    settings : ScoringSettings
        The config's ``scoring`` settings.
    subset : object
        The subset (``all`` or ``column=value``).

    Returns
    -------
    object
        list[ScoreRow]: one per metric, value and CI (NaN where undefined) and items used.

    Examples
    --------
    >>> rows = correlation_scores("d", "m", np.full(5, 3.0), np.arange(5.0), 5, ScoringSettings(100, 0, 0.95))
    >>> rows[0].metric, rows[0].value, rows[0].ci_low, rows[0].note
    ('spearman', nan, nan, 'the gold standard gives every item the same score (3): no correlation')
    """
    ok = ~np.isnan(gold) & ~np.isnan(sim)
    g, s = gold[ok], sim[ok]
    why_none = undefined_correlation_note(g, s, what=model)
    rows = []
    for metric in METRICS:
        value = _point(metric, g, s)
        low = high = float("nan")
        note = why_none
        if not why_none and settings.resamples:
            rng = np.random.default_rng(seed_for(settings.seed, dataset, model, metric, subset))
            idx = draws(len(g), settings.resamples, rng)
            low, high, note = supported_interval(_boot(metric, g, s, idx), settings.confidence)
        level, n_used = settings.level, int(ok.sum())
        rows.append(ScoreRow(dataset, model, metric, subset, value, low, high, level, n_used, int(n_total), note))
    return rows


def comparison_scores(dataset, model, comps: pd.DataFrame, sim1, sim2, settings: ScoringSettings):
    """The A&G score over all comparisons and per type, with bootstrap CIs over comparisons.

    Parameters
    ----------
    dataset, model : str
        The dataset's and the model's names.
    comps : pd.DataFrame
        The comparisons (``target``, ``w1``, ``w2``, ``type``, ``r``, ``tie_to_w1``).
    sim1 : object
        The similarity of each target and w1.
    sim2 : object
        The similarity of each target and w2.
    settings : ScoringSettings
        The config's ``scoring`` settings.

    Returns
    -------
    object
        list[ScoreRow]: ``ag_score`` for subset ``all`` and each ``type=...`` present.
    """
    s_all = ag_score_parts(sim1, sim2, comps["r"].to_numpy(float), comps["tie_to_w1"].to_numpy(bool))
    rows = []
    groups = [("all", np.ones(len(comps), dtype=bool))] + [
        (f"type={t}", (comps["type"] == t).to_numpy()) for t in TYPES if (comps["type"] == t).any()
    ]
    for subset, mask in groups:
        s = s_all[mask]
        used = s[~np.isnan(s)]
        value = ag_score(used)
        low, high, note = float("nan"), float("nan"), ""
        if len(used) and settings.resamples:
            rng = np.random.default_rng(seed_for(settings.seed, dataset, model, "ag_score", subset))
            S = used[draws(len(used), settings.resamples, rng)]
            weight = np.abs(S).sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                boot = np.where(weight > 0, np.maximum(S, 0).sum(axis=1) / weight, np.nan)
            low, high, note = supported_interval(boot, settings.confidence)
        row = (dataset, model, "ag_score", subset, value, low, high, settings.level, len(used), int(mask.sum()), note)
        rows.append(ScoreRow(*row))
    return rows


DIFFERENCE_METRICS = ("spearman", "pearson")  # compared between models, by the paired bootstrap and Williams' test


def paired_difference(
    dataset,
    model_a,
    model_b,
    gold,
    sim_a,
    sim_b,
    *,
    resamples=_SCORING["resamples"],
    seed=_SCORING["seed"],
    confidence=_SCORING["confidence"],
    metric="spearman",
    min_items=_SCORING["min_shared_items"],
):
    """Paired bootstrap of metric(A) - metric(B) over the items both models score, and beside it
    Williams' test of the two dependent correlations (``simgold.stats.dependent_correlations``).

    Parameters
    ----------
    dataset, model_a, model_b : str
        Names, for the row.
    gold, sim_a, sim_b : numpy.ndarray
        Gold means and the two models' similarities, item by item (NaN: not scored).
    resamples, seed, confidence
        The bootstrap (``scoring``'s settings).
    metric : str
        ``spearman`` or ``pearson`` (``DIFFERENCE_METRICS``).
    min_items : int
        Fewer shared items than this: the two values and their difference, but no CI and no test
        (``note`` says so); a test on a handful of items reads as evidence and is not.

    Returns
    -------
    DifferenceRow
        ``r_ab`` is the metric between the two models' predictions; ``p_holm`` and
        ``williams_p_holm`` are NaN until ``with_holm`` adjusts a dataset's rows together. Where a
        model has no correlation with the gold (a constant gold standard or constant similarities)
        there is no difference, no CI and no test, and ``note`` says why.

    Examples
    --------
    Identical predictions differ by 0, with p = 1 from both tests:

    >>> gold = np.arange(12.0)
    >>> sim = np.sin(gold)
    >>> row = paired_difference("d", "a", "b", gold, sim, sim.copy(), resamples=100)
    >>> row.difference, row.p, row.williams_t, row.williams_p
    (0.0, 1.0, 0.0, 1.0)
    """
    if metric not in DIFFERENCE_METRICS:
        raise ValueError(f"metric {metric!r}: expected one of {', '.join(DIFFERENCE_METRICS)}")
    ok = ~np.isnan(gold) & ~np.isnan(sim_a) & ~np.isnan(sim_b)
    g, a, b = gold[ok], sim_a[ok], sim_b[ok]
    row = partial(DifferenceRow, dataset, model_a, model_b, metric, int(ok.sum()))
    va, vb = _point(metric, g, a), _point(metric, g, b)
    holm = {"p_holm": np.nan, "williams_p_holm": np.nan}
    untested = dict.fromkeys(("ci_low", "ci_high", "p", "williams_t", "williams_p", "zou_low", "zou_high"), np.nan)
    # a model without a correlation (a constant gold standard, constant similarities) has nothing to compare
    missing = dict.fromkeys(undefined_correlation_note(g, sim, what=name) for name, sim in ((model_a, a), (model_b, b)))
    missing.pop("", None)
    if missing and len(g) >= MIN_CORRELATION_ITEMS:
        note = f"no difference to test: {'; '.join(missing)}"
        r_ab = _point(metric, a, b)  # the two models' agreement needs no gold standard
        return row(va, vb, va - vb, confidence=confidence, r_ab=r_ab, **untested, **holm, note=note)
    if len(g) < min_items:
        r_ab = compare_predictions(g, a, b, metric, confidence=confidence)["r_jk"] if len(g) >= 3 else np.nan
        note = f"{len(g)} shared items: fewer than {min_items} (scoring.min_shared_items), no CI and no test"
        return row(va, vb, va - vb, confidence=confidence, r_ab=r_ab, **untested, **holm, note=note)
    williams = compare_predictions(g, a, b, metric, confidence=confidence)
    extra = () if metric == "spearman" else (metric,)  # Spearman's stream as before the Pearson rows came
    rng = np.random.default_rng(seed_for(seed, dataset, model_a, model_b, "difference", *extra))
    low, high, p, defined = paired_bootstrap(METRICS[metric].resamples, g, a, b, resamples, rng, confidence)
    notes = []
    if not defined and resamples:
        notes.append("no resample has both correlations defined: no bootstrap CI")
    elif 0 < defined < (fewest := min_resamples(confidence)):  # a level B cannot support: no CI, as agreement
        low = high = np.nan
        notes.append(f"{defined} resamples with a value: no {100 * confidence:.12g}% CI (at least {fewest} needed)")
    if np.isnan(williams["t"]):
        notes.append("Williams' test undefined: the three correlations are not a valid correlation matrix")
    if np.isnan(williams["zou_low"]):
        notes.append(_zou_note(williams, model_a, model_b, metric))
    tests = {"ci_low": low, "ci_high": high, "p": p, "r_ab": williams["r_jk"], "williams_t": williams["t"],
             "williams_p": williams["p"], "zou_low": williams["zou_low"], "zou_high": williams["zou_high"]}  # fmt: skip
    return row(va, vb, va - vb, confidence=confidence, **tests, **holm, note="; ".join(notes))


def _zou_note(williams: dict, model_a: str, model_b: str, metric: str) -> str:
    """Why Zou's interval is NaN: a correlation of exactly +-1 with the gold (Fisher's z infinite)."""
    exact = [f"{m}'s {metric} with the gold is exactly {r:+g}" for m, r in ((model_a, williams["r_jg"]),
             (model_b, williams["r_kg"])) if abs(r) == 1]  # fmt: skip
    return f"no Zou interval: {' and '.join(exact)} (Fisher's z is infinite)" if exact else "no Zou interval"


def across_datasets(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Every dataset's model differences in one table, with ``q_bh`` and ``williams_q_bh``: the two
    p values adjusted by Benjamini-Hochberg over all datasets (per metric), the false discovery
    rate of a reader who reports every pair of models that differs on any dataset.

    Parameters
    ----------
    tables : list[pd.DataFrame]
        Per-dataset model-difference tables (``metric``, ``p``, ``williams_p``, ...).

    Returns
    -------
    pd.DataFrame
        The tables concatenated, with float columns ``q_bh`` and ``williams_q_bh`` added.

    Examples
    --------
    >>> one = pd.DataFrame({"dataset": "a", "metric": "spearman", "p": [0.01, 0.2], "williams_p": [0.02, 0.3]})
    >>> two = pd.DataFrame({"dataset": "b", "metric": "spearman", "p": [0.03], "williams_p": [float("nan")]})
    >>> across_datasets([one, two])[["q_bh", "williams_q_bh"]].values.round(3).tolist()
    [[0.03, 0.04], [0.2, 0.3], [0.045, nan]]
    """
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=["metric", "p", "williams_p"])
    return _adjusted(table, ["metric"], benjamini_hochberg, {"p": "q_bh", "williams_p": "williams_q_bh"})


def _adjusted(table: pd.DataFrame, by: list[str], adjust, names: dict[str, str]) -> pd.DataFrame:
    """``table`` with each column of ``names`` adjusted by ``adjust`` within the groups of ``by``,
    under its new name."""
    out = table.copy()
    for column, name in names.items():
        adjusted = pd.Series(np.nan, index=out.index)
        for _, group in out.groupby(by, sort=False):
            adjusted[group.index] = adjust(group[column].to_numpy(float))
        out[name] = adjusted.to_numpy()
    return out


def with_holm(table: pd.DataFrame) -> pd.DataFrame:
    """``p_holm`` and ``williams_p_holm``: each p adjusted by Holm's step-down method over the
    model pairs of one dataset and metric (``simgold.stats.multiple.holm``), so that a reader who
    scans every pair of models for a significant one keeps the family-wise error at the level.

    Parameters
    ----------
    table : pd.DataFrame
        One dataset's model-difference table (``dataset``, ``metric``, ``p``, ``williams_p``).

    Returns
    -------
    pd.DataFrame
        ``table`` with float columns ``p_holm`` and ``williams_p_holm`` added.

    Examples
    --------
    >>> t = pd.DataFrame({"dataset": "d", "metric": "spearman", "p": [0.01, 0.04, 0.03],
    ...                   "williams_p": [0.2, float("nan"), 0.01]})
    >>> with_holm(t)[["p_holm", "williams_p_holm"]].values.round(4).tolist()
    [[0.03, 0.2], [0.06, nan], [0.06, 0.02]]
    """
    return _adjusted(table, ["dataset", "metric"], holm, {"p": "p_holm", "williams_p": "williams_p_holm"})


# --------------------------------------------------------------------------------------------
# one dataset x one model


def _pairs_for(dataset: str, kind: str, table: pd.DataFrame) -> pd.DataFrame:
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
    """Every word of an items table (word1, word2) or comparisons table (target, w1, w2).

    Parameters
    ----------
    table : pd.DataFrame
        An items table (``word1``, ``word2``) or comparisons table (``target``, ``w1``, ``w2``).

    Returns
    -------
    list[str]
        The distinct words of those columns, sorted.
    """
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
    raters: pd.DataFrame | None = None,
    scoring: ScoringSettings,
    pred: pd.DataFrame | None = None,
):
    """Predictions and the scores table for one model on one dataset (``pred`` given: predictions
    made elsewhere, e.g. in context). ``agreement`` gives the human ceiling, ``raters`` (the
    agreement stage's per-rater table) the ``raters_below`` row.

    Parameters
    ----------
    dataset, model : str
        The dataset's and the model's names.
    kind : str
        The dataset's kind (``ratings``, ``means``, ``comparisons``, ...).
    pairs_table : pd.DataFrame
        The word pairs to score.
    vectors : Vectors
        The model's vectors.
    gold : pd.DataFrame | None
        The gold means.
    comparisons : pd.DataFrame | None
        The comparisons (``target``, ``w1``, ``w2``, ``type``, ``r``, ``tie_to_w1``).
    agreement : pd.DataFrame | None
        The agreement stage's agreement table (None: no raters).
    raters : pd.DataFrame | None
        The agreement stage's per-rater table.
    scoring : ScoringSettings
        The config's ``scoring`` settings.
    pred : pd.DataFrame | None
        Predictions made elsewhere (None: made here).

    Returns
    -------
    object
        (predictions, scores): the predictions table and the scores table (``SCORE_COLUMNS``).
    """
    note = ""
    if pred is None:
        pred = predictions(dataset, model, _pairs_for(dataset, kind, pairs_table), vectors)
        # the words this dataset lost to their vectors (all zeros, or not finite as float32), by line
        note = unusable_note(vectors.unusable_for({w for j in pred["oov_words"] for w in j.split(";") if w}))
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
        rows.append(
            ScoreRow(dataset, model, metric, "all", shares[metric], np.nan, np.nan, np.nan, len(pred), len(pred), note)
        )
    ceiling, why = human_ceiling(agreement), ""
    if agreement is not None and np.isnan(ceiling):  # the agreement table says why its vs_rest is missing
        why = _kept_agreement_note(agreement) or "no rater kept has a Spearman with the other raters' means"
    rows.append(ScoreRow(dataset, model, "human_ceiling", "all", ceiling, np.nan, np.nan, np.nan, 0, 0, why))
    spearman_row = next((r for r in rows if r.metric == "spearman" and r.subset == "all"), None)
    spearman_all = spearman_row.value if spearman_row is not None else np.nan
    below, counted = raters_below(spearman_all, raters)
    why = ""
    if raters is not None and not raters.empty and np.isnan(below):
        why = (f"no Spearman: {spearman_row.note}" if spearman_row is not None and np.isnan(spearman_all)
               else "no rater kept has a Spearman with the other raters' means")  # fmt: skip
    rows.append(ScoreRow(dataset, model, "raters_below", "all", below, np.nan, np.nan, np.nan, *counted, why))
    return pred, pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def _kept_agreement_note(agreement: pd.DataFrame) -> str:
    """The agreement table's note on the raters kept (filtered stage, all items): why its
    vs_rest, the human ceiling, may be missing."""
    row = agreement[(agreement["stage"] == "filtered") & (agreement["subset"] == "all")]
    return str(row["note"].iloc[0]) if len(row) and "note" in row else ""


def raters_below(model_spearman: float, raters: pd.DataFrame | None) -> tuple[float, tuple[int, int]]:
    """Where a model would rank among the human raters: the share of the raters kept whose
    leave-one-out agreement (``vs_rest``: Spearman with the other raters' item means) is below the
    model's Spearman with the gold, and (raters below, raters with a vs_rest).

    Both are correlations with a mean of the (other) raters, so the model stands where a rater with
    its correlation would. The human ceiling is their mean.

    Parameters
    ----------
    model_spearman : float
        The model's Spearman with the gold.
    raters : pd.DataFrame | None
        The agreement stage's per-rater table.

    Returns
    -------
    tuple[float, tuple[int, int]]
        (share in [0, 1], (raters below, raters counted)); (NaN, (0, 0)) without a value.

    Examples
    --------
    >>> raters = pd.DataFrame({"stage": "filtered", "excluded": False, "vs_rest": [0.5, 0.6, 0.7, None]})
    >>> raters_below(0.65, raters)
    (0.6666666666666666, (2, 3))
    """
    if raters is None or raters.empty or np.isnan(model_spearman):
        return float("nan"), (0, 0)
    kept = raters[(raters["stage"] == "filtered") & ~raters["excluded"].astype(bool)]
    values = kept["vs_rest"].to_numpy(float)
    values = values[~np.isnan(values)]
    if not len(values):
        return float("nan"), (0, 0)
    below = int((values < model_spearman).sum())
    return below / len(values), (below, len(values))


def human_ceiling(agreement: pd.DataFrame | None) -> float:
    """Leave-one-out agreement (vs_rest) of the kept raters: what a model could hope to reach.

    Parameters
    ----------
    agreement : pd.DataFrame | None
        The agreement stage's agreement table (None: no raters).

    Returns
    -------
    float
        The ``vs_rest`` of the filtered stage, subset ``all``; NaN without an agreement table.
    """
    if agreement is None or agreement.empty:
        return float("nan")
    row = agreement[(agreement["stage"] == "filtered") & (agreement["subset"] == "all")]
    return float(row["vs_rest"].iloc[0]) if len(row) else float("nan")


def summary(scores: pd.DataFrame) -> pd.DataFrame:
    """Every dataset x model x metric with its CI, the OOV shares and the human ceiling beside it,
    and ``low_coverage`` where the model has no vector for more than half of the dataset's words.

    Parameters
    ----------
    scores : pd.DataFrame
        The scores table (``SCORE_COLUMNS``) of one or more datasets.

    Returns
    -------
    pd.DataFrame
        The non-extra score rows with ``SUMMARY_EXTRAS`` columns and ``low_coverage``, sorted.
    """
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
