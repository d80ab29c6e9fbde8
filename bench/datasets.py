"""Where the benchmark data lives: bench/data/ in the repository (and in the installed package).
bench/data/README.md says where each file comes from and under which licence."""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_cache_path

DATA_DIR = Path(__file__).resolve().parent / "data"


def data_file(name: str) -> Path:
    """A benchmark data file shipped in bench/data/."""
    return DATA_DIR / name


def cache_dir(name: str) -> Path:
    """A folder in the user's cache directory for what a benchmark can rebuild (vectors)."""
    return user_cache_path("memory-assistant") / name
