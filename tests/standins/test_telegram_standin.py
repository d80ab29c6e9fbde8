"""The Telegram stand-in, proven with the real python-telegram-bot and with raw HTTP.

If these pass, the adapter tests that run against the stand-in test the adapter, not the
stand-in's gaps."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

import aiohttp
import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from tests.standins.telegram_api import TelegramStandIn, text_entities
from tests.support.telegram_helpers import ALICE, BOB, BOT_USERNAME, GROUP, tg  # noqa: F401

# PTB 22's own RetryAfter.__init__ trips its int-vs-timedelta deprecation warning.
pytestmark = pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")


@pytest.fixture
async def bot(tg: TelegramStandIn) -> AsyncIterator[Bot]:  # noqa: F811
    b = Bot(tg.token, base_url=tg.base_url, base_file_url=tg.file_url)
    async with b:
        yield b


async def _running_app(tg: TelegramStandIn, *handlers: object) -> Application:  # noqa: F811
    app = (
        ApplicationBuilder()
        .token(tg.token)
        .base_url(tg.base_url)
        .base_file_url(tg.file_url)
        .job_queue(None)
        .build()
    )
    for h in handlers:
        app.add_handler(h)  # type: ignore[arg-type]
    await app.initialize()
    await app.start()
    assert app.updater is not None
    await app.updater.start_polling(poll_interval=0.0, timeout=10)
    return app


async def _stop(app: Application) -> None:
    assert app.updater is not None
    await app.updater.stop()
    await app.stop()
    await app.shutdown()


async def test_get_me_and_wrong_token(tg: TelegramStandIn, bot: Bot) -> None:  # noqa: F811
    me = await bot.get_me()
    assert me.username == BOT_USERNAME and me.is_bot and me.id == tg.bot_id
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{tg.base_url}123:wrong/getMe") as resp:
            assert resp.status == 401
            assert await resp.json() == {
                "ok": False,
                "error_code": 401,
                "description": "Unauthorized",
            }
        async with http.post(f"{tg.base_url}{tg.token}/noSuchMethod") as resp:
            assert resp.status == 404


async def test_command_handler_gets_injected_message_and_replies(tg: TelegramStandIn) -> None:  # noqa: F811
    seen: list[tuple[str, list[str]]] = []

    async def on_cmd(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.message is not None
        seen.append((update.message.text or "", list(context.args or [])))
        await update.message.reply_text(f"args={context.args}")

    app = await _running_app(tg, CommandHandler("memories", on_cmd))
    try:
        # PTB's CommandHandler only fires with a bot_command entity: proves entities are right.
        tg.inject_text(ALICE, ALICE, "/memories all")
        tg.inject_text(GROUP, ALICE, f"/memories@{BOT_USERNAME} current")
        await tg.wait_for_sent(ALICE, 1)
        await tg.wait_for_sent(GROUP, 1)
    finally:
        await _stop(app)
    assert seen == [("/memories all", ["all"]), (f"/memories@{BOT_USERNAME} current", ["current"])]
    assert tg.sent(ALICE)[0].text == "args=['all']"
    assert tg.pending_updates() == 0  # the stop-time getUpdates confirmed everything


async def test_callback_query_round_trip(tg: TelegramStandIn) -> None:  # noqa: F811
    pressed: list[str] = []

    async def on_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.message is not None
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Keep both", callback_data="tok1")]])
        await update.message.reply_text("Which one?", reply_markup=keyboard)

    async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        q = update.callback_query
        assert q is not None and q.message is not None
        pressed.append(q.data or "")
        await q.answer("Saved")
        await q.edit_message_text("Kept both.")

    app = await _running_app(
        tg, MessageHandler(filters.TEXT, on_text), CallbackQueryHandler(on_press)
    )
    try:
        tg.inject_text(ALICE, ALICE, "hi")
        [question] = await tg.wait_for_sent(ALICE, 1)
        assert question.buttons == [[("Keep both", "tok1")]]
        qid = tg.press_button(ALICE, ALICE, question.message_id, label="Keep both")
        answer = await tg.wait_for_answer(qid)
        await tg.wait_for(lambda: question.edit_count == 1, what="the edit")
    finally:
        await _stop(app)
    assert pressed == ["tok1"]
    assert answer["text"] == "Saved"
    assert question.text == "Kept both." and question.history == ["Which one?"]
    assert question.buttons == []  # editMessageText without reply_markup drops the keyboard
    with pytest.raises(KeyError):
        tg.press_button(ALICE, ALICE, question.message_id, data="tok1")


async def test_document_round_trip(tg: TelegramStandIn, bot: Bot) -> None:  # noqa: F811
    payload = json.dumps({"version": 1, "memories": ["I live in Paris"]}).encode()
    sent = await bot.send_document(ALICE, document=payload, filename="export.json", caption="Here")
    stored = tg.sent(ALICE)[0]
    assert stored.document is not None and stored.document.data == payload
    assert stored.document.filename == "export.json" and stored.caption == "Here"
    assert sent.document is not None
    f = await bot.get_file(sent.document.file_id)
    assert bytes(await f.download_as_bytearray()) == payload

    injected = tg.inject_document(ALICE, ALICE, b"abc" * 100, "backup.json", caption="/import")
    assert injected["caption_entities"][0]["type"] == "bot_command"
    f2 = await bot.get_file(injected["document"]["file_id"])
    assert f2.file_size == 300
    assert bytes(await f2.download_as_bytearray()) == b"abc" * 100


async def test_long_poll_holds_and_wakes(tg: TelegramStandIn, bot: Bot) -> None:  # noqa: F811
    t0 = time.monotonic()
    assert await bot.get_updates(timeout=1) == ()
    held = time.monotonic() - t0
    assert 0.9 <= held < 2.0

    async def inject_later() -> None:
        await asyncio.sleep(0.2)
        tg.inject_text(ALICE, ALICE, "wake up")

    t0 = time.monotonic()
    task = asyncio.create_task(inject_later())
    updates = await bot.get_updates(timeout=5)
    await task
    assert time.monotonic() - t0 < 1.5
    assert [u.message.text for u in updates if u.message] == ["wake up"]
    # Not confirmed yet: the same update comes again; confirmed by offset: gone.
    again = await bot.get_updates(timeout=0)
    assert [u.update_id for u in again] == [updates[0].update_id]
    assert await bot.get_updates(offset=updates[0].update_id + 1, timeout=0) == ()
    assert tg.pending_updates() == 0


async def test_allowed_updates_and_update_shapes(tg: TelegramStandIn, bot: Bot) -> None:  # noqa: F811
    m = tg.inject_text(GROUP, ALICE, f"hey @{BOT_USERNAME} /help 🙂")
    tg.inject_edit(GROUP, m["message_id"], "edited")
    tg.inject_photo(ALICE, ALICE)
    tg.inject_sticker(ALICE, ALICE)
    tg.inject_voice(ALICE, ALICE)
    updates = await bot.get_updates(timeout=0, allowed_updates=["message"])
    assert len(updates) == 4  # the edited_message is not delivered and is dropped
    first = updates[0].message
    assert first is not None and first.chat.type == "supergroup"
    assert set(first.parse_entities().values()) == {f"@{BOT_USERNAME}", "/help"}
    assert updates[1].message and updates[1].message.photo
    assert updates[2].message and updates[2].message.sticker
    assert updates[3].message and updates[3].message.voice
    assert await bot.get_updates(offset=updates[-1].update_id + 1, timeout=0) == ()


def test_entities_use_utf16_offsets() -> None:
    text = "🙂🙂 @memory_test_bot /help@memory_test_bot x/notcmd"
    ents = text_entities(text)
    assert [(e["type"], e["offset"], e["length"]) for e in ents] == [
        ("mention", 5, 16),
        ("bot_command", 22, 21),
    ]


async def test_faults(tg: TelegramStandIn, bot: Bot) -> None:  # noqa: F811
    tg.fail_next("sendMessage", status=429, retry_after=3)
    with pytest.raises(RetryAfter) as info:
        await bot.send_message(ALICE, "x")
    assert "3" in str(info.value)
    tg.fail_next("sendMessage", status=500)
    with pytest.raises(NetworkError):
        await bot.send_message(ALICE, "x")
    tg.fail_next("sendMessage", status=502)
    with pytest.raises(NetworkError):
        await bot.send_message(ALICE, "x")
    tg.drop_next("sendMessage")
    with pytest.raises(NetworkError) as dropped:
        await bot.send_message(ALICE, "x")
    assert "disconnected" in str(dropped.value).lower()
    assert tg.sent(ALICE) == []  # faults happen before anything is delivered
    await bot.send_message(ALICE, "finally")
    assert [m.text for m in tg.sent(ALICE)] == ["finally"]
    assert [c.status for c in tg.calls_to("sendMessage")] == [429, 500, 502, -1, 200]


async def test_private_chat_not_started_is_forbidden(tg: TelegramStandIn, bot: Bot) -> None:  # noqa: F811
    with pytest.raises(Forbidden, match="initiate conversation"):
        await bot.send_message(BOB, "hello")
    with pytest.raises(BadRequest, match="(?i)chat not found"):
        await bot.send_message(99999, "hello")
    tg.inject_text(BOB, BOB, "/start")  # writing to the bot starts the conversation
    await bot.send_message(BOB, "hello")
    tg.block(BOB)
    with pytest.raises(Forbidden, match="blocked"):
        await bot.send_message(BOB, "again")


async def test_send_validation(tg: TelegramStandIn, bot: Bot) -> None:  # noqa: F811
    with pytest.raises(BadRequest, match="too long"):
        await bot.send_message(ALICE, "x" * 4097)
    with pytest.raises(BadRequest, match="too long"):
        await bot.send_message(ALICE, "🙂" * 2049)  # 4,098 UTF-16 units
    await bot.send_message(ALICE, "x" * 4096)
    with pytest.raises(BadRequest, match="parse entities"):
        await bot.send_message(ALICE, "a < b & c", parse_mode="HTML")
    m = await bot.send_message(ALICE, "<b>bold</b> &lt;3", parse_mode="HTML")
    assert m.text == "bold <3"
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_text(
            "<b>bold</b> &lt;3", chat_id=ALICE, message_id=m.message_id, parse_mode="HTML"
        )
    big = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="y" * 65)]])
    with pytest.raises(BadRequest, match="(?i)button_data_invalid"):
        await bot.send_message(ALICE, "buttons", reply_markup=big)


async def test_raw_wire_formats(tg: TelegramStandIn) -> None:  # noqa: F811
    """JSON bodies, GET query strings and form bodies with JSON-string fields all work."""
    url = f"{tg.base_url}{tg.token}"
    markup = {"inline_keyboard": [[{"text": "Undo", "callback_data": "u1"}]]}
    async with aiohttp.ClientSession() as http:
        async with http.post(
            f"{url}/sendMessage", json={"chat_id": ALICE, "text": "json", "reply_markup": markup}
        ) as resp:
            body = await resp.json()
            assert body["ok"] and body["result"]["reply_markup"] == markup
        async with http.get(f"{url}/sendMessage", params={"chat_id": str(ALICE), "text": "get"}):
            pass
        form = {"chat_id": str(ALICE), "text": "form", "reply_markup": json.dumps(markup)}
        async with http.post(f"{url}/sendMessage", data=form) as resp:
            assert (await resp.json())["result"]["message_id"] == 3
        commands = [{"command": "help", "description": "Help"}]
        async with http.post(f"{url}/setMyCommands", data={"commands": json.dumps(commands)}):
            pass
        async with http.get(f"{url}/getMyCommands") as resp:
            assert (await resp.json())["result"] == commands
    assert [m.text for m in tg.sent(ALICE)] == ["json", "get", "form"]
    assert tg.sent(ALICE)[2].buttons == [[("Undo", "u1")]]


async def test_webhook_delivery_with_secret(tg: TelegramStandIn, bot: Bot) -> None:  # noqa: F811
    received: list[tuple[str | None, dict]] = []

    async def hook(request: aiohttp.web.Request) -> aiohttp.web.Response:
        received.append((request.headers.get("X-Telegram-Bot-Api-Secret-Token"), await request.json()))
        return aiohttp.web.Response(status=200 if len(received) > 1 else 500)  # first fails

    from aiohttp import web

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        await bot.set_webhook(f"http://127.0.0.1:{port}/hook", secret_token="s3cret")
        with pytest.raises(Exception, match="webhook is active"):
            await bot.get_updates(timeout=0)
        tg.inject_text(ALICE, ALICE, "via webhook")
        await tg.wait_for(lambda: tg.pending_updates() == 0, what="webhook delivery")
        assert [r[0] for r in received] == ["s3cret", "s3cret"]  # retried after the 500
        assert received[1][1]["message"]["text"] == "via webhook"
        await bot.delete_webhook()
        assert await bot.get_updates(timeout=0) == ()
    finally:
        await runner.cleanup()


async def test_concurrent_long_polls_conflict(tg: TelegramStandIn) -> None:  # noqa: F811
    url = f"{tg.base_url}{tg.token}/getUpdates"
    async with aiohttp.ClientSession() as http:
        first = asyncio.create_task(http.post(url, data={"timeout": "5"}))
        await asyncio.sleep(0.1)
        async with http.post(url, data={"timeout": "0"}) as resp:
            assert (await resp.json())["ok"]
        resp1 = await asyncio.wait_for(first, 2)
        assert resp1.status == 409
        resp1.release()
