"""`python -m bot bench tidy`: how long one person's tidy-up takes, and how long the event loop
stalls meanwhile.

One person with 1,000 / 10,000 memories (50,000 with --large) of the latency benchmark's
realistic facts, every 20th restated (so there are true duplicates to merge), written straight
into a temporary SQLite database the way an import writes them. Then one curator run
(`bot.features.tidy.Curator.tidy`, the code the bot runs) while a heartbeat task wakes every
5 ms and records the longest gap: that is how long everything else in the process (replies,
polling, reminders, the Discord heartbeat) would have waited. Before, the process is set up
as `python -m bot run` leaves it (`bot.app.freeze_startup_heap`), and the same heartbeat runs
for a second with nothing else to do: the machine's noise floor, printed beside the stall.
Targets: the stall <= 50 ms at every size, the tidy-up at 10,000 <= 5 s.

The baseline in the same run: the curator before buckets (every memory checked against every
group, profiles recomputed per pair, on the loop), timed on its decisions alone at 1,000
memories (`--baseline-size`; 0 skips it). It grows with the square of the size: 24.5 s at 2,000
was measured by the review.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.latency import make_facts, spread_dates
from bot.config import Settings

DEFAULT_SIZES = (1_000, 10_000)
LARGE_SIZE = 50_000
RESTATE_EVERY = 20
TARGET_STALL_MS = 50.0
TARGET_TIDY_S_AT_10000 = 5.0
IDLE_SECONDS = 1.0


class Heartbeat:
    """Wakes every `period` seconds; `longest` is the largest extra delay seen (the stall)."""

    def __init__(self, period: float = 0.005) -> None:
        self.period = period
        self.longest = 0.0
        self.beats = 0
        self.gaps: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def reset(self) -> None:
        self.longest, self.beats, self.gaps = 0.0, 0, []

    def share_over(self, limit: float) -> float:
        """The share of beats that came more than `limit` seconds late."""
        return sum(1 for g in self.gaps if g > limit) / len(self.gaps) if self.gaps else 0.0

    def percentile(self, q: float) -> float:
        ordered = sorted(self.gaps)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(self.period)
            now = time.perf_counter()
            late = now - last - self.period
            self.longest = max(self.longest, late)
            self.gaps.append(late)
            self.beats += 1
            last = now


def memory_rows(owner_id: int, n: int, seed: int) -> list[dict[str, Any]]:
    """n realistic memories plus every `RESTATE_EVERY`th one restated an hour later."""
    texts, dates = make_facts(n, seed), spread_dates(n, seed)
    rows = []
    for i, (text, when) in enumerate(zip(texts, dates)):
        rows.append(dict(owner_id=owner_id, uid=f"m{i}", text=text, created_at=when, updated_at=when))
        if i % RESTATE_EVERY == 0:
            later = when + timedelta(hours=1)
            rows.append(dict(owner_id=owner_id, uid=f"r{i}", text=text.rstrip(".") + "!",
                             created_at=later, updated_at=later))
    return rows


async def measure_size(n: int, settings: Settings, workdir: str, seed: int) -> dict[str, Any]:
    from sqlalchemy import insert

    from bot.app import build_app, freeze_startup_heap
    from bot.storage.db import Database
    from bot.storage.models import Memory

    url = f"sqlite:///{Path(workdir) / f'tidy-{n}.db'}"
    db = Database(url)
    app = build_app(settings.model_copy(update={"database_url": url}), db=db, embedder=None, with_model=False)
    try:
        owner = await app.memory.owner_for("bench", "tidy-person")
        assert owner is not None
        rows = memory_rows(owner, n, seed)
        loaded = len(rows)
        started = time.perf_counter()
        for i in range(0, len(rows), 5000):
            await db.tx(lambda s, chunk=rows[i:i + 5000]: s.execute(insert(Memory), chunk))
        load_s = time.perf_counter() - started
        del rows
        freeze_startup_heap()  # as `python -m bot run` does once it has started

        beat = Heartbeat()
        beat.start()
        await asyncio.sleep(IDLE_SECONDS)  # the noise floor: the same heartbeat with nothing to do
        idle_stall, idle_p99 = beat.longest, beat.percentile(0.99)
        beat.reset()
        started = time.perf_counter()
        runs = 0
        while True:
            runs += 1
            report = await app.curator.tidy(owner)
            if report.skipped != "budget":
                break
        tidy_s = time.perf_counter() - started
        await beat.stop()
        again_started = time.perf_counter()
        unchanged = await app.curator.tidy(owner)
        return {
            "memories": loaded,
            "load_s": round(load_s, 2),
            "tidy_s": round(tidy_s, 2),
            "runs": runs,
            "merged": sum(len(m.merged_texts) for m in report.merged),
            "longest_stall_ms": round(beat.longest * 1000, 1),
            "stall_p99_ms": round(beat.percentile(0.99) * 1000, 1),
            "beats_over_50ms": round(beat.share_over(TARGET_STALL_MS / 1000) * beat.beats),
            "idle_stall_ms": round(idle_stall * 1000, 1),
            "idle_p99_ms": round(idle_p99 * 1000, 1),
            "heartbeats": beat.beats,
            "unchanged_check_s": round(time.perf_counter() - again_started, 3),
            "unchanged_skipped": unchanged.skipped == "unchanged",
        }
    finally:
        await app.close()


def all_pairs_decide_s(n: int, seed: int) -> float:
    """The curator before buckets, on its decisions alone: every memory against every group."""
    from bot.memory.writing.curator import Item, is_true_duplicate
    from bot.storage.models import utcnow

    rows = memory_rows(0, n, seed)
    items = [Item(id=i + 1, text=r["text"], created_at=r["created_at"]) for i, r in enumerate(rows)]
    started = time.perf_counter()
    groups: list[list[Item]] = []
    for it in sorted(items, key=lambda x: (x.created_at, x.id)):
        for group in groups:
            if all(is_true_duplicate(it, other) for other in group):
                group.append(it)
                break
        else:
            groups.append([it])
    utcnow()
    return time.perf_counter() - started


async def run_benchmark(sizes: list[int], settings: Settings, workdir: str, seed: int,
                        baseline_size: int, progress: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"sizes": {}}
    for n in sizes:
        progress(f"{n}: loading and tidying")
        out["sizes"][str(n)] = await measure_size(n, settings, workdir, seed)
        progress(f"{n}: {out['sizes'][str(n)]}")
    if baseline_size:
        progress(f"baseline: the all-pairs curator at {baseline_size} (decisions only)")
        base = await asyncio.to_thread(all_pairs_decide_s, baseline_size, seed)
        ours = out["sizes"].get(str(baseline_size), {}).get("tidy_s")
        out["baseline"] = {
            "memories": baseline_size,
            "all_pairs_decide_s": round(base, 2),
            "ours_tidy_s": ours,
            "ratio": round(base / ours, 1) if ours else None,
        }
    return out


def format_table(result: dict[str, Any]) -> str:
    sizes = result["sizes"]
    keys = sorted(sizes, key=int)
    rows = [("memories (with restatements)", "memories"), ("load s", "load_s"), ("tidy s", "tidy_s"),
            ("curator runs", "runs"), ("merged", "merged"), ("longest loop stall ms", "longest_stall_ms"),
            ("  p99 of the stalls ms", "stall_p99_ms"), ("  beats > 50 ms late", "beats_over_50ms"),
            ("  longest, idle for 1 s ms", "idle_stall_ms"),
            ("unchanged re-check s", "unchanged_check_s")]
    lines = [f"{'person memories':30s}" + "".join(f"{k:>12s}" for k in keys)]
    for label, key in rows:
        lines.append(f"{label:30s}" + "".join(f"{sizes[k][key]:>12}" for k in keys))
    stalls = [sizes[k]["longest_stall_ms"] for k in keys]
    verdicts = [f"stall <= {TARGET_STALL_MS:g} ms at every size: {'met' if max(stalls) <= TARGET_STALL_MS else 'NOT met'}"]
    if "10000" in sizes:
        t = sizes["10000"]["tidy_s"]
        verdicts.append(f"tidy at 10,000 {t:.2f} s <= {TARGET_TIDY_S_AT_10000:g}: "
                        f"{'met' if t <= TARGET_TIDY_S_AT_10000 else 'NOT met'}")
    lines.append("targets: " + "; ".join(verdicts))
    base = result.get("baseline")
    if base:
        ratio = f" (ours is {base['ratio']}x faster)" if base.get("ratio") else ""
        lines.append(f"baseline, the all-pairs curator at {base['memories']}: decisions alone "
                     f"{base['all_pairs_decide_s']} s, on the event loop; ours, the whole tidy-up: "
                     f"{base['ours_tidy_s']} s{ratio}")
    return "\n".join(lines)


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(s.replace("_", "")) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes takes numbers separated by commas, not {text!r}") from None
    if not sizes or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError("--sizes needs at least one positive size")
    return sizes


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench tidy", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=parse_sizes, default=list(DEFAULT_SIZES),
                        help="the person's memories, comma-separated (default 1000,10000)")
    parser.add_argument("--large", action="store_true", help=f"also {LARGE_SIZE:,} memories")
    parser.add_argument("--baseline-size", type=int, default=1_000,
                        help="size for the all-pairs baseline (default 1000; 0 skips it)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print only one JSON object")
    args = parser.parse_args(argv)
    sizes = sorted(set(args.sizes + ([LARGE_SIZE] if args.large else [])))

    def progress(msg: str) -> None:
        print(f"[tidy] {msg}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="bench-tidy-") as tmp:
        result = asyncio.run(run_benchmark(sizes, settings, tmp, args.seed, max(0, args.baseline_size), progress))
    print(json.dumps(result) if args.json else format_table(result))
    return 0
