"""The dataset card of a release (``README.md``): Hugging Face's YAML front matter, then the
study in prose and tables, every value from the config written as data (``simgold.report.markup``).

``dataset_card`` puts the sections together; ``simgold.report.release.release`` calls it with the
tables it releases and the front matter (``simgold.report.frontmatter``). ``markdown_table`` is
shared with the archive's README (``simgold.report.archive``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from simgold.io.cardtext import CARD_PROSE
from simgold.io.labels import confidence_label
from simgold.io.ledger import normalised_text, set_aside
from simgold.report.bws_sections import card_design, card_evaluate, card_gold, card_raters, card_reliability
from simgold.report.frontmatter import KIND_TEXT, license_link
from simgold.report.markup import Markdown, code_fence, md_cell, md_link, md_prose, md_text, md_url
from simgold.report.pages import AUDIT_CHECK_TEXT, interval_text, reliability_view, with_intervals
from simgold.stages.controls import excluded_by_attention
from simgold.stats.correlation import spearman

__all__ = ["dataset_card", "markdown_table", "answers_text"]


#: a rejected answer in the reader's words (the ledger's reasons that reject a value, simgold.io.ledger)
REASON_WORDS = {
    "unnamed_column": "in a column without a name",
    "non_numeric": "not a number",
    "non_finite": "not a finite number",
    "out_of_scale": "outside the scale",
    "bad_item": "on a row whose words could not be read",
    "bad_rater": "without a rater",
    "duplicate": "to a pair listed more than once (all of a rater's answers to it set aside)",
    "invalid_ranking": "in a ranking that does not give each candidate one rank",
    "rater_incomplete": "of raters who stopped early",
    "attention_failed": "of raters who failed the attention checks",
    "extra_fields": "on a row with more fields than the header",
    # a Best-Worst Scaling answer set aside (simgold.io.ledger's bws_ reasons): one answer per row
    "bws_malformed_item": "with a pair whose two words could not be read",
    "bws_wrong_size": "with a tuple of the wrong size",
    "bws_repeated_item": "with a pair twice in one tuple",
    "bws_unknown_item": "with a pair the dataset's item list does not hold",
    "bws_blank_choice": "without a best or a worst",
    "bws_not_in_tuple": "whose best or worst is not in its tuple",
    "bws_position_out_of_range": "whose best or worst position is not in the tuple",
    "bws_best_is_worst": "whose best is also its worst",
    "bws_repeated_answer": "repeating a rater's answer to the same tuple (the later one set aside)",
}
#: the duplicates rule in the reader's words: what became of a rater's answers to a pair asked twice
DUPLICATES_WORDS = {
    "first": "later answers to a pair asked again, set aside for the rater's first answer",
    "last": "earlier answers to a pair asked again, replaced by the rater's last answer",
    "mean": "answers to a pair asked again, merged into the mean of the rater's answers",
}


def answers_text(counts: dict[str, int], scale=None) -> str:
    """Rejected answers by reason (``counts``: ledger reason -> answers), in the reader's words,
    most first; reasons that are not a rejected value are left out.

    Parameters
    ----------
    counts : dict[str, int]
        Ledger reason -> number of answers rejected for it.
    scale : object, optional
        The scale's (low, high), named in the out-of-scale reason (None: not named).

    Returns
    -------
    str
        ``N answers <reason>`` parts joined by ``; ``, most first ("" when none is shown).

    Examples
    --------
    >>> answers_text({"out_of_scale": 3, "duplicate": 44, "missing": 18}, (0, 6))
    "44 answers to a pair listed more than once (all of a rater's answers to it set aside); 3 answers outside the scale (0 to 6)"
    """
    shown = {r: int(n) for r, n in counts.items() if n and r in REASON_WORDS}

    def words(reason: str) -> str:
        text = REASON_WORDS[reason]
        return text + (f" ({scale[0]:g} to {scale[1]:g})" if reason == "out_of_scale" and scale is not None else "")

    order = sorted(shown, key=lambda r: (-shown[r], list(REASON_WORDS).index(r)))
    return "; ".join(f"{shown[r]:,} answer{'s' * (shown[r] != 1)} {words(r)}" for r in order)






def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table: numbers to 3 decimals, missing values empty, text as data
    (``simgold.report.markup.md_cell``: no cell can hold a link or HTML) unless it is ``Markdown``.

    Parameters
    ----------
    frame : pd.DataFrame
        The rows to show; its column names are the header.

    Returns
    -------
    str
        The table's lines (header, rule, rows) joined by newlines, without a final one.

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"stage": ["raw"], "alpha": [0.81234], "n": [3]})))
    | stage | alpha | n |
    |---|---|---|
    | raw | 0.812 | 3 |
    """

    def cell(value) -> str:
        if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
            return ""
        if isinstance(value, (float, np.floating)):
            return f"{value:.3f}"
        return value if isinstance(value, Markdown) else md_cell(value)  # data, never markup

    head = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])










