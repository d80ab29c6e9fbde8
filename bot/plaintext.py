"""What stored and shown text may hold: no control characters that act on a screen.

Why one function for typed and imported text alike: a memory, a reminder or an episode reaches
the terminal, Telegram and Discord. Raw escapes (ESC, the C1 range) can change a terminal's
title, clear its screen or hide text; DEL and other C0 controls are invisible noise; bidi
overrides and isolates make text read differently from what it is ("Trojan Source"). None of
them carries meaning a person typed on purpose, so they are removed before anything is stored.
Bidi *marks* (U+200E, U+200F, U+061C) are kept: right-to-left writers use them legitimately and
they cannot reorder text beyond themselves.
"""

from __future__ import annotations

import re
import unicodedata

# C0 controls except tab and newline, DEL, the C1 range, and the bidi embeddings, overrides
# and isolates (U+202A..U+202E, U+2066..U+2069). Carriage returns go too: "\r\n" becomes "\n"
# first, and a lone "\r" (which moves a terminal's cursor back over the line) becomes "\n".
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def strip_controls(text: str, *, keep_newlines: bool = True) -> str:
    """`text` without control characters; tabs and (if `keep_newlines`) line breaks stay, any
    other line break becomes a space."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not keep_newlines:
        text = text.replace("\n", " ")
    return _CONTROLS.sub("", text)


def has_controls(text: str) -> bool:
    """Whether `strip_controls` would change `text` (line breaks aside)."""
    return bool(_CONTROLS.search(text.replace("\r\n", "\n").replace("\r", "\n")))


# Characters that show nothing: zero-width and other format characters (category Cf, which
# includes the bidi marks and the byte order mark) and the blank "letters" people paste to send
# an empty-looking message (Braille blank, the Hangul fillers).
_FILLERS = frozenset("\u2800\u3164\u115f\u1160\uffa0")
_LINE_SPACE = frozenset("\t\n\r\x0b\x0c")


def is_blank(text: str) -> bool:
    """Whether only spaces and line breaks were typed: nothing was sent (the terminal's Enter;
    Telegram and Discord refuse to send such a message). Python's str.isspace also calls the
    controls U+001C..U+001F and U+0085 spaces; here they are not, they are unreadable."""
    return all(ch in _LINE_SPACE or unicodedata.category(ch) in ("Zs", "Zl", "Zp") for ch in text)


def is_unreadable(text: str) -> bool:
    """Whether something was typed but nothing a person can read is in it: only control
    characters, zero-width or other invisible characters (and spaces). Such a message is
    answered plainly and changes nothing, rather than saved or searched as an empty text."""
    if is_blank(text):
        return False
    return all(
        ch in _FILLERS or ch in _LINE_SPACE or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zs", "Zl", "Zp")
        for ch in text
    )
