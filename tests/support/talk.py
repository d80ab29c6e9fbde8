"""A person talking to the core as an adapter would (no tests here): say a line, press a button by
its label, settle a change the way a person does, and read every line that came back.

Why a helper: the conversation suites say many things in people's words, and each test should
read as the conversation it is, not as the plumbing of Incoming and ButtonPress values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import count

from bot.events import ButtonPress, Incoming, Outgoing

PLATFORM = "console"
_ids = count(1)


@dataclass
class Talk:
    """One person in their private chat with the bot."""

    core: object  # bot.core.core.Core
    user: str = "u1"
    chat: str | None = None
    group: bool = False
    seen: list[Outgoing] = field(default_factory=list)

    async def send(self, text: str) -> list[Outgoing]:
        message = Incoming(
            platform=PLATFORM, chat_id=self.chat or self.user, user_id=self.user, text=text,
            display_name=self.user, is_group=self.group, addressed_to_bot=True, message_id=f"m{next(_ids)}",
        )
        outs = await self.core.handle_message(message)  # type: ignore[attr-defined]
        self.seen.extend(outs)
        return outs

    async def say(self, text: str) -> Outgoing:
        """Say one line and get the one reply it gets."""
        outs = await self.send(text)
        assert len(outs) == 1, [o.text for o in outs]
        return outs[0]

    async def press(self, out: Outgoing, label_start: str, message_id: str | None = None) -> list[Outgoing]:
        token = button_token(out, label_start)
        outs = await self.core.handle_press(  # type: ignore[attr-defined]
            ButtonPress(platform=PLATFORM, chat_id=self.chat or self.user, user_id=self.user, token=token,
                        message_id=message_id or f"q{next(_ids)}")
        )
        self.seen.extend(outs)
        return outs

    async def change(self, old: str, new: str, between: tuple[str, ...] = ()) -> str:
        """Save `old`, then the facts `between`, then `new`, and settle that `new` replaces `old`
        as a person would: "Mark older as past" when the bot asks, else /update of the old
        fact's number (the manual way). Returns how it was settled ("asked" or "updated")."""
        saved = await self.say(f"remember: {old}")
        assert saved.text.startswith("Saved:"), saved.text
        for fact in between:
            await self.say(f"remember: {fact}")
        reply = await self.say(f"remember: {new}")
        if any(b.label.startswith("Mark older as past") for b in reply.all_buttons):
            done = await self.press(reply, "Mark older as past")
            assert done and "is now past" in done[0].text, [o.text for o in done]
            return "asked"
        # not asked (the rules did not see a change): undo the separate save, then /update
        assert reply.text.startswith("Saved:") or reply.text.startswith("I already know"), reply.text
        if reply.text.startswith("Saved:"):
            await self.say("/undo")
        listing = await self.say("/memories current")
        number = number_of(listing.text, old)
        updated = await self.say(f"/update {number} {new}")
        assert "past" in updated.text.lower() or "updated" in updated.text.lower(), updated.text
        return "updated"


def button_token(out: Outgoing, label_start: str) -> str:
    for b in out.all_buttons:
        if b.label.startswith(label_start):
            return b.token
    raise AssertionError(f"no button {label_start!r} in {[b.label for b in out.all_buttons]}")


def labels(out: Outgoing) -> list[str]:
    return [b.label for b in out.all_buttons]


def number_of(listing: str, text: str) -> int:
    """The number a list shows in front of `text`."""
    for line in listing.splitlines():
        m = re.match(r"(\d+)\. (.*)$", line)
        if m and m.group(2).startswith(text):
            return int(m.group(1))
    raise AssertionError(f"{text!r} is not in the list:\n{listing}")


def bullet_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("• ")]


def lines_with(text: str, value: str) -> list[str]:
    """The answer lines (bullets) that mention `value`, case-insensitively."""
    return [line for line in bullet_lines(text) if value.casefold() in line.casefold()]


def shown_as_current(text: str, value: str) -> list[str]:
    """Lines that show `value` without a label saying it is not current: every line that shows
    an old or doubtful fact must say so on that same line."""
    return [line for line in lines_with(text, value) if not line.rstrip().endswith(("(before)", "(possibly outdated)"))]
