"""Background extraction: the cheap gate as a table, and the grounded, capped model call."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.llm.client import LLM
from bot.llm.extract import asks, extract_facts, is_grounded, stated_facts, worth_extracting
from tests.standins.anthropic_api import (
    AnthropicStandIn,
    anthropic_standin,  # noqa: F401  (fixture)
    standin_settings,
    text_message,
    tool_use_message,
)

pytestmark = pytest.mark.timeout(20)

DISCLOSING = [
    "I live in Lisbon now",
    "i live in madrid",
    "I moved to Berlin last year",
    "We moved to Paris in March",
    "My wife is a doctor",
    "my wife Ana loves hiking",
    "I work at a bakery downtown",
    "I work as a nurse",
    "I'm vegan",
    "I’m vegan",
    "I am vegetarian, by the way",
    "I'm allergic to peanuts",
    "My name is Bob",
    "my name's Alice",
    "Call me Sam, please",
    "I have two kids",
    "We have a dog called Rex",
    "I have a Tesla Model 3",
    "We bought a house in Leeds",
    "I'm a software engineer",
    "I'm an architect at Foster's",
    "I'm 34 years old",
    "I'm 41.",
    "I'm from Brazil",
    "I'm originally from Kyiv",
    "I quit my job at the bank",
    "I started a new job at Spotify",
    "I sold my car last month",
    "I no longer live in London",
    "I don't eat meat",
    "I don't drink alcohol",
    "I can't eat gluten",
    "I prefer short answers",
    "I hate cilantro",
    "I love jazz and play the saxophone",
    "I've been married for 10 years",
    "I'm learning Japanese",
    "I'm writing a novel about sailors",
    "I'm training for a marathon",
    "My daughter turned 5 last week",
    "My favourite band is Radiohead",
    "Thanks! By the way, I'm a teacher.",
    "Can you suggest a recipe? I'm vegetarian.",
    "What do you think? I live in a small flat so space matters.",
    "Just so you know, my birthday is on 3 May",
    "I grew up in Osaka",
    "I was born in 1990",
    "I speak Spanish and German",
    "I drive a VW Golf",
    "I got married in June",
    "We adopted a cat",
    "I use Linux at work",
    "my wife and I love sushi",
    "Our kids go to school in Lyon",
    "My husband works at Google",
    "My mom lives with us",
]

NOT_DISCLOSING = [
    "",
    "hi",
    "Hello!",
    "good morning",
    "thanks a lot",
    "ok",
    "cool, thanks!",
    "lol",
    "yes please",
    "That sounds great, thank you",
    "/memories",
    "/remind tomorrow 9 call mom",
    "/forget I live in Paris",
    "Where do I live?",
    "What's my wife's name?",
    "do you remember my name",
    "Did I tell you about my sister?",
    "Is my car insurance due?",
    "Could you remind me what I said about my job",
    "How are you doing today",
    "What's the weather like in Paris?",
    "Can you help me write an email?",
    "Remind me tomorrow at 9 to call mom",
    "Remind me to call my wife",
    "Tell me a joke",
    "Translate 'good night' into French",
    "Summarise this article for me",
    "Let's plan the trip",
    "I'm tired",
    "I'm so happy today!",
    "I'm a bit stressed",
    "I feel sick",
    "I'm not sure",
    "I agree",
    "I'm done",
    "I think so",
    "I don't know",
    "I have a question",
    "I have a question about my car",
    "I have a meeting at 3pm",
    "I have a dentist appointment tomorrow",
    "I have to go",
    "I have no idea",
    "I don't have time for this",
    "I need to buy milk",
    "I want to book a flight to Rome",
    "I like this answer",
    "I love it!",
    "I'm going to the gym",
    "I'm at the office",
    "I'm looking for a good pizza place",
    "I just had lunch",
    "I've been thinking about it",
    "I'm working on a report for tomorrow",
    "my wife asked me to buy milk",
]


@pytest.mark.parametrize("text", DISCLOSING)
def test_worth_extracting(text: str) -> None:
    assert worth_extracting(text)


@pytest.mark.parametrize("text", NOT_DISCLOSING)
def test_not_worth_extracting(text: str) -> None:
    assert not worth_extracting(text)


@given(st.text(max_size=300))
def test_gate_never_fires_on_commands_or_single_questions(text: str) -> None:
    assert worth_extracting("/" + text) is False
    one_question = " ".join(text.replace("?", " ").replace(".", " ").replace("!", " ").replace(";", " ").split())
    assert worth_extracting(one_question + "?") is False


@pytest.mark.parametrize(
    "fact, said, grounded",
    [
        ("I live in Paris", "I moved to Paris last year", True),
        ("I live in Lisbon", "I moved to Paris last year", False),  # a city never typed
        ("I have two kids", "we have 2 kids", True),
        ("I have three kids", "we have 2 kids", False),  # a number never typed
        ("My wife is called Ana", "my wife Ana loves hiking", True),
        ("My wife is called Maria", "my wife Ana loves hiking", False),
        ("I am vegetarian", "I'm vegetarian these days", True),
        ("I work as a nurse at St Mary's hospital", "I'm a nurse at St Mary's", True),
        ("I love opera and ballet", "I'm a nurse", False),
        ("I am here", "I am here", False),  # nothing to ground
        ("Je suis végétarienne", "au fait je suis végétarienne", True),
        ("Elle habite à Lyon", "j'habite à Lyon", True),  # lexical only: the third-person check is elsewhere
    ],
)
def test_grounding(fact: str, said: str, grounded: bool) -> None:
    assert is_grounded(fact, said) is grounded


def facts(*items: str) -> dict:
    return tool_use_message("save_facts", {"facts": list(items)})


async def run(server: AnthropicStandIn, recent: list[tuple[str, str]]) -> list[str]:
    return await extract_facts(LLM(standin_settings(server)), 1, recent)


async def test_at_most_two_grounded_facts(anthropic_standin: AnthropicStandIn) -> None:
    said = "My name is Bob, I live in Leeds with my wife Ana and I work as a plumber."
    anthropic_standin.enqueue(
        facts("My name is Bob", "I live in Leeds", "I work as a plumber", "My wife is called Ana")
    )
    found = await run(anthropic_standin, [("user", said)])
    assert found == ["My name is Bob", "I live in Leeds"]
    body = anthropic_standin.requests[0].json
    assert body["model"] == "standin-extract"
    assert body["tool_choice"] == {"type": "tool", "name": "save_facts"}
    assert '<message role="user">' in body["messages"][0]["content"]


async def test_invented_and_assistant_facts_are_dropped(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(facts("I live in Rome", "I am a nurse", "The user likes cats"))
    recent = [
        ("user", "where do I live again?"),
        ("assistant", "You told me you live in Rome."),
        ("user", "Right. Also, I'm a nurse now."),
    ]
    assert await run(anthropic_standin, recent) == ["I am a nurse"]


async def test_facts_in_the_persons_language_are_kept(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(facts("J'habite à Lyon", "J'habite à Paris"))
    assert await run(anthropic_standin, [("user", "Au fait, j'habite à Lyon depuis mai.")]) == ["J'habite à Lyon"]


async def test_duplicates_and_overlong_facts_are_dropped(anthropic_standin: AnthropicStandIn) -> None:
    said = "I'm vegan. " + "I like " + ", ".join(f"band{i}" for i in range(60))
    anthropic_standin.enqueue(facts("I am vegan", "I am vegan.", "I like " + ", ".join(f"band{i}" for i in range(60))))
    assert await run(anthropic_standin, [("user", said)]) == ["I am vegan"]


@pytest.mark.parametrize(
    "reply",
    [
        tool_use_message("save_facts", {"facts": "I live in Leeds"}),  # not a list
        tool_use_message("save_facts", {}),
        text_message('{"facts": ["I live in Leeds"]}'),
    ],
    ids=["not-a-list", "empty", "free-text"],
)
async def test_bad_answers_give_nothing(anthropic_standin: AnthropicStandIn, reply: dict) -> None:
    anthropic_standin.enqueue(reply)
    assert await run(anthropic_standin, [("user", "I live in Leeds")]) == []


async def test_failures_give_nothing(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.fail_next(500, 1)
    assert await run(anthropic_standin, [("user", "I live in Leeds")]) == []
    assert await extract_facts(LLM(standin_settings(anthropic_standin, anthropic_api_key="")), 1, [("user", "I live in Leeds")]) == []


async def test_no_call_unless_the_person_spoke_last(anthropic_standin: AnthropicStandIn) -> None:
    assert await run(anthropic_standin, []) == []
    assert await run(anthropic_standin, [("user", "I live in Leeds"), ("assistant", "Nice!")]) == []
    assert anthropic_standin.requests == []


# ---------------------------------------------------------------------------------------------
# What a message states, for the Save offer without a model


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("I'm 34 years old and I'm allergic to peanuts.", ["I'm 34 years old", "I'm allergic to peanuts"]),
        ("I have a cat called Pixel.", ["I have a cat called Pixel"]),
        ("I'm a nurse and I live in Leeds", ["I'm a nurse", "I live in Leeds"]),
        ("I live in Oslo, I work at a bank and I have two kids",
         ["I live in Oslo", "I work at a bank", "I have two kids"]),
        ("I am vegetarian; I live in Oslo", ["I am vegetarian", "I live in Oslo"]),
        ("Oh btw, I moved to Berlin last year!", ["I moved to Berlin last year"]),
        # a name is not a statement of its own: the sentence stays whole
        ("My wife Ana and I live in Porto", ["My wife Ana and I live in Porto"]),
        ("I love hiking, and my sister Ana lives in Rome", ["I love hiking, and my sister Ana lives in Rome"]),
        # two sentences, and only the lasting one
        ("I live in Leeds. I have a meeting tomorrow at 9.", ["I live in Leeds"]),
        ("I drive a Fiat. I love it.", ["I drive a Fiat"]),
        # at most three
        ("I'm 30. I live in Rome. I drive a Fiat. I have a dog.", ["I'm 30", "I live in Rome", "I drive a Fiat"]),
        ("where do I live?", []),
        # questions typed fast: a misspelt question word, no question mark
        ("wher do i live", []),
        ("whre do i work now", []),
        ("waht do i do for a living", []),
        ("hw old am i", []),
        ("thanks!", []),
        ("remind me to call mom", []),
        ("", []),
    ],
)
def test_stated_facts(text: str, facts: list[str]) -> None:
    assert stated_facts(text) == facts


@pytest.mark.parametrize(
    ("text", "asking"),
    [
        ("where do I live?", True),
        ("do I have pets", True),
        ("tell me about my dog", True),
        ("hmm, what's my sister's name", True),
        ("我住在哪里？", True),
        ("Wo wohne ich?", True),
        ("wher do i live", True),
        ("wat car do i drive", True),
        ("hwo old am i", True),
        ("I live in Leeds", False),
        ("Berlin is where I live now", False),
        ("hello", False),
        ("", False),
    ],
)
def test_asks(text: str, asking: bool) -> None:
    assert asks(text) is asking


@given(st.text(max_size=300))
def test_stated_facts_are_the_persons_words(text: str) -> None:
    """Every offered fact is a piece of what was typed: the offer never invents text."""
    squeezed = " ".join(text.split())
    for fact in stated_facts(text):
        assert " ".join(fact.split()) in squeezed
