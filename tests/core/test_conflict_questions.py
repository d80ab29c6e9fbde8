"""Issue 15, items 3 and 4 of "What was seen", as a person meets them in the chat (no model):
changes that were missed (two "current" facts left side by side), and questions asked where
nothing changed with "Mark older as past" recommended. Each failed before the verdicts and
passes now."""

from __future__ import annotations

import pytest

from bot.events import ButtonPress, Incoming, Outgoing


def msg(text: str) -> Incoming:
    return Incoming(platform="console", chat_id="u1", user_id="u1", text=text, display_name="u1",
                    is_group=False, addressed_to_bot=True, message_id="m1")


def only(outs: list[Outgoing]) -> Outgoing:
    assert len(outs) == 1, outs
    return outs[0]


def labels(out: Outgoing) -> list[str]:
    return [b.label for b in out.all_buttons]


def recommended(out: Outgoing) -> str | None:
    found = [label for label in labels(out) if label.endswith("(recommended)")]
    assert len(found) <= 1
    return found[0].removesuffix(" (recommended)") if found else None


async def current_texts(core) -> set[str]:
    listing = only(await core.handle_message(msg("/memories current")))
    return {line.split(". ", 1)[1] for line in listing.text.splitlines() if ". " in line[:5]}


# --- item 3: changes missed --------------------------------------------------------------------

CHANGES = [
    ("My phone number is 555-1234", "My phone number is 555-9999"),
    ("My email is sam@example.com", "my email changed to sam@newmail.org"),
    ("I have no car", "I drive a Fiat"),
    ("I'm single", "I have a girlfriend called Ana"),
    ("Rome is where my home is", "We relocated to Lisbon"),
    ("I'm based in Berlin", "these days I live in Hamburg"),
]


@pytest.mark.parametrize(("old", "new"), CHANGES)
async def test_a_change_is_asked_with_mark_older_as_past_recommended(core, old: str, new: str) -> None:
    only(await core.handle_message(msg(f"remember: {old}")))
    question = only(await core.handle_message(msg(f"remember: {new}")))
    assert len(labels(question)) == 4, question.text
    assert recommended(question) == "Mark older as past"


async def test_berlin_is_where_i_live_now_is_the_same_fact_and_a_move_asks_about_it(core) -> None:
    only(await core.handle_message(msg("remember: I live in Berlin")))
    again = only(await core.handle_message(msg("remember: Berlin is where I live now")))
    assert not again.all_buttons and "I live in Berlin" in again.text  # already remembered
    assert await current_texts(core) == {"I live in Berlin"}
    question = only(await core.handle_message(msg("remember: I moved to Hamburg")))
    assert recommended(question) == "Mark older as past" and "I live in Berlin" in question.text


async def test_a_move_asks_about_every_current_fact_of_the_topic(core) -> None:
    only(await core.handle_message(msg("remember: I live in Berlin")))
    only(await core.handle_message(msg("/settings review off")))
    only(await core.handle_message(msg("remember: Berlin is where I live now, by the river Spree")))
    only(await core.handle_message(msg("/settings review on")))
    question = only(await core.handle_message(msg("remember: I moved to Hamburg")))
    assert "I live in Berlin" in question.text and "Berlin is where I live now, by the river Spree" in question.text
    assert recommended(question) == "Mark older as past"


# --- item 4: questions asked where nothing changed ----------------------------------------------

SAME_VALUE = [  # the same value again: not stored twice, nothing asked
    ("I live in Berlin", "I moved to Berlin"),
    ("I live in Berlin", "My home is in Berlin"),
    ("I live in Berlin", "I'm based in Berlin"),
    ("I'm vegetarian", "I don't eat meat"),
]


@pytest.mark.parametrize(("old", "new"), SAME_VALUE)
async def test_the_same_value_again_is_not_a_question(core, old: str, new: str) -> None:
    only(await core.handle_message(msg(f"remember: {old}")))
    out = only(await core.handle_message(msg(f"remember: {new}")))
    assert {b.label for b in out.all_buttons} <= {"Undo"} and old in out.text, out.text
    assert await current_texts(core) == {old}


MORE_DETAIL = [  # the same value with more detail: asked, with Keep both recommended
    ("I have a dog", "I have a dog named Biscuit"),
    ("I drive a Golf", "I drive a Golf GTI"),
    ("I live in Berlin", "I live in Berlin with my two cats"),
    ("I'm married", "My husband Tom is a pilot"),
]


