"""Reading and writing: the config and its schema, raw-table readers and layouts, embedding files
and packages, canonical tables and provenance, the vector store, and the paths of every result
file. Uses ``simgold.stats``, never a stage."""

#: the layer's modules; each one's ``__all__`` is its public API (numpydoc, tested)
__all__ = [
    "cardtext",
    "cells",
    "config",
    "demo",
    "digests",
    "embeddings",
    "labels",
    "languages",
    "layouts",
    "ledger",
    "lineindex",
    "machine",
    "minilm",
    "models",
    "ods",
    "paths",
    "patterns",
    "profiles",
    "progress",
    "rawformats",
    "rawrecords",
    "rawtable",
    "readers",
    "schema",
    "sheets",
    "sniff",
    "sourcechecks",
    "tables",
    "textfiles",
    "textvectors",
    "vectorcache",
    "vectorformats",
]
