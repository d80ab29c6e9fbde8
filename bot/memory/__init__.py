"""The memory: a person's facts, their history and the rules that keep them honest.

This is the face of the package: everything outside bot/memory (the core, the features, the web
side) imports from here, and the verbs are MemoryService's. Inside the package, modules import
their siblings directly (never through this file), so the rooms below stay free of circles:

- rules/       pure decisions: conflict nomination, single-value slots, dates, categories
- writing/     transactions: saving, changing, settling questions, undo, purge, import/export
- index/       keyword search (FTS5 / PostgreSQL), vectors, the in-process timeline
- recall/      which memories a question sees: candidates, scoring, the context blocks
- embeddings/  one Encoder protocol and the fast copies of the embedding model
"""

from bot.memory.listing import History, HistoryEntry, Which
from bot.memory.owners import OwnerPrefs
from bot.memory.public import BadCursor, ChangedSince, Listing, MemoryPage, PublicMemory
from bot.memory.recall.pipeline import Recalled, RecalledMemory
from bot.memory.rules.disclosure import also_says, strip_lead_in, tells_about_self
from bot.memory.rules.text import written_span
from bot.memory.service import JudgeFn, MemoryService
from bot.memory.store import MemoryView, words_seen
from bot.memory.writing.changes import Changed
from bot.memory.writing.saving import Decision, FactError, RememberResult
from bot.memory.writing.settle import CHOICE_LABELS, Choice, ConflictView, Settled, choice_label
from bot.memory.writing.settle import fingerprint as conflict_fingerprint
from bot.memory.writing.transfer import ImportProblem, ImportReport
from bot.memory.writing.undo import Undone
from bot.storage.db import ConcurrentUpdate, StorageError
from bot.storage.models import Source

__all__ = [
    "also_says",
    "BadCursor",
    "CHOICE_LABELS",
    "choice_label",
    "Changed",
    "ChangedSince",
    "ConcurrentUpdate",
    "Choice",
    "ConflictView",
    "Decision",
    "FactError",
    "History",
    "HistoryEntry",
    "ImportProblem",
    "ImportReport",
    "conflict_fingerprint",
    "words_seen",
    "written_span",
    "JudgeFn",
    "Listing",
    "MemoryPage",
    "MemoryService",
    "MemoryView",
    "OwnerPrefs",
    "PublicMemory",
    "Recalled",
    "RecalledMemory",
    "RememberResult",
    "Settled",
    "Source",
    "StorageError",
    "strip_lead_in",
    "tells_about_self",
    "Undone",
    "Which",
]
