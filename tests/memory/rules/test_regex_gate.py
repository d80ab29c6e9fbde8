"""Literal gates (bot.memory.rules.regex_gate): the words a pattern cannot match without. A gate may
only ever skip a pattern that could not have matched; the slot and change-wording results must
be exactly those of running every pattern."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.latency import make_facts
from bot.memory.rules import conflict
from bot.memory.rules import slots
from bot.memory.rules.regex_gate import may_match, required_literals
from bot.memory.rules.text import normalise


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\bi (?:live|moved) in", {"live", "moved"}),  # the most selective mandatory part
        (r"x*foo", {"foo"}),
        (r"(?:foo)?bar", {"bar"}),  # an optional group is not required
        (r"foo(?=bar)", {"foo"}),  # lookarounds add nothing
        (r"(?:abc|cde)+f", {"abc", "cde"}),  # a repeat of at least one counts
        (r"(?P<value>drive|ride) a", {"drive", "ride"}),
        (r"(?:a|b)c", None),  # nothing of two characters or more is certain
        (r"(?i)foo", None),  # case-insensitive: substring tests would be wrong
        (r"[abc]+", None),
        (r"(?:cat|dog|\w+)s", None),  # one alternative needs no literal
        (r"(?:foo)*", None),
        (r"(", None),  # not a pattern: no gate, not an error
    ],
)
def test_required_literals(pattern: str, expected: set[str] | None) -> None:
    got = required_literals(pattern)
    assert (None if got is None else set(got)) == expected


def test_flags_on_a_compiled_pattern_are_honoured() -> None:
    assert required_literals(re.compile("foo", re.IGNORECASE)) is None
    assert required_literals(re.compile("foo")) == frozenset({"foo"})
    assert may_match(None, "anything") and may_match(frozenset({"ab"}), "xaby")
    assert not may_match(frozenset({"ab", "cd"}), "acbd")


def _all_gated() -> list[tuple[re.Pattern[str], frozenset[str] | None]]:
    out = [(p, g) for rule in slots._COMPILED.values() for p, _, g in rule.patterns]
    out += [(h, g) for rule in slots._COMPILED.values() for h, g in rule.hints]
    out += [(p, g) for p, _, g in conflict._COMPILED_CUES]
    from bot.memory.rules import text as text_mod

    out += [(p, g) for p, _, g in text_mod._CONTRACTIONS_COMPILED]
    return out


CORPUS = [
    "I live in London", "we moved to Paris for good", "Just moved to Berlin!", "I drive a blue Tesla",
    "my car is a vw golf", "I sold my car and bought a bike", "I am vegetarian, but I eat fish",
    "I am 34 years old", "I work as a nurse at the city hospital", "my wife is a doctor",
    "I quit my job; I am self employed now", "I never sold my house", "I want to live in Rome",
    "I am no longer married", "I got divorced in 2020", "my favourite colour is green",
    "i'm from spain - born in madrid", "I have brown hair and blue eyes", "I am 1.80 m tall",
    "", "!!!", "🍕🍕🍕", "I i i live live live in in in",
]


def _sentences() -> list[str]:
    texts = CORPUS + make_facts(1500, 11)
    return [normalise(t) for t in texts]


def test_gates_never_skip_a_pattern_that_matches() -> None:
    gated = _all_gated()
    assert all(g is not None for _, g in gated)  # every rule pattern is gated today
    for norm in _sentences():
        for _, sent in slots.sentences(norm):
            for pattern, gate in gated:
                if pattern.search(sent):
                    assert may_match(gate, sent), (pattern.pattern, sent)


def test_gated_normalise_equals_ungated(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.memory.rules import text as text_mod

    raw = CORPUS + make_facts(1500, 11) + [
        "I won't, can't, ain't, shan't", "I'm here; Im there; ive been", "idk, dont, doesnt, wasnt",
        "you're, we've, they'll, she'd", "he's, what's, that's, it's", "whats thats", "James' car",
        "the cat's toy", "didn’t ‘quote’", "5cats 60years", "x-ray, 9/11, a—b",
    ]
    plain_norm = text_mod.normalise.__wrapped__
    gated = [plain_norm(t) for t in raw]
    monkeypatch.setattr(text_mod, "may_match", lambda gate, text: True)
    assert [plain_norm(t) for t in raw] == gated


def test_gated_slots_and_change_wording_equal_ungated(monkeypatch: pytest.MonkeyPatch) -> None:
    norms = _sentences()
    find = slots._find_slots_normalised.__wrapped__
    gated = [(find(n), conflict._change(n)) for n in norms]
    monkeypatch.setattr(slots, "may_match", lambda gate, text: True)
    monkeypatch.setattr(conflict, "may_match", lambda gate, text: True)
    plain = [(find(n), conflict._change(n)) for n in norms]
    assert gated == plain
    assert sum(bool(s) for s, _ in plain) > 100  # the corpus exercises the rules


WORDS = sorted({w for _, g in _all_gated() for lit in (g or ()) for w in lit.split()} | {
    "i", "we", "my", "a", "the", "and", "but", "not", "to", "in", "is", ","})


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))
def test_gates_are_sound_on_sentences_made_of_the_patterns_own_words(words: list[str]) -> None:
    sent = normalise(" ".join(words))
    for pattern, gate in _all_gated():
        if pattern.search(sent):
            assert may_match(gate, sent), (pattern.pattern, sent)


def test_the_private_re_parser_still_reads_patterns_as_the_gate_expects():
    """The gate reads patterns with `re`'s private parser. If a Python upgrade changes it, the
    gate switches itself off (every pattern runs, results stay right) — and this test fails, so
    the change is noticed rather than silently costing speed."""
    from bot.memory.rules import regex_gate

    assert regex_gate.parser_agrees()
    assert regex_gate.GATING


def test_with_gating_off_every_pattern_runs(monkeypatch):
    from bot.memory.rules import regex_gate

    monkeypatch.setattr(regex_gate, "GATING", False)
    assert regex_gate.required_literals(r"\bI live in\b") is None
    assert regex_gate.may_match(None, "anything")
