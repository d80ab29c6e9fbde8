"""The vectors' "same fact again" (bot/memory/rules/pair_vectors.py): a pure function over two
vectors, and how a save uses it for a neighbour the rules leave alone. The sentences were
written for this test (none comes from a pair file)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from bot.memory.index.semantic import SemanticIndex
from bot.memory.rules import pair_vectors
from bot.memory.rules.conflict import RULE_SAME_MEANING, Fact, assess
from bot.memory.service import MemoryService
from bot.storage.db import Database
from tests.conftest import make_settings


def test_the_weights_name_the_model_features_and_threshold() -> None:
    data = json.loads(pair_vectors.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert data["model"] == "all-MiniLM-L6-v2"
    assert len(data["weights"]) == 2 * 384 + 1
    assert 0.5 <= data["threshold"] < 1.0 and pair_vectors.threshold() == data["threshold"]


def test_no_answer_without_a_vector_or_for_vectors_of_another_size() -> None:
    assert pair_vectors.same_fact(None, np.ones((1, 384), dtype=np.float32)) is None
    assert pair_vectors.same_fact(np.ones(12, dtype=np.float32), np.ones((2, 12), dtype=np.float32)) is None
    probs = pair_vectors.same_fact(np.ones(384, dtype=np.float32) / np.sqrt(384), np.eye(384, dtype=np.float32)[:3])
    assert probs is not None and probs.shape == (3,) and ((probs >= 0) & (probs <= 1)).all()


@pytest.mark.parametrize(("same", "asked"), [(0.99, True), (0.5, False)])
def test_a_sure_pair_the_rules_leave_alone_is_asked_with_keep_both(same: float, asked: bool) -> None:
    old = Fact(id=7, text="My Sunday mornings are for the farmers market.", slot=None)
    result = assess("I shop for vegetables at the market every weekend.", [old], {7: 0.7}, same={7: same})
    assert [(n.rule, n.verdict) for n in result.nominations] == ([(RULE_SAME_MEANING, "same")] if asked else [])


def test_the_vectors_never_call_someone_elses_fact_mine_again() -> None:
    old = Fact(id=7, text="I pull espresso shots all day.", slot=None)
    result = assess("my sister pulls espresso shots all day", [old], {7: 0.9}, same={7: 0.99})
    assert all(n.rule != RULE_SAME_MEANING for n in result.nominations)


def test_the_vectors_never_call_a_denial_the_same() -> None:
    old = Fact(id=7, text="Espresso gets me through the morning.", slot=None)
    result = assess("I gave up caffeine last year.", [old], {7: 0.7}, same={7: 0.99})
    assert all(n.verdict != "same" for n in result.nominations)


SAID_AGAIN = [
    ("I need a strong coffee to start my day.", "coffee is basically my fuel, i drink it all day"),
    ("i spend my saturdays fishing at the lake", "Fishing at the lake is how I unwind."),
]
TWO_THINGS = [
    ("I have a dog.", "I have a cat."),
    ("I love jazz.", "I love heavy metal."),
]


@pytest.mark.parametrize(("old", "new", "asked"), [(*p, True) for p in SAID_AGAIN] + [(*p, False) for p in TWO_THINGS])
async def test_with_minilm_a_fact_said_again_in_other_words_is_asked_about(
    minilm: Any, tmp_path: Any, old: str, new: str, asked: bool
) -> None:
    settings = make_settings(database_url=f"sqlite:///{tmp_path / 'p.db'}", embedding_model="default")
    db = Database(settings.database_url)
    try:
        memory = MemoryService(db, settings, SemanticIndex(db, minilm))
        owner = await memory.owner_for("console", "a")
        assert owner is not None
        await memory.remember(owner, old)
        second = await memory.remember(owner, new)
        assert second.memory is not None  # stored either way: nothing is lost
        assert [m.text for m in second.asked] == ([old] if asked else [])
        if asked:
            assert second.conflict_id is not None
            view = await memory.conflict(owner, second.conflict_id)
            assert view is not None and view.recommended is not None and view.recommended.value == "keep"
    finally:
        db.dispose()


def test_cannot_do_without_is_no_denial() -> None:
    """"I can't live without espresso" says the person drinks it: read as a denial, the vectors'
    "same" was set aside (two negatives make it a liking)."""
    old = Fact(id=7, text="Espresso gets me through the morning.", slot=None)
    result = assess("I can't live without espresso.", [old], {7: 0.7}, same={7: 0.99})
    assert [(n.rule, n.verdict) for n in result.nominations] == [(RULE_SAME_MEANING, "same")]
    denied = assess("I don't drink espresso any more.", [old], {7: 0.7}, same={7: 0.99})
    assert all(n.verdict != "same" for n in denied.nominations)


@pytest.mark.parametrize(("old", "new"), [
    ("Ich wohne in München", "Ich wohne jetzt in Berlin"),  # a move the English rules cannot read
    ("I work at the hospital", "I'm a teacher at the school"),  # a topic's value decides
    ("My brother likes rugby.", "My brother loves rugby."),  # not about the person
])
def test_the_vectors_alone_never_decide_a_topic_another_language_or_someone_else(old: str, new: str) -> None:
    """Found by tests/features/test_judge_languages.py: "Ich wohne jetzt in Berlin" after "Ich
    wohne in München" was asked with Keep both recommended, the vectors being alike."""
    result = assess(new, [Fact(id=7, text=old, slot=None)], {7: 0.9}, same={7: 0.99})
    assert all(n.rule != RULE_SAME_MEANING for n in result.nominations)
