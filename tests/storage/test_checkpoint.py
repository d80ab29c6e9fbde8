"""WAL checkpoints run on their own thread (bot.storage.checkpoint), never inside a commit."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import sqlalchemy as sa

from bot.storage.checkpoint import WalCheckpointer
from bot.storage.db import Database


def _wait(cond, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def test_commits_do_not_checkpoint_and_the_thread_does(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'bot.db'}")
    try:
        assert db.checkpointer is not None
        with db.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
        # a log well past SQLite's own limit, written by the bot's connection
        db.checkpointer.limit_bytes = 64 * 1024
        db.checkpointer.interval = 0.05
        with db.engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE filler (x BLOB)")
        for _ in range(40):
            with db.engine.begin() as conn:
                conn.execute(sa.text("INSERT INTO filler VALUES (randomblob(8000))"))
        assert _wait(lambda: db.checkpointer.checkpoints >= 1)
        # every frame of the log is in the database file now
        raw = sqlite3.connect(tmp_path / "bot.db")
        busy, frames, done = raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        raw.close()
        assert busy == 0 and frames == done
        with db.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM filler").scalar() == 40
    finally:
        db.dispose()
    assert db.checkpointer._thread is None
    assert not (tmp_path / "bot.db-wal").exists() or (tmp_path / "bot.db-wal").stat().st_size == 0


def test_an_in_memory_database_has_no_checkpointer() -> None:
    db = Database("sqlite://")
    try:
        assert db.checkpointer is None
    finally:
        db.dispose()


def test_a_failing_checkpoint_is_retried_and_never_raises(tmp_path: Path, caplog) -> None:
    bad = tmp_path / "not-a-database"
    bad.write_bytes(b"this is not SQLite" * 100)
    (tmp_path / "not-a-database-wal").write_bytes(b"x" * 10)
    cp = WalCheckpointer(str(bad), limit_bytes=1, interval=0.02)
    cp.start()
    try:
        assert _wait(lambda: cp._warned)
        time.sleep(0.1)
        assert cp._thread is not None and cp._thread.is_alive()  # still there, trying again
    finally:
        cp.stop()
    assert bad.read_bytes() == b"this is not SQLite" * 100  # never "repaired"
    assert "WAL checkpoint failed" in caplog.text
