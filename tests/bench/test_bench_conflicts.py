"""The conflict benchmark's logic: exact counting, strict loading, the table, the pure path, and
the targets on the dev file (docs/ARCHITECTURE.md; bench/data/README.md)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bench.conflicts import (
    TARGETS,
    PairsError,
    evaluate,
    format_table,
    load_pairs,
    main,
    meets_targets,
    rules_nominate,
)
from bot.memory.rules.conflict import Fact, detect_slot, is_candidate, keywords, states_slot

DEV_FILE_NAME = "conflict_pairs_dev.jsonl"


@pytest.fixture(scope="module")
def dev_pairs() -> list[dict]:
    from bench.datasets import data_file

    return load_pairs(data_file(DEV_FILE_NAME))


SYNTHETIC = [
    {"old": "a", "new": "x", "label": "nominate", "kind": "slot_change", "slot": "job"},
    {"old": "b", "new": "y", "label": "nominate", "kind": "slot_change", "slot": "age"},
    {"old": "c", "new": "x", "label": "nominate", "kind": "slot_change", "slot": None},
    {"old": "d", "new": "x", "label": "nominate", "kind": "duplicate", "slot": "diet"},
    {"old": "d2", "new": "y", "label": "nominate", "kind": "duplicate", "slot": "have_pet"},
    {"old": "e", "new": "y", "label": "keep", "kind": "unrelated", "slot": None},
    {"old": "f", "new": "x", "label": "keep", "kind": "unrelated", "slot": None},
    {"old": "g", "new": "y", "label": "keep", "kind": "multi_value", "slot": "have_pet"},
    {"old": "h", "new": "y", "label": "keep", "kind": "multi_value", "slot": "have_pet"},
]


def _nominates_when_new_is_x(old: str, new: str) -> bool:
    return new == "x"


def test_evaluate_counts_exactly() -> None:
    result = evaluate(SYNTHETIC, _nominates_when_new_is_x)
    assert result == {
        "pairs": 9,
        "by_kind": {
            "duplicate": {"n": 2, "nominated": 1, "rate": 0.5},
            "multi_value": {"n": 2, "nominated": 0, "rate": 0.0},
            "slot_change": {"n": 3, "nominated": 2, "rate": 2 / 3},
            "unrelated": {"n": 2, "nominated": 1, "rate": 0.5},
        },
        "nomination_recall": 3 / 5,
        "false_nomination_rate": 1 / 4,
        # a diet is one value per person, a pet one of many: the duplicates split by topic
        "duplicate_by_topic": {
            "single_value": {"n": 1, "nominated": 1, "rate": 1.0},
            "multi_value": {"n": 1, "nominated": 0, "rate": 0.0},
        },
    }


def test_evaluate_passes_old_then_new() -> None:
    seen: list[tuple[str, str]] = []
    evaluate(SYNTHETIC[:2], lambda old, new: seen.append((old, new)) or False)
    assert seen == [("a", "x"), ("b", "y")]


def test_evaluate_of_nothing() -> None:
    assert evaluate([], _nominates_when_new_is_x) == {
        "pairs": 0, "by_kind": {}, "nomination_recall": 0.0, "false_nomination_rate": 0.0,
        "duplicate_by_topic": {"single_value": {"n": 0, "nominated": 0, "rate": 0.0},
                               "multi_value": {"n": 0, "nominated": 0, "rate": 0.0}},
    }


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_load_pairs_reads_json_lines_and_skips_blank_lines(tmp_path: Path) -> None:
    rows = [json.dumps(row) for row in SYNTHETIC[:3]]
    path = _write(tmp_path, [rows[0], "", rows[1], "   ", rows[2]])
    assert load_pairs(path) == SYNTHETIC[:3]


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ('{"old": "a", "new": "b", "label": "keep"', "line 2: not valid JSON"),
        ('["old", "new"]', "line 2: expected a JSON object"),
        ('{"old": "a", "label": "keep", "kind": "unrelated"}', "line 2: field 'new' missing"),
        ('{"old": "a", "new": 3, "label": "keep", "kind": "x"}', "line 2: field 'new' missing"),
        ('{"old": "a", "new": "b", "label": "maybe", "kind": "x"}', "line 2: label 'maybe'"),
    ],
)
def test_load_pairs_names_the_malformed_line(tmp_path: Path, bad_line: str, message: str) -> None:
    path = _write(tmp_path, [json.dumps(SYNTHETIC[0]), bad_line, json.dumps(SYNTHETIC[1])])
    with pytest.raises(PairsError, match=message):
        load_pairs(path)


def test_format_table_shows_targets_and_marks() -> None:
    result = evaluate(SYNTHETIC, _nominates_when_new_is_x)
    table = format_table(result)
    lines = {line.split()[0]: line for line in table.splitlines() if line.strip()}
    assert "0.667" in lines["slot_change"] and ">= 0.90" in lines["slot_change"]
    assert lines["slot_change"].endswith("FAIL")
    assert lines["duplicate"].endswith("FAIL")
    assert lines["multi_value"].endswith("PASS")
    assert lines["unrelated"].endswith("FAIL")
    assert "nomination recall 0.600" in table and "false nomination rate 0.250" in table
    assert ("duplicates by topic: single-value 1 of 1 (1.000); multi-value 0 of 1 (0.000)"
            in table.splitlines())
    assert meets_targets(result) == {
        "duplicate": False, "multi_value": True, "slot_change": False, "unrelated": False,
    }


def test_format_table_leaves_kinds_without_a_target_unmarked() -> None:
    rows = [{"old": "a", "new": "x", "label": "keep", "kind": "other"}]
    line = format_table(evaluate(rows, _nominates_when_new_is_x)).splitlines()[2]
    assert line.split()[0] == "other" and "PASS" not in line and "FAIL" not in line


@pytest.mark.parametrize(
    ("old", "new", "nominated"),
    [
        ("I live in London", "I moved to Paris", True),  # nominated
        ("I'm vegan", "I am a vegan", True),  # a duplicate counts as handled
        ("I live in London", "I visited Paris", False),  # not even a candidate
        ("I like hiking", "I like painting", False),
    ],
)
def test_rules_nominate(old: str, new: str, nominated: bool) -> None:
    assert rules_nominate(old, new) is nominated


def test_main_prints_the_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"old": "I live in London", "new": "I live in Paris now", "label": "nominate",
         "kind": "slot_change"},
        {"old": "I like hiking", "new": "I like painting", "label": "keep", "kind": "multi_value"},
    ]
    path = _write(tmp_path, [json.dumps(row) for row in rows])
    assert main([str(path)]) == 0
    assert "slot_change" in capsys.readouterr().out
    assert main([str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nomination_recall"] == 1.0
    bad = _write(tmp_path, ["{"])
    with pytest.raises(SystemExit) as exc:
        main([str(bad)])
    assert exc.value.code == 2 and "line 1" in capsys.readouterr().err


def test_rules_meet_the_targets_on_the_dev_file(dev_pairs: list[dict]) -> None:
    assert len(dev_pairs) == 893
    result = evaluate(dev_pairs, rules_nominate)
    failed = {kind: result["by_kind"][kind] for kind, ok in meets_targets(result).items() if not ok}
    assert not failed, format_table(result)
    assert set(TARGETS) <= set(result["by_kind"])


def test_the_pure_candidate_rule_is_what_the_service_can_find(dev_pairs: list[dict]) -> None:
    """Whenever is_candidate accepts a pair, the service finds the old memory too: by keyword
    search over an FTS5 index tokenised as bot/storage/db.py does (porter), by its stored
    slot, or among the newest facts of other topics that state the new fact's topic too
    (saving.candidate_rows, twelfth pass). Otherwise the pure path and the service path of the
    benchmark would disagree."""
    from bot.memory.index.keyword import fts_query

    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')"
    )
    missed = []
    for pair in dev_pairs:
        old, new = pair["old"], pair["new"]
        if not is_candidate(new, Fact(1, old, detect_slot(old))):
            continue
        db.execute("DELETE FROM t")
        db.execute("INSERT INTO t(rowid, text) VALUES (1, ?)", (old,))
        query = fts_query(" ".join(sorted(keywords(new))))
        found = bool(query) and bool(db.execute("SELECT 1 FROM t WHERE t MATCH ?", (query,)).fetchall())
        slot = detect_slot(new)
        if not found and slot != detect_slot(old) and not (slot and states_slot(old, slot)):
            missed.append((old, new))
    assert missed == []


# --- the service path's added figures (issue 15) ------------------------------------------------

from bench.conflicts import evaluate_outcomes  # noqa: E402


def test_evaluate_outcomes_adds_judge_recall_and_recommended_right_beside_the_rates() -> None:
    pairs = [
        {"old": "a", "new": "b", "label": "nominate", "kind": "slot_change"},
        {"old": "c", "new": "d", "label": "nominate", "kind": "slot_change"},
        {"old": "e", "new": "f", "label": "nominate", "kind": "duplicate"},
        {"old": "g", "new": "h", "label": "nominate", "kind": "duplicate"},
        {"old": "i", "new": "j", "label": "keep", "kind": "multi_value"},
    ]
    outcomes = [
        {"nominated": True, "recommended": "past", "judge_candidate": True},
        {"nominated": True, "recommended": "keep", "judge_candidate": True},  # wrong: a change
        {"nominated": True, "recommended": "discard", "judge_candidate": True},  # found as duplicate
        {"nominated": False, "recommended": None, "judge_candidate": False},
        {"nominated": True, "recommended": None, "judge_candidate": True},  # asked, nothing recommended
    ]
    result = evaluate_outcomes(pairs, outcomes)
    assert result["by_kind"]["slot_change"] == {"n": 2, "nominated": 2, "rate": 1.0}  # keys kept
    assert result["by_kind"]["duplicate"]["rate"] == 0.5
    assert result["judge_candidate_recall"] == 3 / 4
    assert result["recommended_right"] == 2 / 4 and result["recommended_none"] == 1
    assert result["recommended_by_kind"]["slot_change"] == {"n": 2, "right": 1, "rate": 0.5}
    table = format_table(result)
    assert "recommended button right 0.500" in table and "judge-candidate recall 0.750" in table


def test_the_service_benchmark_reads_any_file_of_the_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.conflicts_service import main as service_main
    from tests.conftest import make_settings

    rows = [
        {"old": "I live in London", "new": "London is where I live now", "label": "nominate", "kind": "duplicate"},
        {"old": "I have no car", "new": "I drive a Fiat", "label": "nominate", "kind": "slot_change"},
        {"old": "I like hiking", "new": "I like painting", "label": "keep", "kind": "multi_value"},
    ]
    path = _write(tmp_path, [json.dumps(row) for row in rows])
    settings = make_settings(database_url=f"sqlite:///{tmp_path / 'unused.db'}")
    assert service_main(settings, ["--data", str(path), "--embedding", "none", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {k: v["rate"] for k, v in result["by_kind"].items()} == {
        "duplicate": 1.0, "multi_value": 0.0, "slot_change": 1.0,
    }
    assert result["recommended_right"] == 1.0 and result["judge_candidate_recall"] == 1.0
    assert result["embedding"] == "none"
    assert service_main(settings, ["--data", str(path), "--data", str(path), "--embedding", "none", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["files"]) == 2


def test_the_invented_files_are_what_their_builder_makes() -> None:
    """bench/data/conflict_pairs_invented_{tune,heldout2}.jsonl are rebuilt, seeded, by
    bench.invented_pairs from bench/data/invented_facts.jsonl; the held-out file shares no persona
    with the tuning file. The first held-out file (H01-H12) stays as it was built, and its
    personas are tuning personas now."""
    from bench.datasets import data_file
    from bench.invented_pairs import build, load_facts

    facts = load_facts()
    personas = {split: {f["persona"] for f in facts if f["split"] == split} for split in ("tune", "heldout2")}
    assert personas["tune"] and personas["heldout2"] and not personas["tune"] & personas["heldout2"]
    assert {f["split"] for f in facts} == {"tune", "heldout2"}
    for split in ("tune", "heldout2"):
        stored = load_pairs(data_file(f"conflict_pairs_invented_{split}.jsonl"))
        assert stored == build(facts, split)
    first = load_pairs(data_file("conflict_pairs_invented_heldout.jsonl"))
    assert len(first) == 376
    first_personas = {p for pair in first for p in pair["persona"].split("+")}
    assert first_personas == {f"H{n:02d}" for n in range(1, 13)} and first_personas <= personas["tune"]


def test_the_pair_builder_keeps_a_measured_pair_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A committed pair file is a measurement record: `python -m bench.invented_pairs` writes
    only the files that are missing, so a change to the product's word reading (which draws the
    overlap pairs) cannot silently re-draw pairs whose figures are already reported. Only
    --rewrite rebuilds them."""
    import bench.invented_pairs as builder
    from bench.datasets import data_file as real

    def data_file(name: str) -> Path:
        return tmp_path / name if name.startswith("conflict_pairs_") else real(name)

    monkeypatch.setattr(builder, "data_file", data_file)
    measured = tmp_path / "conflict_pairs_invented_heldout13.jsonl"
    measured.write_text("measured\n", encoding="utf-8")
    assert builder.main([]) == 0
    assert measured.read_text(encoding="utf-8") == "measured\n"
    built = tmp_path / "conflict_pairs_invented_heldout31.jsonl"
    assert load_pairs(built) == load_pairs(real("conflict_pairs_invented_heldout31.jsonl"))
    assert builder.main(["--rewrite"]) == 0
    assert len(load_pairs(measured)) == 720  # rebuilt from the persona facts
