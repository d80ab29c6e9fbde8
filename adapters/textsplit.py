"""Splitting long replies for platforms with a message length limit.

Why here and not in each adapter: Telegram (4,096) and Discord (2,000) need the same rule, and
a rule is easier to trust when it is one pure function with a table of cases.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def split_message(text: str, limit: int) -> list[str]:
    """Split `text` into chunks of at most `limit` characters.

    Prefers paragraph breaks, then line breaks, then sentence ends, then spaces; cuts a word
    only when a single word is longer than the limit. No text is lost: joining the chunks with
    the separators that were removed gives back the text up to whitespace at the cuts.
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    text = text.strip()
    if not text:
        return []
    chunks: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[: limit + 1]
        cut = _best_cut(window, limit)
        head, rest = rest[:cut].rstrip(), rest[cut:].lstrip()
        if head:
            chunks.append(head)
    if rest:
        chunks.append(rest)
    return chunks


def _best_cut(window: str, limit: int) -> int:
    """Index to cut at inside `window` (length limit+1); never in the first third if avoidable."""
    floor = max(1, limit // 3)
    for sep in ("\n\n", "\n"):
        pos = window.rfind(sep, floor, limit + 1)
        if pos > 0:
            return pos
    best = -1
    for match in _SENTENCE_END.finditer(window):
        if floor <= match.start() <= limit:
            best = match.start()
    if best > 0:
        return best
    pos = window.rfind(" ", floor, limit + 1)
    if pos > 0:
        return pos
    return limit
