"""The one-at-a-time MiniLM forward pass that simgold used before batching (float64, one sequence per
call, no blocks), kept as the reference the batched model is tested against
(tests/io/test_minilm.py) and timed against (benchmarks/models.py)."""

from __future__ import annotations

import numpy as np
from gensim.test.utils import datapath
from scipy.special import erf


def vocabulary() -> list[str]:
    """The words of WordSim-353 and SimLex-999 (gensim's copies), lower-cased, sorted."""
    words = {
        w.lower()
        for name in ("wordsim353.tsv", "simlex999.txt")
        for line in open(datapath(name), encoding="utf-8")
        if not line.startswith("#")
        for w in line.split("\t")[:2]
    }
    return sorted(words)


class OneAtATime:
    def __init__(self, model):
        """Shares the weights and tokenizer of a ``simgold.io.minilm.MiniLM``."""
        self.w, self.tokenizer, self.dim = model.w, model.tokenizer, model.dim
        self.heads, self.layers, self.eps = model.heads, model.layers, model.eps

    def _norm(self, x, name):
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _dense(self, x, name):
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def encode_ids(self, ids: list[int]) -> np.ndarray:
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
        out = np.zeros((len(words), self.dim), dtype=np.float32)
        for i, word in enumerate(words):
            vec = self.encode_ids(self.tokenizer.encode(word).ids).mean(axis=0)
            out[i] = vec / np.linalg.norm(vec)
        return out

    def in_context(self, text: str, spans: list[tuple[int, int]]) -> list[np.ndarray | None]:
        """Paragraphs that fit the model's 512 positions (the long-paragraph window is the batched code's)."""
        enc = self.tokenizer.encode(text)
        assert len(enc.ids) <= 512
        states = self.encode_ids(enc.ids)
        out = []
        for start, end in spans:
            pieces = [t for t, (a, b) in enumerate(enc.offsets) if b > a and a < end and b > start]
            out.append(states[pieces].mean(axis=0) if pieces else None)
        return out
