"""Discord adapter: translates discord.py events to the adapter contract and back.

Thin on purpose: it decides only what Discord-specific rules force on it, and everything about
meaning lives in the core.

- Who is addressed. DMs always; in guild channels only a mention of the bot or a reply to one of
  its messages. Anything else never reaches the core and is not logged (privacy rule).
- Interactions must be answered within 3 seconds and only once. Slash commands are deferred at
  once (ephemeral in guilds, so memory answers never show to the channel) and answered by
  editing the deferred response / follow-ups. Button presses are answered directly when the
  core is quick and deferred first when it is slow.
- Buttons carry only a token in their custom_id (``mb:<token>``) and are rendered through a
  ``discord.ui.DynamicItem`` template registered in ``setup_hook``: that is the one mechanism by
  which a button sent before a restart is still dispatched after it (a plain View dies with the
  process and its clicks go unanswered without a log line).
- 2,000 characters per message, 5 buttons per row, 5 rows.

The module is ``adapters.discord`` and imports the library as the absolute ``discord``; the
``adapters`` directory must never be put on sys.path, or this file would shadow the library.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import re
from dataclasses import replace
from typing import Any, Awaitable, Callable, Sequence

import discord
from discord import app_commands

from bot.config import Settings
from bot.events import Attachment, Button, ButtonPress, ChatRef, Core, Incoming, Outgoing
from bot.core.menu import COMMAND_MENU
from adapters.textsplit import split_message
from adapters.waiting import WaitingAnswers

log = logging.getLogger(__name__)

PLATFORM = "discord"
MESSAGE_LIMIT = 2000
BUTTON_PREFIX = "mb:"
CUSTOM_ID_LIMIT = 100
LABEL_LIMIT = 80
BUTTONS_PER_ROW = 5
MAX_ROWS = 5
# the recommended answer blue, what deletes for good red, the rest grey
STYLES = {"primary": discord.ButtonStyle.primary, "danger": discord.ButtonStyle.danger}

SORRY = "Sorry, something went wrong on my side. Please try again."
ANSWERED_PRIVATELY = "👌"  # the reaction that tells a channel its member was answered by DM
# Discord has no deep link that carries a code: the answer waits (adapters/waiting.py) and the
# person's next direct message to the bot delivers it, so the pointer never says "ask again"
DMS_CLOSED = (
    "I have an answer that only you should see, and I can't send you a direct message. Allow "
    "direct messages from members of this server (in the server's Privacy Settings), then send "
    "me a direct message, and it will be there."
)


# slash commands with typed options (the rest take free text): a number from the list, a number
# and words, a choice, a file, or required words under the name given here
SLASH_SHAPES = {
    "forget": "number", "history": "number", "past": "number", "restore": "number",
    "edit": "number_text", "update": "number_text",
    "memories": "which", "settings": "setting", "import": "file",
    "search": "words", "remind": "reminder", "timezone": "zone",
}
SLASH_TEXT_HINTS = {
    "search": "Words to look for in your memories",
    "remind": "When and what, e.g. tomorrow at 9 call mom",
    "timezone": "A city or zone, e.g. Rome or Europe/Paris",
}
MEMORY_LISTS = ("all", "current", "historical", "review", "archived")
SETTINGS = ("review", "judge", "notices", "recheck")



# An underscore between two word characters never formats in Discord ("forget_me"), so it is
# left as typed; escape_markdown would write "forget\\_me", which reads oddly when copied.
_WORD_UNDERSCORE = re.compile(r"(?<=[^\W_])\\_(?=[^\W_])")  # letters or digits on both sides


def discord_literal(text: str) -> str:
    """Text Discord shows exactly as written: every mark that would start formatting (bold,
    italics, code, spoilers, masked links, headings, quotes, lists) escaped, links left whole."""
    return _WORD_UNDERSCORE.sub("_", discord.utils.escape_markdown(text, as_needed=True))


class DiscordStartError(RuntimeError):
    """The adapter could not come up (bad token, intents refused, Discord unreachable)."""


def intents_for(settings: Settings) -> discord.Intents:
    """Only what the bot uses: guild metadata, guild and DM messages; MESSAGE_CONTENT is a
    privileged intent and is asked for only when the operator enabled it."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_messages = True
    intents.dm_messages = True
    intents.message_content = bool(settings.discord_message_content)
    return intents