#: what one item of a release is, in the reader's words (its kind's), and what its ``n`` counts
ITEM_WORDS = {"contexts": ("pair in one of its contexts", "ratings"), "rankings": ("candidate", "rankings")}


def _raters_section(tables: dict, ds: dict) -> list[str]:
    parts = []
    gold, summary = tables["gold"], tables["clean"].iloc[0]
    per_item = gold["n"].dropna()
    item, counted = ITEM_WORDS.get(ds["kind"], ("pair", "ratings"))
    if int(summary.get("n_raters", 0) or 0) > 0 and len(per_item):
        low, high = int(per_item.min()), int(per_item.max())
        each = f"{low} {counted}" if low == high else f"{low} to {high} {counted} (median {per_item.median():g})"
        parts.append(
            f"{int(summary['n_raters']):,} raters; each {item} has {each}."
            + ("" if ds["persistent_raters"] else " The rating columns are slots filled by different people.")
        )
    stopped = _stopped_early(tables.get("rejects"), ds, int(summary.get("n_items", 0) or 0))
    if stopped:
        parts.append(stopped)
    parts += [text for text in (_attention_text(tables.get("rejects"), ds), _anchors_text(ds)) if text]
    calibration = tables.get("calibration")
    if calibration is not None and len(calibration):
        method = ds["calibration"]
        shifted = calibration[calibration["calib_shift"] != 0]
        if method["method"] == "none":
            parts.append("Calibration was not applied: every score is the rater's own.")
        elif method["method"] == "zscore":
            parts.append(
                f"Calibration (zscore): the scores of each of the {len(calibration)} raters were standardised and "
                "mapped back onto the pooled mean and spread of all scores."
            )
        else:
            moved = (
                f"{len(shifted)} of {len(calibration)} raters, whose mean was more than {method['threshold']:g} from "
                f"the mean of all scores, had their scores moved {method['step']:g} towards it "
                f"({', '.join(md_text(r, False) for r in shifted['rater'].astype(str))})"
                if len(shifted)
                else f"no rater's mean was more than {method['threshold']:g} from the mean of all scores, so no score moved"
            )
            parts.append(f"Calibration (shift): {moved}.")
    raters = tables.get("raters")
    if raters is not None and len(raters):
        calibrated = raters[raters["stage"] == "calibrated"] if "stage" in raters else raters
        excluded = calibrated[calibrated["excluded"].astype(bool)]
        method = ds["outliers"]["method"]
        if method == "none":
            parts.append("No rater was excluded: outlier filtering was not applied.")
        elif len(excluded):
            parts.append(f"Outlier filtering ({method}) excluded {len(excluded)} of {len(calibrated)} raters:")
            view = excluded[["rater", "n_items", "exclusion_reason"]]
            rated = "targets ranked" if ds["kind"] == "rankings" else "pairs rated"
            parts.append(markdown_table(view.rename(columns={"n_items": rated, "exclusion_reason": "why"})))
        else:
            parts.append(f"Outlier filtering ({method}) excluded no rater.")
    return parts


def _stopped_early(rejects: pd.DataFrame | None, ds: dict, n_items: int) -> str:
    """The raters who stopped early (``min_answered``; their answers are not in the ledger's kept
    ratings), in words: how many, who, how many pairs each answered and how many were asked for."""
    if rejects is None or "min_answered" not in ds:
        return ""
    cells = rejects[rejects["reason"] == "rater_incomplete"]
    if not len(cells):
        return ""
    # the cleaner's detail names the rater and the count: rater 'T07' answered 8 items, fewer than ...
    found = cells["detail"].astype(str).str.extract(r"^rater (.+?) answered (\d+) items")
    who = sorted({(name.strip("'\""), int(n)) for name, n in found.dropna().itertuples(index=False, name=None)})
    need = ds["min_answered"] * n_items if ds["min_answered"] < 1 else ds["min_answered"]
    raters = f"{len(who)} more rater{'s' * (len(who) != 1)}" if who else "Raters"
    named = "; ".join(f"{name}: {n} of {n_items}" for name, n in who)
    return (
        f"{raters} stopped early ({named} pairs answered), fewer than the {need:g} a rater had to answer: "
        f"{'their' if len(who) != 1 else 'the'} {len(cells):,} answers are not used and "
        f"{'they are' if len(who) != 1 else 'the rater is'} not counted above."
    )


