"""`python -m bot bench NAME [...]`: benchmarks that print figures (not timed tests).

Each benchmark runs the same code paths as the bot, on a temporary database, and exits 0
whether or not its targets are met; with --json stdout carries only one JSON object.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from bot.config import Settings

BENCHES = {
    "conflicts": "bench.conflicts_service",
    "retrieval": "bench.retrieval",
    "latency": "bench.latency",
    "cost": "bench.cost",
    "load": "bench.load",
    "tidy": "bench.tidy",
    "import": "bench.importing",
    "api": "bench.api",
    "page": "bench.page",
}


def main(settings: Settings, name: str, argv: list[str]) -> int:
    module_name = BENCHES.get(name)
    if module_name is None:
        print(f"error: unknown benchmark {name!r}; choose one of: {', '.join(BENCHES)}", file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        print(f"error: the {name} benchmark is not available ({exc.name} is missing)", file=sys.stderr)
        return 2
    return int(module.main(settings, argv) or 0)


__all__ = ["main", "argparse"]
