"""Memory commands: what the core does for each parsed intent, as Outgoing messages.

Every answer about a person's memory is private in a group. A save is confirmed only after it
is committed, quoting the text as stored.
"""

from __future__ import annotations

import json
from dataclasses import replace
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot.core import commands as c
from bot.core import render
from bot.core.buttons import ButtonSpec
from bot.core.core import Core
from bot.core.replies import LIST_TITLES, conflict_message, describe_save, forget_me_question, numbered, reply
from bot.core.turn import Turn
from bot.events import Attachment, ChatRef, Incoming, Outgoing
from bot.memory import FactError, ImportProblem, JudgeFn, Undone, Which, words_seen
from bot.storage.models import Source, utcnow
from bot.when.zones import resolve_timezone

# the AI judge for one person's saves, or None (no model, or the judge is not wanted)
JudgeFor = Callable[[int], JudgeFn | None]
# after an undo: the reminder feature sets the timers of reminders it scheduled again
AfterUndo = Callable[[int, Undone], Awaitable[None]]


def no_judge(owner_id: int) -> JudgeFn | None:
    return None


# --- saving ----------------------------------------------------------------------------------


class SaveCommand:
    """remember: / save: / note: ... — through the AI judge when the person has it on."""

    def __init__(self, judge_for: JudgeFor = no_judge) -> None:
        self.judge_for = judge_for

    async def on_save(self, core: Core, turn: Turn, intent: c.Save, msg: Incoming) -> list[Outgoing]:
        try:
            result = await core.memory.remember(
                turn.owner_id,
                intent.text,
                source=Source.COMMAND.value,
                source_ref=msg.message_id,
                judge=self.judge_for(turn.owner_id),
            )
        except FactError as exc:
            return [reply(turn, str(exc))]
        return [await describe_save(core, turn, result)]


# --- lists -----------------------------------------------------------------------------------


async def on_list(core: Core, turn: Turn, intent: c.ListMemories, msg: Incoming) -> list[Outgoing]:
    if intent.which is Which.REVIEW:
        return [await review_message(core, turn)]
    items = await core.memory.list(turn.owner_id, intent.which)
    return [await numbered(core, turn, LIST_TITLES[intent.which], items)]


REVIEW_MAX = 10  # one message, one button per item (Telegram and Discord limit a message's buttons)


async def review_message(core: Core, turn: Turn) -> Outgoing:
    """/memories review: the possibly outdated memories, numbered, each with one button of the
    same number (the question about it again, or "still current" when no question holds it).
    One numbering for the list and its buttons, so "2" always means item 2."""
    unsure = await core.memory.list(turn.owner_id, Which.REVIEW)
    pending = await core.memory.pending_conflicts(turn.owner_id)
    question_of: dict[int, object] = {}
    for p in pending:
        for old in p.olds:
            question_of.setdefault(old.id, p)
    asked = {id(q) for q in question_of.values()}
    extra = [p for p in pending if id(p) not in asked and p.new is not None]  # a question with no unsure fact left
    if not unsure and not extra:
        return reply(turn, "Nothing is waiting for review.")
    lines: list[str] = []
    rows: list[list[ButtonSpec]] = []
    ids: list[int] = []
    for m in unsure:
        if len(ids) >= REVIEW_MAX:
            break
        n = len(ids) + 1
        ids.append(m.id)
        q = question_of.get(m.id)
        if q is not None and getattr(q, "new", None) is not None:
            lines.append(f"{n}. {m.text} — may be replaced by {render.quote(q.new.text, 120)}")  # type: ignore[attr-defined]
            rows.append([ButtonSpec(f"Ask about {n}", "ask_again", {"conflict_id": q.id}, single_use=False,  # type: ignore[attr-defined]
                                    detail=f"Ask again whether {render.quote(q.new.text, 60)} replaces {render.quote(m.text, 60)}")])  # type: ignore[attr-defined]
        else:
            lines.append(f"{n}. {m.text} — possibly outdated")
            rows.append([ButtonSpec(f"Still current {n}", "still_current", {"memory_id": m.id, "seen": words_seen(m.text)},
                                    detail=f"{render.quote(m.text, 60)} is still current")])
    for p in extra:
        if len(ids) >= REVIEW_MAX or p.new is None:
            break
        n = len(ids) + 1
        ids.append(p.new.id)
        lines.append(f"{n}. {p.new.text} — may replace an older fact")
        rows.append([ButtonSpec(f"Ask about {n}", "ask_again", {"conflict_id": p.id}, single_use=False,
                                detail=f"Ask again whether {render.quote(p.new.text, 60)} replaces an older fact")])
    await core.memory.set_numbers(turn.owner_id, ids)
    total = len(unsure) + len(extra)
    head = f"Waiting for your answer ({total}):"
    tail = "Each number's button asks about that item again." if total <= REVIEW_MAX else (
        f"Showing the first {REVIEW_MAX}; answer these and ask again for the rest.")
    buttons = await core.buttons.issue(turn.owner_id, rows)
    return reply(turn, "\n".join([head, *lines, tail]), buttons=buttons)