def is_import_command(text: str) -> bool:
    return text.strip().split(maxsplit=1)[:1] == ["/import"]


def _human_size(size: int) -> str:
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    if size >= 1_000:
        return f"{size / 1_000:.0f} kB"
    return f"{size} bytes"


# ----------------------------------------------------------------------------------------------
# buttons
# ----------------------------------------------------------------------------------------------


class TokenButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mb:(?P<token>.{1,97})",
):
    """A button whose custom_id is ``mb:<token>``; what the token means lives in the database.
    discord.py rebuilds one from any clicked component matching the template, which is what
    makes buttons survive restarts."""

    def __init__(self, token: str, label: str = "\u2026", row: int | None = None, style: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=(label or "\u2026")[:LABEL_LIMIT],
                custom_id=f"{BUTTON_PREFIX}{token}",
                style=STYLES.get(style, discord.ButtonStyle.secondary),
            ),
            row=row,
        )
        self.token = token

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> TokenButton:
        return cls(match["token"], label=getattr(item, "label", None) or "\u2026")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        adapter = getattr(interaction.client, "adapter", None)
        if isinstance(adapter, DiscordAdapter):
            await adapter._on_press(interaction, self.token)


def build_view(rows: Sequence[Sequence[Button]]) -> discord.ui.View | None:
    """Rows of contract buttons -> a persistent view; a row longer than 5 wraps, and rows past
    the 5th are dropped with a warning (Discord refuses the whole message otherwise)."""
    layout: list[list[Button]] = []
    for row in rows:
        for start in range(0, len(row), BUTTONS_PER_ROW):
            layout.append(list(row[start : start + BUTTONS_PER_ROW]))
    if len(layout) > MAX_ROWS:
        dropped = sum(len(r) for r in layout[MAX_ROWS:])
        log.warning("Discord allows %d button rows; dropping %d button(s)", MAX_ROWS, dropped)
        layout = layout[:MAX_ROWS]
    view = discord.ui.View(timeout=None)
    for index, row in enumerate(layout):
        for button in row:
            if len(BUTTON_PREFIX) + len(button.token) > CUSTOM_ID_LIMIT or not button.token:
                log.error("button token of length %d does not fit a custom_id; dropped", len(button.token))
                continue
            view.add_item(TokenButton(button.token, button.label, row=index, style=button.style))
    return view if view.children else None


# ----------------------------------------------------------------------------------------------
# the client
# ----------------------------------------------------------------------------------------------


class _AdapterClient(discord.Client):
    """discord.Client that knows its adapter, so that dynamic buttons can find their way back."""

    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        super().__init__(**options)
        self.adapter = adapter
        self.tree = app_commands.CommandTree(self)
        self.tree.on_error = self._on_tree_error  # type: ignore[method-assign]

    async def setup_hook(self) -> None:
        await self.adapter._setup_hook(self)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        log.exception("Unhandled error in Discord event %s", event_method)

    async def _on_tree_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        log.error("Slash command failed: %s", error, exc_info=error)


# ----------------------------------------------------------------------------------------------
# the adapter
# ----------------------------------------------------------------------------------------------