def _attention_text(rejects: pd.DataFrame | None, ds: dict) -> str:
    """The raters excluded for failing attention checks (``attention``), in words: how many of the
    raters who answered a check, the rule, who, and the ratings set aside."""
    if rejects is None or "attention" not in ds:
        return ""
    spec = ds["attention"]
    failed, answered = excluded_by_attention(rejects, spec)
    rule = (
        f"more than {spec['max_failures']} of the {len(spec['items'])} checks off by more than "
        f"{spec['tolerance']:g} from the expected answer"
    )
    if not failed:
        return f"No rater was excluded for failing attention checks ({answered} answered them; excluded: {rule})."
    ratings = int((rejects["reason"] == "attention_failed").sum())
    return (
        f"{len(failed)} of {answered} raters {'were' if len(failed) != 1 else 'was'} excluded for failing attention "
        f"checks ({rule}): {', '.join(md_text(str(r), False) for r in failed)}; their {ratings:,} ratings are not "
        "used and they are not counted above."
    )


def _anchors_text(ds: dict) -> str:
    """Whether the anchors (``anchors``) are in the gold standard and in calibration."""
    if "anchors" not in ds:
        return ""
    spec, n = ds["anchors"], len(ds["anchors"]["items"])
    where = (
        "in the gold standard, agreement and outlier filtering like every pair"
        if spec["in_gold"]
        else "not in the gold standard, agreement or outlier filtering"
    )
    used = "with" if spec["calibration"] else "without"
    anchors = f"The {n} anchor pair{'s' * (n != 1)}, rated by every rater first, {'are' if n != 1 else 'is'}"
    return f"{anchors} {where}; calibration is computed {used} {'them' if n != 1 else 'it'}."


def _agreement_section(tables: dict, confidence: float) -> list[str]:
    agreement, ci = tables.get("agreement"), tables.get("agreement_ci")
    if agreement is None or not len(agreement):
        return []
    level = confidence_label(confidence)
    columns = ["stage", "subset", "n_raters", "n_items", "pairwise", "vs_rest", "alpha_interval"]
    whole = agreement.loc[agreement["subset"] == "all", columns]
    has_ci = ci is not None and len(ci) > 0
    view = (with_intervals(whole, ci) if has_ci else whole).drop(columns=["subset"])
    notes = agreement.loc[agreement["subset"] == "all", "note"].fillna("") if "note" in agreement else None
    if notes is not None and (notes != "").any():  # why a cell is empty (one rater, constant scores)
        view = view.assign(note=notes.to_numpy())
    text = (
        "Agreement by stage (raw ratings, after calibration, after outlier filtering; the filtered figures are "
        "optimistic where raters were excluded, since the same ratings chose who was kept): mean pairwise Spearman, "
        "each rater's Spearman with the other raters' means (vs_rest) and Krippendorff's alpha (interval)"
        + (f", with {level} bootstrap intervals resampling items and raters together" if has_ci else "")
    )
    parts = [text + ":", markdown_table(view.rename(columns={"n_raters": "raters", "n_items": "items"}))]
    retest = tables.get("retest")
    if retest is not None and len(retest) and retest["n_pairs"].iloc[0] > 0:
        r = retest.iloc[0]
        parts.append(
            f"Test-retest: {int(r['n_pairs'])} answers of {int(r['n_raters'])} raters to a question asked again; "
            f"mean absolute difference {r['mean_abs_diff']:.2f}, {r['share_equal']:.0%} answered the same, "
            f"ICC(2,1) {r['icc']:.3f} {interval_text(r['ci_low'], r['ci_high'])}."
        )
    reliability = tables.get("reliability")
    if reliability is not None and len(reliability):
        view = reliability_view(reliability).drop(columns=["dataset"])
        parts.append("How many raters are enough (split halves of the raters, Spearman-Brown):")
        parts.append(markdown_table(view))
    return parts


