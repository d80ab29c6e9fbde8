"""`python -m bot bench conflicts [--data FILE ...] [--embedding default|none] [--json]`: the
conflict rules measured through the real memory service, as the product runs them.

For each pair a fresh person stores `old`, then saves `new` with conflict review on. The pair
counts as nominated when that save asks about `old` or finds it a near duplicate (the rates per
kind, as before). Beside them:

- judge-candidate recall: the share of the nominate pairs whose old fact reaches the AI judge's
  candidate list (what the rules nominated, then up to three vector neighbours with cosine >=
  0.60). The judge itself is not called: a stand-in records what it was shown and answers
  nothing, so the rules decide, exactly as when the judge does not answer;
- recommended button right: of the nominated pairs, how often the recommended answer is the
  right one (slot_change: Mark older as past; duplicate: Keep both, Discard newer, or found as a
  near duplicate; keep-labelled kinds: Keep both).

Embeddings: `--embedding default` (the default: what the product uses, MiniLM) or `none` (rules
and keyword candidates only). Several `--data` files print one table each (JSON: one object
per file under "files" when more than one is given).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.conflicts import PairsError, evaluate_outcomes, format_table, load_pairs
from bench.datasets import data_file
from bot.config import Settings

DEFAULT_DATA = data_file("conflict_pairs_dev.jsonl")


async def service_outcomes(
    pairs: list[dict[str, Any]], settings: Settings, embedder: Any | None
) -> list[dict[str, Any]]:
    """Per pair: nominated, the recommended answer ("past", "keep", "discard" or None), and
    whether the old fact reached the judge's candidate list."""
    from bot.memory.index.semantic import SemanticIndex
    from bot.memory.service import MemoryService
    from bot.storage.db import Database

    with tempfile.TemporaryDirectory() as tmp:
        bench_settings = settings.model_copy(
            update={
                "database_url": f"sqlite:///{Path(tmp) / 'bench.db'}",
                "default_conflict_review": True,
                "default_ai_judge": True,
            }
        )
        db = Database(bench_settings.database_url)
        memory = MemoryService(db, bench_settings, SemanticIndex(db, embedder))
        out: list[dict[str, Any]] = []
        shown: list[int] = []

        async def recording_judge(new_fact: str, olds: list[tuple[int, str]]) -> None:
            shown.extend(old_id for old_id, _ in olds)
            return None  # no verdict: the rules decide, as when the judge does not answer

        try:
            for i, pair in enumerate(pairs):
                owner = await memory.owner_for("bench", f"pair-{i}")
                assert owner is not None
                old = await memory.remember(owner, pair["old"], review=False, dedupe=False)
                assert old.memory is not None
                shown.clear()
                new = await memory.remember(owner, pair["new"], judge=recording_judge)
                asked = {m.id for m in new.asked} | {m.id for m in new.retired}
                dup = new.duplicate_of.id if new.duplicate_of is not None else None
                nominated = old.memory.id in asked or dup == old.memory.id
                recommended = None
                if dup == old.memory.id:
                    recommended = "discard"  # not stored twice: what Discard newer would do
                elif nominated and new.conflict_id is not None:
                    view = await memory.conflict(owner, new.conflict_id)
                    if view is not None and view.recommended is not None:
                        recommended = view.recommended.value
                reached = old.memory.id in shown or nominated
                out.append({"nominated": nominated, "recommended": recommended, "judge_candidate": reached})
        finally:
            db.dispose()
        return out


def load_embedder(name: str, settings: Settings) -> Any | None:
    if name == "none":
        return None
    from bench.retrieval import load_embedder as load

    return load(settings.model_copy(update={"embedding_model": name}))


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench conflicts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", action="append", help="JSON lines of old/new pairs (repeat for several files)")
    parser.add_argument("--embedding", default="default",
                        help="default (MiniLM, as the product runs) or none (rules and keywords only)")
    parser.add_argument("--json", action="store_true", help="print only one JSON object")
    args = parser.parse_args(argv)
    files = args.data or [str(DEFAULT_DATA)]
    try:
        loaded = [(path, load_pairs(path)) for path in files]
    except (OSError, PairsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    embedder = load_embedder(args.embedding, settings)
    mode = "embeddings" if embedder is not None and embedder.ready else "rules and keywords"
    if args.embedding != "none" and mode != "embeddings":
        print(f"[conflicts] embedding model unavailable ({getattr(embedder, 'error', '?')}); rules only",
              file=sys.stderr)
    results = []
    try:
        for path, pairs in loaded:
            outcomes = asyncio.run(service_outcomes(pairs, settings, embedder))
            result = evaluate_outcomes(pairs, outcomes)
            result["embedding"] = args.embedding if mode == "embeddings" else "none"
            result["data"] = Path(path).name
            results.append(result)
    finally:
        close = getattr(embedder, "close", None)
        if close is not None:
            close()
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else {"files": results}))
    else:
        for result in results:
            print(f"{result['data']} ({result['pairs']} pairs; conflict check through the memory service, "
                  f"{mode})")
            print(format_table(result))
            print()
    return 0
