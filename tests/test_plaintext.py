"""bot.plaintext: which characters stored and shown text loses, as a table."""

from __future__ import annotations

import pytest

from bot.memory.writing.saving import clean_fact
from bot.plaintext import has_controls, is_blank, is_unreadable, strip_controls

CASES = [
    # (typed, kept with newlines, kept on one line)
    ("plain text", "plain text", "plain text"),
    ("tab\there", "tab\there", "tab\there"),
    ("two\nlines", "two\nlines", "two lines"),
    ("windows\r\nline", "windows\nline", "windows line"),
    ("cursor\rback", "cursor\nback", "cursor back"),
    ("\x1b]0;pwned\x07title", "]0;pwnedtitle", "]0;pwnedtitle"),  # terminal title change
    ("\x1b[2J\x1b[Hclear", "[2J[Hclear", "[2J[Hclear"),  # screen clear
    ("nul\x00 and bell\x07", "nul and bell", "nul and bell"),
    ("del\x7f", "del", "del"),
    ("c1 csi\x9b31m and nel\x85", "c1 csi31m and nel", "c1 csi31m and nel"),
    ("\u202eevil\u202c", "evil", "evil"),  # right-to-left override and pop
    ("\u2066isolate\u2069 \u2067r\u2068f", "isolate rf", "isolate rf"),
    ("\u200fRTL mark\u200e LRM \u061c ALM", "\u200fRTL mark\u200e LRM \u061c ALM", "\u200fRTL mark\u200e LRM \u061c ALM"),
    ("emoji 🙂 é 漢字", "emoji 🙂 é 漢字", "emoji 🙂 é 漢字"),
    ("\u00a0nbsp \u00ad soft hyphen", "\u00a0nbsp \u00ad soft hyphen", "\u00a0nbsp \u00ad soft hyphen"),
]


@pytest.mark.parametrize(("typed", "multi", "single"), CASES)
def test_strip_controls(typed: str, multi: str, single: str) -> None:
    assert strip_controls(typed) == multi
    assert strip_controls(typed, keep_newlines=False) == single
    assert has_controls(typed) == (multi != typed.replace("\r\n", "\n").replace("\r", "\n"))


@pytest.mark.parametrize(
    ("typed", "saved"),
    [
        ("I live in \x1b[31mLondon\x1b[0m", "I live in [31mLondon[0m"),
        ("I like\x7f tea", "I like tea"),
        ("my pin is \u202e4321\u202c", "my pin is 4321"),
        ("c1\x9b here", "c1 here"),
        ("  two\nlines\r\nand\ttab  ", "two lines and tab"),
    ],
)
def test_typed_facts_lose_del_c1_and_bidi_controls(typed: str, saved: str) -> None:
    assert clean_fact(typed) == saved


@pytest.mark.parametrize(
    ("typed", "blank", "unreadable"),
    [
        ("", True, False),
        (" ", True, False),
        ("\n\t \r\n", True, False),
        ("\u00a0\u3000\u2003", True, False),  # no-break, ideographic and em spaces
        ("\x00", False, True),
        ("\x01\x1b\x7f", False, True),
        ("\x1c\x1f\x85", False, True),  # str.isspace() says these are spaces; they are controls
        ("\u200b", False, True),
        ("\u200b\u200c\u200d\ufeff\u2060 \n", False, True),
        ("\u202e\u2066\u200f", False, True),
        ("\u2800\u3164", False, True),
        ("hi\x00", False, False),
        ("\u200bhello", False, False),
        ("🙂", False, False),
        ("\u0301", False, False),  # a lone accent still shows
        (".", False, False),
    ],
)
def test_blank_and_unreadable(typed: str, blank: bool, unreadable: bool) -> None:
    assert (is_blank(typed), is_unreadable(typed)) == (blank, unreadable)
