"""Issue 17, shown end to end on the wire: the real TelegramAdapter (python-telegram-bot, long
polling) and the real core against the Telegram stand-in. A tidy-up of one person's many
memories must not freeze the bot for the others; an imported backup must not make the bot post
to other people; a reminder set in a group is delivered privately.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta

import pytest
from sqlalchemy import insert

from bench.latency import make_facts, spread_dates
from bot.storage.models import Memory
from tests.adapters.test_telegram_e2e import Running, bot, database_url  # noqa: F401  (fixtures)
from tests.support.telegram_helpers import ALICE, BOB, CAROL, GROUP, tg  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")


class Heartbeat:
    """A task that wakes every 5 ms and records the longest gap: how long the loop froze."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> "Heartbeat":
        self._task = asyncio.create_task(self._beat())
        await asyncio.sleep(0.02)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()

    async def _beat(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last - 0.005)
            last = now


def load_memories(bot: Running, owner: int, n: int) -> int:
    """`n` realistic memories for one person written straight into the table (as an import
    would), every 20th restated, so that the tidy-up has real work; returns the restatements."""
    texts = make_facts(n, 17)
    dates = spread_dates(n, 17)
    rows = []
    for i, (text, when) in enumerate(zip(texts, dates)):
        rows.append(dict(owner_id=owner, uid=f"m{i}", text=text, created_at=when, updated_at=when))
        if i % 20 == 0:
            later = when + timedelta(hours=1)
            rows.append(dict(owner_id=owner, uid=f"r{i}", text=text.rstrip(".") + "!", created_at=later,
                             updated_at=later))
    with bot.app.db.session() as s:
        s.execute(insert(Memory), rows)
    return len(rows) - n


async def test_a_tidy_up_of_thousands_of_memories_never_freezes_the_bot_for_others(bot: Running) -> None:
    """Finding 2: the curator ran its all-pairs decisions on the event loop (6 s at 1,000
    memories, 24.5 s at 2,000); another person's /help waited 16.5 s and polling, replies and
    reminders stopped meanwhile."""
    await bot.say(ALICE, ALICE, "/start")
    alice = await bot.owner(ALICE)
    assert alice is not None
    restated = load_memories(bot, alice, 3000)
    await bot.say(CAROL, CAROL, "/start")  # Carol is known already: her /help below is the probe

    async with Heartbeat() as beat:
        started = time.perf_counter()
        tidy = asyncio.create_task(bot.app.curator.tidy_busy_owners())
        await asyncio.sleep(0.05)
        before = len(bot.tg.sent(CAROL))
        asked = time.perf_counter()
        bot.tg.inject_text(CAROL, CAROL, "/help")
        await bot.tg.wait_for_sent(CAROL, before + 1, timeout=30)
        answered = time.perf_counter() - asked
        reports = await asyncio.wait_for(tidy, 120)
        took = time.perf_counter() - started
    [report] = reports
    assert report.owner_id == alice and len(report.merged) >= restated  # the real work was done
    assert "/help" in bot.tg.sent(CAROL)[-1].body or "remember" in bot.tg.sent(CAROL)[-1].body
    assert answered < 2.0, f"Carol's /help waited {answered:.1f} s during the tidy-up ({took:.1f} s)"
    # generous: a full garbage collection of the test process's own heap, or another process on
    # this 2-core machine, can pause it for a few hundred ms; the curator froze it for minutes
    assert beat.longest < 1.0, f"the event loop froze for {beat.longest * 1000:.0f} ms"


async def deliver_now(bot: Running, text_like: str) -> None:
    """Make the reminder whose text contains `text_like` due now and run the delivery sweep."""
    from sqlalchemy import text as sql

    with bot.app.db.session() as s:
        s.execute(sql("UPDATE reminder SET due_at = :t WHERE text LIKE :w"),
                  {"t": bot.app.clock() - timedelta(seconds=1), "w": f"%{text_like}%"})
    assert await bot.app.delivery.sweep() == 1


async def states(bot: Running, n: int) -> list[str]:
    """The reminders' states once none is being delivered any more."""
    for _ in range(200):
        got = [state for (state,) in bot.rows("SELECT state FROM reminder ORDER BY id")]
        if len(got) == n and "delivering" not in got:
            return got
        await asyncio.sleep(0.02)
    return got


