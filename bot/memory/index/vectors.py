"""An in-process vector index per owner (no pgvector here; vectors live in a column).

Why this shape:
- Every search is for one owner, so each owner has its own float32 matrix of unit rows and a
  parallel id array; a search is one matrix-vector product (10,000 x 384 takes well under a
  millisecond or two) and an argpartition.
- Memory stays proportional to the vectors: no per-vector Python objects, the matrix grows by
  half again when full and shrinks when three quarters empty; 100,000 MiniLM vectors are
  ~150 MB. Owners not used lately are dropped (least recently used first) past a total row
  budget, and reload lazily from the database on their next search.
- Built lazily from (id, vector) rows the caller supplies (the index does no I/O itself).
  Changes that happen while an owner is being loaded are replayed on top of the loaded rows,
  so a save racing with the first search is not lost.
- One lock guards everything; numpy releases the GIL in the product, so searches are short.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from bot.memory.embeddings.encoder import unpack_vector

__all__ = ["OwnerVectors", "VectorIndex"]

VectorLike = np.ndarray | bytes | bytearray | memoryview | Sequence[float]


def _as_unit(vec: VectorLike, dim: int) -> np.ndarray | None:
    """A float32 unit vector of length `dim`, or None when it is not one (wrong size, zero, NaN)."""
    arr = unpack_vector(vec) if isinstance(vec, (bytes, bytearray, memoryview)) else \
        np.asarray(vec, dtype=np.float32).reshape(-1)
    if arr.shape[0] != dim or not np.all(np.isfinite(arr)):
        return None
    norm = float(np.linalg.norm(arr))
    if norm == 0.0:
        return None
    return (arr / norm).astype(np.float32)


class OwnerVectors:
    """The vectors of one owner. Not thread-safe on its own: VectorIndex holds the lock."""

    def __init__(self, dim: int, capacity: int = 64) -> None:
        self.dim = dim
        self._mat = np.zeros((max(capacity, 1), dim), dtype=np.float32)
        self._ids = np.zeros(max(capacity, 1), dtype=np.int64)
        self._row: dict[int, int] = {}
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def __contains__(self, memory_id: int) -> bool:
        return memory_id in self._row

    def _grow(self, need: int) -> None:
        cap = self._mat.shape[0]
        if need <= cap:
            return
        new_cap = max(need, int(cap * 1.5) + 1)
        mat = np.zeros((new_cap, self.dim), dtype=np.float32)
        ids = np.zeros(new_cap, dtype=np.int64)
        mat[: self.size] = self._mat[: self.size]
        ids[: self.size] = self._ids[: self.size]
        self._mat, self._ids = mat, ids

    def _maybe_shrink(self) -> None:
        cap = self._mat.shape[0]
        if cap > 256 and self.size < cap // 4:
            new_cap = max(64, self.size * 2)
            self._mat = self._mat[:new_cap].copy()
            self._ids = self._ids[:new_cap].copy()

    def upsert(self, memory_id: int, unit: np.ndarray) -> None:
        row = self._row.get(memory_id)
        if row is None:
            self._grow(self.size + 1)
            row = self.size
            self.size += 1
            self._row[memory_id] = row
            self._ids[row] = memory_id
        self._mat[row] = unit

    def remove(self, memory_id: int) -> bool:
        row = self._row.pop(memory_id, None)
        if row is None:
            return False
        last = self.size - 1
        if row != last:  # move the last row into the hole
            moved = int(self._ids[last])
            self._mat[row] = self._mat[last]
            self._ids[row] = moved
            self._row[moved] = row
        self.size = last
        self._maybe_shrink()
        return True

    def search(self, query: np.ndarray, k: int,
               exclude: frozenset[int] | set[int] = frozenset()) -> list[tuple[int, float]]:
        if self.size == 0 or k <= 0:
            return []
        sims = self._mat[: self.size] @ query
        want = min(self.size, k + len(exclude))
        if want < self.size:
            idx = np.argpartition(-sims, want - 1)[:want]
        else:
            idx = np.arange(self.size)
        idx = idx[np.lexsort((self._ids[idx], -sims[idx]))]
        out = []
        for i in idx:
            mid = int(self._ids[i])
            if mid in exclude:
                continue
            out.append((mid, float(sims[i])))
            if len(out) >= k:
                break
        return out

    def similarities(self, query: np.ndarray, ids: Iterable[int]) -> dict[int, float]:
        rows = [(mid, self._row[mid]) for mid in ids if mid in self._row]
        if not rows:
            return {}
        sims = self._mat[[r for _, r in rows]] @ query
        return {mid: float(s) for (mid, _), s in zip(rows, sims)}

    def vectors(self, ids: Iterable[int]) -> tuple[list[int], np.ndarray]:
        rows = [(mid, self._row[mid]) for mid in ids if mid in self._row]
        return [mid for mid, _ in rows], self._mat[[r for _, r in rows]].copy()

    def project(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._ids[: self.size].copy(), self._mat[: self.size] @ weights.T

    @property
    def nbytes(self) -> int:
        return int(self._mat.nbytes + self._ids.nbytes)


class VectorIndex:
    """Per-owner cosine search over unit vectors of one dimension.

    Typical use by recall:
        if not index.is_loaded(owner):
            index.ensure_loaded(owner, lambda: rows_from_db(owner))   # in a worker thread
        hits = index.search(owner, qvec, 50)
        cos = index.similarities(owner, qvec, keyword_ids)
    and by the save path: index.add(owner, id, vec) / index.remove(owner, id).
    """

    def __init__(self, dim: int, *, max_total_vectors: int = 1_000_000) -> None:
        if dim <= 0:
            raise ValueError("dim must be positive")
        self.dim = dim
        self.max_total_vectors = max_total_vectors
        self._owners: OrderedDict[int, OwnerVectors] = OrderedDict()
        self._loading: dict[int, list[tuple[str, int, np.ndarray | None]]] = {}
        self._lock = threading.RLock()

    # -- loading
    def is_loaded(self, owner_id: int) -> bool:
        with self._lock:
            return owner_id in self._owners

    def ensure_loaded(
        self, owner_id: int, fetch: Callable[[], Iterable[tuple[int, VectorLike | None]]]
    ) -> int:
        """Load an owner once from `fetch()` (rows of (memory id, vector or None)).

        Returns how many vectors the owner has. Rows with a missing or malformed vector are
        skipped (that memory is simply not found by vector search). `fetch` runs outside the
        lock; add/remove calls made meanwhile are replayed after it, so none is lost. If two
        threads load the same owner, the second waits for nothing and loads again harmlessly.
        """
        with self._lock:
            if owner_id in self._owners:
                self._owners.move_to_end(owner_id)
                return len(self._owners[owner_id])
            self._loading.setdefault(owner_id, [])
        try:
            rows = list(fetch())
        except BaseException:
            with self._lock:
                self._loading.pop(owner_id, None)
            raise
        owner = OwnerVectors(self.dim, capacity=max(64, len(rows)))
        for memory_id, vec in rows:
            if vec is None:
                continue
            unit = _as_unit(vec, self.dim)
            if unit is not None:
                owner.upsert(int(memory_id), unit)
        with self._lock:
            for op, memory_id, unit in self._loading.pop(owner_id, []):
                if op == "add" and unit is not None:
                    owner.upsert(memory_id, unit)
                else:
                    owner.remove(memory_id)
            if owner_id not in self._owners:
                self._owners[owner_id] = owner
            self._owners.move_to_end(owner_id)
            self._evict()
            return len(self._owners[owner_id])

    def _evict(self) -> None:
        total = sum(len(o) for o in self._owners.values())
        while total > self.max_total_vectors and len(self._owners) > 1:
            _, dropped = self._owners.popitem(last=False)
            total -= len(dropped)

    def forget_owner(self, owner_id: int) -> None:
        """Drop an owner's vectors (after "forget me", or to force a reload)."""
        with self._lock:
            self._owners.pop(owner_id, None)

    # -- changes
    def add(self, owner_id: int, memory_id: int, vec: VectorLike) -> bool:
        """Insert or replace one vector; False when the vector is unusable.

        For an owner that is not loaded this is a no-op (its next load reads the database),
        except while it is loading, when the change is queued.
        """
        unit = _as_unit(vec, self.dim)
        if unit is None:
            return False
        with self._lock:
            if owner_id in self._loading:
                self._loading[owner_id].append(("add", int(memory_id), unit))
            owner = self._owners.get(owner_id)
            if owner is not None:
                owner.upsert(int(memory_id), unit)
                self._evict()
        return True

    def remove(self, owner_id: int, memory_id: int) -> None:
        with self._lock:
            if owner_id in self._loading:
                self._loading[owner_id].append(("remove", int(memory_id), None))
            owner = self._owners.get(owner_id)
            if owner is not None:
                owner.remove(int(memory_id))

    # -- queries
    def search(self, owner_id: int, query: VectorLike, k: int,
               exclude: Iterable[int] = ()) -> list[tuple[int, float]]:
        """Up to k (memory id, cosine) of the owner, best first; [] when not loaded."""
        q = _as_unit(query, self.dim)
        if q is None:
            return []
        with self._lock:
            owner = self._owners.get(owner_id)
            if owner is None:
                return []
            self._owners.move_to_end(owner_id)
            return owner.search(q, k, frozenset(int(e) for e in exclude))

    def similarities(self, owner_id: int, query: VectorLike,
                     ids: Iterable[int]) -> dict[int, float]:
        """Cosine of the query with each listed memory that has a vector (others are absent)."""
        q = _as_unit(query, self.dim)
        if q is None:
            return {}
        with self._lock:
            owner = self._owners.get(owner_id)
            return owner.similarities(q, ids) if owner is not None else {}

    def vectors(self, owner_id: int, ids: Iterable[int]) -> tuple[list[int], np.ndarray]:
        """The unit vectors of the listed memories that have one, in order, with their ids."""
        with self._lock:
            owner = self._owners.get(owner_id)
            if owner is None:
                return [], np.zeros((0, self.dim), dtype=np.float32)
            return owner.vectors(ids)

    def project(self, owner_id: int, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every memory id of the owner with its vector times `weights` (classes x dim): one
        product over the owner's matrix, as a search is (empty when not loaded, or when the
        weights were made for vectors of another size: another embedding model)."""
        with self._lock:
            owner = self._owners.get(owner_id)
            if owner is None or weights.ndim != 2 or weights.shape[1] != self.dim:
                return np.zeros(0, dtype=np.int64), np.zeros((0, weights.shape[0]), dtype=np.float32)
            return owner.project(weights)

    def count(self, owner_id: int) -> int:
        with self._lock:
            owner = self._owners.get(owner_id)
            return len(owner) if owner is not None else 0

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(o.nbytes for o in self._owners.values())
