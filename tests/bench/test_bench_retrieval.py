"""The retrieval benchmark (bench/retrieval.py) on a tiny LoCoMo-format conversation: the JSON
shape, and exact recall figures for a case computed by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


from bench import retrieval
from bench.locomo import parse_conversations
from bot.memory.embeddings.encoder import HashingEmbedder
from tests.conftest import make_settings

REPO = Path(__file__).resolve().parents[2]

# Two sessions, ten turns (more than twice the recall budget of 8, so recall's "a person with
# few memories gets them all" fill does not apply and only matching turns are ranked).
TINY = [
    {
        "sample_id": "tiny-1",
        "conversation": {
            "speaker_a": "Alice",
            "speaker_b": "Bob",
            "session_1_date_time": "1:00 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Alice", "dia_id": "D1:1", "text": "I bought a red bicycle yesterday."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Nice, where did you get it?"},
                {"speaker": "Alice", "dia_id": "D1:3", "text": "From a small shop downtown."},
                {"speaker": "Bob", "dia_id": "D1:4", "text": "I have been learning the violin."},
                {"speaker": "Alice", "dia_id": "D1:5", "text": "That sounds lovely."},
            ],
            "session_2_date_time": "2:00 pm on 20 June, 2023",
            "session_2": [
                {"speaker": "Bob", "dia_id": "D2:1", "text": "My sister adopted a puppy named Biscuit."},
                {"speaker": "Alice", "dia_id": "D2:2", "text": "Cute! Which breed?"},
                {"speaker": "Bob", "dia_id": "D2:3", "text": "A beagle.", "img_url": ["x"],
                 "blip_caption": "a photo of a small dog"},
                {"speaker": "Alice", "dia_id": "D2:4", "text": "I started pottery classes."},
                {"speaker": "Bob", "dia_id": "D2:5", "text": "Pottery is relaxing."},
            ],
        },
        "qa": [
            # only D1:1 says "bicycle": found first by both methods -> recall 1
            {"question": "What colour is the bicycle?", "answer": "red", "evidence": ["D1:1"], "category": 4},
            # "violin" finds D1:4; D2:3 shares no word with the question -> recall 0.5, hit 1
            {"question": "Who is learning the violin?", "answer": "Bob", "evidence": ["D1:4; D2:3"], "category": 1},
            # no turn shares a word with it -> recall 0, hit 0
            {"question": "When was the kitten found?", "answer": "June", "evidence": ["D2:01"], "category": 2},
            # not scored: adversarial, no evidence, evidence naming no turn
            {"question": "What is the bicycle's name?", "adversarial_answer": "x", "evidence": ["D1:1"], "category": 5},
            {"question": "Where is the bicycle shop?", "answer": "downtown", "evidence": [], "category": 3},
            {"question": "Where is the violin?", "answer": "?", "evidence": ["D9:99"], "category": 3},
        ],
    }
]

EXPECTED = {
    "recall@5": 0.5,
    "recall@8": 0.5,
    "recall@10": 0.5,
    "recall@20": 0.5,
    "hit@8": round(2 / 3, 4),
    "by_category": {"1": 0.5, "2": 0.0, "4": 1.0},
}
KEYS = {"recall@5", "recall@8", "recall@10", "recall@20", "hit@8", "by_category"}


def _check_shape(result: dict) -> None:
    assert set(result) == {"questions", "ours", "baseline_bm25", "mode", "long_turns"}
    assert result["mode"] in ("hybrid", "keyword")
    for side in ("ours", "baseline_bm25"):
        assert set(result[side]) == KEYS
        for key in KEYS - {"by_category"}:
            assert 0.0 <= result[side][key] <= 1.0
        assert set(result[side]["by_category"]) <= {"1", "2", "3", "4"}


async def test_keyword_mode_exact_figures(tmp_path):
    convs = parse_conversations(TINY)
    result = await retrieval.run_benchmark(convs, make_settings(), None, f"sqlite:///{tmp_path / 'r.db'}")
    result.pop("_timings")
    _check_shape(result)
    assert result["questions"] == 3
    assert result["mode"] == "keyword"
    assert result["ours"] == EXPECTED
    assert result["baseline_bm25"] == EXPECTED


async def test_ranked_ids_map_to_turns(tmp_path):
    convs = parse_conversations(TINY)
    rows, mode, _ = await retrieval.score_conversations(convs, make_settings(), None, f"sqlite:///{tmp_path / 'r.db'}")
    assert mode == "keyword"
    by_q = {r.evidence: r for r in rows}
    bicycle = by_q[("D1:1",)]
    assert bicycle.ours[0] == "D1:1" and bicycle.bm25[0] == "D1:1"
    # the match's neighbours in the same session (two saves either side) come along
    assert set(bicycle.ours) == {"D1:1", "D1:2", "D1:3"}
    assert by_q[("D2:1",)].ours == () and by_q[("D2:1",)].bm25 == ()


async def test_hybrid_mode_with_hashing_embedder(tmp_path):
    convs = parse_conversations(TINY)
    result = await retrieval.run_benchmark(convs, make_settings(), HashingEmbedder(),
                                           f"sqlite:///{tmp_path / 'r.db'}")
    result.pop("_timings")
    _check_shape(result)
    assert result["mode"] == "hybrid"
    assert result["questions"] == 3
    assert result["ours"]["by_category"]["4"] == 1.0  # the bicycle question still finds its turn
    assert result["baseline_bm25"] == EXPECTED  # the baseline does not depend on the mode


def test_main_json_prints_one_object(tmp_path, capsys):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(TINY), encoding="utf-8")
    assert retrieval.main(make_settings(), ["--data", str(data), "--embedding", "none", "--json"]) == 0
    out = capsys.readouterr().out
    result = json.loads(out)
    _check_shape(result)
    assert result["ours"] == EXPECTED
    assert retrieval.main(make_settings(), ["--data", str(data), "--embedding", "none"]) == 0
    table = capsys.readouterr().out
    assert "bm25s baseline" in table and "recall@8" in table


def test_missing_data_file_is_an_error(tmp_path, capsys):
    assert retrieval.main(make_settings(), ["--data", str(tmp_path / "nope.json"), "--json"]) == 2
    assert capsys.readouterr().out == ""


def test_cli_route(tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(TINY), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "EMBEDDING"))}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "bench", "retrieval", "--data", str(data), "--embedding", "none", "--json"],
        cwd=tmp_path, env=env | {"PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    _check_shape(result)
    assert result["ours"] == EXPECTED


# A conversation in the LoCoMo layout with turns far over the 2,000 characters one memory may hold
# (other data sets have them: pasted letters, long stories). The answer to the question sits at
# the end of the longest turn.
_FILLER_TEXT = "We talked about the weather and the trains and the long winter in the north. "
LONG = [
    {
        "sample_id": "long-1",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "9:00 am on 2 March, 2024",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Ben, how was your week?"},
                {"speaker": "Ben", "dia_id": "D1:2",
                 "text": _FILLER_TEXT * 60 + "In the end I adopted a grey parrot called Captain Feathers."},
                {"speaker": "Ana", "dia_id": "D1:3", "text": "That is lovely news."},
                {"speaker": "Ben", "dia_id": "D1:4", "text": "I also started learning the cello."},
            ]
            + [{"speaker": "Ana", "dia_id": f"D1:{n}", "text": f"Small talk number {n} about nothing."} for n in range(5, 25)],
        },
        "qa": [
            {"question": "What is the name of Ben's parrot?", "answer": "Captain Feathers",
             "evidence": ["D1:2"], "category": 4},
            {"question": "Which instrument is Ben learning?", "answer": "cello", "evidence": ["D1:4"], "category": 4},
        ],
    }
]


def test_long_turns_are_stored_in_parts_and_counted_once() -> None:
    text = "Ben: " + _FILLER_TEXT * 60 + "In the end I adopted a grey parrot."
    parts = retrieval.parts_of(text, 2000)
    assert len(parts) == 3 and all(len(p) <= 2000 for p in parts)
    assert all(p.startswith("Ben: ") for p in parts)  # each part says who spoke
    assert " ".join(p.removeprefix("Ben: ") for p in parts) == text.removeprefix("Ben: ")  # nothing lost
    assert parts[-1].endswith("grey parrot.")
    assert retrieval.parts_of("Ana: short", 2000) == ["Ana: short"]
    no_spaces = "x" * 4500
    assert [len(p) for p in retrieval.parts_of(no_spaces, 2000)] == [2000, 2000, 500]


async def test_a_conversation_with_long_turns_is_scored_not_stopped(tmp_path):
    convs = parse_conversations(LONG)
    assert max(len(t.text) for t in convs[0].turns) > 4000
    result = await retrieval.run_benchmark(convs, make_settings(), None, f"sqlite:///{tmp_path / 'r.db'}")
    result.pop("_timings")
    assert result["questions"] == 2 and result["long_turns"] == 1
    assert result["ours"]["recall@8"] == 1.0  # the parrot is found in the third part of its turn
    rows, _, _ = await retrieval.score_conversations(convs, make_settings(), None, f"sqlite:///{tmp_path / 'r2.db'}")
    for row in rows:
        assert len(row.ours) == len(set(row.ours))  # a turn counts once, however many parts matched
