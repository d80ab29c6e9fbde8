"""Which replacement links join a topic a question asks about (pipeline.topic_successors): a
successor stands for the topics it states, not for every topic of the fact it replaced."""

from __future__ import annotations

import pytest

from bot.memory.recall.pipeline import Row, topic_successors


def row(mid: int, text: str, slot: str | None = None, replaced_by: int | None = None) -> Row:
    status = "historical" if replaced_by else "current"
    return Row(mid, text, status, "fact", None, None, None, 0.5, 1.0, 0, replaced_by, slot)


@pytest.mark.parametrize(
    ("old", "old_slot", "new", "new_slot", "asked", "kept"),
    [
        # the plain change: the successor states the asked topic
        ("I live in London", "residence", "I moved to Berlin", "residence", {"residence"}, True),
        # a compound fact changed in one topic: the birthday is no home, the move no age
        ("I'm 34 and I live in Leeds", "residence", "turned 35 yesterday", "age", {"residence"}, False),
        ("I'm 34 and I live in Leeds", "residence", "turned 35 yesterday", "age", {"age"}, True),
        ("I'm 34 and I live in Leeds", "residence", "I moved to Madrid last spring", "residence", {"age"}, False),
        # the successor's saved topic counts when its words are beyond the rules
        ("I live in Leeds", "residence", "tram to the office from Ancoats now", "residence", {"residence"}, True),
        # an older fact that states no asked topic keeps its link (the question may reach it by words)
        ("I drive an old VW Polo", "car", "we sold the polo, bikes only now", None, {"age"}, True),
        ("I drive an old VW Polo", "car", "we sold the polo, bikes only now", None, {"car"}, True),
    ],
)
def test_topic_successors(old, old_slot, new, new_slot, asked, kept):
    rows = {1: row(1, old, old_slot, replaced_by=2), 2: row(2, new, new_slot)}
    assert (topic_successors({1: 2}, rows, frozenset(asked)) == {1: 2}) is kept
