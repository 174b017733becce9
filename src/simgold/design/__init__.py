"""Designing a collection before anyone answers (``simgold design``): which rater sees which pairs
or tuples in which order, the files they fill in (XLSX, CSV, Potato, Label Studio), and the config
that reads the returned files. Uses the layers below (stages, io, stats), never the report or the
workflow."""

#: the layer's modules; each one's ``__all__`` is its public API (numpydoc, tested)
__all__ = ["bws", "output", "pairs", "platforms", "rankings", "ratings", "sheets", "topup"]
