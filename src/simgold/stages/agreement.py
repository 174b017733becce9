"""The agreement stage: agreement per stage (raw, calibrated, filtered) and per subset, the per-rater
table, and outlier filtering (docs/methods.md section 4).

Outlier filtering is decided once, on the calibrated ratings of the whole dataset, and not
iterated: ``pairwise_sd`` excludes raters whose average pairwise Spearman lies more than ``k`` SDs
(ddof=1) below the mean of the raters' averages; ``vs_rest_min`` excludes raters whose
leave-one-out Spearman with the other raters' means is below ``threshold``.

Rankings (Avraham & Goldberg design) get the same treatment with rankings in place of scores: the
agreement of two raters is the mean, over the target groups both ranked, of the Spearman between
their rankings; ``vs_mean`` / ``vs_rest`` are means over targets of the Spearman with the mean
ranks; alpha treats each (target, candidate) as a unit.

With ``ci``, every stage and subset of a ratings dataset also gets bootstrap CIs on its agreement
(``simgold.stats.agreement_ci``; ``agreement_ci_report`` when the agreement job has run): the table
``agreement_ci``. Rating slots (``persistent_raters: false``) get alpha's, resampling items.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import NamedTuple

import numpy as np
import pandas as pd

from simgold.stats.alpha import ALPHA_COLUMNS, alpha_rows, krippendorff_alpha
from simgold.stats.icc import bounded, one_way, one_way_note, two_way, two_way_note
from simgold.stats.retest import consecutive_answers, retest_reliability
from simgold.stats.rank_correlation import (
    AgreementStats,
    PairResult,
    RatingMatrix,
    agreement,
    pairwise_spearman,
    vs_reference,
)
from simgold.stats.agreement_ci import TABLE_COLUMNS as CI_COLUMNS
from simgold.stats.agreement_ci import AgreementCI, agreement_cis
from simgold.stats.agreement_statistics import (
    agreement_summary,
    ci_statistics,
    slot_ci_statistics,
    slot_summary,
    undefined_reason,
)
from simgold.io.tables import TABLES

__all__ = ["RATER_COLUMNS", "STAGES", "OutlierCut", "agreement_ci_report", "agreement_report",
           "alpha_levels", "alpha_table", "ci_table", "icc_levels", "optimistic_note", "outlier_cut",
           "ranking_agreement", "ranking_report", "retest_table", "select_outliers", "subsets"]  # fmt: skip

STAGES = ("raw", "calibrated", "filtered")
RATER_COLUMNS = TABLES["raters"].names  # the canonical schema's columns, in order


def subsets(items: pd.DataFrame, names: list[str]) -> list[tuple[str, np.ndarray]]:
    """``all`` and one subset per value of each grouping attribute, as masks over ``items`` rows.

    Parameters
    ----------
    items : pd.DataFrame
        The items table (``item_id``, ``word1``, ``word2``, ...).
    names : list[str]
        Item columns to split on (``agreement.subsets``): a subset per distinct value.

    Returns
    -------
    list[tuple[str, np.ndarray]]
        (label, bool mask over ``items`` rows): ``all`` first, then ``column=value`` per value.
    """
    out = [("all", np.ones(len(items), dtype=bool))]
    for name in names:
        if name not in items.columns:
            raise KeyError(f"agreement subset attribute {name!r} is not an item column ({list(items.columns)})")
        values = items[name]
        for value in sorted(values.dropna().unique(), key=str):
            out.append((f"{name}={_label(value)}", (values == value).to_numpy()))
    return out


def _label(value) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


class OutlierCut(NamedTuple):
    """The cutoff of an outlier rule: raters whose ``column`` is below ``cut`` are excluded;
    ``rule`` spells the cut out for the exclusion reasons.

    Attributes
    ----------
    column : str
        The raters table's column the rule cuts: avg_pairwise or vs_rest.
    cut : float
        Its ``cut``.
    rule : str
        Its ``rule``.
    """

    column: str  # the raters table's column the rule cuts: avg_pairwise or vs_rest
    cut: float
    rule: str


def outlier_cut(avg_pairwise, method: str, k: float = 1.0, threshold: float | None = None) -> OutlierCut | None:
    """The one definition of the outlier cutoff (docs/methods.md section 4), for the filtering and
    for the raters figure.

    Parameters
    ----------
    avg_pairwise : array_like of float
        Each rater's average pairwise Spearman (NaN: none); used by ``pairwise_sd``.
    method : {"none", "pairwise_sd", "vs_rest_min"}
        ``pairwise_sd`` cuts avg_pairwise at mean - k SD (ddof 1) over the raters with a value;
        ``vs_rest_min`` cuts vs_rest at ``threshold``.
    k : float
        SDs below the mean, for ``pairwise_sd``.
    threshold : float or None
        The minimum vs_rest, for ``vs_rest_min``.

    Returns
    -------
    OutlierCut or None
        None without filtering (``none``) or with fewer than two avg_pairwise values.

    Examples
    --------
    >>> outlier_cut([0.5, 0.7, float("nan")], "pairwise_sd").rule
    'mean 0.600 - 1 x sd 0.141 = 0.459'
    >>> outlier_cut([], "vs_rest_min", threshold=0.2)
    OutlierCut(column='vs_rest', cut=0.2, rule='0.2')
    """
    if method == "pairwise_sd":
        values = np.asarray(avg_pairwise, dtype=float)
        valid = values[~np.isnan(values)]
        if len(valid) < 2:
            return None
        mu, sd = valid.mean(), valid.std(ddof=1)
        cut = float(mu - k * sd)
        return OutlierCut("avg_pairwise", cut, f"mean {mu:.3f} - {k:g} x sd {sd:.3f} = {cut:.3f}")
    if method == "vs_rest_min":
        return OutlierCut("vs_rest", float(threshold), f"{threshold:g}")
    if method != "none":
        raise ValueError(f"unknown outlier method {method!r}")
    return None


def select_outliers(avg_pairwise, vs_rest, outliers: dict, names: dict | None = None):
    """(excluded mask over the raters, reasons); decided once, not iterated, by ``outlier_cut``.

    Parameters
    ----------
    avg_pairwise, vs_rest : array_like of float
        Each rater's average pairwise Spearman (``pairwise_sd``) and vs_rest (``vs_rest_min``); NaN: none.
    outliers : dict
        The dataset's ``outliers`` block: ``method``, ``k`` (``pairwise_sd``, default 1), ``threshold``.
    names : dict, optional
        What a reason calls each column (default: its name), for a statistic standing in for both.

    Returns
    -------
    object
        (excluded, reasons): a bool array over the raters and an object array of why each is out.

    Examples
    --------
    >>> excluded, reasons = select_outliers([0.8, 0.7, 0.1], [0.8, 0.7, 0.1], {"method": "vs_rest_min", "threshold": 0.3})
    >>> excluded.tolist(), reasons[2]
    ([False, False, True], 'vs_rest_min: vs_rest 0.100 < 0.3')
    """
    columns = {"avg_pairwise": np.asarray(avg_pairwise, dtype=float), "vs_rest": np.asarray(vs_rest, dtype=float)}
    R = len(columns["vs_rest"])
    excluded = np.zeros(R, dtype=bool)
    reasons = np.array([""] * R, dtype=object)
    method = outliers["method"]
    rule = outlier_cut(columns["avg_pairwise"], method, outliers.get("k", 1.0), outliers.get("threshold"))
    if rule is not None:
        values = columns[rule.column]
        excluded = ~np.isnan(values) & (values < rule.cut)
        name = (names or {}).get(rule.column, rule.column)
        for j in np.flatnonzero(excluded):
            reasons[j] = f"{method}: {name} {values[j]:.3f} < {rule.rule}"
    return excluded, reasons


def _note(stats: AgreementStats) -> str:
    """Why the statistics with an interval (pairwise, vs_mean, vs_rest, alpha) that have no value
    have none, those of one reason named together: "pairwise, vs_rest: <why>; alpha_interval: <why>".

    Examples
    --------
    >>> note = _note(agreement(RatingMatrix.from_dense(np.full((6, 3), 3.0)), 5))  # every rater gives every item 3
    >>> for part in note.split("; "):
    ...     print(part)
    pairwise, vs_mean, vs_rest: every rating is 3: constant scores have no ranks to correlate
    alpha_interval: every pairable score is the same: no expected disagreement
    """
    by_reason: dict[str, list[str]] = {}
    for name in ci_statistics():
        reason = undefined_reason(stats, name)
        if reason:
            by_reason.setdefault(reason, []).append(name)
    return "; ".join(f"{', '.join(names)}: {reason}" for reason, names in by_reason.items())


def optimistic_note(n_excluded: int, method: str) -> str:
    """The note of a filtered stage whose raters were removed for low agreement: the same ratings
    chose who stays and then measure how well they agree, so the figure is biased upward.

    Parameters
    ----------
    n_excluded : int
        Raters excluded for low agreement.
    method : str
        The method (as named in the config).

    Returns
    -------
    str
        The note ("optimistic: N raters excluded ..."); "" when no rater was excluded.
    """
    if not n_excluded:
        return ""
    raters = f"{n_excluded} rater{'s' if n_excluded != 1 else ''}"
    return f"optimistic: {raters} excluded for low agreement ({method}) on these same ratings"


def _row(dataset, stage, subset, summary, note) -> dict:
    return {"dataset": dataset, "stage": stage, "subset": subset, **summary, "note": note}


def _agreement_table(rows: list[dict]) -> pd.DataFrame:
    """The agreement table of these rows: the canonical columns (a statistic per entry of the
    registry, as it is now), in order."""
    return pd.DataFrame(rows, columns=list(TABLES["agreement"].names))


def agreement_report(
    dataset: str,
    items: pd.DataFrame,
    raw: pd.DataFrame,
    calibrated: pd.DataFrame,
    calibration: pd.DataFrame,
    *,
    min_overlap: int,
    subset_names: list[str] | None = None,
    outliers: dict | None = None,
    persistent_raters: bool = True,
    ci: dict | None = None,
    log=None,
) -> dict[str, pd.DataFrame]:
    """Agreement for a per-rater dataset: returns ``agreement``, ``raters`` and the filtered
    ``ratings``; with ``ci``, also ``agreement_ci``.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    items : pd.DataFrame
        The items table (``item_id``, ``word1``, ``word2``, ...).
    raw, calibrated : pd.DataFrame
        The raw and the calibrated ratings (``item_id``, ``rater``, ``score``).
    calibration : pd.DataFrame
        The calibration stage's per-rater table.
    min_overlap : int
        Shared items a pair of raters needs for a Spearman value (``agreement.min_overlap``).
    subset_names : list[str] | None
        The item columns whose values get their own rows (``agreement.subsets``).
    outliers : dict | None
        The outlier rule (``method``, ``k``, ``threshold``).
    persistent_raters : bool
        False: the rating columns are slots, not people.
    ci : dict | None
        The CIs' ``resamples``, ``seed``, ``confidence``, ``max_work`` (and ``min_defined``); None: none.
    log : object
        Where progress lines go (None: nowhere).

    Returns
    -------
    dict[str, pd.DataFrame]
        Table name -> table: ``agreement``, ``raters``, ``ratings`` (and ``agreement_ci`` with ``ci``).
    """
    outliers = outliers or {"method": "none"}
    item_ids = items["item_id"].to_numpy()
    masks = subsets(items, subset_names or [])
    if not persistent_raters:
        return _anonymous_report(dataset, item_ids, raw, calibrated, masks, min_overlap, ci)
    raw_m, cal_m = _rating_matrix(raw, item_ids), _rating_matrix(calibrated, item_ids)
    rows, per_stage, cis, decision = [], {}, [], {}

    def decide(calibrated_stats: AgreementStats) -> np.ndarray:
        excluded, decision["reasons"] = select_outliers(
            calibrated_stats.avg_pairwise, calibrated_stats.vs_rest, outliers
        )
        if log and excluded.any():
            log(f"excluded raters: {', '.join(map(str, cal_m.raters[excluded]))}")
        return excluded

    for label, stage, matrix, stats, excluded in _subset_stats(raw_m, cal_m, masks, min_overlap, decide):
        optimistic = optimistic_note(int(excluded.sum()), outliers["method"]) if stage == "filtered" else ""
        note = "; ".join(part for part in (optimistic, _note(stats)) if part)
        rows.append(_row(dataset, stage, label, agreement_summary(stats), note))
        if ci is not None:
            cis.append(_stage_cis(dataset, stage, label, matrix, stats, min_overlap, ci, optimistic))
        if label == "all":  # the rater table's stages: without their pairs
            per_stage[stage] = replace(stats, pairs=None, matrix=None)
        del stats, matrix  # the pairs freed before the next stage is computed (memory)

    raters = _rater_table(dataset, per_stage, calibration, excluded, decision["reasons"], cal_m.raters)
    dropped = set(cal_m.raters[excluded])
    filtered = calibrated[~calibrated["rater"].isin(dropped)].reset_index(drop=True)
    out = {"agreement": _agreement_table(rows), "raters": raters, "ratings": filtered}
    return _with_cis(out, ci, cis)


def _rating_matrix(ratings: pd.DataFrame, item_ids: np.ndarray) -> RatingMatrix:
    """``RatingMatrix.from_ratings(ratings, items=item_ids)`` by pandas' hashing (no str per rating)."""
    item_codes = pd.Index(item_ids).get_indexer(ratings["item_id"])
    if (item_codes < 0).any():
        raise ValueError("ratings refer to items that are not in the item list")
    rater_codes, raters = pd.factorize(ratings["rater"], sort=True)
    score, items = ratings["score"].to_numpy(dtype=float), np.asarray(item_ids)
    return RatingMatrix.from_entries(item_codes, rater_codes, score, items, np.asarray(raters))


