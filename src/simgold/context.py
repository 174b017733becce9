"""Context significance (docs/methods.md section 8) and the CoSimLex metrics (section 7).

Pairs: the two items of one word pair in context 1 and context 2 (the same source row of a wide
sheet; the same words in a long sheet).

Tests per pair: ``mannwhitney`` (two-sided Mann-Whitney U, scipy's default method, on the two
contexts' rating sets: different raters per context, the English CoSimLex design) or ``wilcoxon``
(paired signed-rank test over the raters who rated both contexts: the Croatian, Finnish and Slovene
design). Benjamini-Hochberg q-values over the dataset's pairs. A dataset that ships only aggregates
(CoSimLex: sim1, sim2, stdev1, stdev2, pvalue) gets its shipped p-values reported, marked as not
recomputed.

CoSimLex metrics (SemEval-2020 Task 3, as the official scorer defines them): subtask 1, the
uncentred Pearson ``sum(xy) / sqrt(sum(x^2) sum(y^2))`` between predicted and gold changes
(``sim2 - sim1``); subtask 2, per language the harmonic mean of Pearson and Spearman over both
contexts' similarities, then the mean over languages. Unlike the scorer, any number of pairs and
every language are scored, and negative correlations do not crash: the harmonic mean of two
negatives is negative; of mixed signs it is undefined and both are reported. A model without
context predicts no change and scores 0 on subtask 1, which the table says.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from .scoring import PREDICTION_COLUMNS
from .tables import TABLES

TEST_COLUMNS = tuple(TABLES["context_tests"][0])  # the canonical schema's columns, in order


def context_pairs(items: pd.DataFrame) -> pd.DataFrame:
    """(pair_id, word1, word2, item1, item2): each item in context 1 with its context-2 partner."""
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
            rows.append((r.item_id, r.word1, r.word2, r.item_id, partner))
    return pd.DataFrame(rows, columns=["pair_id", "word1", "word2", "item1", "item2"])


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """BH q-values (step-up, ``scipy.stats.false_discovery_control``), NaN where p is NaN; m counts
    the p-values that exist."""
    from scipy.stats import false_discovery_control  # here: scipy.stats costs a second to import

    q = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        q[ok] = false_discovery_control(p[ok], method="bh")
    return q


def significance(
    dataset: str,
    items: pd.DataFrame,
    ratings: pd.DataFrame | None,
    means: pd.DataFrame | None,
    test: str = "mannwhitney",
    pvalue: str = "pvalue",
) -> pd.DataFrame:
    """Per pair: sizes, means, SDs, test statistic, p and BH q; recomputed from ratings when there
    are any, otherwise the shipped p-values (from the item attribute ``pvalue``)."""
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
    from scipy.stats import mannwhitneyu, wilcoxon

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


# --------------------------------------------------------------------------------------------
# CoSimLex metrics


def uncentred_pearson(x: np.ndarray, y: np.ndarray) -> float:
    den = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / den) if den > 0 else 0.0


def harmonic_mean(a: float, b: float) -> float:
    """Of two correlations of the same sign (negative when both are); undefined for mixed signs."""
    if np.isnan(a) or np.isnan(b) or a * b <= 0:
        return float("nan")
    return 2 * a * b / (a + b)


def cosimlex_scores(
    dataset: str, model: str, items: pd.DataFrame, gold: pd.DataFrame, predictions: pd.DataFrame
) -> pd.DataFrame:
    """Subtask 1 and subtask 2 figures for one model on one two-context dataset."""
    from scipy.stats import pearsonr, spearmanr

    pairs = context_pairs(items)
    g = gold.set_index("item_id")["mean"]
    s = predictions.set_index("item_id")["sim"]
    frame = pairs.assign(
        g1=pairs["item1"].map(g), g2=pairs["item2"].map(g), s1=pairs["item1"].map(s), s2=pairs["item2"].map(s)
    )
    ok = frame[["g1", "g2", "s1", "s2"]].notna().all(axis=1)
    f = frame[ok]
    gold_change, pred_change = (f["g2"] - f["g1"]).to_numpy(float), (f["s2"] - f["s1"]).to_numpy(float)
    no_change = not np.any(pred_change)
    rows = [
        (
            dataset,
            model,
            "subtask1_uncentred_pearson",
            uncentred_pearson(pred_change, gold_change),
            len(f),
            "the model predicts no change between contexts (context-free): 0 by definition" if no_change else "",
        ),
    ]
    gold_all = np.ravel(np.column_stack([f["g1"], f["g2"]]))  # interleaved: pair 1 context 1, context 2, ...
    pred_all = np.ravel(np.column_stack([f["s1"], f["s2"]]))
    if len(gold_all) >= 3 and np.ptp(pred_all) > 0:
        pearson, spearman = float(pearsonr(pred_all, gold_all)[0]), float(spearmanr(pred_all, gold_all)[0])
    else:
        pearson = spearman = float("nan")
    hm = harmonic_mean(pearson, spearman)
    note = (
        "Pearson and Spearman differ in sign: no harmonic mean"
        if np.isnan(hm) and not (np.isnan(pearson) or np.isnan(spearman))
        else ""
    )
    rows += [
        (dataset, model, "subtask2_pearson", pearson, len(gold_all), ""),
        (dataset, model, "subtask2_spearman", spearman, len(gold_all), ""),
        (dataset, model, "subtask2_harmonic_mean", hm, len(gold_all), note),
    ]
    dropped = int((~ok).sum())
    if dropped:
        rows = [
            r[:5] + ((r[5] + "; " if r[5] else "") + f"{dropped} pairs without both similarities left out",)
            for r in rows
        ]
    return pd.DataFrame(rows, columns=["dataset", "model", "metric", "value", "n", "note"])


def cosimlex_summary(tables: list[pd.DataFrame], languages: dict[str, str]) -> pd.DataFrame:
    """Per model: each language's subtask figures and the mean over languages (as the task ranks)."""
    if not tables:
        return pd.DataFrame(columns=["model", "language", "dataset", "subtask1", "subtask2"])
    all_rows = pd.concat(tables, ignore_index=True)
    wide = all_rows.pivot_table(
        index=["model", "dataset"], columns="metric", values="value", aggfunc="first", dropna=False
    ).reset_index()
    wide["language"] = wide["dataset"].map(languages)
    out = wide.rename(columns={"subtask1_uncentred_pearson": "subtask1", "subtask2_harmonic_mean": "subtask2"})
    out = out[["model", "language", "dataset", "subtask1", "subtask2"]]
    means = out.groupby("model", as_index=False)[["subtask1", "subtask2"]].mean()
    means["language"], means["dataset"] = "mean", "(mean over languages)"
    return (
        pd.concat([out, means], ignore_index=True)
        .sort_values(["model", "language"], kind="stable")
        .reset_index(drop=True)
    )


