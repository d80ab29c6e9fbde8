"""`python -m bot bench load [--people N] [--messages M] [--backend sqlite|postgresql|both] [--json]
[--profile]`: many simulated people talking to the assistant at once, measured.

Each simulated person is one conversation: they send M messages one after another (each waits for
the reply, as a person does), and all N people run at the same time. The messages are a seeded
mix of saves ("remember: ..."), lists (/memories), searches (/search) and chat turns, handed to
the real core of the real app (bot.app.build_app: memory service, conversation, scheduler wiring)
on a temporary database: a SQLite file in a temporary directory, and a fresh PostgreSQL schema
(dropped afterwards). Embeddings are off.

The model: with `--model standin` (the default when the repository's tests/ directory is present)
chat turns go to the local Anthropic stand-in (tests/standins/anthropic_api.py), which answers at
once, so a turn includes recall, the HTTP round trip, logging and background extraction but no
model think time. With `--model none` chat turns answer from memory alone.

What it prints: messages per second over the whole run, latency per message (p50 / p95 / p99 /
max), errors (exceptions, the core's catch-all answer, storage refusals), and where the time
goes: per message kind, the time spent waiting on the database (calls through Database.run), and
with --profile the top functions by cumulative time in the event loop and in the database
threads (cProfile). Exit status 0 whatever the figures; stdout carries only the JSON with --json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.config import Settings

REPO = Path(__file__).resolve().parents[1]

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
KINDS = ("save", "list", "search", "chat")
DEFAULT_MIX = {"save": 0.4, "list": 0.2, "search": 0.2, "chat": 0.2}

# Material for facts and questions: enough variety that most saves are new facts, with a few
# single-value topics (home, car, job) repeated so that some saves raise conflict questions, as
# real use does.
PLACES = "London Paris Berlin Madrid Rome Lisbon Oslo Vienna Prague Dublin".split()
CARS = "Tesla Volvo Golf Civic Corolla Mini Fiat Polo".split()
JOBS = "nurse teacher baker pilot plumber lawyer chemist gardener".split()
THINGS = (
    "bees chess cello sourdough tomatoes marathons origami pottery jazz climbing kayaks stamps "
    "orchids telescopes poetry knitting salsa bonsai vinyl fossils lanterns kites puzzles"
).split()
VERBS = "keep play love collect grow study bake restore paint practise".split()


def fact(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.08:
        return f"I live in {rng.choice(PLACES)}"
    if roll < 0.14:
        return f"I drive a {rng.choice(CARS)}"
    if roll < 0.2:
        return f"I work as a {rng.choice(JOBS)}"
    return f"I {rng.choice(VERBS)} {rng.choice(THINGS)} {rng.choice(THINGS)}"


def message(kind: str, rng: random.Random) -> str:
    if kind == "save":
        return f"remember: {fact(rng)}"
    if kind == "list":
        return "/memories"
    if kind == "search":
        return f"/search {rng.choice(THINGS + PLACES)}"
    return rng.choice(
        [
            f"what do you know about my {rng.choice(THINGS)}?",
            "where do I live?",
            "what car do I drive?",
            f"any ideas for a weekend with {rng.choice(THINGS)}?",
        ]
    )


def plan(people: int, messages: int, mix: dict[str, float], seed: int) -> list[list[tuple[str, str]]]:
    """Per person, the (kind, text) messages in order; the first one is always a save."""
    kinds, weights = zip(*mix.items())
    out = []
    for p in range(people):
        rng = random.Random(seed * 100_003 + p)
        seq = [("save", message("save", rng))]
        for _ in range(messages - 1):
            kind = rng.choices(kinds, weights)[0]
            seq.append((kind, message(kind, rng)))
        out.append(seq)
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[idx]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


# --- the temporary databases ---------------------------------------------------------------------


@contextlib.contextmanager
def sqlite_database() -> Any:
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        yield f"sqlite:///{Path(tmp) / 'load.db'}"


@contextlib.contextmanager
def postgres_database(server_url: str) -> Any:
    """A fresh schema on `server_url`, reached through search_path; dropped afterwards."""
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(server_url)
    dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    schema = f"bench_load_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        query = dict(url.query)
        query["options"] = f"-csearch_path={schema}"
        yield url.set(query=query).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def postgres_reachable(server_url: str) -> str | None:
    """None when reachable, else why not (one line)."""
    try:
        import psycopg
        from sqlalchemy.engine import make_url

        dsn = make_url(server_url).set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(dsn, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
        return None
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return " ".join(f"{exc.__class__.__name__}: {exc}".split())[:200]


# --- the model ------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def model_server(kind: str) -> AsyncIterator[Any]:
    """The Anthropic stand-in (answers at once) or nothing."""
    if kind != "standin":
        yield None
        return
    from bot.testing.anthropic_api import AnthropicStandIn

    async with AnthropicStandIn() as server:
        yield server


# --- measuring --------------------------------------------------------------------------------------


@dataclass
class DbTimer:
    """Wall time the event loop waited on Database.run, and (with --profile) cProfile of the
    database threads."""

    calls: int = 0
    seconds: float = 0.0
    busy: float = 0.0  # time spent doing the work on the database threads
    profile: bool = False
    profiles: dict[int, cProfile.Profile] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def install(self, db: Any) -> None:
        run = db.run
        guarded = db._guarded

        async def timed_run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await run(fn, *args, **kwargs)
            finally:
                self.calls += 1
                self.seconds += time.perf_counter() - started

        def measured_guarded(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            prof = None
            if self.profile:
                with self.lock:
                    prof = self.profiles.setdefault(threading.get_ident(), cProfile.Profile())
                prof.enable()
            started = time.perf_counter()
            try:
                return guarded(fn, *args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                if prof is not None:
                    prof.disable()
                with self.lock:
                    self.busy += elapsed

        db.run = timed_run
        db._guarded = measured_guarded


def classify_reply(texts: list[str]) -> str | None:
    """An error kind for a reply, or None when it is a normal answer."""
    from bot.core.core import SOMETHING_WRONG
    from bot.storage.db import StorageError

    joined = "\n".join(texts)
    if SOMETHING_WRONG in joined:
        return "something_went_wrong"
    if StorageError.person_message in joined:
        return "storage_refused"
    if not joined.strip():
        return "empty_reply"
    return None


async def run_backend(
    backend: str, database_url: str, settings: Settings, plans: list[list[tuple[str, str]]], model: str, profile: bool
) -> dict[str, Any]:
    from bot.app import build_app
    from bot.events import Incoming

    async with model_server(model) as server:
        overrides: dict[str, Any] = {
            "database_url": database_url,
            "embedding_model": "none",
            "rate_limit_per_minute": 0,  # measure the bot, not the per-person limit
            "daily_token_budget": 0,
            "default_ai_judge": False,
            "telegram_bot_token": "",
            "discord_bot_token": "",
        }
        if server is not None:
            overrides.update(
                anthropic_api_key="bench-standin-key",
                anthropic_base_url=server.url,
                llm_max_retries=0,
                chat_model="standin-chat",
                extraction_model="standin-extract",
                judge_model="standin-judge",
                summary_model="standin-summary",
            )
        else:
            overrides.update(anthropic_api_key="", anthropic_base_url="")
        bench_settings = settings.model_copy(update=overrides)
        opened = time.perf_counter()
        app = build_app(bench_settings, embedder=None)
        open_s = time.perf_counter() - opened
        app_threads = app.db._executor._max_workers
        timer = DbTimer(profile=profile)
        timer.install(app.db)
        latencies: dict[str, list[float]] = defaultdict(list)
        errors: Counter[str] = Counter()
        examples: list[str] = []
        loop_profile = cProfile.Profile() if profile else None

        async def person(p: int, seq: list[tuple[str, str]]) -> None:
            user = f"load-{p:04d}"
            for n, (kind, text) in enumerate(seq):
                incoming = Incoming(platform="bench", chat_id=user, user_id=user, text=text, display_name=user,
                                    message_id=f"{p}-{n}")
                started = time.perf_counter()
                try:
                    outs = await app.core.handle_message(incoming)
                    problem = classify_reply([o.text or o.notice or "" for o in outs])
                except Exception as exc:  # noqa: BLE001 - counted, the run goes on
                    problem = f"exception:{exc.__class__.__name__}"
                latencies[kind].append(time.perf_counter() - started)
                if problem:
                    errors[problem] += 1
                    if len(examples) < 5:
                        examples.append(f"{kind}: {text[:60]!r} -> {problem}")

        try:
            if loop_profile is not None:
                loop_profile.enable()
            started = time.perf_counter()
            await asyncio.gather(*(person(p, seq) for p, seq in enumerate(plans)))
            wall = time.perf_counter() - started
            drain_started = time.perf_counter()
            await app.core.drain(timeout=120)  # background extraction after chat turns
            drain_s = time.perf_counter() - drain_started
            if loop_profile is not None:
                loop_profile.disable()
            with app.db.engine.connect() as conn:
                from sqlalchemy import text as sql

                counts = {
                    t: int(conn.execute(sql(f"SELECT count(*) FROM {t}")).scalar() or 0)
                    for t in ("memory", "memory_event", "conflict", "message_log")
                }
        finally:
            await app.close()

    all_lat = [x for values in latencies.values() for x in values]
    total_time = sum(all_lat) or 1.0
    result: dict[str, Any] = {
        "backend": backend,
        "messages": len(all_lat),
        "people": len(plans),
        "wall_s": round(wall, 3),
        "messages_per_s": round(len(all_lat) / wall, 1) if wall else None,
        "latency_ms": {
            "p50": ms(percentile(all_lat, 50)),
            "p95": ms(percentile(all_lat, 95)),
            "p99": ms(percentile(all_lat, 99)),
            "max": ms(max(all_lat, default=0.0)),
            "mean": ms(statistics.fmean(all_lat)) if all_lat else 0.0,
        },
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "error_examples": examples,
        "by_kind": {
            kind: {
                "count": len(latencies[kind]),
                "p50_ms": ms(percentile(latencies[kind], 50)),
                "p95_ms": ms(percentile(latencies[kind], 95)),
                "share_of_time": round(sum(latencies[kind]) / total_time, 3),
            }
            for kind in KINDS
            if latencies.get(kind)
        },
        "database": {
            "calls": timer.calls,
            "calls_per_message": round(timer.calls / max(1, len(all_lat)), 2),
            "wait_s": round(timer.seconds, 3),
            "mean_call_ms": ms(timer.seconds / timer.calls) if timer.calls else 0.0,
            # work done on the database threads; over the wall time, how busy they were (SQLite
            # has one thread, so close to 100% means the database thread is the bottleneck)
            "work_s": round(timer.busy, 3),
            "mean_work_ms": ms(timer.busy / timer.calls) if timer.calls else 0.0,
            "threads": app_threads,
            "busy_share": round(timer.busy / (wall * app_threads), 3) if wall else None,
        },
        "model_requests": len(server.message_requests) if server is not None else 0,
        "background_drain_s": round(drain_s, 3),
        "open_s": round(open_s, 3),
        "rows": counts,
    }
    if profile:
        result["profile"] = {
            "event_loop": top_functions([loop_profile] if loop_profile else []),
            "event_loop_own_time": top_functions([loop_profile] if loop_profile else [], by="own"),
            "database_threads": top_functions(list(timer.profiles.values())),
            "database_threads_own_time": top_functions(list(timer.profiles.values()), by="own"),
        }
    return result


def top_functions(profiles: list[cProfile.Profile], limit: int = 15, by: str = "cumulative") -> list[dict[str, Any]]:
    """The functions with the most cumulative (or own) time, merged over the profiles."""
    profiles = [p for p in profiles if p.getstats()]
    if not profiles:
        return []
    stats = pstats.Stats(profiles[0], stream=io.StringIO())
    for p in profiles[1:]:
        stats.add(p)
    rows = []
    for (filename, line, name), (_cc, ncalls, tottime, cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append((cumtime, tottime, ncalls, f"{_short_path(filename)}:{line}({name})"))
    rows.sort(key=lambda r: r[0] if by == "cumulative" else r[1], reverse=True)
    return [
        {"function": where, "calls": ncalls, "cumulative_s": round(cum, 3), "own_s": round(own, 3)}
        for cum, own, ncalls, where in rows[:limit]
    ]


def _short_path(filename: str) -> str:
    for marker in ("site-packages/", str(REPO) + "/", os.getcwd() + "/"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


# --- command line -------------------------------------------------------------------------------------


def parse_mix(text: str) -> dict[str, float]:
    mix: dict[str, float] = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        name = name.strip()
        if name not in KINDS:
            raise argparse.ArgumentTypeError(f"unknown kind {name!r}; use {', '.join(KINDS)}")
        try:
            mix[name] = float(weight)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad weight for {name}: {weight!r}") from None
    if not mix or sum(mix.values()) <= 0:
        raise argparse.ArgumentTypeError("the weights must add up to more than 0")
    return mix


def format_table(report: dict[str, Any]) -> str:
    lines = [
        f"Load: {report['people']} people x {report['messages_per_person']} messages, mix "
        + ", ".join(f"{k} {v:g}" for k, v in report["mix"].items())
        + f"; model: {report['model']}"
    ]
    for r in report["results"]:
        if "skipped" in r:
            lines.append(f"\n{r['backend']}: skipped ({r['skipped']})")
            continue
        lat = r["latency_ms"]
        db = r["database"]
        lines += [
            f"\n{r['backend']}: {r['messages']} messages in {r['wall_s']:.2f} s = {r['messages_per_s']} messages/s",
            f"  latency per message: p50 {lat['p50']} ms, p95 {lat['p95']} ms, p99 {lat['p99']} ms, max {lat['max']} ms",
            f"  errors: {r['errors']}" + (f" {r['error_kinds']}" if r["errors"] else ""),
            f"  database: {db['calls']} calls ({db['calls_per_message']} per message); each waited {db['mean_call_ms']} ms "
            f"on average, of which {db['mean_work_ms']} ms was work; {db['threads']} database thread(s) "
            f"{db['busy_share']:.0%} busy",
            f"  model requests: {r['model_requests']}; background work after the run: {r['background_drain_s']} s",
            "  by kind:            count    p50 ms    p95 ms   share of time",
        ]
        for kind, k in r["by_kind"].items():
            lines.append(f"    {kind:<16}{k['count']:>7}{k['p50_ms']:>10}{k['p95_ms']:>10}{k['share_of_time']:>14.1%}")
        for where, top in r.get("profile", {}).items():
            own = where.endswith("_own_time")
            lines.append(f"  top functions ({where.replace('_own_time', '').replace('_', ' ')}), {'own' if own else 'cumulative'} s:")
            lines += [f"    {t['own_s' if own else 'cumulative_s']:>8.3f}  {t['function']}" for t in top[:10]]
    return "\n".join(lines)


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=50, help="simulated people talking at once (default 50)")
    parser.add_argument("--messages", type=int, default=20, help="messages per person (default 20)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--postgres-url", default=None,
                        help="PostgreSQL server to create a temporary schema on (default: DATABASE_URL when it is "
                             f"PostgreSQL, else TEST_POSTGRES_URL or {DEFAULT_POSTGRES_URL})")
    parser.add_argument("--mix", type=parse_mix, default=DEFAULT_MIX, help="e.g. save=0.4,list=0.2,search=0.2,chat=0.2")
    parser.add_argument("--model", choices=("standin", "none"), default=None,
                        help="chat turns against the instant stand-in model, or without a model")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="add cProfile top functions")
    parser.add_argument("--json", action="store_true", help="print only one JSON object")
    args = parser.parse_args(argv)
    if args.people < 1 or args.messages < 1:
        parser.error("--people and --messages must be at least 1")
    model = args.model or "standin"
    pg_url = args.postgres_url or (
        settings.database_url if settings.database_url.startswith("postgresql")
        else os.environ.get("TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)
    )
    plans = plan(args.people, args.messages, args.mix, args.seed)
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    results = []
    for backend in backends:
        if backend == "sqlite":
            with sqlite_database() as url:
                results.append(asyncio.run(run_backend("sqlite", url, settings, plans, model, args.profile)))
            continue
        why = postgres_reachable(pg_url)
        if why is not None:
            results.append({"backend": "postgresql", "skipped": why})
            continue
        with postgres_database(pg_url) as url:
            results.append(asyncio.run(run_backend("postgresql", url, settings, plans, model, args.profile)))
    total = sum(sum(1 for kind, _ in seq if kind == k) for seq in plans for k in KINDS)
    report = {
        "benchmark": "load",
        "people": args.people,
        "messages_per_person": args.messages,
        "messages_planned": total,
        "mix": args.mix,
        "model": model,
        "seed": args.seed,
        "cpus": os.cpu_count(),
        "results": results,
    }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(format_table(report))
    return 0
