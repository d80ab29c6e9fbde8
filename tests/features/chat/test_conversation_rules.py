"""The chat turn's pure rules as tables: rate limit, window fitting, messages, notes, /why."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from bot.features.chat.fallback import fallback_note
from bot.features.chat.turn import RateLimiter, now_block, rate_limited_text
from bot.features.chat.why import render_parts, render_why
from bot.features.chat.window import build_messages, fit_history, message_cost


def test_rate_limiter_sliding_window():
    limiter = RateLimiter(per_minute=3)
    assert [limiter.hit(1, t) for t in (0.0, 1.0, 2.0)] == [None, None, None]
    assert limiter.hit(1, 3.0) == pytest.approx(57.0)  # the oldest leaves the window at 60 s
    assert limiter.hit(2, 3.0) is None  # another person
    assert limiter.hit(1, 59.9) == pytest.approx(0.1)
    assert limiter.hit(1, 60.0) is None  # the message at 0 s is out of the window
    assert limiter.hit(1, 60.5) is not None  # refused messages were not counted
    assert limiter.hit(1, 61.0) is None


def test_rate_limiter_off():
    limiter = RateLimiter(per_minute=0)
    assert all(limiter.hit(1, float(t)) is None for t in range(1000))


@pytest.mark.parametrize(
    "wait, shown", [(0.2, "about 1 s"), (1.0, "about 1 s"), (1.01, "about 2 s"), (42.5, "about 43 s")]
)
def test_rate_limited_text(wait, shown):
    text = rate_limited_text(20, wait)
    assert shown in text and "20 messages a minute" in text and "remember:" in text


@pytest.mark.parametrize(
    "reason, needle",
    [
        ("budget", "budget is used up"),
        ("timeout", "too slow"),
        ("no_key", "No language model is connected"),  # none configured: no "right now"
        ("rate_limited", "isn't available"),
        ("overloaded", "isn't available"),
        ("error", "isn't available"),
    ],
)
def test_fallback_note(reason, needle):
    assert needle in fallback_note(reason)


NEWEST_FIRST = [
    ("assistant", "a3"),
    ("user", "u3"),
    ("assistant", "a2"),
    ("user", "u2"),
    ("assistant", "a1"),
    ("user", "u1"),
]


@pytest.mark.parametrize(
    "rows, budget, expected",
    [
        (NEWEST_FIRST, 10_000, [("user", "u1"), ("assistant", "a1"), ("user", "u2"), ("assistant", "a2"), ("user", "u3"), ("assistant", "a3")]),
        (NEWEST_FIRST, message_cost("a3") * 4, [("user", "u2"), ("assistant", "a2"), ("user", "u3"), ("assistant", "a3")]),
        # three fit, but the window would start with the assistant: that one is dropped
        (NEWEST_FIRST, message_cost("a3") * 3, [("user", "u3"), ("assistant", "a3")]),
        (NEWEST_FIRST, 0, []),
        ([("user", "  "), ("system", "x"), ("user", "hi")], 1000, [("user", "hi")]),
        # stops at the first message that does not fit: no gaps
        ([("user", "short"), ("assistant", "long " * 200), ("user", "old")], message_cost("short") + message_cost("old"), [("user", "short")]),
    ],
)
def test_fit_history(rows, budget, expected):
    assert fit_history(rows, budget) == expected


def test_build_messages_ends_with_the_message_as_typed():
    typed = "  what   about\nthis?  "
    assert build_messages([("user", "a"), ("assistant", "b")], typed) == [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": typed},
    ]
    assert build_messages([], "hi") == [{"role": "user", "content": "hi"}]


def test_now_block_uses_the_persons_zone_and_survives_a_bad_one():
    at = datetime(2026, 7, 1, 12, 0, tzinfo=timezone.utc)
    assert "2026-07-01 14:00" in now_block(at, "Europe/Paris") and "Europe/Paris" in now_block(at, "Europe/Paris")
    assert "12:00" in now_block(at, "Not/AZone") and "(UTC)" in now_block(at, "Not/AZone")


def test_render_parts_orders_known_parts_first():
    parts = {"total": 0.6, "zeta": 0.1, "relevance": 0.9, "confidence": 1.0}
    assert render_parts(parts) == "relevance 0.90, confidence 1.00, total 0.60, zeta 0.10"


@pytest.mark.parametrize(
    "record, alive, expected_lines",
    [
        (
            {"mode": "model", "memories": [{"id": 3, "text": "I live in Lisbon", "parts": {"relevance": 0.5, "total": 0.4}}]},
            {3: "I live in Lisbon"},
            # no internal id (issue 16, item 2): numbered like a list, for /history N
            ["My last answer used these memories:", "1. “I live in Lisbon” — relevance 0.50, total 0.40",
             "(/history N shows where one of them came from.)"],
        ),
        (
            {"mode": "model", "memories": [{"id": 3, "text": "I live in Lisbon", "parts": {}}]},
            {3: None},
            ["My last answer used these memories:", "• a memory you deleted since"],
        ),
        ({"mode": "model", "memories": []}, {}, ["My last answer didn't use any of your memories."]),
        ({"mode": "group", "memories": []}, {}, ["My last answer was in a group chat, where I never use your memories."]),
        (
            {"mode": "model", "memories": [], "episodes": [1, 2], "procedures": [5]},
            {},
            [
                "My last answer didn't use any of your memories.",
                "Also used: 2 summaries of earlier conversations and 1 procedure you taught me.",
            ],
        ),
    ],
)
def test_render_why(record, alive, expected_lines):
    assert render_why(record, alive).splitlines() == expected_lines


def test_render_why_labels_a_past_fact_on_its_own_line():
    """After a move, /why lists the old home too: its line must say it is past, as answers do."""
    record = {"mode": "memory_only", "memories": [{"id": 1, "parts": {}}, {"id": 2, "parts": {}}]}
    lines = render_why(record, {1: "I moved to Madrid", 2: "I live in Porto"}, {1: "current", 2: "historical"})
    assert "1. “I moved to Madrid”" in lines.splitlines()
    assert "2. “I live in Porto” (before)" in lines.splitlines()


def test_render_why_shows_the_current_text_not_the_stored_copy():
    record = {"mode": "model", "memories": [{"id": 1, "text": "old wording", "parts": {}}]}
    assert "new wording" in render_why(record, {1: "new wording"})
    assert "old wording" not in render_why(record, {1: "new wording"})
