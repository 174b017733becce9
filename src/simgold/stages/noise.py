"""The noise sanity check (docs/methods.md section 9): Batchkarov et al. (2016), as critiqued by Le (2017).

For a model and a dataset, the vectors of the dataset's words get ``U(-n, n)`` noise added to every
element, for each noise level ``n`` of a grid, ``k`` times per level; each time the Spearman
correlation with the gold standard is computed. Reported per level: the mean, SD and 2.5/97.5
percentiles of those correlations (over all samples); the trend (Spearman between noise level and
score, over all samples: a tendency, not a yes/no); and, over ``m`` independent repetitions of the
whole curve (each curve = the per-level means of its own ``k`` samples), the share of curves that
decrease strictly at every step. That share is what Le shows to be unstable: it moves with ``k``
and with the dataset's size, so "passing" or "failing" says little about a dataset.

Each noisy copy is drawn, and its norms and dot products summed, by a compiled kernel
(simgold.stats.noise_kernel), one copy at a time so that it stays in the processor's cache; numpy ranks
the cosines of a batch of copies at once.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from simgold.io.tables import TABLES
from simgold.stats.noise_kernel import compile_once, noisy_norms_dots  # numba loads on the kernel's first call
from simgold.stats.correlation import pearson_rows, rankdata, spearman, undefined_correlation_note
from simgold.stats.seeds import seed_for

__all__ = ["BATCH_COPIES", "NOISE_COLUMNS", "grid", "inputs_for", "noise_check"]

NOISE_COLUMNS = TABLES["noise"].names  # the canonical schema's columns, in order
BATCH_COPIES = 200  # noisy copies whose cosines are ranked at once


def grid(start: float, stop: float, step: float) -> np.ndarray:
    """The noise levels from ``start`` to ``stop`` (both included) in steps of ``step`` (the config's
    ``noise.levels``), rounded to 10 decimals so that 0.1 steps give 0.3, not 0.30000000000000004.

    Parameters
    ----------
    start, stop, step : float
        The first and the last level, and the step between two levels.

    Returns
    -------
    numpy.ndarray
        The levels, float64, in increasing order.

    Examples
    --------
    >>> grid(0, 0.4, 0.1).tolist()
    [0.0, 0.1, 0.2, 0.3, 0.4]
    """
    n = int(round((stop - start) / step)) + 1
    return np.round(start + step * np.arange(n), 10)


def noise_check(
    dataset: str,
    model: str,
    vectors: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    gold: np.ndarray,
    *,
    levels: np.ndarray,
    k: int,
    m: int,
    seed: int,
    relative: bool,
    threads: int = 1,
) -> pd.DataFrame:
    """The noise check of one model on one dataset: one row per noise level.

    ``relative``: the levels are multiples of the SD of the elements of the items' word vectors
    (so that one grid means the same for GloVe, whose elements are about 0.5, and for normalised
    384-d vectors). Each level draws from its own random stream, so the numbers do not depend on
    ``threads``. Rows that no item uses are dropped first (they cannot move a score): a caller may
    pass a whole vocabulary and gets the numbers, and pays the time, of the items' words alone
    (the workflow passes those words alone). Where no Spearman can be had (fewer than 3 items, a
    constant gold standard) nothing is drawn: the rows are NaN and their ``note`` says why.

    Parameters
    ----------
    dataset, model : str
        The names the table's rows carry.
    vectors : numpy.ndarray
        The dataset's words' vectors (rows).
    first, second : numpy.ndarray
        Row indices of each item's two words.
    gold : numpy.ndarray
        The items' gold means.
    levels : numpy.ndarray
        The noise levels (0 or more), as ``grid`` makes them.
    k, m : int
        Samples per level and curve, and independent repetitions of the whole curve.
    seed : int
        The scoring seed (each level draws from its own stream of it).
    relative : bool
        The levels are multiples of the SD of the vectors' elements (else absolute).
    threads : int
        Levels computed at once (the numbers do not depend on it).

    Returns
    -------
    pandas.DataFrame
        The noise table (``NOISE_COLUMNS``): one row per level.

    Examples
    --------
    >>> table = noise_check("d", "m", np.eye(3), np.array([0, 1]), np.array([1, 2]), np.array([3.0, 3.0]),
    ...                     levels=np.array([0.0, 0.5]), k=2, m=2, seed=0, relative=False)
    >>> table[["level", "mean", "note"]].values.tolist()[1]
    [0.5, nan, 'no Spearman at any level: 2 items with a gold score: a correlation needs 3 or more']
    """

    levels = np.asarray(levels, dtype=float)
    if (levels < 0).any():
        raise ValueError(f"noise levels must be 0 or more (U(-n, n)); got {levels[levels < 0].tolist()}")
    # the kernel's types: C-ordered, writable arrays (a read-only one, as pandas' to_numpy gives, is
    # another numba type and would compile the kernel a second time)
    vectors = np.array(vectors, dtype=np.float32, order="C")
    first, second = np.array(first, dtype=np.int64), np.array(second, dtype=np.int64)
    used = np.unique(np.concatenate([first, second]))
    if used.size and (used[0] < 0 or used[-1] >= len(vectors)):  # the kernel reads without bounds checks
        bad = used[(used < 0) | (used >= len(vectors))]
        raise IndexError(f"item word indices {bad[:5].tolist()} are outside the {len(vectors)} rows of vectors")
    if len(used) < len(vectors):
        vectors, first, second = vectors[used], np.searchsorted(used, first), np.searchsorted(used, second)
    why_none = undefined_correlation_note(gold)
    if why_none:  # every noisy copy would be NaN: draw none
        unit = float(np.std(vectors)) if relative and np.size(vectors) else 1.0
        return _table(dataset, model, levels, unit, np.full((len(levels), 1), np.nan), k, m, len(gold),
                      np.nan, np.nan, f"no Spearman at any level: {why_none}")  # fmt: skip
    compile_once()  # before the threads start: one compiles, the others would wait for it
    unit = float(vectors.std()) if relative else 1.0
    gold_ranks = rankdata(gold)
    streams = np.random.SeedSequence(seed_for(seed, dataset, model, "noise")).spawn(len(levels))
    scores = np.empty((len(levels), m, k))

    def run_level(li):
        scores[li] = _level_scores(vectors, first, second, gold_ranks, levels[li] * unit, m * k, streams[li]).reshape(
            m, k
        )

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        list(pool.map(run_level, range(len(levels))))
    pooled = scores.reshape(len(levels), -1)
    curves = scores.mean(axis=2)  # (levels, m): each repetition's curve
    monotonic = float(np.mean(np.all(np.diff(curves, axis=0) < 0, axis=0))) if len(levels) > 1 else float("nan")
    trend = spearman(np.repeat(levels, pooled.shape[1]), pooled.ravel()) if len(levels) > 1 else float("nan")
    # the model's own similarities constant at every level: no copy ranks the items
    note = "" if np.isfinite(pooled).any() else "no noisy copy has a Spearman: its similarities are constant"
    return _table(dataset, model, levels, unit, pooled, k, m, len(gold), trend, monotonic, note)


def _table(dataset, model, levels, unit, pooled, k, m, n_items, trend, monotonic, note) -> pd.DataFrame:
    """The noise table of the levels' pooled Spearman values (levels x samples)."""
    with np.errstate(invalid="ignore", divide="ignore"):  # one sample: no SD
        sd = pooled.std(axis=1, ddof=1) if pooled.shape[1] > 1 else np.full(len(levels), np.nan)
    return pd.DataFrame(
        {
            "dataset": dataset,
            "model": model,
            "level": levels,
            "noise": levels * unit,
            "mean": pooled.mean(axis=1),
            "sd": sd,
            "p2_5": np.quantile(pooled, 0.025, axis=1),
            "p97_5": np.quantile(pooled, 0.975, axis=1),
            "k": k,
            "m": m,
            "n_items": n_items,
            "trend_spearman": trend,
            "monotonic_share": monotonic,
            "note": note,
        },
        columns=list(NOISE_COLUMNS),
    )


