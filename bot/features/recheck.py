"""The gentle re-check: now and then, ask whether an old single-value fact is still true.

Off by default. A person gets re-checks when their `recheck` preference is on (/settings
recheck on); the preference's default is ``settings.recheck_enabled``, so an operator can turn
it on for everyone and each person can still turn it off (or on) for themselves.

Rules (pure, table-tested):
* only single-value facts where a change would matter: residence, job, car, relationship;
  current, not archived, not under a pending conflict question, with a value the text names;
* not confirmed (Memory.confirmed_at, else created_at) for ``settings.recheck_after_days``;
* the one confirmed longest ago is asked; at most one question a week per person
  (Owner.last_recheck_at, taken with one conditional UPDATE so two processes cannot both ask).

The question goes to the chat where the person last talked (the last MessageLog row on a
platform this process can send to; else their identity's private chat), privately, with Yes /
Changed buttons. Yes confirms the fact (confirmed_at, and it counts as a use); Changed makes it
unsure and asks what changed ("Tell me with remember: ...").
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, select

from bot.core import render
from bot.config import Settings
from bot.events import ButtonPress, ChatRef, Outgoing
from bot.core.buttons import ButtonSpec, Claim
from bot.storage.db import Database
from bot.storage.models import Conflict, EventKind, Identity, Memory, MessageLog, Owner, Status, utcnow
from bot.memory import MemoryService, words_seen, written_span
from bot.memory.rules.slots import detect_slot, slot_value
from bot.memory.store import MemoryView, get_memory, log_event, mref, new_action, snapshot, touch
from bot.core.core import Core
from bot.core.turn import Turn
from scheduler.delivery import sendable_here

log = logging.getLogger(__name__)

RECHECK_SLOTS = ("residence", "job", "car", "relationship")
RECHECK_GAP = timedelta(days=7)
PRESS_ACTION = "recheck"
SEND_TIMEOUT_SECONDS = 60.0
_PARTNERS = frozenset(
    {"girlfriend", "boyfriend", "wife", "husband", "partner", "fiance", "fiancee", "fiancé", "fiancée", "spouse"}
)
_STATUSES = frozenset({"single", "married", "engaged", "divorced", "widowed", "separated"})
# Values that name the topic, not a value ("I quit my job" -> "job"): nothing to ask about.
_GENERIC_VALUES = frozenset(
    {"job", "work", "career", "car", "vehicle", "home", "house", "place", "city", "town", "country"}
)
# A fact that is itself about an ending, an absence or a search is not asked as "Still ...?".
_NOT_A_STATE = re.compile(
    r"\b(?:not|no longer|never|anymore|any more|used to|quit|lost|left|looking for|searching for|"
    r"broke up|without)\b|n['’]t\b",
    re.I,
)


# --- pure rules ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    id: int
    text: str
    slot: str
    value: str
    stamp: datetime  # confirmed_at, else created_at


def wants_recheck(settings_json: str | None, default: bool) -> bool:
    """The person's effective `recheck` preference."""
    try:
        stored = json.loads(settings_json or "{}")
    except ValueError:
        stored = {}
    value = stored.get("recheck") if isinstance(stored, dict) else None
    return bool(value) if value is not None else default


def recheck_due(last_recheck_at: datetime | None, now: datetime, gap: timedelta = RECHECK_GAP) -> bool:
    return last_recheck_at is None or now - last_recheck_at >= gap


def candidate_of(memory_id: int, text: str, slot: str | None, confirmed_at: datetime | None, created_at: datetime) -> Candidate | None:
    """A memory as a re-check candidate, or None when it is not a single-value fact that names
    its value (only what can be asked as "Still ...?" is asked)."""
    slot = slot or detect_slot(text)
    if slot not in RECHECK_SLOTS or _NOT_A_STATE.search(text):
        return None
    value = slot_value(text, slot)
    if not value or value.lower() in _GENERIC_VALUES:
        return None
    if slot == "relationship" and value.lower() not in _PARTNERS | _STATUSES:
        return None
    return Candidate(memory_id, text, slot, value, confirmed_at or created_at)


def pick(candidates: Sequence[Candidate], now: datetime, after_days: int) -> Candidate | None:
    """The fact confirmed longest ago, if it is older than `after_days`; else None."""
    old = [c for c in candidates if now - c.stamp >= timedelta(days=after_days)]
    if not old:
        return None
    return min(old, key=lambda c: (c.stamp, c.id))


