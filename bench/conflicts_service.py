"""`python -m bot bench conflicts --data FILE [--json]`: the conflict rules measured through the
real memory service.

For each pair a fresh person stores `old`, then saves `new` with conflict review on; the pair
counts as nominated when that save asks about `old` or finds it a near duplicate. Rules only:
no embeddings and no AI judge, so the figures describe the rules.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.datasets import data_file
from bench.conflicts import PairsError, evaluate, format_table, load_pairs
from bot.config import Settings

DEFAULT_DATA = data_file("conflict_pairs_dev.jsonl")


async def service_decisions(pairs: list[dict[str, Any]], settings: Settings) -> dict[tuple[str, str], bool]:
    from bot.storage.db import Database
    from bot.memory.service import MemoryService

    with tempfile.TemporaryDirectory() as tmp:
        bench_settings = settings.model_copy(
            update={
                "database_url": f"sqlite:///{Path(tmp) / 'bench.db'}",
                "embedding_model": "none",
                "default_conflict_review": True,
                "default_ai_judge": False,
            }
        )
        db = Database(bench_settings.database_url)
        memory = MemoryService(db, bench_settings)
        out: dict[tuple[str, str], bool] = {}
        try:
            for i, pair in enumerate(pairs):
                owner = await memory.owner_for("bench", f"pair-{i}")
                assert owner is not None
                old = await memory.remember(owner, pair["old"], review=False, dedupe=False)
                assert old.memory is not None
                new = await memory.remember(owner, pair["new"])
                asked = {m.id for m in new.asked} | {m.id for m in new.retired}
                dup = new.duplicate_of.id if new.duplicate_of is not None else None
                out[(pair["old"], pair["new"])] = old.memory.id in asked or dup == old.memory.id
        finally:
            db.dispose()
        return out


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench conflicts", description=__doc__)
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="JSON lines of old/new pairs")
    parser.add_argument("--json", action="store_true", help="print only one JSON object")
    args = parser.parse_args(argv)
    try:
        pairs = load_pairs(args.data)
    except (OSError, PairsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    decided = asyncio.run(service_decisions(pairs, settings))
    result = evaluate(pairs, lambda old, new: decided[(old, new)])
    print(json.dumps(result) if args.json else format_table(result))
    return 0