class DiscordAdapter:
    """Runs a discord.py client for the core, and is the core's 'discord' Sender."""

    # Seconds on_ready waits after the last GUILD_CREATE (discord.py's guild_ready_timeout).
    guild_ready_timeout: float = 2.0
    # A press whose core answer takes longer than this is deferred first (limit is 3 s).
    press_defer_after: float = 1.5
    # How long start() waits for login + gateway READY.
    start_timeout: float = 60.0

    def __init__(self, core: Core, settings: Settings) -> None:
        self._core = core
        self._settings = settings
        self._client: _AdapterClient | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Event | None = None
        self._waiting = WaitingAnswers()
        self._waiting_code: dict[str, str] = {}  # user id -> the code their waiting answers are under

    # ------------------------------------------------------------------ lifecycle

    @property
    def client(self) -> discord.Client | None:
        return self._client

    async def start(self) -> None:
        if self._client is not None:
            raise RuntimeError("DiscordAdapter is already started")
        token = self._settings.discord_bot_token.strip()
        if not token:
            raise DiscordStartError("DISCORD_BOT_TOKEN is empty; cannot start the Discord adapter")
        self._ready = asyncio.Event()
        client = _AdapterClient(
            self,
            intents=intents_for(self._settings),
            allowed_mentions=discord.AllowedMentions.none(),  # memory text must never ping anyone
            guild_ready_timeout=self.guild_ready_timeout,
        )
        client.event(self._make_on_ready())
        client.event(self._make_on_message())
        self._client = client
        self._task = asyncio.create_task(client.start(token), name="discord-adapter")
        ready = asyncio.create_task(self._ready.wait())
        try:
            done, _ = await asyncio.wait(
                {self._task, ready}, timeout=self.start_timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            ready.cancel()
        if self._task in done:
            exc = self._task.exception()
            await self._teardown()
            raise DiscordStartError(self._explain(exc)) from exc
        if not done:
            await self._teardown()
            raise DiscordStartError(f"Discord did not become ready within {self.start_timeout:.0f} s")
        self._task.add_done_callback(self._client_stopped)
        self._core.outbox.register(PLATFORM, self)
        log.info("Discord adapter ready as %s", client.user)

    async def stop(self) -> None:
        if self._core.outbox.senders.get(PLATFORM) is self:
            self._core.outbox.unregister(PLATFORM)
        await self._teardown()

    async def _teardown(self) -> None:
        client, task = self._client, self._task
        self._client = self._task = None
        if client is not None and not client.is_closed():
            with contextlib.suppress(Exception):
                await client.close()
        if task is not None:
            if not task.done():
                task.cancel()
            with contextlib.suppress(BaseException):
                await task

    @staticmethod
    def _explain(exc: BaseException | None) -> str:
        if isinstance(exc, discord.LoginFailure):
            return "Discord rejected the bot token (DISCORD_BOT_TOKEN)"
        if isinstance(exc, discord.PrivilegedIntentsRequired):
            return (
                "Discord refused the MESSAGE_CONTENT intent: enable it for the bot in the developer "
                "portal or set DISCORD_MESSAGE_CONTENT=false"
            )
        return f"Discord client stopped during start-up: {exc!r}"

    def _client_stopped(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("Discord client stopped: %s", self._explain(exc), exc_info=exc)

    def _require_client(self) -> _AdapterClient:
        if self._client is None:
            raise RuntimeError("DiscordAdapter is not started")
        return self._client

    # ------------------------------------------------------------------ setup and events

    async def _setup_hook(self, client: _AdapterClient) -> None:
        client.add_dynamic_items(TokenButton)
        for name, description in COMMAND_MENU:
            client.tree.add_command(self._slash_command(name, description))
        try:
            await client.tree.sync()
        except discord.HTTPException:
            log.exception("Could not register the slash commands; typed commands still work")

    def _slash_command(self, name: str, description: str) -> app_commands.Command[Any, ..., None]:
        """A slash command with typed options where the command has a shape (a number from the
        list, a choice, a file); the rest take what follows the command as text. Each callback
        writes the options back as the typed command, so the core reads one grammar."""
        adapter = self
        shape = SLASH_SHAPES.get(name)
        callback: Callable[..., Awaitable[None]]
        if shape == "number":
            @app_commands.describe(number="The memory's number in your last list")
            async def by_number(interaction: discord.Interaction, number: app_commands.Range[int, 1, 100000]) -> None:
                await adapter._on_slash(interaction, name, str(number))
            callback = by_number
        elif shape == "number_text":
            @app_commands.describe(number="The memory's number in your last list", text="The new words")
            async def number_text(interaction: discord.Interaction, number: app_commands.Range[int, 1, 100000], text: str) -> None:
                await adapter._on_slash(interaction, name, f"{number} {text}")
            callback = number_text
        elif shape == "which":
            @app_commands.describe(which="Which memories (all, if not chosen)")
            @app_commands.choices(which=[app_commands.Choice(name=w, value=w) for w in MEMORY_LISTS])
            async def which(interaction: discord.Interaction, which: app_commands.Choice[str] | None = None) -> None:
                await adapter._on_slash(interaction, name, which.value if which else None)
            callback = which
        elif shape == "setting":
            @app_commands.describe(setting="The setting to change (all shown, if not chosen)", value="On or off")
            @app_commands.choices(setting=[app_commands.Choice(name=s, value=s) for s in SETTINGS],
                                  value=[app_commands.Choice(name=v, value=v) for v in ("on", "off")])
            async def setting(interaction: discord.Interaction, setting: app_commands.Choice[str] | None = None,
                              value: app_commands.Choice[str] | None = None) -> None:
                words = " ".join(c.value for c in (setting, value) if c is not None)
                await adapter._on_slash(interaction, name, words or None)
            callback = setting
        elif shape == "file":
            @app_commands.describe(file="The backup file (.json) that /export gave you")
            async def with_file(interaction: discord.Interaction, file: discord.Attachment) -> None:
                await adapter._on_slash(interaction, name, None, file)
            callback = with_file
        elif shape is not None:  # required text, named for what it is
            @app_commands.rename(text=shape)
            @app_commands.describe(text=SLASH_TEXT_HINTS.get(name, "What to do"))
            async def required_text(interaction: discord.Interaction, text: str) -> None:
                await adapter._on_slash(interaction, name, text)
            callback = required_text
        else:
            @app_commands.describe(text="Anything after the command, as you would type it")
            async def free_text(interaction: discord.Interaction, text: str | None = None) -> None:
                await adapter._on_slash(interaction, name, text)
            callback = free_text
        return app_commands.Command(name=name, description=description[:100], callback=callback)

    def _make_on_ready(self) -> Callable[[], Awaitable[None]]:
        async def on_ready() -> None:
            if self._ready is not None:
                self._ready.set()

        return on_ready

    def _make_on_message(self) -> Callable[[discord.Message], Awaitable[None]]:
        async def on_message(message: discord.Message) -> None:
            try:
                await self._on_message(message)
            except Exception:
                log.exception("Failed to handle a Discord message")

        return on_message

    # ------------------------------------------------------------------ typed messages

    async def _on_message(self, message: discord.Message) -> None:
        if message.author.bot or message.webhook_id is not None:
            return
        client = self._require_client()
        me = client.user
        assert me is not None
        is_dm = message.guild is None
        if is_dm:
            text = message.content.strip()
        else:
            if not await self._addressed(message, me.id):
                return  # never reaches the core, never logged
            text = self._strip_mention(message, me.id)
        attachments: tuple[Attachment, ...] = ()
        # with /import, or alone in a DM (no captions on Discord): the core offers it for import
        if message.attachments and (is_import_command(text) or (is_dm and not text)):
            found = await self._read_import(message)
            if found is None:
                return
            attachments = (found,)
        if is_dm:
            await self._deliver_waiting(message)
        if not text and not attachments:
            return
        incoming = Incoming(
            platform=PLATFORM,
            chat_id=str(message.channel.id),
            user_id=str(message.author.id),
            text=text,
            display_name=message.author.display_name,
            is_group=not is_dm,
            addressed_to_bot=True,
            message_id=str(message.id),
            attachments=attachments,
        )
        try:
            replies = await self._core.handle_message(incoming)
        except Exception:
            log.exception("Core failed on a Discord message")
            replies = [Outgoing(text=SORRY)]
        await self._reply_to_message(message, replies)

    def _keep_waiting(self, user_id: str, out: Outgoing) -> None:
        """Keep a private answer the DM refused until the person writes to the bot directly."""
        self._waiting_code[user_id] = self._waiting.keep(user_id, out, self._waiting_code.get(user_id))

    async def _deliver_waiting(self, message: discord.Message) -> None:
        """The person writes by DM: what waited for them comes first, once."""
        user_id = str(message.author.id)
        code = self._waiting_code.pop(user_id, None)
        outs = self._waiting.take(code, user_id) if code else None
        for out in outs or []:
            try:
                await self._send_chunks(message.channel, replace(out, edit_of=None, private=False))
            except discord.HTTPException:
                log.exception("Could not deliver a waiting answer on Discord")

    async def _addressed(self, message: discord.Message, my_id: int) -> bool:
        if any(user.id == my_id for user in message.mentions):
            return True
        guild = message.guild
        if guild is not None and guild.self_role is not None and guild.self_role in message.role_mentions:
            return True
        ref = message.reference
        if ref is None or ref.message_id is None:
            return False
        resolved = ref.resolved or ref.cached_message
        if isinstance(resolved, discord.DeletedReferencedMessage):
            return False
        if resolved is None:
            try:
                resolved = await message.channel.fetch_message(ref.message_id)
            except discord.HTTPException:
                return False
        return resolved.author.id == my_id

    @staticmethod
    def _strip_mention(message: discord.Message, my_id: int) -> str:
        text = re.sub(rf"\s*<@!?{my_id}>\s*", " ", message.content)
        guild = message.guild
        if guild is not None and guild.self_role is not None:
            text = re.sub(rf"\s*<@&{guild.self_role.id}>\s*", " ", text)
        return text.strip()

    async def _read_import(self, message: discord.Message) -> Attachment | None:
        """The backup sent with /import, or None after telling the person why not."""
        read = await self._read_attachment(message.attachments[0])
        if isinstance(read, str):
            await self._send_chunks(message.channel, Outgoing(text=read), reference=message)
            return None
        return read

    async def _read_attachment(self, item: discord.Attachment) -> Attachment | str:
        """The file, or the sentence that says why it was not taken (too big, not downloadable)."""
        limit = self._settings.discord_max_import_bytes
        too_big = (
            f"That file is too big to import ({_human_size(item.size)}; the limit is "
            f"{_human_size(limit)})."
        )
        if item.size > limit:
            return too_big
        try:
            data = await item.read()
        except discord.HTTPException:
            log.exception("Could not download an attachment for /import")
            return "I couldn't download that file. Please try again."
        if len(data) > limit:
            return too_big
        return Attachment(item.filename, data, item.content_type or "application/octet-stream")

    async def _reply_to_message(self, message: discord.Message, replies: Sequence[Outgoing]) -> None:
        in_guild = message.guild is not None
        reacted = pointed = False
        for out in replies:
            try:
                if out.edit_of:
                    await self._edit(message.channel, out.edit_of, out)
                elif out.private and in_guild:
                    try:
                        dm = await self._dm_channel(message.author.id)
                        await self._send_chunks(dm, out)
                        if not reacted:  # the channel sees that an answer went, and nothing of it
                            reacted = True
                            with contextlib.suppress(discord.HTTPException):
                                await message.add_reaction(ANSWERED_PRIVATELY)
                    except discord.Forbidden:
                        self._keep_waiting(str(message.author.id), out)
                        if not pointed:  # one pointer for all the answers that wait
                            pointed = True
                            await self._send_chunks(message.channel, Outgoing(text=DMS_CLOSED), reference=message)
                else:
                    await self._send_chunks(message.channel, out, reference=message if in_guild else None)
            except discord.HTTPException:
                log.exception("Could not deliver a reply on Discord")

    # ------------------------------------------------------------------ rendering

    @staticmethod
    def _text_of(out: Outgoing) -> str:
        """The visible text; a notice stands in for text where there is no presser to show it to.
        Only the model's answers (`out.markdown`) keep their Markdown; everything else is shown
        literally, so a memory like "[click](https://evil.example)" never becomes a masked link."""
        text = out.text if (out.text or out.file or out.buttons) else (out.notice or "")
        return text if out.markdown else discord_literal(text)

    @staticmethod
    def _file(out: Outgoing) -> discord.File | None:
        if out.file is None:
            return None
        return discord.File(io.BytesIO(out.file.data), filename=out.file.filename)

    async def _send_chunks(
        self,
        target: discord.abc.Messageable,
        out: Outgoing,
        *,
        reference: discord.Message | None = None,
    ) -> list[discord.Message]:
        """Send `out` as one or more messages of at most 2,000 characters; buttons and the file
        go with the last one so they sit under the whole text."""
        text = self._text_of(out)
        chunks = split_message(text, MESSAGE_LIMIT) if text else []
        view = build_view(out.buttons)
        file = self._file(out)
        if not chunks and (view is not None or file is not None):
            chunks = [""]
        sent: list[discord.Message] = []
        for index, chunk in enumerate(chunks):
            kwargs: dict[str, Any] = {}
            if index == len(chunks) - 1:
                if view is not None:
                    kwargs["view"] = view
                if file is not None:
                    kwargs["file"] = file
            if index == 0 and reference is not None:
                kwargs["reference"] = reference.to_reference(fail_if_not_exists=False)
            if out.no_preview:
                kwargs["suppress_embeds"] = True
            sent.append(await target.send(content=chunk or None, **kwargs))
        return sent

    async def _edit(self, target: discord.abc.Messageable, message_id: str, out: Outgoing) -> None:
        """Replace an earlier message's text and buttons (through the channel; for the message a
        button sits on, :meth:`_edit_pressed` goes through the interaction instead)."""
        partial = target.get_partial_message(int(message_id))  # type: ignore[attr-defined]
        chunks = split_message(self._text_of(out), MESSAGE_LIMIT) or [""]
        kwargs: dict[str, Any] = {"content": chunks[0] or None}
        if len(chunks) == 1:
            kwargs["view"] = build_view(out.buttons)
            file = self._file(out)
            if file is not None:
                kwargs["attachments"] = [file]
        else:
            kwargs["view"] = None
        await partial.edit(**kwargs)
        if len(chunks) > 1:
            rest = Outgoing(text="\n\n".join(chunks[1:]), buttons=out.buttons, file=out.file, markdown=True)  # already literal
            await self._send_chunks(target, rest)

    async def _dm_channel(self, user_id: int) -> discord.DMChannel:
        client = self._require_client()
        user = client.get_user(user_id)
        return await client.create_dm(user or discord.Object(id=user_id))

    def _messageable(self, chat_id: str) -> discord.abc.Messageable:
        client = self._require_client()
        channel = client.get_channel(int(chat_id))
        if isinstance(channel, discord.abc.Messageable):
            return channel
        return client.get_partial_messageable(int(chat_id))

    # ------------------------------------------------------------------ Sender (pushes)

    async def send(self, chat: ChatRef, message: Outgoing) -> str | None:
        """Push a message the core decided to send (reminder, conflict question ...) to
        channel `chat.chat_id`, or for private messages to the DM of `chat.user_id`. Returns the
        id of the (last) message sent, or None when only a pointer could be posted."""
        if message.private and chat.user_id:
            dm = await self._dm_channel(int(chat.user_id))
            if str(dm.id) == chat.chat_id or chat.chat_id == chat.user_id:
                return await self._push(dm, message)  # the DM itself: nowhere else to point
            try:
                return await self._push(dm, message)
            except discord.Forbidden:
                log.warning("DMs closed for a private push; posting a pointer in the chat instead")
                self._keep_waiting(chat.user_id, message)
                pointer = f"<@{chat.user_id}> {message.pointer or DMS_CLOSED}"
                await self._send_chunks(self._messageable(chat.chat_id), Outgoing(text=pointer))
                return None
        return await self._push(self._messageable(chat.chat_id), message)

    async def _push(self, target: discord.abc.Messageable, message: Outgoing) -> str | None:
        if message.edit_of:
            await self._edit(target, message.edit_of, message)
            return message.edit_of
        sent = await self._send_chunks(target, message)
        return str(sent[-1].id) if sent else None

    async def typing(self, chat: ChatRef) -> None:
        await self._messageable(chat.chat_id).typing()

    # ------------------------------------------------------------------ slash commands

    async def _on_slash(
        self, interaction: discord.Interaction[Any], name: str, text: str | None, file: discord.Attachment | None = None
    ) -> None:
        in_guild = interaction.guild_id is not None
        try:
            # First, inside the 3 seconds: "thinking", ephemeral in guilds.
            await interaction.response.defer(ephemeral=in_guild, thinking=True)
        except discord.HTTPException:
            log.warning("Could not acknowledge /%s in time", name)
            return
        attachments: tuple[Attachment, ...] = ()
        if file is not None:
            read = await self._read_attachment(file)
            if isinstance(read, str):  # too big, or not downloadable: said, nothing imported
                with contextlib.suppress(discord.HTTPException):
                    await interaction.edit_original_response(content=read)
                return
            attachments = (read,)
        incoming = Incoming(
            platform=PLATFORM,
            chat_id=str(interaction.channel_id),
            user_id=str(interaction.user.id),
            text=f"/{name} {text or ''}".strip(),
            display_name=interaction.user.display_name,
            is_group=in_guild,
            addressed_to_bot=True,
            message_id=None,
            via_slash_command=True,
            attachments=attachments,
            locale=str(interaction.locale.value) if interaction.locale else "",
        )
        try:
            replies = await self._core.handle_message(incoming)
        except Exception:
            log.exception("Core failed on /%s", name)
            replies = [Outgoing(text=SORRY)]
        used_original = False
        for out in replies:
            try:
                if out.edit_of:
                    await self._edit(self._messageable(str(interaction.channel_id)), out.edit_of, out)
                    continue
                used_original = await self._interaction_messages(
                    interaction, out, ephemeral=in_guild, use_original=not used_original
                ) or used_original
            except discord.HTTPException:
                log.exception("Could not answer /%s", name)
        if not used_original:
            with contextlib.suppress(discord.HTTPException):
                await interaction.delete_original_response()

    async def _interaction_messages(
        self,
        interaction: discord.Interaction[Any],
        out: Outgoing,
        *,
        ephemeral: bool,
        use_original: bool,
    ) -> bool:
        """Send `out` as interaction messages: the deferred original first (if still unused),
        then follow-ups. Returns True if the original was used."""
        text = self._text_of(out)
        chunks = split_message(text, MESSAGE_LIMIT) if text else []
        view = build_view(out.buttons)
        file = self._file(out)
        if not chunks and (view is not None or file is not None):
            chunks = [""]
        used = False
        for index, chunk in enumerate(chunks):
            last = index == len(chunks) - 1
            kwargs: dict[str, Any] = {}
            if last and view is not None:
                kwargs["view"] = view
            if use_original and not used:
                if last and file is not None:
                    kwargs["attachments"] = [file]
                await interaction.edit_original_response(content=chunk or None, **kwargs)
                used = True
            else:
                if last and file is not None:
                    kwargs["file"] = file
                if chunk:
                    kwargs["content"] = chunk
                await interaction.followup.send(ephemeral=ephemeral, wait=True, **kwargs)
        return used

    # ------------------------------------------------------------------ button presses

    async def _on_press(self, interaction: discord.Interaction[Any], token: str) -> None:
        press = ButtonPress(
            platform=PLATFORM,
            chat_id=str(interaction.channel_id),
            user_id=str(interaction.user.id),
            token=token,
            message_id=str(interaction.message.id) if interaction.message else None,
            display_name=interaction.user.display_name,
            is_group=interaction.guild_id is not None,
        )
        work = asyncio.create_task(self._core.handle_press(press))
        done, _ = await asyncio.wait({work}, timeout=self.press_defer_after)
        if not done:
            await self._ack(interaction)  # slow core: acknowledge now, edit when it answers
        try:
            replies = await work
        except Exception:
            log.exception("Core failed on a button press")
            replies = [Outgoing(notice=SORRY)]
        for out in replies:
            try:
                await self._answer_press(interaction, out)
            except discord.HTTPException:
                log.exception("Could not answer a button press")
        await self._ack(interaction)

    async def _ack(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.response.is_done():
            return
        try:
            await interaction.response.defer()  # type 6: acknowledged, message unchanged
        except discord.HTTPException:
            log.warning("Could not acknowledge a button press in time")

    async def _answer_press(self, interaction: discord.Interaction[Any], out: Outgoing) -> None:
        in_guild = interaction.guild_id is not None
        pressed = interaction.message
        visible = bool(out.text or out.file or out.buttons)
        edited_here = False
        if out.edit_of and pressed is not None and int(out.edit_of) == pressed.id:
            await self._edit_pressed(interaction, out)
            edited_here = True  # the message itself shows the outcome: no extra "Done." beside it
        elif out.edit_of:
            await self._ack(interaction)
            await self._edit(self._messageable(str(interaction.channel_id)), out.edit_of, out)
        elif visible:
            if (out.private and in_guild) or (pressed is not None and pressed.flags.ephemeral):
                await self._ephemeral(interaction, out)
            else:
                await self._ack(interaction)
                await self._send_chunks(self._messageable(str(interaction.channel_id)), out)
        if out.notice and not edited_here:
            await self._ephemeral(interaction, Outgoing(text=out.notice))

    async def _edit_pressed(self, interaction: discord.Interaction[Any], out: Outgoing) -> None:
        """Edit the message the button is on through the interaction: the only way that also
        works for ephemeral messages, and it doubles as the answer to the press."""
        chunks = split_message(self._text_of(out), MESSAGE_LIMIT) or [""]
        kwargs: dict[str, Any] = {"content": chunks[0] or None}
        if len(chunks) == 1:
            kwargs["view"] = build_view(out.buttons)
            file = self._file(out)
            if file is not None:
                kwargs["attachments"] = [file]
        else:
            kwargs["view"] = None
        if interaction.response.is_done():
            await interaction.edit_original_response(**kwargs)
        else:
            await interaction.response.edit_message(**kwargs)
        if len(chunks) > 1:
            rest = Outgoing(text="\n\n".join(chunks[1:]), buttons=out.buttons, file=out.file, markdown=True)  # already literal
            pressed = interaction.message
            if pressed is not None and pressed.flags.ephemeral:
                await self._ephemeral(interaction, rest)
            else:
                await self._send_chunks(self._messageable(str(interaction.channel_id)), rest)

    async def _ephemeral(self, interaction: discord.Interaction[Any], out: Outgoing) -> None:
        """Only the presser sees it: the interaction's answer if still open, else a follow-up."""
        text = self._text_of(out)
        chunks = split_message(text, MESSAGE_LIMIT) if text else []
        view = build_view(out.buttons)
        file = self._file(out)
        if not chunks and (view is not None or file is not None):
            chunks = [""]
        for index, chunk in enumerate(chunks):
            kwargs: dict[str, Any] = {}
            if index == len(chunks) - 1:
                if view is not None:
                    kwargs["view"] = view
                if file is not None:
                    kwargs["file"] = file
            if chunk:
                kwargs["content"] = chunk
            if not interaction.response.is_done():
                await interaction.response.send_message(ephemeral=True, **kwargs)
            else:
                await interaction.followup.send(ephemeral=True, wait=True, **kwargs)
