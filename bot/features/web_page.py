"""/web: the memory page's one-time login link, in a private chat.

Why only in a private chat: the link logs whoever opens it in to the person's memory; in a group
everyone would see it. Why link previews are off: a preview is a fetch of the link by the
platform; the page behind it only shows a Continue button (a fetch uses nothing up), but the
preview would still put the address in front of the chat's other readers on some clients.
"""

from __future__ import annotations

from bot.config import Settings
from bot.core import commands as c
from bot.core.core import Core
from bot.core.replies import reply
from bot.core.turn import Turn
from bot.core.web_login import WebLogins, page_configured
from bot.events import Incoming, Outgoing

PRIVATE_ONLY = (
    "The memory page's login link is sent only in a private chat with me: anyone who saw it here could "
    "open your memory. Send /web to me privately."
)
NOT_CONFIGURED = (
    "The memory page is not turned on here: this assistant runs without a web server. Whoever runs it "
    "can turn it on by setting WEB_PORT (and WEB_PUBLIC_URL, the address your browser reaches, e.g. "
    "https://memory.example.com) and restarting; then /web sends you a login link."
)
TOO_MANY = (
    "You asked for several login links in the last few minutes; the newest one still works for "
    "10 minutes. Try again in a few minutes if you need another."
)


def link_text(url: str, minutes: int) -> str:
    return (
        f"Your memory page: {url}\n\n"
        f"This link works once, for the next {minutes} minutes, and only for you: open it and press "
        "Continue. Don't forward it. Log out on the page when you are done on a shared computer."
    )


class WebCommand:
    def __init__(self, logins: WebLogins, settings: Settings) -> None:
        self.logins = logins
        self.settings = settings

    async def on_web(self, core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
        if turn.is_group:
            return [reply(turn, PRIVATE_ONLY)]
        if not page_configured(self.settings):
            return [reply(turn, NOT_CONFIGURED)]
        link = await self.logins.link(turn.platform, turn.user_id)
        if link is None:
            return [reply(turn, TOO_MANY)]
        page = self.settings.web_public_url
        mini_app = f"{page}/app" if turn.platform == "telegram" and page.startswith("https://") else ""
        return [reply(turn, link_text(link.url, link.minutes), no_preview=True, web_app_url=mini_app)]
