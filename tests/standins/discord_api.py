"""A stand-in Discord server (REST v10 + gateway) on 127.0.0.1 for tests.

Why it exists: the Discord adapter has to be proven against the wire, with the real discord.py
client doing its real HTTP and websocket work; mocking discord.py's own classes would only prove
that we call them the way we think they work. The stand-in plays Discord's side closely enough for
that: the start-up calls discord.py makes, the gateway handshake (HELLO, IDENTIFY -> READY,
GUILD_CREATE, heartbeats, RECONNECT / RESUME), message and interaction dispatches with rising
sequence numbers, and the REST calls a bot makes in response. It also enforces the rules that
make a bot fail in production: JSON answered with exactly ``Content-Type: application/json``,
2,000-character messages, 5x5 button grids, interactions answered within 3 seconds and only
once, ephemeral messages invisible to channel endpoints, message content withheld without the
MESSAGE_CONTENT intent, closed DMs, 429s with the headers discord.py reads.

Point discord.py at it with :func:`redirect_discord` (tests only; product code never does this).

Test API in short:

- set-up: ``add_user``, ``add_guild``, ``close_dms``; ``async with DiscordStandIn() as server``;
- inject: ``send_dm``, ``send_message`` (guild channels, mentions, replies, attachments),
  ``click`` (component interaction), ``slash`` (application command);
- inspect: ``bot_messages``, ``message``, ``interactions``, ``typing``, ``identifies``, ``intents``,
  ``commands``, ``requests``, ``unhandled``;
- wait: ``wait_for(predicate)``, ``wait_for_bot_message``, ``wait_answered``;
- faults: ``fail_message_posts(n, status=429 | 500, retry_after=...)``, ``reconnect_clients``,
  ``drop_clients``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import mimetypes
import re
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Iterator, TypeVar

from aiohttp import WSMsgType, web

API_PREFIX = "/api/v10"
DISCORD_EPOCH_MS = 1_420_070_400_000

INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT

FLAG_EPHEMERAL = 64
FLAG_LOADING = 128

CHANNEL_TEXT = 0
CHANNEL_DM = 1

# interaction callback types
CB_CHANNEL_MESSAGE = 4
CB_DEFERRED_CHANNEL_MESSAGE = 5
CB_DEFERRED_UPDATE_MESSAGE = 6
CB_UPDATE_MESSAGE = 7

INTERACTION_COMMAND = 2
INTERACTION_COMPONENT = 3

_COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
_MENTION = re.compile(r"<@!?(\d+)>")

T = TypeVar("T")


class StandInError(Exception):
    """The test asked the stand-in for something Discord could not do (a click on a button that
    is not on the message, a slash command that was never registered ...)."""


class _ApiError(Exception):
    def __init__(self, status: int, code: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


def _form_error(field_name: str, message: str) -> _ApiError:
    return _ApiError(
        400,
        50035,
        "Invalid Form Body",
        errors={field_name: {"_errors": [{"code": "BASE_TYPE_INVALID", "message": message}]}},
    )


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat()


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """JSON with exactly ``Content-Type: application/json``: discord.py compares the header for
    equality, and aiohttp's ``json_response`` would append a charset."""
    hdrs = {"Content-Type": "application/json"}
    hdrs.update(headers or {})
    return web.Response(body=json.dumps(data).encode(), status=status, headers=hdrs)


class _Snowflakes:
    """Real-shaped snowflakes (timestamp in the top bits), so that discord.py's created_at and
    our ordering agree."""

    def __init__(self) -> None:
        self._counter = itertools.count()
        self._last = 0

    def next(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        value = (ms << 22) | (1 << 17) | (next(self._counter) & 0xFFF)
        if value <= self._last:
            value = self._last + 1
        self._last = value
        return value


# ----------------------------------------------------------------------------------------------
# the world: users, guilds, channels, messages, interactions
# ----------------------------------------------------------------------------------------------


@dataclass
class User:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    dms_open: bool = True

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }


@dataclass
class Channel:
    id: int
    type: int
    name: str = ""
    guild_id: int | None = None
    recipient_id: int | None = None
    position: int = 0


@dataclass
class Guild:
    id: int
    name: str
    owner_id: int
    channels: dict[str, int] = field(default_factory=dict)
    member_ids: list[int] = field(default_factory=list)

    def channel(self, name: str) -> int:
        return self.channels[name]


@dataclass
class StoredFile:
    id: int
    filename: str
    data: bytes
    content_type: str

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass(frozen=True)
class ButtonSpec:
    label: str | None
    custom_id: str | None
    style: int
    disabled: bool = False
    url: str | None = None


@dataclass
class StoredMessage:
    """A message as the stand-in holds it: from people (injected) or from the bot (REST,
    interaction response, followup). ``history`` keeps every earlier content of an edited
    message, so tests can prove an edit happened rather than a new message."""

    id: int
    channel_id: int
    guild_id: int | None
    author_id: int
    content: str
    components: list[dict[str, Any]] = field(default_factory=list)
    files: list[StoredFile] = field(default_factory=list)
    flags: int = 0
    reference_id: int | None = None
    interaction_id: int | None = None
    source: str = "user"  # user | rest | interaction | followup
    mentions: list[int] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    deleted: bool = False
    message_type: int = 0
    nonce: str | None = None
    payloads: list[dict[str, Any]] = field(default_factory=list)  # what the bot sent, raw

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & FLAG_LOADING)

    @property
    def edited(self) -> bool:
        return bool(self.history)

    @property
    def rows(self) -> list[list[ButtonSpec]]:
        rows: list[list[ButtonSpec]] = []
        for row in self.components:
            buttons = []
            for comp in row.get("components", []):
                if comp.get("type") == 2:
                    buttons.append(
                        ButtonSpec(
                            label=comp.get("label"),
                            custom_id=comp.get("custom_id"),
                            style=int(comp.get("style", 1)),
                            disabled=bool(comp.get("disabled", False)),
                            url=comp.get("url"),
                        )
                    )
            rows.append(buttons)
        return rows

    @property
    def buttons(self) -> list[ButtonSpec]:
        return [b for row in self.rows for b in row]

    @property
    def custom_ids(self) -> list[str]:
        return [b.custom_id for b in self.buttons if b.custom_id]


@dataclass(frozen=True)
class CallbackRecord:
    type: int
    flags: int
    after: float  # seconds after the interaction was created
    message_id: int | None


@dataclass(frozen=True)
class Rejection:
    status: int
    code: int
    after: float
    what: str


