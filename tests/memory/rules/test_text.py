"""The shared text helpers: every memory rule relies on these agreeing about what "the same
word" is, so each behaviour is pinned by a table of cases."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.memory.rules.text import (
    GENERIC_WORDS,
    IRREGULAR_FORMS,
    STOP_WORDS,
    content_words,
    lemma,
    lemmas,
    names,
    normalise,
    numbers,
    tokens,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm vegan", "i am vegan"),
        ("Im vegan now", "i am vegan now"),
        ("I don't eat meat", "i do not eat meat"),
        ("I dont eat meat", "i do not eat meat"),
        ("I can't drive", "i can not drive"),
        ("I won't go", "i will not go"),
        ("I\u2019ve moved", "i have moved"),
        ("She's my wife's sister", "she is my wife sister"),
        ("my parents' farm", "my parents farm"),
        ("full-time job", "full time job"),
        ("I am 60years old", "i am 60 years old"),
        ("  lots   of\tspace ", "lots of space"),
        ("I'd love to", "i would love to"),
        # a line break ends a sentence, and a list item's mark goes with it (seventeenth pass)
        ("Home:\n- Port Sudan these days\n- moved in 2023", "home: port sudan these days. moved in 2023"),
        ("Basics:\r\n1. age 47\r\n2) that's it", "basics: age 47. that is it"),
        ("hi,\nthere\n\n\nyou", "hi, there. you"),
        # accents folded: an accent had cut a word in two ("thi", "s")
        ("Thiès, Montréal, Peñarol", "thies, montreal, penarol"),
        ("Łódź and Ærøskøbing, straße", "lodz and aeroskobing, strasse"),
        ("Tiếng Việt", "tieng viet"),
        # a mark that makes another letter stays: kana, Cyrillic, and CJK untouched
        ("がぎ Москва й 柏林", "がぎ москва й 柏林"),
        # emoji are spaces; a degree sign or a copyright sign stays
        ("Musanze 🌋 is home 😍", "musanze is home"),
        ("👨‍👩‍👧 family, 👍🏽", "family,"),
        ("30°C ©", "30°c ©"),
        # a dash between spaces is a comma; a hyphen inside a word a space, as before
        ("Surf instructor — that's me", "surf instructor, that is me"),
        ("retired - forty years on the rails", "retired, forty years on the rails"),
        # a "*word" correction takes the place of the slip it corrects (eighteenth pass)
        ("my boyfiend *boyfriend is cooking", "my boyfriend is cooking"),
        ("remeber *remember, finaly got a Ranger *finally", "remember, finally got a ranger"),
        ("living in Seville *Sevilla, my phone", "living in sevilla, my phone"),
        ("I live in Rome *Milan", "i live in milan"),
        ("*English", "english"),
        # emphasis, a bullet and arithmetic are no corrections
        ("I *love* it", "i *love* it"),
        ("* item one", "* item one"),
        ("5 * 3 and a*b", "5 * 3 and a*b"),
        ("I *really love* it", "i *really love* it"),
        ("12 *English", "12 english"),
    ],
)
def test_normalise(text: str, expected: str) -> None:
    assert normalise(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I have 5cats", ["i", "have", "5", "cats"]),
        ("It costs 1,500 dollars, or 2.50 each.", ["it", "costs", "1,500", "dollars", "or", "2.50", "each"]),
        ("Hello, World!", ["hello", "world"]),
        ("", []),
    ],
)
def test_tokens(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected


@pytest.mark.parametrize(
    ("forms", "expected"),
    [
        (("hike", "hikes", "hiked", "hiking"), "hike"),
        (("move", "moves", "moved", "moving"), "move"),
        (("live", "lives", "lived", "living"), "live"),
        (("marry", "marries", "married"), "marry"),
        (("run", "runs", "running", "ran"), "run"),
        (("shop", "shops", "shopping"), "shop"),
        (("dance", "dances", "dancing"), "dance"),
        (("study", "studies", "studied", "studying"), "study"),
        (("retire", "retired", "retiring"), "retire"),
        (("dog", "dogs"), "dog"),
        (("city", "cities"), "city"),
        (("movie", "movies"), "movie"),
        (("day", "days"), "day"),
        (("class", "classes"), "class"),
        (("child", "children"), "child"),
        (("kid", "kids"), "kid"),
        (("wife", "wives"), "wife"),
        (("sell", "sold"), "sell"),
        (("buy", "bought"), "buy"),
        (("favorite", "favourite", "favourites"), "favorite"),
        (("color", "colour"), "color"),
    ],
)
def test_lemma_brings_word_forms_together(forms: tuple[str, ...], expected: str) -> None:
    assert {lemma(form) for form in forms} == {expected}


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("teacher", "teacher"),  # agent nouns keep their ending: teacher is not "teach"
        ("morning", "morning"),
        ("thing", "thing"),
        ("need", "need"),
        ("bus", "bus"),
        ("always", "always"),
        ("gymnastics", "gymnastics"),
        ("1990", "1990"),
    ],
)
def test_lemma_leaves_words_that_only_look_inflected(word: str, expected: str) -> None:
    assert lemma(word) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I really love hiking in the mountains with my dogs", {"hike", "mountain", "dog"}),
        ("My favourite colour is blue", {"color", "blue"}),
        ("I live in London", {"london"}),
        ("I have 3 kids", {"kid"}),
        ("I like it a lot", set()),
        ("", set()),
    ],
)
def test_content_words(text: str, expected: set[str]) -> None:
    assert content_words(text) == expected


def test_lemmas_keep_generic_verbs_for_meaning() -> None:
    # "I live in Paris" and "I visited Paris" share their only content word; the verbs differ.
    assert lemmas("I live in Paris") == {"live", "paris"}
    assert lemmas("I visited Paris") == {"visit", "paris"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I have 2 kids", {"2"}),
        ("I have two kids", {"2"}),
        ("I am four years old", {"4"}),
        ("twenty five", {"25"}),
        ("twenty-five", {"25"}),
        ("a hundred dogs", {"100"}),
        ("one hundred and twenty", {"120"}),
        ("a dozen eggs", {"12"}),
        ("It cost 1,500", {"1500"}),
        ("2.50 and 2.5", {"2.5"}),
        ("born in 1990", {"1990"}),
        ("I have a dog", set()),
        ("no numbers here", set()),
        ("agent 007 and 0.0", {"7", "0"}),
        ("00.50 litres", {"0.5"}),
        # beyond Python's 4,300-digit int() limit (an imported memory had such a number)
        ("my lucky number is " + "9" * 5000, {"9" * 5000}),
        ("padded " + "0" * 4400 + "12", {"12"}),
        ("1," + "0" * 4500, {"1" + "0" * 4500}),
    ],
)
def test_numbers(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I drive a VW Golf", {"vw", "golf"}),
        ("I moved to New York from London", {"new", "york", "london"}),
        ("Paris is lovely. I live in Paris", {"paris"}),  # sentence-initial only is skipped
        ("I live in paris", set()),  # lower-case chat gives no names
        ("I am happy", set()),
        ("BMW is my car", {"bmw"}),  # an acronym counts even at the start
    ],
)
def test_names(text: str, expected: set[str]) -> None:
    assert names(text) == expected


def test_word_lists_are_disjoint_and_lower_case() -> None:
    assert not STOP_WORDS & GENERIC_WORDS
    assert all(word == word.lower() for word in STOP_WORDS | GENERIC_WORDS)
    assert "favorite" in GENERIC_WORDS and "the" in STOP_WORDS
    assert IRREGULAR_FORMS["children"] == "child"


@given(st.text(max_size=80))
@example("A0\U0001e2f0")  # a Wancho digit after an ASCII one: names gave "0", not a token (found 2026-12-03)
def test_helpers_never_fail_and_are_deterministic(text: str) -> None:
    assert tokens(text) == tokens(text)
    assert content_words(text) == content_words(text)
    assert numbers(text) == numbers(text)
    assert names(text) <= set(tokens(text)) | {t for t in tokens(text.lower())}
    assert all(word and word == word.lower() for word in content_words(text))


@pytest.mark.parametrize(
    ("text", "pattern", "expected"),
    [
        ("I live in São Paulo", "sao paulo", "São Paulo"),
        ("Ærøskøbing, by the sea", "aeroskobing", "Ærøskøbing"),
        ("Straße 5", "strasse", "Straße"),
        ("I live in Lisbon", "berlin", None),
    ],
)
def test_a_value_read_folded_is_found_as_written(text: str, pattern: str, expected: str | None) -> None:
    from bot.memory.rules.text import written_span

    assert written_span(text, pattern) == expected
