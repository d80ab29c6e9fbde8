"""The curator's decisions (pure) and the transaction that applies them (docs/ARCHITECTURE.md section 4).

What it does for one person: merges true duplicates, removes junk only when sure, archives
expired memories. The rule of the curator is the rule of the house: when unsure, keep.

Pure decisions (plain values in, plain values out, table-tested):

* `is_true_duplicate(a, b)`: both current, live, not under a pending question, same stated
  dates, and each text is a near duplicate of the other by `bot.memory.rules.conflict`'s own test
  (so neither adds a number, name or content word the other lacks), and every single-value
  slot either speaks about has the same value in both. "I have 2 kids" / "I have 3 kids" and
  "I live in London" / "I live in Paris" are never merged. Only the text rules are used here,
  never embeddings: a cosine of 0.93 is good enough to not store a fact twice, not to retire one.
* `plan_merges(items)`: groups in which every pair is a true duplicate (no chaining: A~B and
  B~C does not merge A with C unless A~C). The newest memory of a group survives (it carries
  the newest source) and takes the highest confidence and importance of the group.
  Never all pairs: a true duplicate has the same content words (each adds none the other
  lacks), numbers, names and stated dates, so memories are first put in buckets by
  `merge_key` (computed once per memory) and only pairs inside a bucket get the expensive
  check. The result is exactly that of checking every pair (a test compares the two); vector
  neighbours play no part, since the curator never decides by embeddings. Linear in the
  number of memories: 10,000 take about a second (`python -m bot bench tidy`).
* `merge_keys(items, known, deadline)`: the keys, reusing those of memories whose version did
  not change since an earlier run, computing the rest until the deadline. A run that runs out
  of time decides nothing and resumes from the keys it kept (the per-run budget).
* `is_junk_by_rule(text)`: only empty or whitespace text. A model may flag more (statements
  about the assistant); `accept_junk_flag` takes a flag only with probability >= 0.9 *and*
  when the text plausibly is such a statement by the rules too.
* `is_expired(item, now)`: importance < 0.1 and no activity for 120 days (activity: created,
  used in an answer, confirmed, or restored/edited by the person).
* `fingerprint(items, now)`: what the owner's memories look like (ids and versions) plus which
  of them are expirable now, so an unchanged person costs one read and no model call, yet a
  memory crossing the 120-day line is still noticed.

A change the person reverted (an undone merge, a restored archive) is never redone: the
event log says which curator changes were reverted, per memory and kind.

Transactional part: `read_owner` takes a snapshot, `apply_plan` applies a plan in one
transaction, re-checking every memory's version (rows locked FOR UPDATE on PostgreSQL), so a
change the person made in between wins and the stale part of the plan is dropped. Everything it
changes is one Action (actor "curator", undoable), with 'merged', 'deleted' and
'auto_archived' events, so /undo reverts a tidy-up like any other change.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from bot.memory.writing.changes import void_conflicts_naming
from bot.memory.rules.conflict import is_near_duplicate
from bot.storage.models import Action, Conflict, EventKind, ImportStaging, Memory, MemoryEvent, Owner, Status, utcnow
from bot.memory.rules.slots import find_slots, slot_value
from bot.memory.store import MemoryView, log_event, mref, new_action, snapshot, touch
from bot.memory.rules.text import content_words, names, numbers

ACTOR = "curator"
EXPIRY_IMPORTANCE = 0.1
EXPIRY_UNUSED_DAYS = 120
JUNK_MIN_PROBABILITY = 0.9
MAX_JUNK_CANDIDATES = 40

# Curator kinds a person can revert, and the kinds of events that mean "reverted".
_CURATOR_KINDS = (EventKind.MERGED.value, EventKind.AUTO_ARCHIVED.value, EventKind.DELETED.value)
_REVERTING_KINDS = (EventKind.UNDONE.value, EventKind.RESTORED.value)
# Person-side events that count as activity for expiry.
_ACTIVITY_KINDS = (EventKind.RESTORED.value, EventKind.EDITED.value, EventKind.CONFIRMED.value)


# --- values ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One live memory as the curator sees it."""

    id: int
    text: str
    status: str = Status.CURRENT.value
    archived: bool = False
    confidence: float = 1.0
    importance: float = 0.5
    source: str = "command"
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime | None = None
    last_used_at: datetime | None = None
    confirmed_at: datetime | None = None
    valid_from: date | None = None
    valid_until: date | None = None
    version: int = 1
    in_question: bool = False  # named in a pending conflict question
    person_touched_at: datetime | None = None  # last restore/edit/confirm by the person
    reverted: frozenset[str] = frozenset()  # curator event kinds the person reverted on it