def _subset_stats(raw_m: RatingMatrix, cal_m: RatingMatrix, masks, min_overlap: int, decide):
    """Per subset (``all`` first) and stage: label, stage, matrix, agreement, the raters excluded
    (none until decided); ``decide(calibrated agreement of all items) -> excluded mask`` is called
    once, on ``all``. A stage's pairs are dropped once the next no longer needs them (memory)."""
    excluded = None
    for label, mask in masks:
        raw_s, cal_s = raw_m.subset(mask), cal_m.subset(mask)
        raw_pairs, none = pairwise_spearman(raw_s, min_overlap), np.zeros(raw_s.shape[1], dtype=bool)
        yield label, "raw", raw_s, agreement(raw_s, min_overlap, raw_pairs), none if excluded is None else excluded
        cal_pairs = pairwise_spearman(cal_s, min_overlap, previous=(raw_s, raw_pairs))
        del raw_pairs
        stats = agreement(cal_s, min_overlap, cal_pairs)
        if excluded is None:
            excluded = decide(stats)
        yield label, "calibrated", cal_s, stats, excluded
        del stats
        filtered_pairs, filtered = cal_pairs.restrict(~excluded), cal_s.keep_raters(~excluded)
        del cal_pairs
        yield label, "filtered", filtered, agreement(filtered, min_overlap, filtered_pairs), excluded


