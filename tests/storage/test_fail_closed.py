"""Fail closed (docs/ARCHITECTURE.md section 7): when storage cannot be used, writes are refused with a
clear sentence, nothing crashes, nothing is "repaired" by starting empty, and service resumes by
itself when storage is back.

The ways storage goes away here: another process holding SQLite's write lock; a damaged SQLite
file at start-up (garbage, damaged pages, truncated); a PostgreSQL server that cannot be reached
(at start-up, and going away and coming back under a running bot, through a TCP relay we can
cut); and the bot's PostgreSQL schema dropped under it.
"""

from __future__ import annotations

import random
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text as sql

from bot.app import build_app
from bot.core.core import SOMETHING_WRONG, Core
from bot.events import ButtonPress, Incoming, Outgoing
from bot.storage.db import Database, StorageError
from bot.memory.service import MemoryService
from tests.conftest import TEST_POSTGRES_URL, drop_pg_schema, make_settings, require_postgres
from tests.support.processes import bot_env

REFUSED = StorageError.person_message


def msg(text: str, user: str = "alice") -> Incoming:
    return Incoming(platform="console", chat_id=user, user_id=user, text=text, display_name=user, message_id="m")


def press(token: str, user: str = "alice") -> ButtonPress:
    return ButtonPress(platform="console", chat_id=user, user_id=user, token=token, message_id="q")


def only(outs: list[Outgoing]) -> Outgoing:
    assert len(outs) == 1, outs
    return outs[0]


def button(out: Outgoing, label_start: str) -> str:
    return next(b.token for b in out.all_buttons if b.label.startswith(label_start))


def no_trace(text: str) -> bool:
    return "Traceback" not in text and 'File "' not in text and "Error" not in text


# --- SQLite: another process holds the write lock ---------------------------------------------------

