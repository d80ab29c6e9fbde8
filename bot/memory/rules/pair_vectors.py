"""The second signal for "the same fact again": how sure the embedding vectors of two facts are
that they say one thing ("i cant function without coffee" / "I drink coffee all day"), when the
rules found nothing to compare.

Why: the rules read a fact's verb and object (frames.py) and the topics they have patterns for;
a fact said again in other words shares neither, and then it is stored twice, unasked. Two
sentences' MiniLM vectors carry what they mean, and the classic sentence-pair features (the
elementwise product and absolute difference of the two unit vectors, and their cosine) let a
linear classifier tell "the same thing again" from "another thing of the same kind" ("I have a
dog" / "I have a cat") better than the cosine alone, on which the two overlap. The weights are
trained and cross-validated across sets of personas by `python -m bench.pair_vectors`, stored
beside this file. It only ever recommends Keep both (the verdict "same"): a fact it names is
asked about, never retired. Pure: two vectors in, a probability out. Without embeddings, or
without the weights file, it is simply not asked.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

__all__ = ["WEIGHTS_FILE", "pair_features", "same_fact", "threshold"]

WEIGHTS_FILE = Path(__file__).with_name("pair_vectors.json")


def pair_features(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """The features of pairs: rows of `new` against rows of `old` (unit vectors, one pair per
    row; a single vector on either side is broadcast). One definition for training and use."""
    a = np.atleast_2d(np.asarray(new, dtype=np.float32))
    b = np.atleast_2d(np.asarray(old, dtype=np.float32))
    a, b = np.broadcast_arrays(a, b)
    cos = np.sum(a * b, axis=1, keepdims=True)
    return np.concatenate([a * b, np.abs(a - b), cos], axis=1)


@lru_cache(maxsize=1)
def _weights() -> tuple[np.ndarray, float, float] | None:
    try:
        data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
        weights = np.asarray(data["weights"], dtype=np.float32).reshape(-1)
        bias = float(data["bias"])
        cut = float(data["threshold"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return weights, bias, cut


def threshold() -> float | None:
    """The probability from which the product asks (cross-validated), or None without weights."""
    found = _weights()
    return found[2] if found is not None else None


def same_fact(new: np.ndarray | None, olds: np.ndarray) -> np.ndarray | None:
    """The probability, for each row of `olds`, that it says the same fact as `new` (unit vectors
    of the embedding model the weights were trained on), or None (no vector, no weights, or
    vectors of another model's size)."""
    found = _weights()
    if new is None or found is None or len(olds) == 0:
        return None
    weights, bias, _ = found
    x = pair_features(new, olds)
    if x.shape[1] != weights.shape[0]:
        return None
    z = np.clip(x @ weights + bias, -30.0, 30.0)
    return 1.0 / (1.0 + np.exp(-z))
