"""Export and import: a versioned JSON document of everything held about one person.

Import is a restore, not a conversation: records keep the states, dates, confidence and links
they had, so they do not go through conflict questions. It is idempotent (records are matched by
uid), never overwrites a memory edited after the backup was taken, never brings back what was
deleted, and a malformed file changes nothing: the whole document is validated before anything
is written.

A backup is a file anyone can write, so an import restores only what belongs to the importer:

* Reminders are re-targeted to the importer's own private chat on the platform the import came
  through (`via`); a file's platform, chat and user ids are never used as they are, so a
  backup cannot make the bot post to someone else. From the command line (no `via`) only
  reminders for identities of the importing person are kept, in their private chats; the rest
  are dropped. Repetitions and time zones must pass the same rules as /remind (no
  "every second", no "Mars/Olympus"), due times must be in a sane range; what fails is
  dropped, and the summary says how many and why.
* Every text loses its control characters (bot.plaintext), as typed text does: a file cannot
  put terminal escapes on someone's screen. Times that lie in the future (an `updated_at` in
  the year 9999 would block every later import of that memory) or before 2000 are set into
  range. The summary says what was changed.

Long imports do not starve others (docs/ARCHITECTURE.md section 7): the rows are written in
batches of `BATCH_ROWS` per transaction under a staging owner that no identity maps to, and one
short final transaction moves them to the importer (all or nothing: until then nobody sees
them; an import that fails or is interrupted leaves only staged rows, which are deleted).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Annotated, Any, Literal

from sqlalchemy import delete as sa_delete
from sqlalchemy import bindparam, insert, update

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator
from sqlmodel import Session, select

from bot.events import ChatRef
from bot.memory import owners
from bot.plaintext import strip_controls
from bot.storage.errors import ConcurrentUpdate
from bot.storage.models import (
    Action,
    Episode,
    EventKind,
    Identity,
    ImportStaging,
    Memory,
    MemoryEvent,
    Owner,
    Procedure,
    Reminder,
    new_uid,
    utcnow,
)
from bot.memory.store import SNAPSHOT_FIELDS
from bot.memory.writing.import_questions import ask_about_contradictions, topic_slots
from bot.when.grammar import MAX_AHEAD, repeat_problem
from bot.when.recurrence import Recurrence
from bot.when.zones import is_valid_timezone

FORMAT = "memory-assistant-backup"
VERSION = 1
MAX_IMPORT_BYTES = 20_000_000
MAX_TEXT = 10_000
MAX_RECORDS = 50_000  # memories (or tombstones, episodes, procedures) in one file
MAX_REMINDERS = 1_000
BATCH_ROWS = 250  # rows written per transaction while staging
EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)  # before this bot, before this century
STALE_STAGING = timedelta(hours=1)  # an import still staging after this was abandoned



def _no_nul(value: str) -> str:
    # Nothing this bot saves contains NUL (saves drop control characters), and PostgreSQL text
    # cannot hold it: such a file was not written by us, so it is refused like any malformed one.
    if "\x00" in value:
        raise ValueError("contains a NUL character")
    return value


Text = Annotated[str, Field(max_length=MAX_TEXT), AfterValidator(_no_nul)]
Uid = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
Short = Annotated[str, Field(max_length=64), AfterValidator(_no_nul)]


class ImportProblem(ValueError):
    """The file cannot be imported; the message says why in one line. Nothing was changed."""


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=False)


class MemoryRecord(_Strict):
    uid: Uid
    text: Text = Field(min_length=1)
    category: Short = "fact"
    slot: Short | None = None
    status: Literal["current", "historical", "unsure"] = "current"
    replaced_by: Uid | None = None
    valid_from: date | None = None
    valid_until: date | None = None
    source: Short = "import"
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    importance: float = Field(0.5, ge=0.0, le=1.0)
    uses: int = Field(0, ge=0, le=10**9)
    last_used_at: datetime | None = None
    created_at: datetime
    updated_at: datetime
    archived: bool = False

    @field_validator("created_at", "updated_at", "last_used_at")
    @classmethod
    def _tz(cls, v: datetime | None) -> datetime | None:
        return _aware(v)


class TombstoneRecord(_Strict):
    uid: Uid
    deleted_at: datetime

    @field_validator("deleted_at")
    @classmethod
    def _tz(cls, v: datetime) -> datetime:
        return _aware(v)  # type: ignore[return-value]


class EpisodeRecord(_Strict):
    uid: Uid
    title: Text = ""
    summary: Text
    platform: Short = ""
    chat_id: Short = ""
    started_at: datetime
    ended_at: datetime

    @field_validator("started_at", "ended_at")
    @classmethod
    def _tz(cls, v: datetime) -> datetime:
        return _aware(v)  # type: ignore[return-value]


class ProcedureRecord(_Strict):
    uid: Uid
    trigger: Text
    steps: Text
    created_at: datetime
    updated_at: datetime

    @field_validator("created_at", "updated_at")
    @classmethod
    def _tz(cls, v: datetime) -> datetime:
        return _aware(v)  # type: ignore[return-value]


class ReminderRecord(_Strict):
    uid: Uid
    text: Text = Field(min_length=1)
    due_at: datetime
    timezone: Short = "UTC"
    recurrence: Short | None = None
    platform: Short
    chat_id: Short
    user_id: Short | None = None
    state: Literal["scheduled", "delivering", "delivered", "cancelled"] = "scheduled"

    @field_validator("due_at")
    @classmethod
    def _tz(cls, v: datetime) -> datetime:
        return _aware(v)  # type: ignore[return-value]


class Prefs(_Strict):
    """Per-person settings (the /settings switches) and time zone. `changed_at`: when the
    person last changed them (absent in older backups: then the backup's own time counts)."""

    timezone: Short | None = None
    prefs: dict[Short, bool] = Field(default_factory=dict)
    changed_at: datetime | None = None

    @field_validator("changed_at")
    @classmethod
    def _tz(cls, v: datetime | None) -> datetime | None:
        return _aware(v)


class Backup(_Strict):
    format: Literal["memory-assistant-backup"]
    version: int
    exported_at: datetime
    settings: Prefs = Field(default_factory=Prefs)
    memories: list[MemoryRecord] = Field(default_factory=list, max_length=MAX_RECORDS)
    tombstones: list[TombstoneRecord] = Field(default_factory=list, max_length=MAX_RECORDS)
    episodes: list[EpisodeRecord] = Field(default_factory=list, max_length=MAX_RECORDS)
    procedures: list[ProcedureRecord] = Field(default_factory=list, max_length=MAX_RECORDS)
    reminders: list[ReminderRecord] = Field(default_factory=list, max_length=MAX_REMINDERS)

    @field_validator("version")
    @classmethod
    def _version(cls, v: int) -> int:
        if v != VERSION:
            raise ValueError(f"backup version {v} is not supported (this bot reads version {VERSION})")
        return v


@dataclass
class ImportReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    kept_newer: int = 0
    skipped_deleted: int = 0
    deleted: int = 0
    other_added: int = 0
    reminders_added: int = 0
    cleaned_texts: int = 0  # texts that lost control characters
    dates_set: int = 0  # times out of range, set into it
    dropped: dict[str, int] = field(default_factory=dict)  # why -> how many (reminders, empty texts)
    timezone_dropped: bool = False
    unsure: int = 0  # imported as "possibly outdated": their question was not in the backup
    questions: int = 0  # restored facts that disagree with current ones, asked about
    settings: str = ""  # "restored" | "kept" (changed after the backup) | ""
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.deleted or self.other_added or self.reminders_added)

    def drop(self, why: str) -> None:
        self.dropped[why] = self.dropped.get(why, 0) + 1

    def summary(self) -> str:
        parts = [f"{self.added} added", f"{self.updated} updated", f"{self.unchanged} unchanged"]
        if self.kept_newer:
            parts.append(f"{self.kept_newer} kept because they were changed after the backup")
        if self.skipped_deleted:
            parts.append(f"{self.skipped_deleted} skipped because you deleted them")
        if self.deleted:
            parts.append(f"{self.deleted} removed as the backup records them deleted")
        if self.other_added:
            parts.append(f"{self.other_added} episodes or procedures added")
        if self.reminders_added:
            parts.append(f"{self.reminders_added} reminder{'s' if self.reminders_added != 1 else ''} set "
                         "(they come to you privately, here)")
        if self.settings == "restored":
            parts.append("your settings and time zone restored")
        elif self.settings == "kept":
            parts.append("your settings kept as they are (you changed them after this backup)")
        text = "Import done: " + ", ".join(parts) + "."
        changed = []
        if self.cleaned_texts:
            changed.append(f"control characters removed from {self.cleaned_texts} text"
                           f"{'s' if self.cleaned_texts != 1 else ''}")
        if self.dates_set:
            changed.append(f"{self.dates_set} date{'s' if self.dates_set != 1 else ''} outside 2000 to now "
                           "set into that range")
        if changed:
            text += " Changed: " + "; ".join(changed) + "."
        dropped = [f"{why}: {n}" for why, n in sorted(self.dropped.items())]
        if self.timezone_dropped:
            dropped.append("the time zone, which I don't know")
        if dropped:
            text += " Not imported: " + "; ".join(dropped) + "."
        if self.questions:
            one = self.questions == 1
            text += (f" {self.questions} restored fact{'' if one else 's'} disagree{'s' if one else ''} with what "
                     "you have now; I replaced nothing: /memories review asks about "
                     f"{'it' if one else 'each'}.")
        if self.unsure:
            text += (f" {self.unsure} {'was' if self.unsure == 1 else 'were'} marked possibly outdated in the "
                     "backup, without the question: /memories review lists them; /restore <n> keeps one as "
                     "current, /past <n> marks it as past.")
        return text


