"""Memory commands and presses through the core, as a person uses them, on SQLite and PostgreSQL:
the words they get back (issue 16: no internal ids, /undo that walks back and never sticks,
questions that follow the facts, confirmations read from the state after the change, settings
that say what they do, counts that agree)."""

from __future__ import annotations

import re

from sqlalchemy import text as sql

from bot.app import build_app
from bot.events import ButtonPress, Incoming, Outgoing


def msg(text: str, user: str = "u1") -> Incoming:
    return Incoming(platform="console", chat_id=user, user_id=user, text=text, display_name=user, message_id="m1")


async def say(core, text: str) -> Outgoing:  # noqa: ANN001
    outs = await core.handle_message(msg(text))
    assert len(outs) == 1, [o.text for o in outs]
    return outs[0]


async def says(core, text: str) -> list[Outgoing]:  # noqa: ANN001
    return await core.handle_message(msg(text))


async def press(core, out: Outgoing, label: str) -> list[Outgoing]:  # noqa: ANN001
    token = next(b.token for b in out.all_buttons if b.label.startswith(label))
    return await core.handle_press(ButtonPress("console", "u1", "u1", token, message_id="q1"))


def number_of(listing: Outgoing, words: str) -> str:
    return next(line.split(".")[0] for line in listing.text.splitlines() if words in line)


NO_ID = re.compile(r"#\d")


async def test_history_why_and_undo_name_memories_by_their_words(core):
    """Item 2: /history said "(replaced by #12)" where list item 12 was another memory."""
    for filler in ("I like tea", "I play chess", "I have a cat"):  # so that ids and list numbers differ
        await say(core, f"remember: {filler}")
    await say(core, "remember: I live in London")
    question = await say(core, "remember: I moved to Paris")
    [done] = await press(core, question, "Mark older")
    historical = await say(core, "/memories historical")
    history = await say(core, f"/history {number_of(historical, 'London')}")
    assert "marked past: unsure → historical (replaced by “I moved to Paris”)" in history.text
    current = await say(core, "/memories current")
    paris = await say(core, f"/history {number_of(current, 'Paris')}")
    assert "“I live in London” — historical" in paris.text  # the fact it made past is in its history
    [undone, asked_again] = await says(core, "/undo")
    assert undone.text == ("Undone your answer “Mark older as past” about “I moved to Paris”. "
                           "The question is open again where you answered it.")
    assert asked_again.text.startswith("This may change something I know about you.")
    assert asked_again.edit_of == "q1"  # the message the answer was pressed in, back to the question
    for out in (done, history, paris, undone):
        assert not NO_ID.search(out.text), out.text


async def test_replace_older_says_it_deletes_and_the_history_outlives_the_text(core):
    """Item 5: "Replace older" deleted the old fact for good after the undo window without a
    word, and the new fact's history had no trace of what it replaced."""
    await say(core, "remember: I live in London")
    question = await say(core, "remember: I moved to Paris")
    assert "Replace older (deletes it)" in [b.label for b in question.all_buttons]
    [done] = await press(core, question, "Replace older")
    assert done.text == (
        "Done: “I live in London” was deleted (/undo brings it back within 10 minutes; then its text is erased "
        "for good), and “I moved to Paris” is current."
    )
    await say(core, "/memories")
    history = await say(core, "/history 1")
    assert "replaced “I live in London”" in history.text
    core.memory.settings = core.memory.settings.model_copy(update={"undo_window_seconds": 0})
    assert await core.memory.purge_due() == 1
    history = await say(core, "/history 1")
    assert "replaced a fact that was later deleted" in history.text and "London" not in history.text


async def test_undo_names_what_it_cannot_undo_sets_it_aside_and_moves_on(database, settings):
    """Item 2: "/undo says memory #19 has changed since, then repeats that line on every later
    /undo". Here a background tidy-up (which /undo does not walk back) merged the saves."""
    app = build_app(settings, db=database, embedder=None, with_model=False)
    core = app.core
    try:
        owner = await core.memory.owner_for("console", "u1")
        await say(core, "remember: I like green tea")
        await core.memory.remember(owner, "I love hiking in the mountains", dedupe=False)
        await core.memory.remember(owner, "I really love hiking in the mountains", dedupe=False)
        report = await app.curator.tidy(owner)  # in the background: actor "curator"
        assert report.merged
        first = await say(core, "/undo")
        assert first.text == (
            "I can't undo saving “I really love hiking in the mountains”: “I really love hiking in the mountains” "
            "was merged with a duplicate by a tidy-up since. I've set it aside. The next /undo goes back to "
            "saving “I love hiking in the mountains”."
        )
        second = await say(core, "/undo")
        assert second.text.startswith("I can't undo saving “I love hiking in the mountains”:")
        assert second.text.endswith("The next /undo goes back to saving “I like green tea”.")
        third = await say(core, "/undo")
        assert third.text == "Undone saving “I like green tea”."
        assert (await say(core, "/undo")).text == "There is nothing to undo."
    finally:
        await app.core.drain(timeout=5)


