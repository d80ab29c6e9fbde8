"""`python -m bot bench api [--memories 10000] [--queries 300] [--saves 100] [--clients 20] [--json]`:
what the HTTP API and MCP add to recall and to a save, beside the same verbs in process, in the
same run on the same database.

Set-up: a fresh SQLite file with one person's synthetic memories (bench/latency.py's facts and
questions; vectors from its on-disk cache when present) and an API token; then the web server
as its own process, `python -m bot web`, on a free port, with the same embedding model, the
rate limit off (it would throttle a benchmark) and the curator held back (it would tidy the new
memories in the middle of the timing). Its first recall loads the person's vectors (warm-up, not
timed).

Timed, each question three ways back to back in a rotating order, so that the three see the same
moment of the background load (the machine is shared):
- in-process recall: MemoryService.recall(question) in this process, embedding included: the
  baseline, exactly what GET /api/recall does inside the server;
- HTTP recall: GET /api/recall?q=... with one keep-alive client (httpx);
- MCP search_memories: the SDK's own client over streamable HTTP, one session;
- saves: MemoryService.remember in process, POST /api/memories and MCP add_memory, in turn (a
  new fact each time, conflict review on, as the chat saves);
- throughput: recalls per second with 20 concurrent clients, over HTTP (20 connections) and in
  process (20 concurrent calls), for the same number of questions.

The figures that matter are the differences (HTTP or MCP p95 minus in-process p95), measured in
the same run. Targets: HTTP adds <= 3 ms p95, MCP <= 8 ms. Exit status 0 whether or not they
are met; with --json stdout carries only one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from bench.latency import DEFAULT_CACHE, CachingEmbedder, make_facts, make_questions, percentile, spread_dates
from bot.config import Settings

TARGETS = {"http_added_p95_ms": 3.0, "mcp_added_p95_ms": 8.0}
LISTENING = re.compile(r"web server listening on (http://127\.0\.0\.1:\d+)")
ROOT = Path(__file__).resolve().parents[1]


def _ms(values: Sequence[float], q: float) -> float:
    return round(percentile(values, q) * 1000.0, 2)


def _stats(values: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": _ms(values, 50), "p95_ms": _ms(values, 95), "n": len(values)}


def _paired(base: Sequence[float], other: Sequence[float]) -> dict[str, float]:
    added = [b - a for a, b in zip(base, other)]
    return {"p50_ms": _ms(added, 50), "p95_ms": _ms(added, 95)}


async def _timed(fn: Callable[[], Awaitable[Any]], into: list[float]) -> Any:
    started = time.perf_counter()
    out = await fn()
    into.append(time.perf_counter() - started)
    return out


class Server:
    """`python -m bot web` on the benchmark's database, in its own process."""

    def __init__(self, database_url: str, embedding: str, workdir: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "ANTHROPIC_"))}
        env.update({
            "DATABASE_URL": database_url, "EMBEDDING_MODEL": embedding, "WEB_PORT": "0", "WEB_HOST": "127.0.0.1",
            "API_RATE_LIMIT_PER_MINUTE": "0", "LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1",
            # the curator would tidy the 10,000 new memories in the middle of the timing
            "CURATOR_EVERY_N_MEMORIES": "100000000", "CURATOR_INTERVAL_MINUTES": "100000",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")])),
        })
        self.env, self.workdir, self.embedding = env, workdir, embedding
        self.proc: asyncio.subprocess.Process | None = None
        self.log = ""

    async def start(self, timeout: float = 300) -> str:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "web", cwd=self.workdir, env=self.env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )
        url = None
        ready = self.embedding == "none"
        async with asyncio.timeout(timeout):
            while url is None or not ready:
                line = await self.proc.stderr.readline()  # type: ignore[union-attr]
                if not line:
                    raise RuntimeError("the web server ended while starting:\n" + self.log[-2000:])
                text = line.decode(errors="replace")
                self.log += text
                found = LISTENING.search(text)
                if found:
                    url = found.group(1)
                if "embedding model" in text and "ready" in text:
                    ready = True
                if "embedding model" in text and ("failed" in text or "unavailable" in text):
                    ready = True  # keyword mode, said in the result
        asyncio.get_running_loop().create_task(self._drain())
        return url

    async def _drain(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            self.log += line.decode(errors="replace")

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), 30)
            except asyncio.TimeoutError:
                self.proc.kill()
                await self.proc.wait()


