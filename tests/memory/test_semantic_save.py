"""The semantic side of saving: vectors stored with memories, neighbours found through the
per-owner matrix, backfill for memories saved before the model was ready, and graceful
degradation when the model is missing or fails."""

from __future__ import annotations

import numpy as np
import pytest

from bot.storage.db import Database
from bot.memory.embeddings.encoder import HashingEmbedder, unpack_vector
from bot.storage.models import Memory
from bot.memory.index.semantic import SemanticIndex
from bot.memory.service import MemoryService
from tests.conftest import make_settings


class SwitchableEmbedder(HashingEmbedder):
    """A deterministic embedder that can be 'still loading' or broken on demand."""

    def __init__(self) -> None:
        super().__init__()
        self.is_ready = False
        self.broken = False

    @property
    def ready(self) -> bool:  # type: ignore[override]
        return self.is_ready

    async def embed(self, texts: list[str]) -> np.ndarray:
        if self.broken:
            raise RuntimeError("model crashed")
        return await super().embed(texts)


@pytest.fixture
def service(tmp_path):
    settings = make_settings(database_url=f"sqlite:///{tmp_path / 's.db'}")
    db = Database(settings.database_url)
    emb = SwitchableEmbedder()
    svc = MemoryService(db, settings, SemanticIndex(db, emb))
    yield svc, emb, db
    db.dispose()


async def test_saves_never_wait_for_the_model_and_backfill_fills_in(service):
    svc, emb, db = service
    o = await svc.owner_for("console", "a")
    first = (await svc.remember(o, "I keep bees in the garden")).memory
    with db.session() as s:
        assert s.get(Memory, first.id).embedding is None
    emb.is_ready = True
    assert await svc.semantic.backfill() == 1
    with db.session() as s:
        vec = unpack_vector(s.get(Memory, first.id).embedding)
    assert vec.shape == (emb.dim,) and abs(float(np.linalg.norm(vec)) - 1.0) < 1e-4
    # saves after the model is ready carry their vector at once, and the index knows them
    second = (await svc.remember(o, "My bees make heather honey")).memory
    with db.session() as s:
        assert s.get(Memory, second.id).embedding is not None
    hits = await svc.semantic.search(o, await svc.semantic.embed_one("bees honey garden"), 5)
    assert {second.id, first.id} <= {mid for mid, _ in hits}


async def test_vector_neighbours_are_scoped_to_the_owner(service):
    svc, emb, _ = service
    emb.is_ready = True
    a = await svc.owner_for("console", "a")
    b = await svc.owner_for("console", "b")
    mine = (await svc.remember(a, "My favourite tea is green tea")).memory
    await svc.remember(b, "My favourite tea is green tea with mint")
    hits = await svc.semantic.search(a, await svc.semantic.embed_one("favourite green tea"), 10)
    assert [mid for mid, _ in hits] == [mine.id]


async def test_a_failing_model_degrades_to_keyword_only(service, caplog):
    svc, emb, _ = service
    emb.is_ready = True
    emb.broken = True
    o = await svc.owner_for("console", "a")
    r1 = await svc.remember(o, "I play the cello")
    r2 = await svc.remember(o, "I play the violin too")
    assert r1.memory and r2.memory
    assert [m.text for m in await svc.search(o, "cello")] == ["I play the cello"]
    warnings = [rec for rec in caplog.records if "embeddings unavailable" in rec.getMessage()]
    assert len(warnings) == 1  # logged once, not per save


async def test_near_duplicate_by_cosine_is_not_stored_twice(service):
    svc, emb, _ = service
    emb.is_ready = True
    o = await svc.owner_for("console", "a")
    first = (await svc.remember(o, "I am allergic to peanuts")).memory
    # the same words reordered: identical hashing vectors, cosine 1.0
    again = await svc.remember(o, "peanuts: I am allergic to")
    assert again.duplicate_of is not None and again.duplicate_of.id == first.id
    assert len(await svc.list(o)) == 1


async def test_a_vector_only_neighbour_is_still_checked(service):
    """A fact that shares no word with an old one but is close in meaning reaches the rules
    through the vector neighbours (docs/ARCHITECTURE.md: up to 3 more with cosine >= 0.60)."""
    from bot.memory.writing import saving

    close = {"I cannot eat shellfish", "Crustaceans make me ill"}

    class Pinned(HashingEmbedder):
        async def embed(self, texts: list[str]) -> np.ndarray:
            out = self.encode_sync(texts)
            for i, t in enumerate(texts):
                if t in close:
                    out[i] = 0.0
                    out[i, 0] = 1.0  # the same direction: cosine 1.0
            return out

    svc, _, db = service
    svc.semantic = SemanticIndex(db, Pinned())
    o = await svc.owner_for("console", "a")
    first = (await svc.remember(o, "I cannot eat shellfish")).memory
    await svc.remember(o, "I have a shellfish cookbook")
    new = "Crustaceans make me ill"
    with db.session() as s:
        early = saving.gather(s, o, new, db.dialect, None)
    assert first.id not in {v.id for v in early.candidates}  # no shared word: words alone miss it
    cosines = await svc.semantic.neighbours(o, await svc.semantic.embed_one(new))
    assert cosines.get(first.id, 0) > 0.99
    with db.session() as s:
        found = saving.gather(s, o, new, db.dialect, cosines)
    assert first.id in {v.id for v in found.candidates}
    assert (await svc.remember(o, new)).memory is not None  # related, not the same: saved