async def test_answering_one_question_closes_the_other_about_the_same_fact(core):
    """Item 3: two open questions about one old fact; answering one left the other open, and
    answering that later printed "... stays current" about a fact that was historical."""
    await say(core, "remember: I drive a blue Toyota Corolla")
    sold = await say(core, "remember: I sold my Toyota Corolla")
    civic = await say(core, "remember: I now drive a red Honda Civic")
    assert "Before: “I drive a blue Toyota Corolla”" in civic.text
    [done] = await press(core, sold, "Mark older")
    assert done.text == (
        "Done: “I drive a blue Toyota Corolla” is now past (kept in your history), and “I sold my Toyota "
        "Corolla” still waits for your answer to another question."
    )
    review = await say(core, "/memories review")
    assert review.text.splitlines()[:2] == [
        "Waiting for your answer (1):",
        "1. I sold my Toyota Corolla — may be replaced by “I now drive a red Honda Civic”",
    ]
    [asked] = await press(core, review, "Ask about 1")
    assert "Corolla”\nNew" in asked.text and "blue" not in asked.text  # re-worded: the past fact left it
    # the old message's buttons were for facts as they were: they apply nothing
    [stale] = await press(core, civic, "Keep both")
    assert stale.text.startswith("The facts in that question changed since I asked")
    [kept] = await press(core, asked, "Keep both")
    assert kept.text == "Kept both: “I sold my Toyota Corolla” and “I now drive a red Honda Civic” are both current."

    # Undo of the first answer puts both questions back as they were
    await says(core, "/undo")  # the keep-both (and its question asked again)
    back = await says(core, "/undo")
    assert back[0].text == ("Undone your answer “Mark older as past” about “I sold my Toyota Corolla”. "
                            "The question is open again where you answered it.")
    review = await say(core, "/memories review")
    assert "1. I drive a blue Toyota Corolla — may be replaced by “I sold my Toyota Corolla”" in review.text
    assert "2. I sold my Toyota Corolla — may be replaced by “I now drive a red Honda Civic”" in review.text
    assert [b.label for b in review.all_buttons] == ["Ask about 1", "Ask about 2"]
    [q2] = await press(core, review, "Ask about 2")
    assert "Before: “I drive a blue Toyota Corolla”" in q2.text


async def test_discarding_a_new_fact_closes_the_questions_it_raised(core):
    await say(core, "remember: I live in London")
    first = await say(core, "remember: I moved to Paris")
    await say(core, "remember: I moved to Rome")  # asks about London and Paris
    [done] = await press(core, first, "Discard newer")
    assert done.text == "Done: “I moved to Paris” was discarded; “I live in London” still waits for your answer to another question."
    review = await say(core, "/memories review")
    assert "may be replaced by “I moved to Rome”" in review.text and "Paris" not in review.text


async def test_forget_me_announces_and_reports_the_same_count(core):
    """Item 8: it announced 22 memories and then reported 29 deleted."""
    for fact in ("I like tea", "I play chess", "I have a cat"):
        await say(core, f"remember: {fact}")
    await say(core, "/memories")
    await say(core, "/forget 1")  # deleted, still in its undo window: not one of "your memories"
    question = await say(core, "/forget_me")
    assert "— 2 memories," in question.text
    [done] = await press(core, question, "Yes")
    assert done.text.startswith("Done. I deleted everything I held about you: 2 memories,")


async def test_memories_all_shows_archived_ones_too(core, database):
    await say(core, "remember: I like tea")
    await say(core, "remember: I keep old receipts")
    with database.session() as s:
        s.execute(sql("UPDATE memory SET archived = :t WHERE text = 'I keep old receipts'"), {"t": True})
    for command in ("/memories all", "/memories"):
        listing = await say(core, command)
        assert listing.text == "Your memories (2):\n— Current —\n1. I like tea\n— Archived —\n2. I keep old receipts [archived]"
    assert "receipts" not in (await say(core, "/memories current")).text


async def test_timezone_cet_and_settings_are_undoable_changes(core):
    out = await say(core, "/timezone CET")
    assert out.text == "Your time zone is now CET." and [b.label for b in out.all_buttons] == ["Undo"]
    refused = await say(core, "/timezone EST")
    assert refused.text.startswith("I can't use “EST” as a time zone.")
    await say(core, "/settings notices off")
    assert (await say(core, "/undo")).text == "Undone turning notices off."
    assert (await say(core, "/undo")).text == "Undone setting your time zone to CET."
    assert "time zone: UTC" in (await say(core, "/settings")).text


async def test_import_in_the_terminal_points_to_the_shell_not_to_a_caption(core):
    """A terminal line cannot carry a file: /import there says how to restore from the shell;
    other platforms keep the caption hint."""
    out = await say(core, "/import")
    assert out.text.startswith("In the terminal, restore a backup from your shell: python -m bot import FILE")
    assert "caption" not in out.text
