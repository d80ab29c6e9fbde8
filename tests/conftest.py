"""Shared fixtures: real databases (SQLite always, PostgreSQL when reachable), settings that
ignore the developer's .env, and a core wired like production.

PostgreSQL: TEST_POSTGRES_URL (default postgresql+psycopg://postgres@127.0.0.1:5432/test). Each
test gets its own schema, dropped afterwards. When the server is unreachable the PostgreSQL
variants skip with the reason — except with CI=true, where that is a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest

from bot.config import Settings, load_settings

TEST_POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
_pg_state: dict[str, object] = {}


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


def drop_pg_schema(schema: str) -> None:
    import psycopg

    dsn = TEST_POSTGRES_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def shared_data_or_skip(name: str):
    """A shared benchmark data file; missing, it skips with the reason — except with CI=true,
    where the checks that use it must run."""
    from bench.data import data_dirs, shared_data

    path = shared_data(name)
    if not path.is_file():
        message = f"{name} not found in {', '.join(map(str, data_dirs()))} (set SHARED_DATA_DIR)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI=true: checks on the shared data must run)")
        pytest.skip(message)
    return path


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
