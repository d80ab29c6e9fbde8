"""The tables (docs/ARCHITECTURE.md section 3), all of them, so that later features fill columns rather
than migrate shapes.

Conventions that keep the rest of the code simple:
- Every row that belongs to a person carries `owner_id`; no query reads memories without one.
- Times are timezone-aware UTC datetimes (`utcnow()`); SQLModel's UTC column type stores them
  the same way on SQLite and PostgreSQL and hands them back aware. The person's time zone is
  applied only when a time is shown or parsed.
- `uid` is the stable identity of a memory (and reminder, episode, procedure) across export and
  import; `id` is a local row number. Both are unique per owner only in meaning, so another
  person's backup can never address your rows.
- JSON payloads are stored as text so that both databases treat them the same.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime, timezone
from enum import StrEnum

from sqlalchemy import Column, Index, LargeBinary, Text, UniqueConstraint, event
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.orm import declared_attr
from sqlmodel import Field, SQLModel

from bot.storage.search_text import search_form

SCHEMA_VERSION = 3


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def new_uid() -> str:
    return uuid.uuid4().hex


class Status(StrEnum):
    CURRENT = "current"
    HISTORICAL = "historical"
    UNSURE = "unsure"


class Source(StrEnum):
    COMMAND = "command"
    CHAT = "chat"
    TOOL = "tool"
    IMPORT = "import"
    CURATOR = "curator"
    LINK = "link"
    API = "api"  # the HTTP API
    MCP = "mcp"  # an MCP client (Claude Desktop, Claude Code ...)
    WEB = "web"  # the memory page in a browser


class EventKind(StrEnum):
    CREATED = "created"
    EDITED = "edited"
    UPDATED = "updated"
    MARKED_PAST = "marked_past"
    MARKED_UNSURE = "marked_unsure"
    RESTORED = "restored"
    MERGED = "merged"
    ARCHIVED = "archived"
    DELETED = "deleted"
    IMPORTED = "imported"
    AUTO_ARCHIVED = "auto_archived"
    CONFIRMED = "confirmed"
    UNDONE = "undone"
    PURGED = "purged"


CONFIDENCE_STATED = 1.0
CONFIDENCE_INFERRED = 0.7
CONFIDENCE_PATTERN = 0.5


class SchemaInfo(SQLModel, table=True):
    __tablename__ = "schema_info"
    id: int = Field(default=1, primary_key=True)
    version: int
    updated_at: datetime = Field(default_factory=utcnow)


class Owner(SQLModel, table=True):
    __tablename__ = "owner"
    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow)
    timezone: str | None = None
    settings_json: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    # ids of the memories in the last list shown, so "/forget 3" means what the person saw
    last_list_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    # what the last chat answer used, for /why
    last_why_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    curator_fingerprint: str | None = None
    curator_ran_at: datetime | None = None
    last_recheck_at: datetime | None = None
    memories_since_tidy: int = 0
    version: int = 0


class Identity(SQLModel, table=True):
    __tablename__ = "identity"
    __table_args__ = (UniqueConstraint("platform", "user_id", name="uq_identity_platform_user"),)
    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=32)
    user_id: str = Field(max_length=128)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    display_name: str = ""
    # the owner this identity had before a /link, so /unlink can separate them again
    home_owner_id: int | None = None
    created_at: datetime = Field(default_factory=utcnow)


class Memory(SQLModel, table=True):
    __tablename__ = "memory"
    __table_args__ = (
        UniqueConstraint("owner_id", "uid", name="uq_memory_owner_uid"),
        Index("ix_memory_owner_status", "owner_id", "status"),
        Index("ix_memory_owner_slot", "owner_id", "slot"),
        Index("ix_memory_owner_replaced_by", "owner_id", "replaced_by"),  # a topic's past values (recall)
    )
    id: int | None = Field(default=None, primary_key=True)
    uid: str = Field(default_factory=new_uid, max_length=32)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    text: str = Field(sa_column=Column(Text, nullable=False))
    category: str = "fact"
    slot: str | None = None
    status: str = Status.CURRENT.value
    replaced_by: int | None = Field(default=None, foreign_key="memory.id")
    valid_from: date | None = None
    valid_until: date | None = None
    source: str = Source.COMMAND.value
    source_ref: str | None = None
    confidence: float = CONFIDENCE_STATED
    importance: float = 0.5
    uses: int = 0
    last_used_at: datetime | None = None
    confirmed_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    embedding: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    # what the keyword index reads when the text alone is not enough (CJK runs, emoji): the text
    # plus extra words, NULL otherwise; set by the flush hook below, never by hand
    search_text: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    archived: bool = False
    # set when a person deletes; the row is hidden at once and purged after the undo window
    deleted_at: datetime | None = None
    purged_at: datetime | None = None
    # Optimistic locking: every ORM UPDATE of a memory says "WHERE version = <the version I
    # read>" and moves it on by one, so two processes changing one memory at the same time cannot
    # both win; the loser gets StaleDataError (Database.run turns it into ConcurrentUpdate).
    # Never set it by hand. Plain SQL updates (uses counters) leave it alone on purpose.
    version: int = 1

    @declared_attr  # type: ignore[misc]
    def __mapper_args__(cls) -> dict[str, object]:  # noqa: N805
        return {"version_id_col": cls.__table__.c.version}  # type: ignore[attr-defined]


@event.listens_for(Memory, "before_insert")
def _search_text_on_insert(mapper: object, connection: object, target: Memory) -> None:
    """Every ORM write of a memory's text also writes its search form (bot/storage/search_text.py),
    so the keyword index can never disagree with the text (a purge empties both)."""
    target.search_text = search_form(target.text)


@event.listens_for(Memory, "before_update")
def _search_text_on_update(mapper: object, connection: object, target: Memory) -> None:
    state = sa_inspect(target)
    if "text" in state.dict and state.attrs.text.history.has_changes():
        target.search_text = search_form(target.text)


class Action(SQLModel, table=True):
    """One thing a person (or the assistant) did, grouping the events it caused, so that Undo
    reverts exactly that and nothing else. The summary names memories and reminders by
    reference ({m12}, {r3}), never by their text: it is rendered when shown, so that no text
    outlives the purge of what it quoted (bot/memory/store.py, resolve_refs)."""

    __tablename__ = "action"
    id: str = Field(default_factory=new_uid, primary_key=True, max_length=32)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    kind: str
    summary: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    actor: str = "person"
    undoable: bool = True
    conflict_id: int | None = None
    conflict_status_before: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    undone_at: datetime | None = None


class ActionChange(SQLModel, table=True):
    """A change an action made outside the memory table (a reminder set or cancelled, a setting
    or the time zone changed), with the state before and after, so that /undo walks back every
    kind of change the person made, not only memories. Holds no memory text."""

    __tablename__ = "action_change"
    id: int | None = Field(default=None, primary_key=True)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    action_id: str = Field(foreign_key="action.id", index=True, max_length=32)
    target: str = Field(max_length=16)  # reminder | setting | timezone
    ref: str = Field(default="", max_length=64)  # the reminder's id or the setting's name
    before_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    after_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)


class MemoryEvent(SQLModel, table=True):
    """Append-only log of every change, with before/after snapshots: the history chain and the
    way to undo. Purging a deleted memory scrubs the text from its events."""

    __tablename__ = "memory_event"
    id: int | None = Field(default=None, primary_key=True)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    memory_id: int | None = Field(default=None, foreign_key="memory.id", index=True)
    action_id: str | None = Field(default=None, foreign_key="action.id", index=True)
    kind: str
    actor: str = "person"
    before_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    after_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    note: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class Conflict(SQLModel, table=True):
    """A question "does new fact X replace old facts Y...?", pending or settled."""

    __tablename__ = "conflict"
    id: int | None = Field(default=None, primary_key=True)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    new_memory_id: int = Field(foreign_key="memory.id")
    old_ids_json: str = Field(sa_column=Column(Text, nullable=False))
    # per old id: the rule or the judge's relation and probability, and the status it had
    reason_json: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    status: str = "pending"  # pending | settled | void
    resolution: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    settled_at: datetime | None = None
    shown_platform: str | None = None
    shown_chat_id: str | None = None
    shown_message_id: str | None = None


class ButtonToken(SQLModel, table=True):
    """A short random token behind every button: what it means lives here, bound to its owner,
    so callback data stays tiny and a forged or foreign press finds nothing it may do."""

    __tablename__ = "button_token"
    token: str = Field(primary_key=True, max_length=32)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    action: str
    payload_json: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    group_id: str = Field(default="", index=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime | None = None
    used_at: datetime | None = None


class MessageLog(SQLModel, table=True):
    __tablename__ = "message_log"
    __table_args__ = (Index("ix_message_owner_chat_time", "owner_id", "platform", "chat_id", "created_at"),)
    id: int | None = Field(default=None, primary_key=True)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    platform: str
    chat_id: str
    role: str  # user | assistant
    text: str = Field(sa_column=Column(Text, nullable=False))
    platform_message_id: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    episode_id: int | None = Field(default=None, foreign_key="episode.id")
    extracted: bool = False


class Episode(SQLModel, table=True):
    __tablename__ = "episode"
    id: int | None = Field(default=None, primary_key=True)
    uid: str = Field(default_factory=new_uid, max_length=32)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    platform: str = ""
    chat_id: str = ""
    title: str = ""
    summary: str = Field(sa_column=Column(Text, nullable=False))
    started_at: datetime = Field(default_factory=utcnow)
    ended_at: datetime = Field(default_factory=utcnow)
    created_at: datetime = Field(default_factory=utcnow)
    embedding: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))


class Procedure(SQLModel, table=True):
    __tablename__ = "procedure"
    id: int | None = Field(default=None, primary_key=True)
    uid: str = Field(default_factory=new_uid, max_length=32)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    trigger: str = Field(sa_column=Column(Text, nullable=False))
    steps: str = Field(sa_column=Column(Text, nullable=False))
    uses: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Reminder(SQLModel, table=True):
    __tablename__ = "reminder"
    __table_args__ = (Index("ix_reminder_state_due", "state", "due_at"),)
    id: int | None = Field(default=None, primary_key=True)
    uid: str = Field(default_factory=new_uid, max_length=32)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    text: str = Field(sa_column=Column(Text, nullable=False))
    due_at: datetime
    timezone: str = "UTC"
    recurrence: str | None = None
    platform: str
    chat_id: str
    user_id: str | None = None
    # scheduled -> delivering -> delivered | cancelled; claimed in one conditional update
    state: str = "scheduled"
    claimed_at: datetime | None = None
    claimed_by: str | None = None
    attempts: int = 0
    last_error: str | None = None
    delivered_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    version: int = 1


class ModelUsage(SQLModel, table=True):
    """Tokens the model used per person per day and job: the daily budget reads this."""

    __tablename__ = "model_usage"
    owner_id: int = Field(foreign_key="owner.id", primary_key=True)
    day: str = Field(primary_key=True, max_length=10)
    job: str = Field(primary_key=True, max_length=16)
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0


class ImportStaging(SQLModel, table=True):
    """An import being written in batches: its rows wait under `staging_owner_id`, an owner no
    identity maps to (so nobody sees them and every query, scoped by owner, passes them by),
    until one transaction moves them to `owner_id`. A row left behind by a crash is an
    abandoned import: its staged rows are deleted (bot.memory.writing.transfer)."""

    __tablename__ = "import_staging"
    staging_owner_id: int = Field(foreign_key="owner.id", primary_key=True)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    started_at: datetime = Field(default_factory=utcnow)


class LinkCode(SQLModel, table=True):
    """A one-time code shown on one platform and typed on another to join two identities."""

    __tablename__ = "link_code"
    code: str = Field(primary_key=True, max_length=16)
    owner_id: int = Field(foreign_key="owner.id", index=True)
    platform: str
    user_id: str
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    used_at: datetime | None = None


class ApiToken(SQLModel, table=True):
    """A person's key for programs (the HTTP API and MCP). Only a hash of the secret is kept; the
    secret itself is shown once. Bound to an identity, not an owner, so that a /link (which moves
    the identity to the shared owner) lets the token see the shared memory, and /unlink takes
    it home again."""

    __tablename__ = "api_token"
    id: int | None = Field(default=None, primary_key=True)
    identity_id: int = Field(foreign_key="identity.id", index=True)
    token_hash: str = Field(max_length=64, sa_column_kwargs={"unique": True})
    name: str = Field(default="", max_length=100)
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


class WebLoginCode(SQLModel, table=True):
    """A one-time login link for the memory page (/web, `python -m bot login-link`). Only a hash
    of the code is kept, as for API tokens; bound to an identity so the owner is read at use."""

    __tablename__ = "web_login_code"
    code_hash: str = Field(primary_key=True, max_length=64)
    identity_id: int = Field(foreign_key="identity.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    used_at: datetime | None = None


class WebSession(SQLModel, table=True):
    """A browser's session on the memory page, started by a login code; the cookie holds the
    secret, the database its hash, so a session works in any process sharing the database."""

    __tablename__ = "web_session"
    id: int | None = Field(default=None, primary_key=True)
    identity_id: int = Field(foreign_key="identity.id", index=True)
    secret_hash: str = Field(max_length=64, sa_column_kwargs={"unique": True})
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    ended_at: datetime | None = None


class Lock(SQLModel, table=True):
    """A named lease (curator per owner, purge job) for several processes on one database;
    on PostgreSQL advisory locks serve, this table is the portable form."""

    __tablename__ = "lease"
    name: str = Field(primary_key=True, max_length=64)
    holder: str
    expires_at: datetime
