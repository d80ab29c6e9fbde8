"""Issue 20 (part A) on the wire: the real TelegramAdapter and core against the Telegram stand-in,
as people use the bot on a phone: saving in every natural form, Markdown that renders, a slow
model, first contact, and the smaller points. Every assertion reads what the stand-in received
(texts, entities, buttons, edits, menus) and what the database holds.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.adapters.test_telegram_e2e import Running, bot, database_url  # noqa: F401
from tests.support.telegram_helpers import ALICE, BOT_USERNAME, GROUP, tg  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")


def labels(msg: Any) -> list[list[str]]:
    return [[label for label, _ in row] for row in msg.buttons]


# ---------------------------------------------------------------------------- saving (item 3)


async def test_saving_in_every_natural_form_each_with_undo(bot: Running) -> None:  # noqa: F811
    [rome] = await bot.say(ALICE, ALICE, "/remember I live in Rome")
    assert rome.body == "Saved: “I live in Rome”" and labels(rome) == [["Undo"]]
    [tea] = await bot.say(ALICE, ALICE, "/save I like tea")
    assert tea.body == "Saved: “I like tea”" and labels(tea) == [["Undo"]]
    [dog] = await bot.say(ALICE, ALICE, "Remember I have a dog")
    assert dog.body == "Saved: “I have a dog”" and labels(dog) == [["Undo"]]
    assert await bot.say1(ALICE, ALICE, "/remember") == (
        "What should I remember? Use /remember <fact>, e.g. /remember I live in Rome."
    )

    # in a group, a mention anywhere addresses the bot; the confirmation goes to the DM
    [green] = await bot.say(
        GROUP, ALICE, f"hey @{BOT_USERNAME}, remember: my bike is blue", answer_in=ALICE
    )
    assert green.body == "Saved: “my bike is blue”"
    assert bot.tg.sent(GROUP) == []  # nothing about Alice's memory in the group

    owner = await bot.owner(ALICE)
    assert bot.memories(owner) == {
        "I live in Rome": ("current", False),
        "I like tea": ("current", False),
        "I have a dog": ("current", False),
        "my bike is blue": ("current", False),
    }

    # the Undo on the confirmation takes that save back
    answer = await bot.press(ALICE, ALICE, dog, "Undo")
    assert answer["text"] == "Undone."
    live = {t for t, (_, deleted) in bot.memories(owner).items() if not deleted}
    assert live == {"I live in Rome", "I like tea", "my bike is blue"}
    await bot.tg.wait_for(lambda: dog.edit_count > 0, what="the confirmation edited")
    assert dog.buttons == [] and "I have a dog" in dog.body, dog.body  # nothing left to press

    # /remember is in the command menu people pick from
    assert "remember" in [c["command"] for c in bot.tg.default_commands]
