"""The tools the chat model may call, as schemas it sees and validators for what it sends.

Why pydantic models: one definition gives both the JSON schema in the request and the check of
the input that comes back. A model can call a tool with a missing id or text; that must become a
clear error the model can read and correct (a tool_result with is_error), never an exception in
the core and never a half-done memory change. The executor lives in the core.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.llm.structured import tool_input_schema

MAX_TEXT = 1000
MAX_QUERY = 300


class ToolInputError(ValueError):
    """Invalid tool input; str() is written for the model, to be sent back as a tool_result."""


class _ToolInput(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class ManageMemoryInput(_ToolInput):
    action: Literal["add", "list", "search", "edit", "update", "mark_past", "delete"] = Field(
        description=(
            "add: save a new memory (needs text). list: show the person's current memories. "
            "search: find memories (needs query). edit: fix the wording of a memory that is still "
            "true (needs memory_id and text). update: the fact changed; the new text replaces it "
            "and the old one is kept as past (needs memory_id and text). mark_past: the memory is "
            "no longer true, with no new version (needs memory_id). delete: forget it entirely "
            "(needs memory_id; only when the person asks to forget)."
        )
    )
    text: str | None = Field(
        default=None,
        max_length=MAX_TEXT,
        description="The memory as a short first-person sentence, e.g. 'I live in Paris'.",
    )
    memory_id: int | None = Field(default=None, ge=1, description="The id of an existing memory.")
    query: str | None = Field(default=None, max_length=MAX_QUERY, description="Words to search for.")

    @model_validator(mode="after")
    def _fields_for_action(self) -> ManageMemoryInput:
        needs = {
            "add": ("text",),
            "search": ("query",),
            "edit": ("memory_id", "text"),
            "update": ("memory_id", "text"),
            "mark_past": ("memory_id",),
            "delete": ("memory_id",),
            "list": (),
        }[self.action]
        missing = [name for name in needs if getattr(self, name) in (None, "")]
        if missing:
            raise ValueError(f"action '{self.action}' needs {' and '.join(missing)}")
        return self


class RemindersInput(_ToolInput):
    action: Literal["set", "list", "cancel"] = Field(
        description="set: a new reminder (needs text and when). list: upcoming reminders. "
        "cancel: stop one (needs reminder_id)."
    )
    text: str | None = Field(default=None, max_length=MAX_TEXT, description="What to remind of.")
    when: str | None = Field(
        default=None,
        max_length=200,
        description="When, in the person's words: 'tomorrow at 9', 'every Monday at 8', 'in 2 hours'.",
    )
    reminder_id: int | None = Field(default=None, ge=1, description="The id of an existing reminder.")

    @model_validator(mode="after")
    def _fields_for_action(self) -> RemindersInput:
        needs = {"set": ("text", "when"), "cancel": ("reminder_id",), "list": ()}[self.action]
        missing = [name for name in needs if getattr(self, name) in (None, "")]
        if missing:
            raise ValueError(f"action '{self.action}' needs {' and '.join(missing)}")
        return self


ToolCall = ManageMemoryInput | RemindersInput

TOOL_MODELS: dict[str, type[ManageMemoryInput] | type[RemindersInput]] = {
    "manage_memory": ManageMemoryInput,
    "reminders": RemindersInput,
}

_DESCRIPTIONS = {
    "manage_memory": (
        "Save, find, change or forget what you remember about the person. Use it when they ask "
        "you to remember, correct, update or forget something. Changes are shown to them."
    ),
    "reminders": (
        "Set, list or cancel reminders for the person. Times are in their time zone; pass the "
        "time in their own words."
    ),
}

TOOLS: list[dict[str, Any]] = [
    {"name": name, "description": _DESCRIPTIONS[name], "input_schema": tool_input_schema(model)}
    for name, model in TOOL_MODELS.items()
]


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()))
        message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


def parse_tool_input(name: str, raw: object) -> ToolCall:
    """The validated input of a tool call; ToolInputError with a readable reason otherwise."""
    model = TOOL_MODELS.get(name)
    if model is None:
        raise ToolInputError(f"Unknown tool {name!r}. Available: {', '.join(TOOL_MODELS)}.")
    if not isinstance(raw, dict):
        raise ToolInputError(f"Invalid input for {name}: expected a JSON object.")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise ToolInputError(f"Invalid input for {name}: {_explain(exc)}.") from None


def error_result(tool_use_id: str, message: str) -> dict[str, Any]:
    """A tool_result block that tells the model its call failed and why."""
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}
