"""The LoCoMo loader: turn text, session dates, evidence clean-up (bench.locomo)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from bench.locomo import (
    clean_evidence,
    hit_at_k,
    load_locomo,
    normalise_dia_id,
    parse_conversations,
    parse_session_date,
    recall_at_k,
    turn_memory_text,
)

KNOWN = {f"D{s}:{t}" for s in range(1, 31) for t in range(1, 30)}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D1:3"], ("D1:3",)),
        (["D8:6; D9:17"], ("D8:6", "D9:17")),
        (["D30:05"], ("D30:5",)),
        (["D12:3-D12:5"], ("D12:3", "D12:4", "D12:5")),
        (["D12:3-5"], ("D12:3", "D12:4", "D12:5")),
        (["D4:2."], ("D4:2",)),
        (["D9:1 D4:4 D4:6"], ("D9:1", "D4:4", "D4:6")),
        (["D:11:26"], ("D11:26",)),
        (["D"], ()),
        (["D1:3", "D1:3"], ("D1:3",)),
        (["D99:1"], ()),  # names no turn: dropped
        (["D1:99"], ()),
        (["D2:5-D3:2"], ("D2:5", "D3:2")),  # cross-session range: end points only
        ([], ()),
        (None, ()),
        ("D2:2", ("D2:2",)),
        ([7, None], ()),
    ],
)
def test_clean_evidence(raw, expected) -> None:
    assert clean_evidence(raw, KNOWN) == expected


@pytest.mark.parametrize(("raw", "expected"), [("D1:3", "D1:3"), ("D01:003", "D1:3"),
                                                (" D2 : 4 ", "D2:4"), ("x", None), ("", None)])
def test_normalise_dia_id(raw, expected) -> None:
    assert normalise_dia_id(raw) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
        ("12:06 am on 11 November, 2022", datetime(2022, 11, 11, 0, 6)),
        ("10:04 AM on 19 December, 2023", datetime(2023, 12, 19, 10, 4)),
        ("8 May 2023", datetime(2023, 5, 8)),
        ("May 8, 2023", datetime(2023, 5, 8)),
        ("2023-05-08", datetime(2023, 5, 8)),
        ("2023-05-08T10:00:00+02:00", datetime(2023, 5, 8, 10, 0)),
        ("  1:56  pm on 8 May, 2023. ", datetime(2023, 5, 8, 13, 56)),
        ("May 8, 2023, 1:56pm", datetime(2023, 5, 8, 13, 56)),
        ("garbage", None),
        ("yesterday", None),
        ("", None),
        (None, None),
        (42, None),
    ],
)
def test_parse_session_date(text, expected) -> None:
    assert parse_session_date(text) == expected


def test_turn_text() -> None:
    assert turn_memory_text("Ann", "hi") == "Ann: hi"
    assert turn_memory_text("Ann", "look", "a dog on a beach") == "Ann: look [image: a dog on a beach]"


SAMPLE = [
    {
        "sample_id": "s1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I got a dog"},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Nice!", "blip_caption": "a puppy",
                 "img_url": ["http://x"], "query": "puppy"},
            ],
            "session_2_date_time": "not a date",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "He is called Rex"}],
            "session_10_date_time": "3 June, 2023",
            "session_10": [{"speaker": "Bob", "dia_id": "D10:01", "text": "Hi"}],
        },
        "qa": [
            {"question": "What pet?", "answer": "dog", "evidence": ["D1:1"], "category": 4},
            {"question": "Name?", "answer": "Rex", "evidence": ["D2:1; D1:1"], "category": 1},
            {"question": "Adversarial", "adversarial_answer": "x", "evidence": ["D1:1"], "category": 5},
            {"question": "No evidence", "answer": "y", "evidence": [], "category": 2},
            {"question": "Bad evidence", "answer": "y", "evidence": ["D7:7"], "category": 3},
        ],
    }
]


def test_parse_conversation() -> None:
    (conv,) = parse_conversations(SAMPLE)
    assert conv.speakers == ("Ann", "Bob")
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1", "D10:1"]
    assert [t.position for t in conv.turns] == [0, 1, 2, 3]
    assert conv.turns[1].text == "Bob: Nice! [image: a puppy]"
    assert conv.turns[0].created_at == datetime(2023, 5, 8, 13, 56)
    assert conv.turns[2].created_at is None  # unparseable session date: no date
    assert conv.turns[3].session == 10 and conv.turns[3].created_at == datetime(2023, 6, 3)
    scored = conv.scored_questions()
    assert [q.question for q in scored] == ["What pet?", "Name?"]
    assert scored[1].evidence == ("D2:1", "D1:1")


def test_load_file(tmp_path: Path) -> None:
    p = tmp_path / "data.json"
    p.write_text(json.dumps(SAMPLE))
    assert len(load_locomo(p)) == 1
    p.write_text("{}")
    with pytest.raises(ValueError):
        load_locomo(p)


@pytest.mark.parametrize(
    ("ranked", "evidence", "k", "recall", "hit"),
    [
        (["a", "b", "c"], ["a"], 1, 1.0, 1.0),
        (["a", "b", "c"], ["c", "d"], 2, 0.0, 0.0),
        (["a", "b", "c"], ["c", "d"], 3, 0.5, 1.0),
        ([], ["a"], 8, 0.0, 0.0),
        (["a"], [], 8, 0.0, 0.0),
    ],
)
def test_metrics(ranked, evidence, k, recall, hit) -> None:
    assert recall_at_k(ranked, evidence, k) == recall
    assert hit_at_k(ranked, evidence, k) == hit


def test_real_file_counts() -> None:
    from bench.datasets import data_file

    convs = load_locomo(data_file("locomo10.json"))
    assert len(convs) == 10
    assert sum(len(c.turns) for c in convs) == 5882
    assert sum(len(c.scored_questions()) for c in convs) == 1536
    assert all(d is not None for c in convs for d in c.session_dates.values())