def _as_written(text: str, value: str) -> str:
    """The value with the person's own capitals and accents ("lisbon" -> "Lisbon" from "I live in
    Lisbon", "sao paulo" -> "São Paulo")."""
    found = written_span(text, re.escape(value.lower()).replace(r"\ ", r"[\s\-]+"))
    if found is not None:
        return found
    return value.title() if value.islower() else value


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def question(c: Candidate) -> str:
    """The light question for one fact, e.g. "Still living in Lisbon?"."""
    v = _as_written(c.text, c.value)
    if c.slot == "residence":
        return f"Still living in {v}?"
    if c.slot == "car":
        return f"Still driving your {v}?"
    if c.slot == "job":
        if written_span(c.text, r"\b(?:at|for)\s+" + re.escape(c.value.lower())) is not None:
            return f"Still working at {v}?"
        return f"Still working as {_article(v)} {v}?"
    if c.slot == "relationship" and c.value.lower() in _PARTNERS:
        return f"Still with your {v}?"
    if c.slot == "relationship":
        return f"Still {v}?"
    return f"Is this still true: {render.quote(c.text)}?"  # pragma: no cover - slots are listed


_EXAMPLES = {
    "residence": "remember: I now live in …",
    "job": "remember: I now work as …",
    "car": "remember: I now drive …",
    "relationship": "remember: I am now …",
}


def changed_prompt(slot: str | None) -> str:
    """What to say after "Changed": how to tell the new fact."""
    example = _EXAMPLES.get(slot or "", "remember: …")
    return f"What is true now? Tell me with remember: …, for example “{example}”."


def question_text(c: Candidate) -> str:
    return (
        f"🔎 Quick check: {question(c)}\n"
        f"(I have {render.quote(c.text, 300)} from {c.stamp:%B %Y}. Tell me if it has changed.)"
    )


# --- storage (session-level, blocking) -----------------------------------------------------


def _questioned(s: Session, owner_id: int) -> set[int]:
    ids: set[int] = set()
    for c in s.exec(select(Conflict).where(Conflict.owner_id == owner_id, Conflict.status == "pending")):
        ids.add(c.new_memory_id)
        ids.update(int(i) for i in json.loads(c.old_ids_json))
    return ids


def candidates(s: Session, owner_id: int) -> list[Candidate]:
    rows = s.exec(
        select(Memory).where(
            Memory.owner_id == owner_id,
            Memory.deleted_at.is_(None),  # type: ignore[union-attr]
            Memory.archived == False,  # noqa: E712
            Memory.status == Status.CURRENT.value,
        )
    ).all()
    asked = _questioned(s, owner_id)
    out = []
    for m in rows:
        if m.id is None or m.id in asked:
            continue
        c = candidate_of(m.id, m.text, m.slot, m.confirmed_at, m.created_at)
        if c is not None:
            out.append(c)
    return out


def owners_to_ask(s: Session, default: bool, now: datetime, gap: timedelta) -> list[int]:
    rows = s.exec(select(Owner.id, Owner.settings_json, Owner.last_recheck_at)).all()
    return sorted(
        int(oid) for oid, prefs, last in rows if wants_recheck(prefs, default) and recheck_due(last, now, gap)
    )


def claim_week(s: Session, owner_id: int, now: datetime, gap: timedelta) -> bool:
    """Take this week's question for the person: one conditional UPDATE."""
    done = s.execute(
        update(Owner)
        .where(
            Owner.id == owner_id,  # type: ignore[arg-type]
            (Owner.last_recheck_at.is_(None)) | (Owner.last_recheck_at <= now - gap),  # type: ignore[union-attr,operator]
        )
        .values(last_recheck_at=now)
    ).rowcount
    return done == 1


def unclaim_week(s: Session, owner_id: int, now: datetime, previous: datetime | None) -> None:
    """Give the week back after a failed send (only if nobody asked since)."""
    s.execute(
        update(Owner).where(Owner.id == owner_id, Owner.last_recheck_at == now).values(last_recheck_at=previous)  # type: ignore[arg-type]
    )


def last_recheck(s: Session, owner_id: int) -> datetime | None:
    owner = s.get(Owner, owner_id)
    return owner.last_recheck_at if owner is not None else None


def target_chat(s: Session, owner_id: int, platforms: set[str]) -> ChatRef | None:
    """Where the person last talked, on a platform we can send to; else an identity's private
    chat (console: ChatRef("console", user, user))."""
    idents = {i.platform: i.user_id for i in s.exec(select(Identity).where(Identity.owner_id == owner_id))}
    last = s.exec(
        select(MessageLog)
        .where(MessageLog.owner_id == owner_id, MessageLog.platform.in_(sorted(platforms)))  # type: ignore[attr-defined]
        .order_by(MessageLog.created_at.desc(), MessageLog.id.desc())  # type: ignore[attr-defined,union-attr]
    ).first()
    if last is not None and last.platform in idents:
        return ChatRef(last.platform, last.chat_id, idents[last.platform])
    for platform in sorted(platforms):
        if platform in idents:
            user = idents[platform]
            return ChatRef(platform, user, user)
    return None


