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


# --- issue 16: words that tell the truth -------------------------------------------------------

from bot.core.render import conflict_outcome, erased_after, help_text, span  # noqa: E402
from bot.memory import Choice, ConflictView, MemoryView  # noqa: E402


@pytest.mark.parametrize(
    "seconds,words",
    [(0, "0 seconds"), (1, "1 second"), (30, "30 seconds"), (60, "1 minute"), (90, "2 minutes"),
     (600, "10 minutes"), (3600, "1 hour"), (7200, "2 hours"), (86400, "1 day")],
)
def test_span(seconds, words):
    assert span(seconds) == words  # never "1 minutes" (item 8)


def test_the_deletion_note_says_when_the_text_goes():
    assert erased_after(60) == "/undo brings it back within 1 minute; then its text is erased for good"


def _m(mid: int, text: str, status: str = "current", *, deleted: bool = False, archived: bool = False) -> MemoryView:
    from datetime import datetime, timezone

    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return MemoryView(mid, "u", 1, text, "fact", None, status, None, None, None, "command", 1.0, 0.5, 0, None, at, at,
                      archived, deleted)


NEW = _m(9, "I moved to Paris")


@pytest.mark.parametrize(
    "olds,new,choice,expected",
    [
        ([_m(1, "I live in London", "historical")], NEW, Choice.PAST,
         "Done: “I live in London” is now past (kept in your history), and “I moved to Paris” is current."),
        # two olds: one verb that agrees (it said "“A”, “B” is now past")
        ([_m(1, "I live in London", "historical"), _m(2, "I live in Leeds", "historical")], NEW, Choice.PAST,
         "Done: “I live in London” and “I live in Leeds” are now past (kept in your history), and “I moved to "
         "Paris” is current."),
        # from the state, not the choice: an older fact another question still holds
        ([_m(1, "I live in London", "unsure")], NEW, Choice.KEEP,
         "Done: “I live in London” still waits for your answer to another question, and “I moved to Paris” is current."),
        ([_m(1, "I live in London")], NEW, Choice.KEEP, "Kept both: “I live in London” and “I moved to Paris” are both current."),
        ([_m(1, "I drive a blue Corolla", "historical")], _m(9, "I sold my Corolla", deleted=True), Choice.DISCARD,
         "Done: “I sold my Corolla” was discarded; “I drive a blue Corolla” is now past (kept in your history)."),
        ([_m(1, "I live in London", deleted=True)], NEW, Choice.REPLACE,
         "Done: “I live in London” was deleted (/undo brings it back within 10 minutes; then its text is erased for "
         "good), and “I moved to Paris” is current."),
    ],
)
def test_conflict_outcome_reads_the_state_after_the_change(olds, new, choice, expected):
    view = ConflictView(1, "settled", choice.value, new, tuple(olds))
    assert conflict_outcome(view, choice, undo_window_seconds=600) == expected


@pytest.mark.parametrize(
    "platform,import_line",
    [("console", "/import <file>"), ("telegram", "/import — send the file with it"), ("discord", "/import (attach the file)")],
)
def test_help_says_how_import_works_where_the_person_is(platform, import_line):
    assert import_line in help_text(platform)


def test_help_reads_in_a_proportional_font():
    """No columns lined up with runs of spaces, no line longer than a phone shows comfortably."""
    for platform in ("telegram", "discord", "console"):
        for line in help_text(platform).splitlines():
            assert "  " not in line and len(line) <= 80, line
