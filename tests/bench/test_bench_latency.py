"""The latency benchmark (bench/latency.py) at a tiny size: the JSON shape, the synthetic data,
the vector cache. Not timed: the figures themselves are not checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench import latency
from bot.memory.embeddings.encoder import HashingEmbedder
from tests.conftest import make_settings

REPO = Path(__file__).resolve().parents[2]
SIZE_KEYS = {"recall_p50_ms", "recall_p95_ms", "recall_embed_p95_ms", "remember_p95_ms", "build_per_s", "bm25_p95_ms"}
TINY = ["--others", "2", "--others-memories", "5", "--queries", "5", "--remembers", "3", "--vector-cache", "none"]


def _check_sizes(result: dict, sizes: list[int]) -> None:
    assert set(result["sizes"]) == {str(n) for n in sizes}
    for n in sizes:
        entry = result["sizes"][str(n)]
        assert SIZE_KEYS <= set(entry)
        for key in SIZE_KEYS:
            assert isinstance(entry[key], (int, float)) and entry[key] >= 0
        assert entry["recall_p50_ms"] <= entry["recall_p95_ms"]
        assert entry["memories"] == n


async def test_tiny_run_with_hashing_embedder(tmp_path):
    result = await latency.run_benchmark(
        [30, 60], make_settings(), HashingEmbedder(), workdir=str(tmp_path), cache_dir=str(tmp_path / "cache"),
        others=2, others_memories=5, queries=6, remembers=3,
    )
    _check_sizes(result, [30, 60])
    first, second = result["sizes"]["30"], result["sizes"]["60"]
    assert first["mode"] == "hybrid"
    assert first["loaded"] == 30 + 2 * 5
    assert first["build_per_s_estimated"] is False  # nothing cached yet: measured
    assert second["build_per_s_estimated"] is True  # the other people's vectors came from the cache
    assert second["build_vectors_from_cache"] >= 10
    assert sum(first["remember_outcomes"].values()) == 3
    assert "remember_sync_normal_p95_ms" in first
    assert set(result["growth"]) == {"30->60"}
    assert list(tmp_path.glob("latency-*.db*")) == []  # each size's database is removed
    assert list((tmp_path / "cache").glob("*.npz"))


def test_main_json_keyword_mode(capsys):
    assert latency.main(make_settings(), ["--memories", "40", "--embedding", "none", "--json", *TINY]) == 0
    result = json.loads(capsys.readouterr().out)
    _check_sizes(result, [40])
    assert result["sizes"]["40"]["mode"] == "keyword"
    assert latency.main(make_settings(), ["--memories", "40", "--embedding", "none", *TINY]) == 0
    table = capsys.readouterr().out
    assert "recall p95 ms" in table and "bm25s p95 ms" in table


def test_bad_sizes_are_refused():
    with pytest.raises(SystemExit):
        latency.main(make_settings(), ["--memories", "ten", "--json"])
    with pytest.raises(SystemExit):
        latency.main(make_settings(), ["--memories", "0", "--json"])


def test_cli_route(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "EMBEDDING"))}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "bench", "latency", "--memories", "30", "--embedding", "none", "--json", *TINY],
        cwd=tmp_path, env=env | {"PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    _check_sizes(json.loads(proc.stdout), [30])


def test_synthetic_memories_look_like_facts():
    facts = latency.make_facts(2000, 5)
    assert facts == latency.make_facts(2000, 5)  # seeded
    words = [len(f.split()) for f in facts]
    assert 6 <= min(words) and max(words) <= 40 and 10 <= sum(words) / len(words) <= 20
    assert len(set(facts)) > 0.95 * len(facts)
    assert sum(f.startswith(("I ", "My ", "Our ", "We ")) for f in facts) > 0.3 * len(facts)
    questions = latency.make_questions(200, 5)
    assert all(q.endswith("?") or q.startswith("remind") for q in questions)
    dates = latency.spread_dates(100, 5)
    assert dates == sorted(dates) and all(d.tzinfo is not None for d in dates)


async def test_vector_cache_round_trip(tmp_path):
    inner = HashingEmbedder(32)
    cache = latency.CachingEmbedder(inner, str(tmp_path))
    first = await cache.embed(["a cat", "a dog"])
    assert cache.model_texts == 2 and cache.cached_texts == 0
    again = await cache.embed(["a dog", "a bird"])
    assert cache.model_texts == 3 and cache.cached_texts == 1
    assert np.allclose(again[0], first[1])
    cache.save()
    reread = latency.CachingEmbedder(inner, str(tmp_path))
    out = await reread.embed(["a cat", "a bird"])
    assert reread.model_texts == 0 and reread.cached_texts == 2
    assert np.allclose(out, inner.encode_sync(["a cat", "a bird"]))


def test_percentile():
    assert latency.percentile([], 95) == 0.0
    assert latency.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert latency.percentile(list(range(101)), 95) == pytest.approx(95.0)


# ---------------------------------------------------------------------------------------------
# The recall-path changes the latency benchmark led to must not change what recall returns.

async def _two_people(tmp_path, n: int = 120):
    """A SQLite file with two people's memories saved interleaved, some deleted, archived or
    marked deleted, so timelines and keyword hits have holes and other people's rows."""
    import random

    import sqlalchemy as sa

    from bot.storage.db import Database
    from bot.memory.service import MemoryService

    db = Database(f"sqlite:///{tmp_path / 'p.db'}")
    memory = MemoryService(db, make_settings())
    a = await memory.owner_for("t", "a")
    b = await memory.owner_for("t", "b")
    facts = latency.make_facts(2 * n, 11)
    dates = latency.spread_dates(2 * n, 11, days=20)
    for i in range(0, 2 * n, 10):
        owner = a if (i // 10) % 2 == 0 else b
        await memory.remember_many(owner, list(zip(facts[i:i + 10], dates[i:i + 10])))
    rng = random.Random(3)
    with db.engine.begin() as conn:
        ids = [r[0] for r in conn.execute(sa.text("SELECT id FROM memory"))]
        for mid in rng.sample(ids, len(ids) // 5):
            change = rng.choice(["deleted_at = '2025-01-01 00:00:00'", "archived = 1", "status = 'deleted'"])
            conn.execute(sa.text(f"UPDATE memory SET {change} WHERE id = :i"), {"i": mid})
    return db, memory, a, b, ids


async def test_timeline_statement_matches_the_portable_form(tmp_path):
    import random

    from bot.memory.index import keyword as search

    db, _memory, a, b, ids = await _two_people(tmp_path)
    rng = random.Random(4)
    try:
        with db.engine.connect() as conn:
            for _ in range(60):
                owner = rng.choice([a, b])
                cands = rng.sample(ids, rng.randint(1, 40))
                window = rng.randint(0, 3)
                fast = search.timeline_around(conn, owner, cands, window)
                search._sqlite_json["ok"] = False
                try:
                    portable = search.timeline_around(conn, owner, cands, window)
                finally:
                    search._sqlite_json.pop("ok", None)
                assert fast == portable
    finally:
        db.dispose()


async def test_keyword_search_top_first_matches_the_full_query(tmp_path):
    from bot.memory.index import keyword as search

    db, _memory, a, b, _ids = await _two_people(tmp_path)
    questions = latency.make_questions(40, 5) + latency.make_facts(20, 6) + ["Lisbon", "nothing matches zzz"]
    try:
        with db.engine.connect() as conn:
            for q in questions:
                for owner in (a, b):
                    for limit in (1, 3, 50):
                        for archived in (False, True):
                            got = search.keyword_search(conn, owner, q, limit, "sqlite", include_archived=archived)
                            match = search.fts_match(owner, q)
                            full = [] if match is None else [
                                (int(r[0]), float(r[1])) for r in conn.execute(
                                    search._SQLITE_SQL, {"match": match, "owner": owner, "archived": archived, "limit": limit})
                            ]
                            assert got == full
    finally:
        db.dispose()


async def test_newest_cache_follows_saves_deletes_and_undo(tmp_path):
    from datetime import datetime, timedelta, timezone

    from sqlalchemy import func
    from sqlmodel import select

    from bot.storage.db import Database
    from bot.storage.models import Memory
    from bot.memory.service import MemoryService

    db = Database(f"sqlite:///{tmp_path / 'n.db'}")
    memory = MemoryService(db, make_settings())
    owner = await memory.owner_for("t", "n")
    other = await memory.owner_for("t", "o")

    def both() -> tuple[object, object]:
        with db.session() as s:
            direct = s.exec(select(func.max(Memory.created_at)).where(
                Memory.owner_id == owner, Memory.deleted_at.is_(None))).first()
            return memory.newest.get(s, owner), direct

    try:
        cached, direct = both()
        assert cached is None and direct is None
        t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
        ids = await memory.remember_many(owner, [(f"Fact number {i} about gardening", t0 + timedelta(days=i)) for i in range(5)])
        cached, direct = both()
        assert cached == direct == t0 + timedelta(days=4)
        await memory.remember_many(owner, [("An older fact, imported later", t0 - timedelta(days=30))])
        await memory.remember_many(other, [("Someone else's newer fact", t0 + timedelta(days=99))])
        cached, direct = both()
        assert cached == direct == t0 + timedelta(days=4)
        await memory.delete(owner, ids[-1])  # the newest goes
        cached, direct = both()
        assert cached == direct == t0 + timedelta(days=3)
        await memory.undo(owner)  # and comes back
        cached, direct = both()
        assert cached == direct == t0 + timedelta(days=4)
        await memory.remember_many(owner, [("A newer fact", t0 + timedelta(days=50))])
        cached, direct = both()
        assert cached == direct == t0 + timedelta(days=50)
        await memory.forget_everything(owner)
        cached, direct = both()
        assert cached is None and direct is None
    finally:
        db.dispose()
