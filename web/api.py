"""The REST API under /api: read the request, call the door with the caller the gate resolved
from the bearer token, return JSON. No route takes an owner; every id is a memory's uid.

The gate (web/app.py) has already refused requests without a valid token (401) or over the
rate limit (429) before a route runs, and the body limits anything too large (413).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from web.door import Caller, Door
from web.errors import ApiError
from web.schemas import Answer, Health, MemoryList, NewMemory, NewReminder, NewText, Recall, Saved, Versioned

router = APIRouter(prefix="/api")


def door(request: Request) -> Door:
    return request.app.state.door  # type: ignore[no-any-return]


def caller(request: Request) -> Caller:
    found = getattr(request.state, "caller", None)
    if not isinstance(found, Caller):  # the gate always sets it for /api; never serve without it
        raise ApiError(401, "This needs an API token.")
    return found


Who = Depends(caller)
Door_ = Depends(door)


def ok(data: dict[str, Any], status: int = 200) -> JSONResponse:
    """The door's answer as it is: the response models document it, and FastAPI would otherwise
    validate every answer against them again (a measurable share of a recall's time)."""
    return JSONResponse(data, status_code=status)


@router.get("/health", response_model=Health, summary="Is the memory's storage readable? (no token needed)")
async def health(d: Door = Door_) -> JSONResponse:
    return ok(await d.health())


@router.post("/memories", status_code=201, response_model=Saved,
             summary="Save a fact through the same rules as the chat (201; 200 for a duplicate)")
async def add_memory(body: NewMemory, who: Caller = Who, d: Door = Door_) -> JSONResponse:
    out = await d.add(who, body.text)
    return ok(out, 200 if out["outcome"] == "duplicate" else 201)  # a duplicate created nothing


@router.get("/memories", response_model=MemoryList, summary="List memories, newest first (or search with q)")
async def list_memories(
    status: str = Query("current", description="current | historical | unsure | archived | all"),
    q: str = Query("", max_length=500, description="Keyword search, best match first."),
    limit: int = Query(50, ge=1, le=200),
    cursor: str | None = Query(None, max_length=1000, description="next_cursor of the previous page."),
    who: Caller = Who,
    d: Door = Door_,
) -> JSONResponse:
    return ok(await d.list(who, status, q, limit, cursor))


@router.get("/memories/{memory_id}", summary="One memory with its history and versions")
async def get_memory(memory_id: str, who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.get(who, memory_id)


@router.patch("/memories/{memory_id}", summary="Correct a memory in place (a typo; the old wording stays in its history)")
async def edit_memory(memory_id: str, body: NewText, who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.edit(who, memory_id, body.text, body.version)


@router.post("/memories/{memory_id}/update", summary="A new version of a fact; the old one is kept as history")
async def update_memory(memory_id: str, body: NewText, who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.update(who, memory_id, body.text, body.version)


@router.post("/memories/{memory_id}/past", summary="Mark as no longer true (kept as historical)")
async def mark_past(memory_id: str, body: Versioned | None = None, who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.past(who, memory_id, body.version if body else None)


@router.post("/memories/{memory_id}/restore", summary="Make a past, unsure, archived or just-deleted memory current")
async def restore(memory_id: str, body: Versioned | None = None, who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.restore(who, memory_id, body.version if body else None)


@router.delete("/memories/{memory_id}", summary="Delete (restorable until the undo window ends, then purged)")
async def delete_memory(
    memory_id: str, version: int | None = Query(None, ge=1), who: Caller = Who, d: Door = Door_
) -> dict[str, Any]:
    return await d.delete(who, memory_id, version)


@router.get("/recall", response_model=Recall, summary="What the chat's model would be given for a question")
async def recall(
    q: str = Query(..., max_length=2000), limit: int | None = Query(None, ge=1, le=50), who: Caller = Who,
    d: Door = Door_,
) -> JSONResponse:
    return ok(await d.recall(who, q, limit))


@router.get("/questions", summary="Questions waiting for the person (a new fact that may replace older ones)")
async def questions(who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.questions(who)


@router.post("/questions/{question_id}/answer", summary="Answer a waiting question")
async def answer(question_id: str, body: Answer, who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.answer(who, question_id, body.choice)


@router.get("/export", summary="Everything held about the person, in the backup format")
async def export(who: Caller = Who, d: Door = Door_) -> JSONResponse:
    return JSONResponse(await d.export(who))


@router.post("/import", summary="Restore a backup (the export's format); idempotent, a bad file changes nothing")
async def import_backup(request: Request, who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        raise ApiError(422, "Send the backup file as the body (the JSON of GET /api/export); nothing was imported.")
    return await d.import_(who, raw)


@router.get("/reminders", summary="Upcoming reminders")
async def reminders(who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.reminders_list(who)


@router.post("/reminders", status_code=201, summary="Set a reminder (delivered in the person's private chat)")
async def add_reminder(body: NewReminder, who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.add_reminder(who, body.when, body.text)


@router.delete("/reminders/{reminder_id}", summary="Cancel a reminder")
async def cancel_reminder(reminder_id: str, who: Caller = Who, d: Door = Door_) -> dict[str, Any]:
    return await d.cancel_reminder(who, reminder_id)
