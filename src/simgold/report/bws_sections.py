"""The Best-Worst Scaling parts of a release, its dataset card, its report page and ``simgold
agreement`` (docs/methods.md section 13): what a BWS dataset has that the other kinds do not.

A BWS release holds, beside the gold standard (one row per pair, with both scores of each pair:
``BWS_COLUMNS``), the answers themselves (``answers_table``: one row per answer and position, the
columns ``ANSWER_COLUMNS``), so that anyone can recompute the scores
(``simgold.stages.bws_gold.scores_from_answers``) and a model's MaxDiff accuracy
(``simgold.stats.bws.maxdiff_accuracy``). The card's sections (``card_design``,
``card_reliability``, ``card_raters``, ``card_gold``, ``card_evaluate``) return their parts as
text or as tables (``pandas.DataFrame``), which the card renders as Markdown; the page's
(``page_tables``) return (table, caption) pairs, which the page renders as HTML. Nothing here
renders markup, so the card and the page import this module and not the other way round.

Examples
--------
>>> answers = pd.DataFrame({"dataset": "d", "answer": [0, 0, 0], "tuple": "t1", "rater": None,
...     "position": [1, 2, 3], "item_id": ["d:1", "d:2", "d:3"], "choice": ["best", "", "worst"],
...     "source_file": "f.csv", "source_row": 2})
>>> items = pd.DataFrame({"item_id": ["d:1", "d:2", "d:3"], "word1": ["cup", "car", "sun"],
...     "word2": ["mug", "bus", "pen"]})
>>> answers_table(answers, items)[["answer", "position", "word1", "choice"]].values.tolist()
[[0, 1, 'cup', 'best'], [0, 2, 'car', ''], [0, 3, 'sun', 'worst']]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simgold.io.labels import confidence_label
from simgold.stats.correlation import spearman

__all__ = [
    "ANSWER_COLUMNS",
    "bws_precision_text",
    "BWS_COLUMNS",
    "BWS_LEGEND",
    "bws_descriptions",
    "with_bws_scores",
    "answers_table",
    "card_design",
    "card_reliability",
    "card_raters",
    "card_gold",
    "card_evaluate",
    "page_tables",
    "models_view",
    "MAXDIFF_TEXT",
    "bws_overview",
]

#: the columns of a release's answers file, in order: column -> description
ANSWER_COLUMNS = {
    "answer": "the answer's number in the dataset (from 0: sources in config order, rows in file order); the rows "
    "of one answer share it",
    "tuple": "the tuple's id: the answers to the same tuple share it",
    "rater": "who answered (empty where the source names no rater)",
    "position": "the pair's position in the tuple as shown (1 to k)",
    "choice": "best (chosen as the most similar pair of the tuple), worst (the least similar) or empty (neither)",
}
#: both scores of each pair, from the ``bws_scores`` table, added to a BWS release's gold table after ``rank``
BWS_COLUMNS = {
    "n_best": "the answers that chose the pair as the most similar of its tuple",
    "n_worst": "the answers that chose the pair as the least similar of its tuple",
    "counting": "the counting score: (n_best - n_worst) / n, -1 to 1",
    "counting_low": "lower end of the counting score's percentile bootstrap interval",
    "counting_high": "upper end of the counting score's percentile bootstrap interval",
    "logit": "the MaxDiff model's utility (utilities sum to zero over the pairs)",
    "logit_se": "the utility's standard error (observed information)",
    "logit_low": "lower end of the utility's Wald interval",
    "logit_high": "upper end of the utility's Wald interval",
}
#: what ``simgold agreement`` prints above the BWS datasets' table
BWS_LEGEND = (
    "split-half reliability of the answers kept (Kiritchenko & Mohammad 2017): SHR, the Spearman-Brown projection of "
    "the mean Spearman between two random halves of each tuple's answers, with its interval; raters: named in the "
    "answers; excluded: by the outlier rule on each rater's agreement with the others; per tuple: answers per tuple, "
    "and those a reliability of the target needs"
)
#: what MaxDiff accuracy is, under its table (the page's and ``scores.md``'s)
MAXDIFF_TEXT = (
    "MaxDiff accuracy (SemEval-2012 Task 2): the share of tuples where the pair the model finds most (best) or least "
    "(worst) similar is the majority's choice, and both together, with bootstrap intervals over tuples; tuples: those "
    "whose every pair the model scores"
)
_SCORE_WORDS = {
    "counting": "the counting score (the share of the answers showing the pair where it was chosen best, minus the "
    "share where it was chosen worst), mapped linearly from -1..1 onto the scale",
    "logit": "the MaxDiff model's utility, mapped from the utilities' minimum and maximum onto the scale",
}
_INTERVAL_WORDS = {
    "counting": "the counting score's percentile bootstrap interval, mapped likewise",
    "logit": "the utility's Wald interval (observed information), mapped likewise",
}


def _interval(low, high) -> str:
    """An interval as the tables say it (``simgold.report.pages.interval_text``'s form)."""
    return "" if pd.isna(low) or pd.isna(high) else f"[{low:.3f}, {high:.3f}]"


def bws_descriptions(settings: dict | None, scale) -> dict[str, str]:
    """What each column of a BWS release is, where it differs from the other kinds': the gold's
    ``score``, ``n`` and interval, both scores (``BWS_COLUMNS``) and the answers (``ANSWER_COLUMNS``).

    Parameters
    ----------
    settings : dict or None
        The dataset's ``bws`` block (``score``: counting or logit; default counting).
    scale : sequence of float or None
        The gold's scale.

    Returns
    -------
    dict[str, str]
        Column -> description.

    Examples
    --------
    >>> bws_descriptions({"score": "counting"}, (-1, 1))["score"][:60]
    'the gold score: the counting score (the share of the answers'
    """
    score = (settings or {}).get("score", "counting")
    on_scale = f" ({scale[0]:g} to {scale[1]:g})" if scale is not None else ""
    return {
        "score": f"the gold score: {_SCORE_WORDS[score]}{on_scale}",
        "n": "the answers whose tuple showed the pair",
        "ci_low": f"lower end of the score's interval: {_INTERVAL_WORDS[score]}",
        "ci_high": f"upper end of the score's interval: {_INTERVAL_WORDS[score]}",
        "rank": "the pair's rank by score, 1 the most similar (ties share the average rank)",
        **BWS_COLUMNS,
        **ANSWER_COLUMNS,
    }


def with_bws_scores(table: pd.DataFrame, scores: pd.DataFrame | None) -> pd.DataFrame:
    """A BWS release's gold table with both scores of each pair (``BWS_COLUMNS``) after ``rank``.

    Parameters
    ----------
    table : pandas.DataFrame
        The release's gold table (``item_id``, the words, the gold columns, attributes).
    scores : pandas.DataFrame or None
        The ``bws_scores`` table (None: the table as it is).

    Returns
    -------
    pandas.DataFrame
        The table with the columns inserted, in its row order.
    """
    if scores is None:
        return table
    by_item = scores.set_index("item_id")
    out = table.copy()
    for column in BWS_COLUMNS:
        out[column] = out["item_id"].map(by_item[column]).to_numpy()
    for column in ("n_best", "n_worst"):
        out[column] = out[column].astype("Int64")
    at = list(table.columns).index("rank") + 1 if "rank" in table else len(table.columns)
    columns = [*table.columns[:at], *BWS_COLUMNS, *table.columns[at:]]
    return out[columns]


def answers_table(answers: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """The answers a BWS release holds: one row per answer and position, with the pair's words,
    sorted by answer and position (``ANSWER_COLUMNS`` and ``item_id``, ``word1``, ``word2``).

    Parameters
    ----------
    answers : pandas.DataFrame
        The answers the agreement stage kept (``answer``, ``tuple``, ``rater``, ``position``,
        ``item_id``, ``choice``, ...).
    items : pandas.DataFrame
        The dataset's items (``item_id``, ``word1``, ``word2``).

    Returns
    -------
    pandas.DataFrame
        ``answer``, ``tuple``, ``rater``, ``position``, ``item_id``, ``word1``, ``word2``, ``choice``.
    """
    words = items.drop_duplicates("item_id").set_index("item_id")
    out = answers[["answer", "tuple", "rater", "position", "item_id", "choice"]].copy()
    for column in ("word1", "word2"):
        out[column] = out["item_id"].map(words[column]).to_numpy()
    out["rater"] = out["rater"].astype(object).where(out["rater"].notna(), None)
    out["choice"] = out["choice"].fillna("")
    out = out[["answer", "tuple", "rater", "position", "item_id", "word1", "word2", "choice"]]
    return out.sort_values(["answer", "position"], kind="stable").reset_index(drop=True)


def _first(tables: dict, name: str, stage: str = "raw") -> pd.Series | None:
    table = tables.get(name)
    if table is None or not len(table):
        return None
    rows = table[table["stage"] == stage] if "stage" in table else table
    return rows.iloc[0] if len(rows) else None


def _k_text(row: pd.Series) -> str:
    k_min, k_max = int(row["k_min"]), int(row["k_max"])
    return f"{k_min} pairs" if k_min == k_max else f"{k_min} to {k_max} pairs"


def card_design(name: str, tables: dict, ds: dict, confidence: float) -> list:
    """The card's Best-Worst Scaling design: the answers, tuples, k, answers per tuple and raters;
    what counting and the MaxDiff model are, which one the gold is, and the answers file.

    Parameters
    ----------
    name : str
        The dataset's name (its files' stem).
    tables : dict
        The release's tables (``bws_reliability``, ``bws_scores``).
    ds : dict
        The dataset's resolved config block (``kind``, ``bws``).
    confidence : float
        The intervals' level.

    Returns
    -------
    list of str
        The section's paragraphs ([] for another kind or without a reliability table).
    """
    row = _first(tables, "bws_reliability")
    if ds["kind"] != "bws" or row is None:
        return []
    settings = ds.get("bws") or {}
    raters = int(row["n_raters"])
    who = f"{raters:,} raters" if raters else "raters the source does not name"
    parts = [
        f"Best-Worst Scaling: {int(row['n_answers']):,} answers by {who} to {int(row['n_tuples']):,} tuples of "
        f"{_k_text(row)} ({row['answers_per_tuple']:.2f} answers per tuple on average), over {int(row['n_items']):,} "
        "pairs. In each answer the rater chose the most similar pair of the tuple (best) and the least similar (worst)."
    ]
    scores = tables.get("bws_scores")
    resampled = (
        str(scores["counting_resampled"].iloc[0]) if scores is not None and len(scores) else "answers"
    )  # fmt: skip
    level = confidence_label(confidence)
    penalty = settings.get("penalty")
    parts.append(
        "Each pair has two scores. Counting (Orme 2009; Kiritchenko & Mohammad 2016): the share of the answers "
        "showing the pair where it was chosen best, minus the share where it was chosen worst, from -1 to 1, with a "
        f"{level} percentile bootstrap interval ({resampled} resampled). The MaxDiff model: the best pair i and the "
        "worst pair j of a tuple are chosen together with a probability proportional to exp(u_i - u_j); the "
        "utilities u sum to zero and are fitted by maximum likelihood with a small L2 penalty"
        + (f" ({penalty:g})" if penalty is not None else "")
        + " that keeps a pair always chosen best finite, with standard errors from the observed information and "
        f"{level} Wald intervals. The gold standard's `score` is {_SCORE_WORDS[settings.get('score', 'counting')]}; "
        "both scores are columns of the release table."
    )
    parts.append(
        f"`{name}.answers.parquet` (and `.tsv`) holds every answer the scores are computed from, one row per answer "
        "and position with its tuple, rater and choice, so that anyone can recompute both scores with "
        "`simgold.stages.bws_gold.scores_from_answers` and score a model by MaxDiff accuracy with "
        "`simgold.stats.bws.maxdiff_accuracy` (see Evaluating a model)."
    )
    return parts


def _reliability_view(reliability: pd.DataFrame) -> pd.DataFrame:
    """The ``bws_reliability`` table as a reader wants it, one row per stage."""
    return pd.DataFrame(
        {
            "answers": reliability["stage"],
            "n": reliability["n_answers"].astype(int),
            "tuples": reliability["n_tuples"].astype(int),
            "raters": reliability["n_raters"].astype(int),
            "per tuple": reliability["answers_per_tuple"],
            "trials": reliability["trials"].astype(int),
            "SHR Spearman": reliability["shr_spearman"],
            "SHR Pearson": reliability["shr_pearson"],
            "Spearman-Brown (Spearman)": reliability["shr_spearman_sb"],
            "Spearman-Brown (Pearson)": reliability["shr_pearson_sb"],
            "interval": [_interval(a, b) for a, b in zip(reliability["ci_low"], reliability["ci_high"])],
            "per tuple for target": [
                "" if pd.isna(n) else f"{n:.1f} for {t:g}"
                for n, t in zip(reliability["answers_needed"], reliability["target"])
            ],
            "note": reliability["note"].fillna(""),
        }
    )


def _reliability_text(reliability: pd.DataFrame) -> str:
    level = confidence_label(float(reliability["confidence"].iloc[0]))
    return (
        "Split-half reliability (Kiritchenko & Mohammad 2017): each tuple's answers are split at random into two "
        "halves (a tuple with a single answer cannot be split), each half gives every pair a counting score, and the "
        "Spearman and Pearson correlations between the two halves' scores are averaged over the trials; "
        "Spearman-Brown projects them to the whole number of answers; the interval (its level "
        f"{level}) is that of the Spearman-Brown Spearman; per tuple for target: the answers per tuple a reliability "
        "of the target needs (Spearman-Brown). The filtered row, where a rater was excluded, is optimistic: the same "
        "answers chose who was kept"
    )


def card_reliability(tables: dict) -> list:
    """The card's split-half reliability: the text and the table (raw, and filtered where a rater
    was excluded).

    Parameters
    ----------
    tables : dict
        The release's tables (``bws_reliability``).

    Returns
    -------
    list
        A paragraph (str) and the table (pandas.DataFrame); [] without a reliability table.
    """
    reliability = tables.get("bws_reliability")
    if reliability is None or not len(reliability):
        return []
    return [_reliability_text(reliability) + ":", _reliability_view(reliability)]


def _raters_view(raters: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "rater": raters["rater"].astype(str),
            "answers": raters["n_items"].astype(int),
            "agreement": raters["vs_rest"],
            "excluded": np.where(raters["excluded"].astype(bool), "yes", ""),
            "why": raters["exclusion_reason"].fillna(""),
        }
    )


def card_raters(tables: dict, ds: dict) -> list:
    """The card's raters of a BWS dataset: their agreement with the others and who the outlier
    rule excluded.

    Parameters
    ----------
    tables : dict
        The release's tables (``raters``: the BWS raters table).
    ds : dict
        The dataset's resolved config block (``outliers``).

    Returns
    -------
    list
        Paragraphs (str) and a table of the excluded raters (pandas.DataFrame).
    """
    raters = tables.get("raters")
    if raters is None or not len(raters):
        return ["The answers name no rater: no rater's agreement, and no outlier filtering."]
    share = raters["vs_rest"].dropna()
    spread = f" (from {share.min():.3f} to {share.max():.3f}, median {share.median():.3f})" if len(share) else ""
    parts = [
        f"{len(raters):,} raters. Each rater's agreement with the others{spread}: the share of their best and worst "
        "choices that the other raters' counting scores agree with (the chosen pair is the one the others score "
        "highest, or lowest, in the tuple; a tie with it counts as agreement)."
    ]
    method = ds["outliers"]["method"]
    excluded = raters[raters["excluded"].astype(bool)]
    if method == "none":
        parts.append("No rater was excluded: outlier filtering was not applied.")
    elif len(excluded):
        parts.append(
            f"Outlier filtering ({method}, on that agreement) excluded {len(excluded)} of {len(raters)} raters:"
        )
        parts.append(_raters_view(excluded).drop(columns=["excluded"]))
    else:
        parts.append(f"Outlier filtering ({method}, on that agreement) excluded no rater.")
    return parts


def card_gold(tables: dict, confidence: float) -> list:
    """The card's gold standard of a BWS dataset: the scores, their intervals and the distribution.

    Parameters
    ----------
    tables : dict
        The release's tables (``gold``: the items released; ``bws_scores``; ``distribution``).
    confidence : float
        The intervals' level.

    Returns
    -------
    list
        Paragraphs (str) and the distribution (pandas.DataFrame).
    """
    gold, scores = tables["gold"], tables.get("bws_scores")
    parts = []
    values = gold["mean"].dropna()
    basis = gold["basis"].iloc[0] if "basis" in gold and len(gold) else ""
    if len(values):
        parts.append(
            f"{len(gold):,} pairs; scores from {basis}: mean {values.mean():.2f}, median {values.median():.2f}, from "
            f"{values.min():.3g} to {values.max():.3g}."
        )
    if scores is not None and len(scores):
        shown = scores[scores["item_id"].isin(gold["item_id"])]
        half = ((shown["counting_high"] - shown["counting_low"]) / 2).dropna()
        both = shown[["counting", "logit"]].dropna()  # pairs shown: both scores
        rho = spearman(both["counting"], both["logit"]) if len(both) >= 3 else np.nan
        parts.append(
            f"Each pair's counting score has a {confidence_label(confidence)} percentile bootstrap interval "
            f"({shown['counting_resampled'].iloc[0]} resampled"
            + (f"; median half-width {half.median():.3f} on -1..1" if len(half) else "")
            + ") and its utility a Wald interval"
            + (f"; the two scores' Spearman correlation over the pairs is {rho:.3f}" if pd.notna(rho) else "")
            + "."
        )
    resolved = gold["resolved_share"].mean() if "resolved_share" in gold else np.nan
    if pd.notna(resolved):
        parts.append(f"Of every two pairs, {resolved:.0%} have intervals that do not overlap.")
    distribution = tables.get("distribution")
    if distribution is not None and len(distribution):
        parts.append(
            distribution[["bin_low", "bin_high", "n_items", "share"]].rename(
                columns={"bin_low": "from", "bin_high": "to", "n_items": "items"}
            )
        )
    return parts


def card_evaluate(name: str) -> list[str]:
    """The card's recomputation of a BWS dataset's scores, and a model's MaxDiff accuracy, from its
    answers file.

    Parameters
    ----------
    name : str
        The dataset's name (its files' stem).

    Returns
    -------
    list of str
        A paragraph and a Python block.
    """
    return [
        "From the answers: both scores of each pair, and a model's MaxDiff accuracy as SemEval-2012 Task 2 scored "
        "it (the model answers each tuple with the pair its similarities make most and least similar, and a guess is "
        "correct where the majority of that tuple's answers chose it; a tuple with a pair the model has no similarity "
        "for is left out and counted), with a bootstrap interval over tuples:",
        "```python\nimport numpy as np\nimport pandas as pd\nimport simgold\n"
        "from simgold.stages.bws_gold import code_answers, scores_from_answers\n"
        "from simgold.stats.bws import maxdiff_accuracy\n\n"
        f'answers = pd.read_parquet("{name}.answers.parquet")\n'
        "scores = scores_from_answers(answers)  # per pair: counts, counting score, MaxDiff utility and its SE\n"
        f'pairs = pd.read_parquet("{name}.parquet")\n'
        'cosines = simgold.evaluate("vectors.txt", pairs).predictions["sim"].to_numpy()  # in the pairs\' order\n'
        "codes = code_answers(answers)\n"
        'sim = pd.Series(cosines, index=pairs["item_id"]).reindex(codes.item_ids).to_numpy()  # in the codes\' order\n'
        "accuracy = maxdiff_accuracy(codes.coded, sim, 1000, np.random.default_rng(0), 0.95)\n"
        "print(accuracy.best, accuracy.worst, accuracy.both)\n```",
    ]


def _extremes(scores: pd.DataFrame, gold: pd.DataFrame | None, items: pd.DataFrame | None, k: int) -> pd.DataFrame:
    """The k best and k worst pairs by the gold score (or counting), with both scores and intervals."""
    view = scores.copy()
    if gold is not None and len(gold):
        view["score"] = view["item_id"].map(gold.set_index("item_id")["mean"])
    else:
        view["score"] = view["counting"]
    view = view.dropna(subset=["score"]).sort_values(["score", "item_id"], ascending=[False, True], kind="stable")
    picked = pd.concat([view.head(k).assign(end="best"), view.tail(min(k, max(len(view) - k, 0))).assign(end="worst")])
    if items is not None and len(items):
        words = items.drop_duplicates("item_id").set_index("item_id")
        pair = picked["item_id"].map(words["word1"].astype(str) + " / " + words["word2"].astype(str))
    else:
        pair = picked["item_id"]
    return pd.DataFrame(
        {
            "": picked["end"],
            "pair": pair.to_numpy(),
            "score": picked["score"],
            "shown": picked["n_shown"].astype(int),
            "best": picked["n_best"].astype(int),
            "worst": picked["n_worst"].astype(int),
            "counting": picked["counting"],
            "counting interval": [_interval(a, b) for a, b in zip(picked["counting_low"], picked["counting_high"])],
            "logit": picked["logit"],
            "logit interval": [_interval(a, b) for a, b in zip(picked["logit_low"], picked["logit_high"])],
        }
    ).reset_index(drop=True)


def models_view(scores: pd.DataFrame) -> pd.DataFrame:
    """Each model's Spearman beside its MaxDiff accuracies (best, worst, both), each with its
    interval, and the tuples the accuracy is over.

    Parameters
    ----------
    scores : pandas.DataFrame
        The models' scores tables on one BWS dataset (``model``, ``metric``, ``subset``, ``value``,
        ``ci_low``, ``ci_high``, ``n_used``, ``n_total``).

    Returns
    -------
    pandas.DataFrame
        One row per model, sorted by name.
    """
    metrics = {"spearman": "Spearman", "maxdiff_best": "MaxDiff best", "maxdiff_worst": "MaxDiff worst",
               "maxdiff_accuracy": "MaxDiff both"}  # fmt: skip
    rows = scores[scores["metric"].isin(metrics) & (scores["subset"] == "all")]
    out = []
    for model, own in rows.groupby("model", sort=True):
        row = {"model": model}
        for metric, label in metrics.items():
            hit = own[own["metric"] == metric]
            value = hit.iloc[0] if len(hit) else None
            row[label] = np.nan if value is None else value["value"]
            row[f"{label} CI"] = "" if value is None else _interval(value["ci_low"], value["ci_high"])
        accuracy = own[own["metric"] == "maxdiff_accuracy"]
        row["tuples"] = (
            f"{int(accuracy['n_used'].iloc[0]):,} of {int(accuracy['n_total'].iloc[0]):,}" if len(accuracy) else ""
        )
        out.append(row)
    return pd.DataFrame(out)


def page_tables(statistics: dict, scores: pd.DataFrame | None, k: int = 10) -> list[tuple[pd.DataFrame, str]]:
    """The report page's BWS tables, each with its caption: split-half reliability, the raters
    with their agreement and who was excluded, the best and worst pairs with both scores, and the
    models' MaxDiff accuracy beside their Spearman.

    Parameters
    ----------
    statistics : dict
        The page's tables (``bws_reliability``, ``raters``, ``bws_scores``, ``gold``, ``item_table``);
        without ``bws_reliability`` (another kind) there is no table.
    scores : pandas.DataFrame or None
        The models' scores on the dataset.
    k : int, default 10
        The best and the worst pairs shown.

    Returns
    -------
    list of (pandas.DataFrame, str)
        (table, caption) in page order.
    """
    reliability = statistics.get("bws_reliability")
    if reliability is None:
        return []
    out = []
    if len(reliability):
        out.append((_reliability_view(reliability), "Best-Worst Scaling: " + _reliability_text(reliability)))
    raters = statistics.get("raters")
    if raters is not None and len(raters):
        out.append((_raters_view(raters), (
            "Each rater's agreement with the others: the share of their best and worst choices that the other raters' "
            "counting scores agree with; excluded: by the outlier rule on that share (why: the rule and the cut)")))  # fmt: skip
    bws_scores = statistics.get("bws_scores")
    if bws_scores is not None and len(bws_scores):
        level = confidence_label(float(bws_scores["confidence"].iloc[0]))
        out.append((_extremes(bws_scores, statistics.get("gold"), statistics.get("item_table"), k), (
            f"The {k} most and {k} least similar pairs by the gold score: how often each was shown, chosen best and "
            f"chosen worst; its counting score with the {level} percentile bootstrap interval "
            f"({bws_scores['counting_resampled'].iloc[0]} resampled) and its MaxDiff utility with the {level} Wald "
            "interval")))  # fmt: skip
    if scores is not None and len(scores) and scores["metric"].isin(["maxdiff_accuracy"]).any():
        out.append((models_view(scores), (
            f"The models two ways: Spearman with the gold standard, and {MAXDIFF_TEXT}")))  # fmt: skip
    return out


def bws_overview(reliability: list[pd.DataFrame], raters: list[pd.DataFrame]) -> pd.DataFrame:
    """One row per BWS dataset, as ``simgold agreement`` prints it: answers, tuples, raters and
    those excluded, the split-half reliability of the answers kept with its interval, and the answers
    per tuple the target needs.

    Parameters
    ----------
    reliability : list of pandas.DataFrame
        The datasets' ``bws_reliability`` tables.
    raters : list of pandas.DataFrame
        Raters tables (those of other datasets are ignored).

    Returns
    -------
    pandas.DataFrame
        Sorted by dataset.

    Examples
    --------
    >>> rel = pd.DataFrame({"dataset": "d", "stage": ["raw"], "n_answers": [80], "n_tuples": [40], "n_raters": [4],
    ...     "shr_spearman_sb": [0.81234], "ci_low": [0.7], "ci_high": [0.9], "answers_per_tuple": [2.0],
    ...     "answers_needed": [3.1], "target": [0.9], "note": [""]})
    >>> print(bws_overview([rel], []).drop(columns="note").to_string(index=False))
    dataset  answers  tuples  raters  excluded     SHR   SHR interval per tuple      needed
          d       80      40       4         0 0.81234 [0.700, 0.900]       2.0 3.1 for 0.9
    """
    excluded = {}
    for table in raters:
        if len(table):
            excluded[table["dataset"].iloc[0]] = int(table["excluded"].astype(bool).sum())
    rows = []
    for table in reliability:
        if not len(table):
            continue
        raw = table.iloc[0]
        kept = table[table["stage"] == "filtered"].iloc[0] if (table["stage"] == "filtered").any() else raw
        rows.append(
            {
                "dataset": raw["dataset"],
                "answers": int(raw["n_answers"]),
                "tuples": int(raw["n_tuples"]),
                "raters": int(raw["n_raters"]),
                "excluded": excluded.get(raw["dataset"], 0),
                "SHR": kept["shr_spearman_sb"],
                "SHR interval": _interval(kept["ci_low"], kept["ci_high"]),
                "per tuple": f"{kept['answers_per_tuple']:.1f}",
                "needed": (
                    "" if pd.isna(kept["answers_needed"]) else f"{kept['answers_needed']:.1f} for {kept['target']:g}"
                ),
                "note": kept["note"] if isinstance(kept["note"], str) else "",
            }
        )
    columns = [
        "dataset",
        "answers",
        "tuples",
        "raters",
        "excluded",
        "SHR",
        "SHR interval",
        "per tuple",
        "needed",
        "note",
    ]
    return pd.DataFrame(rows, columns=columns).sort_values("dataset", kind="stable").reset_index(drop=True)


def bws_precision_text(level: str) -> str:
    """The caption of a BWS dataset page's precision table: its intervals are the counting score's
    bootstrap, and two pairs are resolved when their intervals do not overlap.

    Parameters
    ----------
    level : str
        The intervals' level as captions say it ("95%").

    Returns
    -------
    str
        The caption.

    Examples
    --------
    >>> bws_precision_text("95%")[:60]
    'How precise the gold standard is: each pair has a 95% percen'
    """
    return (
        f"How precise the gold standard is: each pair has a {level} percentile bootstrap interval of its counting "
        "score (raters resampled where the answers name them; half-widths on the dataset's scale; a pair shown in "
        "a single tuple has none), and of every two pairs, the share whose intervals do not overlap. Models are "
        "ranked on the order of the pairs: where most are unresolved, a model's Spearman rests on differences the "
        "answers did not make"
    )
