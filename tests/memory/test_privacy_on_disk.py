"""Nothing forgotten stays on disk (issue 16, item 6).

A person says a unique secret, the assistant quotes it back, they forget it; once the undo window
(UNDO_WINDOW_SECONDS, one second here) is over and the purge job (the app's own timer) has run,
no byte of it is left. SQLite: the raw files are scanned (database, write-ahead log, shared
memory), which covers action summaries, events, the conversation log, the full-text index's
segments and free pages. PostgreSQL, whose free space and WAL are the server's: every text column
of every table and the full-text vectors are queried. The same for /forget_me.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import text as sql

from bot.app import build_app
from bot.events import ButtonPress, Incoming, Outgoing

SECRETS = ("Xyzzyquorn", "Plughvale", "Frobozzica")


def msg(text: str) -> Incoming:
    return Incoming(platform="console", chat_id="u1", user_id="u1", text=text, display_name="u1", message_id="m1")


async def say(app, text: str) -> list[Outgoing]:  # noqa: ANN001
    return await app.core.handle_message(msg(text))


async def press(app, out: Outgoing, label: str) -> list[Outgoing]:  # noqa: ANN001
    token = next(b.token for b in out.all_buttons if b.label.startswith(label))
    return await app.core.handle_press(ButtonPress("console", "u1", "u1", token, message_id="q1"))


def raw_hits(db_file: Path, needle: str) -> dict[str, int]:
    """How often `needle` (any case) occurs in each of the SQLite files, byte for byte."""
    hits = {}
    for path in (db_file, Path(f"{db_file}-wal"), Path(f"{db_file}-shm")):
        if path.exists():
            hits[path.name] = path.read_bytes().lower().count(needle.lower().encode())
    return hits


def text_hits(database, needle: str) -> list[str]:  # noqa: ANN001
    """Every table.column whose text holds `needle` (any case), and, on PostgreSQL, the full-text
    vectors of memories that match it."""
    found = []
    with database.engine.connect() as conn:
        if database.dialect == "sqlite":
            tables = [r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")]
            columns = [
                (t, c[1]) for t in tables if not t.startswith("memory_fts")
                for c in conn.exec_driver_sql(f'PRAGMA table_info("{t}")') if c[2].upper() in ("TEXT", "VARCHAR", "")
                or c[2].upper().startswith("VARCHAR")
            ]
        else:
            columns = [tuple(r) for r in conn.execute(sql(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying')"
            ))]
        for table, column in columns:
            n = conn.execute(sql(f'SELECT count(*) FROM "{table}" WHERE lower("{column}") LIKE :p'),
                             {"p": f"%{needle.lower()}%"}).scalar()
            if n:
                found.append(f"{table}.{column}")
        if database.dialect == "postgresql":
            n = conn.execute(sql("SELECT count(*) FROM memory WHERE to_tsvector('english', text) @@ "
                                 "plainto_tsquery('english', :q)"), {"q": needle}).scalar()
            if n:
                found.append("memory tsvector")
        else:
            n = conn.execute(sql("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH :q"), {"q": f'"{needle}"'}).scalar()
            if n:
                found.append("memory_fts")
    return found


async def wait_for_purge(database, timeout: float = 10.0) -> None:  # noqa: ANN001
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        with database.engine.connect() as conn:
            left = conn.execute(sql("SELECT count(*) FROM memory WHERE deleted_at IS NOT NULL AND purged_at IS NULL")).scalar()
        if not left:
            return
        assert asyncio.get_running_loop().time() < deadline, "the purge job did not run within its interval"
        await asyncio.sleep(0.2)


async def test_a_forgotten_secret_leaves_no_byte_on_disk(database, settings, tmp_path):
    settings = settings.model_copy(update={"undo_window_seconds": 1})
    app = build_app(settings, db=database, embedder=None, with_model=False)
    await app.start_background()  # the real purge job, on its timer
    try:
        await say(app, "remember: I like green tea")
        await say(app, f"remember: My secret diagnosis is {SECRETS[0]} syndrome")
        answer = await say(app, "what is my secret diagnosis?")  # quoted back from memory, and logged
        assert SECRETS[0] in answer[0].text
        await say(app, "/why")
        await say(app, f"/search {SECRETS[0]}")
        [deleted] = await say(app, "/forget 1")
        assert SECRETS[0] in deleted.text and "within 1 second" in deleted.text
        assert text_hits(database, SECRETS[0])  # still there while it can be undone
        await wait_for_purge(database)
        await app.db.truncate_wal()  # what the purge did; a second time must change nothing

        assert text_hits(database, SECRETS[0]) == []
        if database.dialect == "sqlite":
            db_file = Path(database.url.split(":///", 1)[1])
            assert sum(raw_hits(db_file, SECRETS[0]).values()) == 0, raw_hits(db_file, SECRETS[0])
            assert sum(raw_hits(db_file, "green tea").values()) > 0  # the scan does see live text
        # what is left is still usable
        listing = (await say(app, "/memories"))[0].text
        assert "green tea" in listing and SECRETS[0] not in listing
        assert SECRETS[0] not in (await say(app, "/undo"))[0].text
    finally:
        await app.close()


async def test_forget_me_leaves_no_byte_of_the_persons_words(database, settings):
    app = build_app(settings, db=database, embedder=None, with_model=False)
    try:
        await say(app, f"remember: My sister {SECRETS[0]} lives in {SECRETS[1]}")
        await say(app, f"remember: I drive a {SECRETS[2]} estate")
        await say(app, f"remember: I drive a {SECRETS[2]} coupe now")  # a question, with history
        await say(app, f"where does {SECRETS[0]} live?")
        await say(app, f"/remind tomorrow at 9 call {SECRETS[0]}")
        await say(app, "/settings notices off")
        [ask] = await say(app, "/forget_me")
        [done] = await press(app, ask, "Yes")
        assert done.text.startswith("Done. I deleted everything I held about you: 3 memories")
        for secret in SECRETS:
            assert text_hits(database, secret) == [], secret
        if database.dialect == "sqlite":
            db_file = Path(database.url.split(":///", 1)[1])
            for secret in SECRETS:
                assert sum(raw_hits(db_file, secret).values()) == 0, (secret, raw_hits(db_file, secret))
        assert "nothing yet" in (await say(app, "/memories"))[0].text
    finally:
        await app.close()


def test_the_scan_finds_what_is_there(tmp_path):
    """The raw scan is not blind: a word written through the bot's own engine is found."""
    from bot.storage.db import Database

    db = Database(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        with db.engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE t (x TEXT)")
            conn.exec_driver_sql(f"INSERT INTO t VALUES ('{SECRETS[1]}')")
        assert sum(raw_hits(tmp_path / "x.db", SECRETS[1]).values()) > 0
    finally:
        db.dispose()



async def test_a_summary_written_before_references_loses_the_text_at_the_purge(memory, database):
    """A database from before this change has summaries that quote the text ("saving “…”")."""
    o = await memory.owner_for("console", "u1")
    saved = await memory.remember(o, f"My locker code is {SECRETS[2]}")
    with database.engine.begin() as conn:  # as the old code wrote it
        conn.execute(sql("UPDATE action SET summary = :s WHERE id = :a"),
                     {"s": f"saving “My locker code is {SECRETS[2]}”", "a": saved.action_id})
    await memory.delete(o, saved.memory.id)
    memory.settings = memory.settings.model_copy(update={"undo_window_seconds": 0})
    assert await memory.purge_due() == 1
    assert text_hits(database, SECRETS[2]) == []
    with database.engine.connect() as conn:
        [(summary,)] = conn.execute(sql("SELECT summary FROM action WHERE id = :a"), {"a": saved.action_id}).all()
    assert summary == f"saving {{m{saved.memory.id}}}"
