"""The Telegram adapter: translates Telegram updates into the contract and back, nothing more.

It runs inside an already running event loop next to the other adapters, so it drives
python-telegram-bot's Application by hand (initialize / start / updater.start_polling) instead of
`run_polling()`, which would own the loop and install signal handlers.

Decisions worth knowing:

- Addressing in groups. A group message reaches the core only when it is addressed to the bot:
  it mentions @botusername (or text-mentions the bot), it replies to one of the bot's messages,
  it is /command@botusername, or it *starts* with a plain /command that is one of ours
  (bot.core.menu.COMMAND_MENU or /start). Telegram clients drop the @botusername when a group has a
  single bot, so plain commands must work; limiting them to our own command names keeps us from
  answering another bot's commands in a group with several bots (where names clash, people use
  /command@botusername, which Telegram's command menu does for them). Everything else is
  dropped before the core sees it and is never logged. The @botusername is removed from the
  text the core gets; /command@botusername becomes /command (in private chats too).
- Text is sent without a parse_mode, so nothing in a memory can break formatting or inject
  markup. The model's answers (Outgoing.markdown) go as text plus message entities
  (adapters/formatting.py), so its Markdown shows as bold, code, links and lists instead of raw
  asterisks. Replies longer than Telegram's 4,096 UTF-16 units are split where
  adapters.textsplit cuts, each part with its own valid entities; buttons ride on the last part.
- Private answers in groups go to the person's private chat. If Telegram refuses (403: the
  person never started the bot or blocked it), a short pointer is posted in the group instead;
  the private text itself never appears in the group.
- Buttons carry only Button.token as callback_data (checked against Telegram's 64-byte limit).
  Every callback query is answered exactly once, with the first Outgoing.notice as its text.
- Ordering: updates of one person are processed strictly in arrival order; different people
  run concurrently (see _PersonOrderedProcessor).
- Flood control and outages: RetryAfter is honoured (sleep, then resend the same request;
  Telegram did not deliver a message it answered 429 to, so nothing is sent twice). Network
  errors, timeouts and 5xx are retried with bounded exponential backoff. One case stays
  at-least-once: a timeout after Telegram already accepted the request; the Bot API has no
  idempotency key, so a resend can then duplicate that message.
- Webhooks: the process's one web server (web/) serves them, so a deployment needs one port
  behind one TLS proxy. The adapter offers `on_webhook(headers, body)` for the path of
  TELEGRAM_WEBHOOK_URL (the runner mounts it) and checks the secret token header on every
  request. A webhook without a secret is refused at start: anyone who guessed the URL could
  otherwise speak as any user.
- Secrets: httpx logs request URLs (which contain the token) at INFO, and PTB logs the API URL
  at DEBUG; both are held at a level where they stay silent.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import json
import logging
import re
import time
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, NamedTuple, TypeVar
from urllib.parse import urlsplit

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    MenuButtonWebApp,
    Message,
    MessageEntity,
    ReplyParameters,
    Update,
    User,
    WebAppInfo,
)
from telegram.constants import ChatAction, ChatType
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    BaseUpdateProcessor,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    filters,
)
from telegram.warnings import PTBDeprecationWarning

from bot.config import ConfigError, Settings
from bot.events import Attachment, Button, ButtonPress, ChatRef, Core, Incoming, Outgoing
from bot.core.menu import COMMAND_MENU, DESCRIPTION, GROUP_MENU, SHORT_DESCRIPTION
from adapters.formatting import Formatted, entity_dicts, from_markdown, plain
from adapters.formatting import split as split_formatted
from adapters.textsplit import split_message
from adapters.waiting import WaitingAnswers

log = logging.getLogger(__name__)

# httpx logs every request line, URL included, at INFO - and the URL contains the bot token.
logging.getLogger("httpx").setLevel(logging.WARNING)

PLATFORM = "telegram"
TEXT_LIMIT = 4096  # UTF-16 code units, as Telegram counts
CAPTION_LIMIT = 1024
CALLBACK_DATA_LIMIT = 64  # bytes
CALLBACK_TEXT_LIMIT = 200
TOAST_LIMIT = 40  # characters a toast can show for its two seconds; longer notices are alerts
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY]  # edited messages are not even fetched
POLL_TIMEOUT = timedelta(seconds=10)
MAX_CONCURRENT_UPDATES = 256
CALLBACK_ANSWER_DEADLINE = 5.0  # answer a press empty if the core takes longer than this
IMPORT_WINDOW_SECONDS = 600.0  # a bare document this soon after "/import" is the import
OWN_PLAIN_COMMANDS = frozenset({name for name, _ in COMMAND_MENU} | {"start", "save"})
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"

RETRY_BASE_DELAY = 0.5  # seconds; doubled per network failure
MAX_NETWORK_RETRIES = 4  # 0.5 + 1 + 2 + 4 = 7.5 s at most
MAX_FLOOD_WAIT = 900.0  # seconds of RetryAfter waiting per request before giving up

TEXT_ONLY = "I can only read text for now."
IMPORT_HINT = "To restore a backup, send the exported file with the caption /import."
BACKUP_IN_GROUP = (
    "I didn't import that file: a backup holds everything I remember about you, and everyone in "
    "this group can open it. Send it to me in a private chat with the caption /import instead."
)
GONE_WAITING = (
    "The answer that waited for you here is gone (answers wait a day, and not across a restart "
    "of the bot). Please ask again."
)
ANSWERED_PRIVATELY = "👌"  # the reaction that tells a group its member was answered in private
SORRY = "Sorry, something went wrong on my side. Please try again."

T = TypeVar("T")


# ---------------------------------------------------------------------------- pure rules


class Entity(NamedTuple):
    """A message entity as on the wire: offset and length in UTF-16 code units."""

    type: str
    offset: int
    length: int
    user_id: int | None = None


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _utf16_index(text: str, units: int) -> int:
    """Python index of the character that starts at `units` UTF-16 code units."""
    count = 0
    for i, ch in enumerate(text):
        if count >= units:
            return i
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(text)


def route_text(
    text: str,
    entities: Sequence[Entity],
    *,
    bot_username: str,
    bot_id: int,
    is_group: bool,
    reply_to_bot: bool,
    own_commands: frozenset[str] = OWN_PLAIN_COMMANDS,
) -> str | None:
    """The text the core should get, or None when a group message is not addressed to us.

    Private chats are always addressed. See the module docstring for the group rules."""
    me = "@" + bot_username.lower()
    addressed = not is_group or reply_to_bot
    cuts: list[tuple[int, int]] = []
    for ent in entities:
        start = _utf16_index(text, ent.offset)
        end = _utf16_index(text, ent.offset + ent.length)
        piece = text[start:end]
        if ent.type == MessageEntity.MENTION and piece.lower() == me:
            addressed = True
            cuts.append(_mention_cut(text, start, end))
        elif ent.type == MessageEntity.TEXT_MENTION and ent.user_id == bot_id:
            addressed = True
            cuts.append(_mention_cut(text, start, end))
        elif ent.type == MessageEntity.BOT_COMMAND:
            name, at, target = piece[1:].partition("@")
            if at and target.lower() == bot_username.lower():
                addressed = True
                cuts.append((start + 1 + len(name), end))
            elif at and is_group and start == 0:
                return None  # /command@otherbot: for another bot, even in a reply to us
            elif not at and is_group and start == 0 and name.lower() in own_commands:
                addressed = True
    if not addressed:
        return None
    out = text
    for start, end in sorted(cuts, reverse=True):
        out = out[:start] + out[end:]
    return out.strip()


def _mention_cut(text: str, start: int, end: int) -> tuple[int, int]:
    """Span to remove for a mention of the bot, with the punctuation and space that only
    served it: "@bot, hi" -> "hi"; "hey @bot what" -> "hey what"."""
    if end < len(text) and text[end] in ",:":
        end += 1
    if start == 0:
        while end < len(text) and text[end].isspace():
            end += 1
    elif text[start - 1] == " " and (end == len(text) or text[end].isspace()):
        start -= 1
    return start, end


def build_keyboard(rows: Sequence[Sequence[Button]]) -> InlineKeyboardMarkup | None:
    """Inline keyboard whose callback_data is only the token; the meaning stays in the DB."""
    keyboard: list[list[InlineKeyboardButton]] = []
    for row in rows:
        line = []
        for button in row:
            size = len(button.token.encode("utf-8"))
            if not 1 <= size <= CALLBACK_DATA_LIMIT:
                raise ValueError(
                    f"button token is {size} bytes; Telegram callback_data takes 1-"
                    f"{CALLBACK_DATA_LIMIT}"
                )
            line.append(InlineKeyboardButton(button.label, callback_data=button.token))
        if line:
            keyboard.append(line)
    return InlineKeyboardMarkup(keyboard) if keyboard else None


def message_chunks(text: str, limit: int = TEXT_LIMIT) -> list[str]:
    """split_message by characters, then re-split any chunk that is too long in UTF-16 units
    (astral characters such as emoji count twice on Telegram)."""
    out: list[str] = []
    for chunk in split_message(text, limit):
        if utf16_len(chunk) <= limit:
            out.append(chunk)
        else:
            out.extend(split_message(chunk, max(1, limit // 2)))
    return out


def formatted_parts(text: str, markdown: bool, limit: int = TEXT_LIMIT) -> list[Formatted]:
    """A reply's parts as Telegram takes them: the model's Markdown as entities (plain text stays
    plain), cut within the UTF-16 limit with every part's entities valid on their own."""
    body = from_markdown(text) if markdown else plain(text)
    return split_formatted(body, limit, utf16_len)


