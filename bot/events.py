"""The adapter contract: the only types that cross between a platform adapter and the core.

Adapters translate platform updates into `Incoming` / `ButtonPress`, hand them to the core,
and render the `Outgoing` values they get back. They never touch the database or the model.
The core can also push messages that are not replies (a conflict found by background
extraction, a reminder): adapters register a `Sender` for their platform with the core's
`Outbox` and the core sends through it.

Everything here is a plain frozen value so that it can be logged, compared in tests and
passed between tasks without surprises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class ChatRef:
    """Where a message goes. `user_id` names the person a private message is for, so that an
    adapter can reach them directly (Telegram private chat, Discord DM) when the chat itself is
    a group."""

    platform: str
    chat_id: str
    user_id: str | None = None


@dataclass(frozen=True)
class Attachment:
    """A file travelling either way (an imported backup in, an export out)."""

    filename: str
    data: bytes
    content_type: str = "application/octet-stream"


@dataclass(frozen=True)
class Incoming:
    """A text message from a person. `addressed_to_bot` is always True in private chats; in
    groups the adapter sets it only for mentions, replies to the bot and /command@bot, and the
    core never stores or logs a group message that is not addressed to it."""

    platform: str
    chat_id: str
    user_id: str
    text: str
    display_name: str = ""
    is_group: bool = False
    addressed_to_bot: bool = True
    message_id: str | None = None
    attachments: tuple[Attachment, ...] = ()
    # True when the text arrived as a platform slash command (Discord app command), so that the
    # adapter answers ephemerally; the core treats it like typed text.
    via_slash_command: bool = False
    # the platform's language for the person ("en-US", "de"; Telegram's language_code, Discord's
    # locale), the only hint a bot gets of where someone lives; "" when not told
    locale: str = ""

    @property
    def chat(self) -> ChatRef:
        return ChatRef(self.platform, self.chat_id, self.user_id)


@dataclass(frozen=True)
class ButtonPress:
    """A press of a button the core sent. The token is all the core needs; what it means lives
    in the database, bound to its owner."""

    platform: str
    chat_id: str
    user_id: str
    token: str
    message_id: str | None = None
    display_name: str = ""
    is_group: bool = False

    @property
    def chat(self) -> ChatRef:
        return ChatRef(self.platform, self.chat_id, self.user_id)


@dataclass(frozen=True)
class Button:
    """A button as shown. `detail` names what it acts on ("Snooze “call mom” 10 min") for
    where the short label alone could be pressed for the wrong thing (the terminal shows it when
    it shows buttons again after a message arrived just as a number was typed); "" = the label
    says it all."""

    label: str
    token: str
    detail: str = ""
    # how the platform may colour it: "primary" (the recommended answer), "danger" (deletes,
    # cannot be taken back), "" (plain); Telegram has no colours, Discord does
    style: str = ""

    @property
    def described(self) -> str:
        return self.detail or self.label


@dataclass(frozen=True)
class Outgoing:
    """What the core says.

    - `buttons`: rows of buttons; platforms without buttons render them as numbered choices.
    - `file`: an attachment to send with the text (an export).
    - `private`: only the owner may see it; in a group the adapter sends it privately
      (Telegram direct message, Discord ephemeral or DM) or posts a pointer.
    - `edit_of`: the platform message id whose text and buttons this replaces (the answer to a
      button press edits the question).
    - `notice`: a short line for the presser only (Telegram callback answer, Discord ephemeral),
      used for refused or repeated presses; an Outgoing with only a notice sends no message.
    - `pointer`: for a private message to a group chat, what the group is told when the person
      cannot be reached privately (never the text itself); empty: the adapter's own words.
    - `no_preview`: the platform shows no preview of links in the text.
    - `markdown`: the text is the model's Markdown, to be shown formatted where the platform can
      (Telegram entities, Discord as it is, the terminal as plain text). False (the default):
      shown exactly as written, so memory text and quoted facts never turn into formatting.
    - `web_app_url`: Telegram shows a button opening this page as a Mini App (private chats only;
      other platforms have the link in the text).
    """

    text: str = ""
    buttons: tuple[tuple[Button, ...], ...] = ()
    file: Attachment | None = None
    private: bool = False
    edit_of: str | None = None
    notice: str | None = None
    pointer: str = ""
    no_preview: bool = False  # no link preview (a one-time login link must not be fetched for one)
    markdown: bool = False
    web_app_url: str = ""  # Telegram: a button under the text opening this https page as a Mini App

    @property
    def all_buttons(self) -> list[Button]:
        return [b for row in self.buttons for b in row]


@runtime_checkable
class Sender(Protocol):
    """What an adapter registers with the outbox so the core can push messages."""

    async def send(self, chat: ChatRef, message: Outgoing) -> str | None:
        """Deliver `message` to `chat`; return the platform message id (or None)."""

    async def typing(self, chat: ChatRef) -> None:
        """Show a typing / progress signal in `chat` (best effort)."""


class Core(Protocol):
    """The one way in and one way out of the assistant, as adapters see it."""

    outbox: "Outbox"

    async def handle_message(self, message: Incoming) -> list[Outgoing]: ...

    async def handle_press(self, press: ButtonPress) -> list[Outgoing]: ...


@dataclass
class Outbox:
    """Routes pushed messages to the adapter registered for their platform."""

    senders: dict[str, Sender] = field(default_factory=dict)

    def register(self, platform: str, sender: Sender) -> None:
        self.senders[platform] = sender

    def unregister(self, platform: str) -> None:
        self.senders.pop(platform, None)

    def has(self, platform: str) -> bool:
        return platform in self.senders

    async def send(self, chat: ChatRef, message: Outgoing) -> str | None:
        sender = self.senders.get(chat.platform)
        if sender is None:
            raise LookupError(f"no sender registered for platform {chat.platform!r}")
        return await sender.send(chat, message)

    async def typing(self, chat: ChatRef) -> None:
        sender = self.senders.get(chat.platform)
        if sender is not None:
            try:
                await sender.typing(chat)
            except Exception:  # a typing signal is decoration; never let it break a turn
                pass