def _gold_section(tables: dict, ds: dict, confidence: float) -> list[str]:
    gold, distribution = tables["gold"], tables.get("distribution")
    parts = []
    basis = gold["basis"].iloc[0] if "basis" in gold and len(gold) else ""
    scores = gold["mean"].dropna()
    items = {"contexts": "pairs in a context", "rankings": "candidates"}.get(ds.get("kind", ""), "pairs")
    if len(scores):
        parts.append(
            f"{len(gold):,} {items}; scores from {basis}: mean {scores.mean():.2f}, median {scores.median():.2f}, "
            f"from {scores.min():.3g} to {scores.max():.3g}."
        )
    with_ci = gold["ci_low"].notna()
    if with_ci.any():
        half = ((gold["ci_high"] - gold["ci_low"]) / 2)[with_ci]
        resolved = gold["resolved_share"].mean()
        order = (
            f"of every two items, {resolved:.0%} have an order Welch's test resolves at that level"
            if pd.notna(resolved)
            else "no two items have intervals whose order a test could resolve"  # one item with an interval
        )
        parts.append(
            f"Each item's score has a {confidence_label(confidence)} Student's t interval from its ratings "
            f"(median half-width {half.median():.2f}); {order}." + _beyond_scale(gold, ds.get("scale"))
        )
    if distribution is not None and len(distribution):
        view = distribution[["bin_low", "bin_high", "n_items", "share"]].rename(
            columns={"bin_low": "from", "bin_high": "to", "n_items": "items"}
        )
        parts.append(markdown_table(view))
    return parts


#: what the audit's checks count, in the reader's words: a finding's unit ("item": the kind's item)
AUDIT_UNITS = {
    "released_mean": "item",
    "spreadsheet_date": "answer",
    "text_number": "answer",
    "duplicate_pair": "item",
    "reversed_pair": "item",
    "shifted_row": "row",
    "single_rating": "item",
    "rater_mean": "rater",
}


def _audit_counts(audit: pd.DataFrame, kind: str = "ratings", repeats: pd.DataFrame | None = None) -> pd.DataFrame:
    """The audit's findings counted in the reader's units, per check: items (pairs) for a pair listed
    twice or in both orders, a released mean or a single rating; raters for a rater's mean; answers
    for a damaged cell; rows for a shifted row. A pair listed twice is one pair however many answers
    show it (``repeats``, the cleaning's table of a rater's repeated answers, names the pair of each
    repeated row); the answers are counted beside it.

    Examples
    --------
    >>> audit = pd.DataFrame({"check": ["duplicate_pair"] * 4 + ["rater_mean"], "item_id": ["d:1", "d:1", None, None, None],
    ...     "rater": [None, None, None, None, "r7"], "source_file": "f", "source_row": [2, 2, 9, 9, None]})
    >>> repeats = pd.DataFrame({"item_id": "d:1", "source_file": "f", "source_row": [2, 9]})
    >>> _audit_counts(audit, repeats=repeats).values.tolist()
    [['pair listed twice', '1 pair (4 answers)'], ["rater's mean far off", '1 rater']]
    """
    if len(audit) and repeats is not None and len(repeats):  # a repeated row's pair, where cleaning knows it
        where = repeats.drop_duplicates(["source_file", "source_row"]).set_index(["source_file", "source_row"])
        keys = pd.MultiIndex.from_arrays([audit["source_file"], audit["source_row"]])
        audit = audit.assign(item_id=audit["item_id"].fillna(pd.Series(where["item_id"].reindex(keys).to_numpy(),
                                                                        index=audit.index)))  # fmt: skip
    item = ITEM_WORDS.get(kind, ("pair", "ratings"))[0].split(" ")[0]
    rows = []
    for check in [c for c in AUDIT_CHECK_TEXT if c in set(audit["check"])]:
        found = audit[audit["check"] == check]
        unit = AUDIT_UNITS[check]
        if unit == "item":
            n = (
                found["item_id"].nunique()
                + found.loc[found["item_id"].isna(), ["source_file", "source_row"]].drop_duplicates().shape[0]
            )
        elif unit == "rater":
            n = found["rater"].nunique()
        elif unit == "row":
            n = found[["source_file", "source_row"]].drop_duplicates().shape[0]
        else:
            n = len(found)
        word = item if unit == "item" else unit
        text = f"{n:,} {word}{'s' * (n != 1)}"
        if unit == "item" and len(found) > n:
            text += f" ({len(found):,} answers)"
        rows.append((AUDIT_CHECK_TEXT[check][0], text))
    return pd.DataFrame(rows, columns=["check", "found"])


