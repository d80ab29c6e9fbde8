"""`python -m bot bench import`: a 5 MB /import, and how long another person waits meanwhile.

A backup of realistic facts (the latency benchmark's) of about `--megabytes` (default 5) is
imported through `MemoryService.import_bytes`, the code /import runs, on SQLite (a temporary
file) and on PostgreSQL (a temporary schema on `--postgres`, default TEST_POSTGRES_URL's server;
skipped with the reason when it cannot be reached). Meanwhile another person lists their
memories again and again (the same `list` as /memories); every wait is recorded. Target: the
other person is answered within a second.

The baseline in the same run: the same import written in one transaction (all rows at once, as
imports were before they were staged in batches), with the same other person waiting.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.latency import make_facts
from bot.config import Settings

DEFAULT_MB = 5.0
TARGET_WAIT_S = 1.0
PROBE_PAUSE_S = 0.02
DEFAULT_POSTGRES = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def backup_bytes(megabytes: float, seed: int = 9) -> bytes:
    """A backup as /export writes it (every field of every memory, indented), of about
    `megabytes`, of realistic facts."""
    facts = make_facts(20_000, seed)
    mems: list[dict[str, Any]] = []
    size, i = 0, 0
    while size < megabytes * 1_000_000:
        mems.append({
            "uid": f"{i:032x}", "text": f"{facts[i % len(facts)]} ({i})", "category": "fact", "slot": None,
            "status": "current", "replaced_by": None, "valid_from": None, "valid_until": None,
            "source": "command", "confidence": 1.0, "importance": 0.5, "uses": i % 7,
            "last_used_at": None, "created_at": "2025-01-01T00:00:00+00:00",
            "updated_at": "2025-01-01T00:00:00+00:00", "archived": False,
        })
        size += len(json.dumps(mems[-1], indent=1)) + 2
        i += 1
    doc = {"format": "memory-assistant-backup", "version": 1, "exported_at": "2026-01-01T00:00:00Z", "memories": mems}
    return json.dumps(doc, ensure_ascii=False, indent=1).encode()


async def _one_run(memory: Any, raw: bytes, name: str, batched: bool) -> dict[str, Any]:
    from bot.memory.writing import transfer

    importer = await memory.owner_for("bench", f"importer-{name}")
    other = await memory.owner_for("bench", f"other-{name}")
    await memory.remember(other, "I keep bees on the roof")
    waits: list[float] = []
    started = time.perf_counter()
    if batched:
        task = asyncio.create_task(memory.import_bytes(importer, raw))
    else:
        backup = await asyncio.to_thread(transfer.parse_backup, raw)
        task = asyncio.create_task(memory._tx(transfer.import_backup, importer, backup))
    await asyncio.sleep(0.05)
    while not task.done():
        t = time.perf_counter()
        await memory.list(other)
        waits.append(time.perf_counter() - t)
        await asyncio.sleep(PROBE_PAUSE_S)
    report = await task
    took = time.perf_counter() - started
    waits.sort()
    return {
        "import_s": round(took, 2),
        "added": report.added,
        "probes": len(waits),
        "other_wait_p50_ms": round(waits[len(waits) // 2] * 1000, 1) if waits else None,
        "other_wait_max_ms": round(waits[-1] * 1000, 1) if waits else None,
    }


async def measure(url: str, pg_schema: str | None, settings: Settings, raw: bytes) -> dict[str, Any]:
    from bot.memory.service import MemoryService
    from bot.storage.db import Database

    db = Database(url, pg_schema=pg_schema)
    memory = MemoryService(db, settings.model_copy(update={"database_url": url}))
    try:
        batched = await _one_run(memory, raw, "batched", True)
        single = await _one_run(memory, raw, "single", False)
    finally:
        db.dispose()
    return {"batched": batched, "one_transaction": single}


def postgres_schema(server_url: str) -> tuple[str | None, str]:
    """A fresh schema on the server, or (None, why it cannot be used)."""
    try:
        import psycopg

        dsn = server_url.replace("postgresql+psycopg://", "postgresql://")
        schema = f"bench_import_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(dsn, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        return schema, ""
    except Exception as exc:  # noqa: BLE001 - any failure means "not available here"
        return None, f"{type(exc).__name__}: {exc}"


def drop_schema(server_url: str, schema: str) -> None:
    import psycopg

    dsn = server_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def format_table(result: dict[str, Any]) -> str:
    lines = [f"backup: {result['bytes']:,} bytes, {result['memories']:,} memories"]
    for backend, got in result["backends"].items():
        if "skipped" in got:
            lines.append(f"{backend}: skipped ({got['skipped']})")
            continue
        b, one = got["batched"], got["one_transaction"]
        verdict = "met" if (b["other_wait_max_ms"] or 0) <= TARGET_WAIT_S * 1000 else "NOT met"
        lines.append(
            f"{backend}: import {b['import_s']} s; another person's /memories waited p50 "
            f"{b['other_wait_p50_ms']} ms, max {b['other_wait_max_ms']} ms over {b['probes']} tries "
            f"(target <= {TARGET_WAIT_S * 1000:.0f} ms: {verdict})"
        )
        lines.append(
            f"  baseline, the same import in one transaction: {one['import_s']} s; the other person waited "
            f"max {one['other_wait_max_ms']} ms over {one['probes']} tries"
        )
    return "\n".join(lines)


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench import", description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=DEFAULT_MB, help="size of the backup (default 5)")
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES, help="PostgreSQL server URL ('none' to skip)")
    parser.add_argument("--json", action="store_true", help="print only one JSON object")
    args = parser.parse_args(argv)
    raw = backup_bytes(args.megabytes)
    result: dict[str, Any] = {"bytes": len(raw), "memories": len(json.loads(raw)["memories"]), "backends": {}}

    def progress(msg: str) -> None:
        print(f"[import] {msg}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        progress("sqlite")
        url = f"sqlite:///{Path(tmp) / 'import.db'}"
        result["backends"]["sqlite"] = asyncio.run(measure(url, None, settings, raw))
    if str(args.postgres).lower() not in ("", "none"):
        schema, why = postgres_schema(args.postgres)
        if schema is None:
            result["backends"]["postgresql"] = {"skipped": why}
        else:
            progress("postgresql")
            try:
                result["backends"]["postgresql"] = asyncio.run(measure(args.postgres, schema, settings, raw))
            finally:
                drop_schema(args.postgres, schema)
    print(json.dumps(result) if args.json else format_table(result))
    return 0
