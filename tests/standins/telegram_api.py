"""A stand-in for the Telegram Bot API, served by aiohttp on 127.0.0.1 (a free port).

Why a server and not mocks: the adapter's hard parts are on the wire - how python-telegram-bot
encodes reply_markup, what a 429 looks like, how long polling behaves, what happens when a
person never started the bot. Running the real `telegram.ext.Application` against this server
tests all of that; mocking PTB's classes would test our guesses about them.

What it speaks (the real formats):
- `POST|GET /bot<token>/<method>` with form-encoded, multipart or JSON bodies; nested values
  (reply_markup, reply_parameters, allowed_updates, commands) may arrive as JSON strings.
  Method names are case-insensitive, as on Telegram.
- Replies `{"ok": true, "result": ...}`; errors `{"ok": false, "error_code": N,
  "description": ...}` with `parameters.retry_after` on 429.
- `GET /file/bot<token>/<file_path>` downloads a file named by getFile.
- getUpdates long polling: honours offset (confirms older updates), limit, timeout (holds the
  request open up to `timeout` seconds, answers at once when an update arrives) and
  allowed_updates; a newer getUpdates ends an older pending one with 409, as Telegram does.
- setWebhook: updates are then POSTed to the webhook URL with the secret token header, and
  getUpdates answers 409 until deleteWebhook.

Known simplifications (documented, not hidden): plain-http webhook URLs are accepted (Telegram
requires https); Markdown parse modes are refused with 400 (HTML is parsed and validated, and
so are `entities`: bounds, nesting, code that contains nothing, http(s) links);
callback queries never expire; group membership and privacy mode are not modelled (the bot
receives every group message, the worst case for an adapter's filtering); faults are injected
before a request is processed, so a faulted sendMessage was never delivered.

The test API (`inject_*`, `press_button`, `sent`, `wait_for_*`, `fail_next`, `drop_next`,
`add_user(..., started=False)`) is synchronous where it only changes state, and async where it
waits. All state lives on the event loop thread; nothing here is thread-safe.
"""

from __future__ import annotations

import asyncio
import html
import itertools
import json
import re
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

DEFAULT_TOKEN = "7000000001:AAStandInTokenForTestsOnly_x1y2z3"
MAX_TEXT_UTF16 = 4096
MAX_CAPTION_UTF16 = 1024
MAX_CALLBACK_DATA_BYTES = 64
MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"

CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
_BOT_COMMAND = re.compile(r"(?<![\w/@])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?")
_MENTION = re.compile(r"(?<![\w@/])@[A-Za-z0-9_]{5,32}")


