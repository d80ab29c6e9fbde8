"""A local token estimate.

Why an estimate: tokenizer files cannot be downloaded here, and budgets (recall context, the
conversation window, the daily model budget before a call) must be checked before any call is
made. The usage the API reports afterwards is authoritative; this errs on the high side so that
budgets hold.
"""

from __future__ import annotations

import math
import re

_WORDISH = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_DENSE = re.compile("[^\u0000-\u02ff]")  # beyond Latin and its diacritics


def estimate_tokens(text: str) -> int:
    """Roughly the number of model tokens in `text` (over-estimates plain English slightly).

    Uses the larger of two cheap views: ~4 characters a token, and word/punctuation pieces
    (long words count for several). Non-Latin scripts, which tokenise densely, count a token
    per character at least for every two characters.
    """
    if not text:
        return 0
    by_chars = math.ceil(len(text) / 3.6)
    pieces = 0
    for piece in _WORDISH.findall(text):
        pieces += 1 if len(piece) <= 6 else math.ceil(len(piece) / 5)
    non_ascii = 0 if text.isascii() else len(_DENSE.findall(text))
    return max(by_chars, pieces, math.ceil(non_ascii / 1.5))
