"""Memory commands: what the core does for each parsed intent, as Outgoing messages.

Every answer about a person's memory is private in a group. A save is confirmed only after it
is committed, quoting the text as stored.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import TYPE_CHECKING

from bot import commands as c
from bot import render
from bot.events import Attachment, Incoming, Outgoing
from bot.memory.buttons import ButtonSpec
from bot.memory.listing import Which
from bot.memory.models import Source, utcnow
from bot.memory.saving import FactError, RememberResult
from bot.memory.settle import CHOICE_LABELS, Choice
from bot.memory.store import MemoryView
from bot.memory.transfer import ImportProblem

from bot.core import DEFAULT_PAGING

if TYPE_CHECKING:
    from bot.core import Core, Turn

LIST_TITLES = {
    Which.ALL: "Your memories",
    Which.CURRENT: "Current memories",
    Which.HISTORICAL: "Historical memories",
    Which.REVIEW: "Possibly outdated memories",
    Which.ARCHIVED: "Archived memories",
}


def install(core: "Core") -> None:
    core.intent_handlers.update(
        {
            c.Save: on_save,
            c.ListMemories: on_list,
            c.Search: on_search,
            c.ByNumber: on_by_number,
            c.Rewrite: on_rewrite,
            c.Simple: on_simple,
            c.Timezone: on_timezone,
            c.SettingsCmd: on_settings,
            c.Malformed: on_malformed,
            c.Unknown: on_unknown,
        }
    )


def reply(turn: "Turn", text: str, **kwargs: object) -> Outgoing:
    """An answer about the person's own data: private whenever the chat is a group."""
    return Outgoing(text=text, private=turn.is_group, **kwargs)  # type: ignore[arg-type]


# --- saving ----------------------------------------------------------------------------------


async def on_save(core: "Core", turn: "Turn", intent: c.Save, msg: Incoming) -> list[Outgoing]:
    try:
        result = await core.memory.remember(
            turn.owner_id,
            intent.text,
            source=Source.COMMAND.value,
            source_ref=msg.message_id,
            judge=core.services.get("judge_for", lambda _o: None)(turn.owner_id),
        )
    except FactError as exc:
        return [reply(turn, str(exc))]
    return [await describe_save(core, turn, result)]


async def describe_save(core: "Core", turn: "Turn", result: RememberResult, *, prefix: str = "Saved") -> Outgoing:
    """The confirmation of a save: the text as stored, what the judge retired (with Undo), or the
    conflict question with its four buttons."""
    if result.duplicate_of is not None:
        return reply(turn, render.duplicate(result.duplicate_of))
    assert result.memory is not None
    text = f"{prefix}: {render.quote(result.memory.text, 1000)}{render.dates_note(result.memory)}"
    if result.retired:
        olds = ", ".join(render.quote(o.text) for o in result.retired)
        text += f"\nI marked {olds} as past, since the new fact replaces it. You can undo that."
        buttons = await core.memory.issue_buttons(
            turn.owner_id, [[ButtonSpec("Undo", "undo", {"action_id": result.action_id})]]
        )
        if result.conflict_id is None:
            return reply(turn, text, buttons=buttons)
    if result.conflict_id is not None:
        question = await conflict_message(core, turn, result.conflict_id)
        if question is not None:
            return reply(turn, text + "\n\n" + question.text, buttons=question.buttons)
    return reply(turn, text)


async def conflict_message(core: "Core", turn: "Turn", conflict_id: int) -> Outgoing | None:
    """The question with Keep both / Mark older as past (recommended) / Replace older / Discard
    newer, whose tokens stay valid while the conflict is pending."""
    view = await core.memory.conflict(turn.owner_id, conflict_id)
    if view is None or view.new is None or view.status != "pending":
        return None
    rows = [
        [
            ButtonSpec(CHOICE_LABELS[Choice.KEEP], "conflict", {"conflict_id": conflict_id, "choice": "keep"}),
            ButtonSpec(CHOICE_LABELS[Choice.PAST], "conflict", {"conflict_id": conflict_id, "choice": "past"}),
        ],
        [
            ButtonSpec(CHOICE_LABELS[Choice.REPLACE], "conflict", {"conflict_id": conflict_id, "choice": "replace"}),
            ButtonSpec(CHOICE_LABELS[Choice.DISCARD], "conflict", {"conflict_id": conflict_id, "choice": "discard"}),
        ],
    ]
    buttons = await core.memory.issue_buttons(turn.owner_id, rows)
    await core.memory.record_shown(turn.owner_id, conflict_id, turn.platform, turn.chat.chat_id, None)
    return reply(turn, render.conflict_question(view), buttons=buttons)


# --- lists -----------------------------------------------------------------------------------


async def on_list(core: "Core", turn: "Turn", intent: c.ListMemories, msg: Incoming) -> list[Outgoing]:
    items = await core.memory.list(turn.owner_id, intent.which)
    out = [await numbered(core, turn, LIST_TITLES[intent.which], items)]
    if intent.which is Which.REVIEW:
        pending = await core.memory.pending_conflicts(turn.owner_id)
        if pending:
            rows = [
                [ButtonSpec(f"Ask again: {_short(p.new.text if p.new else '?')}", "ask_again", {"conflict_id": p.id}, single_use=False)]
                for p in pending[:10]
            ]
            buttons = await core.memory.issue_buttons(turn.owner_id, rows)
            out.append(reply(turn, f"{len(pending)} question(s) are waiting for your answer.", buttons=buttons))
        elif not items:
            out = [reply(turn, "Nothing is waiting for review.")]
    return out


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def numbered(core: "Core", turn: "Turn", title: str, items: list[MemoryView]) -> Outgoing:
    """A numbered list; the numbers are remembered so that "/forget 3" means what was shown.
    Paged with Next/Previous on platforms that page."""
    ids = [m.id for m in items]
    await core.memory.set_numbers(turn.owner_id, ids)
    paging = turn.paging
    if paging is None:
        return reply(turn, render.memory_list(title, items))
    pages = render.paginate([len(render.memory_line(i + 1, m)) for i, m in enumerate(items)], paging.items, paging.chars)
    if len(pages) <= 1:
        return reply(turn, render.memory_list(title, items))
    return await page_message(core, turn, title, items, 0)