async def on_search(core: Core, turn: Turn, intent: c.Search, msg: Incoming) -> list[Outgoing]:
    found = await core.memory.search(turn.owner_id, intent.query, limit=20)
    if not found:
        return [reply(turn, f"Nothing in your memories matches {render.quote(intent.query, 80)}.")]
    return [await numbered(core, turn, f"Matches for {render.quote(intent.query, 80)}", found)]


# --- one memory by number --------------------------------------------------------------------


async def _resolve_number(core: Core, turn: Turn, number: int) -> int | None:
    return await core.memory.number_to_id(turn.owner_id, number)


def _no_such_number(number: int) -> str:
    return f"There is no memory number {number} in your last list. Show the list with /memories and use its numbers."


async def on_by_number(core: Core, turn: Turn, intent: c.ByNumber, msg: Incoming) -> list[Outgoing]:
    memory_id = await _resolve_number(core, turn, intent.number)
    if memory_id is None:
        return [reply(turn, _no_such_number(intent.number))]
    if intent.verb == "history":
        h = await core.memory.history(turn.owner_id, memory_id)
        if h is None:
            return [reply(turn, "That memory no longer exists.")]
        tz = await core.memory.timezone_of(turn.owner_id)
        return [reply(turn, render.history_text(h, tz))]
    if intent.verb == "forget":
        changed = await core.memory.delete(turn.owner_id, memory_id)
        if changed is None:
            return [reply(turn, "That memory no longer exists.")]
        window = core.settings.undo_window_seconds
        quoted = render.quote(changed.memory.text)
        buttons = await core.buttons.issue(
            turn.owner_id,
            [[ButtonSpec("Undo", "undo", {"action_id": changed.action_id}, ttl=timedelta(seconds=window),
                         detail=f"Undo deleting {render.quote(changed.memory.text, 60)}")]],
        )
        return [reply(turn, f"Deleted {quoted}. {render.erased_after(window)} (within a minute after that).", buttons=buttons)]
    if intent.verb == "past":
        changed = await core.memory.mark_past(turn.owner_id, memory_id)
        if changed is None:
            return [reply(turn, "That memory no longer exists.")]
        if changed.note:
            return [reply(turn, f"{render.quote(changed.memory.text)} is already marked as past.")]
        return [reply(turn, f"Marked as past (kept in your history): {render.quote(changed.memory.text)}")]
    # restore
    changed = await core.memory.restore(turn.owner_id, memory_id)
    if changed is None:
        return [reply(turn, "That memory no longer exists.")]
    if changed.note:
        return [reply(turn, f"{render.quote(changed.memory.text)} is already current.")]
    return [reply(turn, f"Restored as current: {render.quote(changed.memory.text)}")]


async def on_rewrite(core: Core, turn: Turn, intent: c.Rewrite, msg: Incoming) -> list[Outgoing]:
    memory_id = await _resolve_number(core, turn, intent.number)
    if memory_id is None:
        return [reply(turn, _no_such_number(intent.number))]
    try:
        if intent.verb == "edit":
            changed = await core.memory.edit(turn.owner_id, memory_id, intent.text)
            if changed is None:
                return [reply(turn, "That memory no longer exists.")]
            return [reply(turn, f"Corrected: {render.quote(changed.memory.text, 1000)}")]
        out = await core.memory.update_fact(turn.owner_id, memory_id, intent.text)
    except FactError as exc:
        return [reply(turn, str(exc))]
    if out is None:
        return [reply(turn, "That memory no longer exists.")]
    new, old = out
    return [reply(turn, f"Updated: {render.quote(new.text, 1000)} is current; {render.quote(old.text)} is kept as history.")]


# --- simple commands -------------------------------------------------------------------------


