"""Per-person API tokens (docs/ARCHITECTURE.md section 10): /token new | list | revoke in a private
chat, refused in groups; the token opens the person's memory over HTTP and is stored only as a
hash; revoking (in the chat, on the command line, by /forget_me) closes it with a clear 401;
linked identities' tokens see the shared memory; the per-token rate limit. On SQLite and
PostgreSQL, against the running web server."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text as sql

from tests.support.processes import bot_database, bot_env  # noqa: F401  (fixture)
from tests.support.web_kit import WebKit, kit, start_kit, stop_kit  # noqa: F401

SECRET = re.compile(r"\b(mem_[A-Za-z0-9_-]{43})\b")


def secret_in(text: str) -> str:
    found = SECRET.search(text)
    assert found, text
    return found.group(1)


async def test_token_new_list_revoke_in_a_private_chat(kit: WebKit, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    caplog.set_level(logging.DEBUG)
    alice = await kit.person("2001")
    (out,) = await kit.say(alice, "/token new laptop")
    secret = secret_in(out.text)
    assert "shown only this once" in out.text and "“laptop”" in out.text

    api = kit.http(Authorization=f"Bearer {secret}")
    await kit.say(alice, "remember: I play the cello")
    r = await api.get("/api/memories")
    assert r.status_code == 200 and [m["text"] for m in r.json()["memories"]] == ["I play the cello"]

    (listing,) = await kit.say(alice, "/token list")
    assert "1. “test”" in listing.text and "2. “laptop”" in listing.text  # the kit's token, then this one
    assert secret not in listing.text and "last used" in listing.text

    (done,) = await kit.say(alice, "/token revoke 2")
    assert "Revoked token 2 (“laptop”)" in done.text
    r = await api.get("/api/memories")
    assert r.status_code == 401 and "revoked" in r.json()["error"]["message"]
    assert r.headers["www-authenticate"].startswith("Bearer")
    (again,) = await kit.say(alice, "/token revoke 5")
    assert "no token number 5" in again.text

    # only a hash is kept, and the secret is never logged
    with kit.app.db.engine.connect() as conn:
        stored = " ".join(str(v) for row in conn.execute(sql("SELECT * FROM api_token")).all() for v in row)
    assert secret not in stored and alice.token not in stored
    assert secret not in caplog.text and alice.token not in caplog.text


async def test_tokens_are_refused_in_groups(kit: WebKit) -> None:  # noqa: F811
    bob = await kit.person("2002")
    before = kit.state(bob)
    (out,) = await kit.say(bob, "/token new", group=True)
    assert "private chat" in out.text and out.private and not SECRET.search(out.text)
    (out,) = await kit.say(bob, "/token list", group=True)
    assert "private chat" in out.text
    assert kit.state(bob) == before


async def test_forget_me_revokes_the_tokens(kit: WebKit) -> None:  # noqa: F811
    carol = await kit.person("2003")
    api = kit.http(carol)
    await api.post("/api/memories", json={"text": "I have a dog called Pixel"})
    (ask,) = await kit.say(carol, "/forget_me")
    await kit.press(carol, ask, "Yes, delete everything")
    r = await api.get("/api/memories")
    assert r.status_code == 401 and "revoked" in r.json()["error"]["message"]
    with kit.app.db.engine.connect() as conn:
        names = conn.execute(sql("SELECT name FROM api_token")).scalars().all()
    assert names == [""]  # the name the person gave is gone too


async def test_linked_accounts_tokens_see_the_shared_memory(kit: WebKit) -> None:  # noqa: F811
    tg = await kit.person("2004", platform="telegram")
    dc = await kit.person("2005", platform="discord")
    await kit.http(tg).post("/api/memories", json={"text": "I live in Lisbon"})
    assert (await kit.http(dc).get("/api/memories")).json()["memories"] == []  # its own, empty memory
    (code_msg,) = await kit.say(tg, "/link")
    code = re.search(r"Your link code: (\S+)", code_msg.text).group(1)  # type: ignore[union-attr]
    (asked,) = await kit.say(dc, f"/link {code}")
    await kit.press(dc, asked, "Yes, link them")  # /link names the account and asks first (issue 17)

    via_discord = (await kit.http(dc).get("/api/memories")).json()["memories"]
    assert [m["text"] for m in via_discord] == ["I live in Lisbon"]
    await kit.http(dc).post("/api/memories", json={"text": "I speak Portuguese"})
    via_telegram = (await kit.http(tg).get("/api/memories")).json()["memories"]
    assert {m["text"] for m in via_telegram} == {"I live in Lisbon", "I speak Portuguese"}
    (listing,) = await kit.say(tg, "/token list")
    assert "Your API tokens (2):" in listing.text  # both accounts' tokens: one person

    await kit.say(dc, "/unlink")
    alone = (await kit.http(dc).get("/api/memories")).json()["memories"]
    assert "I live in Lisbon" not in {m["text"] for m in alone}


async def test_a_token_revoked_by_another_process_stops_within_a_second(kit: WebKit) -> None:  # noqa: F811
    """This process remembers a verified token for at most a second (bot/core/access.py)."""
    import asyncio
    import time

    from bot.storage.db import Database

    eve = await kit.person("2008")
    api = kit.http(eve)
    assert (await api.get("/api/memories")).status_code == 200
    other = Database(kit.app.db.url, pg_schema=kit.app.db.pg_schema)  # another process's connection
    try:
        with other.engine.begin() as conn:
            conn.execute(sql("UPDATE api_token SET revoked_at = CURRENT_TIMESTAMP"))
    finally:
        other.dispose()
    revoked_at = time.monotonic()
    while (r := await api.get("/api/memories")).status_code == 200:
        assert time.monotonic() - revoked_at < 2.0, "still open two seconds after its revocation"
        await asyncio.sleep(0.05)
    assert r.status_code == 401 and "revoked" in r.json()["error"]["message"]


async def test_the_rate_limit_is_per_token(settings, database) -> None:
    limited = await start_kit(settings, database, api_rate_limit_per_minute=3)
    try:
        dan, eve = await limited.person("2006"), await limited.person("2007")
        codes = [(await limited.http(dan).get("/api/memories")).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        r = await limited.http(dan).get("/api/memories")
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert "Too many requests" in r.json()["error"]["message"]
        assert (await limited.http(eve).get("/api/memories")).status_code == 200  # another token is not slowed
        assert (await limited.http().get("/api/health")).status_code == 200
    finally:
        await stop_kit(limited)


def run_cli(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=120)


@pytest.mark.e2e
def test_token_command_line(tmp_path: Path, bot_database) -> None:  # noqa: F811
    url, _, _ = bot_database
    env = bot_env(tmp_path, url)
    made = run_cli(tmp_path, env, "token", "create", "--owner", "telegram:777", "--name", "backup script")
    assert made.returncode == 0, made.stderr
    secret = made.stdout.strip().splitlines()[-1]
    assert SECRET.fullmatch(secret), made.stdout  # the token alone on the last line
    assert "backup script" in made.stdout

    listed = run_cli(tmp_path, env, "token", "list", "--owner", "telegram:777")
    assert listed.returncode == 0 and "1. backup script (telegram:777)" in listed.stdout and secret not in listed.stdout

    nobody = run_cli(tmp_path, env, "token", "list", "--owner", "telegram:nobody")
    assert nobody.returncode != 0 and nobody.stderr.strip().startswith("error: nobody known as telegram:nobody")
    wrong = run_cli(tmp_path, env, "token", "revoke", "--owner", "telegram:777", "9")
    assert wrong.returncode != 0 and "no active token number 9" in wrong.stderr

    gone = run_cli(tmp_path, env, "token", "revoke", "--owner", "telegram:777", "1")
    assert gone.returncode == 0 and "Revoked token 1" in gone.stdout
    assert "has no active API tokens" in run_cli(tmp_path, env, "token", "list", "--owner", "telegram:777").stdout


@pytest.mark.e2e
async def test_a_token_made_on_the_command_line_opens_the_api(tmp_path: Path, settings, database, db_backend) -> None:
    from tests.support.processes import pg_schema_url

    url, schema = db_backend
    env = bot_env(tmp_path, pg_schema_url(schema) if schema else url)
    made = run_cli(tmp_path, env, "token", "create", "--owner", "discord:42")
    assert made.returncode == 0, made.stderr
    secret = made.stdout.strip().splitlines()[-1]
    server = await start_kit(settings, database)
    try:
        async with httpx.AsyncClient(base_url=server.url, headers={"Authorization": f"Bearer {secret}"}) as api:
            assert (await api.post("/api/memories", json={"text": "I collect stamps"})).status_code == 201
        owner = await server.app.memory.owner_for("discord", "42", create=False)
        assert owner is not None and [m.text for m in await server.app.memory.list(owner)] == ["I collect stamps"]
    finally:
        await stop_kit(server)
