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
  (ratings, means and BWS: not two-context datasets, whose pairs repeat with another context, nor
  rankings, whose score is a rank);
* ``{dataset}.comparisons.parquet`` / ``.tsv``: the A&G comparisons with their weights, where the
  dataset has them;
* ``{dataset}.answers.parquet`` / ``.tsv``: a Best-Worst Scaling dataset's answers, one row per answer
  and position (``simgold.report.bws_sections.answers_table``), from which its scores and a model's
  MaxDiff accuracy can be recomputed; its gold table holds both scores of each pair;
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
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from simgold.io.labels import confidence_label
from simgold.io.paths import RELEASE_DATA
from simgold.io.tables import to_arrow, tsv_bytes, tsv_text
from simgold.report.bws_sections import MAXDIFF_TEXT, answers_table, bws_descriptions, models_view, with_bws_scores
from simgold.report.card import answers_text, dataset_card, markdown_table
from simgold.report.frontmatter import column_types, pretty_name, yaml_front_matter
from simgold.report.croissant import croissant
from simgold.report.markup import FORMULA_START, formula_cells, md_code
from simgold.report.headline import FEW_COMPARISONS, MIN_COMPARISONS
from simgold.report.pages import interval_text
from simgold.stages.controls import scored
from simgold.stages.msd import with_msd

__all__ = ["Release", "release", "scores_card", "model_text", "GOLD_COLUMNS", "WORD_COLUMNS", "COMPARISON_COLUMNS"]

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


@dataclass
class Release:
    """One dataset's release: file name -> bytes (in the order the card lists them), and what a
    reader should be warned about (a missing licence, pairs gensim's format cannot hold).

    Attributes
    ----------
    name : str
        The dataset's name.
    files : dict[str, bytes]
        File name -> its bytes, in the card's order.
    warnings : list[str]
        Sentences for the reader (missing licence, pairs the gensim format cannot hold).
    """

    name: str
    files: dict[str, bytes] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


# -------------------------------------------------------------------------------- the tables


