"""First contact: what /start says, and its two buttons (How memory works, Set my time zone).

Why not the /help text: a person who just pressed Start needs to know who is talking, what to
try and what works here (a model or not, which time zone reminders use), in a few lines that read
well on a phone; the command reference stays in /help.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.core import commands as c
from bot.core.buttons import ButtonSpec, Claim
from bot.core.core import Core
from bot.core.replies import reply
from bot.core.turn import Turn
from bot.events import ButtonPress, Incoming, Outgoing

HOW_ACTION = "how_memory"
ZONE_ACTION = "start_zone"

HOW_MEMORY_WORKS = """How my memory works:
• I save what you ask me to (remember: …), and with a model I may note a fact from our chat; I tell you each time, with Undo.
• When something new may replace what I know (you moved, changed jobs), I ask before changing anything. Old facts are kept as history, not overwritten.
• /memories shows everything with numbers; /forget, /edit and /undo change it.
• Your memories are yours: I never show them in a group, and /export or /forget_me take everything with you or delete it."""

ZoneAsk = Callable[[Core, Turn, str], Awaitable[Outgoing]]


def greeting(name: str, *, model: bool, timezone: str) -> str:
    """The /start message: who I am, two things to try, what works here."""
    hello = f"Hi {name.strip()}!" if name.strip() else "Hi!"
    model_line = (
        "A language model is connected, so you can also just chat and ask me things."
        if model
        else "No language model is connected: I save, find and remind, and answer from what I remember."
    )
    return "\n".join([
        f"{hello} I'm your assistant with a memory you can trust: I remember what you tell me "
        "and ask before anything changes.",
        "",
        "Try:",
        "remember: my sister's birthday is 3 May",
        "remind me tomorrow at 9 to call mom",
        "",
        model_line,
        f"Reminders use your time zone: {timezone}.",
        "/help lists everything I can do.",
    ])


class Welcome:
    """/start and its buttons. `model` says whether a language model is connected now;
    `ask_zone` offers likely zones as buttons and takes a typed city (the offer a first reminder
    makes), which the Set my time zone button opens."""

    def __init__(self, model: Callable[[], bool], ask_zone: ZoneAsk) -> None:
        self.model = model
        self.ask_zone = ask_zone

    async def on_start(self, core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
        tz = await core.memory.timezone_of(turn.owner_id)
        text = greeting(turn.display_name, model=self.model(), timezone=tz)
        buttons = await core.buttons.issue(turn.owner_id, [[
            ButtonSpec("How memory works", HOW_ACTION, single_use=False, alone=True),
            ButtonSpec("Set my time zone", ZONE_ACTION, single_use=False, alone=True),
        ]])
        return [reply(turn, text, buttons=buttons)]

    async def on_how(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        return [reply(turn, HOW_MEMORY_WORKS)]

    async def on_zone(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        return [await self.ask_zone(core, turn, "")]
