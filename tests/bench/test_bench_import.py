"""`python -m bot bench import` at a small size: it imports through the memory service, probes
another person meanwhile and prints the figures with the one-transaction baseline."""

from __future__ import annotations

import json

from bench import importing
from tests.conftest import make_settings


def test_the_benchmark_imports_and_times_the_other_person(capsys) -> None:
    assert importing.main(make_settings(), ["--megabytes", "0.3", "--postgres", "none", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    got = result["backends"]["sqlite"]
    assert result["memories"] > 300
    assert got["batched"]["added"] == result["memories"] == got["one_transaction"]["added"]
    assert got["batched"]["probes"] >= 1 and got["batched"]["other_wait_max_ms"] is not None
    table = importing.format_table(result)
    assert "sqlite: import" in table and "baseline, the same import in one transaction" in table


def test_the_backup_is_shaped_like_an_export() -> None:
    doc = json.loads(importing.backup_bytes(0.05))
    from bot.memory.writing.transfer import parse_backup

    assert len(parse_backup(json.dumps(doc)).memories) == len(doc["memories"]) > 50