def _gold_table(kind: str, items: pd.DataFrame, gold: pd.DataFrame) -> pd.DataFrame:
    """One row per gold item: ``item_id``, the words (and context for a two-context dataset), the
    gold columns (``GOLD_COLUMNS``) and the item's attributes that have a value; in item order.

    Examples
    --------
    >>> items = pd.DataFrame({"item_id": ["d:1", "d:2"], "word1": ["NA", "cat"], "word2": ["null", "dog"],
    ...                       "pos": [None, None], "occurrence": [1, 1]})
    >>> gold = pd.DataFrame({"item_id": ["d:2", "d:1"], "mean": [4.5, 1.0], "sd": [0.5, 0.0], "n": [2, 2],
    ...                      "ci_low": [0.0, 1.0], "ci_high": [9.0, 1.0], "rank": [1.0, 2.0]})
    >>> _gold_table("ratings", items, gold)[["item_id", "word1", "word2", "score", "n"]]
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


def _comparisons_table(comparisons: pd.DataFrame) -> pd.DataFrame:
    """The A&G comparisons with their weights, sorted by target and candidates."""
    out = comparisons[[c for c in COMPARISON_COLUMNS if c in comparisons.columns]]
    return out.sort_values(["target", "w1", "w2"], kind="stable").reset_index(drop=True)


def _parquet_bytes(frame: pd.DataFrame, table: str, provenance: dict | None = None) -> bytes:
    """A table as Parquet, typed as every results table is (``simgold.io.tables.to_arrow``: a
    missing value is null), with the job's ``provenance`` in its metadata as every results table
    has it (docs/methods.md section 10); nothing that could vary between two runs."""
    arrow = to_arrow(frame)
    meta = {"simgold": json.dumps({"table": table, **(provenance or {})}, sort_keys=True, ensure_ascii=False)}
    sink = io.BytesIO()
    pq.write_table(arrow.replace_schema_metadata(meta), sink, compression="zstd")
    return sink.getvalue()


def _scored_only(
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
    >>> kept, left_out = _scored_only(table, items, rejects, repeats)
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


def _without_empty_columns(table: pd.DataFrame, keep: tuple[str, ...] = ("item_id", "word1", "word2", "score")):
    """The table without the columns that hold nothing (null or empty text in every row): a means
    dataset has no SD, n or per-item interval (``keep``: columns that stay even so).

    Examples
    --------
    >>> table = pd.DataFrame({"word1": ["a"], "word2": ["b"], "score": [1.0], "sd": [np.nan], "set": [""]})
    >>> list(_without_empty_columns(table).columns)
    ['word1', 'word2', 'score']
    """
    empty = [c for c in table.columns if c not in keep and all(pd.isna(v) or v == "" for v in table[c])]
    return table.drop(columns=empty)


#: characters that end a line or a field in gensim's reader (str.splitlines, then a tab split)
BREAKS = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _gensim_text(table: pd.DataFrame, header: list[str]) -> tuple[bytes, dict[str, int], int]:
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
    >>> text, left_out, swapped = _gensim_text(table, ["toy"])
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
        lines.append(f"# left out: {_left_out_text(left_out)}")
    if swapped:
        lines.append(f"# {_swapped_text(swapped)}")
    return ("\n".join(lines + kept) + "\n").encode("utf-8"), left_out, swapped


def _swapped_text(n: int) -> str:
    return (f"{n} pair{'s' * (n != 1)} written as word2, word1: gensim skips a line that starts with #, "
            "and the similarity of two words is the same either way round")  # fmt: skip


def _left_out_text(left_out: dict[str, int]) -> str:
    words = {"unwritable": "whose word holds a tab or a line break", "no score": "without a score",
             "comment": "whose two words both start with # (gensim skips such a line as a comment)"}  # fmt: skip
    return "; ".join(f"{n} pair{'s' * (n != 1)} {words[k]}" for k, n in left_out.items() if n)


# -------------------------------------------------------------------------------- the release


def _column_descriptions(kind: str, scale, bws: dict | None = None) -> dict[str, str]:
    """What each column of a release table is (``bws``: a BWS dataset's ``bws`` block)."""
    out = {"item_id": "the item's id in the study's tables (dataset:row of first appearance)"}
    out.update(WORD_COLUMNS)
    out.update({column: text for column, (_, text) in GOLD_COLUMNS.items()})
    out.update(COMPARISON_COLUMNS)
    out.update({"pos": "part of speech", "relation": "the relation of the two words", "category": "the category"})
    if kind == "rankings":
        out["word1"], out["word2"] = "the target word", "a candidate ranked against the target's other candidates"
        out["score"] = "the candidate's mean rank among the target's candidates (lower = more similar)"
        out["rank"] = "the candidate's rank by mean rank, 1 the most similar"
    elif kind == "bws":
        out.update(bws_descriptions(bws, scale))
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
    data = RELEASE_DATA[kind]  # the one list of a release's data files: what is written follows it
    descriptions = _column_descriptions(kind, ds.get("scale"), ds.get("bws"))
    parts = _Parts()
    main = None
    if "gold" in tables:
        main, tables = _gold_files(out, parts, name, ds, tables, descriptions, made_with, provenance)
    if ".comparisons.parquet" in data or main is None:  # a ratings dataset's stay in the run's results
        stem = name if main is None else f"{name}.comparisons"
        _comparison_files(out, parts, stem, tables.get("comparisons"), descriptions, provenance, main is None)
    if ".answers.parquet" in data:  # a BWS dataset's answers: its scores can be recomputed from them
        _answers_files(out, parts, name, tables, descriptions, provenance)
    if set(out.files) != {f"{name}{suffix}" for suffix in data}:
        raise AssertionError(f"{name}: the release wrote {sorted(out.files)}, RELEASE_DATA[{kind!r}] says {data}")
    out.warnings += _licence_warnings(name, ds)
    record_sets = parts.record_sets
    parts.file_notes += [note for _, file, table, _ in record_sets if (note := _formula_note(file, table))]
    rows = len(main) if main is not None else len(record_sets[0][2]) if record_sets else 0
    columns = pd.DataFrame(
        [(f"{file} ({record_set})" if i == 0 else "", column, types[0], descriptions.get(column, ""))
         for record_set, file, table, _ in record_sets
         for i, (column, types) in enumerate(column_types(table).items())],  # fmt: skip
        columns=["table", "column", "type", "description"],
    )
    listed = parts.listed
    listed += [("README.md", "this card", 0), ("croissant.json", "Croissant 1.0 metadata of the Parquet files", 0)]
    if scored:
        listed.append(("scores.md", "the scores of the run's models, with their CIs", 0))
    card = dataset_card(
        name, ds, tables, [(f, w, n) if n else (f, w, "") for f, w, n in listed], columns, sources,
        confidence=confidence, made_with=made_with, front_matter=yaml_front_matter(name, ds, rows, parts.configs),
        file_notes=parts.file_notes, scored=scored,
    )  # fmt: skip
    out.files["README.md"] = card.encode("utf-8")
    metadata = croissant(name, ds, record_sets, out.files, date)
    out.files["croissant.json"] = (json.dumps(metadata, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    return out


@dataclass
class _Parts:
    """What the card and the metadata say of a release's data files, gathered as they are written:
    (file, what it is, rows), Croissant's record sets, Hugging Face's configs, notes for the reader."""

    listed: list[tuple[str, str, int]] = field(default_factory=list)
    record_sets: list[tuple[str, str, pd.DataFrame, dict]] = field(default_factory=list)
    configs: list[tuple[str, str, pd.DataFrame]] = field(default_factory=list)
    file_notes: list[str] = field(default_factory=list)


def _gold_files(
    out: Release, parts: _Parts, name: str, ds: dict, tables: dict, descriptions: dict, made_with: str,
    provenance: dict | None,
) -> tuple[pd.DataFrame, dict]:  # fmt: skip
    """The gold standard's files (Parquet, TSV and, for a word-pair dataset, gensim's text), and the
    tables the card describes: only the items with a score, and those left out."""
    kind = ds["kind"]
    (items,) = scored(ds.get("anchors"), tables["items"])  # the anchors, unless in the gold standard, are not released
    main = _gold_table(kind, items, tables["gold"])
    main, left_out = _scored_only(main, tables["items"], tables.get("rejects"), tables.get("repeats"), ds.get("scale"))
    main = _without_empty_columns(main)  # a means dataset has no SD, n or interval per item
    if kind == "bws":  # both scores of each pair beside the gold's
        main = with_bws_scores(main, tables.get("bws_scores"))
    if len(left_out):
        out.warnings.append(f"{name}: {len(left_out)} item(s) without a score left out of the release (the card "
                            f"says why): {', '.join(left_out['word1'] + '/' + left_out['word2'])}")  # fmt: skip
    # the card counts and describes what is released: the items with a score
    tables = {**tables, "gold": tables["gold"][tables["gold"]["item_id"].isin(main["item_id"])],
              "left_out": left_out}  # fmt: skip
    out.files[f"{name}.parquet"] = _parquet_bytes(main, "release", provenance)
    out.files[f"{name}.tsv"] = tsv_bytes(main)
    what = {"contexts": "one row per pair and context", "rankings": "one row per target and candidate"}
    shape = what.get(kind, "one row per pair")
    parts.listed += [(f"{name}.parquet", f"the gold standard, {shape} (typed)", len(main)),
                     (f"{name}.tsv", "the same table as UTF-8 text", len(main))]  # fmt: skip
    parts.record_sets.append(("gold", f"{name}.parquet", main, descriptions))
    parts.configs.append(("default", f"{name}.parquet", main))
    if ".txt" in RELEASE_DATA[kind]:
        _gensim_file(out, parts, name, ds, main, made_with)
    return main, tables


def _gensim_file(out: Release, parts: _Parts, name: str, ds: dict, main: pd.DataFrame, made_with: str) -> None:
    """gensim's word-pair file of a ratings, means or BWS dataset, and what it leaves out."""
    score = (
        f"the BWS {(ds.get('bws') or {}).get('score', 'counting')} score" if ds["kind"] == "bws" else "the mean rating"
    )
    header = [
        f"{name}: {pretty_name(name, ds)}",
        f"version {ds['release']['version']}; licence {ds['release'].get('license') or 'none given'}",
        f"word1<TAB>word2<TAB>score ({score}{_scale_text(ds)}); made with {made_with}",
    ]
    text, left_out, swapped = _gensim_text(main, header)
    out.files[f"{name}.txt"] = text
    what = "word1, word2, score for gensim's evaluate_word_pairs"
    if sum(left_out.values()):
        what += f" (left out: {_left_out_text(left_out)})"
        out.warnings.append(f"{name}.txt: left out {_left_out_text(left_out)}")
    if swapped:
        parts.file_notes.append(f"In `{name}.txt`, {_swapped_text(swapped)}.")
    parts.listed.append((f"{name}.txt", what, len(main) - sum(left_out.values())))


def _comparison_files(
    out: Release, parts: _Parts, stem: str, given: pd.DataFrame | None, descriptions: dict,
    provenance: dict | None, alone: bool,
) -> None:  # fmt: skip
    """The A&G comparisons' files (``stem``: their name without the suffix); ``alone``: they are the
    dataset's only table (its default config)."""
    comparisons = _comparisons_table(given if given is not None else pd.DataFrame(columns=list(COMPARISON_COLUMNS)))
    comparisons = _without_empty_columns(comparisons, keep=("target", "w1", "w2", "r"))
    out.files[f"{stem}.parquet"] = _parquet_bytes(comparisons, "release_comparisons", provenance)
    out.files[f"{stem}.tsv"] = tsv_bytes(comparisons)
    parts.listed += [(f"{stem}.parquet", "the A&G comparisons with their weights (typed)", len(comparisons)),
                     (f"{stem}.tsv", "the same table as UTF-8 text", len(comparisons))]  # fmt: skip
    parts.record_sets.append(("comparisons", f"{stem}.parquet", comparisons, descriptions))
    parts.configs.append(("default" if alone else "comparisons", f"{stem}.parquet", comparisons))


def _answers_files(
    out: Release, parts: _Parts, name: str, tables: dict, descriptions: dict, provenance: dict | None
) -> None:
    """A BWS dataset's answers (one row per answer and position, with the pairs' words)."""
    given = tables.get("answers")
    if given is None:
        given = pd.DataFrame(columns=["answer", "tuple", "rater", "position", "item_id", "choice"])
    answers = answers_table(given, tables["items"])
    out.files[f"{name}.answers.parquet"] = _parquet_bytes(answers, "release_answers", provenance)
    out.files[f"{name}.answers.tsv"] = tsv_bytes(answers)
    n = answers["answer"].nunique()
    parts.listed += [(f"{name}.answers.parquet", f"the {n:,} answers the scores are computed from, one row per answer "
                      "and position: tuple, rater, pair, choice (typed)", len(answers)),
                     (f"{name}.answers.tsv", "the same table as UTF-8 text", len(answers))]  # fmt: skip
    parts.record_sets.append(("answers", f"{name}.answers.parquet", answers, descriptions))
    parts.configs.append(("answers", f"{name}.answers.parquet", answers))


def _licence_warnings(name: str, ds: dict) -> list[str]:
    """What a reader of the log should decide about the release's licence and its raw files."""
    warnings = []
    if not ds.get("redistribute", True):
        warnings.append(f"{name}: its raw files may not be redistributed; the release derives from them")
    if not ds["release"].get("license"):
        warnings.append(f"{name}: no release licence (release: {{license: ...}} in the config); the card says so")
    elif "LicenseRef-" in ds["release"]["license"] and not ds["release"].get("license_url"):
        warnings.append(
            f"{name}: the licence {ds['release']['license']} is not on the SPDX list and release.license_url does not "
            "say where its text is: the card and Croissant name it without a link"
        )
    return warnings


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
    """What a model is, in a table: its config's description, else its package or file.

    Parameters
    ----------
    model : dict
        The model's config block.

    Returns
    -------
    str
        Its ``description``, else its ``package``, else its ``path`` ("" with none).
    """
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
        spearman_rows = correlations[correlations["metric"] == "spearman"]
        msd_values = (
            with_msd(spearman_rows, msd)["msd"].dropna() if len(msd) and len(spearman_rows) else pd.Series(dtype=float)
        )
        lines += _correlation_section(correlations, extra, msd_values)
    lines += _ag_section(scores[scores["metric"] == "ag_score"])
    if scores["metric"].eq("maxdiff_accuracy").any():  # a BWS dataset: the models answer its tuples too
        lines += ["## MaxDiff accuracy", "", MAXDIFF_TEXT + ".", "", markdown_table(models_view(scores)), ""]
    described = [(m, model_text(models.get(m) or {})) for m in sorted(scores["model"].unique())]
    lines += ["## The models", "", markdown_table(pd.DataFrame(described, columns=["model", "what it is"]))]
    return "\n".join(lines).rstrip() + "\n"


def _correlation_section(correlations: pd.DataFrame, extra: pd.DataFrame, msd_values: pd.Series) -> list[str]:
    """``scores.md``'s correlations: each model's metrics with their CIs, the pairs it scored, its
    OOV share and the raters below it; the human ceiling as the baseline row; the minimum
    significant difference (``msd_values``: the MSD table's values for the models, maybe none)."""
    cell, ci = _cell, interval_text
    lines = []
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
    if len(msd_values):
        notes.append(
            f"Minimum significant difference (Williams' test, p < 0.05): two models whose Spearman differ by "
            f"less than {msd_values.iloc[0]:.3f} here are not shown to differ."
        )
    for note in notes:
        lines += [note, ""]
    return lines


def _ag_section(ag: pd.DataFrame) -> list[str]:
    """``scores.md``'s A&G scores, per model over all comparisons and per type, with their CIs."""
    cell, ci = _cell, interval_text
    if not len(ag):
        return []
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
    return [
        "## A&G score (Avraham & Goldberg 2016)",
        "",
        "The weighted share of the comparisons (which of two words is more similar to a target) the model orders as "
        f"the raters did, over all comparisons and per type; (few): {FEW_COMPARISONS}, too few to quote.",
        "",
        markdown_table(view),
        "",
    ]


def _cell(value) -> str:
    """A score to 3 decimals, or empty where there is none."""
    return "" if pd.isna(value) else f"{value:.3f}"
