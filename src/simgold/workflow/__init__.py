"""What the Snakemake rules need from the library: which dataset goes through which stage
(``routing``), the job glue of the scripts (``job``), the jobs' log records (``logs``), thread pools
(``threads``), what a finished run says last (``lastlines``), and the run's warm worker that
starts the jobs' scripts with their libraries loaded (``warm``)."""

#: the layer's modules; each one's ``__all__`` is its public API (numpydoc, tested)
__all__ = [
    "job",
    "lastlines",
    "logs",
    "routing",
    "threads",
    "warm",
]
