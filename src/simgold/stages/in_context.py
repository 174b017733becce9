"""The similarity of two words in their context (docs/methods.md section 8): for a contextual model
on a two-context dataset, the cosine of the two target words' vectors in each item's context
paragraph (the vectors from ``simgold.io.minilm``), as a predictions table of the scores stage.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa

from simgold.io.embeddings import cosine
from simgold.io.tables import TABLES
from simgold.stages.scores import PREDICTION_COLUMNS

__all__ = [
    "CONTEXT_VECTOR_COLUMNS",
    "PredictionRow",
    "context_predictions",
    "context_vector_types",
    "in_context_predictions",
    "in_context_vectors",
    "target_spans",
]


class PredictionRow(NamedTuple):
    """One row of the predictions table, by name (its fields are the table's columns, in order).

    Attributes
    ----------
    fields : str, int, float
        The table's columns, in order, as declared below.
    """

    dataset: str
    model: str
    item_id: str
    word1: str
    word2: str
    sim: float
    oov: bool
    oov_words: str


_TAG = re.compile(r"</?strong>", re.IGNORECASE)


def target_spans(text: str, forms: list[str]) -> tuple[str, list[tuple[int, int] | None]]:
    """The plain text and the character span of each target form in it.

    CoSimLex marks the targets with ``<strong>...</strong>``: the marked segments are used first,
    matched to the forms case-insensitively; otherwise the first whole-word occurrence counts.

    Parameters
    ----------
    text : str
        The context paragraph.
    forms : list[str]
        The target forms to find.

    Returns
    -------
    tuple[str, list[tuple[int, int] | None]]
        The text without its tags, and per form its (start, end) character offsets in that text
        (None where the form is not found).
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


CONTEXT_VECTOR_COLUMNS = TABLES["context_vectors"].names


def in_context_vectors(
    dataset: str,
    model: str,
    items: pd.DataFrame,
    encoder,
    form_columns=("word1_form", "word2_form"),
    store=None,
    log=None,
) -> pd.DataFrame:
    """Each item's two target words' vectors in its context (``vector1``, ``vector2``, float64);
    every context is encoded in one batched call (through the vector ``store`` when given; progress
    to ``log``). ``missing``: the forms not found in the context (their item has no vectors).

    Parameters
    ----------
    dataset : str
        The dataset's name.
    model : str
        The model's name.
    items : pd.DataFrame
        The items table (``item_id``, ``word1``, ``word2``, ...).
    encoder : object
        The contextual model (``simgold.io.minilm``).
    form_columns : object
        The item columns with the two words as they appear in the context.
    store : object
        The vector store (None: none).
    log : object
        Where progress lines go (None: nowhere).

    Returns
    -------
    pd.DataFrame
        One row per item: ``CONTEXT_VECTOR_COLUMNS`` (with ``missing``, the forms not found,
        ``;``-joined) and ``vector1``, ``vector2`` (float64 arrays, None when a form is missing).
    """
    located = []
    for it in items.itertuples(index=False):
        forms = [getattr(it, c, None) or w for c, w in zip(form_columns, (it.word1, it.word2))]
        clean, spans = target_spans(it.context_text, forms) if it.context_text else ("", [None, None])
        located.append((it, clean, spans, [f for f, s in zip(forms, spans) if s is None]))
    wanted = [(clean, spans) for _, clean, spans, missing in located if not missing]
    vectors = iter(encoder.in_context_many(wanted, store=store, log=log))
    rows = []
    for it, _, _, missing in located:
        v1 = v2 = None
        if not missing:
            v1, v2 = next(vectors)
        rows.append((dataset, model, it.item_id, it.word1, it.word2, ";".join(missing), v1, v2))
    return pd.DataFrame(rows, columns=[*CONTEXT_VECTOR_COLUMNS, "vector1", "vector2"])


def context_vector_types(table: pd.DataFrame) -> dict:
    """The Parquet types of the vector columns: fixed-size float64 lists (the model's own precision).

    Parameters
    ----------
    table : pd.DataFrame
        The in-context vectors table (``vector1``, ``vector2`` per item; None where missing).

    Returns
    -------
    dict
        ``vector1`` and ``vector2`` -> their pyarrow type: a float64 list of the vectors' length
        (variable-size when no row has a vector).
    """
    dim = next((len(v) for v in table["vector1"] if v is not None), 0)
    return {c: pa.list_(pa.float64(), dim) if dim else pa.list_(pa.float64()) for c in ("vector1", "vector2")}


def context_predictions(table: pd.DataFrame) -> pd.DataFrame:
    """Cosine similarity of each item's two in-context vectors (from :func:`in_context_vectors`).

    Parameters
    ----------
    table : pd.DataFrame
        The in-context vectors table of :func:`in_context_vectors`.

    Returns
    -------
    pd.DataFrame
        The predictions table (``PREDICTION_COLUMNS``): ``sim`` the cosine (NaN where a vector is
        missing), ``oov`` and ``oov_words`` from ``missing``.
    """
    found = np.array([v1 is not None and v2 is not None for v1, v2 in zip(table["vector1"], table["vector2"])])
    sim = np.full(len(table), np.nan)
    if found.any():  # every row in one call; a fixed summation order (einsum, not BLAS): the same bits under any kernel
        sim[found] = cosine(np.stack(table["vector1"][found]), np.stack(table["vector2"][found]))
    missing = table["missing"].fillna("")
    return pd.DataFrame(
        {
            **{c: table[c] for c in ("dataset", "model", "item_id", "word1", "word2")},
            "sim": sim,
            "oov": missing != "",
            "oov_words": missing,
        }
    )[list(PREDICTION_COLUMNS)]


def in_context_predictions(dataset: str, model: str, items: pd.DataFrame, encoder, **options) -> pd.DataFrame:
    """Cosine similarity of the two target words' vectors in each item's context: the vectors of
    :func:`in_context_vectors` (``options``: its ``form_columns``, ``store`` and ``log``), then
    :func:`context_predictions`.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    model : str
        The model's name.
    items : pd.DataFrame
        The items table (``item_id``, ``word1``, ``word2``, ...).
    encoder : object
        The contextual model (``simgold.io.minilm``).
    **options
        Passed on to :func:`in_context_vectors`: ``form_columns``, ``store``, ``log``.

    Returns
    -------
    pd.DataFrame
        The predictions table (``PREDICTION_COLUMNS``), one row per item, as
        :func:`context_predictions` gives it.
    """
    return context_predictions(in_context_vectors(dataset, model, items, encoder, **options))
