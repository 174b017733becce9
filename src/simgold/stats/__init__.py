"""Statistics on arrays: ranks and correlations, Krippendorff's alpha, the bootstrap of agreement,
dependent correlations, reliability, the noise kernel, seeds. numpy and scipy (numba for the noise
kernel); imports nothing of simgold but ``simgold.errors``."""