# --------------------------------------------------------------------------------------------
# where the target words are in a context


_TAG = re.compile(r"</?strong>", re.IGNORECASE)


def target_spans(text: str, forms: list[str]) -> tuple[str, list[tuple[int, int] | None]]:
    """The plain text and the character span of each target form in it.

    CoSimLex marks the targets with ``<strong>...</strong>``: the marked segments are used first,
    matched to the forms case-insensitively; otherwise the first whole-word occurrence counts.
    """
    marked, plain, pos = [], [], 0
    inside = None
    for m in _TAG.finditer(text):
        plain.append(text[pos : m.start()])
        offset = sum(len(p) for p in plain)
        if m.group(0).lower() == "<strong>":
            inside = offset
        elif inside is not None:
            marked.append((inside, offset))
            inside = None
        pos = m.end()
    plain.append(text[pos:])
    clean = "".join(plain)
    spans: list[tuple[int, int] | None] = []
    taken: set[tuple[int, int]] = set()
    for form in forms:
        span = next((s for s in marked if s not in taken and clean[s[0] : s[1]].casefold() == form.casefold()), None)
        if span is None:
            for m in re.finditer(rf"(?<!\w){re.escape(form)}(?!\w)", clean, flags=re.IGNORECASE):
                if (m.start(), m.end()) not in taken:
                    span = (m.start(), m.end())
                    break
        if span is None and len(marked) == len(forms):
            span = marked[len(spans)]  # the marked segment in order, when the form differs (inflection)
        spans.append(span)
        if span is not None:
            taken.add(span)
    return clean, spans


def in_context_predictions(
    dataset: str,
    model: str,
    items: pd.DataFrame,
    encoder,
    form_columns=("word1_form", "word2_form"),
    store=None,
    log=None,
) -> pd.DataFrame:
    """Cosine similarity of the two target words' vectors in each item's context; every context
    is encoded in one batched call (through the vector ``store`` when given; progress to ``log``)."""
    located = []
    for it in items.itertuples(index=False):
        forms = [getattr(it, c, None) or w for c, w in zip(form_columns, (it.word1, it.word2))]
        clean, spans = target_spans(it.context_text, forms) if it.context_text else ("", [None, None])
        located.append((it, clean, spans, [f for f, s in zip(forms, spans) if s is None]))
    wanted = [(clean, spans) for _, clean, spans, missing in located if not missing]
    vectors = iter(encoder.in_context_many(wanted, store=store, log=log))
    rows = []
    for it, _, _, missing in located:
        sim = np.nan
        if not missing:
            v1, v2 = next(vectors)
            if v1 is not None and v2 is not None:
                sim = float(v1 @ v2 / (np.linalg.norm(v1) * np.linalg.norm(v2)))
        rows.append((dataset, model, it.item_id, it.word1, it.word2, sim, bool(missing), ";".join(missing)))
    return pd.DataFrame(rows, columns=list(PREDICTION_COLUMNS))