LOCK_HOLDER = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
conn.close()
"""


class LockHolder:
    """A separate process holding SQLite's exclusive lock on the file until released."""

    def __init__(self, path: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LOCK_HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "locked"

    def release(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=30)


async def test_sqlite_locked_by_another_process_refuses_writes_then_resumes(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    settings = make_settings(database_url=f"sqlite:///{path}")
    db = Database(settings.database_url, busy_timeout=0.3)  # production waits 30 s for a lock
    core = build_app(settings, db=db, embedder=None, with_model=False).core
    try:
        await core.handle_message(msg("remember: I live in London"))
        question = only(await core.handle_message(msg("remember: I moved to Paris")))
        await core.handle_message(msg("/memories"))
        holder = LockHolder(path)
        try:
            for text in ["remember: I keep bees", "/forget 1", "/edit 1 I live in Leeds", "/settings review off", "/undo"]:
                out = only(await core.handle_message(msg(text)))
                assert out.text == REFUSED, (text, out)
            refused = only(await core.handle_press(press(button(question, "Mark older"))))
            assert refused.text == REFUSED and refused.notice == "Nothing was changed."
            # reads may still work (WAL readers are not blocked); whatever the answer, no crash
            listing = only(await core.handle_message(msg("/memories")))
            assert listing.text == REFUSED or "I live in London" in listing.text
        finally:
            holder.release()
        saved = only(await core.handle_message(msg("remember: I keep bees")))
        assert saved.text == "Saved: “I keep bees”"
        # the refused press did not use up the button: the question is still answerable
        answered = only(await core.handle_press(press(button(question, "Mark older"))))
        assert "now past" in (answered.text or "")
        with db.engine.connect() as conn:
            texts = sorted(r[0] for r in conn.execute(sql("SELECT text FROM memory")))
            events = conn.execute(sql("SELECT count(*) FROM memory_event WHERE kind IN ('deleted', 'edited')")).scalar()
        assert texts == ["I keep bees", "I live in London", "I moved to Paris"] and events == 0
    finally:
        await core.drain(timeout=5)
        db.dispose()


# --- SQLite: a damaged file at start-up ----------------------------------------------------------------


def good_database(path: Path) -> bytes:
    """A real database with some memories, checkpointed into the main file."""
    import asyncio

    async def build() -> None:
        db = Database(f"sqlite:///{path}")
        memory = MemoryService(db, make_settings(database_url=db.url))
        owner = await memory.owner_for("console", "tester")
        assert owner is not None
        for i in range(120):
            await memory.remember(owner, f"fact {i}: the zebra{i} met quokka{i * 7}")
        db.dispose()

    asyncio.run(build())
    return path.read_bytes()


def damaged(kind: str, good: bytes) -> bytes:
    rnd = random.Random(kind)
    page = 4096
    if kind == "garbage":
        return rnd.randbytes(len(good))
    if kind == "damaged-pages":  # the header is fine; the data pages are not
        return good[: 2 * page] + rnd.randbytes(6 * page) + good[8 * page :]
    if kind == "truncated":
        return good[: len(good) // 2]
    raise ValueError(kind)


@pytest.fixture(scope="module")
def good_sqlite(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return good_database(tmp_path_factory.mktemp("good") / "bot.db")


@pytest.mark.parametrize("kind", ["garbage", "damaged-pages", "truncated"])
@pytest.mark.parametrize("command", [["chat"], ["export", "--owner", "console:tester"]])
def test_damaged_sqlite_file_stops_startup_and_is_never_rewritten(
    tmp_path: Path, good_sqlite: bytes, kind: str, command: list[str]
) -> None:
    path = tmp_path / "bot.db"
    bad = damaged(kind, good_sqlite)
    path.write_bytes(bad)
    out = subprocess.run(
        [sys.executable, "-m", "bot", *command], input="remember: I keep bees\n/memories\n", capture_output=True,
        text=True, cwd=tmp_path, env=bot_env(tmp_path, f"sqlite:///{path}"), timeout=120,
    )
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "database" in lines[0], out.stderr
    assert "Saved" not in out.stdout and "zebra" not in out.stdout
    assert path.read_bytes() == bad, "the damaged file was changed"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("bot.db")) in (
        ["bot.db"], ["bot.db", "bot.db-shm", "bot.db-wal"]), "no replacement database next to it"
    wal = tmp_path / "bot.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0, "nothing was written"


# --- PostgreSQL: unreachable -------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_postgres_stops_startup_with_one_line(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{closed_port()}/test"
    out = subprocess.run(
        [sys.executable, "-m", "bot", "chat"], input="remember: I keep bees\n", capture_output=True, text=True,
        cwd=tmp_path, env=bot_env(tmp_path, url), timeout=120,
    )
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "cannot open the database" in lines[0], out.stderr
    assert "Saved" not in out.stdout


class Relay:
    """A TCP relay in front of PostgreSQL that the test can cut and restore on the same port:
    the server "goes away" for the bot and comes back, while the test's own connections (direct)
    see the real data."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = 0
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self.start()

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(32)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets |= {client, server}
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        """Refuse new connections and break every open one."""
        assert self._listener is not None
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        except OSError:
            pass
        self._listener.close()
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self._sockets.clear()


@pytest.fixture
def pg_schema() -> Iterator[str]:
    require_postgres()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    try:
        yield schema
    finally:
        drop_pg_schema(schema)


@pytest.fixture
async def relayed_core(pg_schema: str) -> AsyncIterator[tuple[Core, Relay, Database]]:
    from sqlalchemy.engine import make_url

    real = make_url(TEST_POSTGRES_URL)
    relay = Relay((real.host or "127.0.0.1", real.port or 5432))
    url = real.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False)
    settings = make_settings(database_url=url)
    db = Database(url, pg_schema=pg_schema)
    core = build_app(settings, db=db, embedder=None, with_model=False).core
    direct = Database(TEST_POSTGRES_URL, pg_schema=pg_schema, create=False)
    try:
        yield core, relay, direct
    finally:
        await core.drain(timeout=5)
        db.dispose()
        direct.dispose()
        relay.cut()


async def test_postgres_going_away_refuses_writes_and_service_resumes(relayed_core: tuple[Core, Relay, Database]) -> None:
    core, relay, direct = relayed_core
    assert only(await core.handle_message(msg("remember: I live in London"))).text.startswith("Saved")
    question = only(await core.handle_message(msg("remember: I moved to Paris")))
    relay.cut()
    for text in ["remember: I keep bees", "/memories", "/search London", "I wonder where I live", "/undo", "/export"]:
        out = only(await core.handle_message(msg(text)))
        assert out.text == REFUSED, (text, out)
    refused = only(await core.handle_press(press(button(question, "Mark older"))))
    assert refused.text == REFUSED
    relay.start()  # the server is back, on the same address
    assert only(await core.handle_message(msg("remember: I keep bees"))).text == "Saved: “I keep bees”"
    assert "now past" in (only(await core.handle_press(press(button(question, "Mark older")))).text or "")
    with direct.engine.connect() as conn:
        texts = sorted(r[0] for r in conn.execute(sql("SELECT text FROM memory")))
    assert texts == ["I keep bees", "I live in London", "I moved to Paris"]  # the refused save never half-happened


async def test_postgres_schema_dropped_under_the_bot_is_refused_not_recreated(pg_schema: str) -> None:
    settings = make_settings(database_url=TEST_POSTGRES_URL)
    db = Database(TEST_POSTGRES_URL, pg_schema=pg_schema)
    core = build_app(settings, db=db, embedder=None, with_model=False).core
    try:
        await core.handle_message(msg("remember: I live in London"))
        question = only(await core.handle_message(msg("remember: I moved to Paris")))
        drop_pg_schema(pg_schema)
        for text in ["remember: I keep bees", "/memories", "/forget 1", "hello there"]:
            out = only(await core.handle_message(msg(text)))
            assert out.text == REFUSED and out.text != SOMETHING_WRONG, (text, out)
        assert only(await core.handle_press(press(button(question, "Keep")))).text == REFUSED
        with db.engine.connect() as conn:  # nothing was "repaired" by creating it again, empty
            found = conn.execute(sql("SELECT count(*) FROM pg_namespace WHERE nspname = :s"), {"s": pg_schema}).scalar()
        assert found == 0
    finally:
        await core.drain(timeout=5)
        db.dispose()