def _beyond_scale(gold: pd.DataFrame, scale) -> str:
    """A note on the item intervals that reach past the ends of the scale ("" when none does)."""
    if scale is None:
        return ""
    below, above = int((gold["ci_low"] < scale[0]).sum()), int((gold["ci_high"] > scale[1]).sum())
    ends = [f"{n} below the scale's minimum {scale[0]:g}" for n in [below] if n]
    ends += [f"{n} above its maximum {scale[1]:g}" for n in [above] if n]
    if not ends:
        return ""
    return (
        f" The intervals of some items reach past the scale ({' and '.join(ends)}): a t interval does not know the "
        "scale's bounds, and is given as computed, not cut at them; near an end of the scale it says only that the "
        "score is close to that end."
    )


def _released_section(tables: dict, ds: dict) -> list[str]:
    """For a re-release (a ratings file that ships the creators' own mean per item): how this
    release's scores differ from the released ones (Spearman, the largest difference) and why."""
    gold = tables.get("gold")
    if (
        ds["kind"] != "ratings"
        or gold is None
        or "released_mean" not in gold
        or not gold["released_mean"].notna().any()
    ):
        return []
    both = gold.dropna(subset=["mean", "released_mean"])
    diff = (both["mean"] - both["released_mean"]).abs()
    column = next((str(src["mean"]) for src in ds["sources"] if "mean" in src), "mean")
    parts = [
        f"The raw file ships the creators' own score of each pair (column `{column}`): this is a re-release, and its "
        f"scores are not the released ones."
    ]
    if not len(both) or diff.max() < 1e-9:
        parts[0] = (f"The raw file ships the creators' own score of each pair (column `{column}`); the scores here "
                    f"equal them ({len(both)} pairs).")  # fmt: skip
        return parts
    worst = both.loc[diff.idxmax()]
    items = tables.get("items")
    words = ""
    if items is not None and worst["item_id"] in set(items["item_id"]):
        row = items.set_index("item_id").loc[worst["item_id"]]
        words = f"{row['word1']} / {row['word2']}: "
    rho = spearman(both["mean"].to_numpy(float), both["released_mean"].to_numpy(float))
    parts.append(
        f"Over the {len(both)} pairs with both scores, Spearman's rho between the two is {rho:.4f}; the largest "
        f"difference is {diff.max():.3f} ({words}released {worst['released_mean']:.3f}, here {worst['mean']:.3f}), "
        f"the mean absolute difference {diff.mean():.3f}."
    )
    why = []
    raters = tables.get("raters")
    if raters is not None and len(raters):
        calibrated = raters[raters["stage"] == "calibrated"] if "stage" in raters else raters
        excluded = int(calibrated["excluded"].astype(bool).sum())
        if excluded:
            why.append(f"{excluded} of {len(calibrated)} raters were excluded as outliers here "
                       f"({ds['outliers']['method']}), and their ratings are not in the scores")  # fmt: skip
    calibration = tables.get("calibration")
    if calibration is not None and len(calibration) and ds["calibration"]["method"] != "none":
        moved = (
            int((calibration["calib_shift"] != 0).sum()) if ds["calibration"]["method"] == "shift" else len(calibration)
        )
        if moved:
            why.append(f"the scores of {moved} raters were calibrated ({ds['calibration']['method']})")
    summary = tables["clean"].iloc[0] if "clean" in tables else None
    if summary is not None and int(summary.get("n_values_rejected", 0) or 0):
        why.append(f"{int(summary['n_values_rejected']):,} answers were not used (What was not kept)")
    audit = tables.get("audit")
    off = int((audit["check"] == "released_mean").sum()) if audit is not None and len(audit) else 0
    released = (
        "the released scores are the means of every rater's ratings (the audit finds none that is not)"
        if not off
        else f"{off} released scores are not the mean of every rater's ratings (see the audit)"
    )
    parts.append("Why: " + "; ".join(why + [released]) + ".")
    return parts


