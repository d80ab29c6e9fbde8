"""Questions that name a topic, not a value, without a model, through the real core on SQLite and
PostgreSQL: "what do I do for work?" after "I work at Google" and "I'm a nurse now" shares no
word with the nurse, and without vectors (or under the answer's cosine threshold) nothing else
linked the two; the answer was "I don't have anything saved about that yet." Recall now reaches
the facts saved with the topic the question names (bot/memory/recall/questions.question_slots).

After "Keep both" every value of the topic is current and shown; after "Mark older as past" the
new value is shown and the old one is not (a question about now).
"""

from __future__ import annotations

import pytest

from tests.support.stories import TOPICS
from tests.support.talk import Talk, bullet_lines, lines_with, shown_as_current

pytestmark = pytest.mark.timeout(90)

NOTHING = "I don't have anything saved about that yet."


def _ids(row: tuple) -> str:
    return f"{row[0]} -> {row[1]}"


async def _told(core, old: str, new: str, press: str) -> Talk:
    talk = Talk(core)
    await talk.say("remember: I love jazz")  # something else the person told
    await talk.say(f"remember: {old}")
    question = await talk.say(f"remember: {new}")
    done = await talk.press(question, press)
    assert done and done[0].text, [o.text for o in done]
    return talk


@pytest.mark.parametrize("row", TOPICS, ids=[_ids(r) for r in TOPICS])
async def test_after_keep_both_a_topic_question_shows_both(core, row) -> None:
    old, new, questions, old_marker, new_marker = row
    talk = await _told(core, old, new, "Keep both")
    for q in questions:
        answer = (await talk.say(q)).text
        assert not answer.startswith(NOTHING), f"{q!r}: {answer}"
        assert lines_with(answer, new_marker) == [f"• {new}"], f"{q!r}: {answer}"
        assert lines_with(answer, old_marker) == [f"• {old}"], f"{q!r}: {answer}"
        assert not any("jazz" in line for line in bullet_lines(answer)), f"{q!r}: {answer}"


@pytest.mark.parametrize("row", TOPICS, ids=[_ids(r) for r in TOPICS])
async def test_after_mark_older_as_past_a_topic_question_shows_the_new(core, row) -> None:
    old, new, questions, old_marker, new_marker = row
    talk = await _told(core, old, new, "Mark older as past")
    for q in questions:
        answer = (await talk.say(q)).text
        assert lines_with(answer, new_marker) == [f"• {new}"], f"{q!r}: {answer}"
        assert shown_as_current(answer, old_marker) == [], f"{q!r}: {answer}"


async def test_a_question_about_someone_else_does_not_reach_my_topic(core) -> None:
    """"where does Anna work?" is not about the person's job: their job is not offered as the answer."""
    talk = Talk(core)
    await talk.say("remember: I'm a nurse now")
    answer = (await talk.say("where does Anna work?")).text
    assert lines_with(answer, "nurse") == [], answer


@pytest.mark.parametrize(("old", "new", "question"), [
    ("I work at Google", "I'm a nurse now", "what was my job before?"),
    ("I live in London", "I moved to Berlin", "where was home before?"),
    ("I drive a Golf", "I got a Tesla", "what car did I have before?"),
])
async def test_a_topic_question_about_the_past_shows_the_old_value_as_before(core, old, new, question) -> None:
    talk = await _told(core, old, new, "Mark older as past")
    answer = (await talk.say(question)).text
    assert bullet_lines(answer) == [f"• {new}", f"• {old} (before)"], answer


async def test_a_topic_question_reaches_only_the_askers_own_facts(core) -> None:
    alice, bob = Talk(core, user="alice"), Talk(core, user="bob")
    await alice.say("remember: I'm a nurse now")
    await bob.say("remember: I love jazz")
    answer = (await bob.say("what do I do for work?")).text
    assert answer.startswith(NOTHING) and "nurse" not in answer, answer
    assert lines_with((await alice.say("what do I do for work?")).text, "nurse") == ["• I'm a nurse now"]


@pytest.mark.parametrize(("asked", "other", "question"), [
    # the word the question is asked with stands in a fact of another topic
    ("I am 34", "my old corolla finally needs new tires", "how old am I?"),
    ("I'm vegetarian", "I eat lunch at my desk at the hospital where I work as a nurse", "what do I eat?"),
    ("I live in Denver", "I drive a Subaru that can live through any Denver winter", "where do I live?"),
    # a favourite asked by its category (a walk: the film was shown for the singer)
    ("Juan Gabriel forever, he's my favourite singer", "My favourite film, if I had to choose, is Casablanca",
     "who is my favourite singer?"),
    ("my favourite colour is green", "my favourite season is autumn", "what's my favourite colour?"),
])
async def test_a_topic_question_does_not_show_another_topics_fact_for_a_shared_word(core, asked, other, question) -> None:
    """Seen in a terminal walk: "how old am I?" answered "I am 34" and "my old corolla finally needs
    new tires" (the word "old"). The question names a topic, a fact of it answers; a fact saved
    under another topic needs more than the shared word."""
    talk = Talk(core)
    await talk.say(f"remember: {other}")
    await talk.say(f"remember: {asked}")
    assert bullet_lines((await talk.say(question)).text) == [f"• {asked}"]


async def test_a_shared_word_still_answers_when_no_fact_of_the_topic_does(core) -> None:
    """Without a fact of the asked topic, the shared word is all there is, and is shown."""
    talk = Talk(core)
    await talk.say("remember: my old corolla finally needs new tires")
    assert bullet_lines((await talk.say("how old am I?")).text) == ["• my old corolla finally needs new tires"]
