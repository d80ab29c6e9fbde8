"""Crash safety (docs/ARCHITECTURE.md section 7: "a crash loses nothing that was acknowledged").

A real terminal chat (`python -m bot chat`, stdin kept open) gets a burst of saves and is killed
with SIGKILL in the middle of it. After a restart every save whose confirmation ("Saved: ...")
had been printed must be there, and the database must be consistent: every memory has its
'created' event, no half-written rows, and on SQLite the full-text index matches the table.
On SQLite and on PostgreSQL.

The subprocess harness and the consistency checks are in tests/support/processes.py.
"""

from __future__ import annotations

import secrets
import signal
from pathlib import Path

from sqlalchemy import text as sql

from bot.storage.db import Database
from tests.support.processes import SAVED, ChatProcess, bot_database, bot_env, check_consistency, event_chains_are_linear  # noqa: F401


# --- the test ------------------------------------------------------------------------------------


def test_sigkill_mid_burst_loses_no_confirmed_save(tmp_path: Path, bot_database: tuple[str, str, str | None]) -> None:
    bot_url, test_url, schema = bot_database
    env = bot_env(tmp_path, bot_url)
    texts = [f"my token {secrets.token_hex(4)} belongs to item {i}" for i in range(150)]

    chat = ChatProcess(tmp_path, env)
    try:
        chat.wait_for("Hello")
        chat.send("/settings review off", *(f"remember: {t}" for t in texts))
        chat.pump_until(lambda: chat.count(SAVED) >= 15)
        chat.kill()
        printed = chat.drain()  # lines already in the pipe were printed before the kill
    finally:
        chat.stop()
    assert chat.proc.returncode == -signal.SIGKILL
    confirmed = SAVED.findall(printed)
    assert len(confirmed) >= 15 and set(confirmed) <= set(texts)

    # a restart works and shows every confirmed save
    again = ChatProcess(tmp_path, env)
    try:
        again.wait_for("Hello")
        again.send("/memories")
        again.wait_for("Your memories")
        assert again.close() == 0, again._stderr()
    finally:
        again.stop()
    shown = "".join(again.output)
    missing = [t for t in confirmed if t not in shown]
    assert not missing, f"confirmed but not listed after restart: {missing[:3]}"

    db = Database(test_url, pg_schema=schema)
    try:
        counts = check_consistency(db)
        with db.engine.connect() as conn:
            stored = [r[0] for r in conn.execute(sql("SELECT text FROM memory"))]
    finally:
        db.dispose()
    assert set(confirmed) <= set(stored)
    assert set(stored) <= set(texts), "nothing but what was sent is stored"
    assert len(stored) == len(set(stored)), "no save was stored twice"
    assert len(stored) < len(texts), "the kill came after the whole burst; the test did not test a crash"
    assert counts["events"] >= counts["memories"]
