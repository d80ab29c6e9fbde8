"""The one door for programs: what the HTTP API and the MCP tools do, once, on the memory's own
verbs. Both are thin adapters over this module: they read the request, call a method here with
the owner their credential gave them, and translate the plain JSON-ready dicts (or a Refusal)
back into their protocol.

Why one door: the chat, the API and MCP must save through the same rules, undo the same way
and answer the same questions; a second write path is how a memory starts to disagree with
itself. Nothing here takes an owner from the request body or a tool argument: the caller passes
the owner its credential resolved to, and every id in a request is a uid looked up within that
owner, so another person's id is simply not found (404), never "forbidden" (which would tell
that it exists).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any

from bot.events import ChatRef
from bot.features.reminders import ReminderService
from bot.memory import (
    BadCursor,
    ChangedSince,
    Choice,
    ConflictView,
    FactError,
    ImportProblem,
    JudgeFn,
    Listing,
    MemoryService,
    PublicMemory,
    Settled,
    Source,
)
from bot.when.zones import format_local, resolve_timezone

PREFS = ("conflict_review", "ai_judge", "extraction_notice", "recheck")
FORGET_WORDS = "forget everything"

CHOICES: dict[str, Choice] = {
    "keep_both": Choice.KEEP,
    "mark_older_past": Choice.PAST,
    "replace_older": Choice.REPLACE,
    "discard_newer": Choice.DISCARD,
}
CHOICE_NAMES = {v: k for k, v in CHOICES.items()}
MAX_LIMIT = 200
UID_HINT = "ids are the uids this API gave out (1-32 letters, digits, - or _), never row numbers"
_UID = re.compile(r"[A-Za-z0-9_-]{1,32}")


class Refusal(Exception):
    """Nothing was changed, and why: `kind` is not_found | invalid | conflict | gone."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def not_found(what: str, given: str) -> Refusal:
    return Refusal("not_found", f"No {what} with id {json.dumps(given[:80])}.")


