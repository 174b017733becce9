"""One module per stage of the workflow, named as its rule file (``workflow/rules/X.smk``) and
script (``workflow/scripts/X.py``): each takes tables and returns tables. Uses ``simgold.io`` and
``simgold.stats``."""

#: the layer's modules; each one's ``__all__`` is its public API (numpydoc, tested)
__all__ = [
    "agreement",
    "audit",
    "bws_agreement",
    "bws_answers",
    "bws_gold",
    "calibrate",
    "clean",
    "comparisons",
    "context",
    "controls",
    "cosimlex",
    "extraction",
    "gold",
    "in_context",
    "maxdiff",
    "msd",
    "noise",
    "reliability",
    "scores",
    "translate",
    "valuecells",
    "vectors",
]
