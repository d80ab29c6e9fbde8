"""A backup file sent without words is offered for import, with buttons.

On Discord there are no captions, and on Telegram few people type one: people drop the file /export gave them into the private
chat expecting the bot to know what to do. The file is read as a backup (nothing written); when
it is one, the person is asked "Import it?" with Import it (recommended) and Don't import. The
bytes wait in memory for 15 minutes (a restart forgets them: the person is asked to send the
file again); importing goes through /import's own path, rate limit and summary included.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.core import commands as c
from bot.core.buttons import ButtonSpec, Claim
from bot.core.core import Core
from bot.core.replies import reply
from bot.core.turn import Turn
from bot.events import ButtonPress, Incoming, Outgoing
from bot.features.memory_commands import ImportCommand
from bot.memory import ImportProblem

PRESS_ACTION = "import_offer"
KEEP_SECONDS = 15 * 60
NOT_A_BACKUP = ("That file isn't a backup I made, so I did nothing with it. I read text, and the "
                "backup files /export gives you.")
IN_A_GROUP = ("I didn't look at that file: backups belong in a private chat with me, where nobody "
              "else can open them.")
GONE = "That file is no longer with me (I keep it 15 minutes, not across a restart). Please send it again."


class ImportOffer:
    """The offer and its two buttons; one file waiting per person."""

    def __init__(self, importer: ImportCommand, clock: Callable[[], float] = time.monotonic) -> None:
        self.importer = importer
        self.clock = clock
        self._waiting: dict[int, tuple[bytes, float]] = {}

    async def on_file(self, core: Core, turn: Turn, intent: c.FileOnly, msg: Incoming) -> list[Outgoing]:
        if turn.is_group:
            return [Outgoing(IN_A_GROUP)]
        data = next((a.data for a in msg.attachments if a.data), b"")
        try:
            count = await core.memory.backup_size(data)
        except ImportProblem:
            return [reply(turn, NOT_A_BACKUP)]
        self._waiting[turn.owner_id] = (data, self.clock())
        buttons = await core.buttons.issue(turn.owner_id, [[
            ButtonSpec("Import it", PRESS_ACTION, {"op": "import"}, style="primary",
                       detail="Import the backup you just sent"),
            ButtonSpec("Don't import", PRESS_ACTION, {"op": "drop"}, detail="Don't import the backup you just sent"),
        ]])
        what = f"{count} memor{'y' if count == 1 else 'ies'}"
        return [reply(turn, f"That file is a backup of {what}. Import it? What you changed after the backup "
                            "is kept, and nothing happens until you choose.", buttons=buttons)]

    async def on_press(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        waiting = self._waiting.pop(turn.owner_id, None)
        fresh = waiting is not None and self.clock() - waiting[1] < KEEP_SECONDS
        if claim.payload.get("op") != "import":
            return [Outgoing("Not imported; I've let go of that file.", edit_of=press.message_id)]
        if not fresh or waiting is None:
            return [Outgoing(GONE, edit_of=press.message_id)]
        summary = await self.importer.run(core, turn, waiting[0])
        return [Outgoing(summary, edit_of=press.message_id)]
