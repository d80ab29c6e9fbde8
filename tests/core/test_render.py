"""Pure text rules: pages of lists, long memories in lists."""

from __future__ import annotations

import pytest

from bot.core.render import LIST_TEXT_LIMIT, paginate


@pytest.mark.parametrize(
    "lengths,items,chars,expected",
    [
        ([], 10, 100, []),
        ([10] * 5, 10, 1000, [(0, 5)]),
        ([10] * 25, 10, 1000, [(0, 10), (10, 20), (20, 25)]),
        ([500] * 5, 10, 1200, [(0, 2), (2, 4), (4, 5)]),  # the character budget splits first
        ([5000, 10, 10], 10, 1000, [(0, 1), (1, 3)]),  # an over-long line still gets its own page
        ([10, 5000], 10, 1000, [(0, 1), (1, 2)]),
    ],
)
def test_paginate(lengths, items, chars, expected):
    assert paginate(lengths, items, chars) == expected


def test_every_line_lands_on_exactly_one_page():
    lengths = [(i * 37) % 900 + 1 for i in range(200)]
    pages = paginate(lengths, 10, 1800)
    covered = [i for start, end in pages for i in range(start, end)]
    assert covered == list(range(200))
    for start, end in pages:
        assert end - start <= 10
        assert end - start == 1 or sum(lengths[start:end]) + (end - start) <= 1800


def test_long_memory_is_shortened_in_lists():
    from datetime import datetime, timezone

    from bot.memory.store import MemoryView
    from bot.core.render import memory_line

    now = datetime.now(timezone.utc)
    m = MemoryView(1, "u", 1, "x" * 2000, "fact", None, "current", None, None, None, "command", 1.0, 0.5, 0, None, now, now, False, False)
    line = memory_line(3, m)
    assert line.startswith("3. ") and line.endswith("…") and len(line) <= LIST_TEXT_LIMIT + 5
