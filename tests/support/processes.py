"""Bot subprocesses for the reliability tests (crash safety, multi-process, fail closed,
secrets): the environment of a bot process, a terminal chat with stdin kept open, consistency
checks of a database after a crash, and the bot_database fixture (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text as sql

from bot.storage.db import Database
from tests.conftest import TEST_POSTGRES_URL, drop_pg_schema, require_postgres

ROOT = Path(__file__).resolve().parents[2]
SAVED = re.compile(r"Saved: “([^”]*)”")


def bot_env(tmp_path: Path, database_url: str, **extra: str) -> dict[str, str]:
    """The environment of a bot subprocess: no platform tokens or model key from the developer's
    shell, embeddings off (fast start), this database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "ANTHROPIC_"))}
    env.update(
        {
            "DATABASE_URL": database_url,
            "DATA_DIR": str(tmp_path / "data"),  # exports from chat and the chat log
            "EMBEDDING_MODEL": "none",
            "CONSOLE_USER": "tester",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(ROOT),
        }
    )
    env.update(extra)
    return env


def pg_schema_url(schema: str) -> str:
    """A DATABASE_URL that puts a bot process in its own PostgreSQL schema (created here)."""
    import psycopg

    dsn = TEST_POSTGRES_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    return f"{TEST_POSTGRES_URL}?options=-csearch_path%3D{schema}"


class ChatProcess:
    """`python -m bot chat` with stdin kept open; stdout is read on a thread so that the test can
    wait for a line with a timeout, and can kill the process at any moment."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "chat"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            cwd=cwd,
            env=env,
        )
        self._lines: "queue.Queue[str | None]" = queue.Queue()
        self.output: list[str] = []
        self._mark = 0
        self.eof = False
        self.stderr = ""
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()

    def _take(self, timeout: float) -> bool:
        """Move one line (waiting up to `timeout`) into the output; False at EOF or timeout."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return False
        if line is None:
            self._lines.put(None)  # stay at EOF
            self.eof = True
            return False
        self.output.append(line)
        return True

    def wait_for(self, needle: str, timeout: float = 60.0) -> str:
        """The output since the last wait, up to and including the first line with `needle`."""
        deadline = time.monotonic() + timeout
        while True:
            new = "".join(self.output[self._mark :])
            if needle in new:
                self._mark = len(self.output)
                return new
            left = deadline - time.monotonic()
            if left <= 0 or (not self._take(min(left, 1.0)) and self.eof):
                raise AssertionError(f"no {needle!r} within {timeout}s; output so far:\n{new}\nstderr: {self._stderr()}")

    def count(self, pattern: re.Pattern[str]) -> int:
        return len(pattern.findall("".join(self.output)))

    def pump_until(self, predicate, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline or self.eof:
                raise AssertionError(f"timed out or ended; output:\n{''.join(self.output)}\nstderr: {self._stderr()}")
            self._take(0.5)

    def drain(self, timeout: float = 30.0) -> str:
        """Everything printed until EOF (after a kill or a close)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._lines.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                self._lines.put(None)
                break
            self.output.append(line)
        return "".join(self.output)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def close(self, timeout: float = 60.0) -> int:
        """EOF on stdin: the chat finishes what is in flight and exits."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        code = self.proc.wait(timeout=timeout)
        self.drain(5)
        return code

    def _stderr(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return "(running)"
        if not self.stderr:
            self.stderr = self.proc.stderr.read()
        return self.stderr

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)


def check_consistency(db: Database) -> dict[str, int]:
    """Assert the invariants a crash must never break; returns row counts for the caller.

    - the engine's own check (SQLite integrity_check) passes;
    - SQLite: the FTS5 index agrees with the memory table (integrity-check, same row count);
    - every memory has exactly one 'created' or 'imported' event, logged under an action of
      its owner; no event points at a missing memory or action;
    - every 'remember' action has at least one event (no half-written save)."""
    with db.engine.connect() as conn:
        if db.dialect == "sqlite":
            assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
            conn.exec_driver_sql("INSERT INTO memory_fts(memory_fts) VALUES('integrity-check')")
            fts_rows = conn.exec_driver_sql("SELECT count(*) FROM memory_fts").scalar()
            assert fts_rows == conn.exec_driver_sql("SELECT count(*) FROM memory").scalar()
            conn.rollback()
        births = conn.execute(
            sql(
                "SELECT m.id, count(e.id) FROM memory m LEFT JOIN memory_event e "
                "ON e.memory_id = m.id AND e.kind IN ('created', 'imported') GROUP BY m.id"
            )
        ).all()
        assert all(n == 1 for _, n in births), [row for row in births if row[1] != 1]
        orphans = conn.execute(
            sql(
                "SELECT count(*) FROM memory_event e LEFT JOIN memory m ON m.id = e.memory_id "
                "LEFT JOIN action a ON a.id = e.action_id "
                "WHERE (e.memory_id IS NOT NULL AND m.id IS NULL) "
                "OR (e.action_id IS NOT NULL AND (a.id IS NULL OR a.owner_id != e.owner_id)) "
                "OR (m.id IS NOT NULL AND m.owner_id != e.owner_id)"
            )
        ).scalar()
        assert orphans == 0
        empty = conn.execute(
            sql(
                "SELECT count(*) FROM action a WHERE a.kind = 'remember' "
                "AND NOT EXISTS (SELECT 1 FROM memory_event e WHERE e.action_id = a.id)"
            )
        ).scalar()
        assert empty == 0
        return {
            "memories": int(conn.execute(sql("SELECT count(*) FROM memory")).scalar() or 0),
            "events": int(conn.execute(sql("SELECT count(*) FROM memory_event")).scalar() or 0),
        }


def event_chains_are_linear(db: Database, owner_id: int) -> None:
    """The history of every memory is one unbroken chain: each event starts from the state the
    previous one ended in (same version), and the last one ends where the memory is now. Two
    writers that both changed one version of a memory (a lost update) break the chain."""
    with db.engine.connect() as conn:
        mems = dict(conn.execute(sql("SELECT id, version FROM memory WHERE owner_id = :o"), {"o": owner_id}).all())
        events = conn.execute(
            sql("SELECT memory_id, kind, before_json, after_json FROM memory_event WHERE owner_id = :o ORDER BY id"),
            {"o": owner_id},
        ).all()
    last: dict[int, int] = {}
    for mid, kind, before, after in events:
        b, a = json.loads(before) if before else None, json.loads(after) if after else None
        if mid in last:
            assert b is not None and b["version"] == last[mid], f"memory {mid}: {kind} starts from version {b and b['version']}, previous ended at {last[mid]}"
        assert a is not None
        assert b is None or a["version"] == b["version"] + 1, (mid, kind, b, a)
        last[mid] = a["version"]
    for mid, version in mems.items():
        assert last.get(mid) == version, f"memory {mid} is at version {version}, its log ends at {last.get(mid)}"


@pytest.fixture(params=["sqlite", "postgresql"])
def bot_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str, str | None]]:
    """(DATABASE_URL for a bot subprocess, URL for Database() in the test, PostgreSQL schema)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'bot.db'}"
        yield url, url, None
        return
    require_postgres()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    try:
        yield pg_schema_url(schema), TEST_POSTGRES_URL, schema
    finally:
        drop_pg_schema(schema)