def _stage_cis(dataset, stage, label, matrix, stats, min_overlap, ci, optimistic) -> pd.DataFrame:
    """The agreement_ci rows of one stage and subset; the filtered stage's notes say first that
    its raters were chosen on these ratings (``optimistic``)."""
    table = ci_table(agreement_cis(dataset, stage, label, matrix, stats=stats, min_overlap=min_overlap, **ci))
    if stage == "filtered" and optimistic:
        table["note"] = [optimistic + (f"; {n}" if n else "") for n in table["note"]]
    return table


def agreement_ci_report(
    dataset: str,
    items: pd.DataFrame,
    raw: pd.DataFrame,
    calibrated: pd.DataFrame,
    raters: pd.DataFrame,
    *,
    min_overlap: int,
    subset_names: list[str] | None = None,
    outlier_method: str = "none",
    persistent_raters: bool = True,
    ci: dict,
) -> pd.DataFrame:
    """The agreement_ci table of a per-rater dataset whose agreement stage has run: the raters it
    excluded are read from its ``raters`` table, not decided again.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    items, raw, calibrated : pandas.DataFrame
        The items and the raw and calibrated ratings, as ``agreement_report`` takes them.
    raters : pandas.DataFrame
        The agreement stage's per-rater table (``excluded`` on its ``calibrated`` rows).
    min_overlap : int
        Shared items a pair of raters needs (``agreement.min_overlap``).
    subset_names : list of str, optional
        The item columns whose values get their own rows (``agreement.subsets``).
    outlier_method : str
        The outlier rule that excluded the raters (for the filtered stage's note).
    persistent_raters : bool
        False: the rating columns are slots (alpha's CIs, items resampled).
    ci : dict
        ``resamples``, ``seed``, ``confidence``, ``max_work`` (``agreement_cis``' settings) and,
        optionally, ``min_defined``.

    Returns
    -------
    pandas.DataFrame
        The agreement_ci table, as ``agreement_report(..., ci=ci)["agreement_ci"]`` gives it.
    """
    item_ids = items["item_id"].to_numpy()
    masks = subsets(items, subset_names or [])
    if not persistent_raters:
        return _anonymous_report(dataset, item_ids, raw, calibrated, masks, min_overlap, ci)["agreement_ci"]
    raw_m = _rating_matrix(raw, item_ids)
    cal_m = _rating_matrix(calibrated, item_ids)
    calibrated_rows = raters[raters["stage"] == "calibrated"]
    dropped = set(calibrated_rows.loc[calibrated_rows["excluded"].astype(bool), "rater"])
    excluded = np.array([rater in dropped for rater in cal_m.raters], dtype=bool)
    optimistic = optimistic_note(int(excluded.sum()), outlier_method)
    cis = [
        _stage_cis(dataset, stage, label, matrix, stats, min_overlap, ci, optimistic)
        for label, stage, matrix, stats, _ in _subset_stats(raw_m, cal_m, masks, min_overlap, lambda _: excluded)
    ]
    return _with_cis({}, ci, cis)["agreement_ci"]


