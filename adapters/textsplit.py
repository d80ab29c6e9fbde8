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
    return [text[start:end] for start, end in split_spans(text, limit)]


def split_spans(text: str, limit: int) -> list[tuple[int, int]]:
    """Where split_message cuts, as (start, end) indices into `text`: formatting that is kept as
    offsets (Telegram's entities, adapters/formatting.py) is carried into each part with them."""
    if limit < 1:
        raise ValueError("limit must be positive")
    start, end = 0, len(text)
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    spans: list[tuple[int, int]] = []
    pos = start
    while end - pos > limit:
        cut = pos + _best_cut(text[pos : pos + limit + 1], limit)
        head_end = cut
        while head_end > pos and text[head_end - 1].isspace():
            head_end -= 1
        if head_end > pos:
            spans.append((pos, head_end))
        pos = cut
        while pos < end and text[pos].isspace():
            pos += 1
    if pos < end:
        spans.append((pos, end))
    return spans


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