@dataclass
class InteractionRecord:
    id: int
    token: str
    kind: int  # 2 application command, 3 component
    channel_id: int
    guild_id: int | None
    user_id: int
    created: float  # loop time
    message_id: int | None = None
    custom_id: str | None = None
    command: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    callbacks: list[CallbackRecord] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)

    @property
    def answered(self) -> bool:
        return bool(self.callbacks)

    @property
    def callback(self) -> CallbackRecord | None:
        return self.callbacks[0] if self.callbacks else None


@dataclass
class _Fault:
    status: int
    retry_after: float
    is_global: bool


@dataclass(frozen=True)
class RequestRecord:
    method: str
    path: str
    status: int


@dataclass
class _Session:
    id: str
    intents: int
    ws: web.WebSocketResponse | None
    seq: int = 0
    backlog: list[tuple[int, str]] = field(default_factory=list)
    valid: bool = True
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


# ----------------------------------------------------------------------------------------------
# the server
# ----------------------------------------------------------------------------------------------


class DiscordStandIn:
    """One fake Discord with one bot application. Use as ``async with DiscordStandIn() as s``."""

    def __init__(
        self,
        *,
        token: str = "stand-in-bot-token",
        bot_name: str = "MemoryBot",
        interaction_deadline: float = 3.0,
        privileged_intents_enabled: bool = True,
        heartbeat_interval_ms: int = 41_250,
    ) -> None:
        self._ids = _Snowflakes()
        self.token = token
        self.interaction_deadline = interaction_deadline
        self.privileged_intents_enabled = privileged_intents_enabled
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.application_id = self._ids.next()
        self.bot = User(self.application_id, bot_name, bot=True)
        self.owner = User(self._ids.next(), "app-owner")
        self.users: dict[int, User] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, StoredMessage] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self.files: dict[int, StoredFile] = {}
        self.commands: list[dict[str, Any]] = []
        self.reactions: dict[int, list[str]] = {}  # message id -> the bot's reaction emojis
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self._command_ids: dict[tuple[int | None, str], int] = {}
        self.identifies: list[dict[str, Any]] = []
        self.resumes: list[dict[str, Any]] = []
        self.heartbeats = 0
        self.typing: list[int] = []
        self.requests: list[RequestRecord] = []
        self.unhandled: list[RequestRecord] = []
        self.rejected_posts: list[RequestRecord] = []
        self._faults: deque[_Fault] = deque()
        self._sessions: dict[str, _Session] = {}
        self._server_closed: set[int] = set()
        self._changed: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        r = app.router
        p = API_PREFIX
        r.add_get(f"{p}/users/@me", self._get_me)
        r.add_post(f"{p}/users/@me/channels", self._create_dm)
        r.add_get(f"{p}/users/{{user_id}}", self._get_user)
        r.add_get(f"{p}/oauth2/applications/@me", self._get_application)
        r.add_get(f"{p}/applications/@me", self._get_application)
        r.add_get(f"{p}/gateway", self._get_gateway)
        r.add_get(f"{p}/gateway/bot", self._get_gateway_bot)
        r.add_get(f"{p}/channels/{{cid}}", self._get_channel)
        r.add_post(f"{p}/channels/{{cid}}/messages", self._post_message)
        r.add_get(f"{p}/channels/{{cid}}/messages/{{mid}}", self._get_message)
        r.add_patch(f"{p}/channels/{{cid}}/messages/{{mid}}", self._patch_message)
        r.add_delete(f"{p}/channels/{{cid}}/messages/{{mid}}", self._delete_message)
        r.add_post(f"{p}/channels/{{cid}}/typing", self._typing)
        r.add_put(f"{p}/channels/{{cid}}/messages/{{mid}}/reactions/{{emoji}}/@me", self._put_reaction)
        r.add_post(f"{p}/interactions/{{iid}}/{{token}}/callback", self._interaction_callback)
        r.add_post(f"{p}/webhooks/{{app}}/{{token}}", self._followup_post)
        r.add_get(f"{p}/webhooks/{{app}}/{{token}}/messages/{{mid}}", self._webhook_get)
        r.add_patch(f"{p}/webhooks/{{app}}/{{token}}/messages/{{mid}}", self._webhook_patch)
        r.add_delete(f"{p}/webhooks/{{app}}/{{token}}/messages/{{mid}}", self._webhook_delete)
        r.add_put(f"{p}/applications/{{app}}/commands", self._put_global_commands)
        r.add_get(f"{p}/applications/{{app}}/commands", self._get_global_commands)
        r.add_put(f"{p}/applications/{{app}}/guilds/{{gid}}/commands", self._put_guild_commands)
        r.add_get(f"{p}/applications/{{app}}/guilds/{{gid}}/commands", self._get_guild_commands)
        r.add_get("/attachments/{cid}/{aid}/{filename}", self._get_attachment)
        r.add_get("/gateway", self._gateway)
        r.add_route("*", p + "/{tail:.*}", self._unknown_route)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets
        self.port = server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        for session in self._sessions.values():
            if session.ws is not None and not session.ws.closed:
                with contextlib.suppress(Exception):
                    await session.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> DiscordStandIn:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def base_url(self) -> str:
        """What discord.http.Route.BASE must be set to."""
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        """What discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY must be set to."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    # ------------------------------------------------------------------ world set-up

    def add_user(self, username: str, *, global_name: str | None = None, bot: bool = False) -> User:
        user = User(self._ids.next(), username, global_name=global_name, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(
        self, name: str, *, channels: tuple[str, ...] = ("general",), members: tuple[User, ...] = ()
    ) -> Guild:
        """A guild the bot is in; announced with GUILD_CREATE on every IDENTIFY."""
        guild = Guild(self._ids.next(), name, owner_id=self.owner.id)
        for pos, cname in enumerate(channels):
            channel = Channel(self._ids.next(), CHANNEL_TEXT, cname, guild_id=guild.id, position=pos)
            self.channels[channel.id] = channel
            guild.channels[cname] = channel.id
        guild.member_ids = [self.bot.id, self.owner.id, *[m.id for m in members]]
        self.guilds[guild.id] = guild
        return guild

    def close_dms(self, user: User) -> None:
        """The person does not accept DMs from this bot: posts to their DM answer 403/50007."""
        user.dms_open = False

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between the bot and `user` (created on first use, like Discord)."""
        for ch in self.channels.values():
            if ch.type == CHANNEL_DM and ch.recipient_id == user.id:
                return ch
        ch = Channel(self._ids.next(), CHANNEL_DM, recipient_id=user.id)
        self.channels[ch.id] = ch
        return ch

    def dm_channel_id(self, user: User) -> int | None:
        for ch in self.channels.values():
            if ch.type == CHANNEL_DM and ch.recipient_id == user.id:
                return ch.id
        return None

    # ------------------------------------------------------------------ faults

    def fail_message_posts(
        self, count: int, *, status: int = 429, retry_after: float = 0.25, is_global: bool = False
    ) -> None:
        """The next `count` POST /channels/{id}/messages fail with `status` (429 carries
        retry_after in the body plus the X-RateLimit-* and Via headers discord.py reads)."""
        for _ in range(count):
            self._faults.append(_Fault(status, retry_after, is_global))

    async def reconnect_clients(self) -> None:
        """Send op 7 RECONNECT: a well-behaved client reconnects and RESUMEs."""
        for session in list(self._sessions.values()):
            if session.ws is not None and not session.ws.closed:
                await session.ws.send_str(json.dumps({"op": 7, "d": None, "s": None, "t": None}))

    async def drop_clients(self, code: int = 4000) -> None:
        """Close every gateway connection from the server side (a network blip); the sessions
        stay resumable and events dispatched meanwhile are replayed on RESUME."""
        for session in list(self._sessions.values()):
            if session.ws is not None and not session.ws.closed:
                ws, session.ws = session.ws, None
                self._server_closed.add(id(ws))
                await ws.close(code=code)

    # ------------------------------------------------------------------ inspection

    def message(self, message_id: int | str) -> StoredMessage:
        return self.messages[int(message_id)]

    def bot_messages(
        self, channel_id: int | None = None, *, ephemeral: bool | None = None
    ) -> list[StoredMessage]:
        """Everything the bot posted (not deleted), oldest first, optionally in one channel."""
        out = []
        for msg in self.messages.values():
            if msg.author_id != self.bot.id or msg.deleted:
                continue
            if channel_id is not None and msg.channel_id != int(channel_id):
                continue
            if ephemeral is not None and msg.ephemeral != ephemeral:
                continue
            out.append(msg)
        return out

    @property
    def intents(self) -> int | None:
        """The intents of the latest IDENTIFY."""
        return self.identifies[-1].get("intents") if self.identifies else None

    @property
    def live_sessions(self) -> int:
        """Gateway sessions that still receive (or queue for RESUME) dispatches."""
        return sum(1 for s in self._sessions.values() if s.valid)

    @property
    def connected(self) -> int:
        return sum(1 for s in self._sessions.values() if s.valid and s.ws is not None and not s.ws.closed)

    # ------------------------------------------------------------------ waiting

    def _bump(self) -> None:
        if self._changed is not None:
            self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for(
        self, predicate: Callable[[], T], *, timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Wait until `predicate()` is truthy; return its value. Re-checked on every change of the
        stand-in and every 20 ms, so predicates may also look at state outside it (a test core)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            if self._changed is None:
                self._changed = asyncio.Event()
            event = self._changed
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"stand-in: timed out after {timeout}s waiting for {what}")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(event.wait(), min(remaining, 0.02))

    async def wait_for_bot_message(
        self,
        channel_id: int | None = None,
        *,
        predicate: Callable[[StoredMessage], bool] | None = None,
        count: int = 1,
        ephemeral: bool | None = None,
        timeout: float = 5.0,
    ) -> StoredMessage:
        """Wait until at least `count` bot messages match; return the `count`-th."""

        def check() -> StoredMessage | None:
            found = [
                m
                for m in self.bot_messages(channel_id, ephemeral=ephemeral)
                if not m.loading and (predicate is None or predicate(m))
            ]
            return found[count - 1] if len(found) >= count else None

        return await self.wait_for(check, timeout=timeout, what=f"{count} bot message(s) in {channel_id}")

    async def wait_answered(self, interaction: InteractionRecord, *, timeout: float = 5.0) -> CallbackRecord:
        await self.wait_for(lambda: interaction.answered, timeout=timeout, what=f"answer to {interaction.id}")
        assert interaction.callback is not None
        return interaction.callback

    # ------------------------------------------------------------------ injection

    async def send_dm(
        self, user: User, text: str, *, attachments: tuple[tuple[str, bytes, str], ...] = ()
    ) -> StoredMessage:
        """`user` writes `text` to the bot in their DM."""
        channel = self.dm_channel(user)
        return await self._inject(user, channel, text, attachments=attachments)

    async def send_message(
        self,
        user: User,
        channel_id: int,
        text: str,
        *,
        reply_to: StoredMessage | int | None = None,
        ping_reply: bool = True,
        attachments: tuple[tuple[str, bytes, str], ...] = (),
    ) -> StoredMessage:
        """`user` writes `text` in a guild channel. Mentions are written as ``<@id>`` in the text
        (see :meth:`mention`); a reply pings the replied-to author unless ``ping_reply=False``,
        as in the Discord client."""
        channel = self.channels[int(channel_id)]
        return await self._inject(
            user, channel, text, reply_to=reply_to, ping_reply=ping_reply, attachments=attachments
        )

    def mention(self, user: User | None = None) -> str:
        return f"<@{(user or self.bot).id}>"

    async def _inject(
        self,
        user: User,
        channel: Channel,
        text: str,
        *,
        reply_to: StoredMessage | int | None = None,
        ping_reply: bool = True,
        attachments: tuple[tuple[str, bytes, str], ...] = (),
    ) -> StoredMessage:
        self._require_gateway()
        if channel.guild_id is not None:
            guild = self.guilds[channel.guild_id]
            if user.id not in guild.member_ids:
                guild.member_ids.append(user.id)
        mentions = [int(m) for m in _MENTION.findall(text) if int(m) in self.users]
        ref_id = None
        if reply_to is not None:
            ref = self.message(reply_to.id if isinstance(reply_to, StoredMessage) else reply_to)
            ref_id = ref.id
            if ping_reply and ref.author_id not in mentions:
                mentions.append(ref.author_id)
        msg = StoredMessage(
            id=self._ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author_id=user.id,
            content=text,
            reference_id=ref_id,
            mentions=mentions,
            message_type=19 if ref_id else 0,
        )
        for filename, data, ctype in attachments:
            f = StoredFile(self._ids.next(), filename, data, ctype)
            self.files[f.id] = f
            msg.files.append(f)
        self.messages[msg.id] = msg
        self._bump()
        await self._dispatch_message("MESSAGE_CREATE", msg)
        return msg

    async def click(
        self,
        user: User,
        message: StoredMessage | int,
        custom_id: str | None = None,
        *,
        label: str | None = None,
    ) -> InteractionRecord:
        """`user` presses a button (by custom_id or label) on a message: INTERACTION_CREATE type 3
        with the message as Discord sends it, components and all."""
        self._require_gateway()
        msg = self.message(message.id if isinstance(message, StoredMessage) else message)
        button = next(
            (
                b
                for b in msg.buttons
                if (custom_id is not None and b.custom_id == custom_id)
                or (custom_id is None and label is not None and b.label == label)
            ),
            None,
        )
        if button is None or button.custom_id is None:
            raise StandInError(f"no button {custom_id or label!r} on message {msg.id}: {msg.buttons}")
        if button.disabled:
            raise StandInError(f"button {button.custom_id!r} is disabled")
        rec = self._new_interaction(INTERACTION_COMPONENT, user, self.channels[msg.channel_id])
        rec.message_id, rec.custom_id = msg.id, button.custom_id
        data = {"custom_id": button.custom_id, "component_type": 2}
        await self._dispatch_interaction(rec, user, data, message=msg)
        return rec

    async def slash(self, user: User, channel_id: int, name: str, **options: Any) -> InteractionRecord:
        """`user` runs the registered application command `name` with its options; an attachment
        option (type 11) takes a (filename, bytes, content type) tuple, uploaded and sent as
        Discord does: the option's value is the attachment's id, the file in `resolved`."""
        self._require_gateway()
        channel = self.channels[int(channel_id)]
        command = None
        if channel.guild_id is not None:
            command = next((c for c in self.guild_commands.get(channel.guild_id, []) if c["name"] == name), None)
        command = command or next((c for c in self.commands if c["name"] == name), None)
        if command is None:
            raise StandInError(f"/{name} is not a registered application command")
        declared = {o["name"]: o for o in command.get("options", [])}
        for key in options:
            if key not in declared:
                raise StandInError(f"/{name} has no option {key!r} (has {sorted(declared)})")
        for oname, opt in declared.items():
            if opt.get("required") and oname not in options:
                raise StandInError(f"/{name} requires option {oname!r}")
        rec = self._new_interaction(INTERACTION_COMMAND, user, channel)
        rec.command, rec.options = name, dict(options)
        resolved: dict[str, Any] = {}
        values: dict[str, Any] = {}
        for k, v in options.items():
            if declared[k].get("type") == 11:
                filename, blob, ctype = v
                f = StoredFile(self._ids.next(), filename, blob, ctype)
                self.files[f.id] = f
                resolved[str(f.id)] = self._file_payload(f, channel.id)
                values[k] = str(f.id)
            else:
                values[k] = v
        data: dict[str, Any] = {
            "id": command["id"],
            "name": name,
            "type": 1,
            "options": [
                {"name": k, "type": declared[k].get("type", 3), "value": v} for k, v in values.items()
            ],
        }
        if resolved:
            data["resolved"] = {"attachments": resolved}
        if command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        await self._dispatch_interaction(rec, user, data)
        return rec

    def _new_interaction(self, kind: int, user: User, channel: Channel) -> InteractionRecord:
        rec = InteractionRecord(
            id=self._ids.next(),
            token=secrets.token_urlsafe(24),
            kind=kind,
            channel_id=channel.id,
            guild_id=channel.guild_id,
            user_id=user.id,
            created=asyncio.get_running_loop().time(),
        )
        self.interactions[rec.id] = rec
        self._by_token[rec.token] = rec
        return rec

    # ------------------------------------------------------------------ payloads

    def _member_payload(self, user: User, *, with_user: bool) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [],
            "joined_at": _now_iso(),
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
        }
        if with_user:
            data["user"] = user.payload()
        return data

    def _file_payload(self, f: StoredFile, channel_id: int) -> dict[str, Any]:
        url = f"http://127.0.0.1:{self.port}/attachments/{channel_id}/{f.id}/{f.filename}"
        return {
            "id": str(f.id),
            "filename": f.filename,
            "size": f.size,
            "url": url,
            "proxy_url": url,
            "content_type": f.content_type,
        }

    def _message_payload(self, msg: StoredMessage, *, depth: int = 0) -> dict[str, Any]:
        author = self.users[msg.author_id]
        data: dict[str, Any] = {
            "id": str(msg.id),
            "channel_id": str(msg.channel_id),
            "author": author.payload(),
            "content": msg.content,
            "timestamp": _now_iso(),
            "edited_timestamp": _now_iso() if msg.history else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [self._file_payload(f, msg.channel_id) for f in msg.files],
            "embeds": [],
            "pinned": False,
            "type": msg.message_type,
            "flags": msg.flags,
            "components": msg.components,
        }
        for uid in msg.mentions:
            mentioned = self.users[uid].payload()
            if msg.guild_id is not None:
                mentioned["member"] = self._member_payload(self.users[uid], with_user=False)
            data["mentions"].append(mentioned)
        if msg.guild_id is not None:
            data["guild_id"] = str(msg.guild_id)
            if msg.interaction_id is None:
                data["member"] = self._member_payload(author, with_user=False)
        if msg.interaction_id is not None:
            data["webhook_id"] = str(self.application_id)
            data["application_id"] = str(self.application_id)
        if msg.reference_id is not None:
            data["message_reference"] = {
                "type": 0,
                "message_id": str(msg.reference_id),
                "channel_id": str(msg.channel_id),
                **({"guild_id": str(msg.guild_id)} if msg.guild_id else {}),
            }
            ref = self.messages.get(msg.reference_id)
            if depth == 0:
                data["referenced_message"] = (
                    None if ref is None or ref.deleted else self._message_payload(ref, depth=1)
                )
        return data

    def _channel_payload(self, channel: Channel) -> dict[str, Any]:
        if channel.type == CHANNEL_DM:
            return {
                "id": str(channel.id),
                "type": CHANNEL_DM,
                "last_message_id": None,
                "flags": 0,
                "recipients": [self.users[channel.recipient_id].payload()] if channel.recipient_id else [],
            }
        return {
            "id": str(channel.id),
            "type": channel.type,
            "guild_id": str(channel.guild_id),
            "name": channel.name,
            "position": channel.position,
            "permission_overwrites": [],
            "topic": None,
            "nsfw": False,
            "parent_id": None,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "flags": 0,
        }

    def _guild_payload(self, guild: Guild, intents: int) -> dict[str, Any]:
        # Without GUILD_MEMBERS Discord sends only the bot's own member in GUILD_CREATE.
        member_ids = guild.member_ids if intents & INTENT_GUILD_MEMBERS else [self.bot.id]
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "owner_id": str(guild.owner_id),
            "unavailable": False,
            "large": False,
            "member_count": len(guild.member_ids),
            "joined_at": _now_iso(),
            "roles": [
                {
                    "id": str(guild.id),
                    "name": "@everyone",
                    "permissions": "1071698660929",
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "channels": [self._channel_payload(self.channels[cid]) for cid in guild.channels.values()],
            "members": [self._member_payload(self.users[uid], with_user=True) for uid in member_ids],
            "voice_states": [],
            "presences": [],
            "threads": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "system_channel_id": None,
        }

    def _application_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot.username,
            "description": "",
            "icon": None,
            "bot_public": False,
            "bot_require_code_grant": False,
            "owner": self.owner.payload(),
            "verify_key": "0" * 64,
            "flags": 0,
            "team": None,
            "interactions_endpoint_url": None,
            "bot": self.bot.payload(),
        }

    # ------------------------------------------------------------------ gateway

    def _require_gateway(self) -> None:
        if not any(s.valid for s in self._sessions.values()):
            raise StandInError("no bot session on the gateway (is the client started?)")

    async def _send_to(self, session: _Session, event: str, data: Any) -> None:
        async with session.lock:
            session.seq += 1
            frame = json.dumps({"op": 0, "t": event, "s": session.seq, "d": data})
            session.backlog.append((session.seq, frame))
            ws = session.ws
            if ws is not None and not ws.closed:
                try:
                    await ws.send_str(frame)
                except (ConnectionError, RuntimeError):
                    session.ws = None  # will be replayed on RESUME

    async def _dispatch(self, event: str, make: Callable[[_Session], Any | None]) -> int:
        """Send `event` to every live session (or queue it for a resumable one); `make` builds the
        payload per session (intent filtering) or returns None to skip it."""
        sent = 0
        for session in list(self._sessions.values()):
            if not session.valid:
                continue
            data = make(session)
            if data is None:
                continue
            await self._send_to(session, event, data)
            sent += 1
        return sent

    async def _dispatch_message(self, event: str, msg: StoredMessage) -> None:
        if msg.ephemeral:
            return  # ephemeral messages never appear on the gateway

        def make(session: _Session) -> dict[str, Any] | None:
            needed = INTENT_DIRECT_MESSAGES if msg.guild_id is None else INTENT_GUILD_MESSAGES
            if not session.intents & needed:
                return None
            data = self._message_payload(msg)
            hidden = (
                msg.guild_id is not None
                and not session.intents & INTENT_MESSAGE_CONTENT
                and msg.author_id != self.bot.id
                and self.bot.id not in msg.mentions
            )
            if hidden:  # what Discord withholds without the MESSAGE_CONTENT intent
                data.update(content="", attachments=[], embeds=[], components=[])
                if isinstance(data.get("referenced_message"), dict):
                    data["referenced_message"].update(content="", attachments=[], embeds=[], components=[])
            return data

        await self._dispatch(event, make)

    async def _dispatch_interaction(
        self,
        rec: InteractionRecord,
        user: User,
        data: dict[str, Any],
        *,
        message: StoredMessage | None = None,
    ) -> None:
        channel = self.channels[rec.channel_id]
        payload: dict[str, Any] = {
            "id": str(rec.id),
            "application_id": str(self.application_id),
            "type": rec.kind,
            "data": data,
            "channel_id": str(channel.id),
            "channel": self._channel_payload(channel),
            "token": rec.token,
            "version": 1,
            "locale": "en-US",
            "app_permissions": "1071698660929",
            "attachment_size_limit": 10 * 1024 * 1024,
            "entitlements": [],
            "context": 0 if rec.guild_id else 1,
        }
        if rec.guild_id is not None:
            payload["guild_id"] = str(rec.guild_id)
            payload["guild_locale"] = "en-US"
            payload["guild"] = {"id": str(rec.guild_id), "locale": "en-US", "features": []}
            member = self._member_payload(user, with_user=True)
            member["permissions"] = "1071698660929"
            payload["member"] = member
            payload["authorizing_integration_owners"] = {"0": str(rec.guild_id)}
        else:
            payload["user"] = user.payload()
            payload["authorizing_integration_owners"] = {"0": "0"}
        if message is not None:
            payload["message"] = self._message_payload(message)
        self._bump()
        sent = await self._dispatch("INTERACTION_CREATE", lambda _s: payload)
        if not sent:
            raise StandInError("no gateway session received the interaction")

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        session: _Session | None = None
        await ws.send_str(
            json.dumps({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}, "s": None, "t": None})
        )
        try:
            async for frame in ws:
                if frame.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    continue
                msg = json.loads(frame.data)
                op, d = msg.get("op"), msg.get("d")
                if op == 1:
                    self.heartbeats += 1
                    await ws.send_str(json.dumps({"op": 11, "d": None, "s": None, "t": None}))
                elif op == 2:
                    session = await self._identify(ws, d or {})
                    if session is None:
                        break
                elif op == 6:
                    session = await self._resume(ws, d or {})
                    if session is None:
                        break
                # op 3 (presence), 4 (voice), 8 (request members): accepted, ignored
        finally:
            if session is not None and session.ws is ws:
                session.ws = None
                # A client that closes with 1000/1001 ends its session, as on Discord; any other
                # close (discord.py's own close() usually ends up sending 4000) leaves it
                # resumable, and dispatches keep queueing for a RESUME that may never come.
                if ws.close_code in (1000, 1001) and id(ws) not in self._server_closed:
                    session.valid = False
            self._bump()
        return ws

    async def _identify(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> _Session | None:
        self.identifies.append(d)
        self._bump()
        if d.get("token") != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        intents = d.get("intents")
        if not isinstance(intents, int):
            await ws.close(code=4013, message=b"Invalid intent(s).")
            return None
        if intents & PRIVILEGED_INTENTS and not self.privileged_intents_enabled:
            await ws.close(code=4014, message=b"Disallowed intent(s).")
            return None
        session = _Session(id=secrets.token_hex(16), intents=intents, ws=ws)
        self._sessions[session.id] = session
        ready = {
            "v": 10,
            "user": {**self.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in self.guilds.values()],
            "session_id": session.id,
            "resume_gateway_url": self.gateway_url,
            "session_type": "normal",
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "geo_ordered_rtc_regions": [],
        }
        await self._send_to(session, "READY", ready)
        if intents & INTENT_GUILDS:
            for guild in self.guilds.values():
                await self._send_to(session, "GUILD_CREATE", self._guild_payload(guild, intents))
        self._bump()
        return session

    async def _resume(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> _Session | None:
        self.resumes.append(d)
        session = self._sessions.get(str(d.get("session_id")))
        if d.get("token") != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        if session is None or not session.valid:
            await ws.send_str(json.dumps({"op": 9, "d": False, "s": None, "t": None}))
            return None
        async with session.lock:
            session.ws = ws
            after = int(d.get("seq") or 0)
            for seq, frame in session.backlog:
                if seq > after:
                    await ws.send_str(frame)
        await self._send_to(session, "RESUMED", {})
        self._bump()
        return session

    # ------------------------------------------------------------------ REST plumbing

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Callable[[web.Request], Awaitable[Any]]) -> Any:
        path = request.path
        needs_auth = (
            path.startswith(API_PREFIX)
            and not path.startswith(f"{API_PREFIX}/webhooks/")
            and not path.startswith(f"{API_PREFIX}/interactions/")
        )
        try:
            if needs_auth and request.headers.get("Authorization") != f"Bot {self.token}":
                raise _ApiError(401, 0, "401: Unauthorized")
            response = await handler(request)
        except _ApiError as err:
            body = {"message": err.message, "code": err.code, **err.extra}
            response = json_response(body, status=err.status)
        if not path.startswith("/gateway"):
            self.requests.append(RequestRecord(request.method, path, response.status))
        self._bump()
        return response

    async def _unknown_route(self, request: web.Request) -> web.Response:
        self.unhandled.append(RequestRecord(request.method, request.path, 404))
        raise _ApiError(404, 0, "404: Not Found")

    async def _read_body(self, request: web.Request) -> tuple[dict[str, Any], list[StoredFile]]:
        """JSON body, or multipart with payload_json and files[n] (how discord.py uploads)."""
        if request.content_type.startswith("multipart/"):
            payload: dict[str, Any] = {}
            indexed: dict[int, StoredFile] = {}
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                name = getattr(part, "name", None)
                if name == "payload_json":
                    payload = json.loads(await part.text())  # type: ignore[union-attr]
                elif name and name.startswith("files["):
                    index = int(name[len("files[") : -1])
                    data = bytes(await part.read())  # type: ignore[union-attr]
                    filename = getattr(part, "filename", None) or f"file{index}"
                    ctype = mimetypes.guess_type(filename)[0] or "application/octet-stream"
                    indexed[index] = StoredFile(self._ids.next(), filename, data, ctype)
            files = [indexed[i] for i in sorted(indexed)]
            for f in files:
                self.files[f.id] = f
            return payload, files
        if request.can_read_body:
            body = await request.read()
            return (json.loads(body) if body else {}), []
        return {}, []

    def _validate_components(self, components: Any) -> list[dict[str, Any]]:
        if not isinstance(components, list):
            raise _form_error("components", "must be a list")
        if len(components) > 5:
            raise _form_error("components", "Must be 5 or fewer in length.")
        seen: set[str] = set()
        for row in components:
            if row.get("type") != 1:
                raise _form_error("components", "top-level components must be action rows")
            inner = row.get("components", [])
            if not 1 <= len(inner) <= 5:
                raise _form_error("components", "an action row holds 1 to 5 components")
            for comp in inner:
                if comp.get("type") != 2:
                    continue
                label = comp.get("label") or ""
                if len(label) > 80:
                    raise _form_error("components", "label must be 80 or fewer in length")
                cid = comp.get("custom_id")
                if comp.get("style") == 5:
                    if not comp.get("url"):
                        raise _form_error("components", "link buttons need a url")
                    continue
                if not cid or len(cid) > 100:
                    raise _form_error("components", "custom_id must be 1 to 100 characters")
                if cid in seen:
                    raise _form_error("components", "custom_id must be unique per message")
                seen.add(cid)
        return components

    def _apply_content(
        self, msg: StoredMessage, payload: dict[str, Any], files: list[StoredFile], *, creating: bool
    ) -> None:
        if "content" in payload:
            content = payload["content"] or ""
            if len(content) > 2000:
                raise _ApiError(
                    400,
                    50035,
                    "Invalid Form Body",
                    errors={"content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH",
                                                    "message": "Must be 2000 or fewer in length."}]}},
                )
            if not creating and content != msg.content:
                msg.history.append(msg.content)
            msg.content = content
        if "components" in payload:
            msg.components = self._validate_components(payload["components"] or [])
        if creating:
            msg.files = list(files)
        elif "attachments" in payload or files:
            keep = {str(a.get("id")) for a in payload.get("attachments", []) or []}
            msg.files = [f for f in msg.files if str(f.id) in keep] + list(files)
        msg.payloads.append(payload)

    def _check_not_empty(self, msg: StoredMessage, payload: dict[str, Any]) -> None:
        if not (msg.content or msg.files or msg.components or payload.get("embeds")):
            raise _ApiError(400, 50006, "Cannot send an empty message")

    def _channel_or_404(self, cid: str) -> Channel:
        try:
            return self.channels[int(cid)]
        except (KeyError, ValueError):
            raise _ApiError(404, 10003, "Unknown Channel") from None

    def _message_or_404(self, channel: Channel, mid: str) -> StoredMessage:
        try:
            msg = self.messages[int(mid)]
        except (KeyError, ValueError):
            raise _ApiError(404, 10008, "Unknown Message") from None
        if msg.channel_id != channel.id or msg.deleted or msg.ephemeral:
            # ephemeral messages exist only for their interaction's webhook
            raise _ApiError(404, 10008, "Unknown Message")
        return msg

    # ------------------------------------------------------------------ REST: users, app, gateway

    async def _get_me(self, request: web.Request) -> web.Response:
        return json_response({**self.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0})

    async def _get_user(self, request: web.Request) -> web.Response:
        try:
            return json_response(self.users[int(request.match_info["user_id"])].payload())
        except (KeyError, ValueError):
            raise _ApiError(404, 10013, "Unknown User") from None

    async def _create_dm(self, request: web.Request) -> web.Response:
        body = await request.json()
        try:
            user = self.users[int(body["recipient_id"])]
        except (KeyError, ValueError, TypeError):
            raise _ApiError(400, 50033, "Invalid Recipient(s)") from None
        return json_response(self._channel_payload(self.dm_channel(user)))

    async def _get_application(self, request: web.Request) -> web.Response:
        return json_response(self._application_payload())

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 86_400_000,
                                        "max_concurrency": 1},
            }
        )

    async def _get_attachment(self, request: web.Request) -> web.Response:
        try:
            f = self.files[int(request.match_info["aid"])]
        except (KeyError, ValueError):
            return web.Response(status=404, text="not found")
        return web.Response(body=f.data, headers={"Content-Type": f.content_type})

    # ------------------------------------------------------------------ REST: channels and messages

    async def _get_channel(self, request: web.Request) -> web.Response:
        return json_response(self._channel_payload(self._channel_or_404(request.match_info["cid"])))

    async def _post_message(self, request: web.Request) -> web.Response:
        channel = self._channel_or_404(request.match_info["cid"])
        if self._faults:
            fault = self._faults.popleft()
            self.rejected_posts.append(RequestRecord(request.method, request.path, fault.status))
            await request.read()
            if fault.status == 429:
                reset = time.time() + fault.retry_after
                headers = {
                    "Via": "1.1 google",
                    "Retry-After": str(max(1, int(fault.retry_after + 0.999))),
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": f"{reset:.3f}",
                    "X-RateLimit-Reset-After": f"{fault.retry_after:.3f}",
                    "X-RateLimit-Bucket": "stand-in-messages",
                    "X-RateLimit-Scope": "global" if fault.is_global else "user",
                }
                if fault.is_global:
                    headers["X-RateLimit-Global"] = "true"
                body = {"message": "You are being rate limited.", "retry_after": fault.retry_after,
                        "global": fault.is_global, "code": 0}
                return json_response(body, status=429, headers=headers)
            raise _ApiError(fault.status, 0, f"{fault.status}: Internal Server Error")
        if channel.type == CHANNEL_DM and channel.recipient_id is not None:
            if not self.users[channel.recipient_id].dms_open:
                await request.read()
                raise _ApiError(403, 50007, "Cannot send messages to this user")
        payload, files = await self._read_body(request)
        nonce = payload.get("nonce")
        if nonce is not None and payload.get("enforce_nonce"):
            # Discord answers a repeated nonce with the message it already created
            for existing in self.messages.values():
                if existing.channel_id == channel.id and existing.nonce == str(nonce):
                    return json_response(self._message_payload(existing))
        ref = payload.get("message_reference") or {}
        msg = StoredMessage(
            id=self._ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author_id=self.bot.id,
            content="",
            reference_id=int(ref["message_id"]) if ref.get("message_id") else None,
            source="rest",
            flags=int(payload.get("flags") or 0) & ~(FLAG_EPHEMERAL | FLAG_LOADING),
        )
        msg.message_type = 19 if msg.reference_id else 0
        msg.nonce = str(nonce) if nonce is not None else None
        self._apply_content(msg, payload, files, creating=True)
        self._check_not_empty(msg, payload)
        self.messages[msg.id] = msg
        self._bump()
        await self._dispatch_message("MESSAGE_CREATE", msg)
        return json_response(self._message_payload(msg))

    async def _get_message(self, request: web.Request) -> web.Response:
        channel = self._channel_or_404(request.match_info["cid"])
        return json_response(self._message_payload(self._message_or_404(channel, request.match_info["mid"])))

    async def _patch_message(self, request: web.Request) -> web.Response:
        channel = self._channel_or_404(request.match_info["cid"])
        msg = self._message_or_404(channel, request.match_info["mid"])
        payload, files = await self._read_body(request)
        if msg.author_id != self.bot.id:
            raise _ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._apply_content(msg, payload, files, creating=False)
        self._bump()
        await self._dispatch_message("MESSAGE_UPDATE", msg)
        return json_response(self._message_payload(msg))

    async def _delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel_or_404(request.match_info["cid"])
        msg = self._message_or_404(channel, request.match_info["mid"])
        msg.deleted = True
        return web.Response(status=204)

    async def _put_reaction(self, request: web.Request) -> web.Response:
        """The bot reacts to a message: recorded by message id, as the emoji (URL-decoded)."""
        channel = self._channel_or_404(request.match_info["cid"])
        msg = self._message_or_404(channel, request.match_info["mid"])
        self.reactions.setdefault(msg.id, []).append(request.match_info["emoji"])
        return web.Response(status=204)

    async def _typing(self, request: web.Request) -> web.Response:
        channel = self._channel_or_404(request.match_info["cid"])
        self.typing.append(channel.id)
        return web.Response(status=204)

    # ------------------------------------------------------------------ REST: interactions

    def _interaction_for(self, iid: str, token: str) -> InteractionRecord:
        rec = self._by_token.get(token)
        if rec is None or str(rec.id) != iid:
            raise _ApiError(404, 10062, "Unknown interaction")
        return rec

    def _webhook_interaction(self, app: str, token: str) -> InteractionRecord:
        rec = self._by_token.get(token)
        if app != str(self.application_id) or rec is None:
            raise _ApiError(404, 10015, "Unknown Webhook")
        return rec

    def _new_bot_message(self, rec: InteractionRecord, source: str, flags: int) -> StoredMessage:
        msg = StoredMessage(
            id=self._ids.next(),
            channel_id=rec.channel_id,
            guild_id=rec.guild_id,
            author_id=self.bot.id,
            content="",
            interaction_id=rec.id,
            source=source,
            flags=flags,
            message_type=20 if rec.kind == INTERACTION_COMMAND else 0,
        )
        return msg

    async def _interaction_callback(self, request: web.Request) -> web.Response:
        rec = self._interaction_for(request.match_info["iid"], request.match_info["token"])
        payload, files = await self._read_body(request)
        loop = asyncio.get_running_loop()
        after = loop.time() - rec.created
        cb_type = int(payload.get("type", 0))
        if after > self.interaction_deadline:
            rec.rejected.append(Rejection(404, 10062, after, f"callback type {cb_type} too late"))
            raise _ApiError(404, 10062, "Unknown interaction")
        if rec.callbacks:
            rec.rejected.append(Rejection(400, 40060, after, f"second callback type {cb_type}"))
            raise _ApiError(400, 40060, "Interaction has already been acknowledged.")
        data = payload.get("data") or {}
        flags = int(data.get("flags") or 0)
        message: StoredMessage | None = None
        if cb_type in (CB_DEFERRED_UPDATE_MESSAGE, CB_UPDATE_MESSAGE) and rec.kind != INTERACTION_COMPONENT:
            raise _ApiError(400, 50035, "Interaction callback type is not valid for this interaction")
        if cb_type == CB_CHANNEL_MESSAGE:
            message = self._new_bot_message(rec, "interaction", flags & FLAG_EPHEMERAL)
            self._apply_content(message, data, files, creating=True)
            self._check_not_empty(message, data)
            self.messages[message.id] = message
            rec.original_message_id = message.id
        elif cb_type == CB_DEFERRED_CHANNEL_MESSAGE:
            message = self._new_bot_message(rec, "interaction", (flags & FLAG_EPHEMERAL) | FLAG_LOADING)
            self.messages[message.id] = message
            rec.original_message_id = message.id
        elif cb_type == CB_DEFERRED_UPDATE_MESSAGE:
            pass
        elif cb_type == CB_UPDATE_MESSAGE:
            assert rec.message_id is not None
            message = self.messages[rec.message_id]
            self._apply_content(message, data, files, creating=False)
        elif cb_type in (1, 8, 9):
            pass  # pong, autocomplete, modal: recorded only
        else:
            raise _form_error("type", f"unknown interaction callback type {cb_type}")
        rec.callbacks.append(CallbackRecord(cb_type, flags, after, message.id if message else None))
        self._bump()
        if message is not None and cb_type == CB_CHANNEL_MESSAGE:
            await self._dispatch_message("MESSAGE_CREATE", message)
        elif message is not None and cb_type == CB_UPDATE_MESSAGE:
            await self._dispatch_message("MESSAGE_UPDATE", message)
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        resource: dict[str, Any] = {"type": cb_type}
        if message is not None:
            resource["message"] = self._message_payload(message)
        return json_response(
            {
                "interaction": {
                    "id": str(rec.id),
                    "type": rec.kind,
                    "response_message_id": str(message.id) if message else None,
                    "response_message_loading": cb_type == CB_DEFERRED_CHANNEL_MESSAGE,
                    "response_message_ephemeral": bool(flags & FLAG_EPHEMERAL),
                },
                "resource": resource,
            }
        )

    def _original_target(self, rec: InteractionRecord) -> StoredMessage:
        """@original: the response message (types 4/5) or, for a component interaction answered
        with 6/7, the message the button is on."""
        if rec.original_message_id is not None:
            return self.messages[rec.original_message_id]
        if rec.kind == INTERACTION_COMPONENT and rec.callbacks and rec.message_id is not None:
            return self.messages[rec.message_id]
        raise _ApiError(404, 10008, "Unknown Message")

    def _webhook_target(self, rec: InteractionRecord, mid: str) -> StoredMessage:
        if mid == "@original":
            msg = self._original_target(rec)
        else:
            try:
                msg = self.messages[int(mid)]
            except (KeyError, ValueError):
                raise _ApiError(404, 10008, "Unknown Message") from None
            if msg.id not in rec.followup_ids and msg.id != rec.original_message_id:
                raise _ApiError(404, 10008, "Unknown Message")
        if msg.deleted:
            raise _ApiError(404, 10008, "Unknown Message")
        return msg

    async def _followup_post(self, request: web.Request) -> web.Response:
        rec = self._webhook_interaction(request.match_info["app"], request.match_info["token"])
        payload, files = await self._read_body(request)
        if not rec.callbacks:
            raise _ApiError(404, 10015, "Unknown Webhook")
        flags = int(payload.get("flags") or 0)
        placeholder = self.messages.get(rec.original_message_id) if rec.original_message_id else None
        if placeholder is not None and placeholder.loading:
            # Discord: the first followup after a "thinking" defer replaces the loading message,
            # keeping the defer's ephemerality.
            msg = placeholder
            msg.flags &= ~FLAG_LOADING
            self._apply_content(msg, payload, files, creating=True)
            self._check_not_empty(msg, payload)
        else:
            msg = self._new_bot_message(rec, "followup", flags & FLAG_EPHEMERAL)
            self._apply_content(msg, payload, files, creating=True)
            self._check_not_empty(msg, payload)
            self.messages[msg.id] = msg
            rec.followup_ids.append(msg.id)
        self._bump()
        await self._dispatch_message("MESSAGE_CREATE", msg)
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(self._message_payload(msg))
        return web.Response(status=204)

    async def _webhook_get(self, request: web.Request) -> web.Response:
        rec = self._webhook_interaction(request.match_info["app"], request.match_info["token"])
        return json_response(self._message_payload(self._webhook_target(rec, request.match_info["mid"])))

    async def _webhook_patch(self, request: web.Request) -> web.Response:
        rec = self._webhook_interaction(request.match_info["app"], request.match_info["token"])
        msg = self._webhook_target(rec, request.match_info["mid"])
        payload, files = await self._read_body(request)
        was_loading = msg.loading
        msg.flags &= ~FLAG_LOADING
        self._apply_content(msg, payload, files, creating=was_loading)
        self._bump()
        await self._dispatch_message("MESSAGE_CREATE" if was_loading else "MESSAGE_UPDATE", msg)
        return json_response(self._message_payload(msg))

    async def _webhook_delete(self, request: web.Request) -> web.Response:
        rec = self._webhook_interaction(request.match_info["app"], request.match_info["token"])
        msg = self._webhook_target(rec, request.match_info["mid"])
        msg.deleted = True
        return web.Response(status=204)

    # ------------------------------------------------------------------ REST: application commands

    def _check_app(self, request: web.Request) -> None:
        if request.match_info["app"] != str(self.application_id):
            raise _ApiError(403, 50001, "Missing Access")

    def _store_commands(self, body: Any, guild_id: int | None) -> list[dict[str, Any]]:
        if not isinstance(body, list):
            raise _form_error("commands", "must be a list")
        if len(body) > 100:
            raise _form_error("commands", "at most 100 commands")
        stored = []
        names: set[str] = set()
        for index, cmd in enumerate(body):
            name = cmd.get("name", "")
            if not _COMMAND_NAME.match(name) or name != name.lower():
                raise _form_error(str(index), f"invalid command name {name!r}")
            if name in names:
                raise _form_error(str(index), f"duplicate command name {name!r}")
            names.add(name)
            desc = cmd.get("description", "")
            if int(cmd.get("type", 1)) == 1 and not 1 <= len(desc) <= 100:
                raise _form_error(str(index), "description must be 1 to 100 characters")
            seen_optional = False
            for opt in cmd.get("options", []) or []:
                oname = opt.get("name", "")
                if not _COMMAND_NAME.match(oname) or not 1 <= len(opt.get("description", "")) <= 100:
                    raise _form_error(str(index), f"invalid option {oname!r}")
                if opt.get("required"):
                    if seen_optional:
                        raise _form_error(str(index), "required options must come first")
                else:
                    seen_optional = True
            key = (guild_id, name)
            if key not in self._command_ids:
                self._command_ids[key] = self._ids.next()
            out = {
                **cmd,
                "id": str(self._command_ids[key]),
                "application_id": str(self.application_id),
                "version": str(self._ids.next()),
                "type": int(cmd.get("type", 1)),
                "options": cmd.get("options", []) or [],
                "default_member_permissions": cmd.get("default_member_permissions"),
                "nsfw": bool(cmd.get("nsfw", False)),
            }
            if guild_id is not None:
                out["guild_id"] = str(guild_id)
            stored.append(out)
        return stored

    async def _put_global_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        self.commands = self._store_commands(await request.json(), None)
        return json_response(self.commands)

    async def _get_global_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        return json_response(self.commands)

    async def _put_guild_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        gid = int(request.match_info["gid"])
        if gid not in self.guilds:
            raise _ApiError(403, 50001, "Missing Access")
        self.guild_commands[gid] = self._store_commands(await request.json(), gid)
        return json_response(self.guild_commands[gid])

    async def _get_guild_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        return json_response(self.guild_commands.get(int(request.match_info["gid"]), []))


@contextlib.contextmanager
def redirect_discord(server: DiscordStandIn) -> Iterator[None]:
    """Point discord.py's REST base and gateway address at `server`, restoring them afterwards.
    Tests only: product code never touches these."""
    import discord.gateway
    import discord.http
    import yarl

    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = server.base_url
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(server.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
