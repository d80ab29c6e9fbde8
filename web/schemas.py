"""The shapes of the HTTP API: request bodies (strict: wrong types and unknown fields are refused,
not coerced or dropped) and the documented responses (what /docs and /openapi.json show)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_TEXT = 10_000  # a fact is at most 2,000 characters (the memory says so); this only bounds the read


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewMemory(_Strict):
    text: str = Field(max_length=MAX_TEXT, description="One fact, in the person's words.")


class NewText(_Strict):
    text: str = Field(max_length=MAX_TEXT)
    version: int | None = Field(None, ge=1, description="The version you read; the change is refused (409) if "
                                                          "the memory changed since.")


class Versioned(_Strict):
    version: int | None = Field(None, ge=1, description="The version you read (optional, see NewText.version).")


class Answer(_Strict):
    choice: Literal["keep_both", "mark_older_past", "replace_older", "discard_newer"]


class NewReminder(_Strict):
    when: str = Field(max_length=200, description='As a person says it: "tomorrow at 9", "every Monday at 8".')
    text: str = Field(max_length=1000, description="What to be reminded of.")


# --- responses (documentation; the door builds them) ---------------------------------------------


class Memory(BaseModel):
    id: str = Field(description="The stable uid (as in backups), never a row number.")
    text: str
    status: Literal["current", "historical", "unsure"]
    archived: bool
    category: str
    slot: str | None
    valid_from: str | None = Field(description="Only when the person stated a date.")
    valid_until: str | None
    replaced_by: str | None = Field(description="The uid of the newer version, for a historical memory.")
    created_at: str
    updated_at: str
    version: int = Field(description="Send it back with a change to make the change conditional.")
    deleted: bool = Field(description="Deleted, restorable until the purge.")


class Question(BaseModel):
    id: str = Field(description="The uid of the new fact the question is about.")
    status: str
    answer: str | None
    new: Memory
    old: list[Memory]
    choices: list[str]
    recommended: str | None  # the recommended choice, or None when the question is unclear


class Saved(BaseModel):
    memory: Memory
    outcome: Literal["saved", "asked", "duplicate"]
    question: Question | None
    replaced: list[Memory] = Field(description="Older facts the person's AI judge retired (with Undo in the chat).")


class MemoryList(BaseModel):
    memories: list[Memory]
    next_cursor: str | None


class Recall(BaseModel):
    current: list[Memory]
    possibly_outdated: list[Memory]
    historical: list[Memory]
    context: str = Field(description="The text the chat's model would be given.")


class Health(BaseModel):
    ok: bool
