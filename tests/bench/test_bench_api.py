"""The API benchmark (bench/api.py) at a tiny size, through the command line as people run it:
the JSON shape, a real `python -m bot web` beside the in-process verbs, and the table. Not timed:
the figures themselves are not checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import bot_env

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

TINY = ["--memories", "300", "--queries", "20", "--saves", "5", "--clients", "4", "--embedding", "none",
        "--vector-cache", "none"]


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", "bench", "api", *args], capture_output=True, text=True,
                          cwd=tmp_path, env=bot_env(tmp_path, f"sqlite:///{tmp_path / 'unused.db'}"), timeout=600)


def test_bench_api_json_and_table(tmp_path: Path) -> None:
    out = run(tmp_path, *TINY, "--json")
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout)  # stdout carries only the JSON object
    for key in ("recall_in_process", "recall_http", "search_mcp", "save_in_process", "save_http", "save_mcp"):
        stats = result[key]
        assert stats["p50_ms"] > 0 and stats["p50_ms"] <= stats["p95_ms"], (key, stats)
    assert result["recall_http"]["n"] == result["search_mcp"]["n"] == result["recall_in_process"]["n"] == 20
    assert result["save_http"]["n"] == result["save_mcp"]["n"] == 5
    assert result["throughput"]["http_per_s"] > 0 and result["throughput"]["in_process_per_s"] > 0
    assert set(result["targets"]) == {"http_added_p95_ms", "mcp_added_p95_ms"}
    assert result["mode"] == "keyword" and result["memories"] == 300

    table = run(tmp_path, *TINY)
    assert table.returncode == 0, table.stderr[-3000:]
    assert "recall over HTTP (GET /api/recall)" in table.stdout and "added by MCP" in table.stdout
