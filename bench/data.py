"""Where the shared benchmark data lives: $SHARED_DATA_DIR, or shared/data beside the
repository (the layout of the development and CI machines)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def data_dirs() -> list[Path]:
    dirs = []
    if os.environ.get("SHARED_DATA_DIR"):
        dirs.append(Path(os.environ["SHARED_DATA_DIR"]))
    dirs += [REPO.parent / "shared" / "data", Path("/work/shared/data")]
    return dirs


def shared_data(name: str) -> Path:
    """The first existing copy of a shared data file (or the first place looked, so that an
    error message names it)."""
    dirs = data_dirs()
    return next((d / name for d in dirs if (d / name).is_file()), dirs[0] / name)
