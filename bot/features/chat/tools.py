"""Executing the chat model's tool calls (manage_memory, reminders) through the same verbs as
the commands.

Why through the same verbs: a memory the model adds must meet the same duplicate check, the same
conflict rules (and the same AI judge) as one typed with "remember:"; an id the model names must
be checked against the owner exactly as "/forget 3" is. So every action here is one call of a
MemoryService verb (owner-scoped: another person's id simply does not exist) or of the reminders
service, and nothing else touches storage.

What goes back to the model is a `tool_result` block whose content is JSON (memory text is data
there too, quoted by the JSON encoder). Invalid input, an unknown id, or a part that is not
running is an `is_error` result the model can read and correct — never an exception in the turn.
What the person should see (a save, a change, a question about a conflict) is collected as
`ToolOutcome.change` / pushed, so a change is never silent.
"""

from __future__ import annotations

import inspect
import json
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from bot.core import render
from bot.core.buttons import ButtonSpec
from bot.core.core import Core
from bot.core.replies import describe_save
from bot.core.turn import Turn
from bot.events import ChatRef
from bot.features.reminders import PRESS_ACTION as REMINDER_ACTION
from bot.llm.tools import ManageMemoryInput, RemindersInput, ToolInputError, error_result, parse_tool_input
from bot.memory import FactError, JudgeFn, MemoryView, StorageError, Which
from bot.storage.models import CONFIDENCE_STATED, Source

log = logging.getLogger(__name__)

LIST_LIMIT = 50
SEARCH_LIMIT = 10
REMINDERS_LIMIT = 30
NO_REMINDERS = "Reminders are not running in this setup, so no reminder was set, listed or cancelled."


class Reminders(Protocol):
    """What the reminders tool needs of the reminder feature (bot.features.reminders)."""

    async def set_from_text(self, owner_id: int, chat: ChatRef, when: str, what: str) -> tuple[bool, str, int | None]: ...

    async def list_upcoming(self, owner_id: int) -> list[dict[str, Any]]: ...

    async def cancel(self, owner_id: int, reminder_id: int) -> tuple[bool, str]: ...


@dataclass
class ToolOutcome:
    """One executed tool call: the block for the model and what the person should be told."""

    result: dict[str, Any]
    change: str | None = None  # a line for the person ("Saved: “…”"), None for reads and errors
    undo_action_id: str | None = None  # the memory action an Undo button would revert
    conflict_id: int | None = None  # a conflict question that was pushed to the person
    buttons: tuple[ButtonSpec, ...] = ()  # beside the answer: Cancel for a reminder it set
    reminder_id: int | None = None  # a reminder it set (a first one brings the time zone offer)

    @property
    def is_error(self) -> bool:
        return bool(self.result.get("is_error"))


