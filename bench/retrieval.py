"""`python -m bot bench retrieval [--data FILE] [--embedding default|none] [--json]`: recall
quality of the bot's own recall path on LoCoMo-format conversations, against a BM25 baseline.

Protocol (bench/data/README.md): per conversation a fresh person on one temporary SQLite
database; every turn is saved, in conversation order, as one memory "<speaker>: <text>"
(+ " [image: <caption>]") dated with its session's date (unreadable date: no date given, so the
save time stands); a turn longer than one memory may hold (2,000 characters; other data sets in
this layout have them) is saved as several parts, each "<speaker>: ..." (`parts_of`), and counts
once, at the rank of its best part. Saved through MemoryService.remember_many (the bulk save path: no conflict review,
no duplicate check, embeddings computed in one batch). Every question of categories 1-4 that
has evidence is then asked through MemoryService.recall(..., record_use=False), the code a
chat turn runs, read-only, and scored on Recalled.ranked[:20] (best first, before the context
budgets): recall@k = share of the evidence turns among the first k, hit@8 = share of questions
with at least one evidence turn in the first 8.

Baseline, in the same run: bm25s over the same turns of the same conversation, corpus and
question tokenised alike (bm25s.tokenize, English stop words). Documents scoring 0 (sharing no
word with the question) are not counted as retrieved.

Embeddings: the default model (MiniLM), loaded before the run starts; `--embedding none`
measures keyword-only mode. If the model cannot load, the run goes on in keyword mode and
"mode" says so. Exit status 0 whether or not the target (recall@8 >= 0.60) is met; with
--json stdout carries only one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.datasets import data_file
from bench.locomo import Conversation, hit_at_k, load_locomo, recall_at_k
from bot.config import Settings
from bot.memory.writing.saving import MAX_FACT_CHARS

DEFAULT_DATA = data_file("locomo10.json")
KS = (5, 8, 10, 20)
TOP = 20
TARGET_RECALL_AT_8 = 0.60


@dataclass(frozen=True)
class Scored:
    """One question's outcome: the top-20 turn ids of each method."""

    category: int
    evidence: tuple[str, ...]
    ours: tuple[str, ...]
    bm25: tuple[str, ...]


# ------------------------------------------------------------------------------ baseline
def bm25_tokens(texts: Sequence[str]) -> list[list[str]]:
    """How both the corpus and the questions are tokenised for the baseline."""
    import bm25s

    return bm25s.tokenize(list(texts), stopwords="en", return_ids=False, show_progress=False)


class Bm25Baseline:
    """bm25s over one list of texts; `search` returns positions, best first, score > 0 only."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        logging.getLogger("bm25s").setLevel(max(logging.getLogger("bm25s").getEffectiveLevel(), logging.INFO))
        self.n = len(texts)
        self.retriever = bm25s.BM25()
        if self.n:
            self.retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False),
                                 show_progress=False)

    def search(self, query: str, k: int) -> list[int]:
        return self.search_tokens(bm25_tokens([query])[0], k)

    def search_tokens(self, tokens: list[str], k: int) -> list[int]:
        if not self.n or not tokens:
            return []
        docs, scores = self.retriever.retrieve([tokens], k=min(k, self.n), show_progress=False)
        return [int(d) for d, s in zip(docs[0], scores[0]) if s > 0]


# ------------------------------------------------------------------------------ long turns
_SPEAKER = re.compile(r"^[^:\n]{1,60}: ")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def parts_of(text: str, limit: int = MAX_FACT_CHARS) -> list[str]:
    """A turn as the memories that store it: itself when it fits one memory, else consecutive
    parts of at most `limit` characters, cut after a sentence (else at a space, else anywhere),
    each starting with the turn's "Speaker: " so that every part says who spoke. Whitespace is
    folded first, as a save does; nothing else is changed or lost."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return [text]
    m = _SPEAKER.match(text)
    prefix = m.group(0) if m else ""
    body = text[len(prefix):]
    room = limit - len(prefix)
    parts: list[str] = []
    while body:
        if len(body) <= room:
            parts.append(body)
            break
        window = body[: room + 1]
        cuts = [c.end() for c in _SENTENCE_END.finditer(window) if c.end() <= room + 1]
        cut = cuts[-1] if cuts else window.rfind(" ") + 1
        if cut <= 0:
            cut = room
        parts.append(body[:cut].rstrip())
        body = body[cut:].lstrip()
    return [prefix + p for p in parts]