@dataclass(frozen=True)
class Merge:
    keep_id: int
    merged_ids: tuple[int, ...]
    confidence: float
    importance: float


@dataclass(frozen=True)
class Plan:
    merges: tuple[Merge, ...] = ()
    remove: tuple[tuple[int, str], ...] = ()  # (id, why)
    archive: tuple[int, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.merges or self.remove or self.archive)

    def touched_ids(self) -> set[int]:
        ids = {i for i, _ in self.remove} | set(self.archive)
        for m in self.merges:
            ids.add(m.keep_id)
            ids.update(m.merged_ids)
        return ids


@dataclass(frozen=True)
class MergeDone:
    keep_text: str
    merged_texts: tuple[str, ...]


@dataclass(frozen=True)
class TidyReport:
    """What one run did (or why it did nothing), for the event log and for /tidy."""

    owner_id: int
    skipped: str | None = None  # "unchanged" | "busy" | "budget" (out of time, resumes) | None
    examined: int = 0
    merged: tuple[MergeDone, ...] = ()
    removed: tuple[str, ...] = ()
    archived: tuple[str, ...] = ()
    stale: int = 0  # parts of the plan dropped because the person changed those memories
    action_id: str | None = None
    model_used: bool = False
    kept_apart: int = 0  # memories whose merge the person undid: never merged again

    @property
    def changed(self) -> bool:
        return bool(self.merged or self.removed or self.archived)

    def summary(self) -> str:
        """The answer to /tidy."""
        if self.skipped == "busy":
            return "A tidy-up of your memories is already running; try again in a minute."
        if self.skipped == "budget":
            return (
                f"You have {self.examined} memories; looking through them takes more than one go. "
                "I have started and will finish on my own shortly. Nothing was changed yet."
            )
        if self.skipped == "unchanged":
            return "Nothing has changed since the last tidy-up, so there was nothing to do."
        if not self.changed:
            duplicates = "no duplicates"
            if self.kept_apart:  # "no duplicates" right after an undone merge would not be true
                n = self.kept_apart
                duplicates = (f"nothing new to merge (the {n} memor{'y' if n == 1 else 'ies'} whose merge you "
                              "undid stay separate, as you chose)")
            return (
                f"I looked through your {self.examined} memories: {duplicates}, nothing empty, nothing "
                "expired. Everything stays as it is."
            )
        lines = ["I tidied up your memories:"]
        for m in self.merged:
            olds = ", ".join(_q(t) for t in m.merged_texts)
            lines.append(f"• merged {olds} into {_q(m.keep_text)} (the same fact saved more than once)")
        for t in self.removed:
            lines.append(f"• removed {_q(t) if t.strip() else 'an empty memory'}")
        for t in self.archived:
            lines.append(f"• archived {_q(t)} (unimportant and unused for {EXPIRY_UNUSED_DAYS} days)")
        if self.archived or self.merged:
            lines.append("Archived and merged memories are under /memories archived; /restore brings one back.")
        lines.append("/undo reverts this tidy-up.")
        return "\n".join(lines)


