"""The semantic side of memory, as the verbs see it: embed a text if the model is ready, find a
new fact's vector neighbours, keep each owner's in-process vector matrix current on writes, and
backfill vectors for memories saved before the model was ready.

Why a wrapper: embeddings are optional. With no model (EMBEDDING_MODEL=none, the `semantic`
extra missing, the model still loading, or failing) every method here degrades to "no vector"
and callers go on with keyword search alone; saves never wait for the model to load, and a
model failure is logged once, never raised into a save or a recall.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import numpy as np
from sqlalchemy import func, update
from sqlmodel import select

from bot.storage.db import Database
from bot.memory.embeddings.encoder import pack_vector, unpack_vector
from bot.storage.models import Memory
from bot.memory.index.vectors import VectorIndex
from bot.memory.rules.pair_vectors import same_fact
from bot.memory.rules.slot_vectors import likely_rows, likely_slot, vector_slot

log = logging.getLogger(__name__)

NEIGHBOUR_MIN_COSINE = 0.60
NEIGHBOUR_POOL = 10  # fetched, so that 3 live ones remain after status filtering
BACKFILL_BATCH = 128


class SemanticIndex:
    def __init__(self, db: Database, embedder: Any | None) -> None:
        self.db = db
        self.embedder = embedder
        self.index: VectorIndex | None = None
        self._warned = False
        self._backfill_lock = asyncio.Lock()

    # --- state -------------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        if self.embedder is None:
            return False
        try:
            ok = bool(self.embedder.ready)
        except Exception:
            ok = False
        if ok and self.index is None:
            self.index = VectorIndex(int(self.embedder.dim))
        return ok

    def _failed(self, exc: BaseException) -> None:
        if not self._warned:
            self._warned = True
            log.warning("embeddings unavailable, using keyword search alone: %s", exc)

    # --- embedding -----------------------------------------------------------------------------
    async def embed_one(self, text: str) -> np.ndarray | None:
        vectors = await self.embed_many([text])
        return None if vectors is None else vectors[0]

    async def embed_many(self, texts: list[str]) -> np.ndarray | None:
        if not texts or not self.ready:
            return None
        try:
            out = await self.embedder.embed(texts)  # type: ignore[union-attr]
        except Exception as exc:
            self._failed(exc)
            return None
        return np.asarray(out, dtype=np.float32)

    def pack(self, vector: np.ndarray | None) -> bytes | None:
        return None if vector is None else pack_vector(vector)

    # --- the per-owner matrix ----------------------------------------------------------------------
    async def ensure_loaded(self, owner_id: int) -> bool:
        """Load the owner's vectors from the database once (in the database thread)."""
        if not self.ready or self.index is None:
            return False
        index = self.index
        if index.is_loaded(owner_id):
            return True
        dim = index.dim

        def fetch() -> list[tuple[int, np.ndarray | None]]:
            with self.db.session() as s:
                rows = s.exec(
                    select(Memory.id, Memory.embedding).where(
                        Memory.owner_id == owner_id,
                        Memory.deleted_at.is_(None),  # type: ignore[union-attr]
                        Memory.embedding.is_not(None),  # type: ignore[union-attr]
                    )
                ).all()
            out: list[tuple[int, np.ndarray | None]] = []
            for mid, blob in rows:
                try:
                    out.append((int(mid), unpack_vector(blob, dim)))
                except Exception:
                    out.append((int(mid), None))
            return out

        await self.db.run(index.ensure_loaded, owner_id, fetch)
        return True

    async def search(self, owner_id: int, vector: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        if vector is None or not await self.ensure_loaded(owner_id):
            return []
        assert self.index is not None
        return self.index.search(owner_id, vector, k)

    async def vector_hits(
        self, owner_id: int, vector: np.ndarray, k: int, also: list[int]
    ) -> dict[int, float]:
        """The k nearest memories' cosines, plus the cosine of every id in `also` (the keyword
        hits), so fusion can score each candidate on both sides."""
        if not await self.ensure_loaded(owner_id):
            return {}
        assert self.index is not None
        hits = dict(self.index.search(owner_id, vector, k))
        if also:
            hits.update(self.index.similarities(owner_id, vector, also))
        return hits

    def loaded_vector_hits(self, owner_id: int, vector: np.ndarray, k: int, also: list[int]) -> dict[int, float]:
        """vector_hits for an owner already loaded (ensure_loaded), callable from any thread: recall
        runs it inside its database transaction to save a trip. {} when the owner is not loaded."""
        if self.index is None:
            return {}
        hits = dict(self.index.search(owner_id, vector, k))
        if also:
            hits.update(self.index.similarities(owner_id, vector, also))
        return hits

    async def neighbours(self, owner_id: int, vector: np.ndarray | None) -> dict[int, float]:
        """Memories whose cosine with the new fact is at least 0.60, best first (the caller keeps
        the first three that are still current or unsure)."""
        hits = await self.search(owner_id, vector, NEIGHBOUR_POOL)
        return {mid: cos for mid, cos in hits if cos >= NEIGHBOUR_MIN_COSINE}

    def same_fact(self, owner_id: int, vector: np.ndarray | None, ids: list[int]) -> dict[int, float]:
        """For each listed memory (the new fact's neighbours, already loaded), how sure the
        vectors are that it says the same as `vector` (bot/memory/rules/pair_vectors.py); {}
        without vectors or weights."""
        if vector is None or not ids or self.index is None:
            return {}
        found, olds = self.index.vectors(owner_id, ids)
        unit = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(unit))
        probs = same_fact(unit / norm if norm else unit, olds) if found else None
        return {} if probs is None else {mid: float(p) for mid, p in zip(found, probs)}

    def likely_slots(self, owner_id: int, ids: list[int]) -> dict[int, str]:
        """For the listed memories (the new fact's neighbours, already loaded), the topic their
        vectors find likely (slot_vectors.likely_slot), where there is one."""
        if not ids or self.index is None:
            return {}
        found, olds = self.index.vectors(owner_id, ids)
        out = {}
        for mid, vec in zip(found, olds):
            topic = likely_slot(vec)
            if topic is not None:
                out[mid] = topic
        return out

    def likely_of(self, owner_id: int, topic: str | None, limit: int) -> dict[int, str]:
        """The newest `limit` memories of the owner (already loaded) that the vectors find
        likely of `topic`, whatever their cosine with the new fact (slot_vectors.likely_rows)."""
        if topic is None or self.index is None:
            return {}
        index = self.index
        ids = likely_rows(lambda weights: index.project(owner_id, weights), topic)
        return {mid: topic for mid in ids[:limit]}

    def added(self, owner_id: int, memory_id: int, vector: np.ndarray | None) -> None:
        if vector is not None and self.index is not None:
            self.index.add(owner_id, memory_id, vector)

    def removed(self, owner_id: int, memory_id: int) -> None:
        if self.index is not None:
            self.index.remove(owner_id, memory_id)

    def invalidate(self, owner_id: int) -> None:
        """Forget an owner's matrix after a change that touched many rows; the next use reloads."""
        if self.index is not None:
            self.index.forget_owner(owner_id)

    def backfill_later(self, owner_id: int, memory_id: int, text: str) -> None:
        """Nothing to do now: `backfill()` picks up every memory saved without a vector."""
        return None

    async def backfill(self) -> int:
        """Give a vector to every memory saved while the model was not ready. Returns how many."""
        if not self.ready:
            return 0
        done = 0
        async with self._backfill_lock:
            while True:

                def pending() -> list[tuple[int, int, str]]:
                    with self.db.session() as s:
                        rows = s.exec(
                            select(Memory.id, Memory.owner_id, Memory.text)
                            .where(
                                Memory.embedding.is_(None),  # type: ignore[union-attr]
                                Memory.deleted_at.is_(None),  # type: ignore[union-attr]
                                Memory.text != "",
                            )
                            .limit(BACKFILL_BATCH)
                        ).all()
                    return [(int(a), int(b), str(c)) for a, b, c in rows]

                batch = await self.db.run(pending)
                if not batch:
                    return done
                vectors = await self.embed_many([t for _, _, t in batch])
                if vectors is None:
                    return done

                def store(batch: list[tuple[int, int, str]] = batch, vectors: np.ndarray = vectors) -> None:
                    # a plain UPDATE: a vector is not a change the person made, so it must not
                    # move the row's version (undo checks versions)
                    # a memory saved while the model was loading also gets the topic its vector
                    # names, if its words named none (what a save with the model would store)
                    with self.db.session() as s:
                        for (mid, _owner, text), vec in zip(batch, vectors):
                            values: dict[str, Any] = {"embedding": pack_vector(vec)}
                            topic = vector_slot(vec, text)
                            if topic is not None:
                                values["slot"] = func.coalesce(Memory.slot, topic)
                            s.execute(
                                update(Memory)
                                .where(Memory.id == mid, Memory.text == text, Memory.deleted_at.is_(None))  # type: ignore[arg-type, union-attr]
                                .values(**values)
                            )

                await self.db.run(store)
                for (mid, owner, _), vec in zip(batch, vectors):
                    self.added(owner, mid, vec)
                done += len(batch)
