"""Export and import: a versioned JSON document of everything held about one person.

Import is a restore, not a conversation: records keep the states, dates, confidence and links
they had, so they do not go through conflict questions. It is idempotent (records are matched by
uid), never overwrites a memory edited after the backup was taken, never brings back what was
deleted, and a malformed file changes nothing: the whole document is validated before the one
transaction that writes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator
from sqlmodel import Session, select

from bot.memory import owners
from bot.storage.models import (
    Episode,
    EventKind,
    Memory,
    Procedure,
    Reminder,
    utcnow,
)
from bot.memory.store import log_event, new_action, snapshot, touch
from bot.when.zones import is_valid_timezone

FORMAT = "memory-assistant-backup"
VERSION = 1
MAX_IMPORT_BYTES = 20_000_000
MAX_TEXT = 10_000
MAX_RECORDS = 200_000



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
    reminders: list[ReminderRecord] = Field(default_factory=list, max_length=MAX_RECORDS)

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
    settings: str = ""  # "restored" | "kept" (changed after the backup) | ""
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.deleted or self.other_added)

    def summary(self) -> str:
        parts = [f"{self.added} added", f"{self.updated} updated", f"{self.unchanged} unchanged"]
        if self.kept_newer:
            parts.append(f"{self.kept_newer} kept because they were changed after the backup")
        if self.skipped_deleted:
            parts.append(f"{self.skipped_deleted} skipped because you deleted them")
        if self.deleted:
            parts.append(f"{self.deleted} removed as the backup records them deleted")
        if self.other_added:
            parts.append(f"{self.other_added} episodes, procedures or reminders added")
        if self.settings == "restored":
            parts.append("your settings and time zone restored")
        elif self.settings == "kept":
            parts.append("your settings kept as they are (you changed them after this backup)")
        return "Import done: " + ", ".join(parts) + "."


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


def import_backup(s: Session, owner_id: int, backup: Backup) -> ImportReport:
    report = ImportReport()
    existing = {m.uid: m for m in s.exec(select(Memory).where(Memory.owner_id == owner_id))}
    action = new_action(s, owner_id, "import", "imported a backup", undoable=False)
    deleted_in_backup = {t.uid: t.deleted_at for t in backup.tombstones}
    touched: dict[str, Memory] = {}

    for rec in backup.memories:
        if rec.uid in deleted_in_backup:
            continue
        m = existing.get(rec.uid)
        if m is not None and m.deleted_at is not None:
            report.skipped_deleted += 1
            continue
        if m is None:
            m = Memory(owner_id=owner_id, uid=rec.uid, updated_at=rec.updated_at, **{f: getattr(rec, f) for f in _FIELDS})
            s.add(m)
            s.flush()
            log_event(s, action, m, EventKind.IMPORTED, None, note="from backup")
            existing[rec.uid] = m
            touched[rec.uid] = m
            report.added += 1
            continue
        if m.updated_at > rec.updated_at:
            report.kept_newer += 1
            continue
        if all(getattr(m, f) == getattr(rec, f) for f in _FIELDS if f not in ("uses", "last_used_at")):
            report.unchanged += 1
            continue
        before = snapshot(m)
        for f in _FIELDS:
            setattr(m, f, getattr(rec, f))
        m.updated_at = rec.updated_at  # the version moves on at flush (version_id_col)
        s.add(m)
        log_event(s, action, m, EventKind.IMPORTED, before, note="updated from backup")
        touched[rec.uid] = m
        report.updated += 1

    # links by uid, for the records this import wrote
    for rec in backup.memories:
        m = touched.get(rec.uid)
        if m is None:
            continue
        target = existing.get(rec.replaced_by) if rec.replaced_by else None
        m.replaced_by = target.id if target is not None and target.deleted_at is None else None
        s.add(m)

    for uid, deleted_at in deleted_in_backup.items():
        m = existing.get(uid)
        if m is None or m.deleted_at is not None or m.updated_at > deleted_at:
            continue
        before = snapshot(m)
        m.deleted_at = utcnow()
        touch(m)
        s.add(m)
        log_event(s, action, m, EventKind.DELETED, before, note="deleted in the backup")
        report.deleted += 1

    report.other_added += _import_others(s, owner_id, backup)
    report.settings = _import_settings(s, owner_id, backup)
    if not report.changed:
        s.delete(action)
    return report


def _import_settings(s: Session, owner_id: int, backup: Backup) -> str:
    """The backup's settings and time zone, unless the person changed theirs after the backup
    was taken (the newer choice wins, like a memory edited after the backup)."""
    wanted = backup.settings
    prefs = {k: v for k, v in wanted.prefs.items() if k in owners.PREF_NAMES}
    tz = wanted.timezone if wanted.timezone and is_valid_timezone(wanted.timezone) else None
    if not prefs and not tz:
        return ""
    taken = wanted.changed_at or _aware(backup.exported_at)
    assert taken is not None
    mine = owners.settings_changed_at(s, owner_id)
    current = owners.read_prefs(s, owner_id, owners.OwnerPrefs())
    same = all(getattr(current, k) == v for k, v in prefs.items()) and (tz is None or current.timezone == tz)
    if same:
        return ""
    if mine is not None and mine > taken:
        return "kept"
    owners.restore_settings(s, owner_id, prefs, tz, taken)
    return "restored"


def _import_others(s: Session, owner_id: int, backup: Backup) -> int:
    added = 0
    have_ep = set(s.exec(select(Episode.uid).where(Episode.owner_id == owner_id)))
    for e in backup.episodes:
        if e.uid not in have_ep:
            s.add(Episode(owner_id=owner_id, **e.model_dump()))
            added += 1
    have_proc = set(s.exec(select(Procedure.uid).where(Procedure.owner_id == owner_id)))
    for p in backup.procedures:
        if p.uid not in have_proc:
            s.add(Procedure(owner_id=owner_id, **p.model_dump()))
            added += 1
    have_rem = set(s.exec(select(Reminder.uid).where(Reminder.owner_id == owner_id)))
    for r in backup.reminders:
        if r.uid not in have_rem:
            s.add(Reminder(owner_id=owner_id, **r.model_dump()))
            added += 1
    return added
