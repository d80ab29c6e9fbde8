"""Assembling the assistant from its parts, once, for every entry point (chat, run, export,
import, benchmarks), so that they all run the same code paths."""

from __future__ import annotations

import asyncio
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


_UNSET: Any = object()


class SemanticWarmup:
    """Waits in the background for the embedding model, then gives vectors to memories saved
    before it was ready. Start-up and saves never wait for it."""

    def __init__(self, semantic: SemanticIndex) -> None:
        self.semantic = semantic
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.semantic.embedder is not None:
            start = getattr(self.semantic.embedder, "start", None)
            if start is not None:
                start()  # loading begins only now, after the greeting, in its own thread
            self._task = asyncio.get_running_loop().create_task(self._run(), name="semantic-warmup")

    async def _run(self) -> None:
        embedder = self.semantic.embedder
        while not self.semantic.ready:
            if getattr(embedder, "failed", False):
                return
            await asyncio.sleep(0.5)
        try:
            count = await self.semantic.backfill()
            if count:
                log.info("gave vectors to %d memories saved before the model was ready", count)
        except Exception:
            log.exception("vector backfill failed; keyword search still serves")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        close = getattr(self.semantic.embedder, "close", None)
        if close is not None:
            close()


def build_app(settings: Settings, *, embedder: Any = _UNSET, with_model: bool = True) -> App:
    """Open storage and wire the parts. Slow parts (the embedding model) load in the background."""
    db = Database(settings.database_url)
    if embedder is _UNSET:
        from bot.memory.embeddings import build_embedder

        embedder = build_embedder(settings, start=False)
    semantic = SemanticIndex(db, embedder)
    memory = MemoryService(db, settings, semantic)
    core = Core(settings=settings, memory=memory)
    parts: dict[str, Any] = {"semantic": SemanticWarmup(semantic)}
    app = App(settings=settings, db=db, memory=memory, core=core, parts=parts)
    from scheduler import install as install_scheduler  # reminders, tidy, purge, re-check (before conversation: it adds a job)

    install_scheduler(app)
    from bot import conversation  # the chat turn, the model client (when a key is set), extraction

    conversation.install(app, with_model=with_model)
    return app