def ci_table(ci: AgreementCI) -> pd.DataFrame:
    """The agreement_ci table of one stage and subset: the rows of ``agreement_cis``, one per
    statistic and scheme, in the canonical columns.

    Parameters
    ----------
    ci : simgold.stats.agreement_ci.AgreementCI
        The CIs of one rating matrix.

    Returns
    -------
    pandas.DataFrame
        The columns of ``simgold.stats.agreement_ci.AgreementCIRow``, in order.

    Examples
    --------
    >>> ci_table(AgreementCI([], {})).columns.tolist()[:4]
    ['dataset', 'stage', 'subset', 'statistic']
    """
    return pd.DataFrame(ci.rows, columns=CI_COLUMNS)


def _with_cis(report: dict, ci: dict | None, tables: list[pd.DataFrame]) -> dict:
    if ci is not None:
        report["agreement_ci"] = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=CI_COLUMNS)
    return report


def _rater_table(dataset, per_stage, calibration, excluded, reasons, all_raters) -> pd.DataFrame:
    calib = calibration.set_index("rater") if len(calibration) else pd.DataFrame(columns=["calib_diff", "calib_shift"])
    status = pd.DataFrame({"excluded": excluded, "exclusion_reason": reasons}, index=all_raters)
    frames = []
    for stage in STAGES:
        s = per_stage[stage]
        frame = pd.DataFrame(
            {
                "dataset": dataset,
                "stage": stage,
                "rater": s.raters,
                "n_items": s.n_items_per_rater,
                "mean_score": s.mean_score_per_rater,
                "avg_pairwise": s.avg_pairwise,
                "vs_mean": s.vs_mean,
                "vs_rest": s.vs_rest,
            }
        )
        frame["calib_diff"] = frame["rater"].map(calib["calib_diff"]).astype(float)
        frame["calib_shift"] = frame["rater"].map(calib["calib_shift"]).astype(float)
        frame["excluded"] = frame["rater"].map(status["excluded"]).astype(bool)
        frame["exclusion_reason"] = frame["rater"].map(status["exclusion_reason"])
        frames.append(frame)
    return pd.concat(frames, ignore_index=True).reindex(columns=list(RATER_COLUMNS))  # attention_*: controls