# ------------------------------------------------------------------------------ the run
def as_utc(when: datetime | None) -> datetime | None:
    """The memory store keeps aware UTC times; a session date without a zone is read as UTC
    (its wall clock is kept, which is what questions naming a date compare against)."""
    if when is None or when.tzinfo is not None:
        return when
    return when.replace(tzinfo=timezone.utc)


async def score_conversations(
    convs: Sequence[Conversation],
    settings: Settings,
    embedder: Any | None,
    database_url: str,
    *,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Scored], str, dict[str, float]]:
    """Save every conversation through the product path and ask its questions.

    Returns (one Scored per question, mode of the last recall, timings in seconds)."""
    from bot.storage.db import Database
    from bot.memory.index.semantic import SemanticIndex
    from bot.memory.service import MemoryService

    db = Database(database_url)
    memory = MemoryService(db, settings, SemanticIndex(db, embedder))
    out: list[Scored] = []
    mode = "hybrid" if memory.semantic.ready else "keyword"
    timings = {"save_s": 0.0, "recall_s": 0.0, "baseline_s": 0.0}
    long_turns = 0
    try:
        for n, conv in enumerate(convs):
            owner = await memory.owner_for("bench", f"locomo-{n}-{conv.sample_id}")
            assert owner is not None
            started = time.perf_counter()
            items, turn_of = [], []  # a long turn is saved as several memories, all its own
            for t in conv.turns:
                parts = parts_of(t.text)
                long_turns += len(parts) > 1
                for part in parts:
                    items.append((part, as_utc(t.created_at)))
                    turn_of.append(t.dia_id)
            ids = await memory.remember_many(owner, items)
            timings["save_s"] += time.perf_counter() - started
            dia_of = dict(zip(ids, turn_of))

            started = time.perf_counter()
            baseline = Bm25Baseline([t.text for t in conv.turns])
            questions = conv.scored_questions()
            bm25_ranked = [
                tuple(conv.turns[p].dia_id for p in baseline.search(q.question, TOP)) for q in questions
            ]
            timings["baseline_s"] += time.perf_counter() - started

            started = time.perf_counter()
            for q, bm in zip(questions, bm25_ranked):
                got = await memory.recall(owner, q.question, record_use=False)
                mode = got.mode
                # a turn counts once, at the rank of its best part
                ours = tuple(dict.fromkeys(dia_of[mid] for mid in got.ranked if mid in dia_of))[:TOP]
                out.append(Scored(q.category, q.evidence, ours, bm))
            timings["recall_s"] += time.perf_counter() - started
            if progress is not None:
                progress(f"conversation {n + 1}/{len(convs)}: {len(conv.turns)} turns, "
                         f"{len(questions)} questions")
    finally:
        db.dispose()
    timings["long_turns"] = float(long_turns)
    return out, mode, timings


def summarise(rows: Sequence[Scored], which: str) -> dict[str, Any]:
    """recall@5/8/10/20, hit@8 and recall@8 by category for one method ("ours" or "bm25")."""
    n = len(rows)
    res: dict[str, Any] = {}
    for k in KS:
        res[f"recall@{k}"] = sum(recall_at_k(getattr(r, which), r.evidence, k) for r in rows) / n if n else 0.0
    res["hit@8"] = sum(hit_at_k(getattr(r, which), r.evidence, 8) for r in rows) / n if n else 0.0
    by_cat: dict[int, list[float]] = {}
    for r in rows:
        by_cat.setdefault(r.category, []).append(recall_at_k(getattr(r, which), r.evidence, 8))
    res["by_category"] = {str(c): sum(v) / len(v) for c, v in sorted(by_cat.items())}
    return res


def _rounded(res: dict[str, Any], digits: int = 4) -> dict[str, Any]:
    return {k: (_rounded(v, digits) if isinstance(v, dict) else round(v, digits)) for k, v in res.items()}


