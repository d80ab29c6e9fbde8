"""Assembling the assistant from its parts, once, for every entry point (chat, run, export,
import, benchmarks), so that they all run the same code paths."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from bot.config import Settings
from bot.core import Core
from bot.memory.db import Database
from bot.memory.recall_index import SemanticIndex
from bot.memory.service import MemoryService

log = logging.getLogger(__name__)


@dataclass
class App:
    settings: Settings
    db: Database
    memory: MemoryService
    core: Core
    parts: dict[str, Any]

    async def start_background(self) -> None:
        """Start the periodic work (purging deleted text after the undo window, and the parts
        that add their own jobs)."""
        for part in self.parts.values():
            start = getattr(part, "start", None)
            if start is not None:
                await start()

    async def close(self) -> None:
        await self.core.drain(timeout=10)
        for part in reversed(list(self.parts.values())):
            stop = getattr(part, "stop", None)
            if stop is not None:
                try:
                    result = stop()
                    if hasattr(result, "__await__"):
                        await result
                except Exception:
                    log.exception("stopping %s failed", type(part).__name__)
        self.db.dispose()


def build_app(settings: Settings, *, embedder: Any | None = None, with_model: bool = True) -> App:
    """Open storage and wire the parts. Slow parts (the embedding model) load in the background."""
    db = Database(settings.database_url)
    semantic = SemanticIndex(db, embedder)
    memory = MemoryService(db, settings, semantic)
    core = Core(settings=settings, memory=memory)
    return App(settings=settings, db=db, memory=memory, core=core, parts={})
