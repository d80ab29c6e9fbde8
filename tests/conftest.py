"""Shared fixtures: real databases (SQLite always, PostgreSQL when reachable), settings that
ignore the developer's .env, and a core wired like production.

PostgreSQL: TEST_POSTGRES_URL (default postgresql+psycopg://postgres@127.0.0.1:5432/test). Each
test gets its own schema, dropped afterwards. When the server is unreachable the PostgreSQL
variants skip with the reason — except with CI=true, where that is a failure.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import Settings, load_settings

TEST_POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
_pg_state: dict[str, object] = {}


# folders whose tests are end to end as a whole (real client libraries or bot processes)
E2E_FOLDERS = ("adapters",)
# modules that load the embedding model or run a benchmark command
SLOW_MODULES = {"test_embeddings", "test_semantic_save", "test_pair_vectors", "test_change_conversations_minilm", "test_bench_cost", "test_bench_latency", "test_bench_retrieval"}
# modules that start bot processes
E2E_MODULES = {"test_crash_safety", "test_postgres_multiprocess", "test_conversation_cli", "test_cross_platform",
               "test_browser"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Markers by where a test lives and what it runs: `-m "not slow"`, `-m postgres`, ..."""
    tests_dir = Path(__file__).resolve().parent
    for item in items:
        path = Path(str(item.fspath)).resolve()
        rel = path.relative_to(tests_dir).parts if path.is_relative_to(tests_dir) else ()
        if (rel and rel[0] in E2E_FOLDERS) or path.stem in E2E_MODULES:
            item.add_marker(pytest.mark.e2e)
        if path.stem in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "postgresql" in params.values() or "pg_schema" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)


def postgres_reachable() -> tuple[bool, str]:
    if "ok" not in _pg_state:
        try:
            import psycopg

            dsn = TEST_POSTGRES_URL.replace("postgresql+psycopg://", "postgresql://")
            with psycopg.connect(dsn, connect_timeout=3) as conn:
                conn.execute("SELECT 1")
            _pg_state["ok"], _pg_state["why"] = True, ""
        except Exception as exc:  # pragma: no cover - depends on the machine
            _pg_state["ok"], _pg_state["why"] = False, f"{exc.__class__.__name__}: {exc}"
    return bool(_pg_state["ok"]), str(_pg_state["why"])


def require_postgres() -> None:
    ok, why = postgres_reachable()
    if not ok:
        message = f"PostgreSQL not reachable at {TEST_POSTGRES_URL}: {why}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI=true: PostgreSQL tests must run)")
        pytest.skip(message)


CHROMIUM = os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def require_chromium() -> None:
    """The browser tests need Debian's chromium and chromium-driver (and selenium): without them
    they skip with the reason, except under CI=true, where .ci/run installs them and a missing
    browser is a failure."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    if not missing:
        return
    message = (f"browser tests need {', '.join(missing)} (apt install chromium chromium-driver; "
               "pip install selenium)")
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: browser tests must run)")
    pytest.skip(message)


def drop_pg_schema(schema: str) -> None:
    import psycopg

    dsn = TEST_POSTGRES_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@contextlib.contextmanager
def database_url_for(kind: str, tmp_path: Any) -> Iterator[str]:
    """A database URL as an operator would give it. PostgreSQL: a fresh schema per test,
    chosen through the connection's search_path (build_app takes only a URL), dropped after."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'bot.db'}"
        return
    require_postgres()
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    dsn = TEST_POSTGRES_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{TEST_POSTGRES_URL}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def make_settings(**overrides: object) -> Settings:
    """Settings for tests: no .env, no tokens, no model, embeddings off unless asked."""
    base: dict[str, object] = {
        "_env_file": None,
        "database_url": "sqlite:///:memory:",
        "telegram_bot_token": "",
        "discord_bot_token": "",
        "anthropic_api_key": "",
        "anthropic_base_url": "",
        "embedding_model": "none",
        "allowed_users": "",
    }
    base.update(overrides)
    return load_settings(**base)


@pytest.fixture(scope="module")
def minilm() -> Iterator[Any]:
    """The packaged MiniLM, loaded once per module that asks for it; a module that needs it loaded
    the way the bot loads it (in its own thread) defines its own."""
    from bot.memory.embeddings.encoder import build_embedder

    emb = build_embedder(make_settings(embedding_model="default"), start=False)
    if emb is None or not emb.load_now():
        message = f"the packaged MiniLM did not load: {getattr(emb, 'error', '?')}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI=true)")
        pytest.skip(message)
    yield emb
    emb.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_backend(request: pytest.FixtureRequest, tmp_path) -> Iterator[tuple[str, str | None]]:
    """(database URL, PostgreSQL schema or None) for each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.db'}", None
        return
    require_postgres()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    try:
        yield TEST_POSTGRES_URL, schema
    finally:
        drop_pg_schema(schema)


@pytest.fixture
def database(db_backend):
    from bot.storage.db import Database

    url, schema = db_backend
    db = Database(url, pg_schema=schema)
    try:
        yield db
    finally:
        db.dispose()


@pytest.fixture
def settings(db_backend) -> Settings:
    return make_settings(database_url=db_backend[0])


@pytest.fixture
async def memory(database, settings) -> AsyncIterator[object]:
    from bot.memory.service import MemoryService

    yield MemoryService(database, settings)


@pytest.fixture
async def core(database, settings) -> AsyncIterator[object]:
    """A core wired like production (bot.app.build_app: every handler and button action), with
    no model and no embeddings; its timers are not started."""
    from bot.app import build_app

    app = build_app(settings, db=database, embedder=None, with_model=False)
    yield app.core
    await app.core.drain(timeout=5)