def message_entities(part: Formatted) -> list[MessageEntity] | None:
    found = [
        MessageEntity(
            type=str(e["type"]),
            offset=int(e["offset"]),  # type: ignore[call-overload]
            length=int(e["length"]),  # type: ignore[call-overload]
            url=e.get("url"),  # type: ignore[arg-type]
            language=e.get("language"),  # type: ignore[arg-type]
        )
        for e in entity_dicts(part)
    ]
    return found or None


def file_url_for(settings: Settings) -> str:
    """The file download base: explicit, or the API base with its trailing /bot -> /file/bot."""
    if settings.telegram_api_file_url.strip():
        return settings.telegram_api_file_url.strip()
    base = settings.telegram_api_base_url.strip().rstrip("/")
    if not base.endswith("/bot"):
        raise ConfigError(
            "Invalid setting TELEGRAM_API_FILE_URL: cannot derive it from "
            "TELEGRAM_API_BASE_URL (no trailing /bot); set it explicitly"
        )
    return base[: -len("/bot")] + "/file/bot"


def _entities_of(message: Message) -> tuple[str, list[Entity]]:
    if message.text is not None:
        text, raw = message.text, message.entities
    else:
        text, raw = message.caption or "", message.caption_entities
    return text, [
        Entity(e.type, e.offset, e.length, e.user.id if e.user else None) for e in raw or ()
    ]


