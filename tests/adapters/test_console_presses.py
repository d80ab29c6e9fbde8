"""The terminal's rule for typed numbers (issue 16, item 1), with the real ConsoleAdapter and the
real core (bot.app.build_app on SQLite), driven line by line as a person types, with a clock the
test moves: a number presses a button of the latest message only while nothing else has come
since; a number typed within 3 seconds of a push presses nothing and shows the buttons again,
each naming what it acts on."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from sqlalchemy import text as sql

from adapters.console import PUSH_GRACE_SECONDS, ConsoleAdapter
from bot.app import App, build_app
from bot.events import ChatRef, Outgoing
from bot.features.reminders import delivery_buttons
from tests.conftest import make_settings


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Terminal:
    app: App
    console: ConsoleAdapter
    out: io.StringIO
    clock: Clock
    mark: int = 0

    async def type(self, line: str) -> str:
        """Type one line; what the chat printed in answer."""
        await self.console.handle_line(line)
        return self.new()

    def new(self) -> str:
        text = self.out.getvalue()[self.mark:]
        self.mark = len(self.out.getvalue())
        return text.strip()

    def rows(self, query: str) -> list[tuple]:
        with self.app.db.engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sql(query))]

    async def deliver(self, reminder_text: str) -> str:
        """A reminder arrives as a push (what scheduler.delivery sends), with its buttons."""
        [(rid, owner)] = self.rows(f"SELECT id, owner_id FROM reminder WHERE text = '{reminder_text}'")
        buttons = await delivery_buttons(self.app.core.buttons, owner, rid, reminder_text)
        await self.app.core.push(ChatRef("console", "tester", "tester"), Outgoing(f"⏰ Reminder: {reminder_text}", buttons=buttons))
        return self.new()


@pytest.fixture
async def term(tmp_path) -> AsyncIterator[Terminal]:
    settings = make_settings(database_url=f"sqlite:///{tmp_path / 'bot.db'}", console_user="tester", data_dir=str(tmp_path / "data"))
    app = build_app(settings, embedder=None, with_model=False)
    out, clock = io.StringIO(), Clock()
    console = ConsoleAdapter(app.core, settings, stdin=io.StringIO(""), stdout=out, clock=clock)
    app.core.outbox.register("console", console)
    try:
        yield Terminal(app, console, out, clock)
    finally:
        await app.close()


async def test_two_reminders_close_together_a_number_presses_nothing_and_the_buttons_name_their_reminder(term):
    await term.type("/remind in 1 hour to call mom")
    await term.type("/remind in 2 hours to water the plants")
    first = await term.deliver("call mom")
    assert first.endswith("[1] Done  [2] Snooze 10 min  [3] Snooze 1 h")
    term.clock.now += 20  # reading it
    await term.deliver("water the plants")
    term.clock.now += 1  # "2" meant for the first one, typed just as the second arrived
    said = await term.type("2")
    assert said == (
        "A new message arrived just as you typed “2”, so nothing was pressed. The latest buttons are:\n"
        "[1] Done: “water the plants”\n[2] Snooze “water the plants” 10 min\n[3] Snooze “water the plants” 1 h"
    )
    assert term.rows("SELECT count(*) FROM reminder") == [(2,)]  # nothing snoozed
    # now the person has seen whose buttons they are: "2" snoozes the plants
    said = await term.type("2")
    assert said.startswith("💤 Snoozed “water the plants” until")
    assert term.rows("SELECT text FROM reminder ORDER BY id") == [("call mom",), ("water the plants",), ("water the plants",)]


async def test_after_the_grace_a_number_presses_the_latest_push(term):
    await term.type("/remind in 1 hour to call mom")
    await term.deliver("call mom")
    term.clock.now += PUSH_GRACE_SECONDS + 0.5
    assert (await term.type("1")).startswith("✅ Done: “call mom”")


async def test_any_line_or_message_in_between_makes_the_buttons_history(term):
    await term.type("remember: I live in Oslo")
    question = await term.type("/forget_me")
    assert question.endswith("[1] Yes, delete everything now (no undo)  [2] Cancel")
    await term.type("hello")  # a line from the person
    assert (await term.type("1")).startswith("“1” on its own presses nothing")
    assert term.rows("SELECT count(*) FROM memory") == [(1,)]

    await term.type("/forget_me")
    term.clock.now += 60
    await term.app.core.push(ChatRef("console", "tester", "tester"), Outgoing("Noted: “I like tea”"))  # a push
    term.new()
    term.clock.now += 60
    assert (await term.type("1")).startswith("“1” on its own presses nothing")
    assert term.rows("SELECT count(*) FROM memory") == [(1,)]

    # the latest message's buttons work; a number beyond them says so and keeps them
    await term.type("remember: I moved to Paris")
    assert (await term.type("7")) == "There is no button 7; choose 1 to 4."
    assert (await term.type("2")).startswith("Done: “I live in Oslo” is now past")


async def test_a_forget_me_confirmation_shown_before_a_new_memory_asks_again(term):
    """Pressed (within its time) after a save it did not count: nothing is deleted; asked again."""
    await term.type("remember: I live in Oslo")
    question = await term.type("/forget_me")
    assert "1 memory" in question
    # what a stale press looks like on a platform with real buttons: the old token, pressed now
    token = term.console._latest_buttons[1][0].token  # type: ignore[index]
    await term.type("remember: I like tea")
    from bot.events import ButtonPress

    outs = await term.app.core.handle_press(ButtonPress("console", "tester", "tester", token, message_id="out-2"))
    assert outs[0].text == "Your memories changed since I asked (1 then, 2 now), so I deleted nothing."
    assert "2 memories" in outs[1].text and outs[1].text.startswith("Your memories changed since I asked")
    assert term.rows("SELECT count(*) FROM memory") == [(2,)]