def _anonymous_report(dataset, item_ids, raw, calibrated, masks, min_overlap, ci) -> dict[str, pd.DataFrame]:
    """Rating columns that are slots, not people (Rare Words): only the statistics that need no
    rater identity (``AgreementStatistic.slots``: counts, alpha) are defined."""
    rows, cis = [], []
    note = "raters are not persistent (rating slots): pairwise and per-rater figures are not defined; alpha only"
    # no rater is filtered out, so the filtered stage is the calibrated one: build each matrix once
    matrices = {"raw": _rating_matrix(raw, item_ids)}
    matrices["calibrated"] = _rating_matrix(calibrated, item_ids)
    for label, mask in masks:
        for stage in ("raw", "calibrated"):
            m = matrices[stage].subset(mask)
            summary = slot_summary(m)
            rows.append(_row(dataset, stage, label, summary, note))
            if stage == "calibrated":
                rows.append(_row(dataset, "filtered", label, summary, note))
            if ci is not None:  # resampling items: slots are not raters to resample
                for name in ("raw",) if stage == "raw" else ("calibrated", "filtered"):
                    for_slots = {"statistics": slot_ci_statistics(), "schemes": ("items",)}
                    cis.append(ci_table(agreement_cis(dataset, name, label, m, min_overlap=min_overlap, **for_slots,
                                                      **ci)))  # fmt: skip
    out = {
        "agreement": _agreement_table(rows),
        "raters": pd.DataFrame(columns=list(RATER_COLUMNS)),
        "ratings": calibrated.reset_index(drop=True),
    }
    return _with_cis(out, ci, cis)


def alpha_table(ratings: pd.DataFrame, levels=None) -> pd.DataFrame:
    """Alpha at each level for a ratings table (``item_id``, ``score``); one row per level.

    Parameters
    ----------
    ratings : pandas.DataFrame
        One row per rating: ``item_id`` (the unit) and ``score`` (NaN: no value).
    levels : sequence of str, optional
        Keys of ``simgold.stats.alpha.ALPHA_LEVELS``; default: every level of the registry, in its order.

    Returns
    -------
    pandas.DataFrame
        One row per level; columns: the fields of ``AlphaRow`` (``level``, ``alpha``, ``n_units``,
        ``n_values``, ``n_distinct``, ``note``).

    Examples
    --------
    >>> r = pd.DataFrame({"item_id": ["a", "a", "b", "b"], "score": [1.0, 2.0, 4.0, 4.0]})
    >>> alpha_table(r)[["level", "alpha"]].round(4).values.tolist()[2]
    ['interval', 0.8889]
    """
    rows = alpha_rows(ratings["item_id"].to_numpy(), ratings["score"].to_numpy(float), levels)
    return pd.DataFrame(rows, columns=ALPHA_COLUMNS)