def _retry_after_seconds(exc: RetryAfter) -> float:
    with warnings.catch_warnings():  # int-vs-timedelta deprecation dance in PTB 22
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def _quiet_library_loggers() -> None:
    """PTB logs the API URL (with the token) and whole updates (with unaddressed group
    messages) at DEBUG; keep its loggers at INFO or above whatever the root level is.
    Their own level is pinned (at INFO, or the quieter level in force now), so a root lowered
    to DEBUG after start-up does not let them through either."""
    for name in ("telegram", "httpcore"):
        lg = logging.getLogger(name)
        if lg.level < logging.INFO:  # NOTSET (0) would follow the root, whatever it becomes
            lg.setLevel(max(logging.INFO, lg.getEffectiveLevel()))
    logging.getLogger("httpx").setLevel(logging.WARNING)


# ---------------------------------------------------------------------------- ordering


class _PersonOrderedProcessor(BaseUpdateProcessor):
    """Runs one person's updates strictly in arrival order, different people concurrently.

    PTB creates one task per update in arrival order; each takes its person's lock before
    running, and asyncio.Lock wakes waiters first-in first-out, so order holds per person."""

    def __init__(self, max_concurrent_updates: int) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[object, asyncio.Lock] = {}
        self._users: Counter[object] = Counter()

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = _order_key(update)
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._users[key] += 1
        try:
            async with lock:
                await coroutine
        finally:
            self._users[key] -= 1
            if self._users[key] <= 0:
                del self._users[key]
                self._locks.pop(key, None)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to tear down."""


def _order_key(update: object) -> object:
    if isinstance(update, Update):
        if update.effective_user is not None:
            return ("user", update.effective_user.id)
        if update.effective_chat is not None:
            return ("chat", update.effective_chat.id)
    return ("other", None)


# ---------------------------------------------------------------------------- the adapter


@dataclass
class _Where:
    """Where a batch of Outgoings goes: the conversation and the person in it."""

    chat_id: int
    user_id: int | None
    is_group: bool
    reply_to: int | None = None  # message to quote in groups
    display_name: str = ""
    pointer_posted: bool = False
    waiting: str | None = None  # the /start code of this batch's answers kept for the person
    reacted: bool = False


MENU_BUTTON_TEXT = "Memory"  # the chat's menu button opens the memory page as a Mini App
WEB_APP_BUTTON_TEXT = "Open here in Telegram"  # under /web's link: the page as a Mini App


class TelegramAdapter:
    """Telegram <-> contract. Also the outbox's Sender for platform 'telegram'."""

    platform = PLATFORM

    def __init__(self, core: Core, settings: Settings) -> None:
        self.core = core
        self.settings = settings
        self._app: Application | None = None  # type: ignore[type-arg]
        self._import_asked: dict[tuple[int, int], float] = {}
        self._waiting = WaitingAnswers()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Connect, publish the command menu, register as Sender, start receiving updates."""
        if self._app is not None:
            raise RuntimeError("TelegramAdapter already started")
        token = self.settings.telegram_bot_token.strip()
        if not token:
            raise ConfigError("Invalid setting TELEGRAM_BOT_TOKEN: must not be empty")
        webhook_url = self.settings.telegram_webhook_url.strip()
        if webhook_url:
            self._check_webhook_settings()
        _quiet_library_loggers()

        app = (
            ApplicationBuilder()
            .token(token)
            .base_url(self.settings.telegram_api_base_url.strip())
            .base_file_url(file_url_for(self.settings))
            .concurrent_updates(_PersonOrderedProcessor(MAX_CONCURRENT_UPDATES))
            .job_queue(None)  # we run our own scheduler
            .build()
        )
        app.add_handler(CallbackQueryHandler(self._on_callback))
        app.add_handler(MessageHandler(filters.UpdateType.MESSAGE, self._on_message))
        app.add_error_handler(self._on_error)

        self._app = app
        try:
            try:
                await app.initialize()  # getMe
            except InvalidToken as exc:
                # PTB's own message quotes the whole token; name the setting instead.
                reason = exc.__cause__ if isinstance(exc.__cause__, InvalidToken) else "Unauthorized"
                raise ConfigError(
                    f"Invalid setting TELEGRAM_BOT_TOKEN: the Telegram Bot API rejected it "
                    f"({reason})"
                ) from None
            await self._call(
                app.bot.set_my_commands,
                commands=[BotCommand(name, desc) for name, desc in COMMAND_MENU],
            )
            page = self.settings.web_public_url.strip()
            if page.startswith("https://"):  # Telegram opens Mini Apps only over https
                await self._call(
                    app.bot.set_chat_menu_button,
                    menu_button=MenuButtonWebApp(text=MENU_BUTTON_TEXT, web_app=WebAppInfo(url=f"{page}/app")),
                )
            await self._introduce(app)
            self.core.outbox.register(PLATFORM, self)
            await app.start()
            if webhook_url:
                await self._start_webhook(webhook_url)
            else:
                assert app.updater is not None
                await app.updater.start_polling(
                    poll_interval=0.0,
                    timeout=POLL_TIMEOUT,
                    allowed_updates=ALLOWED_UPDATES,
                    drop_pending_updates=False,
                    error_callback=self._on_poll_error,
                )
        except BaseException:
            await self.stop()
            raise
        log.info(
            "Telegram adapter running as @%s (%s)",
            app.bot.username,
            "webhook" if webhook_url else "long polling",
        )

    async def _introduce(self, app: Application) -> None:  # type: ignore[type-arg]
        """What people see before and around a chat: the group menu (the few commands that
        make sense in front of others), the description and the short description. Decoration:
        a refusal is logged and start-up goes on."""
        steps: list[tuple[Callable[..., Awaitable[Any]], dict[str, Any]]] = [
            (
                app.bot.set_my_commands,
                {
                    "commands": [BotCommand(name, desc) for name, desc in GROUP_MENU],
                    "scope": BotCommandScopeAllGroupChats(),
                },
            ),
            (
                app.bot.set_my_description,
                {"description": self.settings.bot_description.strip() or DESCRIPTION},
            ),
            (
                app.bot.set_my_short_description,
                {
                    "short_description": self.settings.bot_short_description.strip()
                    or SHORT_DESCRIPTION
                },
            ),
        ]
        for fn, kwargs in steps:
            try:
                await self._call(fn, **kwargs)
            except TelegramError as exc:
                log.warning("Telegram refused %s: %s", getattr(fn, "__name__", "a call"), exc)

    async def stop(self) -> None:
        """Stop receiving, finish updates in flight, close connections. Safe to call twice."""
        app, self._app = self._app, None
        if self.core.outbox.senders.get(PLATFORM) is self:
            self.core.outbox.unregister(PLATFORM)
        if app is None:
            return
        steps: list[Callable[[], Awaitable[Any]]] = []
        if app.updater is not None and app.updater.running:
            steps.append(app.updater.stop)
        if app.running:
            steps.append(app.stop)
        steps.append(app.shutdown)
        for step in steps:
            try:
                await step()
            except Exception:
                log.exception("error while stopping the Telegram adapter")

    def _check_webhook_settings(self) -> None:
        secret = self.settings.telegram_webhook_secret
        if not secret:
            raise ConfigError(
                "Invalid setting TELEGRAM_WEBHOOK_SECRET: required when TELEGRAM_WEBHOOK_URL "
                "is set"
            )
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            raise ConfigError(
                "Invalid setting TELEGRAM_WEBHOOK_SECRET: 1-256 characters of A-Z, a-z, 0-9, _ "
                "and -"
            )

    @property
    def webhook_path(self) -> str | None:
        """Where the web server must serve this adapter's webhook (None: long polling)."""
        url = self.settings.telegram_webhook_url.strip()
        return (urlsplit(url).path or "/") if url else None

    async def _start_webhook(self, url: str) -> None:
        assert self._app is not None
        await self._call(
            self._app.bot.set_webhook,
            url=url,
            secret_token=self.settings.telegram_webhook_secret,
            allowed_updates=ALLOWED_UPDATES,
        )

    async def on_webhook(self, headers: Mapping[str, str], body: bytes) -> int:
        """Telegram's POST of one update, as the web server got it: checked against the secret
        before anything else; returns the HTTP status to answer with."""
        given = headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.settings.telegram_webhook_secret.encode()):
            log.warning("webhook request with a wrong or missing secret token refused")
            return 403
        app = self._app
        if app is None:
            return 503
        try:
            update = Update.de_json(json.loads(body), app.bot)
        except Exception:
            return 400
        await app.update_queue.put(update)
        return 200

    # ------------------------------------------------------------------ Sender

    async def send(self, chat: ChatRef, message: Outgoing) -> str | None:
        """Push a message (not a reply). Returns the id of the last message sent (the one with
        the buttons), or None when a private message could only be announced by a pointer in
        the group. Raises when Telegram refuses for good."""
        chat_id = int(chat.chat_id)
        user_id = int(chat.user_id) if chat.user_id else None
        where = _Where(chat_id=chat_id, user_id=user_id, is_group=chat_id < 0)
        return await self._render(message, where)

    async def typing(self, chat: ChatRef) -> None:
        """One 'typing' action (Telegram shows it for about 5 s); best effort, never raises."""
        if self._app is None:
            return
        try:
            await self._app.bot.send_chat_action(chat_id=int(chat.chat_id), action=ChatAction.TYPING)
        except (TelegramError, ValueError) as exc:
            log.debug("typing signal failed: %s", type(exc).__name__)

    # ------------------------------------------------------------------ incoming

    async def _on_message(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.message
        if message is None or message.from_user is None or message.from_user.is_bot:
            return
        chat = message.chat
        if chat.type == ChatType.CHANNEL:
            return
        is_group = chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)
        bot = context.bot
        replied = message.reply_to_message
        reply_to_bot = bool(replied and replied.from_user and replied.from_user.id == bot.id)
        text, entities = _entities_of(message)
        routed = route_text(
            text,
            entities,
            bot_username=bot.username,
            bot_id=bot.id,
            is_group=is_group,
            reply_to_bot=reply_to_bot,
        )
        if routed is None:
            return  # a group message not for us: not passed on, not logged
        user = message.from_user
        where = _Where(
            chat_id=chat.id,
            user_id=user.id,
            is_group=is_group,
            reply_to=message.message_id if is_group else None,
            display_name=user.full_name,
        )
        base = Incoming(
            platform=PLATFORM,
            chat_id=str(chat.id),
            user_id=str(user.id),
            text=routed,
            display_name=user.full_name,
            is_group=is_group,
            addressed_to_bot=True,
            message_id=str(message.message_id),
            locale=user.language_code or "",
        )
        if message.document is not None:
            await self._on_document(message, base, where)
        elif message.text is not None:
            if not routed:
                return  # only "@bot": nothing to answer
            if not is_group and routed.split(maxsplit=1)[0].lower() == "/start" and len(routed.split()) == 2:
                if await self._start_payload(routed.split()[1], base, where):
                    return
                base = dataclasses.replace(base, text="/start")
            if not is_group and routed.split(maxsplit=1)[0].lower() == "/import":
                self._note_import_asked(chat.id, user.id)
            await self._to_core(base, where)
        elif _has_media(message):
            await self._render_all([Outgoing(text=TEXT_ONLY)], where)
        # service messages (joins, pins ...) are ignored

    def _note_import_asked(self, chat_id: int, user_id: int) -> None:
        """Remember that a bare document from this person may follow; stale notes go."""
        now = time.monotonic()
        self._import_asked = {
            k: t for k, t in self._import_asked.items() if now - t < IMPORT_WINDOW_SECONDS
        }
        self._import_asked[(chat_id, user_id)] = now

    async def _on_document(self, message: Message, base: Incoming, where: _Where) -> None:
        doc = message.document
        assert doc is not None
        key = (where.chat_id, where.user_id or 0)
        first = base.text.split(maxsplit=1)[0].lower() if base.text else ""
        asked = self._import_asked.get(key)
        is_import = first == "/import" or (
            not where.is_group
            and not base.text
            and asked is not None
            and time.monotonic() - asked < IMPORT_WINDOW_SECONDS
        )
        # a bare file in a private chat: the core reads it and offers it for import when it is a
        # backup, as on Discord (people drop the file /export gave them without any caption)
        offer = not is_import and not where.is_group and not base.text
        if not is_import and not offer:
            await self._render_all([Outgoing(text=f"{TEXT_ONLY} {IMPORT_HINT}")], where)
            return
        if where.is_group:  # the whole memory, shown to everyone: never imported from there
            deleted = await self._delete_quietly(where.chat_id, message.message_id)
            note = " I deleted it from the group." if deleted else " Please delete it from the group."
            await self._render_all([Outgoing(text=BACKUP_IN_GROUP + note)], where)
            return
        self._import_asked.pop(key, None)
        limit = self.settings.telegram_max_import_bytes
        if doc.file_size is not None and doc.file_size > limit:
            await self._render_all([Outgoing(text=_too_big(doc.file_size, limit))], where)
            return
        assert self._app is not None
        try:
            tg_file = await self._call(self._app.bot.get_file, file_id=doc.file_id)
            data = bytes(await self._call(tg_file.download_as_bytearray))
        except BadRequest as exc:
            if "too big" in str(exc).lower():
                await self._render_all([Outgoing(text=_too_big(doc.file_size, limit))], where)
                return
            raise
        if len(data) > limit:
            await self._render_all([Outgoing(text=_too_big(len(data), limit))], where)
            return
        attachment = Attachment(
            filename=doc.file_name or "import.json",
            data=data,
            content_type=doc.mime_type or "application/octet-stream",
        )
        incoming = Incoming(
            platform=base.platform,
            chat_id=base.chat_id,
            user_id=base.user_id,
            text="" if offer else "/import",
            display_name=base.display_name,
            is_group=base.is_group,
            addressed_to_bot=True,
            message_id=base.message_id,
            attachments=(attachment,),
        )
        await self._to_core(incoming, where)

    async def _start_payload(self, payload: str, base: Incoming, where: _Where) -> bool:
        """"/start <code>" from a deep link: deliver the answers that waited for this person
        (True), or say they are gone and let the core greet (False)."""
        if not WaitingAnswers.is_ours(payload):
            return False
        outs = self._waiting.take(payload, base.user_id)
        if outs is None:
            await self._render_all([Outgoing(text=GONE_WAITING)], where)
            return False
        private = _Where(chat_id=where.chat_id, user_id=where.user_id, is_group=False,
                         display_name=where.display_name)
        await self._render_all([dataclasses.replace(o, edit_of=None, notice=None, private=False) for o in outs], private)
        return True

    async def _delete_quietly(self, chat_id: int, message_id: int) -> bool:
        """Delete a person's message where the bot may; False where it may not."""
        assert self._app is not None
        try:
            return bool(await self._call(self._app.bot.delete_message, chat_id=chat_id, message_id=message_id))
        except TelegramError as exc:
            log.info("could not delete a message in chat %s: %s", chat_id, type(exc).__name__)
            return False

    async def _react(self, where: _Where) -> None:
        """Tell the group the person was answered privately, once per message, naming nothing."""
        if where.reacted or where.reply_to is None or self._app is None:
            return
        where.reacted = True
        try:
            await self._call(self._app.bot.set_message_reaction, chat_id=where.chat_id,
                             message_id=where.reply_to, reaction=ANSWERED_PRIVATELY)
        except TelegramError as exc:  # reactions may be off in this group: the answer still went
            log.info("could not react in chat %s: %s", where.chat_id, type(exc).__name__)

    async def _to_core(self, incoming: Incoming, where: _Where) -> None:
        try:
            outs = await self.core.handle_message(incoming)
        except Exception:
            log.exception("the core failed on a Telegram message in chat %s", where.chat_id)
            outs = [Outgoing(text=SORRY)]
        await self._render_all(outs, where)

    async def _on_callback(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None:
            return
        answered = False

        async def answer(text: str | None = None) -> None:
            nonlocal answered
            if answered:
                return
            answered = True
            try:
                await self._call(
                    context.bot.answer_callback_query,
                    callback_query_id=query.id,
                    text=text[:CALLBACK_TEXT_LIMIT] if text else None,
                    # a refusal that takes reading stays until dismissed; a short one is a toast
                    show_alert=bool(text and len(text) > TOAST_LIMIT),
                )
            except TelegramError as exc:
                log.warning("answering a callback query failed: %s", exc)

        try:
            if query.data is None:
                return
            user = query.from_user
            msg = query.message
            chat_id = msg.chat.id if msg is not None else user.id
            is_group = msg is not None and msg.chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)
            press = ButtonPress(
                platform=PLATFORM,
                chat_id=str(chat_id),
                user_id=str(user.id),
                token=query.data,
                message_id=str(msg.message_id) if msg is not None else None,
                display_name=user.full_name,
                is_group=is_group,
            )
            where = _Where(chat_id, user.id, is_group, None, user.full_name)
            task = asyncio.ensure_future(self.core.handle_press(press))
            done, _ = await asyncio.wait({task}, timeout=CALLBACK_ANSWER_DEADLINE)
            if not done:
                await answer()  # stop the spinner; a late notice is lost (logged below)
            try:
                outs = await task
            except Exception:
                log.exception("the core failed on a Telegram button press in chat %s", chat_id)
                await answer(SORRY)
                return
            notice = next((o.notice for o in outs if o.notice), None)
            if notice and answered:
                log.info("a button notice came after the callback was answered; dropped")
            await answer(notice)
            await self._render_all(outs, where)
        finally:
            await answer()

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Last line of defence: log (never the message text) and keep running."""
        update_id = update.update_id if isinstance(update, Update) else None
        log.error(
            "error while handling Telegram update %s: %s",
            update_id,
            type(context.error).__name__,
            exc_info=context.error,
        )

    def _on_poll_error(self, exc: TelegramError) -> None:
        log.warning("polling Telegram failed: %s: %s", type(exc).__name__, exc)

    # ------------------------------------------------------------------ outgoing

    async def _render_all(self, outs: Sequence[Outgoing], where: _Where) -> None:
        """Render a reply batch in order; one failure is logged and does not stop the rest."""
        for out in outs:
            try:
                await self._render(out, where)
            except Exception:
                log.exception("sending a Telegram reply to chat %s failed", where.chat_id)

    async def _render(self, out: Outgoing, where: _Where) -> str | None:
        if not (out.text or out.file or out.buttons or out.edit_of):
            return None  # notice only: it answers a callback, it is not a message
        markup = build_keyboard(out.buttons)
        if out.web_app_url and not where.is_group:  # Mini App buttons work only in private chats
            rows = list(markup.inline_keyboard) if markup is not None else []
            opener = InlineKeyboardButton(WEB_APP_BUTTON_TEXT, web_app=WebAppInfo(url=out.web_app_url))
            markup = InlineKeyboardMarkup([*rows, [opener]])
        if out.private and where.is_group:
            if where.user_id is None:
                raise ValueError("a private message for a group needs the person's user id")
            try:
                sent = await self._emit(out, where.user_id, markup, reply_to=None, edit=False)
            except Forbidden:
                where.waiting = self._waiting.keep(str(where.user_id), out, where.waiting)
                if not where.pointer_posted:
                    where.pointer_posted = True
                    await self._post_pointer(where, out.pointer)
                return None
            await self._react(where)
            return sent
        return await self._emit(
            out, where.chat_id, markup, reply_to=where.reply_to, edit=bool(out.edit_of)
        )

    async def _emit(
        self,
        out: Outgoing,
        chat_id: int,
        markup: InlineKeyboardMarkup | None,
        *,
        reply_to: int | None,
        edit: bool,
    ) -> str | None:
        if edit and out.edit_of:
            try:
                return await self._edit(out, chat_id, int(out.edit_of), markup)
            except BadRequest as exc:
                if "not modified" in str(exc).lower():
                    return out.edit_of
                log.info("editing message %s failed (%s); sending anew", out.edit_of, exc)
        if out.file is not None:
            return await self._send_file(out, chat_id, markup, reply_to)
        return await self._send_text(
            chat_id, out.text, markup, reply_to, no_preview=out.no_preview, markdown=out.markdown
        )

    async def _edit(
        self, out: Outgoing, chat_id: int, message_id: int, markup: InlineKeyboardMarkup | None
    ) -> str | None:
        assert self._app is not None
        bot = self._app.bot
        if not out.text:
            await self._call(
                bot.edit_message_reply_markup,
                chat_id=chat_id,
                message_id=message_id,
                reply_markup=markup,
            )
            last: str | None = str(message_id)
        else:
            parts = formatted_parts(out.text, out.markdown)
            await self._call(
                bot.edit_message_text,
                chat_id=chat_id,
                message_id=message_id,
                text=parts[0].text,
                entities=message_entities(parts[0]),
                reply_markup=markup if len(parts) == 1 else None,
            )
            last = str(message_id)
            if len(parts) > 1:
                last = await self._send_parts(chat_id, parts[1:], markup, None)
        if out.file is not None:
            await self._send_file(Outgoing(file=out.file), chat_id, None, None)
        return last

    async def _send_text(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None,
        reply_to: int | None,
        *,
        no_preview: bool = False,
        markdown: bool = False,
    ) -> str | None:
        return await self._send_parts(
            chat_id, formatted_parts(text, markdown), markup, reply_to, no_preview=no_preview
        )

    async def _send_parts(
        self,
        chat_id: int,
        parts: Sequence[Formatted],
        markup: InlineKeyboardMarkup | None,
        reply_to: int | None,
        *,
        no_preview: bool = False,
    ) -> str | None:
        assert self._app is not None
        if not parts:
            if markup is not None:
                raise ValueError("Telegram needs text to carry buttons")
            return None
        last: Message | None = None
        for i, part in enumerate(parts):
            kwargs: dict[str, Any] = {"chat_id": chat_id, "text": part.text}
            entities = message_entities(part)
            if entities:
                kwargs["entities"] = entities
            if no_preview:
                kwargs["link_preview_options"] = LinkPreviewOptions(is_disabled=True)
            if i == len(parts) - 1 and markup is not None:
                kwargs["reply_markup"] = markup
            if i == 0 and reply_to is not None:
                kwargs["reply_parameters"] = ReplyParameters(
                    message_id=reply_to, allow_sending_without_reply=True
                )
            last = await self._call(self._app.bot.send_message, **kwargs)
        return str(last.message_id) if last is not None else None

    async def _send_file(
        self,
        out: Outgoing,
        chat_id: int,
        markup: InlineKeyboardMarkup | None,
        reply_to: int | None,
    ) -> str | None:
        assert self._app is not None and out.file is not None
        caption: str | None = out.text.strip() or None
        if caption is not None and utf16_len(caption) > CAPTION_LIMIT:
            await self._send_text(chat_id, caption, None, reply_to)
            caption, reply_to = None, None
        kwargs: dict[str, Any] = {
            "chat_id": chat_id,
            "document": out.file.data,
            "filename": out.file.filename,
            "caption": caption,
            "reply_markup": markup,
        }
        if reply_to is not None:
            kwargs["reply_parameters"] = ReplyParameters(
                message_id=reply_to, allow_sending_without_reply=True
            )
        sent = await self._call(self._app.bot.send_document, **kwargs)
        return str(sent.message_id)

    async def _post_pointer(self, where: _Where, pointer: str = "") -> None:
        """Tell the group that an answer waits in a private chat the person must open first
        (`pointer`: the core's own words for it, e.g. for a reminder; never the answer)."""
        assert self._app is not None
        username = self._app.bot.username
        name = where.display_name.strip()
        link = f"https://t.me/{username}?start={where.waiting}" if where.waiting else f"https://t.me/{username}"
        rest = (
            f"I have an answer that only you should see, and I can't write to you until you open a "
            f"chat with me: tap {link} and press Start, and it will be there."
        )
        if pointer:
            rest = f"{pointer} Tap {link} and press Start to get it."
            name = ""
        text = f"{name}, {rest}" if name else rest
        kwargs: dict[str, Any] = {"chat_id": where.chat_id, "text": text}
        if name and where.user_id is not None:
            # A text mention notifies the person without any parse mode (no markup to escape).
            kwargs["entities"] = [
                MessageEntity(
                    type=MessageEntity.TEXT_MENTION,
                    offset=0,
                    length=utf16_len(name),
                    user=User(id=where.user_id, first_name=name, is_bot=False),
                )
            ]
        if where.reply_to is not None:
            kwargs["reply_parameters"] = ReplyParameters(
                message_id=where.reply_to, allow_sending_without_reply=True
            )
        await self._call(self._app.bot.send_message, **kwargs)

    async def _call(self, fn: Callable[..., Awaitable[T]], /, **kwargs: Any) -> T:
        """One Bot API call, resent on flood control and transient failures (bounded)."""
        network_failures = 0
        flood_waited = 0.0
        migrated = False
        name = getattr(fn, "__name__", "call")
        while True:
            try:
                return await fn(**kwargs)
            except RetryAfter as exc:
                wait = _retry_after_seconds(exc)
                if flood_waited + wait > MAX_FLOOD_WAIT:
                    raise
                flood_waited += wait
                log.warning("Telegram flood control on %s: waiting %.1f s", name, wait)
                await asyncio.sleep(wait)
            except ChatMigrated as exc:
                if migrated or "chat_id" not in kwargs:
                    raise
                migrated = True
                kwargs["chat_id"] = exc.new_chat_id
            except BadRequest:
                raise  # a NetworkError subclass, but resending the same request cannot help
            except NetworkError as exc:  # includes TimedOut and 5xx answers
                if network_failures >= MAX_NETWORK_RETRIES:
                    raise
                delay = RETRY_BASE_DELAY * 2**network_failures
                network_failures += 1
                log.warning(
                    "Telegram %s failed (%s: %s); retry %d in %.1f s",
                    name,
                    type(exc).__name__,
                    exc,
                    network_failures,
                    delay,
                )
                await asyncio.sleep(delay)


def _has_media(message: Message) -> bool:
    return any(
        getattr(message, kind, None)
        for kind in (
            "photo",
            "voice",
            "sticker",
            "video",
            "audio",
            "animation",
            "video_note",
            "location",
            "contact",
            "poll",
            "dice",
            "venue",
            "game",
            "story",
        )
    )


def _too_big(size: int | None, limit: int) -> str:
    def mb(n: int) -> str:
        return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n:,} bytes"

    got, cap = (mb(size) if size else ""), mb(limit)
    if got == cap:  # just over the limit: "(5.0 MB); the limit is 5.0 MB" would say nothing
        got, cap = f"{size:,} bytes", f"{limit:,} bytes"
    got = f" ({got})" if size else ""
    return f"That file is too big to import{got}; the limit is {cap}."