# --- parsing --------------------------------------------------------------------------------


def parse_backup(raw: bytes | str) -> Backup:
    """Validate a backup file completely, or raise ImportProblem saying what is wrong."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="surrogatepass")
    if len(raw) > MAX_IMPORT_BYTES:
        raise ImportProblem(f"The file is too large ({len(raw):,} bytes; the limit is {MAX_IMPORT_BYTES:,}).")
    if not raw.strip():
        raise ImportProblem("The file is empty.")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ImportProblem("The file is not UTF-8 text, so it is not a backup from this bot.") from None
    except RecursionError:
        raise ImportProblem("The file is nested too deeply to be a backup.") from None
    except json.JSONDecodeError as exc:
        raise ImportProblem(f"The file is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).") from None
    if not isinstance(data, dict):
        raise ImportProblem("The file is JSON but not a backup: expected an object at the top.")
    if data.get("format") != FORMAT:
        raise ImportProblem(f'The file is not a backup from this bot (its "format" is not "{FORMAT}").')
    try:
        return Backup.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ImportProblem(f"The backup is malformed at {where}: {err['msg']}.") from None
    except RecursionError:
        raise ImportProblem("The file is nested too deeply to be a backup.") from None


# --- export ---------------------------------------------------------------------------------


def _iso(value: datetime | date | None) -> str | None:
    return value.isoformat() if value is not None else None


def empty_backup() -> dict[str, Any]:
    """A valid backup that holds nothing (for a person nothing is known about)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": _iso(utcnow()),
        "settings": {"timezone": None, "prefs": {}},
        "memories": [],
        "tombstones": [],
        "episodes": [],
        "procedures": [],
        "reminders": [],
    }