def ok_result(tool_use_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A successful tool_result whose content is the JSON of `payload`."""
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": json.dumps(payload, ensure_ascii=False)}


def memory_json(m: MemoryView) -> dict[str, Any]:
    """A memory as the model sees it in a tool result: the real id, text, state, stated dates."""
    out: dict[str, Any] = {"id": m.id, "text": m.text, "status": m.status}
    if m.valid_from:
        out["since"] = m.valid_from.isoformat()
    if m.valid_until:
        out["until"] = m.valid_until.isoformat()
    return out


async def execute(
    core: Core,
    turn: Turn,
    name: str,
    tool_use_id: str,
    raw_input: object,
    *,
    judge: JudgeFn | None = None,
    reminders: Reminders | None = None,
) -> ToolOutcome:
    """Run one tool call for `turn`'s owner; never raises for bad input or a missing part.

    A StorageError propagates: the core turns it into its one storage message, and nothing the
    model asked for can have been half done (each verb is one transaction).
    """
    try:
        call = parse_tool_input(name, raw_input)
    except ToolInputError as exc:
        return ToolOutcome(error_result(tool_use_id, str(exc)))
    try:
        if isinstance(call, ManageMemoryInput):
            return await _manage_memory(core, turn, call, tool_use_id, judge)
        return await _reminders(reminders, turn, call, tool_use_id)
    except FactError as exc:
        return ToolOutcome(error_result(tool_use_id, str(exc)))
    except StorageError:
        raise
    except Exception:
        log.exception("tool %s failed", name)
        return ToolOutcome(error_result(tool_use_id, f"The {name} tool failed on our side; tell the person it did not work."))


def _missing(tool_use_id: str, memory_id: int) -> ToolOutcome:
    return ToolOutcome(
        error_result(
            tool_use_id,
            f"There is no memory #{memory_id} for this person (it may have been deleted). "
            "Use action 'search' or 'list' to find the right id.",
        )
    )


async def _manage_memory(
    core: Core, turn: Turn, call: ManageMemoryInput, tool_use_id: str, judge: JudgeFn | None
) -> ToolOutcome:
    memory = core.memory
    owner = turn.owner_id
    if call.action == "list":
        items = await memory.list(owner, Which.ALL)
        live = [m for m in items if not m.archived][:LIST_LIMIT]
        return ToolOutcome(ok_result(tool_use_id, {"memories": [memory_json(m) for m in live], "total": len(items)}))
    if call.action == "search":
        assert call.query is not None
        found = await memory.search(owner, call.query, limit=SEARCH_LIMIT)
        return ToolOutcome(ok_result(tool_use_id, {"query": call.query, "memories": [memory_json(m) for m in found]}))
    if call.action == "add":
        assert call.text is not None
        return await _add(core, turn, call.text, tool_use_id, judge)
    assert call.memory_id is not None
    mid = call.memory_id
    if call.action == "edit":
        assert call.text is not None
        changed = await memory.edit(owner, mid, call.text)
        if changed is None:
            return _missing(tool_use_id, mid)
        return ToolOutcome(
            ok_result(tool_use_id, {"edited": memory_json(changed.memory)}),
            change=f"Corrected: {render.quote(changed.memory.text)}",
            undo_action_id=changed.action_id,
        )
    if call.action == "update":
        assert call.text is not None
        out = await memory.update_fact(owner, mid, call.text)
        if out is None:
            return _missing(tool_use_id, mid)
        new, old = out
        return ToolOutcome(
            ok_result(tool_use_id, {"current": memory_json(new), "kept_as_history": memory_json(old)}),
            change=f"Updated: {render.quote(new.text)} is current; {render.quote(old.text)} is kept as history",
        )
    if call.action == "mark_past":
        changed = await memory.mark_past(owner, mid)
        if changed is None:
            return _missing(tool_use_id, mid)
        if changed.note:
            return ToolOutcome(ok_result(tool_use_id, {"already_past": memory_json(changed.memory)}))
        return ToolOutcome(
            ok_result(tool_use_id, {"marked_past": memory_json(changed.memory)}),
            change=f"Marked as past: {render.quote(changed.memory.text)}",
            undo_action_id=changed.action_id,
        )
    # delete
    changed = await memory.delete(owner, mid)
    if changed is None:
        return _missing(tool_use_id, mid)
    minutes = max(1, core.settings.undo_window_seconds // 60)
    return ToolOutcome(
        ok_result(tool_use_id, {"deleted": {"id": changed.memory.id}, "undo_minutes": minutes}),
        change=f"Deleted: {render.quote(changed.memory.text)} (Undo works for {minutes} minutes)",
        undo_action_id=changed.action_id,
    )


async def _add(core: Core, turn: Turn, text: str, tool_use_id: str, judge: JudgeFn | None) -> ToolOutcome:
    """Save through Remember; a conflict is asked with its four buttons, pushed to the person."""
    result = await core.memory.remember(
        turn.owner_id,
        text,
        source=Source.TOOL.value,
        confidence=CONFIDENCE_STATED,  # the tool is for things the person asked to be remembered
        source_ref=turn.message_id,
        judge=judge,
    )
    if result.duplicate_of is not None:
        return ToolOutcome(ok_result(tool_use_id, {"already_remembered": memory_json(result.duplicate_of)}))
    assert result.memory is not None
    payload: dict[str, Any] = {"saved": memory_json(result.memory)}
    change = f"Saved: {render.quote(result.memory.text)}"
    if result.retired:
        payload["marked_past_by_judge"] = [memory_json(o) for o in result.retired]
        payload["note"] = "The older memories were marked as past; the person was told and can undo it."
    if result.conflict_id is not None or result.retired:
        # The person must see the question (or the retirement with its Undo) with real buttons:
        # the same message a "remember:" command would have answered with, pushed privately.
        message = await describe_save(core, turn, result)
        await core.push(turn.chat, message)
    if result.conflict_id is not None:
        payload["asked"] = [memory_json(o) for o in result.asked]
        payload["note"] = (
            "This may replace older memories. The person was asked, with buttons, whether the new "
            "fact replaces them; until they answer, treat the older ones as possibly outdated and "
            "do not call them past."
        )
        return ToolOutcome(ok_result(tool_use_id, payload), change=None, conflict_id=result.conflict_id)
    if result.retired:
        return ToolOutcome(ok_result(tool_use_id, payload), change=None)
    return ToolOutcome(ok_result(tool_use_id, payload), change=change, undo_action_id=result.action_id)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def _reminders(service: Reminders | None, turn: Turn, call: RemindersInput, tool_use_id: str) -> ToolOutcome:
    if service is None:
        return ToolOutcome(error_result(tool_use_id, NO_REMINDERS))
    owner = turn.owner_id
    if call.action == "set":
        assert call.when is not None and call.text is not None
        ok, message, reminder_id = await _maybe_await(service.set_from_text(owner, turn.chat, call.when, call.text))
        if not ok:
            return ToolOutcome(error_result(tool_use_id, f"The reminder was not set: {message}"))
        cancel: tuple[ButtonSpec, ...] = ()
        if isinstance(reminder_id, int):  # as under a /remind confirmation: undoable from here
            cancel = (ButtonSpec("Cancel reminder", REMINDER_ACTION, {"op": "cancel", "id": reminder_id},
                                 alone=True, detail=f"Cancel {render.quote(call.text, 60)}"),)
        return ToolOutcome(
            ok_result(tool_use_id, {"set": {"id": reminder_id, "message": message}}),
            change=message or f"Reminder set: {render.quote(call.text)}",
            buttons=cancel,
            reminder_id=reminder_id if isinstance(reminder_id, int) else None,
        )
    if call.action == "list":
        upcoming = await _maybe_await(service.list_upcoming(owner))
        items = [_plain(item) for item in list(upcoming)[:REMINDERS_LIMIT]]
        return ToolOutcome(ok_result(tool_use_id, {"reminders": items}))
    assert call.reminder_id is not None
    ok, message = await _maybe_await(service.cancel(owner, call.reminder_id))
    if not ok:
        return ToolOutcome(error_result(tool_use_id, f"Not cancelled: {message}"))
    return ToolOutcome(ok_result(tool_use_id, {"cancelled": call.reminder_id, "message": message}), change=message or "Reminder cancelled")


def _plain(item: Any) -> Any:
    """A reminder dict made JSON-safe (datetimes as ISO text)."""
    if isinstance(item, dict):
        return {str(k): _plain(v) for k, v in item.items()}
    if isinstance(item, (list, tuple)):
        return [_plain(v) for v in item]
    if isinstance(item, (str, int, float, bool)) or item is None:
        return item
    iso = getattr(item, "isoformat", None)
    return iso() if callable(iso) else str(item)