def confirm(s: Session, owner_id: int, memory_id: int, now: datetime) -> MemoryView | None:
    """Yes, still true: confirmed now, and it counts as a use. The memory's version does not
    move (nothing about the fact changed), so an earlier change of it can still be undone."""
    m = get_memory(s, owner_id, memory_id)
    if m is None:
        return None
    before = snapshot(m)
    # a plain UPDATE: counters and stamps, not a change of the fact (no version step)
    s.execute(
        update(Memory)
        .where(Memory.id == memory_id, Memory.owner_id == owner_id)  # type: ignore[arg-type]
        .values(confirmed_at=now, last_used_at=now, uses=Memory.uses + 1)
    )
    s.refresh(m)
    log_event(s, None, m, EventKind.CONFIRMED, before, note="still true (re-check)")
    return MemoryView.of(m)


def mark_changed(s: Session, owner_id: int, memory_id: int) -> tuple[MemoryView, bool] | None:
    """It changed: the memory becomes unsure (possibly outdated) until the person says what is
    true now. (view, changed now?)"""
    m = get_memory(s, owner_id, memory_id)
    if m is None:
        return None
    if m.status != Status.CURRENT.value:
        return MemoryView.of(m), False
    before = snapshot(m)
    m.status = Status.UNSURE.value
    touch(m)
    s.add(m)
    action = new_action(s, owner_id, "recheck", f"marking {mref(m.id)} as possibly outdated")
    log_event(s, action, m, EventKind.MARKED_UNSURE, before, note="changed (re-check)")
    return MemoryView.of(m), True


# --- the job -------------------------------------------------------------------------------


class Rechecker:
    def __init__(
        self,
        core: Any,
        memory: MemoryService,
        db: Database,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.core = core
        self.memory = memory
        self.db = db
        self.settings = settings
        self.clock = clock

    async def run(self) -> int:
        """Ask everyone who is due and opted in; returns how many were asked."""
        now = self.clock()
        owners: list[int] = await self._tx(owners_to_ask, self.settings.recheck_enabled, now, RECHECK_GAP)
        asked = 0
        for owner_id in owners:
            if await self.ask(owner_id):
                asked += 1
        return asked

    async def ask(self, owner_id: int) -> bool:
        """Ask one person one question if one is due; True if it was sent."""
        now = self.clock()
        found = await self._tx(candidates, owner_id)
        chosen = pick(found, now, self.settings.recheck_after_days)
        if chosen is None:
            return False
        platforms = set(self.core.outbox.senders)
        chat = await self._tx(target_chat, owner_id, platforms)
        if chat is None or not sendable_here(True, chat, self.settings.console_user):
            return False
        previous = await self._tx(last_recheck, owner_id)
        if not await self._tx(claim_week, owner_id, now, RECHECK_GAP):
            return False
        try:
            buttons = await self.core.buttons.issue(
                owner_id,
                [[
                    ButtonSpec("Yes", PRESS_ACTION, {"op": "yes", "id": chosen.id, "seen": words_seen(chosen.text)},
                               detail=f"Yes, {render.quote(chosen.text, 60)} is still true"),
                    ButtonSpec("Changed", PRESS_ACTION, {"op": "changed", "id": chosen.id, "seen": words_seen(chosen.text)},
                               detail=f"{render.quote(chosen.text, 60)} has changed"),
                ]],
            )
            out = Outgoing(text=question_text(chosen), buttons=buttons, private=True)
            await asyncio.wait_for(self.core.outbox.send(chat, out), timeout=SEND_TIMEOUT_SECONDS)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("re-check question for owner %s could not be sent; will try again later", owner_id)
            await self._tx(unclaim_week, owner_id, now, previous)
            return False
        return True

    async def _tx(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.db.tx(fn, *args)

    async def on_press(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        op = claim.payload.get("op")
        mid = claim.payload.get("id")
        if op not in ("yes", "changed") or not isinstance(mid, int):
            return [Outgoing(notice="This button is not valid (any more).")]


        def edit(text: str, notice: str) -> Outgoing:
            return Outgoing(text=text, edit_of=press.message_id, private=True, notice=notice)

        seen = claim.payload.get("seen")
        if isinstance(seen, str):  # the answer is about the words that were shown
            now = await self.memory.get(turn.owner_id, mid)
            if now is not None and words_seen(now.text) != seen:
                return [edit(f"That memory changed since I asked: it now reads {render.quote(now.text)}. "
                             "Nothing was recorded.", "Changed since — nothing recorded.")]

        if op == "yes":
            view = await self._tx(confirm, turn.owner_id, mid, self.clock())
            if view is None:
                return [Outgoing(notice="That memory no longer exists.")]
            return [edit(f"Thanks — noted that {render.quote(view.text)} is still true.", "Confirmed.")]
        out = await self._tx(mark_changed, turn.owner_id, mid)
        if out is None:
            return [Outgoing(notice="That memory no longer exists.")]
        view, changed = out
        self.memory.forget_cached(turn.owner_id)
        lead = (
            f"Thanks — I've marked {render.quote(view.text)} as possibly outdated."
            if changed
            else f"{render.quote(view.text)} is already marked as {view.status}."
        )
        return [edit(f"{lead}\n{changed_prompt(view.slot or detect_slot(view.text))}", "Noted.")]
