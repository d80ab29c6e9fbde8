"""Answers waiting for a person who must press Start first (adapters/waiting.py)."""

from __future__ import annotations

import pytest

from adapters.waiting import CODE_PREFIX, MAX_WAITING, WAIT_SECONDS, WaitingAnswers
from bot.events import Outgoing


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_batch_shares_one_code_and_only_its_person_takes_it() -> None:
    w = WaitingAnswers(Clock())
    code = w.keep("7", Outgoing("one"))
    assert code.startswith(CODE_PREFIX) and WaitingAnswers.is_ours(code)
    assert w.keep("7", Outgoing("two"), code) == code
    assert w.take(code, "8") is None  # someone else's Start: nothing, and it stays
    assert [o.text for o in w.take(code, "7") or []] == ["one", "two"]
    assert w.take(code, "7") is None  # delivered once


def test_another_persons_code_is_never_extended() -> None:
    w = WaitingAnswers(Clock())
    code = w.keep("7", Outgoing("mine"))
    other = w.keep("8", Outgoing("theirs"), code)
    assert other != code
    assert [o.text for o in w.take(code, "7") or []] == ["mine"]


@pytest.mark.parametrize(("after", "kept"), [(WAIT_SECONDS - 1, True), (WAIT_SECONDS + 1, False)])
def test_answers_wait_a_day(after: float, kept: bool) -> None:
    clock = Clock()
    w = WaitingAnswers(clock)
    code = w.keep("7", Outgoing("x"))
    clock.now += after
    assert (w.take(code, "7") is not None) is kept


def test_the_oldest_go_first_when_full() -> None:
    w = WaitingAnswers(Clock())
    first = w.keep("1", Outgoing("first"))
    for i in range(MAX_WAITING):
        w.keep(str(i + 2), Outgoing("x"))
    assert w.take(first, "1") is None


@pytest.mark.parametrize(("payload", "ours"), [("a-abc_DEF-123", True), ("ref123", False), ("", False)])
def test_our_codes_are_told_from_other_payloads(payload: str, ours: bool) -> None:
    assert WaitingAnswers.is_ours(payload) is ours