def _audit_section(tables: dict, kind: str = "ratings") -> list[str]:
    audit = tables.get("audit")
    if audit is None:
        return []
    if not len(audit):
        return ["The audit found nothing to check in the source."]
    return [
        "The audit compares the data with what was released with them (a finding is something to check in the "
        "source, not necessarily an error; every finding is in the study's results/audit/ table):",
        markdown_table(_audit_counts(audit, kind, tables.get("repeats"))),
    ]


def _ledger_section(summary: pd.Series, ds: dict, left_out: pd.DataFrame | None = None) -> list[str]:
    """What cleaning set aside, in the reader's words (answers, pairs): the answers not used, by
    reason (the cleaning summary's ledger counts); the cells that are not answers, counted apart; the
    word cells normalised; and the items left out of the release for want of a score, each with why."""
    counts = {k[len("rejects_") :]: int(v or 0) for k, v in summary.items() if k.startswith("rejects_")}
    held, rejected = int(summary.get("n_values_held", 0) or 0), int(summary.get("n_values_rejected", 0) or 0)
    if rejected:
        line = (
            f"Of the {held:,} answers in the raw files, {rejected:,} ({rejected / held:.1%}) "
            f"{'were' if rejected != 1 else 'was'} rejected: "
            f"{answers_text(counts, ds.get('scale'))}."
        )
    else:
        line = f"No answer in the raw files was rejected ({held:,} answers)." if held else ""
    reader = {"blank or missing": "blank or missing cells", "cells of columns the config does not name": "cells of "
              "columns that hold no answers", "resolved by the duplicates rule": DUPLICATES_WORDS.get(
              ds.get("duplicates", ""), "answers resolved by the duplicates rule")}  # fmt: skip
    apart = {reader.get(what, what): n for what, n in set_aside(counts).items()}
    apart_text = "; ".join(f"{n:,} {what}" for what, n in apart.items() if n)
    if apart_text:
        line += f" Counted apart: {apart_text}."
    words = normalised_text(summary.get("n_words_normalised", 0))
    if words:
        line += f" {words[0].upper()}{words[1:]}."
    parts = [line.strip()] if line.strip() else []
    if left_out is not None and len(left_out):
        item, _ = ITEM_WORDS.get(ds["kind"], ("pair", "ratings"))
        n = len(left_out)
        parts.append(f"{n} {item}{'s' * (n != 1)} without a score {'are' if n != 1 else 'is'} left out of every file:")
        view = left_out.assign(pair=left_out["word1"].astype(str) + " / " + left_out["word2"].astype(str))
        parts.append(markdown_table(view[["pair", *(["context"] if "context" in view else []), "why"]]))
    return parts


def _sources_section(ds: dict, sources: list[dict]) -> list[str]:
    view = pd.DataFrame(
        {"file": [r["path"] for r in sources], "sha256": [r["sha256"] for r in sources],
         "bytes": [f"{r['size']:,}" for r in sources]}  # fmt: skip
    )
    parts = [
        f"Language: `{ds['language']}`. Kind: {ds['kind']}"
        + (f", on a scale from {ds['scale'][0]:g} to {ds['scale'][1]:g}" if "scale" in ds else "")
        + ". Raw files (the SHA-256 identifies the exact file the release was made from):",
        markdown_table(view),
    ]
    if not ds.get("redistribute", True):
        parts.append(
            "**The raw files may not be redistributed** (`redistribute: false`): this release is derived from them "
            "(their words and scores); check their licence before publishing it."
        )
    if ds.get("description") or ds.get("licence") or ds.get("source"):
        parts.append(
            " ".join(
                text
                for text in (
                    f"About the raw files: {md_text(ds['description'], False)}." if ds.get("description") else "",
                    f"The raw files' licence: {md_text(ds['licence'], False)}." if ds.get("licence") else "",
                    f"Source: {md_text(ds['source'], False)}." if ds.get("source") else "",
                )
                if text
            )
        )
    return parts


