"""A TorchScript copy of a mean-pooling sentence-transformers model, for encoding beside busy
Python threads. The embedder prefers the ONNX Runtime copy (bot.memory.embeddings.onnx_copy, about
twice as fast); this one serves where onnxruntime is missing or its copy fails its check.

Why: eager PyTorch runs a forward pass as a few hundred small operations, and each one takes
Python's GIL back. In the bot, the embedding thread shares the GIL with the event loop and the
database thread, so while those run Python code one sentence took tens of times longer than
alone. A traced, frozen graph runs its operations in C++ and hardly waits for the GIL, and is
faster than eager PyTorch when alone too.

The trace is only used when it gives the same vectors as the model's own `encode` on probe
texts (single and padded batches); anything unexpected (another architecture, another pooling,
a tracing failure, a mismatch) keeps the plain `encode` path. Never raises.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

import numpy as np

from bot.memory.embeddings.model_copy import PROBES, Encode, checked, in_batches, mean_pooling_transformer

log = logging.getLogger(__name__)


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

    def run(chunk: list[str]) -> np.ndarray:
        with torch.inference_mode():
            feats = tokenize(chunk)
            mask = feats["attention_mask"]
            hidden = graph(feats["input_ids"], mask)
            weights = mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1).numpy()

    return checked(model, in_batches(run, batch_size), "the traced copy")
