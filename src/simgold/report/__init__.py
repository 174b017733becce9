"""What a reader sees: figures (one registry, ``FIGURES``), HTML pages, and the archive for a paper.
Uses the layers below (stages, io, stats), never the workflow."""

#: the layer's modules; each one's ``__all__`` is its public API (numpydoc, tested)
__all__ = [
    "archive",
    "bws_sections",
    "card",
    "compare",
    "croissant",
    "figures",
    "frontmatter",
    "headline",
    "leaderboard",
    "markup",
    "mteb",
    "pages",
    "rebuild",
    "release",
    "rocrate",
    "verify",
]