async def page_message(core: "Core", turn: "Turn", title: str, items: list[MemoryView], page: int) -> Outgoing:
    """One page of a list, with Previous/Next buttons that edit this same message."""
    paging = turn.paging or DEFAULT_PAGING
    pages = render.paginate([len(render.memory_line(i + 1, m)) for i, m in enumerate(items)], paging.items, paging.chars)
    page = max(0, min(page, len(pages) - 1))
    start, end = pages[page]
    text = render.memory_list(title, items[start:end], start=start + 1, total=len(items))
    text += f"\nPage {page + 1} of {len(pages)}"
    ids = [m.id for m in items]
    row = []
    if page > 0:
        row.append(ButtonSpec("◀ Previous", "page", {"title": title, "ids": ids, "page": page - 1}, single_use=False))
    if page < len(pages) - 1:
        row.append(ButtonSpec("Next ▶", "page", {"title": title, "ids": ids, "page": page + 1}, single_use=False))
    buttons = await core.memory.issue_buttons(turn.owner_id, [row]) if row else ()
    return reply(turn, text, buttons=buttons)


async def on_search(core: "Core", turn: "Turn", intent: c.Search, msg: Incoming) -> list[Outgoing]:
    found = await core.memory.search(turn.owner_id, intent.query, limit=20)
    if not found:
        return [reply(turn, f"Nothing in your memories matches {render.quote(intent.query, 80)}.")]
    return [await numbered(core, turn, f"Matches for {render.quote(intent.query, 80)}", found)]


# --- one memory by number --------------------------------------------------------------------


async def _resolve_number(core: "Core", turn: "Turn", number: int) -> int | None:
    return await core.memory.number_to_id(turn.owner_id, number)


def _no_such_number(number: int) -> str:
    return f"There is no memory number {number} in your last list. Show the list with /memories and use its numbers."


async def on_by_number(core: "Core", turn: "Turn", intent: c.ByNumber, msg: Incoming) -> list[Outgoing]:
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
        buttons = await core.memory.issue_buttons(
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


async def on_rewrite(core: "Core", turn: "Turn", intent: c.Rewrite, msg: Incoming) -> list[Outgoing]:
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


async def on_simple(core: "Core", turn: "Turn", intent: c.Simple, msg: Incoming) -> list[Outgoing]:
    verb = intent.verb
    if verb in ("help", "start"):
        greeting = "Hello! " if verb == "start" else ""
        return [Outgoing(greeting + render.HELP)]
    if verb == "undo":
        done = await core.memory.undo(turn.owner_id)
        out = [reply(turn, done.message)]
        if done.conflict_id is not None:
            question = await conflict_message(core, turn, done.conflict_id)
            if question is not None:
                out.append(question)
        return out
    if verb == "export":
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
    if verb == "import":
        files = [a for a in msg.attachments if a.data]
        if not files:
            return [reply(turn, "Send the backup file together with /import (as its caption or message).")]
        try:
            report = await core.memory.import_bytes(turn.owner_id, files[0].data)
        except ImportProblem as exc:
            return [reply(turn, f"Nothing was imported. {exc}")]
        return [reply(turn, report.summary())]
    if verb == "forget_me":
        buttons = await core.memory.issue_buttons(
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
    handler = core.services.get(f"simple:{verb}")
    if handler is not None:
        return await handler(core, turn, intent, msg)
    return [reply(turn, f"/{verb} is not available in this setup.")]


async def on_timezone(core: "Core", turn: "Turn", intent: c.Timezone, msg: Incoming) -> list[Outgoing]:
    from bot.timeparse import resolve_timezone

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


async def on_settings(core: "Core", turn: "Turn", intent: c.SettingsCmd, msg: Incoming) -> list[Outgoing]:
    if intent.name is not None and intent.value is not None:
        await core.memory.set_pref(turn.owner_id, intent.name, intent.value)
    prefs = await core.memory.prefs(turn.owner_id)
    lines = ["Your settings:"]
    for name, label in SETTING_LABELS.items():
        lines.append(f"• {label}: {'on' if getattr(prefs, name) else 'off'}")
    lines.append(f"• time zone: {prefs.timezone or core.settings.default_timezone}")
    lines.append(f"Change one with {c.USAGE['settings']}.")
    return [reply(turn, "\n".join(lines))]


async def on_malformed(core: "Core", turn: "Turn", intent: c.Malformed, msg: Incoming) -> list[Outgoing]:
    return [Outgoing(intent.message, private=turn.is_group)]


async def on_unknown(core: "Core", turn: "Turn", intent: c.Unknown, msg: Incoming) -> list[Outgoing]:
    name = intent.name.lstrip("/")[:40]
    return [Outgoing(f"I don't know the command /{name}. Type /help to see what I can do.")]
