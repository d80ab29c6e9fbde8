"""What the faster copies of the embedding model (ONNX Runtime, TorchScript) share: which models
they can copy, how they encode in batches, and the check that a copy gives the model's own
vectors before it is used.

Why a check at all: a copy is only worth having if it is exact. Recall compares stored vectors
with new ones (a duplicate is cosine >= 0.92), so vectors from a copy that drifted would quietly
change what counts as the same fact.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

import numpy as np

log = logging.getLogger(__name__)

PROBES = (
    "I live in London",
    "My sister Anna moved to Berlin in 2019 and works as a nurse at the city hospital",
    "🍕 ok",
    "What did I drive before, and when did I sell it?",
)
TOLERANCE = 1e-4  # largest difference allowed per vector component (unit vectors)

Encode = Callable[[list[str]], np.ndarray]


def mean_pooling_transformer(model: Any) -> Any | None:
    """The Hugging Face model inside `model` when the pipeline is Transformer -> mean Pooling
    (-> Normalize), the shape of all-MiniLM-L6-v2; None otherwise."""
    try:
        modules = list(model._modules.values())
    except AttributeError:
        return None
    names = [type(m).__name__ for m in modules]
    if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return None
    pooling = modules[1]
    mode = getattr(pooling, "pooling_mode_mean_tokens", None)
    if mode is None:
        mode = getattr(pooling, "pooling_mode", None) == "mean"
    others = ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")
    if not mode or any(getattr(pooling, o, False) for o in others):
        return None
    return getattr(modules[0], "auto_model", None)


def in_batches(run: Callable[[list[str]], np.ndarray], batch_size: int) -> Encode:
    """An encode function from `run` (a batch of texts -> unit float32 rows): longest texts
    first, so a batch pads little, and the rows back in the callers' order."""

    def encode(texts: list[str]) -> np.ndarray:
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        rows = [run([texts[i] for i in order[start:start + batch_size]]) for start in range(0, len(order), batch_size)]
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        out = np.empty((len(texts), rows[0].shape[1]), dtype=np.float32)
        out[order] = np.concatenate(rows)
        return out

    return encode


def checked(model: Any, encode: Encode, what: str) -> Encode | None:
    """`encode` when it gives the model's own vectors on the probe texts, one at a time and as a
    padded batch; None (and why, in the log) when it fails or differs."""
    try:
        expected = np.asarray(
            model.encode(list(PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False),
            dtype=np.float32,
        )
        singles = np.concatenate([encode([t]) for t in PROBES])
        batched = encode(list(PROBES))
        worst = float(max(np.abs(singles - expected).max(), np.abs(batched - expected).max()))
    except Exception as exc:  # noqa: BLE001 - any failure means "do not use this copy"
        log.info("%s of the embedding model failed its check (%s); not using it", what, exc)
        return None
    if worst > TOLERANCE:
        log.info("%s of the embedding model differs from encode by %.2g; not using it", what, worst)
        return None
    return encode
