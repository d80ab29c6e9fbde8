"""Logging in to the memory page, end to end over HTTP on SQLite and PostgreSQL: /web in the chat
gives a one-time link; opening it shows only a Continue button; Continue starts a session
cookie; the code works once, expires, is rate limited; Log out and /forget_me end sessions; a
forged or replayed code, another person's cookie and a form without its CSRF token are refused
and change nothing."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from bot.app import build_app
from bot.events import Incoming
from bot.storage import web_login as rows
from bot.storage.models import utcnow
from tests.support.page_kit import csrf_of, link_for, logged_in
from tests.support.web_kit import WebKit, kit, start_kit, stop_kit  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]


async def test_web_in_a_private_chat_gives_a_link_that_logs_in_once(kit: WebKit) -> None:  # noqa: F811
    alice = await kit.person("2001")
    [out] = await kit.say(alice, "/web")
    assert out.no_preview and not out.private and out.web_app_url == ""  # Mini Apps need https
    # WEB_PORT=0 in tests (any free port): the link names the configured port, the path is the point
    assert out.text.startswith("Your memory page: http://127.0.0.1:") and "/login/" in out.text
    assert "works once, for the next 10 minutes" in out.text
    path = urlsplit(out.text.split()[3]).path
    code = path.rsplit("/", 1)[1]

    browser = kit.http()
    # a link preview or a scanner fetches the link: that uses nothing up
    for _ in range(2):
        shown = await browser.get(path)
        assert shown.status_code == 200 and 'action="/login"' in shown.text and "Continue" in shown.text
        assert "set-cookie" not in shown.headers
    r = await browser.post("/login", data={"code": code})
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"]
    assert "memory_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
    assert "Secure" not in cookie  # plain http on this machine
    page = await browser.get("/")
    assert page.status_code == 200 and "Your memory" in page.text and "Log out" in page.text

    # the same code again, from anywhere: refused, no session
    other = kit.http()
    again = await other.post("/login", data={"code": code})
    assert again.status_code == 400 and "already used" in again.text and "set-cookie" not in again.headers
    assert (await other.get("/")).status_code == 401


async def test_forged_and_expired_codes_start_no_session(kit: WebKit) -> None:  # noqa: F811
    bob = await kit.person("2002")
    browser = kit.http()
    for forged in ("", "x", "A" * 32, "../../etc/passwd", "A" * 500):
        r = await browser.post("/login", data={"code": forged})
        assert r.status_code == 400 and "not valid" in r.text and "set-cookie" not in r.headers
    code = (await link_for(kit, bob)).rsplit("/", 1)[1]
    later = utcnow() + timedelta(minutes=11)
    got = await kit.app.db.tx(rows.redeem, code, timedelta(days=1), later)
    assert got is rows.CodeRefused.EXPIRED
    # and the expired code was not used up by that try: it stays expired, never a session
    r = await browser.post("/login", data={"code": code})
    assert r.status_code == 303  # still inside its ten minutes on the real clock
    assert (await kit.app.db.tx(rows.redeem, code, timedelta(days=1), later)) is rows.CodeRefused.USED


async def test_a_login_posted_from_another_site_opens_nothing(kit: WebKit) -> None:  # noqa: F811
    # login CSRF: another site posts its owner's own valid code to log the visitor in to that memory
    eve = await kit.person("2012")
    code = (await link_for(kit, eve)).rsplit("/", 1)[1]
    browser = kit.http()
    r = await browser.post("/login", data={"code": code}, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and "another site" in r.text and "set-cookie" not in r.headers
    host = kit.url.split("://", 1)[1]
    r = await browser.post("/login", data={"code": code}, headers={"Origin": f"http://{host}"})
    assert r.status_code == 303  # the code was not used up by the refused post


async def test_links_are_rate_limited_per_person(kit: WebKit) -> None:  # noqa: F811
    carol = await kit.person("2003")
    texts = [(await kit.say(carol, "/web"))[0].text for _ in range(6)]
    assert all(t.startswith("Your memory page:") for t in texts[:5])
    assert texts[5].startswith("You asked for several login links in the last few minutes")
    assert "/login/" not in texts[5]


async def test_web_in_a_group_sends_no_link(kit: WebKit) -> None:  # noqa: F811
    dave = await kit.person("2004")
    [out] = await kit.say(dave, "/web", group=True)
    assert "only in a private chat" in out.text and "/login/" not in out.text


async def test_web_without_a_web_server_says_how_to_turn_it_on(settings, database) -> None:  # noqa: ANN001
    app = build_app(settings.model_copy(update={"web_port": None, "web_public_url": ""}), db=database,
                    embedder=None, with_model=False)
    try:
        [out] = await app.core.handle_message(Incoming(platform="telegram", chat_id="9", user_id="9", text="/web",
                                                       display_name="x", is_group=False, message_id="1"))
    finally:
        await app.core.drain(timeout=5)
    assert out.text.startswith("The memory page is not turned on here")
    assert "WEB_PORT" in out.text and "WEB_PUBLIC_URL" in out.text and "/login/" not in out.text


async def test_the_cookie_is_secure_behind_https(settings, database) -> None:  # noqa: ANN001
    started = await start_kit(settings, database, web_public_url="https://memory.example.com")
    try:
        erin = await started.person("2005")
        [out] = await started.say(erin, "/web")
        assert out.text.startswith("Your memory page: https://memory.example.com/login/")
        assert out.web_app_url == "https://memory.example.com/app"  # Telegram: "Open here in Telegram"
        code = out.text.split()[3].rsplit("/", 1)[1]
        # behind the TLS proxy the browser names the public address, the Host is the proxy's upstream
        r = await started.http().post("/login", data={"code": code}, headers={"Origin": "https://memory.example.com"})
        assert r.status_code == 303 and "Secure" in r.headers["set-cookie"]
    finally:
        await stop_kit(started)


async def test_log_out_ends_the_session_everywhere(kit: WebKit) -> None:  # noqa: F811
    frank = await kit.person("2006")
    browser = await logged_in(kit, frank)
    secret = browser.cookies["memory_session"]
    csrf = await csrf_of(browser)
    r = await browser.post("/logout", data={"csrf": csrf})
    assert r.status_code == 200 and "You are logged out" in r.text
    stolen = kit.http()
    stolen.cookies.set("memory_session", secret)
    assert (await stolen.get("/")).status_code == 401


async def test_forget_me_ends_sessions_and_unused_links(kit: WebKit) -> None:  # noqa: F811
    gina = await kit.person("2007")
    browser = await logged_in(kit, gina)
    spare = (await link_for(kit, gina)).rsplit("/", 1)[1]
    [question] = await kit.say(gina, "/forget_me")
    await kit.press(gina, question, "Yes")
    r = await browser.get("/")
    assert r.status_code == 401 and "Send /web" in r.text
    r = await kit.http().post("/login", data={"code": spare})
    assert r.status_code == 400 and "set-cookie" not in r.headers


async def test_another_persons_ids_are_not_found_and_nothing_changes(kit: WebKit) -> None:  # noqa: F811
    alice, mallory = await kit.person("2008"), await kit.person("2009")
    saved = (await kit.http(alice).post("/api/memories", json={"text": "My bank PIN hint is the dog's birthday"})).json()
    uid = saved["memory"]["id"]
    before = kit.state(alice)
    browser = await logged_in(kit, mallory)
    csrf = await csrf_of(browser)
    assert "bank PIN" not in (await browser.get("/?show=all")).text
    assert (await browser.get(f"/memories/{uid}")).status_code == 404
    for verb in ("edit", "update", "past", "restore", "delete"):
        r = await browser.post(f"/memories/{uid}/{verb}", data={"csrf": csrf, "text": "owned"})
        assert r.status_code == 404, (verb, r.text)
        assert "bank PIN" not in r.text
    assert (await browser.post(f"/questions/{uid}/answer", data={"csrf": csrf, "choice": "keep_both"})).status_code == 404
    assert kit.state(alice) == before


async def test_a_form_without_its_csrf_token_changes_nothing(kit: WebKit) -> None:  # noqa: F811
    hana = await kit.person("2010")
    uid = (await kit.http(hana).post("/api/memories", json={"text": "I like green tea"})).json()["memory"]["id"]
    browser = await logged_in(kit, hana)
    good = await csrf_of(browser)
    before = kit.state(hana)
    for data in ({}, {"csrf": ""}, {"csrf": "0" * 40}, {"csrf": good[:-1] + ("0" if good[-1] != "0" else "1")}):
        r = await browser.post(f"/memories/{uid}/delete", data=data)
        assert r.status_code == 403 and "nothing was" in r.text.lower()
        r = await browser.post("/memories", data=data | {"text": "I like black tea"})
        assert r.status_code == 403
    assert kit.state(hana) == before
    # another session's token does not fit this session
    other = await logged_in(kit, hana)
    theirs = await csrf_of(other)
    assert theirs != good
    assert (await browser.post(f"/memories/{uid}/delete", data={"csrf": theirs})).status_code == 403
    assert kit.state(hana) == before


async def test_a_memory_with_markup_shows_as_text_under_a_strict_policy(kit: WebKit) -> None:  # noqa: F811
    ivan = await kit.person("2011")
    await kit.say(ivan, 'remember: my note is <script>alert(1)</script> and <img src=x onerror=alert(2)>')
    browser = await logged_in(kit, ivan)
    page = await browser.get("/")
    assert "<script>alert(1)</script>" not in page.text and "<img src=x" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp
    assert page.headers["referrer-policy"] == "same-origin" and page.headers["cache-control"] == "no-store"
    assert "<script>" not in page.text.replace('<script src="/static/page.js" defer></script>', "")


def test_login_link_command_prints_the_link_alone_on_its_last_line(tmp_path: Path) -> None:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'm.db'}", "WEB_PUBLIC_URL": "https://memory.example.com",
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "DATA_DIR": str(tmp_path)}
    got = subprocess.run([sys.executable, "-m", "bot", "login-link", "--owner", "telegram:42"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    last = got.stdout.strip().splitlines()[-1]
    assert last.startswith("https://memory.example.com/login/") and " " not in last
    assert len(last.rsplit("/", 1)[1]) >= 30
