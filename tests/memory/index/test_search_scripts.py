"""Search in every script, through the real core on SQLite and PostgreSQL (issue 15, what was
seen item 5: `/search 柏林` found nothing though `我住在柏林` was saved, because FTS5's unicode61
tokenizer keeps a run of CJK characters as one token).

Chinese, Japanese and Korean text has no spaces between words, so the keyword index also holds
its characters and character pairs; a query's CJK run is searched by its pairs (or by the
character, for one alone). Emoji are searched by their names ("🐶" finds "my dog").
"""

from __future__ import annotations

import pytest

from tests.support.talk import Talk

pytestmark = pytest.mark.timeout(60)


def found(text: str) -> list[str]:
    """The memories a /search listed (without their numbers)."""
    return [line.split(". ", 1)[1] for line in text.splitlines() if line[:1].isdigit() and ". " in line]


@pytest.mark.parametrize(
    ("fact", "query"),
    [
        ("我住在柏林", "柏林"),  # a two-character word inside a sentence
        ("我住在柏林", "我住在柏林"),  # the whole sentence
        ("我养了一只猫", "猫"),  # one character
        ("我在北京大学工作", "北京大学"),
        ("東京に住んでいます", "東京"),  # Japanese: kanji inside kana
        ("ベルリンに引っ越しました", "ベルリン"),  # katakana
        ("저는 서울에 살아요", "서울"),  # Korean: a word with a particle attached
        ("I bought an iPhone手机 yesterday", "手机"),  # mixed scripts in one word
        ("I bought an iPhone手机 yesterday", "iphone"),
    ],
)
async def test_search_finds_cjk_words(core, fact: str, query: str) -> None:
    talk = Talk(core)
    assert (await talk.say(f"remember: {fact}")).text.startswith("Saved:")
    await talk.say("remember: I live in Berlin")  # something else that must not match
    out = await talk.say(f"/search {query}")
    assert found(out.text) == [fact], out.text


async def test_cjk_search_does_not_match_unrelated_characters(core) -> None:
    talk = Talk(core)
    await talk.say("remember: 我住在柏林")
    await talk.say("remember: 我喜欢吃面条")
    out = await talk.say("/search 柏林")
    assert found(out.text) == ["我住在柏林"]
    out = await talk.say("/search 林业")  # shares one character with 柏林, not the word
    assert found(out.text) == []


async def test_an_edited_cjk_memory_is_found_by_its_new_words_only(core) -> None:
    talk = Talk(core)
    await talk.say("remember: 我住在柏林")
    await talk.say("/memories")
    await talk.say("/edit 1 我住在汉堡")
    assert found((await talk.say("/search 汉堡")).text) == ["我住在汉堡"]
    assert found((await talk.say("/search 柏林")).text) == []


@pytest.mark.parametrize(
    ("fact", "query"),
    [
        ("I have a dog called Rex", "🐶"),
        ("My cat is called Pixel", "🐱"),
        ("🐶 Rex sleeps on the sofa", "dog"),  # an emoji in the memory is found by its name
        ("I love pizza 🍕", "🍕"),
    ],
)
async def test_emoji_queries_find_what_they_name(core, fact: str, query: str) -> None:
    talk = Talk(core)
    await talk.say(f"remember: {fact}")
    await talk.say("remember: I live in Berlin")
    out = await talk.say(f"/search {query}")
    assert found(out.text) == [fact], out.text


async def test_an_emoji_that_names_nothing_saved_answers_plainly(core) -> None:
    talk = Talk(core)
    await talk.say("remember: I live in Berlin")
    out = await talk.say("/search 🎻")
    assert out.text == "Nothing in your memories matches “🎻”."
    out = await talk.say("/search 🇩🇪")  # a flag has no searchable name
    assert out.text == "Nothing in your memories matches “🇩🇪”."