def _evaluate_section(name: str, kind: str, scored: bool = False) -> list[str]:
    """How to score a model on the release: gensim and ``simgold.evaluate`` on a word-pair file,
    ``simgold.evaluate_comparisons`` on the A&G comparisons of a rankings or comparisons dataset
    (the score the run's leaderboard gives), and where the run's own scores are."""
    parts = []
    if kind in ("ratings", "means", "bws"):
        parts += [
            "With gensim (the `.txt` file is its word-pair format; `restrict_vocab` the whole vocabulary, so that no "
            "pair is lost to gensim's default of 300,000 words; pairs with an unknown word are skipped and counted; a "
            "vectors file without a header line, such as GloVe's, needs `no_header=True`):",
            "```python\nfrom gensim.models import KeyedVectors\n\n"
            'kv = KeyedVectors.load_word2vec_format("vectors.txt")  # no header line: add no_header=True\n'
            f'pearson, spearman, oov_percent = kv.evaluate_word_pairs("{name}.txt", restrict_vocab=len(kv))\n```',
            "With simgold (the same Spearman, Pearson and OOV share as gensim's, with bootstrap CIs and Kendall's tau; "
            "a vectors file of any common format):",
        ]
    if kind in ("ratings", "means", "contexts", "bws"):
        parts.append(
            "```python\nimport pandas as pd\nimport simgold\n\n"
            f'pairs = pd.read_parquet("{name}.parquet")\n'
            'result = simgold.evaluate("vectors.txt", pairs)\nprint(result.scores)\n```'
        )
        if kind == "contexts":
            parts.insert(0, "Each row is a pair in one of its contexts: `simgold.evaluate` scores a model's word "
                            "vectors (the same in both contexts); a model that reads the context needs the simgold "
                            "pipeline.")  # fmt: skip
    else:
        table = f"{name}.comparisons.parquet" if kind == "rankings" else f"{name}.parquet"
        if kind == "rankings":
            parts.append(
                "A candidate's `score` here is its mean rank, lower being more similar: a model is not scored by a "
                "correlation with it (a good model's would be negative) but by Avraham & Goldberg's comparisons, "
                f"`{table}`: the A&G score, the weighted share of comparisons the model orders as the raters did."
            )
        parts.append(
            "With simgold (the A&G score over all comparisons and per type, with bootstrap CIs and the share of "
            "comparisons with an unknown word; the score the run's leaderboard gives):"
        )
        parts.append(
            "```python\nimport pandas as pd\nimport simgold\n\n"
            f'comparisons = pd.read_parquet("{table}")\n'
            'result = simgold.evaluate_comparisons("vectors.txt", comparisons)\nprint(result.scores)\n```'
        )
    if kind == "bws":
        parts += card_evaluate(name)
    parts.append(
        f'Reading a TSV with pandas: `pd.read_csv("{name}.tsv", sep="\\t", keep_default_na=False, na_values=[""])`, '
        "or words such as `NA` and `null` become missing values."
    )
    if scored:
        parts.append(
            "The scores of the models of the run that made this release, with their CIs: [scores.md](scores.md)."
        )
    return parts


