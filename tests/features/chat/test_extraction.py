"""Background extraction through the chat turn, against the stand-in (real SDK): only chat
turns, only after the reply, at most two facts, duplicates skipped, notices with Undo, failures
counted and never shown."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.chat_kit import (  # noqa: F401  (fixtures)
    ChatKit,
    anthropic_standin,
    button,
    close_kit,
    kit,
    make_kit,
    only,
    press,
    requests_of,
)

pytestmark = pytest.mark.timeout(60)


async def stored(kit: ChatKit, user: str = "u1") -> dict[str, str]:
    owner = await kit.core.memory.owner_for("console", user)
    return {m.text: m.status for m in await kit.core.memory.list(owner)}


async def test_a_disclosure_is_noted_with_undo_after_the_reply(kit: ChatKit):
    kit.brain.facts = lambda convo: ["I am vegetarian", "My wife is called Ana"]
    out = only(await kit.say("btw I'm vegetarian and my wife Ana is too"))
    assert out.text == "Happy to help with that."
    assert kit.sender.pushes == []  # nothing was pushed before the reply was handed back
    await kit.settle()
    assert kit.sender.events == ["returned", "push", "push"]
    notes = [m.text for _, m in kit.sender.pushes]
    assert notes[0].startswith("Noted: “I am vegetarian”") and notes[1].startswith("Noted: “My wife is called Ana”")
    assert await stored(kit) == {"I am vegetarian": "current", "My wife is called Ana": "current"}
    stats = kit.conversation.extractor.stats
    assert (stats.turns, stats.model_calls, stats.saved, stats.failures) == (1, 1, 2, 0)

    # Undo on the notice removes exactly that fact.
    _, first = kit.sender.pushes[0]
    only(await kit.core.handle_press(press(button(first, "Undo"))))
    assert await stored(kit) == {"My wife is called Ana": "current"}


async def test_extraction_reads_the_last_messages_and_at_most_two_facts_are_kept(kit: ChatKit):
    seen: list[str] = []

    def facts(convo: str) -> list[str]:
        seen.append(convo)
        return ["I live in Porto", "I work as a nurse", "I have two cats"]

    kit.brain.facts = facts
    for i in range(5):
        only(await kit.say(f"small talk {i}"))
    only(await kit.say("I live in Porto, work as a nurse and have two cats"))
    await kit.settle()
    assert len(seen) == 1  # the small talk never reached the model
    convo = seen[0]
    assert convo.count('<message role="user">') + convo.count('<message role="assistant">') == 6
    assert convo.rstrip().endswith("Which durable facts did the person state?")
    assert "small talk 0" not in convo and "small talk 4" in convo
    assert len(await stored(kit)) == 2


async def test_duplicates_are_skipped_silently(kit: ChatKit):
    only(await kit.say("remember: I live in Porto"))
    kit.brain.facts = lambda convo: ["I live in Porto"]
    only(await kit.say("as you know I live in Porto"))
    await kit.settle()
    assert kit.sender.pushes == []
    assert await stored(kit) == {"I live in Porto": "current"}
    assert kit.conversation.extractor.stats.duplicates == 1


async def test_commands_and_presses_are_never_extracted(kit: ChatKit):
    kit.brain.facts = lambda convo: ["I live in Rome"]
    only(await kit.say("remember: I live in Rome"))
    q = only(await kit.say("remember: I moved to Milan"))
    for command in ("/memories", "/search Rome", "/why", "/help", "/settings"):
        await kit.say(command)
    only(await kit.core.handle_press(press(button(q, "Keep both"))))
    await kit.settle()
    assert requests_of(kit.server, "extract") == []
    assert kit.conversation.extractor.stats.turns == 0


async def test_the_precheck_skips_the_model_on_turns_without_disclosure(kit: ChatKit):
    kit.brain.facts = lambda convo: ["should never be asked"]
    for text in ("what's the weather like in Oslo?", "thanks!", "can you explain black holes", "hi"):
        only(await kit.say(text))
    await kit.settle()
    assert requests_of(kit.server, "extract") == []
    stats = kit.conversation.extractor.stats
    assert (stats.turns, stats.skipped_precheck, stats.model_calls) == (4, 4, 0)


async def test_notices_off_saves_quietly_but_conflicts_are_still_asked(kit: ChatKit):
    only(await kit.say("/settings notices off"))
    only(await kit.say("remember: I live in London"))
    kit.brain.facts = lambda convo: ["I moved to Lisbon"] if "Lisbon" in convo else ["I play the violin"]
    only(await kit.say("I play the violin in an orchestra"))
    await kit.settle()
    assert kit.sender.pushes == []
    assert (await stored(kit))["I play the violin"] == "current"
    only(await kit.say("we moved to Lisbon"))
    await kit.settle()
    (_, question), = kit.sender.pushes
    assert len(question.all_buttons) == 4


async def test_failures_are_counted_and_never_shown(kit: ChatKit):
    kit.brain.facts = lambda convo: ["I live in Oslo"]
    only(await kit.say("I live in Oslo now"))  # the chat call itself succeeds
    kit.server.fail_next(500)  # ... and the extraction call after it fails
    await kit.settle()
    stats = kit.conversation.extractor.stats
    assert stats.failures == 1 and stats.failure_reasons["model:error"] == 1
    assert kit.sender.pushes == [] and await stored(kit) == {}
    out = only(await kit.say("all good?"))
    assert out.text == "Happy to help with that." and "error" not in out.text.lower()


async def test_extraction_never_delays_the_reply(db_backend, anthropic_standin):
    kit = await make_kit(db_backend, anthropic_standin)
    try:
        kit.brain.facts = lambda convo: ["I live in Oslo"]
        original = kit.brain

        async def slow_extract(body):
            if body["model"] == "standin-extract":
                await asyncio.sleep(1.5)
            return original(body)

        anthropic_standin.set_responder(slow_extract)
        loop = asyncio.get_running_loop()
        started = loop.time()
        out = only(await kit.say("I live in Oslo these days"))
        assert loop.time() - started < 1.0 and out.text == "Happy to help with that."
        assert await stored(kit) == {}
        await kit.settle()
        assert await stored(kit) == {"I live in Oslo": "current"}
    finally:
        await close_kit(kit)


async def test_group_notices_are_private(kit: ChatKit):
    kit.brain.facts = lambda convo: ["I am a nurse"]
    only(await kit.say("@bot I'm a nurse by the way", chat="g1", group=True))
    await kit.settle()
    (chat, notice), = kit.sender.pushes
    assert notice.private and chat.chat_id == "g1" and chat.user_id == "u1"


async def test_extraction_waits_for_the_turn_that_spawned_it(kit: ChatKit):
    """The flow starts only once the person's lock is free, i.e. once the turn has returned."""
    from bot.core.core import Turn
    from bot.events import ChatRef

    kit.brain.facts = lambda convo: ["I live in Oslo"]
    owner = await kit.core.memory.owner_for("console", "u1")
    turn = Turn(owner_id=owner, platform="console", chat=ChatRef("console", "u1", "u1"), is_group=False, user_id="u1")
    lock = kit.core.lock_for(owner)
    await lock.acquire()  # what the core holds while a turn runs
    kit.conversation.extractor.spawn(turn, "I live in Oslo these days", None)
    await asyncio.sleep(0.5)
    assert requests_of(kit.server, "extract") == [] and await stored(kit) == {}
    lock.release()  # the turn returned
    await kit.settle()
    assert len(requests_of(kit.server, "extract")) == 1
    assert await stored(kit) == {"I live in Oslo": "current"}
