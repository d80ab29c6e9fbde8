"""Replies the core and several features share: the private-in-a-group reply, the confirmation
of a save (with the conflict question and its four buttons), numbered lists and their pages.

Why one module: a save confirmed by a typed command, a model tool call or background extraction
must read the same, and a list shown by /memories, /search or a paged button press must number
the same way.
"""

from __future__ import annotations

from datetime import timedelta

from bot.core import render
from bot.core.buttons import ButtonSpec
from bot.core.core import Core
from bot.core.turn import DEFAULT_PAGING, Turn
from bot.events import Outgoing
from bot.memory import Choice, ConflictView, MemoryView, RememberResult, Which, choice_label, conflict_fingerprint

LIST_TITLES = {
    Which.ALL: "Your memories",
    Which.CURRENT: "Current memories",
    Which.HISTORICAL: "Historical memories",
    Which.REVIEW: "Possibly outdated memories",
    Which.ARCHIVED: "Archived memories",
}


def reply(turn: Turn, text: str, **kwargs: object) -> Outgoing:
    """An answer about the person's own data: private whenever the chat is a group."""
    return Outgoing(text=text, private=turn.is_group, **kwargs)  # type: ignore[arg-type]


async def describe_save(core: Core, turn: Turn, result: RememberResult, *, prefix: str = "Saved") -> Outgoing:
    """The confirmation of a save: the text as stored, what the judge retired (with Undo), or the
    conflict question with its four buttons."""
    if result.duplicate_of is not None:
        return reply(turn, render.duplicate(result.duplicate_of))
    assert result.memory is not None
    text = f"{prefix}: {render.quote(result.memory.text, 1000)}{render.dates_note(result.memory)}"
    if result.retired:
        olds = ", ".join(render.quote(o.text) for o in result.retired)
        text += f"\nI marked {olds} as past, since the new fact replaces it. You can undo that."
        buttons = await core.buttons.issue(
            turn.owner_id, [[ButtonSpec("Undo", "undo", {"action_id": result.action_id})]]
        )
        if result.conflict_id is None:
            return reply(turn, text, buttons=buttons)
    if result.conflict_id is not None:
        question = await conflict_message(core, turn, result.conflict_id)
        if question is not None:
            return reply(turn, text + "\n\n" + question.text, buttons=question.buttons)
    if result.action_id is None:
        return reply(turn, text)
    # every save can be taken back from where it was confirmed, not only by typing /undo
    undo = await core.buttons.issue(turn.owner_id, [[ButtonSpec("Undo", "undo", {"action_id": result.action_id})]])
    return reply(turn, text, buttons=undo)


async def conflict_message(core: Core, turn: Turn, conflict_id: int) -> Outgoing | None:
    """The question with Keep both / Mark older as past / Replace older / Discard newer, whose
    tokens stay valid while the conflict is pending. The answer stored as recommended with the
    question says "(recommended)" in its label, so a question shown again reads the same."""
    view = await core.memory.conflict(turn.owner_id, conflict_id)
    if view is None or view.new is None or view.status != "pending":
        return None
    seen = conflict_fingerprint(view)  # a press re-checks that the facts are still as shown

    def spec(choice: Choice) -> ButtonSpec:
        payload = {"conflict_id": conflict_id, "choice": choice.value, "seen": seen}
        label = choice_label(choice, view.recommended)
        style = "primary" if choice == view.recommended else "danger" if choice == Choice.REPLACE else ""
        return ButtonSpec(label, "conflict", payload, detail=choice_detail(view, choice), style=style)

    rows = [[spec(Choice.KEEP), spec(Choice.PAST)], [spec(Choice.REPLACE), spec(Choice.DISCARD)]]
    buttons = await core.buttons.issue(turn.owner_id, rows)
    await core.memory.record_shown(turn.owner_id, conflict_id, turn.platform, turn.chat.chat_id, None)
    return reply(turn, render.conflict_question(view), buttons=buttons)


def choice_detail(view: ConflictView, choice: Choice) -> str:
    """An answer's button naming the facts it acts on (shown where the label alone could be
    pressed for the wrong question)."""
    assert view.new is not None
    olds = render.join_quoted([o.text[:60] for o in view.olds]) or "the older fact"
    new = render.quote(view.new.text, 60)
    if choice is Choice.KEEP:
        return f"Keep both {olds} and {new}"
    if choice is Choice.PAST:
        return f"Mark {olds} as past, {new} current"
    if choice is Choice.REPLACE:
        return f"Replace {olds} with {new} (deletes {olds})"
    return f"Discard {new}, keep {olds}"


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def numbered(core: Core, turn: Turn, title: str, items: list[MemoryView]) -> Outgoing:
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


async def page_message(core: Core, turn: Turn, title: str, items: list[MemoryView], page: int) -> Outgoing:
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
    buttons = await core.buttons.issue(turn.owner_id, [row]) if row else ()
    return reply(turn, text, buttons=buttons)


# "delete everything" is the one change with no undo: its confirmation must be pressed soon
# after it is shown (an older one asks again) and on what it showed (a change since asks again)
FORGET_ME_SECONDS = 180


async def forget_me_question(core: Core, turn: Turn, lead: str = "") -> Outgoing:
    """The confirmation of /forget_me, naming what goes; its Yes button carries what was shown."""
    count, newest = await core.memory.forget_scope(turn.owner_id)
    ttl = timedelta(seconds=FORGET_ME_SECONDS)
    yes = ButtonSpec(
        "Yes, delete everything now (no undo)", "forget_me", {"confirm": True, "seen": [count, newest]}, ttl=ttl,
        detail=f"Yes, delete all {count} memories and everything else now (no undo)", style="danger",
    )
    no = ButtonSpec("Cancel", "forget_me", {"confirm": False}, ttl=ttl, detail="Cancel deleting everything")
    buttons = await core.buttons.issue(turn.owner_id, [[yes, no]])
    memories = f"{count} memor{'y' if count == 1 else 'ies'}"
    text = (
        f"This deletes everything I hold about you — {memories}, their history, your reminders, "
        "settings and our conversation log — at once and for good. There is no undo: this question "
        f"is the only safeguard, and its button works for {render.span(FORGET_ME_SECONDS)}. Are you sure?"
    )
    return reply(turn, (lead + "\n\n" if lead else "") + text, buttons=buttons)
