"""`python -m bot bench tidy` at a small size: it runs the bot's curator, finds the restatements it
planted, measures the loop's stall and prints the table (the figures themselves are the README's)."""

from __future__ import annotations

import json

from bench import tidy
from tests.conftest import make_settings


def test_the_benchmark_runs_the_curator_and_prints_its_figures(capsys) -> None:
    assert tidy.main(make_settings(), ["--sizes", "200", "--baseline-size", "200", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    size = result["sizes"]["200"]
    assert size["memories"] == 210  # every 20th of 200 restated
    assert size["merged"] >= 10 and size["runs"] == 1 and size["unchanged_skipped"]
    assert size["heartbeats"] > 0 and size["longest_stall_ms"] >= 0
    assert result["baseline"]["all_pairs_decide_s"] > 0


def test_the_table_states_the_targets() -> None:
    result = {"sizes": {"10000": {"memories": 10500, "load_s": 1, "tidy_s": 6.0, "runs": 1, "merged": 9,
                                  "longest_stall_ms": 12.0, "stall_p99_ms": 4.0, "beats_over_50ms": 0,
                                  "idle_stall_ms": 3.0, "unchanged_check_s": 0.2}}}
    table = tidy.format_table(result)
    assert "stall <= 50 ms at every size: met" in table
    assert "tidy at 10,000 6.00 s <= 5: NOT met" in table