def export_owner(s: Session, owner_id: int) -> dict[str, Any]:
    owner = owners.get_owner(s, owner_id)
    rows = list(s.exec(select(Memory).where(Memory.owner_id == owner_id).order_by(Memory.id)))  # type: ignore[arg-type]
    uid_of = {m.id: m.uid for m in rows}
    memories, tombstones = [], []
    for m in rows:
        if m.deleted_at is not None:
            tombstones.append({"uid": m.uid, "deleted_at": _iso(m.deleted_at)})
            continue
        memories.append(
            {
                "uid": m.uid,
                "text": m.text,
                "category": m.category,
                "slot": m.slot,
                "status": m.status,
                "replaced_by": uid_of.get(m.replaced_by) if m.replaced_by else None,
                "valid_from": _iso(m.valid_from),
                "valid_until": _iso(m.valid_until),
                "source": m.source,
                "confidence": m.confidence,
                "importance": m.importance,
                "uses": m.uses,
                "last_used_at": _iso(m.last_used_at),
                "created_at": _iso(m.created_at),
                "updated_at": _iso(m.updated_at),
                "archived": m.archived,
            }
        )
    episodes = [
        {
            "uid": e.uid,
            "title": e.title,
            "summary": e.summary,
            "platform": e.platform,
            "chat_id": e.chat_id,
            "started_at": _iso(e.started_at),
            "ended_at": _iso(e.ended_at),
        }
        for e in s.exec(select(Episode).where(Episode.owner_id == owner_id).order_by(Episode.id))  # type: ignore[arg-type]
    ]
    procedures = [
        {
            "uid": p.uid,
            "trigger": p.trigger,
            "steps": p.steps,
            "created_at": _iso(p.created_at),
            "updated_at": _iso(p.updated_at),
        }
        for p in s.exec(select(Procedure).where(Procedure.owner_id == owner_id).order_by(Procedure.id))  # type: ignore[arg-type]
    ]
    reminders = [
        {
            "uid": r.uid,
            "text": r.text,
            "due_at": _iso(r.due_at),
            "timezone": r.timezone,
            "recurrence": r.recurrence,
            "platform": r.platform,
            "chat_id": r.chat_id,
            "user_id": r.user_id,
            "state": r.state,
        }
        for r in s.exec(select(Reminder).where(Reminder.owner_id == owner_id).order_by(Reminder.id))  # type: ignore[arg-type]
    ]
    stored = owners.stored_prefs(s, owner_id)
    prefs = {k: bool(v) for k, v in stored.items() if k in owners.PREF_NAMES}
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": _iso(utcnow()),
        "settings": {"timezone": owner.timezone, "prefs": prefs, "changed_at": _iso(owners.settings_changed_at(s, owner_id))},
        "memories": memories,
        "tombstones": tombstones,
        "episodes": episodes,
        "procedures": procedures,
        "reminders": reminders,
    }


