"""A model's vectors looked up for scoring (docs/methods.md section 7): exact, then lower-cased when
the model allows it, with the model's OOV policy (``skip``, ``zero``, ``mean``, ``subword``).

A vector that is all zeros, or holds a value that is not finite as stored (float32: ``1e39`` is
finite in a text file and infinite in the table), has no direction to compare: its word is out of
vocabulary whichever reader kept it. The readers keep such a word in the embeddings table, with its
line, as the file holds it (``simgold.io.embeddings``); :class:`Vectors` leaves it out of the lookup
and names it (``unusable``, ``unusable_for``), and :func:`unusable_note` says it in the scores' notes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simgold.io.embeddings import cosine, coverage_warning, read_embeddings
from simgold.io.textvectors import LoadReport

__all__ = ["NOTE_WORDS", "Vectors", "log_load", "unusable_note"]

NOTE_WORDS = 5  # unusable words a score note names before it counts the rest


class Vectors:
    """Lookup of a model's kept vectors with its OOV policy. A vector that is all zeros or holds a
    value that is not finite as stored (``unusable``) makes its word out of vocabulary.

    Parameters
    ----------
    table : pd.DataFrame
        The embeddings table (``word``, ``vector``, ``source``; ``line`` where the file has one).
    lowercase : bool
        Whether lookup falls back to the lower-cased word.
    oov : str
        The OOV policy (``skip``, ``zero``, ``mean``, ``subword``).
    mean : np.ndarray | None
        The mean vector of the file (``oov: mean``).

    Examples
    --------
    >>> table = pd.DataFrame({"word": ["cat", "dog", "owl"], "source": "vocab", "line": [2, 5, 9],
    ...     "vector": [np.array(v, np.float32) for v in ([1, 0], [0, 0], [np.nan, 1])]})
    >>> vectors = Vectors(table, True, "skip")
    >>> vectors.unusable, vectors.find("Cat"), vectors.find("Dog")
    (['dog', 'owl'], 0, None)
    >>> vectors.unusable_for(["Dog", "owl", "eel"])
    [('dog', 5), ('owl', 9)]
    """

    def __init__(self, table: pd.DataFrame, lowercase: bool, oov: str, mean: np.ndarray | None = None):
        self.oov, self.lowercase = oov, lowercase
        usable = table if oov == "subword" else table[table["source"] != "subword"]
        dim = len(table["vector"].iloc[0]) if len(table) else (len(mean) if mean is not None else 0)
        with np.errstate(over="ignore"):  # a float64 table (a KeyedVectors) stored as a file's: 1e39 is inf
            stored = np.vstack(usable["vector"].to_numpy()).astype(np.float32) if len(usable) else np.zeros((0, dim))
        # as stored (float32: 1e39 is infinite there), a vector with a non-finite value or all zeros has
        # no direction to compare: its word is out of vocabulary, whichever reader kept it
        ok = np.isfinite(stored).all(axis=1) & (stored != 0).any(axis=1)
        lines = usable["line"] if "line" in usable else pd.Series(None, index=usable.index, dtype=object)
        self.lines = {
            w: (None if pd.isna(line) else int(line))
            for w, line in zip(usable["word"].to_numpy()[~ok], lines.to_numpy()[~ok])
        }
        self.unusable = sorted(self.lines)
        usable, stored = usable[ok], stored[ok]
        self.index = {w: i for i, w in enumerate(usable["word"])}
        self.matrix = stored.astype(np.float64)
        self.dim = dim
        self.fallback = (
            np.zeros(dim) if oov == "zero" else (np.asarray(mean, dtype=np.float64) if oov == "mean" else None)
        )
        if oov == "mean" and mean is None:
            raise ValueError("oov: mean needs the mean vector of the embedding file")

    @classmethod
    def read(cls, path, model: dict) -> "Vectors":
        """The vectors of an embeddings table the workflow wrote, with the model's lookup and OOV
        policy (``oov: mean`` takes the file's mean, a row of that table).

        Parameters
        ----------
        path : str or pathlib.Path
            The embeddings table (Parquet).
        model : dict
            The model's resolved config entry (``lowercase``, ``oov``).

        Returns
        -------
        Vectors
            The lookup.
        """
        table, mean = read_embeddings(path)
        return cls(table, model["lowercase"], model["oov"], mean)

    def find(self, word: str) -> int | None:
        """The row of ``word``'s vector: as written, then lower-cased (None: out of vocabulary).

        Parameters
        ----------
        word : str
            The word.

        Returns
        -------
        int or None
            Its row in ``matrix``.
        """
        if word in self.index:
            return self.index[word]
        if self.lowercase and word.lower() in self.index:
            return self.index[word.lower()]
        return None

    def unusable_for(self, words) -> list[tuple[str, int | None]]:
        """(word of the table, its line) of each unusable vector the lookup of ``words`` met, sorted.

        Parameters
        ----------
        words : iterable of str
            Words looked up (a dataset's OOV words).

        Returns
        -------
        list of tuple
            The unusable table words and their lines (None where the table has none), sorted.
        """
        met = set()
        for word in words:
            for spelling in (word, word.lower()) if self.lowercase else (word,):
                if spelling in self.lines:
                    met.add(spelling)
        return [(w, self.lines[w]) for w in sorted(met)]

    def pair_sims(self, words1, words2):
        """(similarities with NaN where not scored, OOV flags, the OOV words of each pair).

        Parameters
        ----------
        words1, words2 : list of str
            The pairs' words.

        Returns
        -------
        tuple
            (similarities, OOV flags, the OOV words of each pair joined by ``;``).
        """
        n = len(words1)
        a, b = np.zeros((n, self.dim)), np.zeros((n, self.dim))
        oov = np.zeros(n, dtype=bool)
        missing = []
        for k, (w1, w2) in enumerate(zip(words1, words2)):
            lost = []
            for word, target in ((w1, a), (w2, b)):
                i = self.find(word)
                if i is None:
                    lost.append(word)
                    if self.fallback is not None:
                        target[k] = self.fallback
                else:
                    target[k] = self.matrix[i]
            oov[k] = bool(lost)
            missing.append(";".join(lost))
        sims = cosine(a, b)
        if self.fallback is None:
            sims = np.where(oov, np.nan, sims)
        return sims, oov, missing


def unusable_note(found: list[tuple[str, int | None]], shown: int = NOTE_WORDS) -> str:
    """A score note naming the words out of vocabulary by their vectors (``Vectors.unusable_for``):
    the first ``shown`` with their lines, and how many more.

    Parameters
    ----------
    found : list of tuple
        (word, line) of each, sorted.
    shown : int
        How many to name.

    Returns
    -------
    str
        The note; empty without such words.

    Examples
    --------
    >>> unusable_note([("cat", 7), ("dog", None)])
    "2 word(s) out of vocabulary by their vectors (a value not finite as float32, or all zeros): 'cat' (line 7), 'dog'"
    >>> unusable_note([(w, i) for i, w in enumerate("abcdefg", 2)], shown=2).split(": ")[1]
    "'a' (line 2), 'b' (line 3) and 5 more"
    """
    if not found:
        return ""
    named = ", ".join(f"{w!r}" + ("" if line is None else f" (line {line})") for w, line in found[:shown])
    more = f" and {len(found) - shown} more" if len(found) > shown else ""
    return (
        f"{len(found)} word(s) out of vocabulary by their vectors (a value not finite as float32, or all zeros): "
        f"{named}{more}"
    )


def log_load(log, words: list[str], table: pd.DataFrame, report: LoadReport, lowercase: bool) -> int:
    """Say in a job's log what a model's load found: the file, the needed words found (a word whose
    vector is all zeros or not finite as float32 is not), each such word with its line and why, the
    reader's notes, a coverage warning and the duplicated words.

    Parameters
    ----------
    log : logging.Logger
        The job's logger.
    words : list of str
        The words the model's datasets need.
    table : pd.DataFrame
        The embeddings table of ``simgold.io.embeddings.load_model``.
    report : LoadReport
        What the reader found.
    lowercase : bool
        Whether lookup falls back to the lower-cased word.

    Returns
    -------
    int
        The needed words found with a usable vector.
    """
    unusable = report.unusable  # (word, line, why): kept as stored, out of vocabulary at scoring
    have = set(table["word"]) - {word for word, _, _ in unusable}
    found = sum(1 for w in words if w in have or (lowercase and w.lower() in have))
    log.info(
        "%s (%s, %d dimensions): %d words in the file, %d kept; %d of %d needed words found (%.1f%%)",
        report.file,
        report.format,
        report.dim,
        report.lines,
        report.kept,
        found,
        len(words),
        100 * found / max(1, len(words)),
    )
    for note in report.notes:
        log.info("%s: %s", report.file, note)
    if unusable:
        log.warning("%s: %d kept vector(s) all zeros or not finite as float32: out of vocabulary", report.file,
                    len(unusable))  # fmt: skip
    for word, line, why in unusable:
        log.info("  word %r (line %s): %s; it is out of vocabulary", word, line or "none", why)
    warning = coverage_warning(report, found, len(words))
    if warning:
        log.warning("%s", warning)
    for word, first, again in report.duplicates:
        log.info("  duplicated word %r: line %d kept, line %d ignored", word, first, again)
    return found