def dataset_card(
    name: str, ds: dict, tables: dict, files: list[tuple[str, str, int]], columns: pd.DataFrame,
    sources: list[dict], *, confidence: float, made_with: str, front_matter: str, file_notes: list[str] = (),
    scored: bool = False,
) -> str:  # fmt: skip
    """The dataset card (README.md): the front matter, the title and summary, then the authors'
    prose (``release.card``) between the generated sections: what the pairs are and where they came
    from, the raters, the ledger, agreement, the gold standard, the audit, how to evaluate a model
    and how to cite. ``files``: (file, what it is, rows); ``file_notes``: what a reader of the files
    should know (lines gensim would skip, cells a spreadsheet would run). Every value from the
    config is written as data (``simgold.report.markup``). ``scored``: the run's models score the
    dataset, and the card links their scores (``scores.md``, beside it).

    Parameters
    ----------
    name : str
        The dataset's name (the title without a ``pretty_name``).
    ds : dict
        The dataset's resolved config block (``kind``, ``language``, ``release``, ...).
    tables : dict
        The run's tables of the dataset by name (``gold``, ``clean``, agreement, audit, ...).
    files : list[tuple[str, str, int]]
        (file, what it is, rows; "" for no count) per released file.
    columns : pd.DataFrame
        The Columns section: ``table``, ``column``, ``type``, ``description``.
    sources : list[dict]
        The raw input records (``path``, ``sha256``, ``size``) of the dataset.
    confidence : float
        The intervals' coverage (``scoring.confidence``).
    made_with : str
        What made the release (``simgold <version>``).
    front_matter : str
        The YAML front matter of :func:`yaml_front_matter`.
    file_notes : list[str], optional
        Notes for a reader of the files, shown under the Files table.
    scored : bool, optional
        True: the run's models score the dataset; the card links ``scores.md``.

    Returns
    -------
    str
        The card's Markdown, ending in one newline.
    """
    release = ds["release"]
    card = release.get("card", {})
    license_ = release.get("license")
    lines = [front_matter, f"# {md_text(card['pretty_name']) if card.get('pretty_name') else name}", ""]
    if card.get("summary"):
        lines += [md_prose(card["summary"]), ""]
    else:
        what = KIND_TEXT.get(ds["kind"], ds["kind"])
        lines += [f"A word-similarity gold standard in `{ds['language']}`: {what}.", ""]
    link = license_link(release)
    terms = md_link(license_, link) if license_ and link else md_text(license_ or "", line_start=False)
    lines.append(
        f"Version {release['version']}. "
        + (f"Licence: {terms} (SPDX)." if license_ else "**No licence was given for this release**: ask the "
           "creators before you reuse it.")  # fmt: skip
        + (f" Homepage: {md_url(release['homepage'])}." if release.get("homepage") else "")
    )
    creators = [_creator_text(c) for c in release.get("creators", [])]
    if creators:
        lines.append(f"Made by {', '.join(creators)}.")
    lines += [
        "",
        f"Made with {made_with} from the raw files below; the figures here are those of the run's tables.",
        "",
    ]
    prose = {key: [md_prose(card[key])] if card.get(key) else [] for key in CARD_PROSE}
    sections = [
        (CARD_PROSE["intended_use"], prose["intended_use"]),
        (CARD_PROSE["limitations"], prose["limitations"]),
        ("Files", [markdown_table(pd.DataFrame(files, columns=["file", "what it is", "rows"])), *file_notes]),
        ("Columns", [markdown_table(columns)]),
        (CARD_PROSE["pairs"], prose["pairs"]),
        ("Where the pairs come from", _sources_section(ds, sources)),
        (CARD_PROSE["instructions"], prose["instructions"]),
        (CARD_PROSE["recruitment"], prose["recruitment"]),
        (CARD_PROSE["pay"], prose["pay"]),
        (CARD_PROSE["demographics"], prose["demographics"]),
        *_study_sections(name, ds, tables, confidence),
        ("Against the released scores", _released_section(tables, ds)),
        ("Audit", _audit_section(tables, ds["kind"])),
        ("Evaluating a model", _evaluate_section(name, ds["kind"], scored)),
        ("Citation", [code_fence(release["citation"], "bibtex")] if release.get("citation")
         else ["No citation was given."]),  # fmt: skip
    ]
    for title, parts in sections:
        if parts:
            lines += [f"## {title}", ""]
            for part in parts:
                lines += [part, ""]
    return "\n".join(lines).rstrip() + "\n"


def _study_sections(name: str, ds: dict, tables: dict, confidence: float) -> list[tuple[str, list[str]]]:
    """The card's sections from the design to the gold standard: a BWS dataset's design, then the
    raters, what was not kept, agreement and the gold standard, a BWS dataset's its own (its raters'
    agreement with the others, split-half reliability, both scores)."""
    bws, gold = ds["kind"] == "bws", "gold" in tables
    if bws and gold:
        raters, gold_parts = _rendered(card_raters(tables, ds)), _rendered(card_gold(tables, confidence))
    elif gold:
        raters, gold_parts = _raters_section(tables, ds), _gold_section(tables, ds, confidence)
    return [
        ("Best-Worst Scaling", card_design(name, tables, ds, confidence)),
        ("Raters", raters if gold else []),
        ("What was not kept", _ledger_section(tables["clean"].iloc[0], ds, tables.get("left_out")) if "clean" in tables
         else []),  # fmt: skip
        ("Agreement", _agreement_section(tables, confidence) + (_rendered(card_reliability(tables)) if bws else [])),
        ("The gold standard", gold_parts if gold else []),
    ]


def _rendered(parts: list) -> list[str]:
    """Card parts as Markdown: a table (``pandas.DataFrame``) as ``markdown_table``, text as it is."""
    return [markdown_table(p) if isinstance(p, pd.DataFrame) else p for p in parts]


def _creator_text(creator) -> str:
    """A creator as data: the name escaped, linked to its checked URL, with its affiliation."""
    if isinstance(creator, str):
        return md_text(creator, line_start=False)
    name = creator["name"]
    text = md_link(name, creator["url"]) if creator.get("url") else md_text(name, line_start=False)
    return text + (f" ({md_text(creator['affiliation'], line_start=False)})" if creator.get("affiliation") else "")
