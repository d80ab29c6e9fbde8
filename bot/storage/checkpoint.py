"""WAL checkpoints for an SQLite database, on a thread of their own instead of inside a commit.

Why: in WAL mode SQLite copies the log back into the database file (a checkpoint) whenever a
commit finds the log past 1,000 pages, and it does so inside that commit, with an fsync of the
database file. That one save or chat turn then waits many times longer than a plain commit
(the README's latency section has the figures). The bot's
connections therefore turn automatic checkpoints off, and this thread runs a PASSIVE
checkpoint on its own connection when the log has grown past the same size. PASSIVE never
blocks readers or writers: it copies what it can and is simply run again later.

What does not change: durability (every commit still fsyncs the log, synchronous=FULL, and a
crash recovers from the log as before), and closing the database, which checkpoints and
removes the log as always when its last connection closes. A failing checkpoint is logged once
and tried again at the next interval; it never touches the bot's own connections.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading

log = logging.getLogger(__name__)

WAL_LIMIT_BYTES = 1000 * 4096  # SQLite's own automatic threshold: 1,000 pages of 4 KiB
INTERVAL_SECONDS = 0.5


class WalCheckpointer:
    """Checkpoints `path`'s write-ahead log from a daemon thread while it is running."""

    def __init__(
        self,
        path: str,
        *,
        limit_bytes: int = WAL_LIMIT_BYTES,
        interval: float = INTERVAL_SECONDS,
        busy_timeout: float = 5.0,
    ) -> None:
        self.path = path
        self.wal = path + "-wal"
        self.limit_bytes = limit_bytes
        self.interval = interval
        self.busy_timeout = busy_timeout
        self.checkpoints = 0  # how many ran (for tests and curiosity)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._warned = False

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)

    def due(self) -> bool:
        try:
            return os.path.getsize(self.wal) >= self.limit_bytes
        except OSError:  # no log (yet, or any more)
            return False

    def run_once(self, conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        self.checkpoints += 1

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while not self._stop.wait(self.interval):
                if not self.due():
                    continue
                try:
                    if conn is None:
                        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, check_same_thread=False)
                        conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
                    self.run_once(conn)
                except sqlite3.Error as exc:
                    if not self._warned:
                        self._warned = True
                        log.warning("WAL checkpoint failed (will retry): %s", exc)
                    if conn is not None:
                        conn.close()
                        conn = None
        finally:
            if conn is not None:
                conn.close()
