"""Telegram Mini App sign-in: initData is accepted only with Telegram's signature (secret =
HMAC-SHA256 of the bot token keyed with "WebAppData") and a fresh auth_date; the rules as a
table (web/miniapp.py), then over HTTP: a valid one opens the person's own memory page, a wrong
hash or an old date opens nothing and changes nothing."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import urlencode

import pytest

from tests.support.web_kit import start_kit, stop_kit
from web.miniapp import MiniAppUser, check_init_data, sign

TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
NOW = 1_790_000_000.0


def init_data(*, user_id: int = 777, auth_date: float = NOW - 30, token: str = TOKEN, extra: dict | None = None,
              hash_: str | None = None) -> str:
    fields = {"query_id": "AAHdF6IQAAAAAN0XohDhrOrc", "auth_date": str(int(auth_date)),
              "user": json.dumps({"id": user_id, "first_name": "Maya", "last_name": "R", "language_code": "en"})}
    fields |= extra or {}
    fields["hash"] = hash_ if hash_ is not None else sign(fields, token)
    return urlencode(fields)


def login_widget_hash(fields: dict[str, str]) -> str:
    """How the Login Widget signs: its key is SHA-256 of the token (not accepted here)."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    return hmac.new(hashlib.sha256(TOKEN.encode()).digest(), check.encode(), hashlib.sha256).hexdigest()


def test_a_valid_fresh_init_data_names_the_user() -> None:
    assert check_init_data(init_data(), TOKEN, NOW) == MiniAppUser("777", "Maya R")


def test_the_known_secret_derivation() -> None:
    # secret_key = HMAC_SHA256(key="WebAppData", msg=bot_token), then HMAC of the data-check string
    fields = {"auth_date": "1", "user": '{"id":1}'}
    key = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, b"auth_date=1\nuser={\"id\":1}", hashlib.sha256).hexdigest()
    assert sign(fields, TOKEN) == expected


WIDGET_FIELDS = {"query_id": "q", "auth_date": str(int(NOW - 30)), "user": json.dumps({"id": 777})}


@pytest.mark.parametrize(("raw", "why"), [
    (init_data(hash_="0" * 64), "valid signature"),
    (init_data(token="999:OTHER"), "valid signature"),  # signed for another bot
    (urlencode(WIDGET_FIELDS | {"hash": login_widget_hash(WIDGET_FIELDS)}), "valid signature"),
    (init_data(auth_date=NOW - 601), "too old"),
    (init_data(auth_date=NOW - 86400 * 30), "too old"),
    (init_data(auth_date=NOW + 3600), "future"),
    (init_data().replace("777", "778"), "valid signature"),  # another user id pasted in
    (init_data() + "&auth_date=1", "twice"),
    ("", "missing"),
    ("x" * 5000, "missing"),
    (init_data(extra={"user": "not json"}), "names no user"),
])
def test_refused_init_data(raw: str, why: str) -> None:
    got = check_init_data(raw, TOKEN, NOW)
    assert isinstance(got, str) and why in got, got


def test_without_a_bot_token_nothing_is_accepted() -> None:
    assert "no Telegram bot" in str(check_init_data(init_data(), "", NOW))


@pytest.fixture
async def site(settings, database):  # noqa: ANN001, ANN201
    started = await start_kit(settings, database, telegram_bot_token=TOKEN)
    try:
        yield started
    finally:
        await stop_kit(started)


async def test_the_mini_app_opens_the_telegram_users_own_memory(site) -> None:  # noqa: ANN001
    maya = await site.person("777")
    await site.say(maya, "remember: My bike is a green Brompton")
    other = await site.person("778")
    await site.say(other, "remember: My boat is called Wren")
    browser = site.http()
    shown = await browser.get("/app")
    assert shown.status_code == 200 and 'id="miniapp-login"' in shown.text
    r = await browser.post("/app/login", data={"init_data": init_data(user_id=777, auth_date=time.time() - 5)})
    assert r.status_code == 303 and "HttpOnly" in r.headers["set-cookie"]
    page = (await browser.get("/")).text
    assert "My bike is a green Brompton" in page and "Wren" not in page


async def test_a_wrong_hash_or_an_old_date_opens_nothing(site) -> None:  # noqa: ANN001
    maya = await site.person("777")
    before = site.state(maya)
    for raw in (init_data(auth_date=time.time() - 5, hash_="ab" * 32), init_data(auth_date=time.time() - 3600),
                init_data(auth_date=time.time() - 5, token="999:OTHER")):
        browser = site.http()
        r = await browser.post("/app/login", data={"init_data": raw})
        assert r.status_code == 403 and "Nothing was opened" in r.text and "set-cookie" not in r.headers
        assert (await browser.get("/")).status_code == 401
    assert site.state(maya) == before


async def test_someone_left_out_of_allowed_users_is_not_let_in(settings, database) -> None:  # noqa: ANN001
    started = await start_kit(settings, database, telegram_bot_token=TOKEN, allowed_users="telegram:1")
    try:
        r = await started.http().post("/app/login", data={"init_data": init_data(user_id=555, auth_date=time.time())})
        assert r.status_code == 403 and "may not use this assistant" in r.text
        assert await started.app.memory.owner_for("telegram", "555", create=False) is None  # nobody was created
    finally:
        await stop_kit(started)
