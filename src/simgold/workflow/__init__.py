"""What the Snakemake rules need from the library: which dataset goes through which stage
(``routing``), the job glue of the scripts (``job``), the jobs' log records (``logs``), thread pools
(``threads``), and what a finished run says last (``lastlines``)."""

#: the layer's modules; each one's ``__all__`` is its public API (numpydoc, tested)
__all__ = [
    "job",
    "lastlines",
    "logs",
    "routing",
    "threads",
]
