"""The rules of an answer from memory (bot/features/chat/answer_lines.py) and of what a message
is (fallback.message_kind), as tables. Pure: recalled memories in, lines out."""

from __future__ import annotations

from datetime import date

import pytest

from bot.features.chat.answer_lines import answer_lines, shown
from bot.features.chat.fallback import message_kind, offer_buttons, offer_text, offered_facts
from bot.memory import RecalledMemory


def item(mid: int, text: str, status: str = "current", *, kw: float = 0.0, cos: float | None = None,
         rel: float = 1.0, replaced_by: int | None = None, since: date | None = None,
         topic: str = "") -> RecalledMemory:
    return RecalledMemory(id=mid, text=text, status=status, valid_from=since, valid_until=None,
                          replaced_by=replaced_by, keyword=kw, cosine=cos, relevance=rel, topic=topic)


@pytest.mark.parametrize(
    ("items", "lines"),
    [
        # a present question: the current fact only (recall never lets the historical one in)
        ([item(3, "I moved to Hamburg", kw=1.0)], ["• I moved to Hamburg"]),
        # a past question: current first, then what it replaced, most recent first, labelled
        (
            [item(1, "I live in London", "historical", kw=1.0, replaced_by=3),
             item(3, "I moved to Hamburg", kw=1.0),
             item(2, "I moved to Berlin", "historical", kw=1.0, rel=0.9, replaced_by=3)],
            ["• I moved to Hamburg", "• I moved to Berlin (before)", "• I live in London (before)"],
        ),
        # a past fact whose successor is not shown still says it is past
        ([item(1, "I drove a Golf", "historical", kw=1.0)], ["• I drove a Golf (before)"]),
        # possibly outdated facts say so, after the current ones
        ([item(5, "I might move to Oslo", "unsure", kw=1.0), item(6, "I live in Bergen", kw=0.9)],
         ["• I live in Bergen", "• I might move to Oslo (possibly outdated)"]),
        # stated dates stay on the line, before the label
        ([item(7, "I live in Lyon", "historical", kw=1.0, since=date(2019, 1, 1))],
         ["• I live in Lyon (since 2019) (before)"]),
        # no evidence: a memory recall added because the person has few, or a neighbour
        ([item(8, "I love jazz", rel=0.0), item(9, "I live in Lisbon", kw=2.0)], ["• I live in Lisbon"]),
        ([item(8, "I love jazz", cos=0.2, rel=0.3)], []),
        # far below the best: left out
        ([item(9, "I live in Lisbon", kw=2.0), item(10, "My sister lives in Rome", kw=0.2, rel=0.2)],
         ["• I live in Lisbon"]),
        # the meaning side: a high cosine counts, a low one does not
        ([item(11, "I have a dog called Rex", cos=0.48), item(12, "I am vegetarian", cos=0.28, rel=0.5)],
         ["• I have a dog called Rex"]),
        # the one memory clearly closest counts from a lower cosine, two close ones do not
        ([item(13, "My partner is called Sam", cos=0.32), item(14, "I'm 34 years old", cos=0.23, rel=0.7)],
         ["• My partner is called Sam"]),
        ([item(15, "I'm 34 years old", cos=0.33), item(16, "I have a hamster", cos=0.28, rel=0.9)], []),
        # a topic question answered by a fact of its topic: another topic's fact needs a cosine,
        # a shared word is not enough ("how old am I?" / "my old corolla")
        ([item(17, "I am 34", kw=1.0, topic="asked"), item(18, "my old corolla needs tires", kw=1.0, topic="other")],
         ["• I am 34"]),
        ([item(17, "I am 34", kw=1.0, topic="asked"),
          item(18, "my old corolla needs tires", kw=1.0, cos=0.45, topic="other")],
         ["• I am 34", "• my old corolla needs tires"]),
        # no fact of the topic answers: a shared word is still no answer ("how old am I?" had
        # shown "Mercedes. E-class. Twenty years old." as the person's age, seventeenth pass)
        ([item(18, "my old corolla needs tires", kw=1.0, topic="other")], []),
        ([item(17, "I am 34", kw=1.0, topic="asked", rel=0.3),
          item(18, "my old corolla needs tires", kw=1.0, topic="other")], []),
        ([item(18, "my old corolla needs tires", kw=1.0, cos=0.45, topic="other")], ["• my old corolla needs tires"]),
        ([], []),
    ],
)
def test_answer_lines(items, lines) -> None:
    assert answer_lines(items) == lines


