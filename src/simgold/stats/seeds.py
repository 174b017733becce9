"""Seeds derived from names (no numpy, pandas or scipy: cheap to import).

Every random stream of the pipeline (bootstrap resamples, noise, random splits) is seeded from the
config seed and the names of what it is for (dataset, model, stage, subset, ...), so that the same
config gives the same numbers, and two streams with different names are independent.
"""

from __future__ import annotations

import hashlib

__all__ = ["seed_for"]


def seed_for(base: int, *names: str) -> int:
    """A 63-bit seed from a base seed and names: the first 8 bytes of the SHA-256 digest of the
    names (joined by the unit separator), XOR the base (never Python's salted ``hash()``).

    Parameters
    ----------
    base : int
        The base seed (``scoring.seed``); the names' digest is XORed with it.
    *names
        Names to derive the seed from.

    Returns
    -------
    int
        A seed in ``[0, 2**63)``, the same for the same base and names on every machine and run.

    Examples
    --------
    >>> seed_for(0, "ws353", "glove", "spearman", "all") == seed_for(0, "ws353", "glove", "spearman", "all")
    True
    >>> seed_for(0, "a", "bc") == seed_for(0, "ab", "c")
    False
    """
    digest = hashlib.sha256("\x1f".join(names).encode("utf-8")).digest()
    return (int.from_bytes(digest[:8], "little") ^ base) % (2**63)