async def run_benchmark(
    settings: Settings, *, memories: int, queries: int, saves: int, clients: int, embedding: str,
    workdir: str, cache_dir: str | None, progress: Callable[[str], None],
) -> dict[str, Any]:
    import httpx
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from bench.retrieval import load_embedder
    from bot.app import build_app

    url = f"sqlite:///{Path(workdir) / 'api.db'}"
    bench_settings = settings.model_copy(update={"database_url": url, "embedding_model": embedding})
    model = load_embedder(bench_settings)
    loader = CachingEmbedder(model, cache_dir) if model is not None and model.ready else model
    app = build_app(bench_settings, embedder=loader, with_model=False, role="web")
    out: dict[str, Any] = {"memories": memories, "queries": queries, "saves": saves, "clients": clients}
    server = Server(url, embedding, workdir)
    try:
        person = await app.memory.owner_for("bench", "api-person")
        assert person is not None
        texts, dates = make_facts(memories, 1), spread_dates(memories, 1)
        progress(f"loading {memories} memories")
        started = time.perf_counter()
        for i in range(0, memories, 1000):
            await app.memory.remember_many(person, list(zip(texts[i:i + 1000], dates[i:i + 1000])))
        out["load_s"] = round(time.perf_counter() - started, 1)
        if isinstance(loader, CachingEmbedder):
            loader.save()
            app.memory.semantic.embedder = model  # timed work uses the model itself, as the server does
        secret = (await app.access.create("bench", "api-person", "bench")).secret
        qs = make_questions(queries, 8)
        first = await app.memory.recall(person, qs[0], record_use=False)
        out["mode"] = first.mode

        progress("starting python -m bot web")
        base = await server.start()
        headers = {"Authorization": f"Bearer {secret}"}
        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=60) as http, \
                create_mcp_http_client(headers=headers) as mcp_http, \
                Client(streamable_http_client(f"{base}/mcp", http_client=mcp_http)) as mcp:

            async def via_http(q: str) -> None:
                r = await http.get("/api/recall", params={"q": q})
                r.raise_for_status()

            async def via_mcp(q: str) -> None:
                r = await mcp.call_tool("search_memories", {"query": q})
                if r.is_error:
                    raise RuntimeError(str(r.content))

            async def in_process(q: str) -> None:
                await app.memory.recall(person, q, record_use=False)

            for q in qs[:10]:  # warm-up: both processes load the person's vectors, connections open
                await in_process(q)
                await via_http(q)
                await via_mcp(q)

            progress(f"timing {queries} questions three ways")
            t_in: list[float] = []
            t_http: list[float] = []
            t_mcp: list[float] = []
            ways = [(in_process, t_in), (via_http, t_http), (via_mcp, t_mcp)]
            for i, q in enumerate(qs):
                # each question three ways back to back, in a rotating order: the three see the
                # same moment of a shared machine's load, and none is always first or last
                for kind, into in ways[i % 3:] + ways[:i % 3]:
                    await _timed(lambda: kind(q), into)  # noqa: B023
            out["recall_in_process"] = _stats(t_in)
            out["recall_http"] = _stats(t_http)
            out["search_mcp"] = _stats(t_mcp)
            # the same question's timings, back to back: what one request added, question by question
            # (less swayed by how long each question takes than a difference of two percentiles)
            out["http_added_paired"] = _paired(t_in, t_http)
            out["mcp_added_paired"] = _paired(t_in, t_mcp)

            progress(f"timing {saves} saves each way")
            facts = make_facts(3 * saves, 99)
            s_in: list[float] = []
            s_http: list[float] = []
            s_mcp: list[float] = []

            async def save_in(text: str) -> None:
                await app.memory.remember(person, text)

            async def save_http(text: str) -> None:
                r = await http.post("/api/memories", json={"text": text})
                if r.status_code not in (200, 201):
                    raise RuntimeError(r.text)

            async def save_mcp(text: str) -> None:
                r = await mcp.call_tool("add_memory", {"text": text})
                if r.is_error:
                    raise RuntimeError(str(r.content))

            saving = [(save_in, s_in), (save_http, s_http), (save_mcp, s_mcp)]
            for i in range(saves):
                for j, (kind, into) in enumerate(saving[i % 3:] + saving[:i % 3]):
                    await _timed(lambda: kind(facts[3 * i + j]), into)  # noqa: B023
            out["save_in_process"] = _stats(s_in)
            out["save_http"] = _stats(s_http)
            out["save_mcp"] = _stats(s_mcp)

            progress(f"throughput with {clients} concurrent clients")
            out["throughput"] = {
                "in_process_per_s": await _throughput(in_process, qs, clients),
                "http_per_s": await _throughput(via_http, qs, clients),
            }
    finally:
        await server.stop()
        await app.close()
        close = getattr(model, "close", None)
        if close is not None:
            close()
    out["http_added_p95_ms"] = round(out["recall_http"]["p95_ms"] - out["recall_in_process"]["p95_ms"], 2)
    out["mcp_added_p95_ms"] = round(out["search_mcp"]["p95_ms"] - out["recall_in_process"]["p95_ms"], 2)
    out["http_added_p50_ms"] = round(out["recall_http"]["p50_ms"] - out["recall_in_process"]["p50_ms"], 2)
    out["mcp_added_p50_ms"] = round(out["search_mcp"]["p50_ms"] - out["recall_in_process"]["p50_ms"], 2)
    out["save_added_p95_ms"] = round(out["save_http"]["p95_ms"] - out["save_in_process"]["p95_ms"], 2)
    out["save_mcp_added_p95_ms"] = round(out["save_mcp"]["p95_ms"] - out["save_in_process"]["p95_ms"], 2)
    out["targets"] = {k: {"target": v, "met": out[k] <= v} for k, v in TARGETS.items()}
    return out