async def run_benchmark(
    convs: Sequence[Conversation],
    settings: Settings,
    embedder: Any | None,
    database_url: str,
    *,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The benchmark's result object (what --json prints), plus "timings" kept apart by main."""
    rows, mode, timings = await score_conversations(convs, settings, embedder, database_url, progress=progress)
    long_turns = int(timings.pop("long_turns", 0))
    return {
        "questions": len(rows),
        "ours": _rounded(summarise(rows, "ours")),
        "baseline_bm25": _rounded(summarise(rows, "bm25")),
        "mode": mode,
        "long_turns": long_turns,  # turns longer than one memory, stored in parts
        "_timings": {k: round(v, 2) for k, v in timings.items()},
    }


def format_table(result: dict[str, Any], meta: dict[str, Any]) -> str:
    ours, base = result["ours"], result["baseline_bm25"]
    cols = [f"recall@{k}" for k in KS] + ["hit@8"]
    cats = sorted(set(ours["by_category"]) | set(base["by_category"]), key=int)
    lines = [
        f"LoCoMo retrieval: {result['questions']} questions, {meta['conversations']} conversations, "
        f"{meta['memories']} turns ({result['long_turns']} stored in parts); recall mode: {result['mode']}",
        "",
        f"{'method':16s} " + " ".join(f"{c:>9s}" for c in cols) + "  " + " ".join(f"{'cat' + c:>6s}" for c in cats),
    ]
    for name, res in (("ours (recall)", ours), ("bm25s baseline", base)):
        lines.append(
            f"{name:16s} " + " ".join(f"{res[c]:9.3f}" for c in cols) + "  "
            + " ".join(f"{res['by_category'].get(c, float('nan')):6.3f}" for c in cats)
        )
    if base["recall@8"] > 0:
        lines.append(f"{'ratio':16s} " + " ".join(
            f"{(ours[c] / base[c] if base[c] else float('nan')):8.2f}x" for c in cols))
    lines.append("")
    lines.append("by_category columns are recall@8 (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop)")
    met = ours["recall@8"] >= TARGET_RECALL_AT_8
    lines.append(f"target recall@8 >= {TARGET_RECALL_AT_8:.2f}: {'met' if met else 'NOT met'} ({ours['recall@8']:.3f})")
    t = meta["timings"]
    lines.append(f"time: model load {meta['load_s']:.1f}s, saves {t['save_s']:.1f}s, recall {t['recall_s']:.1f}s, "
                 f"baseline {t['baseline_s']:.1f}s, total {meta['total_s']:.1f}s")
    return "\n".join(lines)


def load_embedder(settings: Settings) -> Any | None:
    """The embedder the settings ask for, loaded now; None for "none". A model that fails to
    load is returned anyway (not ready), so recall runs in keyword mode and says so."""
    from bot.memory.embeddings.encoder import build_embedder

    embedder = build_embedder(settings, start=False)
    if embedder is not None:
        embedder.load_now()
    return embedder


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench retrieval", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo-format JSON file")
    parser.add_argument("--embedding", default=None,
                        help="embedding model: default (MiniLM), none (keyword only), or a model folder "
                             "(default: the EMBEDDING_MODEL setting)")
    parser.add_argument("--json", action="store_true", help="print only one JSON object")
    args = parser.parse_args(argv)
    total_started = time.perf_counter()
    try:
        convs = load_locomo(args.data)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    def progress(msg: str) -> None:
        print(f"[retrieval] {msg}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="bench-retrieval-") as tmp:
        overrides: dict[str, Any] = {"database_url": f"sqlite:///{Path(tmp) / 'bench.db'}"}
        if args.embedding is not None:
            overrides["embedding_model"] = args.embedding
        bench_settings = settings.model_copy(update=overrides)
        started = time.perf_counter()
        embedder = load_embedder(bench_settings)
        load_s = time.perf_counter() - started
        if embedder is not None and not embedder.ready:
            progress(f"embedding model unavailable ({getattr(embedder, 'error', '?')}); keyword mode")
        try:
            result = asyncio.run(run_benchmark(convs, bench_settings, embedder, bench_settings.database_url,
                                               progress=progress))
        finally:
            close = getattr(embedder, "close", None)
            if close is not None:
                close()
    timings = result.pop("_timings")
    meta = {
        "conversations": len(convs),
        "memories": sum(len(c.turns) for c in convs),
        "timings": timings,
        "load_s": load_s,
        "total_s": time.perf_counter() - total_started,
    }
    progress(f"done in {meta['total_s']:.1f}s (model load {load_s:.1f}s, saves {timings['save_s']:.1f}s, "
             f"recall {timings['recall_s']:.1f}s)")
    print(json.dumps(result) if args.json else format_table(result, meta))
    return 0