async def on_help(core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
    """/help: the reference (/start greets instead: bot/features/welcome.py)."""
    return [Outgoing(render.help_text(turn.platform))]


class UndoCommand:
    """/undo: the person's own last change of any kind, newest first (bot/memory/writing/undo.py).
    `after_undo` lets the reminder feature set timers for reminders it brought back."""

    def __init__(self, after_undo: AfterUndo | None = None) -> None:
        self.after_undo = after_undo

    async def on_undo(self, core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
        done = await core.memory.undo(turn.owner_id)
        if done.ok and self.after_undo is not None:
            await self.after_undo(turn.owner_id, done)
        out = [reply(turn, done.message)]
        if done.conflict_id is not None:
            # the message the question was answered in, when it was answered here: it is edited
            # back into the live question rather than left looking settled above a new copy
            where = await core.memory.shown_at(turn.owner_id, done.conflict_id)
            question = await conflict_message(core, turn, done.conflict_id)
            if question is not None:
                if where is not None and where[:2] == (turn.platform, turn.chat.chat_id):
                    await core.memory.record_shown(turn.owner_id, done.conflict_id, *where)
                    question = replace(question, edit_of=where[2])
                    out[0] = reply(turn, done.message + " The question is open again where you answered it.")
                out.append(question)
        return out


async def on_export(core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
    data = await core.memory.export_bytes(turn.owner_id)
    count = len(json.loads(data)["memories"])
    name = f"memories-{utcnow().strftime('%Y%m%d-%H%M%S')}.json"
    return [
        reply(
            turn,
            f"Here is everything I hold about you ({render.count(count, 'memory', 'memories')}). Keep it somewhere safe; /import restores it.",
            file=Attachment(name, data, "application/json"),
        )
    ]


IMPORT_WINDOW = timedelta(hours=1)


def import_wait(recent: list[datetime], now: datetime, limit: int,
                window: timedelta = IMPORT_WINDOW) -> timedelta | None:
    """How long a person must wait before their next import, or None if they may import now:
    at most `limit` imports in any `window` (each one is a large write everyone's storage
    shares)."""
    inside = sorted(t for t in recent if now - t < window)
    if len(inside) < limit:
        return None
    return inside[-limit] + window - now


def importer_chat(turn: Turn) -> ChatRef:
    """The importer's private chat on the platform the import came through: where imported
    reminders go. In a group that is the person's own chat (on Telegram and Discord the adapter
    reaches it from the user id), never the group."""
    if turn.is_group:
        return ChatRef(turn.platform, turn.user_id, turn.user_id)
    return ChatRef(turn.platform, turn.chat.chat_id, turn.user_id)


class ImportCommand:
    """/import with a backup file, rate limited per person (settings.imports_per_hour)."""

    def __init__(self, per_hour: int, clock: Callable[[], datetime] = utcnow) -> None:
        self.per_hour = per_hour
        self.clock = clock
        self._recent: dict[int, list[datetime]] = {}

    async def on_import(self, core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
        files = [a for a in msg.attachments if a.data]
        if not files:
            if turn.platform == "console":  # a terminal cannot attach a file to a line
                return [reply(turn, "In the terminal, restore a backup from your shell: "
                                    "python -m bot import FILE (it keeps what you changed after the backup).")]
            return [reply(turn, "Send the backup file together with /import (as its caption or message).")]
        return [reply(turn, await self.run(core, turn, files[0].data))]

    async def run(self, core: Core, turn: Turn, data: bytes) -> str:
        """Import `data` for the person (rate limited); the words that say what happened."""
        now = self.clock()
        recent = self._recent.get(turn.owner_id, [])
        wait = import_wait(recent, now, self.per_hour)
        if wait is not None:
            minutes = max(1, -(-int(wait.total_seconds()) // 60))
            return (f"Nothing was imported: that is {self.per_hour} imports within an hour, the "
                    f"most I take. Please try again in {minutes} minute{'s' if minutes != 1 else ''}.")
        try:
            report = await core.memory.import_bytes(turn.owner_id, data, via=importer_chat(turn))
        except ImportProblem as exc:  # refused before anything was written: not counted
            return f"Nothing was imported. {exc}"
        except BaseException:
            self._recent[turn.owner_id] = [t for t in recent if now - t < IMPORT_WINDOW] + [now]
            raise
        self._recent[turn.owner_id] = [t for t in recent if now - t < IMPORT_WINDOW] + [now]
        return report.summary()


async def on_forget_me(core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
    return [await forget_me_question(core, turn)]


async def on_timezone(core: Core, turn: Turn, intent: c.Timezone, msg: Incoming) -> list[Outgoing]:
    if intent.zone is None:
        tz = await core.memory.timezone_of(turn.owner_id)
        return [reply(turn, f"Your time zone is {tz}. Change it with {c.USAGE['timezone']}.")]
    zone = resolve_timezone(intent.zone)
    if zone is None:
        return [reply(turn, f"I can't use {render.quote(intent.zone, 60)} as a time zone. Use a city or zone name like Europe/Paris, America/New_York or CET.")]
    action_id = await core.memory.set_timezone(turn.owner_id, zone)
    if action_id is None:
        return [reply(turn, f"Your time zone is already {zone}.")]
    buttons = await core.buttons.issue(
        turn.owner_id, [[ButtonSpec("Undo", "undo", {"action_id": action_id}, detail=f"Undo setting your time zone to {zone}")]]
    )
    return [reply(turn, f"Your time zone is now {zone}.", buttons=buttons)]


# (what it does when on, what "off" means): a label must never read like the opposite of what it
# does (review off once read like "replace without asking"; it means "save without checking")
SETTING_LABELS = {
    "conflict_review": (
        "review — check each new fact against what I know and ask before one replaces another",
        "off: new facts are saved without any check, so contradicting facts can both stay current",
    ),
    "ai_judge": (
        "judge — let the AI model settle clear replacements itself, with Undo (needs a model)",
        "off: I ask you",
    ),
    "extraction_notice": ("notices — tell me when I note a fact from our chat", "off: I note it quietly"),
    "recheck": ("recheck — now and then ask whether old facts are still true", "off: I never ask"),
}


def settings_text(prefs: object, default_timezone: str) -> str:
    lines = ["Your settings:"]
    for name, (label, off) in SETTING_LABELS.items():
        on = bool(getattr(prefs, name))
        lines.append(f"• {label}: {'on' if on else 'OFF (' + off.removeprefix('off: ') + ')'}")
    lines.append(f"• time zone: {getattr(prefs, 'timezone', None) or default_timezone}")
    lines.append(f"Change one with {c.USAGE['settings']}.")
    return "\n".join(lines)


async def on_settings(core: Core, turn: Turn, intent: c.SettingsCmd, msg: Incoming) -> list[Outgoing]:
    lead = ""
    buttons: tuple = ()
    if intent.name is not None and intent.value is not None:
        action_id = await core.memory.set_pref(turn.owner_id, intent.name, intent.value)
        label, off = SETTING_LABELS[intent.name]
        name = label.split(" — ")[0]
        if action_id is None:
            lead = f"{name} was already {'on' if intent.value else 'off'}.\n\n"
        else:
            lead = f"Turned {name} {'on' if intent.value else 'off'}" + ("." if intent.value else f" ({off.removeprefix('off: ')}).") + "\n\n"
            buttons = await core.buttons.issue(
                turn.owner_id, [[ButtonSpec("Undo", "undo", {"action_id": action_id}, detail=f"Undo turning {name} {'on' if intent.value else 'off'}")]]
            )
    prefs = await core.memory.prefs(turn.owner_id)
    return [reply(turn, lead + settings_text(prefs, core.settings.default_timezone), buttons=buttons)]


class NumberReply:
    """A bare number. In the terminal it pressed nothing (buttons are pressed only right after
    the message that shows them), so say so instead of chatting about "2"; elsewhere it is chat."""

    def __init__(self, chat: Callable[..., Awaitable[list[Outgoing]]]) -> None:
        self.chat = chat

    async def on_number(self, core: Core, turn: Turn, intent: c.BareNumber, msg: Incoming) -> list[Outgoing]:
        if turn.platform != "console":
            return await self.chat(core, turn, c.Chat(intent.text), msg)
        return [Outgoing(
            f"“{intent.number}” on its own presses nothing: a number presses a button of my latest "
            "message, and only while nothing else has come since. Nothing was changed. (To answer an "
            "older question, show it again: /memories review, /reminders or the command again.)"
        )]


async def on_malformed(core: Core, turn: Turn, intent: c.Malformed, msg: Incoming) -> list[Outgoing]:
    return [Outgoing(intent.message, private=turn.is_group)]


async def on_unknown(core: Core, turn: Turn, intent: c.Unknown, msg: Incoming) -> list[Outgoing]:
    name = intent.name.lstrip("/")[:40]
    return [Outgoing(f"I don't know the command /{name}. Type /help to see what I can do.")]
