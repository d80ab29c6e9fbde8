"""Memory commands: what the core does for each parsed intent, as Outgoing messages.

Every answer about a person's memory is private in a group. A save is confirmed only after it
is committed, quoting the text as stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.core import commands as c
from bot.core import render
from bot.core.buttons import ButtonSpec
from bot.core.core import Core
from bot.core.replies import LIST_TITLES, _short, conflict_message, describe_save, numbered, reply
from bot.core.turn import Turn
from bot.events import Attachment, ChatRef, Incoming, Outgoing
from bot.memory import FactError, ImportProblem, JudgeFn, Which
from bot.storage.models import Source, utcnow
from bot.when.zones import resolve_timezone

# the AI judge for one person's saves, or None (no model, or the judge is not wanted)
JudgeFor = Callable[[int], JudgeFn | None]


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
    items = await core.memory.list(turn.owner_id, intent.which)
    out = [await numbered(core, turn, LIST_TITLES[intent.which], items)]
    if intent.which is Which.REVIEW:
        pending = await core.memory.pending_conflicts(turn.owner_id)
        if pending:
            rows = [
                [ButtonSpec(f"Ask again: {_short(p.new.text if p.new else '?')}", "ask_again", {"conflict_id": p.id}, single_use=False)]
                for p in pending[:10]
            ]
            buttons = await core.buttons.issue(turn.owner_id, rows)
            out.append(reply(turn, f"{len(pending)} question(s) are waiting for your answer.", buttons=buttons))
        elif not items:
            out = [reply(turn, "Nothing is waiting for review.")]
    return out


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
        minutes = max(1, core.settings.undo_window_seconds // 60)
        buttons = await core.buttons.issue(
            turn.owner_id,
            [[ButtonSpec("Undo", "undo", {"action_id": changed.action_id}, ttl=timedelta(seconds=core.settings.undo_window_seconds))]],
        )
        return [
            reply(
                turn,
                f"Deleted {render.quote(changed.memory.text)}. It is gone for good in {minutes} minutes; until then /undo brings it back.",
                buttons=buttons,
            )
        ]
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
    """/help and /start."""
    greeting = "Hello! " if intent.verb == "start" else ""
    return [Outgoing(greeting + render.HELP)]


async def on_undo(core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
    done = await core.memory.undo(turn.owner_id)
    out = [reply(turn, done.message)]
    if done.conflict_id is not None:
        question = await conflict_message(core, turn, done.conflict_id)
        if question is not None:
            out.append(question)
    return out


async def on_export(core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
    data = await core.memory.export_bytes(turn.owner_id)
    count = len(json.loads(data)["memories"])
    name = f"memories-{utcnow().strftime('%Y%m%d-%H%M%S')}.json"
    return [
        reply(
            turn,
            f"Here is everything I hold about you ({count} memories). Keep it somewhere safe; /import restores it.",
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
            return [reply(turn, "Send the backup file together with /import (as its caption or message).")]
        now = self.clock()
        recent = self._recent.get(turn.owner_id, [])
        wait = import_wait(recent, now, self.per_hour)
        if wait is not None:
            minutes = max(1, -(-int(wait.total_seconds()) // 60))
            return [reply(turn, f"Nothing was imported: that is {self.per_hour} imports within an hour, the "
                                f"most I take. Please try again in {minutes} minute{'s' if minutes != 1 else ''}.")]
        try:
            report = await core.memory.import_bytes(turn.owner_id, files[0].data, via=importer_chat(turn))
        except ImportProblem as exc:  # refused before anything was written: not counted
            return [reply(turn, f"Nothing was imported. {exc}")]
        except BaseException:
            self._recent[turn.owner_id] = [t for t in recent if now - t < IMPORT_WINDOW] + [now]
            raise
        self._recent[turn.owner_id] = [t for t in recent if now - t < IMPORT_WINDOW] + [now]
        return [reply(turn, report.summary())]


async def on_forget_me(core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
    buttons = await core.buttons.issue(
        turn.owner_id,
        [[
            ButtonSpec("Yes, delete everything", "forget_me", {"confirm": True}, ttl=timedelta(minutes=10)),
            ButtonSpec("Cancel", "forget_me", {"confirm": False}, ttl=timedelta(minutes=10)),
        ]],
    )
    count = await core.memory.count(turn.owner_id)
    return [
        reply(
            turn,
            f"This deletes everything I hold about you — {count} memories, their history, reminders and our "
            "conversation log — at once and for good. Are you sure?",
            buttons=buttons,
        )
    ]


async def on_timezone(core: Core, turn: Turn, intent: c.Timezone, msg: Incoming) -> list[Outgoing]:
    if intent.zone is None:
        tz = await core.memory.timezone_of(turn.owner_id)
        return [reply(turn, f"Your time zone is {tz}. Change it with {c.USAGE['timezone']}.")]
    zone = resolve_timezone(intent.zone)
    if zone is None:
        return [reply(turn, f"I don't know the time zone {render.quote(intent.zone, 60)}. Use a name like Europe/Paris or America/New_York.")]
    await core.memory.set_timezone(turn.owner_id, zone)
    return [reply(turn, f"Your time zone is now {zone}.")]


SETTING_LABELS = {
    "conflict_review": "review — ask before a new fact replaces an old one",
    "ai_judge": "judge — let the AI model decide clear replacements (needs a model)",
    "extraction_notice": "notices — tell me when I note a fact from our chat",
    "recheck": "recheck — now and then ask whether old facts are still true",
}


async def on_settings(core: Core, turn: Turn, intent: c.SettingsCmd, msg: Incoming) -> list[Outgoing]:
    if intent.name is not None and intent.value is not None:
        await core.memory.set_pref(turn.owner_id, intent.name, intent.value)
    prefs = await core.memory.prefs(turn.owner_id)
    lines = ["Your settings:"]
    for name, label in SETTING_LABELS.items():
        lines.append(f"• {label}: {'on' if getattr(prefs, name) else 'off'}")
    lines.append(f"• time zone: {prefs.timezone or core.settings.default_timezone}")
    lines.append(f"Change one with {c.USAGE['settings']}.")
    return [reply(turn, "\n".join(lines))]


async def on_malformed(core: Core, turn: Turn, intent: c.Malformed, msg: Incoming) -> list[Outgoing]:
    return [Outgoing(intent.message, private=turn.is_group)]


async def on_unknown(core: Core, turn: Turn, intent: c.Unknown, msg: Incoming) -> list[Outgoing]:
    name = intent.name.lstrip("/")[:40]
    return [Outgoing(f"I don't know the command /{name}. Type /help to see what I can do.")]
