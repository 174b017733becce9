"""Similarity of two words in their context (docs/methods.md section 7): where the target words
are in a context paragraph, and the cosine of their vectors in it from a contextual model
(``simgold.minilm``)."""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import pandas as pd

from .scoring import PREDICTION_COLUMNS


class PredictionRow(NamedTuple):
    """One row of the predictions table, by name (its fields are the table's columns, in order)."""

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
        row = PredictionRow(dataset, model, it.item_id, it.word1, it.word2, sim, bool(missing), ";".join(missing))
        rows.append(row)
    return pd.DataFrame(rows, columns=list(PREDICTION_COLUMNS))