def alpha_levels(
    dataset: str, items: pd.DataFrame, stages: dict[str, pd.DataFrame], subset_names=None, levels=None
) -> pd.DataFrame:
    """Krippendorff's alpha at every level of measurement (``simgold.stats.alpha``) for each stage's
    ratings (``stage name -> item_id, score``) and each subset of the agreement table.

    The interval level is the agreement table's ``alpha_interval``; ratio is left out (with a note)
    where scores are negative, and ``n_distinct`` shows where nominal and ordinal alpha have few
    categories to work with (raw scores on a scale) or none (calibrated, continuous scores).
    ``levels``: keys of ``simgold.stats.alpha.ALPHA_LEVELS``; default every level of the registry
    as it is when called (a level added there gets its rows with no other edit).

    Parameters
    ----------
    dataset : str
        The dataset's name.
    items : pd.DataFrame
        The items table (``item_id``, ``word1``, ``word2``, ...).
    stages : dict[str, pd.DataFrame]
        Each stage's ratings, by stage name.
    subset_names : object
        The item columns whose values get their own rows (``agreement.subsets``).
    levels : object
        Keys of ``ALPHA_LEVELS``; default every level.

    Returns
    -------
    pd.DataFrame
        The alpha table (``TABLES["alpha"]`` columns): a row per stage, subset and level.
    """
    rows = []
    ids = items["item_id"].to_numpy()
    for stage, ratings in stages.items():
        for label, mask in subsets(items, subset_names or []):
            table = alpha_table(ratings[ratings["item_id"].isin(ids[mask])], levels)
            rows.append(table.assign(dataset=dataset, stage=stage, subset=label))
    columns = list(TABLES["alpha"].names)
    return pd.concat(rows, ignore_index=True)[columns] if rows else pd.DataFrame(columns=columns)


