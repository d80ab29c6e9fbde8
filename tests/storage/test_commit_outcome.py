"""Issue 17, finding 7 (PostgreSQL): when the connection drops after COMMIT was sent, the bot said
"I haven't changed anything" about a change that was committed (seen for a save and a /forget).

The real bot (bot.app.build_app: core, memory service, psycopg) talks to PostgreSQL through a
proxy that cuts the connection right after forwarding COMMIT (the server commits; the client
never hears so), right before it (nothing is committed), or after it with the server then
unreachable for a while (nobody can tell). The reply must be the truth, or say it is unsure;
never a false "nothing changed"; and the next list shows what is stored.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from bot.app import build_app
from bot.events import Incoming
from bot.storage.db import Database
from tests.conftest import TEST_POSTGRES_URL, drop_pg_schema, make_settings, require_postgres
from tests.support.pg_proxy import PgProxy, pg_proxy

pytestmark = pytest.mark.postgres


@pytest.fixture
async def proxied() -> AsyncIterator[tuple[Any, PgProxy]]:
    require_postgres()
    url = make_url(TEST_POSTGRES_URL)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    async with pg_proxy(url.host or "127.0.0.1", url.port or 5432) as proxy:
        through = url.set(host="127.0.0.1", port=proxy.port, query={"sslmode": "disable", "gssencmode": "disable"})
        db_url = through.render_as_string(hide_password=False)
        # off the loop: the proxy serves on it
        db = await asyncio.to_thread(Database, db_url, pg_schema=schema)
        app = build_app(make_settings(database_url=db_url), db=db, embedder=None, with_model=False)
        try:
            yield app, proxy
        finally:
            await app.close()
            drop_pg_schema(schema)


def said(app: Any, text: str) -> Incoming:
    return Incoming(platform="console", chat_id="ann", user_id="ann", text=text, display_name="Ann")


async def say(app: Any, text: str) -> str:
    outs = await app.core.handle_message(said(app, text))
    return "\n".join(o.text for o in outs)


async def test_a_commit_whose_answer_was_lost_is_looked_up_before_the_reply(proxied) -> None:
    app, proxy = proxied
    assert (await say(app, "remember: I keep bees")).startswith("Saved")

    proxy.cut_at_commit = "after"  # committed, but the client never hears so
    reply = await say(app, "remember: I live in Oslo")
    assert proxy.cuts == 1
    assert reply == "Saved: “I live in Oslo”", reply
    assert "I live in Oslo" in await say(app, "/memories")

    await say(app, "/memories")
    proxy.cut_at_commit = "after"  # the same for a /forget
    reply = await say(app, "/forget 2")
    assert proxy.cuts == 2
    assert "haven't changed anything" not in reply and "Oslo" in reply, reply
    assert "I live in Oslo" not in await say(app, "/memories")


async def test_a_commit_that_never_reached_the_server_says_nothing_changed(proxied) -> None:
    app, proxy = proxied
    await say(app, "/memories")  # Ann is known: the cut hits the save, not her first visit
    proxy.cut_at_commit = "before"
    reply = await say(app, "remember: I live in Rome")
    assert proxy.cuts == 1
    assert "haven't changed anything" in reply
    assert "Rome" not in await say(app, "/memories")


async def test_when_nobody_can_tell_the_reply_says_so_and_the_next_list_shows_the_truth(proxied) -> None:
    app, proxy = proxied
    real = app.db.transaction_outcome

    def unreachable(xid: int, **kw: Any) -> str | None:
        proxy.refuse_new = True  # the server cannot be reached to ask
        try:
            return real(xid, tries=3, pause=0.05)
        finally:
            proxy.refuse_new = False

    app.db.transaction_outcome = unreachable  # type: ignore[method-assign]
    await say(app, "/memories")  # Ann is known: the cut hits the save, not her first visit
    proxy.cut_at_commit = "after"
    reply = await say(app, "remember: I live in Lima")
    assert proxy.cuts == 1
    assert "could not confirm whether it was saved" in reply and "haven't changed anything" not in reply
    assert "I live in Lima" in await say(app, "/memories")  # it was committed after all
