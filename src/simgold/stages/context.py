"""Context significance (docs/methods.md section 8): does a pair's similarity change with context?

Pairs: the two items of one word pair in context 1 and context 2 (the same source row of a wide
sheet; the same words in a long sheet).

Tests per pair: ``mannwhitney`` (two-sided Mann-Whitney U, scipy's default method, on the two
contexts' rating sets: different raters per context, the English CoSimLex design) or ``wilcoxon``
(paired signed-rank test over the raters who rated both contexts: the Croatian, Finnish and Slovene
design). Benjamini-Hochberg q-values over the dataset's pairs. A dataset that ships only aggregates
(CoSimLex: sim1, sim2, stdev1, stdev2, pvalue) gets its shipped p-values reported, marked as not
recomputed. The CoSimLex metrics of models are in ``simgold.stages.cosimlex``; a word's vector in its
context in ``simgold.stages.scores``.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from simgold.io.tables import TABLES
from simgold.stats.multiple import benjamini_hochberg

__all__ = ["TEST_COLUMNS", "ContextPair", "context_pairs", "context_summary", "significance"]

TEST_COLUMNS = TABLES["context_tests"].names  # the canonical schema's columns, in order


class ContextPair(NamedTuple):
    """A word pair's two items, by name: the context_tests table's columns after ``dataset``.

    Attributes
    ----------
    pair_id : str
        The context-1 item's id.
    word1 : str
        The ``word1`` field.
    word2 : str
        The ``word2`` field.
    item1 : str
        The item in context 1.
    item2 : str
        The item in context 2.
    """

    pair_id: str  # the context-1 item's id
    word1: str
    word2: str
    item1: str  # the item in context 1
    item2: str  # the item in context 2


def context_pairs(items: pd.DataFrame) -> pd.DataFrame:
    """Each item in context 1 with its context-2 partner (the fields of ``ContextPair``).

    Parameters
    ----------
    items : pd.DataFrame
        The items table (``item_id``, ``word1``, ``word2``, ...).

    Returns
    -------
    pd.DataFrame
        One row per matched pair (``ContextPair`` columns: ``pair_id``, ``word1``, ``word2``,
        ``item1``, ``item2``); context-1 items with no partner are left out.
    """
    one, two = items[items["context"] == 1], items[items["context"] == 2]
    by_row = two.set_index(["source_file", "source_row"])["item_id"]
    by_words = {}
    for r in two.itertuples(index=False):
        by_words.setdefault(tuple(sorted((r.word1, r.word2))), []).append(r.item_id)
    rows, used = [], set()
    for r in one.itertuples(index=False):
        partner = by_row.get((r.source_file, r.source_row))
        if partner is None or partner in used:  # a long sheet: find the pair by its words
            free = [i for i in by_words.get(tuple(sorted((r.word1, r.word2))), []) if i not in used]
            partner = free[0] if free else None
        if partner is not None:
            used.add(partner)
            rows.append(ContextPair(r.item_id, r.word1, r.word2, item1=r.item_id, item2=partner))
    return pd.DataFrame(rows, columns=list(ContextPair._fields))


def significance(
    dataset: str,
    items: pd.DataFrame,
    ratings: pd.DataFrame | None,
    means: pd.DataFrame | None,
    test: str = "mannwhitney",
    pvalue: str = "pvalue",
) -> pd.DataFrame:
    """Per pair: sizes, means, SDs, test statistic, p and BH q; recomputed from ratings when there
    are any, otherwise the shipped p-values (from the item attribute ``pvalue``).

    Parameters
    ----------
    dataset : str
        The dataset's name.
    items : pd.DataFrame
        The items table (``item_id``, ``word1``, ``word2``, ...).
    ratings : pd.DataFrame | None
        The ratings (``item_id``, ``rater``, ``score``).
    means : pd.DataFrame | None
        The gold means table (``item_id``, ``mean``, ``sd``, ``n``), used when there are no ratings.
    test : str
        ``mannwhitney`` or ``wilcoxon``.
    pvalue : str
        The item column holding the shipped p-values (read when there are no ratings).

    Returns
    -------
    pd.DataFrame
        One row per context pair (``TEST_COLUMNS``): both items' n, mean, SD, the test statistic,
        p, Benjamini-Hochberg q, the test's name, whether recomputed, a note.
    """
    pairs = context_pairs(items)
    rows = []
    have_ratings = ratings is not None and len(ratings) > 0
    if have_ratings:
        by_item = {k: g.set_index("rater")["score"] for k, g in ratings.groupby("item_id")}
    else:
        stats = (
            means.set_index("item_id")
            if means is not None and len(means)
            else pd.DataFrame(columns=["mean", "sd", "n"])
        )
        shipped = items.set_index("item_id")[pvalue] if pvalue in items.columns else pd.Series(dtype=float)
    for pr in pairs.itertuples(index=False):
        row = {
            "dataset": dataset,
            "pair_id": pr.pair_id,
            "word1": pr.word1,
            "word2": pr.word2,
            "item1": pr.item1,
            "item2": pr.item2,
        }
        if have_ratings:
            x = by_item.get(pr.item1, pd.Series(dtype=float))
            y = by_item.get(pr.item2, pd.Series(dtype=float))
            row.update(_recomputed(x, y, test))
        else:
            s1 = stats.loc[pr.item1] if pr.item1 in stats.index else None
            s2 = stats.loc[pr.item2] if pr.item2 in stats.index else None
            p = float(shipped.get(pr.item1, np.nan))
            row.update(
                n1=_get(s1, "n"),
                n2=_get(s2, "n"),
                mean1=_get(s1, "mean"),
                mean2=_get(s2, "mean"),
                sd1=_get(s1, "sd"),
                sd2=_get(s2, "sd"),
                statistic=np.nan,
                p=p,
                test="shipped p-value (Mann-Whitney U)",
                recomputed=False,
                note=(
                    "the dataset ships aggregates only: p-value not recomputed"
                    if not np.isnan(p)
                    else "no p-value shipped"
                ),
            )
        rows.append(row)
    table = pd.DataFrame(rows, columns=[c for c in TEST_COLUMNS if c != "q"])
    table.insert(table.columns.get_loc("p") + 1, "q", benjamini_hochberg(table["p"].to_numpy(float)))
    return table


def _get(stats, key) -> float:
    return float(stats[key]) if stats is not None and key in stats.index and pd.notna(stats[key]) else np.nan


def _recomputed(x: pd.Series, y: pd.Series, test: str) -> dict:
    from scipy.stats import mannwhitneyu, wilcoxon  # here: scipy.stats costs a second to import

    out = {
        "n1": len(x),
        "n2": len(y),
        "mean1": x.mean() if len(x) else np.nan,
        "mean2": y.mean() if len(y) else np.nan,
        "sd1": x.std(ddof=1) if len(x) > 1 else np.nan,
        "sd2": y.std(ddof=1) if len(y) > 1 else np.nan,
        "statistic": np.nan,
        "p": np.nan,
        "recomputed": True,
        "note": "",
    }
    if test == "wilcoxon":
        both = x.index.intersection(y.index)
        out["test"] = "Wilcoxon signed-rank (paired by rater)"
        diff = (x[both] - y[both]).to_numpy(float)
        if len(both) < 2 or not np.any(diff):
            out["note"] = f"{len(both)} raters rated both contexts" + (
                "" if len(both) < 2 else "; every difference is 0"
            )
            return out
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = wilcoxon(x[both].to_numpy(float), y[both].to_numpy(float))
        out.update(statistic=float(res.statistic), p=float(res.pvalue))
        return out
    out["test"] = "Mann-Whitney U (two-sided)"
    if len(x) == 0 or len(y) == 0:
        out["note"] = "a context has no ratings"
        return out
    res = mannwhitneyu(x.to_numpy(float), y.to_numpy(float), alternative="two-sided")
    out.update(statistic=float(res.statistic), p=float(res.pvalue))
    return out


def context_summary(dataset: str, language: str, tests: pd.DataFrame) -> pd.DataFrame:
    """One row per dataset: the context pairs tested, and how many have p below 0.1 and 0.05, q below 0.05.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    language : str
        Its language.
    tests : pandas.DataFrame
        Its context tests (``significance``).

    Returns
    -------
    pandas.DataFrame
        The context summary row.
    """
    p = tests["p"].to_numpy(float)
    n = int((~np.isnan(p)).sum())
    row = {"dataset": dataset, "language": language, "n_pairs": len(tests), "n_tested": n}
    for cut, name in ((0.1, "p_below_0_1"), (0.05, "p_below_0_05")):
        count = int((p < cut).sum())
        row[f"n_{name}"] = count
        row[f"share_{name}"] = count / n if n else np.nan
    row["n_q_below_0_05"] = int((tests["q"].to_numpy(float) < 0.05).sum())
    row["recomputed"] = bool(tests["recomputed"].all()) if len(tests) else False
    row["test"] = tests["test"].iloc[0] if len(tests) else ""
    return pd.DataFrame([row])
