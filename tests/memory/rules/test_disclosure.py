"""Whether a message tells a lasting fact about the person, what a compound fact says besides a
new one's topics, and what a message says to the bot first: pure tables
(bot/memory/rules/disclosure.py)."""

from __future__ import annotations

import pytest

from bot.memory.rules.disclosure import also_says, strip_lead_in, tells_about_self


@pytest.mark.parametrize(("text", "tells"), [
    ("turned 35 yesterday 🎂", True),
    ("our yellow lab Rosie is scared of the hoover", True),
    ("sinlge. too busy for dates", True),
    ("I need coffee with a lot of sugar before my shift", True),
    ("I knit", True),
    ("I watched a movie", False),
    ("I went to the shop", False),
    ("I have a question", False),
    ("I like that idea", False),
    ("I want a dog", False),
    ("where do I live?", False),
])
def test_tells_about_self(text: str, tells: bool) -> None:
    assert tells_about_self(text) is tells


@pytest.mark.parametrize(("old", "new", "besides"), [
    ("I'm 34 and I live in Leeds", "turned 35 yesterday", ["where you live"]),
    ("Hey my name is larry and i am a chef.", "I am a musician.", ["your name"]),
    ("I am a 56 year old woman", "I am 57", []),  # a word for oneself is no topic one loses
    ("I live in Leeds", "I moved to York", []),
])
def test_also_says(old: str, new: str, besides: list[str]) -> None:
    assert also_says(old, new) == besides


@pytest.mark.parametrize(("text", "fact"), [
    ("Store this: I have a pit mix called Tank", "I have a pit mix called Tank"),
    ("just so u know, turned 35 yesterday", "turned 35 yesterday"),
    ("Remember when I had a cat?", "Remember when I had a cat?"),  # a question, not a lead-in
    ("write a novel someday", "write a novel someday"),  # a verb of recording needs what it keeps
    ("fyi", "fyi"),  # nothing left: unchanged
    # two lead-ins (a walk quoted "if anyone asks, jollof rice is ..." in its Save offer)
    ("fyi if anyone asks, jollof rice is my number one food", "jollof rice is my number one food"),
    # a list or a book of the bot's, and what one says lest it forget (twentieth pass)
    ("Add to your list: age 38", "age 38"),
    ("in case you forget: postwoman.", "postwoman."),
])
def test_strip_lead_in(text: str, fact: str) -> None:
    assert strip_lead_in(text) == fact
