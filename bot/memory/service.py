"""The memory verbs: the one way in to a person's memory for commands, model tools, extraction,
import and the scheduler.

This is a thin async facade. The rules live in pure modules (conflict, classify, dates), the
transactional work in small session-level modules (saving, changes, settle, undo, purge,
listing, transfer), and every call here runs that work off the event loop through
`Database.run`. Every verb takes the owner first and never touches another owner's rows.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import random
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from sqlmodel import Session, select

from bot.config import Settings
from bot.memory import listing, owners, public
from bot.memory.writing import changes
from bot.memory.writing import purge
from bot.memory.recall import pipeline as recall
from bot.memory.writing import saving
from bot.memory.index import keyword as search
from bot.memory.writing import settle
from bot.memory.writing import transfer
from bot.memory.writing import undo as undo_mod
from bot.storage.db import ConcurrentUpdate, Database
from bot.memory.listing import History, Which
from bot.events import ChatRef
from bot.when.zones import is_valid_timezone
from bot.storage.models import Action, Memory, SchemaInfo, Source, utcnow
from bot.memory.owners import OwnerPrefs
from bot.memory.recall.pipeline import Recalled
from bot.memory.recall.scoring import Weights
from bot.memory.index.semantic import SemanticIndex
from bot.memory.rules.slots import detect_slot
from bot.memory.rules.slot_vectors import likely_slot, vector_slot
from bot.memory.writing.saving import Decision, FactError, RememberResult
from bot.memory.writing.settle import Choice, ConflictView, Settled
from bot.memory.store import MemoryView, get_memory
from bot.memory.index.timeline import TimelineIndex
from bot.memory.writing.transfer import ImportProblem, ImportReport
from bot.memory.writing.undo import Undone
from bot.memory.public import Listing, MemoryPage, PublicMemory

log = logging.getLogger(__name__)

CONFLICT_ATTEMPTS = 3  # one try and two re-runs after a ConcurrentUpdate

# (new fact, [(old id, old text)]) -> {old id: (decision, reason)}, or None to fall back to rules
JudgeFn = Callable[[str, list[tuple[int, str]]], Awaitable[dict[int, tuple[Decision, str]] | None]]

__all__ = [
    "MemoryService",
    "FactError",
    "ImportProblem",
    "RememberResult",
    "Which",
    "Choice",
    "JudgeFn",
]


class MemoryService:
    def __init__(self, db: Database, settings: Settings, semantic: SemanticIndex | None = None) -> None:
        self.db = db
        self.settings = settings
        self.semantic = semantic or SemanticIndex(db, None)
        self.newest = recall.NewestCache()  # each person's newest memory time, for recency
        self.timeline = TimelineIndex()  # each person's live memories in save order, for neighbours
        self.defaults = OwnerPrefs(
            conflict_review=settings.default_conflict_review,
            ai_judge=settings.default_ai_judge,
            extraction_notice=settings.extraction_notice,
            recheck=settings.recheck_enabled,
        )

    def forget_cached(self, owner_id: int, *, vectors: bool = True) -> None:
        """Forget what this process keeps about a person's memories (vector matrix, newest time,
        timeline) after a change that touched many rows or made memories live again; each is
        read afresh on its next use."""
        if vectors:
            self.semantic.invalidate(owner_id)
        self.newest.forget(owner_id)
        self.timeline.forget(owner_id)

    # --- people ------------------------------------------------------------------------------
    async def owner_for(self, platform: str, user_id: str, display_name: str = "", *, create: bool = True) -> int | None:
        def work() -> int | None:
            with self.db.session() as s:
                if create:
                    return owners.ensure_owner(s, platform, user_id, display_name)
                return owners.find_owner(s, platform, user_id)

        return await self.db.run(work)

    async def identities(self, owner_id: int) -> list[tuple[str, str, str]]:
        """(platform, user id, display name) of every account linked to this memory."""
        return await self._tx(owners.identities, owner_id)

    async def prefs(self, owner_id: int) -> OwnerPrefs:
        return await self._tx(owners.read_prefs, owner_id, self.defaults)

    async def set_pref(self, owner_id: int, name: str, value: bool) -> str | None:
        """Change a setting as an undoable action; its id, or None when nothing changed."""
        return await self._tx(owners.write_pref, owner_id, name, value)

    async def set_timezone(self, owner_id: int, tz: str) -> str | None:
        """Change the time zone as an undoable action; its id, or None when nothing changed."""
        return await self._tx(owners.set_timezone, owner_id, tz)

    async def offer_zone_once(self, owner_id: int) -> bool:
        """Whether to offer a time zone now: the first time for a person without one."""
        return await self._tx(owners.offer_zone_once, owner_id)

    async def has_timezone(self, owner_id: int) -> bool:
        """Whether the person chose a zone (the default is only a guess)."""
        prefs = await self.prefs(owner_id)
        return bool(prefs.timezone and is_valid_timezone(prefs.timezone))

    async def timezone_of(self, owner_id: int) -> str:
        """The person's zone; the default for one that is not a zone (stored before imports
        were checked: "Mars/Olympus" made every reminder command fail)."""
        prefs = await self.prefs(owner_id)
        if prefs.timezone and is_valid_timezone(prefs.timezone):
            return prefs.timezone
        return self.settings.default_timezone

    # --- saving ------------------------------------------------------------------------------
    async def remember(
        self,
        owner_id: int,
        text: str,
        *,
        source: str = Source.COMMAND.value,
        confidence: float = 1.0,
        source_ref: str | None = None,
        created_at: datetime | None = None,
        dedupe: bool = True,
        review: bool | None = None,
        judge: JudgeFn | None = None,
        actor: str = "person",
        importance: float | None = None,
    ) -> RememberResult:
        """Save a fact through the rules: near duplicates are not stored twice, possible
        replacements are asked about (or, with the AI judge, retired when it is sure), nothing
        is overwritten. Raises FactError for text that cannot be a fact."""
        text = saving.clean_fact(text)
        vector = await self.semantic.embed_one(text)
        cosines = await self.semantic.neighbours(owner_id, vector) if vector is not None else {}
        same = self.semantic.same_fact(owner_id, vector, list(cosines))
        new = saving.NewFact(
            source=source, confidence=confidence, source_ref=source_ref, created_at=created_at,
            embedding=self.semantic.pack(vector), actor=actor, importance=importance,
        )
        topic = vector_slot(vector, text)
        # the facts the vectors find likely of the new fact's topic: the neighbours', and the
        # newest of the person's whole memory (the rules compare them only with a fact that
        # states that topic)
        compared = dedupe or review is not False  # a save with neither compares nothing
        likely_old = {
            **self.semantic.likely_of(owner_id, detect_slot(text) or topic, saving.SLOT_CANDIDATES),
            **self.semantic.likely_slots(owner_id, list(cosines)),
        } if compared else {}
        # one transaction: preferences, related memories, rules and the write (a re-run after a
        # concurrent change reads everything afresh)
        out = await self._tx(
            saving.remember, owner_id, text, self.db.dialect, cosines, new, defaults=self.defaults,
            review=review, dedupe=dedupe, judge_available=judge is not None, vector_slot=topic,
            same=same, likely_slot=likely_slot(vector), likely_old=likely_old,
        )
        if isinstance(out, saving.AskJudge):
            assert judge is not None
            decisions, reasons, verdicts = out.decisions, out.reasons, out.verdicts
            verdict = await judge(text, out.olds)
            if verdict is not None:
                by_id = {c.id for c in out.gathered.candidates}
                decisions, reasons, verdicts = {}, {}, {}
                for old_id, (decision, why) in verdict.items():
                    if old_id in by_id and decision != "save":
                        decisions[old_id] = decision
                        reasons[old_id] = f"judge: {why}"
                        # the judge's reason starts with its relation ("replaces (p=0.95)")
                        verdicts[old_id] = saving.judge_verdict(why)
            else:
                log.info("judge unavailable; falling back to the rules")
            out = await self._tx(
                saving.apply_remember, owner_id, text, slot=out.gathered.slot, decisions=decisions,
                reasons=reasons, new=new, verdicts=verdicts,
            )
        result = out
        if result.memory is not None:
            self.semantic.added(owner_id, result.memory.id, vector)
            if vector is None:
                self.semantic.backfill_later(owner_id, result.memory.id, text)
        return result

    async def remember_many(
        self, owner_id: int, items: list[tuple[str, datetime | None]], *, source: str = Source.IMPORT.value
    ) -> list[int]:
        """Bulk saves without conflict review or duplicate check (benchmarks, bulk loads):
        embeddings computed in one batch, rows written in one transaction."""
        texts = [saving.clean_fact(t, words=False) for t, _ in items]
        vectors = await self.semantic.embed_many(texts)

        def work() -> list[int]:
            ids = []
            with self.db.session() as s:
                for i, (text, (_, created)) in enumerate(zip(texts, items)):
                    blob = self.semantic.pack(vectors[i]) if vectors is not None else None
                    r = saving.apply_remember(
                        s, owner_id, text, slot=None, decisions={}, reasons={},
                        new=saving.NewFact(source=source, confidence=1.0, source_ref=None, created_at=created,
                                           embedding=blob, actor="import"),
                    )
                    assert r.memory is not None
                    ids.append(r.memory.id)
            return ids

        ids = await self.db.run(work)
        if vectors is not None:
            for i, mid in enumerate(ids):
                self.semantic.added(owner_id, mid, vectors[i])
        return ids

    async def update_fact(
        self, owner_id: int, memory_id: int, text: str, *, expected_version: int | None = None, source: str = Source.COMMAND.value
    ) -> tuple[MemoryView, MemoryView] | None:
        text = saving.clean_fact(text)
        vector = await self.semantic.embed_one(text)
        out = await self._tx(
            _checked(saving.apply_update, expected_version), owner_id, memory_id, text, source=source,
            embedding=self.semantic.pack(vector), retry_on_conflict=False,
        )
        if out is not None:
            self.semantic.added(owner_id, out[0].id, vector)
        return out

    # --- changing ----------------------------------------------------------------------------
    async def edit(
        self, owner_id: int, memory_id: int, text: str, *, expected_version: int | None = None
    ) -> changes.Changed | None:
        text = saving.clean_fact(text)
        vector = await self.semantic.embed_one(text)
        out = await self._tx(
            _checked(changes.edit, expected_version), owner_id, memory_id, text, self.semantic.pack(vector),
            retry_on_conflict=False,
        )
        if out is not None:
            self.semantic.added(owner_id, memory_id, vector)
        return out

    async def mark_past(
        self, owner_id: int, memory_id: int, *, expected_version: int | None = None
    ) -> changes.Changed | None:
        return await self._tx(_checked(changes.mark_past, expected_version), owner_id, memory_id)

    async def restore(
        self, owner_id: int, memory_id: int, *, expected_version: int | None = None
    ) -> changes.Changed | None:
        out = await self._tx(_checked(changes.restore, expected_version), owner_id, memory_id)
        if out is not None:
            self.forget_cached(owner_id)
        return out

    async def delete(
        self, owner_id: int, memory_id: int, *, actor: str = "person", expected_version: int | None = None
    ) -> changes.Changed | None:
        out = await self._tx(_checked(changes.delete_memory, expected_version), owner_id, memory_id, actor=actor)
        if out is not None:
            self.semantic.removed(owner_id, memory_id)
            self.timeline.forget(owner_id)
        return out

    async def forget_scope(self, owner_id: int) -> tuple[int, int]:
        """(memories "delete everything" would delete, the newest memory's id)."""
        return await self._tx(changes.forget_scope, owner_id)

    async def forget_everything(self, owner_id: int) -> int:
        count = await self._tx(changes.forget_everything, owner_id)
        self.forget_cached(owner_id)
        if not await self.db.truncate_wal():
            log.warning("the write-ahead log could not be emptied after a deletion; it will be at the next checkpoint")
        return count

    async def undo(self, owner_id: int, action_id: str | None = None) -> Undone:
        out = await self._tx(undo_mod.undo, owner_id, action_id)
        self.forget_cached(owner_id)
        return out

    async def next_to_undo(self, owner_id: int) -> str | None:
        """What a plain /undo would undo now, in words (None: nothing)."""
        return await self._tx(undo_mod.next_to_undo, owner_id)

    async def claim_action(self, owner_id: int, action_id: str) -> None:
        """Count an action the assistant carried out at the person's request (/tidy) as the
        person's own, so that a plain /undo reverts it; background work stays out of /undo's
        way."""

        def work(s: Session) -> None:
            action = s.get(Action, action_id)
            if action is not None and action.owner_id == owner_id:
                action.actor = "person"
                s.add(action)

        await self._tx(work)

    async def purge_due(self) -> int:
        """Deleted memories past the undo window lose their text; imports abandoned half-way
        (the process died while staging) lose their staged rows."""
        await self._tx(transfer.discard_abandoned)
        count = await self._tx(purge.purge_due, timedelta(seconds=self.settings.undo_window_seconds))
        if count and not await self.db.truncate_wal():
            log.warning("the write-ahead log could not be emptied after a purge; it will be at the next checkpoint")
        return count

    # --- reading -----------------------------------------------------------------------------
    async def get(self, owner_id: int, memory_id: int) -> MemoryView | None:
        def work(s: Session) -> MemoryView | None:
            m = get_memory(s, owner_id, memory_id)
            return MemoryView.of(m) if m is not None else None

        return await self._tx(work)

    async def list(self, owner_id: int, which: Which = Which.ALL) -> list[MemoryView]:
        return await self._tx(listing.list_memories, owner_id, which)

    async def slotted(self, owner_id: int) -> list[int]:
        """Ids of the memories of single-value topics (the timeline's)."""
        return await self._tx(listing.slotted_ids, owner_id)

    async def history(self, owner_id: int, memory_id: int) -> History | None:
        return await self._tx(listing.history, owner_id, memory_id)

    async def search(self, owner_id: int, query: str, limit: int = 10) -> list[MemoryView]:
        return await self._tx(listing.keyword_find, owner_id, query, self.db.dialect, limit)

    async def recall(
        self,
        owner_id: int,
        query: str,
        *,
        record_use: bool = True,
        query_vector: np.ndarray | None = None,
        max_memories: int | None = None,
        past: bool = False,
    ) -> Recalled:
        """The memory context for a chat turn (labelled blocks within the budgets), by the steps
        in bot/memory/recall/pipeline.py. Memories actually injected get uses += 1 when `record_use`
        (real chat turns only; benchmarks and /why read without writing). `query_vector` lets a
        caller that already embedded the question (see query_vector()) skip that step;
        `max_memories` narrows RECALL_MAX_MEMORIES for one call (a program asking for fewer);
        `past` reads the question as one about the past (historical facts may be shown)."""
        st = self.settings
        most = max(1, min(max_memories, 50)) if max_memories else st.recall_max_memories
        kw: recall.KeywordStage | None = None
        vector_hits = None
        mode = "keyword"
        if self.semantic.ready and await self.semantic.ensure_loaded(owner_id):
            if query_vector is None:  # the question's vector depends on the person's common words
                kw = await self._tx(recall.keyword_stage, owner_id, query, self.db.dialect, most)
                query_vector = await self.semantic.embed_one(search.vector_query_text(query, kw.counts, kw.total))
            if query_vector is not None:
                vector_hits = functools.partial(
                    self.semantic.loaded_vector_hits, owner_id, query_vector, recall.VECTOR_CANDIDATES
                )
                mode = "hybrid"
        # everything else in one transaction: keyword stage (if not done), vectors, details
        kw, vector, detail = await self._tx(
            recall.gather_stage, owner_id, query, self.db.dialect, most, kw, vector_hits, self.newest,
            self.timeline, past,
        )
        ranked = recall.rank(
            query, kw.keyword, vector, detail, Weights.from_settings(st), st.recency_half_life_days, kw.few
        )
        result = recall.assemble(
            query,
            ranked,
            detail,
            max_memories=most,
            max_tokens=st.recall_max_tokens,
            model_context_tokens=st.model_context_tokens,
            mode=mode,
            keyword=kw.keyword,
            vector=vector,
            topic=kw.topic,
            elsewhere=kw.elsewhere,
            past=past,
        )
        if record_use and result.memory_ids:
            await self._tx(recall.record_use, owner_id, result.memory_ids)
        return result

    async def record_use(self, owner_id: int, memory_ids: list[int]) -> None:
        """uses += 1 for memories an answer showed, when the caller chose them from a recall made
        with record_use=False (an answer from memory shows fewer than the model would see)."""
        if memory_ids:
            await self._tx(recall.record_use, owner_id, memory_ids)

    async def query_vector(self, owner_id: int, query: str) -> np.ndarray | None:
        """The vector recall would embed for this question (None without a ready model)."""
        if not self.semantic.ready:
            return None
        kw = await self._tx(recall.keyword_stage, owner_id, query, self.db.dialect)
        return await self.semantic.embed_one(search.vector_query_text(query, kw.counts, kw.total))

    async def count(self, owner_id: int) -> int:
        def work(s: Session) -> int:
            stmt = select(Memory.id).where(Memory.owner_id == owner_id, Memory.deleted_at.is_(None))  # type: ignore[union-attr]
            return len(s.exec(stmt).all())

        return await self._tx(work)

    # --- numbers in lists ----------------------------------------------------------------------
    async def set_numbers(self, owner_id: int, ids: list[int]) -> None:
        await self._tx(owners.set_last_list, owner_id, ids)

    async def number_to_id(self, owner_id: int, number: int) -> int | None:
        ids = await self._tx(owners.last_list, owner_id)
        if 1 <= number <= len(ids):
            return ids[number - 1]
        return None

    async def numbers(self, owner_id: int) -> list[int]:
        return await self._tx(owners.last_list, owner_id)

    # --- conflicts ---------------------------------------------------------------------------
    async def pending_conflicts(self, owner_id: int) -> list[ConflictView]:
        return await self._tx(settle.pending, owner_id)

    async def pending_count(self, owner_id: int | None) -> int:
        """How many questions wait for an answer: one person's, or everyone's (None)."""
        return await self._tx(settle.pending_count, owner_id)

    async def conflict(self, owner_id: int, conflict_id: int) -> ConflictView | None:
        return await self._tx(settle.get_conflict, owner_id, conflict_id)

    async def resolve(self, owner_id: int, conflict_id: int, choice: Choice) -> Settled | str:
        out = await self._tx(settle.resolve, owner_id, conflict_id, choice)
        if isinstance(out, Settled) and choice in (Choice.REPLACE, Choice.DISCARD):
            self.forget_cached(owner_id)
        return out

    async def record_shown(self, owner_id: int, conflict_id: int, platform: str, chat_id: str, message_id: str | None) -> None:
        await self._tx(settle.record_shown, owner_id, conflict_id, platform, chat_id, message_id)

    async def shown_at(self, owner_id: int, conflict_id: int) -> tuple[str, str, str] | None:
        return await self._tx(settle.shown_at, owner_id, conflict_id)

    # --- export / import ---------------------------------------------------------------------
    async def export(self, owner_id: int) -> dict[str, Any]:
        return await self._tx(transfer.export_owner, owner_id)

    async def export_bytes(self, owner_id: int) -> bytes:
        return json.dumps(await self.export(owner_id), ensure_ascii=False, indent=1).encode("utf-8")

    async def backup_size(self, raw: bytes | str) -> int:
        """How many memories a backup holds, read without importing anything; raises
        ImportProblem when it is not a backup (so a file dropped in a chat can be offered)."""
        backup = await asyncio.to_thread(transfer.parse_backup, raw)
        return len(backup.memories)

    async def import_bytes(self, owner_id: int, raw: bytes | str, *, via: ChatRef | None = None) -> ImportReport:
        """Validate then apply a backup; raises ImportProblem and changes nothing when the file
        is malformed. `via`: the importer's private chat on the platform the import came
        through, where its reminders will go (None from the command line: only reminders of
        the owner's own identities are kept; see bot.memory.writing.transfer).

        Never one long transaction: parsing and cleaning run on a worker thread, the rows are
        staged in batches of `transfer.BATCH_ROWS` (each its own short transaction, so other
        people's work interleaves), and one final transaction makes them the owner's."""
        now = utcnow()
        report = transfer.ImportReport()

        def read() -> transfer.Backup:
            return transfer.clean_backup(transfer.parse_backup(raw), now, report)

        backup = await asyncio.to_thread(read)
        plan = await self._tx(transfer.plan_import, owner_id, backup, via, now, report)
        if not plan.writes:
            return report
        # the topics of restored facts, read off the database's thread (import_questions.py)
        plan.slots = await asyncio.to_thread(transfer.topic_slots, transfer.restored_texts(plan))
        staging: int = await self._tx(transfer.open_staging, owner_id)
        try:
            staged: dict[str, int] = {}
            for i in range(0, len(plan.adds), transfer.BATCH_ROWS):
                staged.update(await self._tx(transfer.stage_memories, staging, plan.adds[i:i + transfer.BATCH_ROWS]))
            for i in range(0, max(len(plan.episodes), len(plan.procedures)), transfer.BATCH_ROWS):
                await self._tx(transfer.stage_others, staging, plan.episodes[i:i + transfer.BATCH_ROWS],
                               plan.procedures[i:i + transfer.BATCH_ROWS])
            report = await self._tx(transfer.finish_import, plan, staging, staged, now, retry_on_conflict=False)
        except BaseException:
            try:
                await self._tx(transfer.discard_staging, staging)
            except Exception:  # left for discard_abandoned (the purge job)
                log.warning("could not discard a failed import's staged rows; the purge job will")
            raise
        self.forget_cached(owner_id)
        return report

    # --- for programs: stable uids, pages (docs/ARCHITECTURE.md section 10) -------------------
    async def find(self, owner_id: int, uid: str, *, include_deleted: bool = False) -> int | None:
        """This owner's memory with this uid (deleted ones waiting for the purge only when asked);
        None for anyone else's uid, a purged one, or a string that cannot be a uid."""
        if not public.well_formed(uid):
            return None
        return await self._tx(public.id_for, owner_id, uid, include_deleted=include_deleted)

    async def as_public(self, owner_id: int, ids: list[int]) -> list[PublicMemory]:
        """These memories as programs see them (links by uid), in the order given."""
        return await self._tx(public.views, owner_id, ids)

    async def page(
        self, owner_id: int, listing: Listing, query: str = "", limit: int = 50, cursor: str | None = None
    ) -> MemoryPage:
        """One page of a list (newest first) or of a keyword search (best first); raises
        public.BadCursor for a cursor this code did not give out."""
        return await self._tx(public.page, owner_id, listing, query, limit, cursor, self.db.dialect)

    async def question_of(self, owner_id: int, memory_id: int) -> int | None:
        """The question the save of this memory asked, if it asked one."""
        return await self._tx(public.question_of, owner_id, memory_id)

    async def healthy(self) -> None:
        """Read the schema stamp; raises StorageError when storage cannot be read."""
        await self._tx(lambda s: s.exec(select(SchemaInfo.version)).first())

    # --- plumbing ----------------------------------------------------------------------------
    async def _tx(self, fn: Callable[..., Any], *args: Any, retry_on_conflict: bool = True, **kwargs: Any) -> Any:
        """Run `fn(session, *args)` in one transaction off the event loop.

        When another process changed the same rows at the same moment (ConcurrentUpdate: a
        memory's version moved on, or a PostgreSQL deadlock victim), the transaction was rolled
        back whole; it is run again on fresh data, so "mark as past" finds the memory already
        past and an answer finds its question already settled. Verbs whose outcome depends on
        what the person saw (edit, update) pass retry_on_conflict=False: the loser is told, and
        the winner's change is not silently overwritten."""

        def work() -> Any:
            with self.db.session() as s:
                return fn(s, *args, **kwargs)

        attempts = CONFLICT_ATTEMPTS if retry_on_conflict else 1
        for attempt in range(1, attempts + 1):
            try:
                return await self.db.run(work)
            except ConcurrentUpdate:
                if attempt >= attempts:
                    raise
                log.info("concurrent change; retrying %s (attempt %d)", getattr(fn, "__name__", "work"), attempt + 1)
                await asyncio.sleep(random.uniform(0.002, 0.02) * attempt)  # de-synchronise the racers


def _checked(fn: Callable[..., Any], expected_version: int | None) -> Callable[..., Any]:
    """`fn(session, owner_id, memory_id, ...)`, refused with public.ChangedSince when the memory is
    no longer at the version the caller read (a program that read it, then someone changed it in
    the chat): the row-version check across both doors."""
    if expected_version is None:
        return fn

    def work(s: Session, owner_id: int, memory_id: int, *args: Any, **kwargs: Any) -> Any:
        public.check_version(s, owner_id, memory_id, expected_version)
        return fn(s, owner_id, memory_id, *args, **kwargs)

    work.__name__ = getattr(fn, "__name__", "work")
    return work