@pytest.mark.parametrize(("old", "new"), MORE_DETAIL)
async def test_more_detail_recommends_keep_both_never_mark_older_as_past(core, old: str, new: str) -> None:
    only(await core.handle_message(msg(f"remember: {old}")))
    question = only(await core.handle_message(msg(f"remember: {new}")))
    assert labels(question) == ["Keep both (recommended)", "Mark older as past", "Replace older (deletes it)", "Discard newer"]


async def test_an_unclear_question_recommends_nothing(core) -> None:
    only(await core.handle_message(msg("remember: I have a dog and a cat")))
    question = only(await core.handle_message(msg("remember: I have a dog")))
    assert labels(question) == ["Keep both", "Mark older as past", "Replace older (deletes it)", "Discard newer"]
    assert "I can't tell whether" in question.text


async def test_a_tense_change_recommends_mark_older_as_past(core) -> None:
    only(await core.handle_message(msg("remember: I have a cat")))
    question = only(await core.handle_message(msg("remember: I had a cat")))
    assert recommended(question) == "Mark older as past"


async def test_a_question_shown_again_keeps_its_recommendation(core, database, settings) -> None:
    """The recommendation is stored with the question: read back by another process (a new
    memory service on the same database) it is the same."""
    from bot.memory import Choice
    from bot.memory.service import MemoryService

    only(await core.handle_message(msg("remember: I drive a Golf")))
    first = only(await core.handle_message(msg("remember: I drive a Golf GTI")))
    assert labels(first)[0] == "Keep both (recommended)"
    owner = await core.memory.owner_for("console", "u1", create=False)
    assert owner is not None
    (pending,) = await MemoryService(database, settings).pending_conflicts(owner)
    assert pending.recommended is Choice.KEEP


# --- the same pet, food or pastime said again (bot/memory/rules/frames.py) ---------------------

SAID_AGAIN = [
    ("I have a cat named Whiskers", "i have an old tabby cat"),
    ("I golf on my days off", "I golf three times a week"),
    ("i own two dogs", "we have a border collie named Jip"),
]


@pytest.mark.parametrize(("old", "new"), SAID_AGAIN)
async def test_the_same_thing_said_again_is_asked_with_keep_both(core, old: str, new: str) -> None:
    only(await core.handle_message(msg(f"remember: {old}")))
    question = (await core.handle_message(msg(f"remember: {new}")))[-1]
    assert recommended(question) == "Keep both", question.text
    assert "\n\nThis may be something I already know about you.\n" in question.text
    assert "Both can be true: it looks like the same thing said again, more about it, or another of its kind." in question.text
    listing = only(await core.handle_message(msg("/memories"))).text
    assert old in listing and new in listing  # nothing is lost while the question waits
    token = next(b.token for b in question.all_buttons if b.label.startswith("Keep both"))
    kept = await core.handle_press(ButtonPress(platform="console", chat_id="u1", user_id="u1",
                                               token=token, message_id="q1"))
    assert kept, "Keep both answered nothing"
    assert {old, new} <= await current_texts(core)


async def test_after_undoing_an_answer_undo_takes_back_the_save_that_asked(core) -> None:
    """Walked in the terminal: save, a question, "Replace older (deletes it)", Undo of that
    answer, then /undo. The older fact is exactly as the save left it (the deletion was undone),
    so the save can be undone; /undo used to refuse, saying the older fact "was changed back by
    another undo since", and set aside every save before it too."""
    only(await core.handle_message(msg("remember: I have a cat named Miso")))
    question = (await core.handle_message(msg("remember: i have an old tabby cat")))[-1]
    token = next(b.token for b in question.all_buttons if b.label.startswith("Replace older"))
    done = only(await core.handle_press(ButtonPress(platform="console", chat_id="u1", user_id="u1",
                                                    token=token, message_id="q1")))
    undo_token = next(b.token for b in done.all_buttons if b.label == "Undo")
    await core.handle_press(ButtonPress(platform="console", chat_id="u1", user_id="u1", token=undo_token,
                                        message_id="q2"))
    undone = (await core.handle_message(msg("/undo")))[0]
    assert undone.text.startswith("Undone saving “i have an old tabby cat”"), undone.text
    assert await current_texts(core) == {"I have a cat named Miso"}
    again = (await core.handle_message(msg("/undo")))[0]
    assert again.text.startswith("Undone saving “I have a cat named Miso”"), again.text
