"""What a reader sees: figures (one registry, ``FIGURES``), HTML pages, and the archive for a paper.
Uses the layers below (stages, io, stats), never the workflow."""
