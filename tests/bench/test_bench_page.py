"""The memory page benchmark (bench/page.py) at a tiny size, through the command line as people
run it: a link made by the benchmark logs in to a `python -m bot web` started after it, the
first screen and its baseline are timed, the JSON shape and the table. Not timed: the figures
themselves are not checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import bot_env

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", "bench", "page", "--memories", "200", "--rounds", "6", *args],
                          capture_output=True, text=True, cwd=tmp_path,
                          env=bot_env(tmp_path, f"sqlite:///{tmp_path / 'unused.db'}"), timeout=600)


def test_bench_page_json_and_table(tmp_path: Path) -> None:
    out = run(tmp_path, "--json")
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout)
    for key in ("page", "api_list", "health"):
        assert result[key]["n"] == 6 and 0 < result[key]["p50_ms"] <= result[key]["p95_ms"], (key, result[key])
    assert result["first_screen_memories"] == 30 and result["questions_open"] >= 1
    assert result["page_over_api_list_p50"] > 0 and result["target_first_screen_p95_ms"] == 200.0
    assert set(result["other_screens"]) == {"all", "search", "review", "history", "timeline"}

    table = run(tmp_path)
    assert table.returncode == 0, table.stderr[-3000:]
    assert "Memory page, first screen, for a person with 200 memories" in table.stdout
    assert "page / API list (p50)" in table.stdout