def icc_levels(
    dataset: str,
    items: pd.DataFrame,
    stages: dict[str, pd.DataFrame],
    subset_names=None,
    *,
    persistent_raters: bool = True,
    confidence: float,
    notes: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Intraclass correlations (``simgold.stats.icc``) for each stage's ratings and each subset.

    People who rate (``persistent_raters``): ICC(2,1) and ICC(2,k), two-way random effects, on the
    complete block: the items of the subset that have a rating and the raters who rated every one
    of them (the ANOVA needs a full matrix; the note says how many raters were left out). Rating
    slots: ICC(1,1) and ICC(1,k), one-way, every item with its own raters. ``notes``: a note per
    stage (the filtered stage's optimism).

    Parameters
    ----------
    dataset : str
        The dataset's name.
    items : pd.DataFrame
        The items table (``item_id``, ``word1``, ``word2``, ...).
    stages : dict[str, pd.DataFrame]
        Each stage's ratings, by stage name.
    subset_names : object
        The item columns whose values get their own rows (``agreement.subsets``).
    persistent_raters : bool
        False: the rating columns are slots, not people.
    confidence : float
        The intervals' coverage (``scoring.confidence``).
    notes : dict[str, str] | None
        A note per stage, put before the computed notes.

    Returns
    -------
    pd.DataFrame
        The icc table (``TABLES["icc"]`` columns): rows per stage and subset, value, CI, counts, note.
    """
    rows = []
    ids = items["item_id"].to_numpy()
    for stage, ratings in stages.items():
        for label, mask in subsets(items, subset_names or []):
            part = ratings[ratings["item_id"].isin(ids[mask])]
            extra = (notes or {}).get(stage, "")
            for icc, n_items, n_raters, note in _icc_of(part, persistent_raters, confidence):
                note = "; ".join(x for x in (note, extra) if x)
                rows.append((dataset, stage, label, *icc, confidence, n_items, n_raters, note))
    return pd.DataFrame(rows, columns=list(TABLES["icc"].names))


def _icc_of(ratings: pd.DataFrame, persistent: bool, confidence: float):
    """(Icc, items, raters, note) rows of one stage and subset."""
    n_items = ratings["item_id"].nunique()
    if not persistent:
        codes = pd.factorize(ratings["item_id"])[0]
        per_item = np.bincount(codes) if len(codes) else np.zeros(0, dtype=int)
        note = "rating slots: one-way ICC(1), each item with its own raters"
        if len(per_item) and per_item.min() != per_item.max():
            note += f" ({per_item.min()}-{per_item.max()} ratings per item: k is k0)"
        raters = int(per_item.max()) if len(per_item) else 0
        values = ratings["score"].to_numpy(float)
        raw = one_way(values, codes, confidence, raw=True)
        why = one_way_note(values, codes, confidence, single=raw[0]) if len(values) else "no rating: no ICC"
        note = "; ".join(x for x in (note, why) if x)
        return [(icc, n_items, raters, "; ".join(x for x in (note, out) if x)) for icc, out in map(bounded, raw)]
    counts = ratings.groupby("rater")["item_id"].nunique()
    complete = counts.index[counts == n_items]
    wide = ratings[ratings["rater"].isin(complete)].pivot(index="item_id", columns="rater", values="score")
    left_out = len(counts) - len(complete)
    X = wide.to_numpy(float)
    raw = two_way(X, confidence, raw=True)
    note = ""
    if n_items < 2:
        note = two_way_note(X, confidence)
    elif len(complete) < 2:
        note = (
            f"{len(complete)} of {len(counts)} raters rated every one of the {n_items} items: no ICC (it needs a "
            "complete block of two raters or more)"
        )
    else:
        on_block = f"on the {len(complete)} of {len(counts)} raters who rated every item (a two-way ANOVA needs a complete block)"
        why = two_way_note(X, confidence, single=raw[0])
        note = "; ".join(x for x in (on_block if left_out else "", why) if x)
    # a value or interval beyond [-1, 1] (ICC(2,k) on few items) is dropped, its row's note says so
    return [(icc, n_items, len(complete), "; ".join(x for x in (note, out) if x)) for icc, out in map(bounded, raw)]


def retest_table(dataset: str, repeats: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Test-retest reliability (``simgold.stats.retest``) from the cleaned ``repeats`` table: every
    rater pooled (``rater`` missing), then each rater who answered an item more than once.

    The answers are those the rater gave, before calibration (a shift moves both alike) and before
    the duplicates rule chose one.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    repeats : pd.DataFrame
        The repeated answers of the clean stage.
    confidence : float
        The intervals' coverage (``scoring.confidence``).

    Returns
    -------
    pd.DataFrame
        The retest table (``TABLES["retest"]`` columns): the pooled row first, then a row per rater.

    Examples
    --------
    >>> repeats = pd.DataFrame({"item_id": ["a", "a", "b", "b", "c", "c"], "rater": ["r1"] * 4 + ["r2"] * 2,
    ...                         "answer": [1, 2] * 3, "score": [3.0, 4, 1, 1, 5, 2]})
    >>> retest_table("d", repeats, 0.95)[["rater", "n_pairs", "mean_abs_diff", "share_equal"]]
      rater  n_pairs  mean_abs_diff  share_equal
    0   NaN        3       1.333333     0.333333
    1    r1        2       0.500000     0.500000
    2    r2        1       3.000000     0.000000
    """
    columns = list(TABLES["retest"].names)
    codes = repeats.groupby(["rater", "item_id"], sort=False).ngroup().to_numpy()
    rater_of, item_of = (np.empty(codes.max(initial=-1) + 1, dtype=object) for _ in range(2))
    rater_of[codes], item_of[codes] = repeats["rater"].to_numpy(object), repeats["item_id"].to_numpy(object)
    group, first, second = consecutive_answers(codes, repeats["answer"].to_numpy(), repeats["score"].to_numpy())
    rater, item = rater_of[group], item_of[group]
    pooled_note = "pairs of one rater are not independent: the interval assumes they are" if len(set(rater)) > 1 else ""
    rows = []
    for who, mask in [(None, np.ones(len(group), dtype=bool))] + [(r, rater == r) for r in sorted(set(rater))]:
        r = retest_reliability(first[mask], second[mask], confidence)
        note = "; ".join(x for x in (r.note, pooled_note if who is None and r.note == "" else "") if x)
        counts = (len(set(item[mask])), len(set(rater[mask])))
        rows.append((dataset, who, r.n_pairs, *counts, *r[1:8], confidence, note))
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------------------------
# rankings


def ranking_agreement(rankings: pd.DataFrame, min_overlap: int = 2) -> AgreementStats:
    """Agreement of target-group rankings: per-target Spearman, averaged over targets.

    Parameters
    ----------
    rankings : pd.DataFrame
        The rankings (``target``, ``candidate``, ``rater``, ``rank``, ``category``).
    min_overlap : int
        Shared items a pair of raters needs for a Spearman value (``agreement.min_overlap``).

    Returns
    -------
    AgreementStats
        Per-rater and pairwise Spearman averaged over targets; alpha over the target groups as units.
    """
    raters = np.array(sorted(rankings["rater"].unique()))
    R = len(raters)
    rho_sum, rho_n = np.zeros((R, R)), np.zeros((R, R))
    vm_sum, vm_n, vr_sum, vr_n = np.zeros(R), np.zeros(R), np.zeros(R), np.zeros(R)
    unit_rows = []
    col = {r: j for j, r in enumerate(raters)}
    for _, group in rankings.groupby("target", sort=True):
        wide = group.pivot(index="candidate", columns="rater", values="rank")
        X = np.full((len(wide), R), np.nan)
        X[:, [col[r] for r in wide.columns]] = wide.to_numpy(float)
        unit_rows.append(X)
        matrix = RatingMatrix.from_dense(X)
        rho = pairwise_spearman(matrix, min_overlap).dense()
        has = ~np.isnan(rho)
        rho_sum[has] += rho[has]
        rho_n += has
        vm, vr = vs_reference(matrix, min_overlap)
        for total, count, v in ((vm_sum, vm_n, vm), (vr_sum, vr_n, vr)):
            ok = ~np.isnan(v)
            total[ok] += v[ok]
            count[ok] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(rho_n > 0, rho_sum / np.maximum(rho_n, 1), np.nan)
        vs_mean = np.where(vm_n > 0, vm_sum / np.maximum(vm_n, 1), np.nan)
        vs_rest = np.where(vr_n > 0, vr_sum / np.maximum(vr_n, 1), np.nan)
    a, b = np.nonzero(np.triu(rho_n > 0, k=1))  # pairs that share no target have too few items
    pairs = PairResult(R, a, b, rho[a, b], min_overlap)
    units = RatingMatrix.from_dense(np.vstack(unit_rows) if unit_rows else np.zeros((0, R)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        avg = pairs.rater_means()
    n_per = rankings.groupby("rater")["target"].nunique().reindex(raters).to_numpy()
    return AgreementStats(
        raters=raters,
        n_items_per_rater=n_per,
        mean_score_per_rater=rankings.groupby("rater")["rank"].mean().reindex(raters).to_numpy(),
        avg_pairwise=avg,
        vs_mean=vs_mean,
        vs_rest=vs_rest,
        pairs=pairs,
        alpha=krippendorff_alpha(units.item, units.score, "interval"),
        n_items=int(rankings["target"].nunique()),
        mean_score=float(rankings["rank"].mean()) if len(rankings) else np.nan,
        matrix=units,
    )


def ranking_report(dataset: str, rankings: pd.DataFrame, *, outliers: dict | None = None, log=None) -> dict:
    """Agreement of a rankings dataset: the same tables as for ratings (no calibration for ranks).

    Parameters
    ----------
    dataset : str
        The dataset's name.
    rankings : pd.DataFrame
        The rankings (``target``, ``candidate``, ``rater``, ``rank``, ``category``).
    outliers : dict | None
        The outlier rule (``method``, ``k``, ``threshold``).
    log : object
        Where progress lines go (None: nowhere).

    Returns
    -------
    dict
        Table name -> table: ``agreement``, ``raters`` and the filtered ``rankings``.
    """
    outliers = outliers or {"method": "none"}
    stats = ranking_agreement(rankings)
    excluded, reasons = select_outliers(stats.avg_pairwise, stats.vs_rest, outliers)
    if log and excluded.any():
        log(f"excluded raters: {', '.join(map(str, stats.raters[excluded]))}")
    dropped = set(stats.raters[excluded])
    filtered = rankings[~rankings["rater"].isin(dropped)].reset_index(drop=True)
    per_stage = {"raw": stats, "calibrated": stats, "filtered": ranking_agreement(filtered)}
    rows = []
    for stage in STAGES:
        summary = agreement_summary(per_stage[stage])
        summary["n_items"] = per_stage[stage].n_items  # target groups
        note = _note(per_stage[stage]) or "rankings: items are target groups; n_ratings counts ranks"
        rows.append(_row(dataset, stage, "all", summary, note))
    empty = pd.DataFrame(columns=["rater", "calib_diff", "calib_shift"])
    raters = _rater_table(dataset, per_stage, empty, excluded, reasons, stats.raters)
    return {"agreement": _agreement_table(rows), "raters": raters, "rankings": filtered}