# --- import ---------------------------------------------------------------------------------

_FIELDS = (
    "text",
    "category",
    "slot",
    "status",
    "valid_from",
    "valid_until",
    "source",
    "confidence",
    "importance",
    "uses",
    "last_used_at",
    "created_at",
    "archived",
)


# -- cleaning (pure) ---------------------------------------------------------------------------


class _Cleaner:
    """Control characters out of texts, times into range, counting what it changed."""

    def __init__(self, now: datetime, report: ImportReport) -> None:
        self.latest = now
        self.report = report

    def text(self, value: str, *, one_line: bool = False) -> str:
        cleaned = strip_controls(value, keep_newlines=not one_line)
        if cleaned != value.replace("\r\n", "\n"):
            self.report.cleaned_texts += 1
        return cleaned.strip() if one_line else cleaned

    def short(self, value: str | None) -> str | None:
        return None if value is None else self.text(value, one_line=True)

    def when(self, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        if value > self.latest:
            self.report.dates_set += 1
            return self.latest
        if value < EARLIEST:
            self.report.dates_set += 1
            return EARLIEST
        return value


def clean_backup(backup: Backup, now: datetime, report: ImportReport) -> Backup:
    """The backup with every text cleaned and every time of something that happened in range.
    Memories whose text is empty once cleaned are dropped (and counted)."""
    c = _Cleaner(now, report)
    memories = []
    for m in backup.memories:
        text = c.text(m.text)
        if not text.strip():
            report.drop("memories with no text once control characters were removed")
            continue
        created = c.when(m.created_at)
        memories.append(m.model_copy(update={
            "text": text, "category": c.short(m.category), "slot": c.short(m.slot), "source": c.short(m.source),
            "created_at": created, "updated_at": c.when(m.updated_at), "last_used_at": c.when(m.last_used_at),
        }))
    episodes = [e.model_copy(update={
        "title": c.text(e.title, one_line=True), "summary": c.text(e.summary),
        "platform": c.short(e.platform), "chat_id": c.short(e.chat_id),
        "started_at": c.when(e.started_at), "ended_at": c.when(e.ended_at),
    }) for e in backup.episodes]
    procedures = [p.model_copy(update={
        "trigger": c.text(p.trigger), "steps": c.text(p.steps),
        "created_at": c.when(p.created_at), "updated_at": c.when(p.updated_at),
    }) for p in backup.procedures]
    tombstones = [t.model_copy(update={"deleted_at": c.when(t.deleted_at)}) for t in backup.tombstones]
    reminders = [r.model_copy(update={
        "text": c.text(r.text, one_line=True), "timezone": c.short(r.timezone), "recurrence": c.short(r.recurrence),
        "platform": c.short(r.platform), "chat_id": c.short(r.chat_id), "user_id": c.short(r.user_id),
    }) for r in backup.reminders]
    settings = backup.settings.model_copy(update={"timezone": c.short(backup.settings.timezone)})
    return backup.model_copy(update={
        "memories": memories, "episodes": episodes, "procedures": procedures, "tombstones": tombstones,
        "reminders": reminders, "settings": settings,
    })


# -- where a reminder may go (pure) ------------------------------------------------------------

PLATFORMS = ("telegram", "discord", "console")


def private_chat(platform: str, user_id: str) -> ChatRef:
    """A person's private chat on a platform, known from their user id alone: on Telegram and
    in the terminal the chat id is the user id; on Discord the adapter opens the DM of the
    user id given as chat id (docs/ARCHITECTURE.md section 2)."""
    return ChatRef(platform, user_id, user_id)


def reminder_target(
    rec: ReminderRecord, via: ChatRef | None, identities: frozenset[tuple[str, str]], now: datetime
) -> tuple[ChatRef | None, str | None]:
    """(where an imported reminder goes, None) or (None, why it is dropped).

    `via`: the importer's private chat on the platform the import came through; every reminder
    goes there. None (the command line): only reminders for one of the importer's own
    `identities`, each in that identity's private chat."""
    if not rec.text:
        return None, "reminders with no text"
    if not is_valid_timezone(rec.timezone):
        return None, "reminders in a time zone I don't know"
    if rec.recurrence is not None:
        try:
            problem = repeat_problem(Recurrence.from_str(rec.recurrence))
        except ValueError:
            return None, "reminders whose repetition I can't read"
        if problem is not None:
            return None, "reminders that repeat more or less often than /remind allows"
    if not EARLIEST <= rec.due_at <= now + MAX_AHEAD:
        return None, "reminders due before 2000 or more than 50 years ahead"
    if via is not None:
        return via, None
    if rec.platform in PLATFORMS and rec.user_id and (rec.platform, rec.user_id) in identities:
        return private_chat(rec.platform, rec.user_id), None
    return None, "reminders for another account (not one of yours)"


# -- the plan (read, then pure) ----------------------------------------------------------------


@dataclass
class _Existing:
    id: int
    version: int
    updated_at: datetime
    deleted: bool
    values: dict[str, Any]


@dataclass
class ImportPlan:
    """What an import will write, decided from one read of the owner's rows."""

    owner_id: int
    report: ImportReport
    adds: list[MemoryRecord] = field(default_factory=list)
    updates: list[tuple[MemoryRecord, _Existing]] = field(default_factory=list)
    deletions: list[_Existing] = field(default_factory=list)
    links: dict[str, str | None] = field(default_factory=dict)  # uid -> replaced_by uid
    existing_ids: dict[str, int] = field(default_factory=dict)  # uid -> id of live memories
    episodes: list[EpisodeRecord] = field(default_factory=list)
    procedures: list[ProcedureRecord] = field(default_factory=list)
    reminders: list[tuple[ReminderRecord, ChatRef]] = field(default_factory=list)
    settings: Prefs | None = None  # the backup's settings and time zone (restored unless changed since)
    settings_taken: datetime | None = None  # when they were last changed in the backup
    slots: dict[str, str] = field(default_factory=dict)  # uid -> topic of the restored current facts (`topic_slots`)

    @property
    def writes(self) -> bool:
        return bool(self.adds or self.updates or self.deletions or self.episodes or self.procedures
                    or self.reminders or self.settings is not None)


def _snapshot_of(values: dict[str, Any], version: int, deleted_at: datetime | None = None) -> dict[str, Any]:
    out = {}
    for name in SNAPSHOT_FIELDS:
        value = values.get(name)
        if name == "version":
            value = version
        elif name == "deleted_at":
            value = deleted_at
        out[name] = value.isoformat() if isinstance(value, (datetime, date)) else value
    return out


def plan_import(s: Session, owner_id: int, backup: Backup, via: ChatRef | None, now: datetime,
                report: ImportReport) -> ImportPlan:
    """Read what the owner has and decide every record (the cleaned `backup`)."""
    plan = ImportPlan(owner_id, report)
    cols = [Memory.id, Memory.uid, Memory.version, Memory.updated_at, Memory.deleted_at, Memory.replaced_by,
            *(getattr(Memory, f) for f in _FIELDS)]
    existing: dict[str, _Existing] = {}
    for part in s.execute(select(*cols).where(Memory.owner_id == owner_id)).partitions(500):
        for row in part:
            values = {f: getattr(row, f) for f in _FIELDS}
            values["replaced_by"] = row.replaced_by
            values["deleted_at"] = row.deleted_at
            existing[row.uid] = _Existing(row.id, row.version, row.updated_at, row.deleted_at is not None, values)
    plan.existing_ids = {uid: e.id for uid, e in existing.items() if not e.deleted}
    deleted_in_backup = {t.uid: t.deleted_at for t in backup.tombstones}
    latest = {rec.uid: rec for rec in backup.memories}  # a uid twice in one file: the later wins
    for rec in latest.values():
        if rec.uid in deleted_in_backup:
            continue
        e = existing.get(rec.uid)
        if e is not None and e.deleted:
            report.skipped_deleted += 1
            continue
        if e is None:
            plan.adds.append(rec)
            plan.links[rec.uid] = rec.replaced_by
            continue
        if e.updated_at > rec.updated_at:
            report.kept_newer += 1
            continue
        if all(e.values[f] == getattr(rec, f) for f in _FIELDS if f not in ("uses", "last_used_at")):
            report.unchanged += 1
            continue
        plan.updates.append((rec, e))
        plan.links[rec.uid] = rec.replaced_by
    for uid, deleted_at in deleted_in_backup.items():
        e = existing.get(uid)
        if e is None or e.deleted or e.updated_at > deleted_at:
            continue
        plan.deletions.append(e)

    have_ep = set(s.exec(select(Episode.uid).where(Episode.owner_id == owner_id)))
    plan.episodes = [e for e in backup.episodes if e.uid not in have_ep]
    have_proc = set(s.exec(select(Procedure.uid).where(Procedure.owner_id == owner_id)))
    plan.procedures = [p for p in backup.procedures if p.uid not in have_proc]
    have_rem = set(s.exec(select(Reminder.uid).where(Reminder.owner_id == owner_id)))
    identities = frozenset((i.platform, i.user_id) for i in s.exec(select(Identity).where(Identity.owner_id == owner_id)))
    for r in backup.reminders:
        if r.uid in have_rem:
            continue
        target, why = reminder_target(r, via, identities, now)
        if target is None:
            report.drop(why or "reminders")
            continue
        plan.reminders.append((r, target))
    wanted = backup.settings
    if wanted.timezone and not is_valid_timezone(wanted.timezone):
        report.timezone_dropped = True
        wanted = wanted.model_copy(update={"timezone": None})
    if wanted.timezone or wanted.prefs:
        plan.settings = wanted
        plan.settings_taken = wanted.changed_at or _aware(backup.exported_at)
    return plan


def restored_texts(plan: ImportPlan) -> dict[str, tuple[str, str | None]]:
    """uid -> (text, slot) of the facts the plan makes current: what `topic_slots` reads."""
    recs = [*plan.adds, *(rec for rec, _ in plan.updates)]
    return {r.uid: (r.text, r.slot) for r in recs if r.status == "current"}


# -- staging (one transaction per batch) --------------------------------------------------------


def _table(model: Any) -> Any:
    """The Core table of a model: bulk statements go through Core, not the ORM (a 5 MB import
    through the ORM spent most of its 22 s building objects)."""
    return model.__table__


_MEMORY = _table(Memory)


def open_staging(s: Session, owner_id: int) -> int:
    """A staging owner for one import (no identity maps to it) and the action its events hang on."""
    staging = Owner()
    s.add(staging)
    s.flush()
    assert staging.id is not None
    s.add(ImportStaging(staging_owner_id=staging.id, owner_id=owner_id))
    s.add(Action(id=new_uid(), owner_id=staging.id, kind="import", summary="imported a backup", undoable=False))
    s.flush()
    return staging.id


def _action_id(s: Session, staging: int) -> str:
    action_id = s.exec(select(Action.id).where(Action.owner_id == staging, Action.kind == "import")).first()
    if action_id is None:
        raise LookupError("the import's staging area is gone")
    return action_id


def stage_memories(s: Session, staging: int, records: list[MemoryRecord]) -> dict[str, int]:
    """Write one batch of new memories (and their 'imported' events) under the staging owner;
    returns uid -> id."""
    if not records:
        return {}
    rows = [
        {"owner_id": staging, "uid": r.uid, "version": 1, "updated_at": r.updated_at,
         **{f: getattr(r, f) for f in _FIELDS}}
        for r in records
    ]
    ids = {uid: mid for mid, uid in s.execute(insert(_MEMORY).returning(_MEMORY.c.id, _MEMORY.c.uid), rows)}
    action_id = _action_id(s, staging)
    owner_id = s.get(ImportStaging, staging).owner_id  # type: ignore[union-attr]
    now = utcnow()
    # the events belong to the importer from the start: they hang on the staging memories, which
    # nobody sees, so moving them later would be work for nothing
    events = [
        {"owner_id": owner_id, "memory_id": ids[r.uid], "action_id": action_id, "kind": EventKind.IMPORTED.value,
         "actor": "person", "before_json": None, "note": "from backup", "created_at": now,
         "after_json": json.dumps(_snapshot_of({f: getattr(r, f) for f in _FIELDS}, 1))}
        for r in records
    ]
    s.execute(insert(_table(MemoryEvent)), events)
    return ids


def stage_others(s: Session, staging: int, episodes: list[EpisodeRecord], procedures: list[ProcedureRecord]) -> None:
    now = utcnow()
    if episodes:
        s.execute(insert(_table(Episode)), [{"owner_id": staging, "created_at": now, **e.model_dump()} for e in episodes])
    if procedures:
        s.execute(insert(_table(Procedure)), [{"owner_id": staging, "uses": 0, **p.model_dump()} for p in procedures])


def discard_staging(s: Session, staging: int) -> None:
    """Delete everything staged under `staging` (a failed or abandoned import)."""
    if s.get(ImportStaging, staging) is None:
        return
    action_ids = list(s.exec(select(Action.id).where(Action.owner_id == staging)))
    if action_ids:
        s.execute(sa_delete(MemoryEvent).where(MemoryEvent.action_id.in_(action_ids)))  # type: ignore[union-attr]
    s.execute(update(Memory).where(Memory.owner_id == staging).values(replaced_by=None))
    s.execute(sa_delete(Memory).where(Memory.owner_id == staging))
    s.execute(sa_delete(Action).where(Action.owner_id == staging))
    s.execute(sa_delete(Episode).where(Episode.owner_id == staging))
    s.execute(sa_delete(Procedure).where(Procedure.owner_id == staging))
    s.execute(sa_delete(ImportStaging).where(ImportStaging.staging_owner_id == staging))
    s.execute(sa_delete(Owner).where(Owner.id == staging))


def discard_abandoned(s: Session, now: datetime | None = None) -> int:
    """Delete the staged rows of imports that never finished (the process died meanwhile)."""
    cutoff = (now or utcnow()) - STALE_STAGING
    stale = list(s.exec(select(ImportStaging.staging_owner_id).where(ImportStaging.started_at < cutoff)))
    for staging in stale:
        discard_staging(s, staging)
    return len(stale)


def staging_owners(s: Session) -> set[int]:
    return set(s.exec(select(ImportStaging.staging_owner_id)))


# -- the switch (one transaction) ------------------------------------------------------------------


def finish_import(s: Session, plan: ImportPlan, staging: int, staged_ids: dict[str, int], now: datetime) -> ImportReport:
    """Move the staged rows to the importer and apply the rest of the plan, all in this one
    transaction. A memory the plan would update or delete that changed since it was read makes
    the whole import refused (ConcurrentUpdate), like any change that lost a race."""
    owner_id, report = plan.owner_id, plan.report
    if s.get(ImportStaging, staging) is None:
        raise LookupError("the import's staging area is gone")
    action_id = _action_id(s, staging)
    # a uid that appeared meanwhile (practically never: uids are random) stays as it is
    clash = set(s.exec(select(Memory.uid).where(Memory.owner_id == owner_id))) & set(staged_ids) if staged_ids else set()
    for uid in clash:
        mid = staged_ids.pop(uid)
        s.execute(sa_delete(MemoryEvent).where(MemoryEvent.memory_id == mid))
        s.execute(sa_delete(Memory).where(Memory.id == mid))
    for model in (Memory, Action, Episode, Procedure):  # (the events are the owner's already)
        table = _table(model)
        s.execute(update(table).where(table.c.owner_id == staging).values(owner_id=owner_id))
    report.added = len(staged_ids)
    report.other_added = len(plan.episodes) + len(plan.procedures)
    report.unsure = sum(1 for r in plan.adds if r.uid in staged_ids and r.status == "unsure") + sum(
        1 for r, _ in plan.updates if r.status == "unsure")

    events: list[dict[str, Any]] = []

    def changed(e: _Existing, values: dict[str, Any], kind: str, note: str, deleted_at: datetime | None = None) -> None:
        m = _MEMORY.c
        done = s.execute(
            update(_MEMORY).where(m.id == e.id, m.owner_id == owner_id, m.version == e.version)
            .values(**values, version=e.version + 1)
        ).rowcount
        if done != 1:
            raise ConcurrentUpdate(f"memory {e.id} changed during an import")
        after = {**e.values, **values}
        events.append({
            "owner_id": owner_id, "memory_id": e.id, "action_id": action_id, "kind": kind, "actor": "person",
            "before_json": json.dumps(_snapshot_of(e.values, e.version)), "note": note, "created_at": now,
            "after_json": json.dumps(_snapshot_of(after, e.version + 1, deleted_at)),
        })

    for rec, e in plan.updates:
        changed(e, {**{f: getattr(rec, f) for f in _FIELDS}, "updated_at": rec.updated_at},
                EventKind.IMPORTED.value, "updated from backup")
        report.updated += 1
    for e in plan.deletions:
        changed(e, {"deleted_at": now, "updated_at": now}, EventKind.DELETED.value, "deleted in the backup", now)
        report.deleted += 1
    if events:
        s.execute(insert(_table(MemoryEvent)), events)

    # links by uid, for the records this import wrote
    gone = {e.id for e in plan.deletions}
    live = {u: i for u, i in {**plan.existing_ids, **staged_ids}.items() if i not in gone}
    links = []
    for uid, target in plan.links.items():
        if uid in staged_ids:  # a new row: its replaced_by is empty unless it names one
            if target and target in live:
                links.append({"mid": staged_ids[uid], "target": live[target]})
        elif uid in plan.existing_ids:  # an updated row: set or cleared as the backup says
            links.append({"mid": plan.existing_ids[uid], "target": live.get(target) if target else None})
    if links:
        s.execute(update(_MEMORY).where(_MEMORY.c.id == bindparam("mid")).values(replaced_by=bindparam("target")), links)

    # restored facts that contradict current ones: questions, as a save's would be
    restored = {i: plan.slots[u] for u, i in staged_ids.items() if u in plan.slots}
    restored.update({e.id: plan.slots[rec.uid] for rec, e in plan.updates if rec.uid in plan.slots})
    report.questions = ask_about_contradictions(s, owner_id, restored, action_id, set(plan.existing_ids.values()))

    if plan.reminders:
        s.execute(insert(_table(Reminder)), [
            {"owner_id": owner_id, "uid": r.uid, "text": r.text, "due_at": r.due_at, "timezone": r.timezone,
             "recurrence": r.recurrence, "platform": chat.platform, "chat_id": chat.chat_id, "user_id": chat.user_id,
             "state": "scheduled" if r.state == "delivering" else r.state, "attempts": 0, "created_at": now,
             "version": 1}
            for r, chat in plan.reminders
        ])
        report.reminders_added = len(plan.reminders)
    if plan.settings is not None and plan.settings_taken is not None:
        report.settings = _import_settings(s, owner_id, plan.settings, plan.settings_taken)
    if not report.changed:
        s.execute(sa_delete(Action).where(Action.id == action_id))
    s.execute(sa_delete(ImportStaging).where(ImportStaging.staging_owner_id == staging))
    s.execute(sa_delete(Owner).where(Owner.id == staging))
    return report


def import_backup(s: Session, owner_id: int, backup: Backup, via: ChatRef | None = None) -> ImportReport:
    """The whole import in the caller's one transaction (tests and small files; the memory
    service stages large ones in batches with the same functions)."""
    now = utcnow()
    report = ImportReport()
    plan = plan_import(s, owner_id, clean_backup(backup, now, report), via, now, report)
    plan.slots = topic_slots(restored_texts(plan))
    staging = open_staging(s, owner_id)
    staged: dict[str, int] = {}
    for i in range(0, len(plan.adds), BATCH_ROWS):
        staged.update(stage_memories(s, staging, plan.adds[i:i + BATCH_ROWS]))
    stage_others(s, staging, plan.episodes, plan.procedures)
    return finish_import(s, plan, staging, staged, now)


def _import_settings(s: Session, owner_id: int, wanted: Prefs, taken: datetime) -> str:
    """The backup's settings and time zone, unless the person changed theirs after the backup
    was taken (the newer choice wins, like a memory edited after the backup)."""
    prefs = {k: v for k, v in wanted.prefs.items() if k in owners.PREF_NAMES}
    tz = wanted.timezone if wanted.timezone and is_valid_timezone(wanted.timezone) else None
    if not prefs and not tz:
        return ""
    mine = owners.settings_changed_at(s, owner_id)
    current = owners.read_prefs(s, owner_id, owners.OwnerPrefs())
    same = all(getattr(current, k) == v for k, v in prefs.items()) and (tz is None or current.timezone == tz)
    if same:
        return ""
    if mine is not None and mine > taken:
        return "kept"
    owners.restore_settings(s, owner_id, prefs, tz, taken)
    return "restored"


