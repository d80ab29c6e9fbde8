"""The second signal for single-value topics: which topic a fact's embedding vector says it is
about, when the rules' patterns name none.

Why: the slot patterns (bot/memory/rules/slots.py) read the phrasings they were written for; a
job or a home said in other words ("I write code for a bank") would be missed, and then a later
change of job finds nothing to ask about. MiniLM's sentence vectors put such sentences near
others of the same topic, so a linear classifier over them (weights trained and
cross-validated across personas by `python -m bench.slot_vectors`, stored beside this file) can
name the topic. It is used only when the rules name none, and only when it is at least
`threshold` sure; it names the topic, never a value (so a question it raises compares the facts'
words, see conflict.py). Pure: a vector in, a topic or None out. Without embeddings it is simply
not asked.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

__all__ = ["CLASSES", "OTHER", "WEIGHTS_FILE", "vector_slot"]

OTHER = "other"
CLASSES: tuple[str, ...] = ("job", "residence", "relationship", "car", "age", "diet", OTHER)
WEIGHTS_FILE = Path(__file__).with_name("slot_vectors.json")


@lru_cache(maxsize=1)
def _weights() -> tuple[np.ndarray, np.ndarray, tuple[str, ...], float] | None:
    try:
        data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
        weights = np.asarray(data["weights"], dtype=np.float32)
        bias = np.asarray(data["bias"], dtype=np.float32)
        classes = tuple(str(c) for c in data["classes"])
        threshold = float(data["threshold"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if weights.shape != (len(classes), weights.shape[1]) or bias.shape != (len(classes),):
        return None
    return weights, bias, classes, threshold


def vector_slot(vector: np.ndarray | None) -> str | None:
    """The single-value topic the vector is about, or None (no vector, no weights, a vector of
    another model's size, "other", or not sure enough)."""
    found = _weights()
    if vector is None or found is None:
        return None
    weights, bias, classes, threshold = found
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    if v.shape[0] != weights.shape[1]:
        return None
    z = weights @ v + bias
    z = z - z.max()
    probs = np.exp(z)
    probs /= probs.sum()
    best = int(probs.argmax())
    if classes[best] == OTHER or float(probs[best]) < threshold:
        return None
    return classes[best]
