"""The cost benchmark: its arithmetic as tables, its stand-in "model" rules, and one full run
(`python -m bot bench cost --json` as a subprocess: stdout is only the JSON, exit 0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cost import Extra, TurnRecord, first_person_facts, summarise

ROOT = Path(__file__).resolve().parents[2]


def rec(chat: int = 1, extract: int = 0, judge: int = 0, *, discloses: bool = False, loop: int = 0, ctx: int = 100,
        tin: int = 1000, tout: int = 50) -> TurnRecord:
    return TurnRecord(discloses, {"chat": chat, "extract": extract, "judge": judge, "summary": 0}, tin, tout, loop, ctx)


def test_summarise_counts_per_turn_and_outside_tool_loops():
    turns = [rec(), rec(extract=1, judge=1, discloses=True), rec(chat=3, loop=2), rec(extract=1, discloses=False)]
    out = summarise(turns, Extra(calls={"summary": 2}, input_tokens=400, output_tokens=40))
    calls = out["model_calls"]
    assert calls["by_job_total"] == {"chat": 6, "extract": 2, "judge": 1, "summary": 2}
    assert calls["total"] == 11 and calls["per_turn_mean"] == 2.75
    assert calls["tool_loop_calls"] == 2 and calls["outside_tool_loops_per_turn"] == 2.25
    assert calls["max_in_one_turn"] == 3
    assert out["tokens"]["input_total"] == 4400 and out["tokens"]["output_per_turn_mean"] == 60.0
    ext = out["extraction"]
    assert ext["skipped_share"] == 0.5
    assert ext["skipped_share_on_non_disclosing_turns"] == pytest.approx(2 / 3, abs=1e-3)
    assert ext["reached_model_share_on_disclosing_turns"] == 1.0
    assert out["targets"] == {
        "calls_outside_tool_loops_per_turn_at_most_2": False,
        "memory_context_at_most_1500_every_turn": True,
        "extraction_skipped_on_every_non_disclosing_turn": False,
    }


def test_summarise_context_target_uses_every_turn_not_the_mean():
    out = summarise([rec(ctx=10), rec(ctx=1501)], Extra())
    assert out["memory_context_tokens"] == {"max": 1501, "mean": 755.5}
    assert out["targets"]["memory_context_at_most_1500_every_turn"] is False
    with pytest.raises(ValueError):
        summarise([], Extra())


@pytest.mark.parametrize(
    "text, facts",
    [
        ("we finally moved to Lisbon last month, loving it", ["We finally moved to Lisbon last month"]),
        ("by the way I started learning Portuguese this spring", ["I started learning Portuguese this spring"]),
        ("I'm vegetarian, by the way", ["I'm vegetarian"]),
        ("is it ok to feed her tuna?", []),
        ("I sold my VW Golf, I cycle everywhere now", ["I sold my VW Golf", "I cycle everywhere now"]),
        ("what do cats need in the first week at home?", []),
    ],
)
def test_the_standin_extractor_takes_first_person_clauses(text, facts):
    assert first_person_facts(text) == facts


@pytest.mark.timeout(240)
def test_bench_cost_runs_and_meets_its_targets(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "ANTHROPIC_"))}
    env.update({"PYTHONPATH": str(ROOT), "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.db'}"})
    done = subprocess.run(
        [sys.executable, "-m", "bot", "bench", "cost", "--json"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=220,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # stdout is only the JSON
    assert result["turns"] == 50
    calls = result["model_calls"]["by_job_total"]
    assert calls["chat"] >= 50 and calls["extract"] >= 1 and calls["summary"] >= 2
    assert result["fallback_turns"] == 0
    assert result["extraction"]["failures"] == 0
    assert all(result["targets"].values()), result["targets"]
    assert not (tmp_path / "unused.db").exists()  # the benchmark used its own temporary database