def test_at_most_six_lines() -> None:
    many = [item(i, f"I like colour {i}", kw=1.0) for i in range(1, 20)]
    assert len(shown(many)) == 6 and len(answer_lines(many)) == 6


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("I'm 34 years old and I'm allergic to peanuts.", "statement"),
        ("I have a cat called Pixel.", "statement"),
        ("I moved to Berlin last year", "statement"),
        ("btw my wife works at the hospital", "statement"),
        ("where do I live?", "question"),
        ("do I have pets", "question"),
        ("tell me about my dog", "question"),
        ("what did I drive before?", "question"),
        ("I moved to Berlin. Where should I eat tonight?", "statement"),  # what they said first
        ("hello!", "small_talk"),
        ("thanks", "small_talk"),
        ("lol", "small_talk"),
        ("I have a meeting tomorrow at 9", "small_talk"),  # a plan for today, not a fact
        ("The weather is nice", "small_talk"),
        ("👍", "small_talk"),
        # chat drops the subject, or speaks of a pet or a drink without "I": the rules that
        # compare facts read these (walking the story in the terminal, twelfth pass: each was
        # small talk, and nothing was offered)
        ("just so u know, turned 35 yesterday 🎂", "statement"),
        ("our yellow lab Rosie is scared of the hoover", "statement"),
        ("Ray and I just hit our 12th wedding anniversary", "statement"),
        ("I need coffee with a lot of sugar before my shift", "statement"),
        ("sinlge. too busy for dates", "statement"),
        ("I watched a movie", "small_talk"),
        ("I went to the shop", "small_talk"),
        ("I have a question", "small_talk"),
        ("I like that idea", "small_talk"),
        ("I made pasta tonight", "small_talk"),
        ("am i maried", "question"),  # typed fast, no question mark: the rules read "married"
    ],
)
def test_message_kind(text: str, kind: str) -> None:
    assert message_kind(text) == kind


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("Store this: I have a pit mix called Tank", ["I have a pit mix called Tank"]),
        ("just so u know, turned 35 yesterday 🎂", ["turned 35 yesterday 🎂"]),
        ("for the record, I'm vegetarian", ["I'm vegetarian"]),
        ("Note: our lab Rosie is scared of the hoover.", ["our lab Rosie is scared of the hoover"]),
        ("I have a cat called Pixel.", ["I have a cat called Pixel"]),
    ],
)
def test_the_offer_saves_the_fact_without_what_was_said_to_the_bot(text: str, facts: list[str]) -> None:
    assert offered_facts(text) == facts


def test_the_offer_quotes_what_would_be_saved() -> None:
    assert offer_text(["I have a cat called Pixel"]) == "Shall I remember this? “I have a cat called Pixel”"
    assert offer_text(["I'm 34", "I'm allergic to peanuts"]) == (
        "Shall I remember these?\n1. “I'm 34”\n2. “I'm allergic to peanuts”"
    )
    one = offer_buttons(["I have a cat"])
    assert [[b.label for b in row] for row in one] == [["Save"]]
    two = offer_buttons(["I'm 34", "I'm allergic to peanuts"])
    assert [[b.label for b in row] for row in two] == [["Save 1", "Save 2"], ["Save all"]]
    assert two[1][0].payload == {"facts": ["I'm 34", "I'm allergic to peanuts"], "whole": True}
    assert all(b.alone for row in two for b in row)  # one press does not use up the others
