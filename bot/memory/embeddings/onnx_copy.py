"""An ONNX Runtime copy of a mean-pooling sentence-transformers model: the fastest exact encoder
we have on a CPU.

Why: one MiniLM sentence takes about half the time in ONNX Runtime that it takes in the
TorchScript copy (bot.memory.embeddings.torchscript_copy) on the development machine, with the
same vectors (the README has the figures). Every save embeds its fact and every chat turn its
question, so this is the largest single step of both.

The graph is exported from the loaded model at start-up (about 2 s, in the loader thread, never
on the event loop), into memory: nothing is written to disk and nothing is downloaded. It
includes the mean pooling and the normalisation, so one `run` gives the final unit vectors.
It is only used when it gives the same vectors as the model's own `encode` on probe texts
(single texts and a padded batch); anything unexpected (onnx or onnxruntime missing, another
architecture or pooling, an export failure, a mismatch) returns None and the caller keeps the
traced or plain path. Never raises.

Threads: one session with two intra-op threads that sleep instead of spinning when idle. On a
2-core machine a spinning pool would take the core the database thread needs; two threads
still help batches (bulk loads, backfill) and single sentences alike.
"""

from __future__ import annotations

import io
import logging
import warnings
from typing import Any

import numpy as np

from bot.memory.embeddings.model_copy import PROBES, Encode, checked, in_batches, mean_pooling_transformer

log = logging.getLogger(__name__)

OPSET = 17
THREADS = 2


def build_onnx_encoder(model: Any, batch_size: int = 32, threads: int | None = None) -> Encode | None:
    """An encode function (texts -> unit float32 rows) running `model` in ONNX Runtime, or None
    when that is not possible or not exact."""
    try:
        import onnxruntime as ort  # noqa: PLC0415 - optional
        import torch  # noqa: PLC0415 - heavy, optional
    except ImportError:
        return None
    auto = mean_pooling_transformer(model)
    if auto is None:
        return None
    tokenize = getattr(model, "preprocess", None) or getattr(model, "tokenize", None)
    if tokenize is None:
        return None

    class _Pooled(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, ids: Any, mask: Any) -> Any:
            hidden = self.inner(input_ids=ids, attention_mask=mask, return_dict=True).last_hidden_state
            weights = mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    quiet = [logging.getLogger(name) for name in ("transformers", "torch.onnx", "onnxscript")]
    levels = [q.level for q in quiet]
    for q in quiet:
        q.setLevel(logging.ERROR)
    try:
        auto.eval()
        # exported with padding, so the attention mask is part of the graph
        example = tokenize([PROBES[0], PROBES[1]])
        buffer = io.BytesIO()
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _Pooled(auto).eval(),
                (example["input_ids"], example["attention_mask"]),
                buffer,
                input_names=["input_ids", "attention_mask"],
                output_names=["embedding"],
                dynamic_axes={"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
                              "embedding": {0: "batch"}},
                opset_version=OPSET,
                dynamo=False,
            )
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, int(THREADS if threads is None else threads))
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: nothing drawn into the terminal chat
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - any failure keeps the other paths
        log.info("embedding model could not be exported to ONNX (%s); not using ONNX Runtime", exc)
        return None
    finally:
        for q, level in zip(quiet, levels):
            q.setLevel(level)

    def run(chunk: list[str]) -> np.ndarray:
        feats = tokenize(chunk)
        return session.run(None, {
            "input_ids": feats["input_ids"].numpy().astype(np.int64, copy=False),
            "attention_mask": feats["attention_mask"].numpy().astype(np.int64, copy=False),
        })[0]

    return checked(model, in_batches(run, batch_size), "the ONNX copy")
