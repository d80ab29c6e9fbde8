"""`python -m bot bench page [--memories 5000] [--rounds 40] [--json]`: how long the memory page
takes to render its first screen for a person with thousands of memories, beside the API's list
of the same memories and /api/health, in the same run, on the same server.

Set-up: a fresh SQLite file with one person's synthetic memories (bench/latency.py's facts,
spread over three years), a few open questions on top (the Possible conflicts block renders
them), an API token and a one-time login link made by this process; then `python -m bot web` as
its own process (bench/api.py's Server) on a free port. The browser's part is played by httpx:
POST /login with the link's code gives the session cookie, exactly as Continue does (the link
made here works in a server started later: codes live in the database).

Timed, each round back to back in a rotating order (the machine is shared, so the three see the
same moment of its load):
- page: GET / (the first screen: the questions, the add form, the filters, the first 30
  current memories), the whole HTML received;
- api list: GET /api/memories?limit=30, the same 30 memories as JSON (the baseline: the door
  and the database, without templates);
- health: GET /api/health (the server's own floor: one trivial request);
plus, after them, the other screens a person opens (All, a search, Needs review, a history, the
timeline) for information.

Target: the first screen's p95 under 200 ms. Printed with its ratio to the API list from the
same run. Exit status 0 whether or not it is met; with --json stdout carries only one JSON
object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.api import Server, _ms
from bench.latency import make_facts, spread_dates
from bot.config import Settings

TARGET_MS = 200.0
QUESTIONS = (  # an older fact, then the newer one that asks whether it replaces it
    ("I live in London", "I moved to Paris"),
    ("I work as a nurse", "I work as a teacher now"),
    ("I drive a Fiat Panda", "I drive a Tesla now"),
)


def _stats(values: list[float]) -> dict[str, float]:
    return {"p50_ms": _ms(values, 50), "p95_ms": _ms(values, 95), "n": len(values)}


async def run_benchmark(settings: Settings, *, memories: int, rounds: int, workdir: str,
                        progress: Callable[[str], None]) -> dict[str, Any]:
    import httpx

    from bot.app import build_app

    url = f"sqlite:///{Path(workdir) / 'page.db'}"
    bench_settings = settings.model_copy(update={"database_url": url, "embedding_model": "none",
                                                  "web_port": 0, "web_public_url": ""})
    app = build_app(bench_settings, embedder=None, with_model=False, role="web")
    server = Server(url, "none", workdir)
    out: dict[str, Any] = {"memories": memories, "rounds": rounds}
    try:
        person = await app.memory.owner_for("bench", "page-person")
        assert person is not None
        texts, dates = make_facts(memories, 3), spread_dates(memories, 3)
        progress(f"loading {memories} memories")
        for i in range(0, memories, 1000):
            await app.memory.remember_many(person, list(zip(texts[i:i + 1000], dates[i:i + 1000])))
        for old, new in QUESTIONS:
            await app.memory.remember(person, old)
            await app.memory.remember(person, new)
        out["questions_open"] = await app.memory.pending_count(person)
        secret = (await app.access.create("bench", "page-person", "bench")).secret
        link = await app.web_logins.link("bench", "page-person")
        assert link is not None
        code = link.url.rsplit("/", 1)[1]

        progress("starting python -m bot web")
        base = await server.start()
        async with httpx.AsyncClient(base_url=base, timeout=60) as browser, \
                httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {secret}"}, timeout=60) as api:
            r = await browser.post("/login", data={"code": code})
            if r.status_code != 303:
                raise RuntimeError(f"logging in failed: {r.status_code} {r.text[:200]}")

            async def page() -> None:
                r = await browser.get("/")
                r.raise_for_status()
                assert "Possible conflicts" in r.text

            async def api_list() -> None:
                (await api.get("/api/memories", params={"limit": 30})).raise_for_status()

            async def health() -> None:
                (await api.get("/api/health")).raise_for_status()

            first = (await browser.get("/")).text
            out["first_screen_bytes"] = len(first.encode())
            out["first_screen_memories"] = first.count('<li class="memory')
            for _ in range(5):  # warm-up: connections open, templates compiled, caches filled
                await page()
                await api_list()
                await health()

            progress(f"timing {rounds} rounds: page, API list, health")
            timings: dict[str, list[float]] = {"page": [], "api_list": [], "health": []}
            ways = [("page", page), ("api_list", api_list), ("health", health)]
            for i in range(rounds):
                for name, fn in ways[i % 3:] + ways[:i % 3]:
                    started = time.perf_counter()
                    await fn()
                    timings[name].append(time.perf_counter() - started)
            for name, values in timings.items():
                out[name] = _stats(values)
            out["page_over_api_list_p50"] = round(out["page"]["p50_ms"] / max(out["api_list"]["p50_ms"], 0.01), 2)
            out["page_over_health_p50"] = round(out["page"]["p50_ms"] / max(out["health"]["p50_ms"], 0.01), 2)

            uid = re.search(r'id="m-([^"]+)"', first)
            others = {"all": "/?show=all", "search": "/?q=coffee", "review": "/?show=review",
                      "history": f"/memories/{uid[1] if uid else 'x'}", "timeline": "/timeline"}
            out["other_screens"] = {}
            for name, path in others.items():
                values = []
                for _ in range(max(5, rounds // 4)):
                    started = time.perf_counter()
                    (await browser.get(path)).raise_for_status()
                    values.append(time.perf_counter() - started)
                out["other_screens"][name] = _stats(values)
        out["target_first_screen_p95_ms"] = TARGET_MS
        out["met"] = out["page"]["p95_ms"] < TARGET_MS
        return out
    finally:
        await server.stop()
        await app.close()


def render(out: dict[str, Any]) -> str:
    lines = [
        f"Memory page, first screen, for a person with {out['memories']:,} memories "
        f"({out['questions_open']} open questions; {out['first_screen_memories']} memories and "
        f"{out['first_screen_bytes']:,} bytes of HTML), {out['rounds']} rounds, server in its own process:",
        f"  GET /                 p50 {out['page']['p50_ms']:7.2f} ms   p95 {out['page']['p95_ms']:7.2f} ms"
        f"   (target p95 < {TARGET_MS:.0f} ms: {'met' if out['met'] else 'NOT met'})",
        f"  GET /api/memories     p50 {out['api_list']['p50_ms']:7.2f} ms   p95 {out['api_list']['p95_ms']:7.2f} ms"
        "   (baseline: the same 30 memories as JSON)",
        f"  GET /api/health       p50 {out['health']['p50_ms']:7.2f} ms   p95 {out['health']['p95_ms']:7.2f} ms",
        f"  page / API list (p50): {out['page_over_api_list_p50']}x   page / health (p50): {out['page_over_health_p50']}x",
        "Other screens:",
    ]
    for name, s in out["other_screens"].items():
        lines.append(f"  {name:<10} p50 {s['p50_ms']:7.2f} ms   p95 {s['p95_ms']:7.2f} ms")
    return "\n".join(lines)


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench page", description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    args = parser.parse_args(argv)

    def progress(text: str) -> None:
        print(f"... {text}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="bench-page-") as workdir:
        out = asyncio.run(run_benchmark(settings, memories=args.memories, rounds=args.rounds, workdir=workdir,
                                        progress=progress))
    print(json.dumps(out) if args.json else render(out))
    return 0
