"""The search form of a memory (bot/storage/search_text.py): what the keyword index reads besides
the text. Pure; a table of cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.storage.search_text import emoji_words, run_grams, search_form, split_unspaced


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("I live in Berlin", None),  # plain text: the index reads the text alone, as before
        ("Ich wohne in München", None),
        ("Я живу в Москве", None),
        ("", None),
        ("我住在柏林", "我住在柏林\n我 住 在 柏 林 我住 住在 在柏 柏林"),
        ("猫", "猫\n猫"),
        ("東京です", "東京です\n東 京 で す 東京 京で です"),
        ("iPhone手机", "iPhone手机\niPhone 手 机 手机"),
        ("I love pizza 🍕", "I love pizza 🍕\nslice pizza"),
        ("🐶🐶 Rex", "🐶🐶 Rex\ndog"),
        ("© 2024, 20°C", None),  # symbols of text are not emoji
        ("🇫🇷", None),  # a flag's name says nothing searchable
        ("ｶﾀｶﾅ", "ｶﾀｶﾅ\nカ タ ナ カタ タカ カナ"),  # half-width katakana, searched as full-width
    ],
)
def test_search_form(text: str, form: str | None) -> None:
    assert search_form(text) == form


@pytest.mark.parametrize(
    ("token", "runs"),
    [
        ("iphone手机", [(False, "iphone"), (True, "手机")]),
        ("手机iphone手机", [(True, "手机"), (False, "iphone"), (True, "手机")]),
        ("berlin", [(False, "berlin")]),
        ("", []),
    ],
)
def test_split_unspaced(token: str, runs: list[tuple[bool, str]]) -> None:
    assert split_unspaced(token) == runs


def test_run_grams() -> None:
    assert run_grams("柏林", unigrams=False) == ["柏林"]
    assert run_grams("我住在", unigrams=False) == ["我住", "住在"]
    assert run_grams("我住在", unigrams=True) == ["我", "住", "在", "我住", "住在"]
    assert run_grams("啊啊啊", unigrams=True) == ["啊", "啊啊"]
    assert run_grams("猫", unigrams=False) == ["猫"]


def test_emoji_words() -> None:
    assert emoji_words("🐶 and 🐱") == ["dog", "cat"]
    assert emoji_words("❤️👍🏽") == ["heart", "thumbs", "up"]
    assert emoji_words("no emoji here") == []


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_the_form_starts_with_the_text(text: str) -> None:
    """Whatever is typed, the index still reads the text itself first (phrase and prefix
    matches on the text are unchanged); extras only follow it."""
    form = search_form(text)
    assert form is None or (form.startswith(text + "\n") and len(form) > len(text) + 1)
