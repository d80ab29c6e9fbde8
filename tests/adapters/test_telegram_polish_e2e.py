"""Issue 20 (part A) on the wire: the real TelegramAdapter and core against the Telegram stand-in,
as people use the bot on a phone: saving in every natural form, Markdown that renders, a slow
model, first contact, and the smaller points. Every assertion reads what the stand-in received
(texts, entities, buttons, edits, menus) and what the database holds.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.adapters.test_telegram_e2e import Running, bot, database_url  # noqa: F401
from tests.standins.telegram_api import utf16_len
from tests.support.telegram_helpers import ALICE, BOT_USERNAME, CAROL, GROUP, tg  # noqa: F401

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


# ---------------------------------------------------------------------------- Markdown (item 2)

NASTY_ANSWER = """# Your trip

You live in **Rome** (*since **2019***), so `a < b && c > d` is true.
Here is **an unclosed bold and a *half italic
> a quote with **bold** and [a link](https://example.org/q?a=1&b=<2>)

- first
  - nested with `code`
1. [Rome guide](https://example.com/rome)
2. plain ~~old~~

```python
if a < b:
    print("<tag>")
```"""

TRAP = "My site is **bold** [click](https://evil.example) `x<y` # not a heading"


def _chat_model(answers: dict[str, Any]) -> Any:
    """A responder for the model stand-in: the chat answer by the person's last words (a tool call
    first when scripted), the stand-in's default for extraction and anything else."""
    from bot.testing.anthropic_api import _last_user_text, default_answer, text_message

    def respond(body: dict[str, Any]) -> Any:
        if not any(t.get("name") == "manage_memory" for t in body.get("tools") or []):
            return default_answer(body)
        said = _last_user_text(body)
        answer = answers.get(said, answers.get("*", "ok"))
        return answer if isinstance(answer, dict) else text_message(answer)

    return respond


async def _with_model(tg: Any, tmp_path: Any, answers: dict[str, Any], **extra: Any) -> tuple[Any, Running]:
    from tests.conftest import make_settings
    from tests.standins.anthropic_api import AnthropicStandIn

    model = AnthropicStandIn()
    await model.start()
    model.set_responder(_chat_model(answers))
    settings = make_settings(
        database_url=f"sqlite:///{tmp_path / 'bot.db'}",
        embedding_model="none",
        telegram_bot_token=tg.token,
        telegram_api_base_url=tg.base_url,
        anthropic_api_key="test-key",
        anthropic_base_url=model.url,
        llm_max_retries=0,
        **extra,
    )
    running = Running(tg, settings)
    await running.start()
    return model, running


async def test_the_models_markdown_arrives_formatted_and_memory_text_stays_plain(
    tg: Any, tmp_path: Any  # noqa: F811
) -> None:
    from tests.standins.anthropic_api import tool_use_message

    answers = {
        "Tell me about my trip": NASTY_ANSWER,
        "Save my site please": tool_use_message("manage_memory", {"action": "add", "text": TRAP}),
        "(tool results)": "Done, **saved**.",
    }
    model, bot = await _with_model(tg, tmp_path, answers)  # noqa: F811
    try:
        [reply] = await bot.say(ALICE, ALICE, "Tell me about my trip")
        body = reply.body
        # no Markdown syntax left where it was formatting; what was not formatting stays as typed
        assert "# Your trip" not in body and "**Rome**" not in body and "```" not in body
        assert body.startswith("Your trip\n\nYou live in Rome (since 2019), so a < b && c > d is true.")
        assert "**an unclosed bold and a *half italic" in body  # unclosed: the characters remain
        assert "• first\n  • nested with code" in body
        assert "1. Rome guide\n2. plain old" in body
        assert 'if a < b:\n    print("<tag>")' in body
        seen = reply.entity_texts()
        assert ("bold", "Your trip") in seen and ("bold", "Rome") in seen
        assert ("italic", "since 2019") in seen and ("bold", "2019") in seen  # nested
        assert ("code", "a < b && c > d") in seen and ("strikethrough", "old") in seen
        assert ("pre", 'if a < b:\n    print("<tag>")') in seen
        assert ("text_link", "Rome guide") in seen
        assert {e["url"] for e in reply.entities if e["type"] == "text_link"} == {"https://example.com/rome"}
        quote = next(t for k, t in seen if k == "blockquote")
        assert quote.startswith("a quote with bold") and "(https://example.org/q?a=1&b=%3C2%3E)" in quote  # a link in a quote: the address in words
        # the model was told where it writes
        system = model.message_requests[-1].json["system"]
        text = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
        assert "Telegram chat" in text

        # a saved fact with Markdown in it: quoted as typed, never formatted, never a link
        [done] = await bot.say(ALICE, ALICE, "Save my site please")
        assert done.body == f"Done, saved.\n\n✓ Saved: “{TRAP}”", done.body
        assert done.entity_texts() == [("bold", "saved")]
        [listing] = await bot.say(ALICE, ALICE, "/memories")
        assert f"1. {TRAP}" in listing.body and listing.entities == []
        [found] = await bot.say(ALICE, ALICE, "/remember Another **one** [x](https://e.example)")
        assert found.body == "Saved: “Another **one** [x](https://e.example)”" and found.entities == []
    finally:
        await bot.stop()
        await model.stop()


async def test_a_long_formatted_answer_splits_with_valid_entities_in_every_part(
    tg: Any, tmp_path: Any  # noqa: F811
) -> None:
    """A code block and a bold run across the 4,096-unit cut: both parts are accepted by the
    stand-in (which checks entity bounds and nesting) and each keeps its share of formatting."""
    code = "\n".join(f"line {i:04d} = a < b  # 😀" for i in range(300))  # no blank line inside
    answer = "**Start** of the answer.\n\n```\n" + code + "\n```\n\nThe **end**."
    model, bot = await _with_model(tg, tmp_path, {"*": answer})  # noqa: F811
    try:
        tg.inject_text(ALICE, ALICE, "show me the code")
        await tg.wait_for(lambda: any("The end." in m.body for m in tg.sent(ALICE)), what="all parts")
        parts = tg.sent(ALICE)
        assert len(parts) >= 2 and all(utf16_len(m.body) <= 4096 for m in parts)
        kinds = [[k for k, _ in m.entity_texts()] for m in parts]
        assert kinds[0][:2] == ["bold", "pre"] and all("pre" in k for k in kinds)
        assert kinds[-1][-1] == "bold" and parts[-1].entity_texts()[-1] == ("bold", "end")
        shown = "\n".join(t for m in parts for k, t in m.entity_texts() if k == "pre")
        assert shown.split() == code.split()  # the whole block, in code formatting, nothing lost
    finally:
        await bot.stop()
        await model.stop()


# ---------------------------------------------------------------------------- a slow model (item 5)


async def test_a_slow_model_holds_then_replaces_the_quick_answer_with_the_late_one(
    tg: Any, tmp_path: Any  # noqa: F811
) -> None:
    model, bot = await _with_model(  # noqa: F811
        tg, tmp_path, {"*": "You live in **Lisbon**."},
        slow_notice_seconds=0.5, llm_timeout_seconds=2.0, llm_late_answer_seconds=20.0,
    )
    try:
        await bot.say(ALICE, ALICE, "remember: I live in Lisbon")

        # slower than the notice, within the deadline: the holding message becomes the answer
        model.delay_next(1.5)
        [held] = await bot.say(ALICE, ALICE, "where do I live?")
        assert held.body == "Still thinking…"
        await tg.wait_for(lambda: held.edit_count == 1, what="the answer in place")
        assert held.body == "You live in Lisbon." and held.entity_texts() == [("bold", "Lisbon")]

        # past the deadline: a quick answer from memory that says so, replaced by the late answer
        model.delay_next(5.0)
        before = len(tg.sent(ALICE))
        [slow] = await bot.say(ALICE, ALICE, "where do I live again?")
        assert slow.body == "Still thinking…"
        await tg.wait_for(lambda: slow.edit_count >= 1, what="the quick answer")
        quick = slow.body
        assert "I live in Lisbon" in quick
        assert quick.endswith(
            "(This is a quick answer from what I remember, because the language model is slow "
            "right now. I'll replace it with the model's answer if that comes.)"
        ), quick
        await tg.wait_for(lambda: slow.edit_count >= 2, timeout=10, what="the late answer")
        assert slow.body == "You live in Lisbon." and slow.history == ["Still thinking…", quick]
        assert len(tg.sent(ALICE)) == before + 1  # all in one message: nothing to scroll past
    finally:
        await bot.stop()
        await model.stop()


# ---------------------------------------------------------------------------- first contact (item 9)


async def test_first_contact_greets_by_name_and_sets_the_bots_card_and_menus(bot: Running) -> None:  # noqa: F811
    from bot.core import render
    from bot.core.menu import DESCRIPTION, SHORT_DESCRIPTION

    # what Telegram shows before Start, and the menus: the full one in private, a short one in groups
    assert bot.tg.description == DESCRIPTION and bot.tg.short_description == SHORT_DESCRIPTION
    group_menu = [c["command"] for c in bot.tg.group_commands]
    assert group_menu == ["help", "remember", "undo", "remind", "reminders"]
    assert "forget_me" in [c["command"] for c in bot.tg.default_commands]

    [hello] = await bot.say(ALICE, ALICE, "/start")
    assert hello.body == (
        "Hi Alice Liddell! I'm your assistant with a memory you can trust: I remember what you "
        "tell me and ask before anything changes.\n"
        "\n"
        "Try:\n"
        "remember: my sister's birthday is 3 May\n"
        "remind me tomorrow at 9 to call mom\n"
        "\n"
        "No language model is connected: I save, find and remind, and answer from what I remember.\n"
        "Reminders use your time zone: UTC.\n"
        "/help lists everything I can do."
    )
    assert labels(hello) == [["How memory works", "Set my time zone"]]
    assert len(hello.body) < 450  # not the 1,100-character command reference

    before = len(bot.tg.sent(ALICE))
    await bot.press(ALICE, ALICE, hello, "How memory works")
    [how] = (await bot.tg.wait_for_sent(ALICE, before + 1))[before:]
    assert how.body.startswith("How my memory works:\n• I save what you ask me to")
    await bot.press(ALICE, ALICE, hello, "Set my time zone")  # the zone offer of a first reminder
    [zone] = (await bot.tg.wait_for_sent(ALICE, before + 2))[before + 1 :]
    assert zone.body.startswith("Your reminders use UTC. Tap your zone below, or type your city")
    assert labels(zone)[-1][-1] == "Keep UTC"

    [helped] = await bot.say(ALICE, ALICE, "/help")
    assert helped.body == render.HELP
    assert all("  " not in line for line in helped.body.splitlines())  # no space-aligned columns


async def test_the_bots_card_is_configurable(tg: Any, tmp_path: Any) -> None:  # noqa: F811
    from tests.conftest import make_settings

    settings = make_settings(
        database_url=f"sqlite:///{tmp_path / 'bot.db'}",
        telegram_bot_token=tg.token,
        telegram_api_base_url=tg.base_url,
        bot_description="Family helper for the Smiths.",
        bot_short_description="Smith family memory",
    )
    running = Running(tg, settings)
    await running.start()
    try:
        assert tg.description == "Family helper for the Smiths."
        assert tg.short_description == "Smith family memory"
    finally:
        await running.stop()


# ---------------------------------------------------------------------------- the smaller points (item 10)


async def test_dates_read_as_said_counts_read_as_words_and_reminder_buttons_sit_in_rows(
    bot: Running,  # noqa: F811
) -> None:
    [passport] = await bot.say(ALICE, ALICE, "remember: My passport expires in March 2029")
    assert passport.body == "Saved: “My passport expires in March 2029”"  # an expiry is no start
    [born] = await bot.say(ALICE, ALICE, "remember: I was born in Leeds in 1990")
    assert born.body == "Saved: “I was born in Leeds in 1990” (since 1990)"  # no day was said
    [moved] = await bot.say(ALICE, ALICE, "remember: I moved to Oslo in March 2025")
    assert moved.body == "Saved: “I moved to Oslo in March 2025” (since March 2025)"
    listing = await bot.say1(ALICE, ALICE, "/memories")
    assert "1. My passport expires in March 2029\n" in listing
    assert "2. I was born in Leeds in 1990 (since 1990)" in listing

    [one] = await bot.say(CAROL, CAROL, "remember: I play chess")
    [export] = await bot.say(CAROL, CAROL, "/export")
    assert export.caption is not None and export.caption.startswith(
        "Here is everything I hold about you (1 memory)."
    )

    for n in range(1, 7):
        await bot.say(ALICE, ALICE, f"/remind tomorrow at {n + 8} water plant {n}")
    [reminders] = await bot.say(ALICE, ALICE, "/reminders")
    assert labels(reminders) == [
        ["Cancel 1", "Cancel 2", "Cancel 3", "Cancel 4"], ["Cancel 5", "Cancel 6"]
    ]


async def test_a_reminder_the_model_set_has_a_cancel_button(tg: Any, tmp_path: Any) -> None:  # noqa: F811
    from tests.standins.anthropic_api import tool_use_message

    answers = {
        "could you set a reminder to call the vet tomorrow at 9?": tool_use_message(
            "reminders", {"action": "set", "when": "tomorrow at 9", "text": "call the vet"}
        ),
        "(tool results)": "Sure, I'll remind you.",
    }
    model, bot = await _with_model(tg, tmp_path, answers)  # noqa: F811
    try:
        # typed as chat (not the /remind grammar) so the model sets it with its tool
        [answer] = await bot.say(ALICE, ALICE, "could you set a reminder to call the vet tomorrow at 9?")
        assert answer.body.startswith("Sure, I'll remind you.\n\n✓ ⏰ I'll remind you: “call the vet”")
        assert labels(answer) == [["Cancel reminder"]]
        done = await bot.press(ALICE, ALICE, answer, "Cancel reminder")
        assert done["text"] == "Done."
        await tg.wait_for(lambda: answer.edit_count == 1, what="the cancellation")
        assert answer.body.startswith("Cancelled the reminder “call the vet”"), answer.body
        owner = await bot.owner(ALICE)
        assert bot.rows("SELECT state FROM reminder WHERE owner_id = :o", o=owner) == [("cancelled",)]
    finally:
        await bot.stop()
        await model.stop()


async def test_the_second_delivery_of_a_snoozed_reminder_says_it_was_snoozed(bot: Running) -> None:  # noqa: F811
    from datetime import timedelta

    async def deliver_now() -> None:
        with bot.app.db.session() as s:
            from sqlalchemy import text as sql

            s.execute(sql("UPDATE reminder SET due_at = :t WHERE state = 'scheduled'"),
                      {"t": bot.app.clock() - timedelta(seconds=1)})
            s.commit()
        assert await bot.app.delivery.sweep() == 1

    await bot.say(ALICE, ALICE, "/remind in 1 hour to call mom")
    before = len(bot.tg.sent(ALICE))
    await deliver_now()
    [first] = (await bot.tg.wait_for_sent(ALICE, before + 1))[before:]
    assert first.body == "⏰ Reminder: “call mom”"
    await bot.press(ALICE, ALICE, first, "Snooze 10 min")
    await bot.tg.wait_for(lambda: first.edit_count == 1, what="the snooze")
    before = len(bot.tg.sent(ALICE))
    await deliver_now()
    [second] = (await bot.tg.wait_for_sent(ALICE, before + 1))[before:]
    assert second.body == "⏰ Snoozed reminder: “call mom”"