async def _throughput(call: Callable[[str], Awaitable[None]], qs: list[str], clients: int) -> float:
    """Questions answered per second by `clients` workers sharing one queue of all questions."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    for q in qs:
        queue.put_nowait(q)

    async def worker() -> None:
        while True:
            try:
                q = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await call(q)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return round(len(qs) / (time.perf_counter() - started), 1)


def format_table(r: dict[str, Any]) -> str:
    rows = [
        ("recall in process (baseline)", r["recall_in_process"]),
        ("recall over HTTP (GET /api/recall)", r["recall_http"]),
        ("MCP search_memories (streamable HTTP)", r["search_mcp"]),
        ("save in process (remember)", r["save_in_process"]),
        ("save over HTTP (POST /api/memories)", r["save_http"]),
        ("MCP add_memory (streamable HTTP)", r["save_mcp"]),
    ]
    lines = [f"{r['memories']:,} memories of one person, {r['queries']} questions, {r['saves']} saves each way; "
             f"recall mode: {r['mode']}",
             f"{'':40s}{'p50 ms':>10s}{'p95 ms':>10s}"]
    lines += [f"{label:40s}{s['p50_ms']:10.2f}{s['p95_ms']:10.2f}" for label, s in rows]
    t = r["throughput"]
    lines.append(f"recalls/s with {r['clients']} concurrent clients: HTTP {t['http_per_s']:.1f}, "
                 f"in process {t['in_process_per_s']:.1f} ({t['http_per_s'] / t['in_process_per_s']:.2f}x)")
    lines.append(f"added by HTTP: p50 {r['http_added_p50_ms']:+.2f} ms, p95 {r['http_added_p95_ms']:+.2f} ms "
                 f"(target <= 3): {'met' if r['targets']['http_added_p95_ms']['met'] else 'NOT met'}")
    lines.append(f"added by MCP:  p50 {r['mcp_added_p50_ms']:+.2f} ms, p95 {r['mcp_added_p95_ms']:+.2f} ms "
                 f"(target <= 8): {'met' if r['targets']['mcp_added_p95_ms']['met'] else 'NOT met'}")
    lines.append(f"added, question by question (paired): HTTP p50 {r['http_added_paired']['p50_ms']:+.2f} / "
                 f"p95 {r['http_added_paired']['p95_ms']:+.2f} ms, MCP p50 {r['mcp_added_paired']['p50_ms']:+.2f} / "
                 f"p95 {r['mcp_added_paired']['p95_ms']:+.2f} ms")
    lines.append(f"added to a save: HTTP p95 {r['save_added_p95_ms']:+.2f} ms, MCP p95 {r['save_mcp_added_p95_ms']:+.2f} ms")
    return "\n".join(lines)


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench api", description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000, help="the person's memories (default 10000)")
    parser.add_argument("--queries", type=int, default=300, help="questions timed each way (default 300)")
    parser.add_argument("--saves", type=int, default=100, help="saves timed each way (default 100)")
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients for throughput (default 20)")
    parser.add_argument("--embedding", default=None, help="default (MiniLM), none, or a model folder (default: EMBEDDING_MODEL)")
    parser.add_argument("--vector-cache", default=DEFAULT_CACHE, help="the latency benchmark's vector cache; 'none' for none")
    parser.add_argument("--json", action="store_true", help="print only one JSON object")
    args = parser.parse_args(argv)
    if min(args.memories, args.queries, args.saves, args.clients) < 1:
        parser.error("--memories, --queries, --saves and --clients must be at least 1")

    def progress(msg: str) -> None:
        print(f"[api] {msg}", file=sys.stderr, flush=True)

    embedding = args.embedding or settings.embedding_model
    cache = None if str(args.vector_cache).lower() in ("", "none", "off") else args.vector_cache
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp:
        result = asyncio.run(run_benchmark(
            settings, memories=args.memories, queries=args.queries, saves=args.saves, clients=args.clients,
            embedding=embedding, workdir=tmp, cache_dir=cache, progress=progress,
        ))
    result["run_s"] = round(time.perf_counter() - started, 1)
    progress(f"total {result['run_s']:.0f}s")
    print(json.dumps(result) if args.json else format_table(result))
    return 0
