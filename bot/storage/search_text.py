"""What the keyword index reads of a memory: its text, plus words a word-splitting tokenizer cannot
see. Pure.

Why: both full-text engines split text into words at spaces and punctuation. Chinese and
Japanese put no spaces between words (and Korean attaches particles to words), so "我住在柏林"
("I live in Berlin") is one token to SQLite's unicode61 tokenizer and to PostgreSQL's parser, and
a search for "柏林" (Berlin) finds nothing. The usual remedy without a dictionary is n-grams: the
index also holds every character and every pair of neighbouring characters of such a run, and a
query's run is searched by its pairs (a one-character query by that character). Pairs rather
than trigrams: most Chinese words are two characters long, and a trigram index alone cannot find
them. Emoji are not letters to either engine, so they are indexed (and searched) by their
Unicode names ("🐶" is DOG FACE: "dog").

The extra words live in `memory.search_text` (text + extras), set by the models' flush hook and
NULL when there is nothing to add, so the index of plain text is exactly as before. Both engines
index coalesce(search_text, text): SQLite through its triggers, PostgreSQL through the expression
of its GIN index. `bot.memory.index.keyword.query_terms` splits queries with the same functions.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["emoji_words", "has_unspaced", "run_grams", "search_form", "split_unspaced", "unspaced_char"]

# Scripts written without spaces between words (or, for Hangul, with particles attached):
# CJK ideographs (and their extensions and compatibility forms), Hiragana, Katakana, Hangul.
_UNSPACED_RANGES = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0x1100, 0x11FF),  # Hangul jamo
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)
_MAX_SCAN = 20_000  # only the start of a huge text gets extra words (a fact is at most 2,000)
_MAX_EXTRA_WORDS = 2_000

# Words of emoji names that say nothing about what the emoji shows.
_GENERIC_NAME_WORDS = frozenset(
    """face sign symbol with and of the a black white heavy light medium small large big slightly
    smiling grinning regional indicator letter variation selector modifier type emoji button
    squared negative circled combining mark fitzpatrick""".split()
)


_UNSPACED = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _UNSPACED_RANGES) + "]")
_MAYBE_EMOJI = re.compile("[\u2190-\U0010ffff]")  # pictographs and dingbats start at U+2190


def unspaced_char(ch: str) -> bool:
    """Whether `ch` belongs to a script written without spaces between words."""
    return _UNSPACED.match(ch) is not None


def has_unspaced(text: str) -> bool:
    return _UNSPACED.search(text) is not None


def split_unspaced(token: str) -> list[tuple[bool, str]]:
    """A word split into runs of unspaced-script characters and the rest, in order:
    "iphone手机" -> [(False, "iphone"), (True, "手机")]."""
    runs: list[tuple[bool, str]] = []
    for ch in token:
        kind = unspaced_char(ch)
        if runs and runs[-1][0] == kind:
            runs[-1] = (kind, runs[-1][1] + ch)
        else:
            runs.append((kind, ch))
    return runs


def run_grams(run: str, *, unigrams: bool) -> list[str]:
    """The character pairs of a run (and its single characters when `unigrams`), distinct, in
    order. A one-character run is its character."""
    if len(run) == 1:
        return [run]
    grams = [run[i : i + 2] for i in range(len(run) - 1)]
    if unigrams:
        grams = list(run) + grams
    return list(dict.fromkeys(grams))


def _emoji(ch: str) -> bool:
    # pictographs and dingbats; not (c), degree or trade mark signs, which are symbols of text
    return ord(ch) >= 0x2190 and unicodedata.category(ch) == "So"


def emoji_words(text: str) -> list[str]:
    """The meaningful words of the names of the emoji in `text`, lower case, distinct:
    "I love pizza 🍕" -> ["slice", "pizza"]; a flag or a bare modifier gives nothing."""
    out: list[str] = []
    if _MAYBE_EMOJI.search(text) is None:  # most text: nothing to look at
        return out
    for ch in dict.fromkeys(c for c in text[:_MAX_SCAN] if _emoji(c)):
        for word in unicodedata.name(ch, "").lower().replace("-", " ").split():
            if len(word) > 1 and word.isalpha() and word not in _GENERIC_NAME_WORDS:
                out.append(word)
    return list(dict.fromkeys(out))


_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def search_form(text: str | None) -> str | None:
    """What the keyword index should read for a memory: the text followed by the words a
    tokenizer cannot find in it (characters and pairs of unspaced-script runs, the other part of
    a mixed word such as "iPhone手机", emoji names), or None when there are none (the text alone
    is indexed then)."""
    if not text:
        return None
    head = text[:_MAX_SCAN]
    extras: list[str] = []
    if has_unspaced(head):
        norm = unicodedata.normalize("NFKC", head)
        for token in _WORD.findall(norm):
            runs = split_unspaced(token)
            if not any(kind for kind, _ in runs):
                continue
            for kind, run in runs:
                extras.extend(run_grams(run, unigrams=True) if kind else [run] if len(runs) > 1 else [])
    extras.extend(emoji_words(head))
    extras = list(dict.fromkeys(extras))[:_MAX_EXTRA_WORDS]
    if not extras:
        return None
    return text + "\n" + " ".join(extras)
