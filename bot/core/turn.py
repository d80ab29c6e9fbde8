"""Who is talking, where, and how their platform shows things: the context every handler gets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from bot.events import ChatRef, Incoming


@dataclass(frozen=True)
class Paging:
    """How a platform pages long lists: at most `items` per page and `chars` of text, so that a
    page is always one message (Next/Previous edit that one message)."""

    items: int
    chars: int


# The terminal is not paged; the others page within their message length limits.
PAGING: dict[str, Paging | None] = {
    "console": None,
    "telegram": Paging(items=10, chars=3800),
    "discord": Paging(items=10, chars=1800),
}
DEFAULT_PAGING = Paging(items=10, chars=1800)


@dataclass
class Turn:
    """Who is talking, where, and how their platform shows things."""

    owner_id: int
    platform: str
    chat: ChatRef
    is_group: bool
    user_id: str
    display_name: str = ""
    message_id: str | None = None

    @property
    def paging(self) -> Paging | None:
        return PAGING.get(self.platform, DEFAULT_PAGING)


def storable_text(text: str) -> str:
    """Text that both databases can store and every platform can send: without NUL (PostgreSQL
    refuses it in text) and without lone surrogates (not encodable as UTF-8; a JSON update can
    carry one as an escape)."""
    text = text.replace("\x00", "")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def storable(message: Incoming) -> Incoming:
    text, name = storable_text(message.text), storable_text(message.display_name)
    if text == message.text and name == message.display_name:
        return message
    return dataclasses.replace(message, text=text, display_name=name)