def _level_scores(vectors, first, second, gold_ranks, level, samples, stream) -> np.ndarray:
    """Spearman of ``samples`` noisy copies at one noise level (half-width ``level``).

    The compiled kernel (simgold.stats.noise_kernel) draws each copy from the level's own stream,
    through numpy's ``Generator(PCG64(stream)).random(dtype=float32)`` (one generator for all the
    level's batches, so that a seed gives the same numbers on any number of threads and in batches
    of any size) and returns its words' squared norms and its items' dot products; the cosines,
    their ranks and the correlations are computed here, ``BATCH_COPIES`` copies at a time."""
    if level == 0 and samples > 1:  # no noise: every sample is the same copy, so compute it once
        return np.full(samples, _level_scores(vectors, first, second, gold_ranks, 0, 1, stream)[0])
    rng = np.random.Generator(np.random.PCG64(stream))
    out = np.empty(samples)
    for start in range(0, samples, BATCH_COPIES):
        count = min(BATCH_COPIES, samples - start)
        norms, dots = np.empty((count, len(vectors))), np.empty((count, len(first)))
        noisy_norms_dots(vectors, first, second, float(level), rng, norms, dots)
        norms = np.sqrt(norms)
        den = norms[:, first] * norms[:, second]
        with np.errstate(invalid="ignore", divide="ignore"):
            sims = np.where(den > 0, dots / den, 0.0)
        # an identity pair (tiger/tiger) has cosine 1 only up to rounding: equal at 12 decimals is a tie
        sims = np.round(sims, 12)
        out[start : start + count] = pearson_rows(rankdata(sims, axis=1), gold_ranks)
    return out


def inputs_for(pred: pd.DataFrame, gold: pd.DataFrame, vectors) -> tuple:
    """The word matrix, item word indices and gold means of the items a model covers.

    Parameters
    ----------
    pred : pandas.DataFrame
        The model's predictions on the dataset (``item_id``, ``word1``, ``word2``, ``oov``).
    gold : pandas.DataFrame
        The dataset's gold table (``item_id``, ``mean``).
    vectors : simgold.stages.vectors.Vectors
        The model's vectors of the dataset's words.

    Returns
    -------
    tuple
        ``(matrix, first, second, gold)``: the words' vectors (one row per word, sorted), the row
        indices of each covered item's two words, and the items' gold means, as ``noise_check``
        takes them.
    """
    frame = pred.merge(gold[["item_id", "mean"]], on="item_id")
    frame = frame[frame["mean"].notna() & ~frame["oov"]]
    words = sorted(set(frame["word1"]) | set(frame["word2"]))
    index = {w: i for i, w in enumerate(words)}
    matrix = np.vstack([vectors.matrix[vectors.find(w)] for w in words]) if words else np.zeros((0, vectors.dim))
    first = frame["word1"].map(index).to_numpy()
    second = frame["word2"].map(index).to_numpy()
    return matrix, first, second, frame["mean"].to_numpy(float)