async def test_a_reminder_set_in_a_group_is_delivered_privately(bot: Running) -> None:
    """Finding 6: a group /remind was confirmed in private and then delivered to the group:
    "⏰ Reminder: take my antidepressants" for everyone to read."""
    await bot.say(CAROL, CAROL, "/start")
    before_group = len(bot.tg.sent(GROUP))
    [confirmed] = await bot.say(GROUP, CAROL, "/remind in 10 minutes take my antidepressants", answer_in=CAROL)
    assert "take my antidepressants" in confirmed.body
    before_dm = len(bot.tg.sent(CAROL))
    await deliver_now(bot, "antidepressants")
    [delivered] = (await bot.tg.wait_for_sent(CAROL, before_dm + 1, timeout=10))[before_dm:]
    assert delivered.body == "⏰ Reminder: “take my antidepressants”"
    assert [label for row in delivered.buttons for label, _ in row] == ["Done", "Snooze 10 min", "Snooze 1 h"]
    # Carol presses Done in her private chat: it is hers
    answer = await bot.press(CAROL, CAROL, delivered, "Done")
    assert answer["text"] == "Done."

    # Bob never opened a private chat with the bot: his confirmation and his reminder can only
    # be pointed at in the group, without their text
    await bot.say(GROUP, BOB, "/remind in 10 minutes call the bank about the loan", answer_in=GROUP)
    pointed = len(bot.tg.sent(GROUP))
    await deliver_now(bot, "call the bank")
    [pointer] = (await bot.tg.wait_for_sent(GROUP, pointed + 1, timeout=10))[pointed:]
    assert pointer.body.startswith("⏰ I have a reminder for Bob, but I can only send it in a private chat")
    group_texts = [m.body for m in bot.tg.sent(GROUP)[before_group:]]
    assert not any("antidepressants" in t or "bank" in t for t in group_texts), group_texts
    assert await states(bot, 2) == ["delivered", "delivered"]


async def test_an_imported_backup_cannot_make_the_bot_post_to_anyone_else(bot: Running) -> None:
    """Finding 1: one imported file made the bot send a phishing text to another person's
    private chat, post into a group every second, into a Discord channel and the operator's
    terminal; the victim's Done press answered "This button isn't yours"."""
    await bot.say(ALICE, ALICE, "/start")
    await bot.say(CAROL, CAROL, "/start")
    soon = (bot.app.clock() + timedelta(seconds=2)).isoformat()
    phishing = "Your account is locked: log in at http://evil.example/alice"
    backup = {
        "format": "memory-assistant-backup", "version": 1, "exported_at": "2026-01-01T00:00:00Z",
        "reminders": [
            {"uid": "r1", "text": phishing, "due_at": soon, "platform": "telegram",
             "chat_id": str(ALICE), "user_id": str(ALICE)},
            {"uid": "r2", "text": "spam spam spam", "due_at": soon, "platform": "telegram",
             "chat_id": str(GROUP), "recurrence": "every:1s"},
            {"uid": "r3", "text": "hello discord", "due_at": soon, "platform": "discord",
             "chat_id": "424242", "user_id": "31337"},
            {"uid": "r4", "text": "\x1b]0;owned\x07hello terminal", "due_at": soon, "platform": "console",
             "chat_id": "local", "user_id": "local"},
            {"uid": "r5", "text": "on Mars", "due_at": soon, "platform": "telegram", "chat_id": str(ALICE),
             "timezone": "Mars/Olympus"},
        ],
    }
    group_before, alice_before = len(bot.tg.sent(GROUP)), len(bot.tg.sent(ALICE))
    done, _ = await bot.send_file(CAROL, CAROL, json.dumps(backup).encode(), "backup.json", "/import")
    assert done.body.startswith("Import done: 0 added, 0 updated, 0 unchanged, 3 reminders set (they come to "
                                "you privately, here).")
    assert "reminders in a time zone I don't know: 1" in done.body
    assert "reminders that repeat more or less often than /remind allows: 1" in done.body
    carol = await bot.owner(CAROL)
    assert bot.rows("SELECT uid, platform, chat_id, user_id FROM reminder ORDER BY uid") == [
        ("r1", "telegram", str(CAROL), str(CAROL)),
        ("r3", "telegram", str(CAROL), str(CAROL)),
        ("r4", "telegram", str(CAROL), str(CAROL)),
    ]
    carol_before = len(bot.tg.sent(CAROL))
    await asyncio.sleep(2.2)
    await bot.app.delivery.sweep()
    delivered = (await bot.tg.wait_for_sent(CAROL, carol_before + 3, timeout=15))[carol_before:]
    assert sorted(m.body for m in delivered) == sorted([
        f"⏰ Reminder: “{phishing}”", "⏰ Reminder: “hello discord”", "⏰ Reminder: “]0;ownedhello terminal”"])
    await asyncio.sleep(1.5)  # a repetition every second would have posted again by now
    assert len(bot.tg.sent(GROUP)) == group_before and len(bot.tg.sent(ALICE)) == alice_before
    assert {c.params.get("chat_id") for c in bot.tg.calls_to("sendMessage")} <= {str(ALICE), str(CAROL), ALICE, CAROL}
    # the reminders are Carol's own: her Done press works
    answer = await bot.press(CAROL, CAROL, delivered[0], "Done")
    assert answer["text"] == "Done."
    # and her reminder commands work afterwards (no "Something went wrong")
    listing = await bot.say1(CAROL, CAROL, "/reminders")
    assert listing.startswith("You have no upcoming reminders")
    assert "I'll remind you" in await bot.say1(CAROL, CAROL, "/remind in 10 minutes stretch")
    assert carol is not None
