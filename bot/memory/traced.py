"""A TorchScript copy of a mean-pooling sentence-transformers model, for encoding beside busy
Python threads. The embedder prefers the ONNX Runtime copy (bot.memory.onnx_encoder, about
twice as fast); this one serves where onnxruntime is missing or its copy fails its check.

Why: eager PyTorch runs a forward pass as a few hundred small operations, and each one takes
Python's GIL back. In the bot, the embedding thread shares the GIL with the event loop and the
database thread, so while those run Python code one sentence took over a second instead of
~25 ms (measured on the development machine beside one busy Python thread). A traced, frozen
graph runs its operations in C++ and hardly waits for the GIL: the same sentence took ~48 ms
beside the busy thread, and ~20% less than eager when alone.

The trace is only used when it gives the same vectors as the model's own `encode` on probe
texts (single and padded batches); anything unexpected (another architecture, another pooling,
a tracing failure, a mismatch) keeps the plain `encode` path. Never raises.
"""

from __future__ import annotations

import logging
import warnings
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


def build_traced_encoder(model: Any, batch_size: int = 32) -> Encode | None:
    """An encode function (texts -> unit float32 rows) running a traced copy of `model`, or
    None when that is not possible or not exact."""
    try:
        import torch  # noqa: PLC0415 - heavy, optional
    except ImportError:
        return None
    auto = mean_pooling_transformer(model)
    if auto is None:
        log.info("embedding model is not a mean-pooling transformer; using its own encode")
        return None
    # sentence-transformers 5 renamed tokenize to preprocess (the old name warns)
    tokenize = getattr(model, "preprocess", None) or getattr(model, "tokenize", None)
    if tokenize is None:
        return None

    class _Hidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, ids: Any, mask: Any) -> Any:
            return self.inner(input_ids=ids, attention_mask=mask, return_dict=True).last_hidden_state

    quiet = logging.getLogger("transformers")  # freezing reads every attribute; one warns
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        auto.eval()
        # traced with padding, so the attention mask is part of the graph (an all-ones example
        # would let the model skip masking, and padded batches would then be wrong)
        example = tokenize([PROBES[0], PROBES[1]])
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(
                _Hidden(auto), (example["input_ids"], example["attention_mask"]), strict=False, check_trace=False
            )
            graph = torch.jit.freeze(traced.eval())
            try:
                graph = torch.jit.optimize_for_inference(graph)
            except Exception:  # noqa: BLE001 - optional step
                pass
    except Exception as exc:  # noqa: BLE001 - any failure keeps the plain path
        log.info("embedding model could not be traced (%s); using its own encode", exc)
        return None
    finally:
        quiet.setLevel(level)

    def encode(texts: list[str]) -> np.ndarray:
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # less padding per batch
        rows: list[np.ndarray] = []
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                chunk = [texts[i] for i in order[start:start + batch_size]]
                feats = tokenize(chunk)
                mask = feats["attention_mask"]
                hidden = graph(feats["input_ids"], mask)
                weights = mask.unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
                rows.append(torch.nn.functional.normalize(pooled, p=2, dim=1).numpy())
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        out = np.empty((len(texts), rows[0].shape[1]), dtype=np.float32)
        out[order] = np.concatenate(rows)  # back to the callers' order
        return out

    try:
        expected = np.asarray(
            model.encode(list(PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False),
            dtype=np.float32,
        )
        singles = np.concatenate([encode([t]) for t in PROBES])
        batched = encode(list(PROBES))
        worst = float(max(np.abs(singles - expected).max(), np.abs(batched - expected).max()))
    except Exception as exc:  # noqa: BLE001
        log.info("traced embedding model failed its check (%s); using its own encode", exc)
        return None
    if worst > TOLERANCE:
        log.info("traced embedding model differs from encode by %.2g; using its own encode", worst)
        return None
    return encode
