"""Statistics on arrays: ranks and correlations, Krippendorff's alpha, resampling (the bootstrap's
draws, resampled correlations, percentile intervals), the agreement statistics and their bootstrap,
dependent correlations, reliability, the noise kernel, seeds. numpy and scipy (numba for the noise
kernel), never pandas (an import-linter contract); imports nothing of simgold but ``simgold.errors``.
Parameters that are config keys have no default here: the stages pass the config's value."""

#: the layer's modules; each one's ``__all__`` is its public API (numpydoc, tested)
__all__ = [
    "agreement_ci",
    "agreement_replicates",
    "agreement_statistics",
    "alpha",
    "bws",
    "bws_design",
    "correlation",
    "dependent_correlations",
    "grouped_ranks",
    "icc",
    "item_means",
    "maxdiff_model",
    "multiple",
    "noise_kernel",
    "pair_kernel",
    "rank_correlation",
    "rating_design",
    "reliability",
    "resampling",
    "retest",
    "seeds",
]