def _q(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"“{text}”"


# --- pure decisions --------------------------------------------------------------------------


def _slot_values(text: str) -> dict[str, str | None]:
    return {found.slot: slot_value(text, found.slot) for found in find_slots(text)}


def _mergeable(it: Item) -> bool:
    """The half of `is_true_duplicate` that looks at one memory alone."""
    return not (
        it.archived
        or it.in_question
        or it.status != Status.CURRENT.value
        or not it.text.strip()
        or EventKind.MERGED.value in it.reverted
    )


def is_true_duplicate(a: Item, b: Item) -> bool:
    """Whether two memories state the very same fact, so that keeping one loses nothing."""
    if a.id == b.id or not (_mergeable(a) and _mergeable(b)):
        return False
    if (a.valid_from, a.valid_until) != (b.valid_from, b.valid_until):
        return False
    if numbers(a.text) != numbers(b.text) or names(a.text) != names(b.text):
        return False
    if _slot_values(a.text) != _slot_values(b.text):
        return False
    return is_near_duplicate(a.text, b.text) and is_near_duplicate(b.text, a.text)


def merge_key(it: Item) -> int:
    """Equal for any two true duplicates (a necessary condition, not a sufficient one): their
    content words, numbers, names and stated dates. A hash, so that keys kept between runs
    cost little memory; a collision only costs one more exact check."""
    text = it.text
    return hash((content_words(text), numbers(text), names(text), it.valid_from, it.valid_until))


# id -> (version the key was computed for, key): what a run keeps for the next one
KeyCache = MutableMapping[int, tuple[int, int]]


def merge_keys(
    items: Sequence[Item],
    known: KeyCache | None = None,
    *,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[dict[int, int], bool]:
    """({id: merge key} for the mergeable memories, whether all were computed before
    `deadline` (a `clock()` value)). Keys in `known` for the same version are reused; new ones
    are written into it, and entries of memories no longer among `items` are dropped."""
    cache: KeyCache = known if known is not None else {}
    keys: dict[int, int] = {}
    complete = True
    computed = 0
    for it in items:
        if not _mergeable(it):
            continue
        got = cache.get(it.id)
        if got is not None and got[0] == it.version:
            keys[it.id] = got[1]
            continue
        if not complete:
            continue
        # (at least one batch of 64 per run, so that even a tiny budget makes progress)
        if deadline is not None and computed and computed % 64 == 0 and clock() > deadline:
            complete = False
            continue
        keys[it.id] = key = merge_key(it)
        cache[it.id] = (it.version, key)
        computed += 1
    if complete and known is not None:
        live = {it.id for it in items}
        for gone in [i for i in cache if i not in live]:
            del cache[gone]
    return keys, complete


def _newest_first(items: Iterable[Item]) -> list[Item]:
    return sorted(items, key=lambda it: (it.created_at, it.id), reverse=True)


def plan_merges(items: Sequence[Item], keys: Mapping[int, int] | None = None) -> tuple[Merge, ...]:
    """Groups of true duplicates (every pair of a group checked), each merged into its newest
    member. Only memories with the same `merge_key` are compared (pass `keys` from
    `merge_keys`, else they are computed here); the checks of one run share what they compute
    about each memory, and an identical pair of texts is checked once."""
    if keys is None:
        keys, _ = merge_keys(items)
    buckets: dict[int, list[Item]] = {}
    for it in sorted(items, key=lambda x: (x.created_at, x.id)):
        if it.id in keys:
            buckets.setdefault(keys[it.id], []).append(it)
    traits: dict[int, tuple[frozenset[str], frozenset[str], dict[str, str | None]]] = {}
    near: dict[tuple[str, str], bool] = {}

    def trait(it: Item) -> tuple[frozenset[str], frozenset[str], dict[str, str | None]]:
        got = traits.get(it.id)
        if got is None:
            got = traits[it.id] = (numbers(it.text), names(it.text), _slot_values(it.text))
        return got

    def restates(new: str, old: str) -> bool:
        got = near.get((new, old))
        if got is None:
            got = near[(new, old)] = is_near_duplicate(new, old)
        return got

    def same_fact(a: Item, b: Item) -> bool:  # is_true_duplicate, sharing the work of the run
        if a.id == b.id or (a.valid_from, a.valid_until) != (b.valid_from, b.valid_until):
            return False
        if trait(a) != trait(b):
            return False
        return restates(a.text, b.text) and restates(b.text, a.text)

    merges = []
    for bucket in buckets.values():
        if len(bucket) < 2:
            continue
        groups: list[list[Item]] = []
        for it in bucket:
            for group in groups:
                if all(same_fact(it, other) for other in group):
                    group.append(it)
                    break
            else:
                groups.append([it])
        for group in groups:
            if len(group) < 2:
                continue
            keep, *rest = _newest_first(group)
            merges.append(
                Merge(
                    keep_id=keep.id,
                    merged_ids=tuple(sorted(r.id for r in rest)),
                    confidence=max(g.confidence for g in group),
                    importance=max(g.importance for g in group),
                )
            )
    return tuple(sorted(merges, key=lambda m: m.keep_id))


def is_junk_by_rule(text: str) -> bool:
    """Junk the curator removes without a model: nothing but whitespace."""
    return not text.strip()


_ABOUT_ASSISTANT = re.compile(
    r"\b(?:you|your|yours|yourself|assistant|bot|chatbot|ai|claude|chatgpt|gpt|language model)\b", re.I
)


def accept_junk_flag(text: str, probability: float | None) -> bool:
    """Take a model's "this is junk" only when it is sure and the rules agree it can be: the
    text speaks about the assistant (you, assistant, bot, AI ...) or is empty."""
    if is_junk_by_rule(text):
        return True
    if probability is None or probability < JUNK_MIN_PROBABILITY:
        return False
    return bool(_ABOUT_ASSISTANT.search(text))


def junk_candidates(items: Sequence[Item], since: datetime | None, limit: int = MAX_JUNK_CANDIDATES) -> list[Item]:
    """What to show a model: memories new or changed since the last run (all on the first run),
    not under a question, not already reverted by the person; newest first, at most `limit`."""
    out = []
    for it in _newest_first(items):
        if it.archived or it.in_question or EventKind.DELETED.value in it.reverted or not it.text.strip():
            continue
        changed_at = max(it.created_at, it.updated_at or it.created_at)
        if since is None or changed_at > since:
            out.append(it)
    return out[:limit]


def last_activity(it: Item) -> datetime:
    stamps = [it.created_at, it.last_used_at, it.confirmed_at, it.person_touched_at]
    return max(s for s in stamps if s is not None)


def is_expired(
    it: Item,
    now: datetime,
    *,
    importance_below: float = EXPIRY_IMPORTANCE,
    unused_days: int = EXPIRY_UNUSED_DAYS,
) -> bool:
    """Unimportant and unused for long: archived (reversibly), never deleted. A memory under a
    pending question, or whose archiving the person reverted before, is kept."""
    if it.archived or it.in_question or it.status == Status.UNSURE.value:
        return False
    if EventKind.AUTO_ARCHIVED.value in it.reverted:
        return False
    if it.importance >= importance_below:
        return False
    return now - last_activity(it) >= timedelta(days=unused_days)


def fingerprint(items: Sequence[Item], now: datetime) -> str:
    """Changes when any memory is added, changed or deleted, or becomes expirable."""
    h = hashlib.sha256()
    for it in sorted(items, key=lambda x: x.id):
        h.update(f"{it.id}:{it.version};".encode())
    h.update(b"|")
    for it in sorted(items, key=lambda x: x.id):
        if is_expired(it, now):
            h.update(f"{it.id};".encode())
    return h.hexdigest()[:32]


def decide(
    items: Sequence[Item],
    now: datetime,
    junk_flags: Mapping[int, float] | None = None,
    *,
    keys: Mapping[int, int] | None = None,
) -> Plan:
    """The whole plan for one person. Each memory is touched by at most one decision: junk
    first, then merges among the rest, then expiry among what is left. `keys`: the merge keys
    from `merge_keys`, if already computed."""
    flags = junk_flags or {}
    remove: list[tuple[int, str]] = []
    for it in items:
        if it.archived or EventKind.DELETED.value in it.reverted or it.in_question:
            continue
        if is_junk_by_rule(it.text):
            remove.append((it.id, "empty text"))
        elif it.id in flags and accept_junk_flag(it.text, flags[it.id]):
            remove.append((it.id, "a statement about the assistant, not about you"))
    removed = {i for i, _ in remove}
    rest = [it for it in items if it.id not in removed]
    merges = plan_merges(rest, keys)
    merged = {i for m in merges for i in (m.keep_id, *m.merged_ids)}
    archive = tuple(sorted(it.id for it in rest if it.id not in merged and is_expired(it, now)))
    return Plan(merges=merges, remove=tuple(sorted(remove)), archive=archive)


# --- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class OwnerSnapshot:
    owner_id: int
    items: tuple[Item, ...]
    stored_fingerprint: str | None
    ran_at: datetime | None


def _pending_question_ids(s: Session, owner_id: int) -> set[int]:
    ids: set[int] = set()
    for c in s.exec(select(Conflict).where(Conflict.owner_id == owner_id, Conflict.status == "pending")):
        ids.add(c.new_memory_id)
        ids.update(int(i) for i in json.loads(c.old_ids_json))
    return ids


def _event_facts(s: Session, owner_id: int) -> tuple[dict[int, set[str]], dict[int, datetime]]:
    """Per memory: which curator changes the person reverted, and their last own activity."""
    rows = s.exec(
        select(MemoryEvent.memory_id, MemoryEvent.kind, MemoryEvent.actor, MemoryEvent.created_at)
        .where(
            MemoryEvent.owner_id == owner_id,
            MemoryEvent.memory_id.is_not(None),  # type: ignore[union-attr]
            MemoryEvent.kind.in_(_CURATOR_KINDS + _REVERTING_KINDS + _ACTIVITY_KINDS),  # type: ignore[attr-defined]
        )
        .order_by(MemoryEvent.id)  # type: ignore[arg-type]
    ).all()
    pending: dict[int, set[str]] = {}
    reverted: dict[int, set[str]] = {}
    touched: dict[int, datetime] = {}
    for memory_id, kind, actor, at in rows:
        if actor == ACTOR and kind in _CURATOR_KINDS:
            pending.setdefault(memory_id, set()).add(kind)
        elif kind in _REVERTING_KINDS and actor not in (ACTOR, "assistant"):
            reverted.setdefault(memory_id, set()).update(pending.pop(memory_id, set()))
        if kind in _ACTIVITY_KINDS and actor not in (ACTOR, "assistant"):
            touched[memory_id] = max(at, touched.get(memory_id, at))
    return reverted, touched


# The columns an Item is made of: read as plain rows, never whole ORM objects (the text and
# embedding of 10,000 memories as objects cost more than all of the curator's decisions).
_ITEM_COLUMNS = (
    Memory.id, Memory.text, Memory.status, Memory.archived, Memory.confidence, Memory.importance,
    Memory.source, Memory.created_at, Memory.updated_at, Memory.last_used_at, Memory.confirmed_at,
    Memory.valid_from, Memory.valid_until, Memory.version,
)


def _item(m: Any, questioned: set[int], reverted: dict[int, set[str]], touched: dict[int, datetime]) -> Item:
    """An Item from a row of `_ITEM_COLUMNS` (or a Memory)."""
    assert m.id is not None
    return Item(
        id=m.id,
        text=m.text,
        status=m.status,
        archived=m.archived,
        confidence=m.confidence,
        importance=m.importance,
        source=m.source,
        created_at=m.created_at,
        updated_at=m.updated_at,
        last_used_at=m.last_used_at,
        confirmed_at=m.confirmed_at,
        valid_from=m.valid_from,
        valid_until=m.valid_until,
        version=m.version,
        in_question=m.id in questioned,
        person_touched_at=touched.get(m.id),
        reverted=frozenset(reverted.get(m.id, ())),
    )


def read_owner(s: Session, owner_id: int) -> OwnerSnapshot:
    """Every live (not deleted) memory of one owner as Items, with what the log says."""
    owner = s.get(Owner, owner_id)
    if owner is None:
        raise LookupError(f"no owner {owner_id}")
    result = s.execute(
        select(*_ITEM_COLUMNS).where(Memory.owner_id == owner_id, Memory.deleted_at.is_(None)).order_by(Memory.id)  # type: ignore[union-attr,arg-type]
    )
    # In slices: turning 10,000 rows into values at once is one long C call that holds the GIL
    # (the event loop of this process would wait for it); a slice at a time lets it in between.
    rows = [row for part in result.partitions(500) for row in part]
    questioned = _pending_question_ids(s, owner_id)
    reverted, touched = _event_facts(s, owner_id)
    items = tuple(_item(m, questioned, reverted, touched) for m in rows)
    return OwnerSnapshot(owner_id, items, owner.curator_fingerprint, owner.curator_ran_at)


def _staging(s: Session) -> set[int]:
    """Owners that hold an import being staged: nobody's memories yet, never tidied."""
    return set(s.exec(select(ImportStaging.staging_owner_id)))


def owners_with_memories(s: Session) -> list[int]:
    rows = s.exec(select(Memory.owner_id).where(Memory.deleted_at.is_(None)).distinct()).all()  # type: ignore[union-attr]
    staging = _staging(s)
    return sorted(int(r) for r in rows if int(r) not in staging)


def owners_due_by_count(s: Session, every_n: int) -> list[int]:
    """Owners with at least `every_n` memories created since their last tidy-up."""
    stmt = (
        select(Memory.owner_id, func.count(Memory.id))  # type: ignore[arg-type]
        .join(Owner, Owner.id == Memory.owner_id)  # type: ignore[arg-type]
        .where(
            Memory.deleted_at.is_(None),  # type: ignore[union-attr]
            (Owner.curator_ran_at.is_(None)) | (Memory.created_at > Owner.curator_ran_at),  # type: ignore[union-attr,operator]
        )
        .group_by(Memory.owner_id)
        .having(func.count(Memory.id) >= every_n)  # type: ignore[arg-type]
    )
    staging = _staging(s)
    return sorted(int(owner_id) for owner_id, _ in s.exec(stmt).all() if int(owner_id) not in staging)


# --- applying --------------------------------------------------------------------------------


def _summary(report_merges: int, removed: int, archived: int) -> str:
    parts = []
    if report_merges:
        parts.append(f"{report_merges} merge{'s' if report_merges != 1 else ''}")
    if removed:
        parts.append(f"{removed} removed")
    if archived:
        parts.append(f"{archived} archived")
    return f"the tidy-up ({', '.join(parts)})"


#: Decisions one transaction applies at most: a tidy-up of 50,000 memories is thousands of
#: changes, and one transaction holding the SQLite thread for all of them would make everyone's
#: storage wait; in parts, others' work runs in between.
PART_SIZE = 300


def split_plan(plan: Plan, size: int | None = None) -> list[Plan]:
    """The plan in parts of about `size` (default `PART_SIZE`) memories each (a merge is never
    split)."""
    size = size or PART_SIZE
    parts: list[Plan] = []
    merges: list[Merge] = []
    remove: list[tuple[int, str]] = []
    archive: list[int] = []
    count = 0

    def cut() -> None:
        nonlocal merges, remove, archive, count
        if merges or remove or archive:
            parts.append(Plan(merges=tuple(merges), remove=tuple(remove), archive=tuple(archive)))
        merges, remove, archive, count = [], [], [], 0

    for item in plan.remove:
        remove.append(item)
        count += 1
        if count >= size:
            cut()
    for m in plan.merges:
        merges.append(m)
        count += 1 + len(m.merged_ids)
        if count >= size:
            cut()
    for mid in plan.archive:
        archive.append(mid)
        count += 1
        if count >= size:
            cut()
    cut()
    return parts


@dataclass(frozen=True)
class Left:
    """How applying left one memory (for the fingerprint of what the run saw)."""

    version: int
    archived: bool
    deleted: bool
    confidence: float
    importance: float
    last_used_at: datetime | None
    updated_at: datetime


@dataclass(frozen=True)
class Applied:
    """What one part of a plan did."""

    merged: tuple[MergeDone, ...] = ()
    removed: tuple[str, ...] = ()
    archived: tuple[str, ...] = ()
    stale: int = 0
    action_id: str | None = None
    left: Mapping[int, Left] = field(default_factory=dict)


def apply_part(
    s: Session, owner_id: int, plan: Plan, versions: Mapping[int, int], now: datetime, action_id: str | None = None
) -> Applied:
    """Apply one part of a plan in this transaction. A memory whose version is no longer the one
    the plan was made from (the person changed it meanwhile) drops the decisions that involve it.
    Every part of one run hangs on one Action (pass the `action_id` the first part returned), so
    /undo reverts the whole tidy-up."""
    ids = sorted(plan.touched_ids())
    rows: dict[int, Memory] = {}
    if ids:
        stmt = select(Memory).where(Memory.owner_id == owner_id, Memory.id.in_(ids)).with_for_update()  # type: ignore[union-attr]
        rows = {m.id: m for m in s.exec(stmt) if m.id is not None}

    def fresh(mid: int) -> Memory | None:
        m = rows.get(mid)
        if m is None or m.deleted_at is not None or m.version != versions.get(mid):
            return None
        return m

    action: Action | None = s.get(Action, action_id) if action_id else None

    def the_action() -> Action:
        nonlocal action
        if action is None:
            action = new_action(s, owner_id, "tidy", "the tidy-up", actor=ACTOR, undoable=True)
        return action

    stale = 0
    removed: list[str] = []
    for mid, why in plan.remove:
        m = fresh(mid)
        if m is None:
            stale += 1
            continue
        before = snapshot(m)
        m.deleted_at = now
        touch(m)
        s.add(m)
        log_event(s, the_action(), m, EventKind.DELETED, before, actor=ACTOR, note=why)
        void_conflicts_naming(s, owner_id, m.id)
        removed.append(m.text)

    merged: list[MergeDone] = []
    for plan_merge in plan.merges:
        keep = fresh(plan_merge.keep_id)
        losers = [fresh(i) for i in plan_merge.merged_ids]
        if keep is None or any(x is None for x in losers):
            stale += 1
            continue
        act = the_action()
        before = snapshot(keep)
        keep.confidence = max(keep.confidence, plan_merge.confidence)
        keep.importance = max(keep.importance, plan_merge.importance)
        used = [x.last_used_at for x in (keep, *losers) if x is not None and x.last_used_at is not None]
        if used:
            keep.last_used_at = max(used)
        touch(keep)
        s.add(keep)
        log_event(
            s, act, keep, EventKind.MERGED, before, actor=ACTOR,
            note="kept; merged " + ", ".join(mref(i) for i in plan_merge.merged_ids),
        )
        texts = []
        for loser in losers:
            assert loser is not None
            before = snapshot(loser)
            loser.archived = True
            loser.replaced_by = keep.id
            touch(loser)
            s.add(loser)
            log_event(s, act, loser, EventKind.MERGED, before, actor=ACTOR, note=f"merged into {mref(keep.id)}")
            texts.append(loser.text)
        merged.append(MergeDone(keep.text, tuple(texts)))

    archived: list[str] = []
    for mid in plan.archive:
        m = fresh(mid)
        if m is None:
            stale += 1
            continue
        before = snapshot(m)
        m.archived = True
        touch(m)
        s.add(m)
        log_event(
            s, the_action(), m, EventKind.AUTO_ARCHIVED, before, actor=ACTOR,
            note=f"importance below {EXPIRY_IMPORTANCE} and unused for {EXPIRY_UNUSED_DAYS} days",
        )
        archived.append(m.text)
    s.flush()
    left = {
        mid: Left(m.version, m.archived, m.deleted_at is not None, m.confidence, m.importance, m.last_used_at, m.updated_at)
        for mid, m in rows.items()
    }
    return Applied(tuple(merged), tuple(removed), tuple(archived), stale, action.id if action is not None else None, left)


def finish_run(
    s: Session, owner_id: int, now: datetime, stored_fingerprint: str | None, action_id: str | None, summary: str
) -> None:
    """Record a run: its time, the fingerprint it leaves (None: look again next time) and the
    summary of its Action."""
    if action_id is not None:
        action = s.get(Action, action_id)
        if action is not None:
            action.summary = summary
            s.add(action)
    owner = s.get(Owner, owner_id)
    assert owner is not None
    owner.curator_fingerprint = stored_fingerprint
    owner.curator_ran_at = now
    owner.memories_since_tidy = 0
    s.add(owner)


def run_summary(merged: int, removed: int, archived: int) -> str:
    return _summary(merged, removed, archived)


def apply_plan(
    s: Session,
    owner_id: int,
    plan: Plan,
    versions: Mapping[int, int],
    now: datetime,
    *,
    examined: int = 0,
    model_used: bool = False,
    complete: bool = True,
    seen: Sequence[Item] | None = None,
) -> TidyReport:
    """Apply a whole plan and record the run, in this one transaction (the curator itself
    applies large plans in parts: `split_plan`, `apply_part`, `finish_run`).

    `complete=False` (a wanted model check did not answer) records the run but not the
    fingerprint, so the next run looks again instead of skipping. `seen`: the items the plan
    was made from; the stored fingerprint is then theirs as this run left them (no second read
    of every memory, and a memory saved meanwhile, which this run never looked at, makes the
    next run look instead of skip)."""
    done = apply_part(s, owner_id, plan, versions, now)
    after = read_owner(s, owner_id).items if seen is None else as_left(seen, done.left)
    stored = fingerprint(after, now) if complete and not done.stale else None
    finish_run(s, owner_id, now, stored, done.action_id,
               run_summary(len(done.merged), len(done.removed), len(done.archived)))
    return TidyReport(
        owner_id=owner_id,
        examined=examined,
        merged=done.merged,
        removed=done.removed,
        archived=done.archived,
        stale=done.stale,
        action_id=done.action_id,
        model_used=model_used,
    )


def as_left(seen: Sequence[Item], changed: Mapping[int, Left]) -> list[Item]:
    """The items a plan was made from, as applying it left them (versions moved on, archived,
    deleted ones gone)."""
    out = []
    for it in seen:
        m = changed.get(it.id)
        if m is None:
            out.append(it)
        elif not m.deleted:
            out.append(replace(it, version=m.version, archived=m.archived, confidence=m.confidence,
                               importance=m.importance, last_used_at=m.last_used_at, updated_at=m.updated_at))
    return out


def views(s: Session, owner_id: int, ids: Iterable[int]) -> list[MemoryView]:
    """Detached views of some memories of one owner (for tests and reports)."""
    out = []
    for mid in ids:
        m = s.get(Memory, mid)
        if m is not None and m.owner_id == owner_id:
            out.append(MemoryView.of(m))
    return out
