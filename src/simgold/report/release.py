"""The release of a gold standard (docs/methods.md section 12): the files a paper's readers load.

``release`` turns one dataset's results into ``results/release/{dataset}/``:

* ``{dataset}.parquet`` and ``{dataset}.tsv``: one row per gold item (per pair and context for a
  two-context dataset; per target and candidate for rankings): the words, the gold score on the
  dataset's scale, its SD, the number of ratings, the per-item CI at the run's level, the rank,
  and the item's attributes. The Parquet file keeps every word a string; the TSV is UTF-8, rows in
  item order, fields quoted only where they hold a tab, a line break or a quote (``csv``'s
  minimal quoting), missing values empty. Words such as ``NA`` or ``null`` are words: pandas
  reads the TSV as written with ``keep_default_na=False, na_values=[""]`` (the card says so), and
  the Hugging Face and Croissant metadata point at the Parquet file, which needs no such rule;
* ``{dataset}.txt``: gensim's word-pair format (``word1<TAB>word2<TAB>score``, ``#`` comments), for
  ``KeyedVectors.evaluate_word_pairs``; only for datasets whose gold is one score per word pair
  (ratings and means: not two-context datasets, whose pairs repeat with another context, nor
  rankings, whose score is a rank);
* ``{dataset}.comparisons.parquet`` / ``.tsv``: the A&G comparisons with their weights, where the
  dataset has them;
* ``README.md``: the dataset card, Hugging Face YAML front matter then the study in prose and
  tables;
* ``croissant.json``: MLCommons Croissant 1.0 metadata of the Parquet files;
* ``scores.md`` (``scores_card``, its own job once the models have run): the run's model scores
  with their CIs, the human ceiling and the minimum significant difference, linked from the card.

Which data files a release holds is known from the dataset's kind (``simgold.io.paths.RELEASE_DATA``),
so that the workflow declares each. An item without a score (every rating of it set aside) is left
out of every file, and the card counts it and says why; a column empty in every row is left out.

Everything is a function of the inputs: the same results give the same bytes.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from simgold.io.cardtext import CARD_PROSE
from simgold.io.labels import confidence_label
from simgold.io.languages import model_languages
from simgold.io.paths import result
from simgold.io.ledger import normalised_text, set_aside
from simgold.io.tables import sha256_bytes, to_arrow, tsv_bytes, tsv_text
from simgold.report.markup import FORMULA_START, Markdown, code_fence, formula_cells, md_cell, md_code, md_link
from simgold.report.markup import md_prose, md_text, md_url
from simgold.stages.msd import with_msd
from simgold.stats.rank_correlation import spearman
from simgold.report.pages import (
    AUDIT_CHECK_TEXT,
    FEW_COMPARISONS,
    MIN_COMPARISONS,
    interval_text,
    reliability_view,
    with_intervals,
)

#: Hugging Face's licence ids that are SPDX ids in lower case (the Hub's list); others are "other"
HF_LICENSES = frozenset("""
    apache-2.0 mit afl-3.0 artistic-2.0 bsl-1.0 bsd-2-clause bsd-3-clause bsd-3-clause-clear cc0-1.0
    cc-by-2.0 cc-by-2.5 cc-by-3.0 cc-by-4.0 cc-by-sa-3.0 cc-by-sa-4.0 cc-by-nc-2.0 cc-by-nc-3.0
    cc-by-nc-4.0 cc-by-nd-4.0 cc-by-nc-nd-3.0 cc-by-nc-nd-4.0 cc-by-nc-sa-2.0 cc-by-nc-sa-3.0
    cc-by-nc-sa-4.0 cdla-sharing-1.0 cdla-permissive-1.0 cdla-permissive-2.0 wtfpl ecl-2.0 epl-1.0
    epl-2.0 etalab-2.0 eupl-1.1 eupl-1.2 agpl-3.0 gpl-2.0 gpl-3.0 lgpl-2.1 lgpl-3.0 isc lppl-1.3c
    ms-pl mpl-2.0 odc-by odbl osl-3.0 postgresql ofl-1.1 ncsa unlicense zlib pddl
    """.split())

#: the gold columns of a release, in order: column -> (the gold table's column, its description)
GOLD_COLUMNS = {
    "score": ("mean", "the gold score: the mean of the item's ratings on the dataset's scale"),
    "sd": ("sd", "the standard deviation of the item's ratings (ddof 1)"),
    "n": ("n", "the number of ratings the score is the mean of"),
    "ci_low": ("ci_low", "lower end of the score's Student's t interval"),
    "ci_high": ("ci_high", "upper end of the score's Student's t interval"),
    "rank": ("rank", "the item's rank by score, 1 the most similar (ties share the average rank)"),
}
WORD_COLUMNS = {
    "word1": "the first word",
    "word2": "the second word",
    "context": "which of the pair's two contexts the score is for (1 or 2)",
    "context_text": "the context the raters read",
}
COMPARISON_COLUMNS = {
    "target": "the target word",
    "w1": "the candidate said to be more similar to the target",
    "w2": "the candidate said to be less similar",
    "type": "what the comparison is: positive (two graded candidates), distractor (a candidate against a distractor) "
    "or random (a candidate against a random word)",
    "r": "the comparison's weight: the share of raters who agree with it",
    "n_raters": "the raters the weight is the share of",
    "tie_to_w1": "whether a tie was counted towards w1",
    "set": "the comparison set",
}
CROISSANT_CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


@dataclass
class Release:
    """One dataset's release: file name -> bytes (in the order the card lists them), and what a
    reader should be warned about (a missing licence, pairs gensim's format cannot hold)."""

    name: str
    files: dict[str, bytes] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


# -------------------------------------------------------------------------------- the tables


def gold_table(kind: str, items: pd.DataFrame, gold: pd.DataFrame) -> pd.DataFrame:
    """One row per gold item: ``item_id``, the words (and context for a two-context dataset), the
    gold columns (``GOLD_COLUMNS``) and the item's attributes that have a value; in item order.

    Examples
    --------
    >>> items = pd.DataFrame({"item_id": ["d:1", "d:2"], "word1": ["NA", "cat"], "word2": ["null", "dog"],
    ...                       "pos": [None, None], "occurrence": [1, 1]})
    >>> gold = pd.DataFrame({"item_id": ["d:2", "d:1"], "mean": [4.5, 1.0], "sd": [0.5, 0.0], "n": [2, 2],
    ...                      "ci_low": [0.0, 1.0], "ci_high": [9.0, 1.0], "rank": [1.0, 2.0]})
    >>> gold_table("ratings", items, gold)[["item_id", "word1", "word2", "score", "n"]]
      item_id word1 word2  score  n
    0     d:1    NA  null    1.0  2
    1     d:2   cat   dog    4.5  2
    """
    words = ["word1", "word2"] + (["context", "context_text"] if kind == "contexts" else [])
    standard = {"dataset", "item_id", "language", "source_item_id", "occurrence", "source_file", "source_row"}
    standard |= set(WORD_COLUMNS)
    attributes = [c for c in items.columns if c not in standard and items[c].notna().any()]
    g = gold.set_index("item_id")
    out = items[["item_id", *words, *attributes]].copy()
    for column, (source, _) in GOLD_COLUMNS.items():
        out[column] = out["item_id"].map(g[source]).to_numpy()
    out["n"] = out["n"].astype("Int64")
    if kind == "contexts":
        out["context"] = out["context"].astype("Int64")
    out = out[["item_id", *words, *GOLD_COLUMNS, *attributes]]
    return out.sort_values("item_id", kind="stable").reset_index(drop=True)


def comparisons_table(comparisons: pd.DataFrame) -> pd.DataFrame:
    """The A&G comparisons with their weights, sorted by target and candidates."""
    out = comparisons[[c for c in COMPARISON_COLUMNS if c in comparisons.columns]]
    return out.sort_values(["target", "w1", "w2"], kind="stable").reset_index(drop=True)


def parquet_bytes(frame: pd.DataFrame, table: str, provenance: dict | None = None) -> bytes:
    """A table as Parquet, typed as every results table is (``simgold.io.tables.to_arrow``: a
    missing value is null), with the job's ``provenance`` in its metadata as every results table
    has it (docs/methods.md section 10); nothing that could vary between two runs."""
    arrow = to_arrow(frame)
    meta = {"simgold": json.dumps({"table": table, **(provenance or {})}, sort_keys=True, ensure_ascii=False)}
    sink = io.BytesIO()
    pq.write_table(arrow.replace_schema_metadata(meta), sink, compression="zstd")
    return sink.getvalue()


# -------------------------------------------------------------------------------- rows and columns

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
    "extra_fields": "on a row with more fields than the header",
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


def scored_only(
    table: pd.DataFrame, items: pd.DataFrame, rejects: pd.DataFrame | None = None,
    repeats: pd.DataFrame | None = None, scale=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """The release table without its items that have no score (every rating of them set aside),
    and those items (``item_id``, the words, ``why``: the ledger's reasons for the cells of their
    rows, the rows a pair repeats on included, from ``repeats``).

    Examples
    --------
    >>> table = pd.DataFrame({"item_id": ["d:1", "d:2"], "word1": ["big", "sun"], "word2": ["large", "moon"],
    ...                       "score": [np.nan, 2.5]})
    >>> items = pd.DataFrame({"item_id": ["d:1", "d:2"], "source_file": "f.tsv", "source_row": [2, 3]})
    >>> rejects = pd.DataFrame({"source_file": "f.tsv", "source_row": [2, 2, 9], "reason": "duplicate"})
    >>> repeats = pd.DataFrame({"item_id": "d:1", "source_file": "f.tsv", "source_row": [2, 9]})
    >>> kept, left_out = scored_only(table, items, rejects, repeats)
    >>> kept["item_id"].tolist(), left_out["why"].tolist()
    (['d:2'], ["no rating kept: 3 answers to a pair listed more than once (all of a rater's answers to it set aside)"])
    """
    missing = table["score"].isna()
    left_out = table.loc[missing, [c for c in ("item_id", "word1", "word2", "context") if c in table]].copy()
    rows = items[["item_id", "source_file", "source_row"]]
    if repeats is not None and len(repeats):
        rows = pd.concat([rows, repeats[["item_id", "source_file", "source_row"]]], ignore_index=True)
    rows = rows.drop_duplicates()
    why = []
    for item in left_out["item_id"]:
        counts: dict[str, int] = {}
        if rejects is not None and len(rejects):
            own = rows[rows["item_id"] == item].merge(rejects, on=["source_file", "source_row"])
            counts = own["reason"].value_counts().to_dict()
        text = answers_text(counts, scale)
        why.append(f"no rating kept: {text}" if text else "no rating kept")
    left_out["why"] = why
    return table[~missing].reset_index(drop=True), left_out.reset_index(drop=True)


def without_empty_columns(table: pd.DataFrame, keep: tuple[str, ...] = ("item_id", "word1", "word2", "score")):
    """The table without the columns that hold nothing (null or empty text in every row): a means
    dataset has no SD, n or per-item interval (``keep``: columns that stay even so).

    Examples
    --------
    >>> table = pd.DataFrame({"word1": ["a"], "word2": ["b"], "score": [1.0], "sd": [np.nan], "set": [""]})
    >>> list(without_empty_columns(table).columns)
    ['word1', 'word2', 'score']
    """
    empty = [c for c in table.columns if c not in keep and all(pd.isna(v) or v == "" for v in table[c])]
    return table.drop(columns=empty)


def column_types(table: pd.DataFrame) -> dict[str, tuple[str, str, str]]:
    """Each column's type as the card says it, as Croissant's ``dataType`` and as a Hugging Face
    ``Value`` dtype, all read from the Arrow schema the Parquet file is written with, so that they
    cannot disagree with the file.

    Examples
    --------
    >>> table = pd.DataFrame({"w": ["a"], "x": [0.5], "n": pd.array([3], "Int64"), "t": [True]})
    >>> column_types(table)
    {'w': ('Text', 'sc:Text', 'string'), 'x': ('Float', 'sc:Float', 'float64'), 'n': ('Integer', 'sc:Integer', 'int64'), 't': ('Boolean', 'sc:Boolean', 'bool')}
    """
    out = {}
    for f in to_arrow(table).schema:
        t = f.type
        if pa.types.is_floating(t):
            out[f.name] = ("Float", "sc:Float", {"double": "float64", "float": "float32"}.get(str(t), str(t)))
        elif pa.types.is_integer(t):
            out[f.name] = ("Integer", "sc:Integer", str(t))
        elif pa.types.is_boolean(t):
            out[f.name] = ("Boolean", "sc:Boolean", "bool")
        elif pa.types.is_string(t) or pa.types.is_large_string(t):
            out[f.name] = ("Text", "sc:Text", str(t))
        else:
            raise ValueError(f"release column {f.name!r}: no Croissant type for Arrow type {t}")
    return out


#: characters that end a line or a field in gensim's reader (str.splitlines, then a tab split)
BREAKS = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def gensim_text(table: pd.DataFrame, header: list[str]) -> tuple[bytes, dict[str, int], int]:
    """gensim's word-pair file (``word1<TAB>word2<TAB>score``) after ``#`` lines of ``header``;
    the pairs it leaves out, by reason: a word holding a tab or a line break cannot be written, an
    item without a score (every rating rejected) has nothing to write, and a pair whose two words
    both start with ``#`` would be a line gensim skips as a comment; and how many pairs are written
    the other way round (``word2<TAB>word1``) because only their first word starts with ``#``
    (gensim's similarity is symmetric, so its score is the same).

    Examples
    --------
    >>> table = pd.DataFrame({"word1": ["NA", "a\\tb", "x", "#a", "#b"], "word2": ["null", "c", "y", "z", "#c"],
    ...                       "score": [1.5, 2.0, np.nan, 3.0, 4.0]})
    >>> text, left_out, swapped = gensim_text(table, ["toy"])
    >>> text.decode().splitlines()[3:], left_out, swapped
    (['NA\\tnull\\t1.5', 'z\\t#a\\t3.0'], {'unwritable': 1, 'no score': 1, 'comment': 1}, 1)
    """
    lines = [f"# {line}" for text in header for line in text.splitlines()]
    kept = []
    left_out = {"unwritable": 0, "no score": 0, "comment": 0}
    swapped = 0
    for w1, w2, score in zip(table["word1"], table["word2"], table["score"]):
        w1, w2 = str(w1), str(w2)
        if any(ch in w for w in (w1, w2) for ch in BREAKS):
            left_out["unwritable"] += 1
        elif pd.isna(score):
            left_out["no score"] += 1
        elif w1.startswith("#") and w2.startswith("#"):
            left_out["comment"] += 1
        elif w1.startswith("#"):  # gensim skips a line that starts with '#'
            swapped += 1
            kept.append(f"{w2}\t{w1}\t{tsv_text(score)}")
        else:
            kept.append(f"{w1}\t{w2}\t{tsv_text(score)}")
    if sum(left_out.values()):
        lines.append(f"# left out: {left_out_text(left_out)}")
    if swapped:
        lines.append(f"# {_swapped_text(swapped)}")
    return ("\n".join(lines + kept) + "\n").encode("utf-8"), left_out, swapped


def _swapped_text(n: int) -> str:
    return (f"{n} pair{'s' * (n != 1)} written as word2, word1: gensim skips a line that starts with #, "
            "and the similarity of two words is the same either way round")  # fmt: skip


def left_out_text(left_out: dict[str, int]) -> str:
    words = {"unwritable": "whose word holds a tab or a line break", "no score": "without a score",
             "comment": "whose two words both start with # (gensim skips such a line as a comment)"}  # fmt: skip
    return "; ".join(f"{n} pair{'s' * (n != 1)} {words[k]}" for k, n in left_out.items() if n)


def size_category(n: int) -> str:
    """The Hugging Face size category of n rows.

    Examples
    --------
    >>> size_category(999), size_category(1000), size_category(3001)
    ('n<1K', '1K<n<10K', '1K<n<10K')
    """
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")]
    return next((label for bound, label in bounds if n < bound), "1M<n<10M")


# -------------------------------------------------------------------------------- the card


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table: numbers to 3 decimals, missing values empty, text as data
    (``simgold.report.markup.md_cell``: no cell can hold a link or HTML) unless it is ``Markdown``.

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


#: what the gold standard of each kind is, for a card whose authors gave no summary
KIND_TEXT = {
    "ratings": "per-rater similarity ratings of word pairs, averaged into one score per pair",
    "means": "one similarity score per word pair, as the raw files give it",
    "contexts": "similarity ratings of word pairs, each pair in two contexts",
    "rankings": "candidates ranked by their similarity to a target word",
    "comparisons": "weighted comparisons of which of two candidates is more similar to a target word",
}


def license_link(release: dict) -> str | None:
    """Where the release's licence is: ``license_url`` where given; else the SPDX page of a single
    SPDX id; none for an expression or a ``LicenseRef-`` id (the SPDX list has no page for it)."""
    license_ = release.get("license")
    if release.get("license_url"):
        return release["license_url"]
    if not license_ or " " in license_ or "LicenseRef-" in license_:
        return None
    return f"https://spdx.org/licenses/{license_}.html"


def pretty_name(name: str, ds: dict) -> str:
    """The card's title: the authors' (``release.card.pretty_name``), else the dataset and its language."""
    return ds["release"].get("card", {}).get("pretty_name") or f"{name} (word similarity, {ds['language']})"


def _front_matter(name: str, ds: dict, rows: int, configs: list[tuple[str, str, pd.DataFrame]]) -> str:
    """Hugging Face's YAML front matter, every value dumped by yaml.safe_dump (config text is data)."""
    meta: dict = {}
    license_, card = ds["release"].get("license"), ds["release"].get("card", {})
    if license_:
        if license_.lower() in HF_LICENSES:
            meta["license"] = license_.lower()
        else:
            meta["license"] = "other"
            meta["license_name"] = license_
            if link := license_link(ds["release"]):
                meta["license_link"] = link
    meta["language"] = [ds["language"]]
    meta["pretty_name"] = pretty_name(name, ds)
    meta["size_categories"] = [size_category(rows)]
    if card.get("task_categories"):
        meta["task_categories"] = list(card["task_categories"])
    meta["tags"] = list(dict.fromkeys(["word-similarity", "simgold", *card.get("tags", [])]))
    meta["configs"] = [
        {"config_name": config, "data_files": [{"split": "test", "path": path}]} for config, path, _ in configs
    ]
    # each column's type as the Parquet file has it: the Hub's viewer and `datasets` read these
    meta["dataset_info"] = [
        {
            "config_name": config,
            "features": [{"name": column, "dtype": types[2]} for column, types in column_types(table).items()],
            "splits": [{"name": "test", "num_examples": len(table)}],
        }
        for config, _, table in configs
    ]
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000) + "---\n"


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


def audit_counts(audit: pd.DataFrame, kind: str = "ratings", repeats: pd.DataFrame | None = None) -> pd.DataFrame:
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
    >>> audit_counts(audit, repeats=repeats).values.tolist()
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
        markdown_table(audit_counts(audit, kind, tables.get("repeats"))),
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
    if kind in ("ratings", "means"):
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
    if kind in ("ratings", "means", "contexts"):
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
    dataset, and the card links their scores (``scores.md``, beside it)."""
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
        ("Raters", _raters_section(tables, ds) if "gold" in tables else []),
        ("What was not kept", _ledger_section(tables["clean"].iloc[0], ds, tables.get("left_out")) if "clean" in tables
         else []),  # fmt: skip
        ("Agreement", _agreement_section(tables, confidence)),
        ("The gold standard", _gold_section(tables, ds, confidence) if "gold" in tables else []),
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


def _creator_text(creator) -> str:
    """A creator as data: the name escaped, linked to its checked URL, with its affiliation."""
    if isinstance(creator, str):
        return md_text(creator, line_start=False)
    name = creator["name"]
    text = md_link(name, creator["url"]) if creator.get("url") else md_text(name, line_start=False)
    return text + (f" ({md_text(creator['affiliation'], line_start=False)})" if creator.get("affiliation") else "")


# -------------------------------------------------------------------------------- Croissant

#: Croissant's Responsible AI fields -> the card's prose keys that fill them
RAI_FIELDS = {
    "rai:dataCollection": ["pairs"],
    "rai:dataAnnotationProtocol": ["instructions", "recruitment", "pay"],
    "rai:annotatorDemographics": ["demographics"],
    "rai:dataUseCases": ["intended_use"],
    "rai:dataLimitations": ["limitations"],
}


def croissant(
    name: str, ds: dict, record_sets: list[tuple[str, str, pd.DataFrame, dict]], files: dict[str, bytes], date: str
) -> dict:
    """Croissant 1.0 metadata: each Parquet file a FileObject with its SHA-256, and one RecordSet per
    file whose fields are its columns (``record_sets``: record set id, file, table, descriptions);
    ``date``: the publication date (``archive.date``)."""
    release = ds["release"]
    card = release.get("card", {})
    summary = md_prose(card["summary"]) if card.get("summary") else (
        f"A word-similarity gold standard in {ds['language']}: {KIND_TEXT.get(ds['kind'], ds['kind'])}."
        + (f" About the raw files: {ds['description']}" if ds.get("description") else "")
    )  # fmt: skip
    meta: dict = {
        "@context": CROISSANT_CONTEXT,
        "@type": "sc:Dataset",
        "name": name,
        "alternateName": pretty_name(name, ds),
        "description": summary,
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "version": release["version"],
        "datePublished": date,
        "inLanguage": [ds["language"]],
        "keywords": list(dict.fromkeys(["word similarity", "gold standard", *card.get("tags", []),
                                        *card.get("task_categories", [])])),  # fmt: skip
    }
    if release.get("license"):
        meta["license"] = license_link(release) or release["license"]
    if release.get("citation"):
        meta["citeAs"] = release["citation"]
    if release.get("homepage"):
        meta["url"] = release["homepage"]
    # the authors' prose where Croissant's Responsible AI vocabulary has a field for it
    for field_, keys in RAI_FIELDS.items():
        if texts := [f"{CARD_PROSE[k]}: {md_prose(card[k])}" if len(keys) > 1 else md_prose(card[k])
                     for k in keys if card.get(k)]:  # fmt: skip
            meta[field_] = texts[0] if field_ == "rai:dataCollection" else texts
    creators = []
    for c in release.get("creators", []):
        c = {"name": c} if isinstance(c, str) else c
        kind = "sc:Organization" if c.get("type") == "organization" else "sc:Person"  # a name alone: a person
        creators.append({"@type": kind, **{k: v for k, v in c.items() if k != "type"}})
    if creators:
        meta["creator"] = creators
    meta["distribution"] = [
        {
            "@type": "cr:FileObject",
            "@id": file,
            "name": file,
            "contentUrl": file,
            "encodingFormat": "application/x-parquet",
            "sha256": sha256_bytes(files[file]),
        }
        for _, file, _, _ in record_sets
    ]
    meta["recordSet"] = [
        {
            "@type": "cr:RecordSet",
            "@id": record_set,
            "name": record_set,
            "field": [
                {
                    "@type": "cr:Field",
                    "@id": f"{record_set}/{column}",
                    "name": column,
                    "description": descriptions.get(column, f"the item attribute {column}"),
                    "dataType": types[1],  # the Parquet file's type
                    "source": {"fileObject": {"@id": file}, "extract": {"column": column}},
                }
                for column, types in column_types(table).items()
            ],
        }
        for record_set, file, table, descriptions in record_sets
    ]
    return meta


# -------------------------------------------------------------------------------- the release


def column_descriptions(kind: str, scale) -> dict[str, str]:
    """What each column of a release table is."""
    out = {"item_id": "the item's id in the study's tables (dataset:row of first appearance)"}
    out.update(WORD_COLUMNS)
    out.update({column: text for column, (_, text) in GOLD_COLUMNS.items()})
    out.update(COMPARISON_COLUMNS)
    out.update({"pos": "part of speech", "relation": "the relation of the two words", "category": "the category"})
    if kind == "rankings":
        out["word1"], out["word2"] = "the target word", "a candidate ranked against the target's other candidates"
        out["score"] = "the candidate's mean rank among the target's candidates (lower = more similar)"
        out["rank"] = "the candidate's rank by mean rank, 1 the most similar"
    elif scale is not None:
        out["score"] += f" ({scale[0]:g} to {scale[1]:g})"
    return out


def release(
    name: str,
    ds: dict,
    tables: dict,
    sources: list[dict],
    *,
    confidence: float,
    made_with: str,
    date: str,
    provenance: dict | None = None,
    scored: bool = False,
) -> Release:
    """The release of one dataset: the data files its kind has (``simgold.io.paths.RELEASE_DATA``),
    the card and the Croissant metadata.

    Parameters
    ----------
    name : str
        The dataset.
    ds : dict
        Its resolved config (``simgold.io.config.check_dataset``): kind, scale, ``release`` (licence,
        citation, creators, version, homepage), ...
    tables : dict
        The run's tables of the dataset, by name: ``items``, ``gold``, ``distribution``, ``clean``
        (its cleaning summary), ``audit``, ``rejects`` and ``repeats`` (the cleaning's ledger and
        repeated answers: why an item has no score, who stopped early, which pair a repeated row
        holds), and where the dataset has them ``agreement``, ``agreement_ci``, ``raters``,
        ``calibration``, ``reliability``, ``retest``, ``comparisons`` (released for rankings and
        comparisons datasets only: a ratings dataset's gold standard is its scores).
    sources : list of dict
        The raw files (``path``, ``sha256``, ``size``), as ``simgold.report.archive.input_records``.
    confidence : float
        The level of the per-item CIs.
    made_with : str
        What made it (``simgold 0.1.0``).
    date : str
        The publication date, YYYY-MM-DD (``archive.date``: fixed, so the bytes are too).
    provenance : dict, optional
        The job's provenance, in the Parquet files' metadata (``simgold.workflow.job.provenance_for``).
    scored : bool, default False
        The run's models score the dataset: the card lists and links their scores, ``scores.md``
        beside it (``scores_card``, written by a job of its own).

    Returns
    -------
    Release
        The files, and the warnings for the log.
    """
    kind, out = ds["kind"], Release(name)
    descriptions = column_descriptions(kind, ds.get("scale"))
    listed: list[tuple[str, str, int]] = []
    record_sets: list[tuple[str, str, pd.DataFrame, dict]] = []
    configs: list[tuple[str, str, pd.DataFrame]] = []
    main = None
    file_notes: list[str] = []
    if "gold" in tables:
        main = gold_table(kind, tables["items"], tables["gold"])
        main, left_out = scored_only(
            main, tables["items"], tables.get("rejects"), tables.get("repeats"), ds.get("scale")
        )
        main = without_empty_columns(main)  # a means dataset has no SD, n or interval per item
        if len(left_out):
            out.warnings.append(f"{name}: {len(left_out)} item(s) without a score left out of the release (the card "
                                f"says why): {', '.join(left_out['word1'] + '/' + left_out['word2'])}")  # fmt: skip
        # the card counts and describes what is released: the items with a score
        tables = {**tables, "gold": tables["gold"][tables["gold"]["item_id"].isin(main["item_id"])],
                  "left_out": left_out}  # fmt: skip
        out.files[f"{name}.parquet"] = parquet_bytes(main, "release", provenance)
        out.files[f"{name}.tsv"] = tsv_bytes(main)
        what = {"contexts": "one row per pair and context", "rankings": "one row per target and candidate"}
        shape = what.get(kind, "one row per pair")
        listed += [(f"{name}.parquet", f"the gold standard, {shape} (typed)", len(main)),
                   (f"{name}.tsv", "the same table as UTF-8 text", len(main))]  # fmt: skip
        record_sets.append(("gold", f"{name}.parquet", main, descriptions))
        configs.append(("default", f"{name}.parquet", main))
        if kind in ("ratings", "means"):
            header = [
                f"{name}: {pretty_name(name, ds)}",
                f"version {ds['release']['version']}; licence {ds['release'].get('license') or 'none given'}",
                f"word1<TAB>word2<TAB>score (the mean rating{_scale_text(ds)}); made with {made_with}",
            ]
            text, left_out, swapped = gensim_text(main, header)
            out.files[f"{name}.txt"] = text
            what = "word1, word2, score for gensim's evaluate_word_pairs"
            if sum(left_out.values()):
                what += f" (left out: {left_out_text(left_out)})"
                out.warnings.append(f"{name}.txt: left out {left_out_text(left_out)}")
            if swapped:
                file_notes.append(f"In `{name}.txt`, {_swapped_text(swapped)}.")
            listed.append((f"{name}.txt", what, len(main) - sum(left_out.values())))
    if kind in ("rankings", "comparisons"):  # a ratings dataset's comparisons stay in the run's results
        given = tables.get("comparisons")
        comparisons = comparisons_table(given if given is not None else pd.DataFrame(columns=list(COMPARISON_COLUMNS)))
        comparisons = without_empty_columns(comparisons, keep=("target", "w1", "w2", "r"))
        stem = name if main is None else f"{name}.comparisons"
        out.files[f"{stem}.parquet"] = parquet_bytes(comparisons, "release_comparisons", provenance)
        out.files[f"{stem}.tsv"] = tsv_bytes(comparisons)
        listed += [(f"{stem}.parquet", "the A&G comparisons with their weights (typed)", len(comparisons)),
                   (f"{stem}.tsv", "the same table as UTF-8 text", len(comparisons))]  # fmt: skip
        record_sets.append(("comparisons", f"{stem}.parquet", comparisons, descriptions))
        configs.append(("default" if main is None else "comparisons", f"{stem}.parquet", comparisons))
    if not ds.get("redistribute", True):
        out.warnings.append(f"{name}: its raw files may not be redistributed; the release derives from them")
    if not ds["release"].get("license"):
        out.warnings.append(f"{name}: no release licence (release: {{license: ...}} in the config); the card says so")
    elif "LicenseRef-" in ds["release"]["license"] and not ds["release"].get("license_url"):
        out.warnings.append(
            f"{name}: the licence {ds['release']['license']} is not on the SPDX list and release.license_url does not "
            "say where its text is: the card and Croissant name it without a link"
        )
    file_notes += [note for _, file, table, _ in record_sets if (note := _formula_note(file, table))]
    rows = len(main) if main is not None else len(record_sets[0][2]) if record_sets else 0
    columns = pd.DataFrame(
        [(f"{file} ({record_set})" if i == 0 else "", column, types[0], descriptions.get(column, ""))
         for record_set, file, table, _ in record_sets
         for i, (column, types) in enumerate(column_types(table).items())],  # fmt: skip
        columns=["table", "column", "type", "description"],
    )
    listed += [("README.md", "this card", 0), ("croissant.json", "Croissant 1.0 metadata of the Parquet files", 0)]
    if scored:
        listed.append(("scores.md", "the scores of the run's models, with their CIs", 0))
    card = dataset_card(
        name, ds, tables, [(f, w, n) if n else (f, w, "") for f, w, n in listed], columns, sources,
        confidence=confidence, made_with=made_with, front_matter=_front_matter(name, ds, rows, configs),
        file_notes=file_notes, scored=scored,
    )  # fmt: skip
    out.files["README.md"] = card.encode("utf-8")
    metadata = croissant(name, ds, record_sets, out.files, date)
    out.files["croissant.json"] = (json.dumps(metadata, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    return out


def _formula_note(file: str, table: pd.DataFrame) -> str:
    """The card's note on the cells of a table's text columns that a spreadsheet would run as a
    formula (the TSV beside ``file`` holds them as written), or '' where there are none."""
    text_columns = [c for c, types in column_types(table).items() if c != "item_id" and types[1] == "sc:Text"]
    counts = formula_cells(table, text_columns)
    if not counts:
        return ""
    tsv = file.removesuffix(".parquet") + ".tsv"
    named = "; ".join(
        f"{column} {n} (e.g. " + ", ".join(md_code(v) for v in _formula_examples(table, column)) + ")"
        for column, n in counts.items()
    )
    total = sum(counts.values())
    return (
        f"{total} cell{'s' * (total != 1)} of `{tsv}` start{'s' * (total == 1)} with a character a spreadsheet takes "
        f"for a formula (`=`, `+`, `-`, `@`, a tab or a carriage return): {named}. They are data, kept as written: import the TSV with every column as "
        "text rather than opening it, or read it with pandas."
    )


def _formula_examples(table: pd.DataFrame, column: str, k: int = 3) -> list[str]:
    values = [v for v in table[column] if isinstance(v, str) and v.startswith(FORMULA_START)]
    return list(dict.fromkeys(values))[:k]


def _scale_text(ds: dict) -> str:
    return f", {ds['scale'][0]:g} to {ds['scale'][1]:g}" if "scale" in ds else ""


# -------------------------------------------------------------------------------- the run's scores


def model_text(model: dict) -> str:
    """What a model is, in a table: its config's description, else its package or file."""
    return model.get("description") or model.get("package") or model.get("path", "")


def scores_card(name: str, scores: pd.DataFrame, msd: pd.DataFrame, models: dict[str, dict]) -> str:
    """``scores.md``, beside a release's card: the run's models on the dataset, each metric with its
    bootstrap CI, the items scored and the OOV share; the human ceiling (the raters kept, each
    against the others' means: what a model could hope to reach) as the baseline row, the share of
    raters below each model; the A&G score over all comparisons and per type; the minimum
    significant Spearman difference; what each model is.

    Parameters
    ----------
    name : str
        The dataset.
    scores : pandas.DataFrame
        The scores tables of every model on it (``results/scores/{dataset}/{model}/scores.parquet``).
    msd : pandas.DataFrame
        Its minimum significant difference table (``results/scores/{dataset}/msd.parquet``).
    models : dict
        The models' config entries, by name (their descriptions).

    Returns
    -------
    str
        The Markdown file.
    """
    scores = scores[scores["subset"].astype(str).str.len() > 0]
    level = confidence_label(float(scores["confidence"].dropna().iloc[0])) if scores["confidence"].notna().any() else ""
    extra = scores.pivot_table(index="model", columns="metric", values="value", aggfunc="first", dropna=False)
    cell = lambda v: "" if pd.isna(v) else f"{v:.3f}"  # noqa: E731
    ci = interval_text
    lines = [f"# {name}: the run's model scores", ""]
    lines += [
        f"The models of the run that made this release, scored on it by simgold: each metric with its {level} "
        "percentile bootstrap interval (resampling the items, or the comparisons), how many it scored, and the share "
        "of pairs with a word the model does not have (not scored). The dataset card (README.md) says how to score "
        "another model the same way.",
        "",
    ]
    correlations = scores[scores["metric"].isin(["spearman", "pearson", "kendall"]) & (scores["subset"] == "all")]
    if len(correlations):
        rows = []
        for model in sorted(correlations["model"].unique()):
            own = correlations[correlations["model"] == model].set_index("metric")
            row = {"model": model}
            for metric in ("spearman", "pearson", "kendall"):
                r = own.loc[metric] if metric in own.index else None
                row[metric.capitalize()] = (
                    "" if r is None else f"{cell(r['value'])} {ci(r['ci_low'], r['ci_high'])}".strip()
                )
            first = own.iloc[0]
            row["pairs scored"] = f"{int(first['n_used']):,} of {int(first['n_total']):,}"
            row["OOV pairs"] = f"{extra.loc[model, 'oov_pairs']:.1%}" if "oov_pairs" in extra else ""
            below = extra.loc[model, "raters_below"] if "raters_below" in extra else np.nan
            row["raters below"] = "" if pd.isna(below) else f"{below:.0%}"
            rows.append(row)
        ceiling = extra["human_ceiling"].dropna() if "human_ceiling" in extra else pd.Series(dtype=float)
        if len(ceiling):
            rows.append({"model": "human ceiling (baseline)", "Spearman": cell(ceiling.iloc[0])})
        table = pd.DataFrame(rows).fillna("")
        table = table[[c for c in table.columns if (table[c] != "").any()]]  # a metric no model has
        lines += ["## Correlation with the gold standard", "", markdown_table(table), ""]
        notes = []
        if len(ceiling):
            notes.append(
                "The human ceiling is the mean Spearman of each rater kept with the other raters' means: a model that "
                "reaches it agrees with the raters as well as one of them does. `raters below`: the share of those "
                "raters whose Spearman is below the model's."
            )
        spearman_rows = correlations[correlations["metric"] == "spearman"]
        if len(msd) and len(spearman_rows):
            value = with_msd(spearman_rows, msd)["msd"].dropna()
            if len(value):
                notes.append(
                    f"Minimum significant difference (Williams' test, p < 0.05): two models whose Spearman differ by "
                    f"less than {value.iloc[0]:.3f} here are not shown to differ."
                )
        for note in notes:
            lines += [note, ""]
    ag = scores[scores["metric"] == "ag_score"]
    if len(ag):
        view = pd.DataFrame(
            {
                "model": ag["model"],
                "comparisons": [s.split("=", 1)[1] if "=" in s else s for s in ag["subset"]],
                "A&G score": [
                    f"{cell(v)} {ci(lo, hi)}".strip() for v, lo, hi in zip(ag["value"], ag["ci_low"], ag["ci_high"])
                ],
                "scored": [
                    f"{int(u):,} of {int(t):,}" + (" (few)" if u < MIN_COMPARISONS else "")
                    for u, t in zip(ag["n_used"], ag["n_total"])
                ],
            }
        ).sort_values(["model", "comparisons"], kind="stable")
        lines += [
            "## A&G score (Avraham & Goldberg 2016)",
            "",
            "The weighted share of the comparisons (which of two words is more similar to a target) the model orders as "
            f"the raters did, over all comparisons and per type; (few): {FEW_COMPARISONS}, too few to quote.",
            "",
            markdown_table(view),
            "",
        ]
    described = [(m, model_text(models.get(m) or {})) for m in sorted(scores["model"].unique())]
    lines += ["## The models", "", markdown_table(pd.DataFrame(described, columns=["model", "what it is"]))]
    return "\n".join(lines).rstrip() + "\n"


# -------------------------------------------------------------------------------- the archive's README


def study_readme(config: dict, files: dict[str, bytes], made_with: str) -> str:
    """The README.md at the top of a paper-submission archive: the study, from the config and the
    results the archive holds (``files``: its members, name -> bytes): each dataset with its card's
    key figures and its release, the models, the headline table, and how to verify and rebuild.
    ``made_with``: what made it (``simgold 0.1.0``)."""
    arch = config["archive"]
    lines = [f"# {md_text(arch['title'])}", "", md_prose(arch["description"]), "",
             f"Published {arch['date']}; this archive is `{arch['name']}`, made by {made_with}.", ""]  # fmt: skip
    clean = _table(files, result("clean_summary"))
    rows = []
    for name, ds in sorted(config["datasets"].items()):
        summary = clean[clean["dataset"] == name] if clean is not None else pd.DataFrame()
        agreement = _table(files, result("agreement", dataset=name))
        kept = (
            agreement[(agreement["stage"] == "filtered") & (agreement["subset"] == "all")]
            if agreement is not None
            else []
        )
        card = result("release_card", dataset=name)
        rows.append(
            {
                "dataset": name,
                "language": ds.get("language", ""),
                "kind": ds.get("kind", ""),
                "items": int(summary["n_items"].iloc[0]) if len(summary) else "",
                "raters": int(summary["n_raters"].iloc[0]) if len(summary) and summary["n_raters"].iloc[0] else "",
                "alpha (kept raters)": float(kept["alpha_interval"].iloc[0]) if len(kept) else np.nan,
                "licence": ds.get("release", {}).get("license") or "none given",
                "card": Markdown(f"[{card}]({card})") if card in files else "",
            }
        )
    if rows:
        lines += ["## Datasets", "", "Each released with its dataset card, data files and Croissant metadata:", "",
                  markdown_table(pd.DataFrame(rows)), ""]  # fmt: skip
    models = [
        {"model": name, "what": model_text(m),
         "languages": ", ".join(model_languages(m)) if m.get("language") else ""}  # fmt: skip
        for name, m in sorted(config.get("models", {}).items())
    ]
    if models:
        lines += ["## Models", "", markdown_table(pd.DataFrame(models)), ""]
    leaderboard = files.get(result("leaderboard_md"))
    if leaderboard is not None:  # the run's own leaderboard (simgold.report.leaderboard), as it wrote it
        lines += ["## Results", "", leaderboard.decode("utf-8").rstrip(), "",
                  "Every figure is in `results/`, the report in `results/report/index.html`.", ""]  # fmt: skip
    lines += [
        "## Verify and rebuild",
        "",
        "`MANIFEST` lists every file with its SHA-256; `inputs/EXTERNAL.tsv` the raw inputs kept outside the archive "
        "(their checksum, licence and source). With simgold installed (`pip install -e .` here; the versions that "
        "ran are in `environment/requirements.lock.txt`):",
        "",
        "```bash\nsimgold verify .    # every file against the MANIFEST\n"
        "simgold rebuild .   # the pipeline again in rebuild/, every result compared byte for byte\n```",
        "",
        "`ro-crate-metadata.json` describes the run (RO-Crate 1.1); `SIMGOLD-README.md` is the manual of the "
        "simgold version that made it.",
    ]
    return "\n".join(lines) + "\n"


def _table(files: dict[str, bytes], rel: str) -> pd.DataFrame | None:
    return pd.read_parquet(io.BytesIO(files[rel])) if rel in files else None