def _iso(value: date | datetime | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.isoformat()


def memory_json(m: PublicMemory) -> dict[str, Any]:
    """M: a memory as programs get it."""
    return {
        "id": m.id,
        "text": m.text,
        "status": m.status,
        "archived": m.archived,
        "category": m.category,
        "slot": m.slot,
        "valid_from": _iso(m.valid_from),
        "valid_until": _iso(m.valid_until),
        "replaced_by": m.replaced_by,
        "created_at": _iso(m.created_at),
        "updated_at": _iso(m.updated_at),
        "version": m.version,
        "deleted": m.deleted,
        "source": m.source,
    }


@dataclass(frozen=True)
class Caller:
    """Who is asking: the owner whose memory this is, and the identity the credential belongs
    to (where reminders set through this door are delivered)."""

    owner_id: int
    platform: str
    user_id: str
    source: str = Source.API.value


class Door:
    def __init__(
        self,
        memory: MemoryService,
        reminders: ReminderService,
        *,
        undo_window: timedelta,
        judge_for: Callable[[int], JudgeFn | None] | None = None,
    ) -> None:
        self.memory = memory
        self.reminders = reminders
        self.undo_window = undo_window
        self.judge_for = judge_for or (lambda owner_id: None)

    # --- plumbing -------------------------------------------------------------------------------
    async def _id(self, caller: Caller, uid: str, *, include_deleted: bool = False) -> int:
        if not _UID.fullmatch(uid or ""):
            raise Refusal("invalid", f"{json.dumps(uid[:80])} is not a memory id: {UID_HINT}.")
        found = await self.memory.find(caller.owner_id, uid, include_deleted=include_deleted)
        if found is None:
            raise not_found("memory", uid)
        return found

    async def _one(self, caller: Caller, memory_id: int) -> dict[str, Any]:
        views = await self.memory.as_public(caller.owner_id, [memory_id])
        if not views:
            raise Refusal("gone", "That memory is gone for good.")
        return memory_json(views[0])

    async def _many(self, caller: Caller, ids: list[int]) -> list[dict[str, Any]]:
        return [memory_json(m) for m in await self.memory.as_public(caller.owner_id, ids)]

    async def person(self, platform: str, user_id: str, name: str = "") -> int | None:
        """The owner of an account proven by the platform itself (Telegram's signed Mini App
        data), created on first sight as the chat creates a person at their first message."""
        return await self.memory.owner_for(platform, user_id, name)

    # --- reading ---------------------------------------------------------------------------------
    async def health(self) -> dict[str, Any]:
        await self.memory.healthy()
        return {"ok": True}

    async def list(self, caller: Caller, status: str = "current", query: str = "", limit: int = 50,
                   cursor: str | None = None) -> dict[str, Any]:
        try:
            listing = Listing(status)
        except ValueError:
            raise Refusal("invalid", f"status must be one of {', '.join(x.value for x in Listing)}.") from None
        if not 1 <= limit <= MAX_LIMIT:
            raise Refusal("invalid", f"limit must be between 1 and {MAX_LIMIT}.")
        try:
            got = await self.memory.page(caller.owner_id, listing, query, limit, cursor)
        except BadCursor:
            raise Refusal("invalid", "That cursor is not one this API gave out (for this list and query).") from None
        return {"memories": [memory_json(m) for m in got.memories], "next_cursor": got.next_cursor}

    async def get(self, caller: Caller, uid: str) -> dict[str, Any]:
        memory_id = await self._id(caller, uid)
        history = await self.memory.history(caller.owner_id, memory_id)
        if history is None:
            raise not_found("memory", uid)
        chain = await self.memory.as_public(caller.owner_id, [v.id for v in history.chain])
        uid_of = {v.id: v.uid for v in history.chain}
        out = await self._one(caller, memory_id)
        out["history"] = [
            {
                "at": _iso(e.at),
                "memory": uid_of.get(e.memory_id),
                "kind": e.kind,
                "by": e.actor,
                "text_before": e.text_before,
                "text_after": e.text_after,
                "status_before": e.status_before,
                "status_after": e.status_after,
                # notes name other memories by row ("replaced by #12"): by uid here
                "note": re.sub(r"#(\d+)", lambda m: uid_of.get(int(m[1]), "another memory"), e.note),
            }
            for e in history.entries
        ]
        out["versions"] = [memory_json(p) for p in chain]
        return out

    async def timeline(self, caller: Caller) -> list[dict[str, Any]]:
        """Every memory of a single-value topic (where one lives, one's job ...), past and
        current: what the timeline picture is drawn from."""
        return await self._many(caller, await self.memory.slotted(caller.owner_id))

    async def recall(self, caller: Caller, query: str, limit: int | None = None) -> dict[str, Any]:
        """What the chat's model would be given for this question: the same pipeline, the same
        blocks. Uses are not counted: they measure what the assistant's own chat relied on, and a
        script polling recall must not make a memory look important."""
        if not query.strip():
            raise Refusal("invalid", "Give the question or words to recall memories for (q).")
        if limit is not None and not 1 <= limit <= 50:
            raise Refusal("invalid", "limit must be between 1 and 50.")
        got = await self.memory.recall(caller.owner_id, query, record_use=False, max_memories=limit)
        shown = await self.memory.as_public(caller.owner_id, got.memory_ids)
        blocks: dict[str, list[dict[str, Any]]] = {"current": [], "possibly_outdated": [], "historical": []}
        for m in shown:
            key = {"current": "current", "unsure": "possibly_outdated"}.get(m.status, "historical")
            blocks[key].append(memory_json(m))
        # the chat's model reads memories by row ("[#12, current]"); a program gets the uids it can
        # pass back to get_memory and the other verbs
        uid_of = {row: m.id for row, m in zip(got.memory_ids, shown)} if len(shown) == len(got.memory_ids) else {}
        context = re.sub(r"\[#(\d+),", lambda g: f"[#{uid_of.get(int(g[1]), '?')},", got.text)
        return blocks | {"context": context}

    # --- saving and changing ------------------------------------------------------------------------
    async def add(self, caller: Caller, text: str) -> dict[str, Any]:
        try:
            result = await self.memory.remember(
                caller.owner_id, text, source=caller.source, judge=self.judge_for(caller.owner_id)
            )
        except FactError as exc:
            raise Refusal("invalid", str(exc)) from None
        if result.duplicate_of is not None:
            return {"memory": await self._one(caller, result.duplicate_of.id), "outcome": "duplicate",
                    "question": None, "replaced": []}
        assert result.memory is not None
        question = None
        if result.conflict_id is not None:
            view = await self.memory.conflict(caller.owner_id, result.conflict_id)
            question = await self._question(caller, view) if view is not None else None
        return {
            "memory": await self._one(caller, result.memory.id),
            "outcome": "asked" if question is not None else "saved",
            "question": question,
            "replaced": await self._many(caller, [m.id for m in result.retired]),
        }

    async def edit(self, caller: Caller, uid: str, text: str, version: int | None = None) -> dict[str, Any]:
        memory_id = await self._id(caller, uid)
        try:
            changed = await self.memory.edit(caller.owner_id, memory_id, text, expected_version=version)
        except FactError as exc:
            raise Refusal("invalid", str(exc)) from None
        except ChangedSince as exc:
            raise _changed(exc) from None
        if changed is None:
            raise not_found("memory", uid)
        return {"memory": await self._one(caller, memory_id)}

    async def update(self, caller: Caller, uid: str, text: str, version: int | None = None) -> dict[str, Any]:
        memory_id = await self._id(caller, uid)
        try:
            out = await self.memory.update_fact(
                caller.owner_id, memory_id, text, expected_version=version, source=caller.source
            )
        except FactError as exc:
            raise Refusal("invalid", str(exc)) from None
        except ChangedSince as exc:
            raise _changed(exc) from None
        if out is None:
            raise not_found("memory", uid)
        new, old = out
        return {"memory": await self._one(caller, new.id), "previous": await self._one(caller, old.id)}

    async def past(self, caller: Caller, uid: str, version: int | None = None) -> dict[str, Any]:
        memory_id = await self._id(caller, uid)
        try:
            changed = await self.memory.mark_past(caller.owner_id, memory_id, expected_version=version)
        except ChangedSince as exc:
            raise _changed(exc) from None
        if changed is None:
            raise not_found("memory", uid)
        return {"memory": await self._one(caller, memory_id), "changed": not changed.note}

    async def restore(self, caller: Caller, uid: str, version: int | None = None) -> dict[str, Any]:
        memory_id = await self._id(caller, uid, include_deleted=True)
        try:
            changed = await self.memory.restore(caller.owner_id, memory_id, expected_version=version)
        except ChangedSince as exc:
            raise _changed(exc) from None
        if changed is None:
            raise not_found("memory", uid)
        return {"memory": await self._one(caller, memory_id), "changed": not changed.note}

    async def delete(self, caller: Caller, uid: str, version: int | None = None) -> dict[str, Any]:
        memory_id = await self._id(caller, uid)
        try:
            changed = await self.memory.delete(caller.owner_id, memory_id, expected_version=version)
        except ChangedSince as exc:
            raise _changed(exc) from None
        if changed is None:
            raise not_found("memory", uid)
        until = datetime.now(timezone.utc) + self.undo_window
        return {
            "memory": await self._one(caller, memory_id),
            "restorable_until": _iso(until),
            "note": "Deleted. Until then, POST /api/memories/{id}/restore (or /undo in the chat) brings it back; "
                    "after that its text is gone for good.",
        }

    # --- questions -------------------------------------------------------------------------------
    async def _question(self, caller: Caller, view: ConflictView) -> dict[str, Any] | None:
        if view.new is None:
            return None
        shown = {m.id: m for m in await self.memory.as_public(caller.owner_id, [view.new.id, *(o.id for o in view.olds)])}
        new = shown.get(view.new.uid)
        if new is None:
            return None
        return {
            "id": new.id,
            "status": view.status,
            "answer": CHOICE_NAMES.get(Choice(view.resolution)) if view.resolution in CHOICES.values() else None,
            "new": memory_json(new),
            "old": [memory_json(shown[o.uid]) for o in view.olds if o.uid in shown],
            "choices": list(CHOICES),
            # the answer the question recommends (as its buttons do), or None when unclear
            "recommended": CHOICE_NAMES.get(view.recommended) if view.recommended is not None else None,
        }

    async def questions(self, caller: Caller) -> dict[str, Any]:
        out = []
        for view in await self.memory.pending_conflicts(caller.owner_id):
            q = await self._question(caller, view)
            if q is not None:
                out.append(q)
        return {"questions": out}

    async def answer(self, caller: Caller, question_uid: str, choice: str) -> dict[str, Any]:
        picked = CHOICES.get(choice)
        if picked is None:
            raise Refusal("invalid", f"choice must be one of {', '.join(CHOICES)}.")
        memory_id = await self._id(caller, question_uid, include_deleted=True)
        conflict_id = await self.memory.question_of(caller.owner_id, memory_id)
        if conflict_id is None:
            raise not_found("question", question_uid)
        outcome = await self.memory.resolve(caller.owner_id, conflict_id, picked)
        if not isinstance(outcome, Settled):
            raise Refusal("conflict", outcome)
        view = await self.memory.conflict(caller.owner_id, conflict_id)
        question = await self._question(caller, view) if view is not None else None
        return {"question": question, "answer": choice}

    # --- backups ---------------------------------------------------------------------------------
    async def export(self, caller: Caller) -> dict[str, Any]:
        return await self.memory.export(caller.owner_id)

    async def import_(self, caller: Caller, raw: bytes) -> dict[str, Any]:
        try:
            report = await self.memory.import_bytes(caller.owner_id, raw)
        except ImportProblem as exc:
            raise Refusal("invalid", f"Nothing was imported: {exc}") from None
        return {
            "summary": report.summary(),
            "added": report.added,
            "updated": report.updated,
            "unchanged": report.unchanged,
            "kept_newer": report.kept_newer,
            "skipped_deleted": report.skipped_deleted,
            "deleted": report.deleted,
            "other_added": report.other_added,
        }

    # --- settings, accounts, forgetting ------------------------------------------------------------
    async def settings(self, caller: Caller) -> dict[str, Any]:
        prefs = await self.memory.prefs(caller.owner_id)
        return {name: bool(getattr(prefs, name)) for name in PREFS} | {
            "timezone": await self.memory.timezone_of(caller.owner_id)}

    async def change_settings(self, caller: Caller, wanted: dict[str, bool], timezone_name: str | None) -> dict[str, Any]:
        """Switch settings and set the time zone through the chat's own verbs (each an undoable
        action). A time zone that is not one is refused before anything is changed."""
        unknown = set(wanted) - set(PREFS)
        if unknown:
            raise Refusal("invalid", f"unknown setting {sorted(unknown)[0]!r}; settings are {', '.join(PREFS)}.")
        zone = None
        if timezone_name is not None and timezone_name.strip():
            zone = resolve_timezone(timezone_name.strip())
            if zone is None:
                raise Refusal("invalid", f"{json.dumps(timezone_name.strip()[:60])} is not a time zone; use a city or "
                                         "zone name like Europe/Paris, America/New_York or CET. Nothing was changed.")
        changed = []
        for name, value in wanted.items():
            if await self.memory.set_pref(caller.owner_id, name, value) is not None:
                changed.append(name)
        if zone is not None and await self.memory.set_timezone(caller.owner_id, zone) is not None:
            changed.append("timezone")
        return await self.settings(caller) | {"changed": changed}

    async def accounts(self, caller: Caller) -> dict[str, Any]:
        return {"accounts": [{"platform": p, "user_id": u, "name": n}
                             for p, u, n in await self.memory.identities(caller.owner_id)]}

    async def forget_everything(self, caller: Caller, typed: str) -> dict[str, Any]:
        """/forget_me from the page: everything held about the person, at once and for good,
        only after they typed the words. The same verb as the chat's confirmation button (API
        tokens are revoked and browser sessions end in its transaction); reminders are stopped."""
        if " ".join(typed.lower().split()) != FORGET_WORDS:
            raise Refusal("invalid", f"To delete everything, type “{FORGET_WORDS}” exactly. Nothing was deleted.")
        count = await self.memory.forget_everything(caller.owner_id)
        await self.reminders.forget_owner(caller.owner_id)
        return {"memories_deleted": count}

    # --- reminders -------------------------------------------------------------------------------
    @staticmethod
    def _reminder(r: Any) -> dict[str, Any]:
        rec = r.repeats
        return {
            "id": r.uid,
            "text": r.text,
            "due_at": _iso(r.due_at),
            "due_local": format_local(r.due_at, r.timezone),
            "timezone": r.timezone,
            "repeats": rec.describe() if rec else None,
            "state": r.state,
        }

    async def reminders_list(self, caller: Caller) -> dict[str, Any]:
        return {"reminders": [self._reminder(r) for r in await self.reminders.upcoming(caller.owner_id)]}

    async def add_reminder(self, caller: Caller, when: str, text: str) -> dict[str, Any]:
        """Set a reminder, read "when" in the person's time zone as the chat does. It is delivered
        to the person's own private chat on the platform of the credential."""
        chat = ChatRef(caller.platform, caller.user_id, caller.user_id)
        ok, message, reminder_id = await self.reminders.set_from_text(caller.owner_id, chat, when, text)
        if not ok or reminder_id is None:
            raise Refusal("invalid", message)
        view = await self.reminders.get(caller.owner_id, reminder_id)
        assert view is not None
        return {"reminder": self._reminder(view), "message": message}

    async def snooze_reminder(self, caller: Caller, uid: str, minutes: int) -> dict[str, Any]:
        """Remind again `minutes` from now. A one-off reminder moves (the original is cancelled);
        for a repeating one an extra reminder is set and the series stays as it is."""
        if not 1 <= minutes <= 7 * 24 * 60:
            raise Refusal("invalid", "minutes must be between 1 and 10080 (a week).")
        if not _UID.fullmatch(uid or ""):
            raise Refusal("invalid", f"{json.dumps(uid[:80])} is not a reminder id: {UID_HINT}.")
        view = await self.reminders.by_uid(caller.owner_id, uid)
        if view is None:
            raise not_found("reminder", uid)
        ok, message, new_id = await self.reminders.snooze(caller.owner_id, view.id, minutes)
        if not ok or new_id is None:
            raise Refusal("conflict", message)
        if view.repeats is None:
            await self.reminders.cancel(caller.owner_id, view.id)
        after = await self.reminders.get(caller.owner_id, new_id)
        assert after is not None
        return {"reminder": self._reminder(after), "message": message}

    async def cancel_reminder(self, caller: Caller, uid: str) -> dict[str, Any]:
        if not _UID.fullmatch(uid or ""):
            raise Refusal("invalid", f"{json.dumps(uid[:80])} is not a reminder id: {UID_HINT}.")
        view = await self.reminders.by_uid(caller.owner_id, uid)
        if view is None:
            raise not_found("reminder", uid)
        ok, message = await self.reminders.cancel(caller.owner_id, view.id)
        if not ok:
            raise Refusal("conflict", message)
        after = await self.reminders.get(caller.owner_id, view.id)
        return {"reminder": self._reminder(after or view), "message": message}


def _changed(exc: ChangedSince) -> Refusal:
    return Refusal(
        "conflict",
        f"That memory changed since you read it (it is now at version {exc.current_version}); nothing was "
        "changed. Read it again and retry.",
    )