class ApiError(Exception):
    """An error answer, exactly as Telegram words it."""

    def __init__(
        self, code: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def utf16_len(text: str) -> int:
    """Telegram counts lengths and entity offsets in UTF-16 code units, not code points."""
    return len(text.encode("utf-16-le")) // 2


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request."""

    filename: str
    data: bytes
    content_type: str


@dataclass
class StoredFile:
    file_id: str
    file_unique_id: str
    data: bytes
    filename: str
    mime_type: str
    file_path: str

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass
class ApiCall:
    """One request the bot made, as decoded by the server (JSON-string fields decoded)."""

    method: str
    params: dict[str, Any]
    files: dict[str, Upload]
    status: int
    at: float


@dataclass
class BotMessage:
    """A message the bot sent, in its current state (edits applied)."""

    chat_id: int
    message_id: int
    date: int
    text: str | None = None
    caption: str | None = None
    parse_mode: str | None = None
    reply_markup: dict[str, Any] | None = None
    document: StoredFile | None = None
    reply_to_message_id: int | None = None
    edit_count: int = 0
    history: list[str | None] = field(default_factory=list)  # earlier texts, oldest first
    deleted: bool = False
    entities: list[dict[str, Any]] = field(default_factory=list)  # as sent (validated)

    def entity_texts(self) -> list[tuple[str, str]]:
        """(type, the text it covers) for each entity, in order: what a person sees formatted."""
        text = self.body
        units = text.encode("utf-16-le")
        return [
            (
                e["type"],
                units[2 * e["offset"] : 2 * (e["offset"] + e["length"])].decode("utf-16-le"),
            )
            for e in self.entities
        ]

    @property
    def buttons(self) -> list[list[tuple[str, str | None]]]:
        """Inline keyboard rows as (label, callback_data)."""
        rows = (self.reply_markup or {}).get("inline_keyboard") or []
        return [[(b.get("text", ""), b.get("callback_data")) for b in row] for row in rows]

    @property
    def callback_data(self) -> list[str]:
        return [data for row in self.buttons for _, data in row if data is not None]

    @property
    def body(self) -> str:
        """Text or caption, whichever the message has."""
        return self.text if self.text is not None else (self.caption or "")


@dataclass
class _Fault:
    kind: str  # "status" or "drop"
    status: int = 0
    description: str = ""
    retry_after: int | None = None


class TelegramStandIn:
    """The stand-in server plus its test API. Use as `async with TelegramStandIn() as tg:`."""

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        bot_username: str = "memory_test_bot",
        bot_first_name: str = "Memory",
    ) -> None:
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_user: dict[str, Any] = {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": bot_first_name,
            "username": bot_username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._closing = False

        self.users: dict[int, dict[str, Any]] = {}
        self.chats: dict[int, dict[str, Any]] = {}
        self._started: set[int] = set()  # users who opened a private chat with the bot
        self._blocked: set[int] = set()
        self._next_message_id: dict[int, int] = defaultdict(lambda: 1)
        self._messages: dict[tuple[int, int], dict[str, Any]] = {}  # wire JSON, user messages
        self._bot_messages: dict[int, list[BotMessage]] = defaultdict(list)
        self._files: dict[str, StoredFile] = {}
        self._file_counter = itertools.count(1)
        self._query_counter = itertools.count(1)

        self._updates: list[dict[str, Any]] = []  # pending (not confirmed by offset)
        self._next_update_id = 100_001
        self._poll_generation = 0
        self._webhook: dict[str, Any] | None = None
        self._webhook_task: asyncio.Task[None] | None = None
        self.webhook_deliveries: list[tuple[int, int | str]] = []  # (update_id, status|error)

        self.calls: list[ApiCall] = []
        self.callback_answers: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.pressed_queries: dict[str, dict[str, Any]] = {}
        self.chat_actions: list[tuple[int, str]] = []
        self.commands: dict[str, list[dict[str, str]]] = {}
        self.menu_button: dict[str, Any] | None = None  # the default menu button, as set
        # (chat, message id) -> the bot's reaction emojis on a person's message
        self.reactions: dict[tuple[int, int], list[str]] = {}
        self.deleted_user_messages: set[tuple[int, int]] = set()
        self.may_delete: set[int] = set()  # groups where the bot is an admin allowed to delete
        self.description = ""  # "What can this bot do?" before Start
        self.short_description = ""
        self._faults: dict[str, deque[_Fault]] = defaultdict(deque)
        self._waiters: list[asyncio.Future[None]] = []

        self._methods: dict[str, Callable[[dict[str, Any], dict[str, Upload]], Any]] = {
            "getme": self._get_me,
            "logout": self._true,
            "close": self._true,
            "getupdates": self._get_updates,
            "setwebhook": self._set_webhook,
            "deletewebhook": self._delete_webhook,
            "getwebhookinfo": self._get_webhook_info,
            "sendmessage": self._send_message,
            "editmessagetext": self._edit_message_text,
            "editmessagereplymarkup": self._edit_message_reply_markup,
            "deletemessage": self._delete_message,
            "setmessagereaction": self._set_message_reaction,
            "answercallbackquery": self._answer_callback_query,
            "setmycommands": self._set_my_commands,
            "getmycommands": self._get_my_commands,
            "deletemycommands": self._delete_my_commands,
            "senddocument": self._send_document,
            "sendchataction": self._send_chat_action,
            "setmydescription": self._set_my_description,
            "setmyshortdescription": self._set_my_short_description,
            "getfile": self._get_file,
            "setchatmenubutton": self._set_chat_menu_button,
        }

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        # handler_cancellation: a long poll the client gave up on must not linger server-side.
        # access_log=None: request lines carry the token in the path.
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=0.5
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        self._closing = True
        self._notify()
        if self._webhook_task is not None:
            self._webhook_task.cancel()
            try:
                await self._webhook_task
            except (asyncio.CancelledError, Exception):
                pass
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> TelegramStandIn:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        """What ApplicationBuilder.base_url takes (the token is appended by PTB)."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    # ------------------------------------------------------------------ people and chats

    def add_user(
        self,
        user_id: int,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        started: bool = True,
        language_code: str | None = None,
    ) -> dict[str, Any]:
        """Register a person. `started=False`: they never opened a private chat with the bot,
        so sending to their private chat answers 403 until they write to it. `language_code`:
        the app language Telegram reports for them ("it", "en-US")."""
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name}
        if language_code:
            user["language_code"] = language_code
        if last_name:
            user["last_name"] = last_name
        if username:
            user["username"] = username
        self.users[user_id] = user
        chat: dict[str, Any] = {"id": user_id, "type": "private", "first_name": first_name}
        if last_name:
            chat["last_name"] = last_name
        if username:
            chat["username"] = username
        self.chats[user_id] = chat
        if started:
            self._started.add(user_id)
        else:
            self._started.discard(user_id)
        return user

    def add_group(self, chat_id: int, title: str, *, supergroup: bool = True) -> dict[str, Any]:
        if chat_id >= 0:
            raise ValueError("group chat ids are negative on Telegram")
        chat = {"id": chat_id, "type": "supergroup" if supergroup else "group", "title": title}
        self.chats[chat_id] = chat
        return chat

    def block(self, user_id: int) -> None:
        """The person blocked the bot: their private chat answers 403."""
        self._blocked.add(user_id)

    # ------------------------------------------------------------------ injecting updates

    def inject_text(
        self, chat_id: int, user_id: int, text: str, *, reply_to: int | None = None
    ) -> dict[str, Any]:
        """A person sends `text`; entities (bot_command, mention) are computed as Telegram does."""
        msg = self._new_user_message(chat_id, user_id, reply_to)
        msg["text"] = text
        entities = text_entities(text)
        if entities:
            msg["entities"] = entities
        return self._push_message(msg)

    def inject_document(
        self,
        chat_id: int,
        user_id: int,
        data: bytes,
        filename: str,
        *,
        caption: str | None = None,
        mime_type: str = "application/json",
        reply_to: int | None = None,
    ) -> dict[str, Any]:
        stored = self._store_file(data, filename, mime_type, folder="documents")
        msg = self._new_user_message(chat_id, user_id, reply_to)
        msg["document"] = {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_name": filename,
            "mime_type": mime_type,
            "file_size": stored.size,
        }
        self._add_caption(msg, caption)
        return self._push_message(msg)

    def inject_photo(
        self, chat_id: int, user_id: int, *, caption: str | None = None
    ) -> dict[str, Any]:
        stored = self._store_file(b"\xff\xd8\xff\xe0fake-jpeg", "photo.jpg", "image/jpeg", "photos")
        msg = self._new_user_message(chat_id, user_id, None)
        msg["photo"] = [
            {
                "file_id": stored.file_id,
                "file_unique_id": stored.file_unique_id,
                "width": 90,
                "height": 60,
                "file_size": stored.size,
            }
        ]
        self._add_caption(msg, caption)
        return self._push_message(msg)

    def inject_voice(self, chat_id: int, user_id: int) -> dict[str, Any]:
        stored = self._store_file(b"OggSfake-voice", "voice.ogg", "audio/ogg", "voice")
        msg = self._new_user_message(chat_id, user_id, None)
        msg["voice"] = {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "duration": 2,
            "mime_type": "audio/ogg",
            "file_size": stored.size,
        }
        return self._push_message(msg)

    def inject_sticker(self, chat_id: int, user_id: int) -> dict[str, Any]:
        stored = self._store_file(b"RIFFfake-webp", "sticker.webp", "image/webp", "stickers")
        msg = self._new_user_message(chat_id, user_id, None)
        msg["sticker"] = {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "type": "regular",
            "width": 512,
            "height": 512,
            "is_animated": False,
            "is_video": False,
            "emoji": "\N{THUMBS UP SIGN}",
            "file_size": stored.size,
        }
        return self._push_message(msg)

    def inject_edit(self, chat_id: int, message_id: int, new_text: str) -> dict[str, Any]:
        """The person edits a message they sent earlier (an `edited_message` update)."""
        msg = self._messages.get((chat_id, message_id))
        if msg is None or "text" not in msg:
            raise KeyError(f"no text message {message_id} from a person in chat {chat_id}")
        msg = dict(msg)
        msg["text"] = new_text
        msg["edit_date"] = int(time.time())
        msg.pop("entities", None)
        entities = text_entities(new_text)
        if entities:
            msg["entities"] = entities
        self._messages[(chat_id, message_id)] = msg
        self._queue_update({"edited_message": msg})
        return msg

    def press_button(
        self,
        chat_id: int,
        user_id: int,
        message_id: int,
        *,
        data: str | None = None,
        label: str | None = None,
    ) -> str:
        """A person presses an inline button of a message the bot sent; returns the query id.

        Raises if the message has no such button: a person cannot press what is not there."""
        bot_msg = self.bot_message(chat_id, message_id)
        if bot_msg is None or bot_msg.deleted:
            raise KeyError(f"the bot sent no message {message_id} in chat {chat_id}")
        chosen: str | None = None
        for text, cb in itertools.chain.from_iterable(bot_msg.buttons):
            if (data is not None and cb == data) or (label is not None and text == label):
                chosen = cb
                break
        if chosen is None:
            raise KeyError(
                f"message {message_id} has no button {data or label!r}; it has {bot_msg.buttons}"
            )
        if user_id not in self.users:
            raise KeyError(f"unknown user {user_id}")
        query_id = str(4_000_000_000 + next(self._query_counter))
        query = {
            "id": query_id,
            "from": self.users[user_id],
            "message": self._bot_message_json(bot_msg),
            "chat_instance": str(abs(chat_id) * 7 + 13),
            "data": chosen,
        }
        self.pressed_queries[query_id] = query
        self._queue_update({"callback_query": query})
        return query_id

    # ------------------------------------------------------------------ inspecting

    def sent(self, chat_id: int) -> list[BotMessage]:
        """Messages the bot sent in the chat, in order, current state (deleted ones left out)."""
        return [m for m in self._bot_messages.get(chat_id, []) if not m.deleted]

    def bot_message(self, chat_id: int, message_id: int) -> BotMessage | None:
        for m in self._bot_messages.get(chat_id, []):
            if m.message_id == message_id:
                return m
        return None

    def calls_to(self, method: str, *, ok_only: bool = False) -> list[ApiCall]:
        name = method.lower()
        return [
            c
            for c in self.calls
            if c.method.lower() == name and (not ok_only or c.status == 200)
        ]

    async def wait_for(
        self, predicate: Callable[[], bool], timeout: float = 5.0, what: str = "a condition"
    ) -> None:
        """Wait until `predicate()` holds; it is re-checked on every state change."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}")
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.append(fut)
            try:
                await asyncio.wait_for(fut, min(remaining, 0.25))
            except TimeoutError:
                pass

    async def wait_for_sent(
        self, chat_id: int, count: int = 1, timeout: float = 5.0
    ) -> list[BotMessage]:
        """Wait until the bot has sent at least `count` messages in the chat; return them all."""
        try:
            await self.wait_for(
                lambda: len(self.sent(chat_id)) >= count,
                timeout,
                f"{count} message(s) in chat {chat_id}",
            )
        except AssertionError as exc:
            got = [m.body[:80] for m in self.sent(chat_id)]
            raise AssertionError(f"{exc}; got {len(got)}: {got}") from None
        return self.sent(chat_id)

    async def wait_for_calls(
        self, method: str, count: int = 1, timeout: float = 5.0, *, ok_only: bool = True
    ) -> list[ApiCall]:
        await self.wait_for(
            lambda: len(self.calls_to(method, ok_only=ok_only)) >= count,
            timeout,
            f"{count} call(s) to {method}",
        )
        return self.calls_to(method, ok_only=ok_only)

    async def wait_for_answer(self, query_id: str, timeout: float = 5.0) -> dict[str, Any]:
        """Wait until the callback query was answered; return the (first) answer."""
        await self.wait_for(
            lambda: bool(self.callback_answers.get(query_id)),
            timeout,
            f"an answer to callback query {query_id}",
        )
        return self.callback_answers[query_id][0]

    def pending_updates(self) -> int:
        """Updates not yet confirmed by a later getUpdates offset (or webhook delivery)."""
        return len(self._updates)

    # ------------------------------------------------------------------ fault injection

    def fail_next(
        self,
        method: str,
        times: int = 1,
        *,
        status: int = 429,
        retry_after: int = 1,
        description: str | None = None,
    ) -> None:
        """The next `times` calls to `method` answer `status` without doing anything."""
        if description is None:
            description = {
                429: f"Too Many Requests: retry after {retry_after}",
                500: "Internal Server Error",
                502: "Bad Gateway",
                503: "Service Unavailable",
            }.get(status, f"Error {status}")
        for _ in range(times):
            self._faults[method.lower()].append(
                _Fault(
                    "status",
                    status=status,
                    description=description,
                    retry_after=retry_after if status == 429 else None,
                )
            )

    def drop_next(self, method: str, times: int = 1) -> None:
        """The next `times` calls to `method` get their connection closed with no answer."""
        for _ in range(times):
            self._faults[method.lower()].append(_Fault("drop"))

    # ------------------------------------------------------------------ internals: state

    def _notify(self) -> None:
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    def _chat(self, chat_id: int) -> dict[str, Any]:
        chat = self.chats.get(chat_id)
        if chat is None:
            raise KeyError(f"unknown chat {chat_id}; add_user/add_group first")
        return chat

    def _new_message_id(self, chat_id: int) -> int:
        mid = self._next_message_id[chat_id]
        self._next_message_id[chat_id] = mid + 1
        return mid

    def _new_user_message(
        self, chat_id: int, user_id: int, reply_to: int | None
    ) -> dict[str, Any]:
        if user_id not in self.users:
            raise KeyError(f"unknown user {user_id}; add_user first")
        chat = self._chat(chat_id)
        if chat["type"] == "private":
            if chat_id != user_id:
                raise ValueError("in a private chat only its own person can write")
            self._started.add(user_id)  # writing to the bot starts the conversation
            self._blocked.discard(user_id)
        msg: dict[str, Any] = {
            "message_id": self._new_message_id(chat_id),
            "from": self.users[user_id],
            "chat": chat,
            "date": int(time.time()),
        }
        if reply_to is not None:
            msg["reply_to_message"] = self._message_json(chat_id, reply_to)
        return msg

    def _message_json(self, chat_id: int, message_id: int) -> dict[str, Any]:
        bot_msg = self.bot_message(chat_id, message_id)
        if bot_msg is not None:
            return self._bot_message_json(bot_msg)
        msg = self._messages.get((chat_id, message_id))
        if msg is None:
            raise KeyError(f"no message {message_id} in chat {chat_id}")
        return {k: v for k, v in msg.items() if k != "reply_to_message"}

    def _add_caption(self, msg: dict[str, Any], caption: str | None) -> None:
        if caption:
            msg["caption"] = caption
            entities = text_entities(caption)
            if entities:
                msg["caption_entities"] = entities

    def _push_message(self, msg: dict[str, Any]) -> dict[str, Any]:
        self._messages[(msg["chat"]["id"], msg["message_id"])] = msg
        self._queue_update({"message": msg})
        return msg

    def _queue_update(self, body: dict[str, Any]) -> None:
        update = {"update_id": self._next_update_id, **body}
        self._next_update_id += 1
        self._updates.append(update)
        self._notify()

    def _store_file(self, data: bytes, filename: str, mime_type: str, folder: str) -> StoredFile:
        n = next(self._file_counter)
        ext = filename.rsplit(".", 1)[-1] if "." in filename else "bin"
        stored = StoredFile(
            file_id=f"BQACAgStandIn{n:06d}",
            file_unique_id=f"AgAD{n:06d}",
            data=data,
            filename=filename,
            mime_type=mime_type,
            file_path=f"{folder}/file_{n}.{ext}",
        )
        self._files[stored.file_id] = stored
        return stored

    def _bot_message_json(self, m: BotMessage) -> dict[str, Any]:
        out: dict[str, Any] = {
            "message_id": m.message_id,
            "from": self.bot_user,
            "chat": self.chats[m.chat_id],
            "date": m.date,
        }
        if m.text is not None:
            out["text"] = m.text
            if m.entities:
                out["entities"] = m.entities
        if m.document is not None:
            out["document"] = {
                "file_id": m.document.file_id,
                "file_unique_id": m.document.file_unique_id,
                "file_name": m.document.filename,
                "mime_type": m.document.mime_type,
                "file_size": m.document.size,
            }
        if m.caption is not None:
            out["caption"] = m.caption
        if m.reply_markup:
            out["reply_markup"] = m.reply_markup
        if m.edit_count:
            out["edit_date"] = int(time.time())
        if m.reply_to_message_id is not None:
            try:
                out["reply_to_message"] = self._message_json(m.chat_id, m.reply_to_message_id)
            except KeyError:
                pass
        return out

    # ------------------------------------------------------------------ internals: HTTP

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path.startswith("/file/bot"):
            return await self._download(request, path[len("/file/bot") :])
        if not path.startswith("/bot"):
            return _error_response(ApiError(404, "Not Found"))
        token, _, method = path[len("/bot") :].partition("/")
        if token != self.token:
            return _error_response(ApiError(401, "Unauthorized"))
        try:
            params, files = await _read_params(request)
        except ApiError as exc:
            return _error_response(exc)
        call = ApiCall(method, params, files, 0, time.time())
        self.calls.append(call)

        faults = self._faults.get(method.lower())
        if faults:
            fault = faults.popleft()
            if fault.kind == "drop":
                call.status = -1
                self._notify()
                if request.transport is not None:
                    request.transport.abort()
                raise asyncio.CancelledError  # nothing more to say on a dead connection
            call.status = fault.status
            self._notify()
            params_out = {"retry_after": fault.retry_after} if fault.retry_after else None
            return _error_response(ApiError(fault.status, fault.description, params_out))

        handler = self._methods.get(method.lower())
        if handler is None:
            call.status = 404
            self._notify()
            return _error_response(ApiError(404, "Not Found"))
        try:
            result = handler(params, files)
            if asyncio.iscoroutine(result):
                result = await result
        except ApiError as exc:
            call.status = exc.code
            self._notify()
            return _error_response(exc)
        call.status = 200
        self._notify()
        return _json_response({"ok": True, "result": result})

    async def _download(self, request: web.Request, rest: str) -> web.StreamResponse:
        token, _, file_path = rest.partition("/")
        if token != self.token:
            return _error_response(ApiError(401, "Unauthorized"))
        for stored in self._files.values():
            if stored.file_path == file_path:
                return web.Response(body=stored.data, content_type="application/octet-stream")
        return _error_response(ApiError(404, "Not Found"))

    # ------------------------------------------------------------------ methods

    def _true(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        return True

    def _get_me(self, params: dict[str, Any], files: dict[str, Upload]) -> dict[str, Any]:
        return self.bot_user

    async def _get_updates(
        self, params: dict[str, Any], files: dict[str, Upload]
    ) -> list[dict[str, Any]]:
        if self._webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = _int(params.get("offset"), 0)
        limit = max(1, min(100, _int(params.get("limit"), 100)))
        timeout = max(0.0, float(params.get("timeout") or 0))
        allowed = _json_value(params.get("allowed_updates"))
        if offset:
            self._confirm(offset)
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # wakes an older pending poll, which then ends with 409

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; make sure that only "
                    "one bot instance is running",
                )
            ready = self._deliverable(offset, allowed)
            remaining = deadline - loop.time()
            if ready or remaining <= 0 or self._closing:
                return ready[:limit]
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.append(fut)
            try:
                await asyncio.wait_for(fut, remaining)
            except TimeoutError:
                pass

    def _confirm(self, offset: int) -> None:
        before = len(self._updates)
        self._updates = [u for u in self._updates if u["update_id"] >= offset]
        if len(self._updates) != before:
            self._notify()

    def _deliverable(self, offset: int, allowed: Any) -> list[dict[str, Any]]:
        """Pending updates from `offset`; ones of a type not in allowed_updates are dropped
        for good, as Telegram does."""
        kinds = set(allowed) if isinstance(allowed, list) and allowed else None
        keep: list[dict[str, Any]] = []
        out: list[dict[str, Any]] = []
        for u in self._updates:
            kind = next(k for k in u if k != "update_id")
            if kinds is not None and kind not in kinds:
                continue
            keep.append(u)
            if u["update_id"] >= offset:
                out.append(u)
        self._updates = keep
        return out

    def _set_webhook(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        url = str(params.get("url") or "")
        if not url:
            return self._delete_webhook(params, files)
        if not url.startswith(("https://", "http://127.0.0.1", "http://localhost")):
            raise ApiError(400, "Bad Request: bad webhook: HTTPS url must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise ApiError(400, "Bad Request: secret token contains unallowed characters")
        if _bool(params.get("drop_pending_updates")):
            self._updates.clear()
        self._webhook = {
            "url": url,
            "secret_token": secret,
            "allowed_updates": _json_value(params.get("allowed_updates")),
        }
        if self._webhook_task is None or self._webhook_task.done():
            self._webhook_task = asyncio.get_running_loop().create_task(self._deliver_webhook())
        self._notify()
        return True

    def _delete_webhook(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        self._webhook = None
        if _bool(params.get("drop_pending_updates")):
            self._updates.clear()
        self._notify()
        return True

    def _get_webhook_info(self, params: dict[str, Any], files: dict[str, Upload]) -> dict:
        hook = self._webhook or {}
        info: dict[str, Any] = {
            "url": hook.get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if hook.get("allowed_updates"):
            info["allowed_updates"] = hook["allowed_updates"]
        return info

    async def _deliver_webhook(self) -> None:
        """Push pending updates to the webhook one at a time, retrying until it answers 2xx
        (Telegram retries too); an update leaves the queue only when accepted."""
        import aiohttp

        async with aiohttp.ClientSession() as session:
            while not self._closing and self._webhook is not None:
                hook = self._webhook
                pending = self._deliverable(0, hook["allowed_updates"])
                if not pending:
                    loop = asyncio.get_running_loop()
                    fut: asyncio.Future[None] = loop.create_future()
                    self._waiters.append(fut)
                    try:
                        await asyncio.wait_for(fut, 0.5)
                    except TimeoutError:
                        pass
                    continue
                update = pending[0]
                headers = {"Content-Type": "application/json"}
                if hook.get("secret_token"):
                    headers[SECRET_HEADER] = hook["secret_token"]
                try:
                    async with session.post(
                        hook["url"],
                        data=json.dumps(update),
                        headers=headers,
                        timeout=aiohttp.ClientTimeout(total=5),
                    ) as resp:
                        status: int | str = resp.status
                except (aiohttp.ClientError, TimeoutError) as exc:
                    status = type(exc).__name__
                self.webhook_deliveries.append((update["update_id"], status))
                if isinstance(status, int) and 200 <= status < 300:
                    self._confirm(update["update_id"] + 1)
                else:
                    await asyncio.sleep(0.1)
                self._notify()

    def _target_chat(self, params: dict[str, Any]) -> dict[str, Any]:
        """The chat a send goes to, with Telegram's errors for unknown and unreachable chats."""
        raw = params.get("chat_id")
        try:
            chat_id = int(raw)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ApiError(400, "Bad Request: chat not found") from None
        chat = self.chats.get(chat_id)
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        if chat["type"] == "private":
            if chat_id in self._blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if chat_id not in self._started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        return chat

    def _reply_to(self, chat_id: int, params: dict[str, Any]) -> int | None:
        reply = _json_value(params.get("reply_parameters"))
        if isinstance(reply, dict):
            target = _int(reply.get("message_id"), 0)
            allow = bool(reply.get("allow_sending_without_reply"))
        elif params.get("reply_to_message_id") is not None:
            target = _int(params.get("reply_to_message_id"), 0)
            allow = _bool(params.get("allow_sending_without_reply"))
        else:
            return None
        exists = (chat_id, target) in self._messages or self.bot_message(chat_id, target)
        if not exists:
            if allow:
                return None
            raise ApiError(400, "Bad Request: message to be replied not found")
        return target

    def _send_message(self, params: dict[str, Any], files: dict[str, Upload]) -> dict[str, Any]:
        chat = self._target_chat(params)
        parse_mode = params.get("parse_mode") or None
        text = _render_text(str(params.get("text") or ""), parse_mode, MAX_TEXT_UTF16, "text")
        entities = _entities(params, text)
        markup = _reply_markup(params)
        reply_to = self._reply_to(chat["id"], params)
        msg = BotMessage(
            chat_id=chat["id"],
            message_id=self._new_message_id(chat["id"]),
            date=int(time.time()),
            text=text,
            entities=entities,
            parse_mode=parse_mode,
            reply_markup=markup,
            reply_to_message_id=reply_to,
        )
        self._bot_messages[chat["id"]].append(msg)
        return self._bot_message_json(msg)

    def _send_document(self, params: dict[str, Any], files: dict[str, Upload]) -> dict[str, Any]:
        chat = self._target_chat(params)
        upload = files.get("document")
        if upload is not None:
            stored = self._store_file(upload.data, upload.filename, upload.content_type, "documents")
        else:
            ref = params.get("document")
            stored = self._files.get(str(ref)) if ref else None
            if stored is None:
                raise ApiError(400, "Bad Request: there is no document in the request")
        if not stored.data:
            raise ApiError(400, "Bad Request: file must be non-empty")
        parse_mode = params.get("parse_mode") or None
        caption = params.get("caption")
        if caption:
            caption = _render_text(str(caption), parse_mode, MAX_CAPTION_UTF16, "caption")
        msg = BotMessage(
            chat_id=chat["id"],
            message_id=self._new_message_id(chat["id"]),
            date=int(time.time()),
            caption=caption or None,
            parse_mode=parse_mode,
            reply_markup=_reply_markup(params),
            document=stored,
            reply_to_message_id=self._reply_to(chat["id"], params),
        )
        self._bot_messages[chat["id"]].append(msg)
        return self._bot_message_json(msg)

    def _editable(self, params: dict[str, Any]) -> BotMessage:
        if params.get("inline_message_id"):
            raise ApiError(400, "Bad Request: inline messages are not supported by the stand-in")
        chat_id = _int(params.get("chat_id"), 0)
        if chat_id not in self.chats:
            raise ApiError(400, "Bad Request: chat not found")
        msg = self.bot_message(chat_id, _int(params.get("message_id"), 0))
        if msg is None:
            if (chat_id, _int(params.get("message_id"), 0)) in self._messages:
                raise ApiError(400, "Bad Request: message can't be edited")
            raise ApiError(400, "Bad Request: message to edit not found")
        if msg.deleted:
            raise ApiError(400, "Bad Request: message to edit not found")
        return msg

    def _edit_message_text(
        self, params: dict[str, Any], files: dict[str, Upload]
    ) -> dict[str, Any]:
        msg = self._editable(params)
        if msg.text is None:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        parse_mode = params.get("parse_mode") or None
        text = _render_text(str(params.get("text") or ""), parse_mode, MAX_TEXT_UTF16, "text")
        entities = _entities(params, text)
        # Like Telegram: an edit without reply_markup removes the inline keyboard.
        markup = _reply_markup(params)
        if text == msg.text and markup == msg.reply_markup and entities == msg.entities:
            raise ApiError(
                400,
                "Bad Request: message is not modified: specified new message content and reply "
                "markup are exactly the same as a current content and reply markup of the message",
            )
        msg.history.append(msg.text)
        msg.text, msg.reply_markup, msg.parse_mode = text, markup, parse_mode
        msg.entities = entities
        msg.edit_count += 1
        return self._bot_message_json(msg)

    def _edit_message_reply_markup(
        self, params: dict[str, Any], files: dict[str, Upload]
    ) -> dict[str, Any]:
        msg = self._editable(params)
        markup = _reply_markup(params)
        if markup == msg.reply_markup:
            raise ApiError(
                400,
                "Bad Request: message is not modified: specified new message content and reply "
                "markup are exactly the same as a current content and reply markup of the message",
            )
        msg.reply_markup = markup
        msg.edit_count += 1
        return self._bot_message_json(msg)

    def _delete_message(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        key = (_int(params.get("chat_id"), 0), _int(params.get("message_id"), 0))
        if key in self._messages:  # a person's message: only where the bot may delete
            if key[0] not in self.may_delete or key in self.deleted_user_messages:
                raise ApiError(400, "Bad Request: message can't be deleted")
            self.deleted_user_messages.add(key)
            return True
        msg = self._editable(params)
        msg.deleted = True
        return True

    def _set_message_reaction(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        key = (_int(params.get("chat_id"), 0), _int(params.get("message_id"), 0))
        if key not in self._messages:
            raise ApiError(400, "Bad Request: message to react not found")
        reaction = _json_value(params.get("reaction")) or []
        self.reactions[key] = [r.get("emoji", "") for r in reaction if isinstance(r, dict)]
        return True

    def _answer_callback_query(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        query_id = str(params.get("callback_query_id") or "")
        if query_id not in self.pressed_queries or self.callback_answers.get(query_id):
            raise ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is "
                "invalid",
            )
        text = params.get("text")
        if text is not None and utf16_len(str(text)) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        self.callback_answers[query_id].append(
            {
                "text": text,
                "show_alert": _bool(params.get("show_alert")),
                "url": params.get("url"),
                "cache_time": _int(params.get("cache_time"), 0),
            }
        )
        return True

    @staticmethod
    def _scope_key(params: dict[str, Any]) -> str:
        scope = _json_value(params.get("scope")) or {"type": "default"}
        lang = params.get("language_code") or ""
        return json.dumps(scope, sort_keys=True) + "|" + str(lang)

    def _set_my_commands(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        commands = _json_value(params.get("commands"))
        if not isinstance(commands, list) or len(commands) > 100:
            raise ApiError(400, "Bad Request: commands must be a list of at most 100")
        for cmd in commands:
            name = str(cmd.get("command", ""))
            desc = str(cmd.get("description", ""))
            if not _COMMAND_NAME.match(name):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(desc) <= 256:
                raise ApiError(400, "Bad Request: command description is invalid")
        self.commands[self._scope_key(params)] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    def _set_chat_menu_button(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        button = _json_value(params.get("menu_button")) or {"type": "default"}
        if button.get("type") == "web_app":
            url = str((button.get("web_app") or {}).get("url", ""))
            if not url.startswith("https://"):
                raise ApiError(400, "Bad Request: BUTTON_URL_INVALID")  # Mini Apps need https
            if not 1 <= len(str(button.get("text", ""))) <= 64:
                raise ApiError(400, "Bad Request: text must be 1-64 characters")
        self.menu_button = button
        return True

    def _get_my_commands(self, params: dict[str, Any], files: dict[str, Upload]) -> list:
        return self.commands.get(self._scope_key(params), [])

    def _delete_my_commands(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        self.commands.pop(self._scope_key(params), None)
        return True

    @property
    def default_commands(self) -> list[dict[str, str]]:
        """The command menu set for the default scope and language."""
        return self.commands.get(self._scope_key({}), [])

    def _set_my_description(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        text = str(params.get("description") or "")
        if len(text) > 512:
            raise ApiError(400, "Bad Request: description is too long")
        self.description = text
        return True

    def _set_my_short_description(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        text = str(params.get("short_description") or "")
        if len(text) > 120:
            raise ApiError(400, "Bad Request: short description is too long")
        self.short_description = text
        return True

    @property
    def group_commands(self) -> list[dict[str, str]]:
        """The command menu set for all group chats (scope all_group_chats)."""
        return self.commands.get(self._scope_key({"scope": {"type": "all_group_chats"}}), [])

    def _send_chat_action(self, params: dict[str, Any], files: dict[str, Upload]) -> bool:
        chat = self._target_chat(params)
        action = str(params.get("action") or "")
        if action not in CHAT_ACTIONS:
            raise ApiError(400, "Bad Request: wrong parameter action in request")
        self.chat_actions.append((chat["id"], action))
        return True

    def _get_file(self, params: dict[str, Any], files: dict[str, Upload]) -> dict[str, Any]:
        stored = self._files.get(str(params.get("file_id") or ""))
        if stored is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        if stored.size > MAX_DOWNLOAD_BYTES:
            raise ApiError(400, "Bad Request: file is too big")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": stored.size,
            "file_path": stored.file_path,
        }


# ---------------------------------------------------------------------- wire helpers


def text_entities(text: str) -> list[dict[str, Any]]:
    """bot_command and mention entities, with offsets and lengths in UTF-16 units."""
    found: list[tuple[int, int, str]] = []
    for m in _BOT_COMMAND.finditer(text):
        found.append((m.start(), m.end(), "bot_command"))
    for m in _MENTION.finditer(text):
        found.append((m.start(), m.end(), "mention"))
    found.sort()
    return [
        {
            "type": kind,
            "offset": utf16_len(text[:start]),
            "length": utf16_len(text[start:end]),
        }
        for start, end, kind in found
    ]


async def _read_params(request: web.Request) -> tuple[dict[str, Any], dict[str, Upload]]:
    params: dict[str, Any] = dict(request.query)
    files: dict[str, Upload] = {}
    if request.method == "POST" and request.can_read_body:
        ctype = request.content_type
        if ctype == "application/json":
            try:
                body = await request.json()
            except ValueError:
                raise ApiError(400, "Bad Request: can't parse JSON body") from None
            if not isinstance(body, dict):
                raise ApiError(400, "Bad Request: JSON body must be an object")
            params.update(body)
        elif ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    files[key] = Upload(
                        value.filename or key,
                        value.file.read(),
                        value.content_type or "application/octet-stream",
                    )
                else:
                    params[key] = value
    return params, files


def _json_value(value: Any) -> Any:
    """Nested values arrive as JSON strings in form bodies and as objects in JSON bodies."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            raise ApiError(400, "Bad Request: can't parse JSON-encoded parameter") from None
    return value


def _int(value: Any, default: int) -> int:
    if value is None or value == "":
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ApiError(400, f"Bad Request: expected an integer, got {value!r}") from None


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() in ("true", "1")
    return bool(value)


def _reply_markup(params: dict[str, Any]) -> dict[str, Any] | None:
    markup = _json_value(params.get("reply_markup"))
    if not markup:
        return None
    if not isinstance(markup, dict):
        raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
    rows = markup.get("inline_keyboard")
    if rows is None:
        return markup  # reply keyboards and friends: stored as given
    if not isinstance(rows, list):
        raise ApiError(400, "Bad Request: field \"inline_keyboard\" must be an Array")
    for row in rows:
        for button in row:
            if not button.get("text"):
                raise ApiError(400, "Bad Request: text buttons are unallowed in the inline keyboard")
            data = button.get("callback_data")
            if data is not None and not 1 <= len(str(data).encode()) <= MAX_CALLBACK_DATA_BYTES:
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
            web_app = button.get("web_app")
            if web_app is not None and not str(web_app.get("url", "")).startswith("https://"):
                raise ApiError(400, "Bad Request: BUTTON_URL_INVALID")  # Mini Apps need https
            kinds = [k for k in button if k != "text"]
            if len(kinds) != 1:
                raise ApiError(400, "Bad Request: inline keyboard button must have one action")
    return {"inline_keyboard": rows}


_HTML_TAGS = frozenset(
    "b strong i em u ins s strike del a code pre span tg-spoiler blockquote tg-emoji".split()
)
_HTML_TOKEN = re.compile(r"<(/?)([a-zA-Z-]+)((?:\s+[a-zA-Z-]+(?:=\"[^\"]*\"|='[^']*')?)*)\s*>")
_HTML_ENTITY = re.compile(r"&(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);")


# Telegram's nesting rules for entities sent with a message (Bot API, "MessageEntity"): two
# entities either do not share a character or one contains the other; the styles may contain and
# be part of anything but code and pre; blockquotes do not nest; the other kinds contain nothing.
_STYLE_ENTITIES = frozenset({"bold", "italic", "underline", "strikethrough", "spoiler"})
_OTHER_ENTITIES = frozenset({
    "code", "pre", "text_link", "text_mention", "blockquote", "expandable_blockquote", "mention",
    "hashtag", "cashtag", "bot_command", "url", "email", "phone_number", "custom_emoji",
})


def _entities(params: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """The entities sent with a text, checked as Telegram checks them; refused with 400."""
    raw = _json_value(params.get("entities"))
    if raw in (None, "", []):
        return []
    if params.get("parse_mode"):
        raise ApiError(400, "Bad Request: entities and parse_mode can't be used together")
    if not isinstance(raw, list):
        raise ApiError(400, "Bad Request: can't parse entities JSON object")
    size = utf16_len(text)
    out: list[dict[str, Any]] = []
    for e in raw:
        kind, offset, length = e.get("type"), e.get("offset"), e.get("length")
        if kind not in _STYLE_ENTITIES | _OTHER_ENTITIES:
            raise ApiError(400, f"Bad Request: can't parse entities: unknown type {kind!r}")
        if not isinstance(offset, int) or not isinstance(length, int) or offset < 0 or length < 1:
            raise ApiError(400, "Bad Request: can't parse entities: bad offset or length")
        if offset + length > size:
            raise ApiError(400, "Bad Request: can't parse entities: entity beyond the end of text")
        if kind == "text_link" and not str(e.get("url", "")).startswith(("http://", "https://", "tg://")):
            raise ApiError(400, "Bad Request: can't parse entities: wrong HTTP URL")
        out.append({k: v for k, v in e.items() if k in ("type", "offset", "length", "url", "language")})
    for i, a in enumerate(out):
        for b in out[i + 1 :]:
            a0, a1 = a["offset"], a["offset"] + a["length"]
            b0, b1 = b["offset"], b["offset"] + b["length"]
            if a1 <= b0 or b1 <= a0:
                continue
            if not ((a0 <= b0 and b1 <= a1) or (b0 <= a0 and a1 <= b1)):
                raise ApiError(400, "Bad Request: can't parse entities: entities overlap")
            kinds = {a["type"], b["type"]}
            if kinds & {"code", "pre"}:
                raise ApiError(400, "Bad Request: can't parse entities: code can't contain entities")
            if kinds <= _OTHER_ENTITIES:
                raise ApiError(400, f"Bad Request: can't parse entities: {sorted(kinds)} can't be nested")
    return out


def _render_text(raw: str, parse_mode: str | None, limit: int, what: str) -> str:
    """The visible text after entity parsing, validated as Telegram validates it."""
    if parse_mode:
        if parse_mode.upper() != "HTML":
            raise ApiError(400, f"Bad Request: parse mode {parse_mode} is not supported by the stand-in")
        text = _parse_html(raw)
    else:
        text = raw
    if not text.strip():
        raise ApiError(400, f"Bad Request: message {what} is empty")
    if utf16_len(text) > limit:
        raise ApiError(400, f"Bad Request: message {what} is too long")
    return text


def _parse_html(raw: str) -> str:
    """Strict enough to catch an unescaped '<' or '&' or an unclosed tag, like Telegram."""
    out: list[str] = []
    stack: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "<":
            m = _HTML_TOKEN.match(raw, i)
            if not m or m.group(2).lower() not in _HTML_TAGS:
                raise ApiError(
                    400,
                    f"Bad Request: can't parse entities: Unsupported start tag at byte offset {i}",
                )
            closing, name = m.group(1), m.group(2).lower()
            if closing:
                if not stack or stack[-1] != name:
                    raise ApiError(
                        400,
                        f"Bad Request: can't parse entities: Unmatched end tag at byte offset {i}",
                    )
                stack.pop()
            else:
                stack.append(name)
            i = m.end()
        elif ch == "&":
            m = _HTML_ENTITY.match(raw, i)
            if not m:
                raise ApiError(
                    400,
                    "Bad Request: can't parse entities: Character '&' is reserved and must be "
                    f"escaped at byte offset {i}",
                )
            out.append(html.unescape(m.group(0)))
            i = m.end()
        elif ch == ">":
            raise ApiError(
                400, f"Bad Request: can't parse entities: Character '>' is reserved at {i}"
            )
        else:
            out.append(ch)
            i += 1
    if stack:
        raise ApiError(
            400, f"Bad Request: can't parse entities: Can't find end tag corresponding to {stack[-1]}"
        )
    return "".join(out)


def _json_response(body: dict[str, Any], status: int = 200) -> web.Response:
    return web.Response(
        text=json.dumps(body, ensure_ascii=False), status=status, content_type="application/json"
    )


def _error_response(exc: ApiError) -> web.Response:
    body: dict[str, Any] = {"ok": False, "error_code": exc.code, "description": exc.description}
    if exc.parameters:
        body["parameters"] = exc.parameters
    return _json_response(body, exc.code)
