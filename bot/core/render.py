"""How memories look to a person: numbered lists, history, conflict questions and outcomes.

Pure text functions, so wording is tested once and every platform shows the same thing.
Memory text is quoted as the person wrote it; adapters escape it for their markup.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.memory import Choice, ConflictView, History, MemoryView, also_says
from bot.storage.models import Status

STATUS_HEADINGS = {
    Status.CURRENT.value: "Current",
    Status.UNSURE.value: "Possibly outdated (waiting for your answer)",
    Status.HISTORICAL.value: "Historical, not current",
}


# what can start inline Markdown (emphasis, code, links, images, autolinks, HTML, entities);
# the line-start marks (#, >, -, 1.) need no escape in the lines this is for, which start with ✓
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]<>!~&])")


def markdown_literal(text: str) -> str:
    """One line of `text` written so that Markdown shows it exactly as it is (the marks that can
    start formatting backslash-escaped, as CommonMark allows): for memory text placed after the
    model's Markdown, which must never turn into formatting or a link."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def quote(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"“{text}”"


class Dated(Protocol):
    """Anything with the dates a person stated for a fact (a MemoryView, a recalled memory)."""

    @property
    def valid_from(self) -> date | None: ...
    @property
    def valid_until(self) -> date | None: ...


def _month_end(d: date) -> bool:
    return (d + timedelta(days=1)).day == 1


def said_date(d: date, *, end: bool = False) -> str:
    """A stated date as precise as people say them: dates are stored widened to the period
    that was said ("1990" is 1990-01-01 .. 1990-12-31, bot/memory/rules/dates.py), so the first
    (or, for an end, the last) day of a year or month reads as that year or month, not as a day
    nobody said."""
    if (d.month, d.day) == ((12, 31) if end else (1, 1)):
        return str(d.year)
    if (_month_end(d) if end else d.day == 1):
        return d.strftime("%B %Y")
    return d.isoformat()


def dates_note(m: Dated) -> str:
    if m.valid_from and m.valid_until:
        return f" ({said_date(m.valid_from)} to {said_date(m.valid_until, end=True)})"
    if m.valid_from:
        return f" (since {said_date(m.valid_from)})"
    if m.valid_until:
        return f" (until {said_date(m.valid_until, end=True)})"
    return ""


def local_time(at: datetime, tz: str) -> str:
    try:
        return at.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M")
    except Exception:
        return at.strftime("%Y-%m-%d %H:%M UTC")


LIST_TEXT_LIMIT = 600  # a list shows the start of a very long memory; /history N shows it whole


def memory_line(number: int, m: MemoryView) -> str:
    extra = ""
    if m.archived:
        extra = " [archived]"
    elif m.source == "chat":
        extra = " [noted from chat]"
    text = m.text if len(m.text) <= LIST_TEXT_LIMIT else m.text[: LIST_TEXT_LIMIT - 1] + "…"
    return f"{number}. {text}{dates_note(m)}{extra}"


def paginate(line_lengths: Sequence[int], max_items: int, max_chars: int) -> list[tuple[int, int]]:
    """Split a list into pages of at most `max_items` lines and about `max_chars` characters
    (a page always holds at least one line). Returns (start, end) index pairs."""
    pages: list[tuple[int, int]] = []
    start, used = 0, 0
    for i, length in enumerate(line_lengths):
        cost = length + 1
        if i > start and (i - start >= max_items or used + cost > max_chars):
            pages.append((start, i))
            start, used = i, 0
        used += cost
    if line_lengths:
        pages.append((start, len(line_lengths)))
    return pages


def memory_list(title: str, items: Sequence[MemoryView], *, start: int = 1, total: int | None = None) -> str:
    """A numbered list grouped by state; numbers run on across pages."""
    total = len(items) if total is None else total
    if total == 0:
        return f"{title}: nothing yet."
    lines = [f"{title} ({total}):"]
    heading = None
    for offset, m in enumerate(items):
        group = "Archived" if m.archived else STATUS_HEADINGS.get(m.status, m.status)
        if group != heading:
            heading = group
            lines.append(f"— {group} —")
        lines.append(memory_line(start + offset, m))
    return "\n".join(lines)


def saved(m: MemoryView) -> str:
    return f"Saved: {quote(m.text, 1000)}{dates_note(m)}"


def duplicate(m: MemoryView) -> str:
    return f"I already know that: {quote(m.text, 1000)} — not saved twice."


def conflict_question(view: ConflictView) -> str:
    assert view.new is not None
    # a question that recommends Keep both changes nothing the person said: say so first
    lines = ["This may be something I already know about you." if view.recommended is Choice.KEEP
             else "This may change something I know about you."]
    for old in view.olds:
        lines.append(f"Before: {quote(old.text)}{dates_note(old)}")
    lines.append(f"New: {quote(view.new.text)}{dates_note(view.new)}")
    if view.recommended is Choice.KEEP:
        # also for two of one kind ("a golden retriever" / "an old beagle"): both can be true
        lines.append("Both can be true: it looks like the same thing said again, more about it, "
                     "or another of its kind. Nothing changes until you choose.")
    elif view.recommended is None:
        # a compound older fact: say what else it holds, which Mark older as past would end too
        besides = list(dict.fromkeys(w for old in view.olds for w in also_says(old.text, view.new.text)))
        if besides:
            lines.append(f"The older one also says {' and '.join(besides)}: marking it past would make that "
                         "past too. Nothing changes until you choose.")
        else:
            lines.append("I can't tell whether the new fact replaces the older one. "
                         "Nothing changes until you choose.")
    else:
        lines.append("Does the new fact replace the older one? Nothing changes until you choose.")
    return "\n".join(lines)


def count(n: int, one: str, many: str) -> str:
    """"1 memory", "3 memories": never "(1 memories)" or "question(s)"."""
    return f"{n} {one if n == 1 else many}"


def span(seconds: int) -> str:
    """A length of time for a sentence: "1 minute", "10 minutes", "30 seconds", "2 hours"."""
    seconds = max(0, int(seconds))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    if seconds >= 60:
        n = round(seconds / 60)
        return f"{n} minute{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def erased_after(undo_window_seconds: int) -> str:
    """When a deleted memory's text leaves the database (the purge runs every minute at most)."""
    return f"/undo brings it back within {span(undo_window_seconds)}; then its text is erased for good"


def join_quoted(texts: Sequence[str]) -> str:
    """“A”, “B” and “C”."""
    quoted = [quote(t) for t in texts]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


def state_of(m: MemoryView) -> str:
    if m.deleted:
        return "deleted"
    if m.archived:
        return "archived"
    return m.status


# how a fact's state reads after an answer: (one, several)
_STATE_PHRASES = {
    "current": ("is current", "are current"),
    "historical": ("is now past (kept in your history)", "are now past (kept in your history)"),
    "unsure": ("still waits for your answer to another question", "still wait for your answer to other questions"),
    "deleted": ("was deleted", "were deleted"),
    "archived": ("is archived", "are archived"),
}


def _state_clause(texts: Sequence[str], state: str) -> str:
    one, several = _STATE_PHRASES.get(state, (f"is {state}", f"are {state}"))
    return f"{join_quoted(texts)} {one if len(texts) == 1 else several}"


def conflict_outcome(view: ConflictView, choice: Choice, *, undo_window_seconds: int | None = None) -> str:
    """What an answer did, read from the state of every fact after the change (never from the
    choice alone: another answer or change may have moved a fact on)."""
    assert view.new is not None
    by_state: dict[str, list[str]] = {}
    for old in view.olds:
        by_state.setdefault(state_of(old), []).append(old.text)
    new_state = state_of(view.new)
    if choice is Choice.KEEP and set(by_state) <= {"current"} and new_state == "current":
        olds = join_quoted(by_state.get("current", [])) or "the older fact"
        return f"Kept both: {olds} and {quote(view.new.text)} are both current."
    clauses = [_state_clause(texts, state) for state, texts in by_state.items()]
    if "deleted" in by_state and undo_window_seconds is not None:
        clauses[list(by_state).index("deleted")] += f" ({erased_after(undo_window_seconds)})"
    new_clause = (
        f"{quote(view.new.text)} was discarded" if new_state == "deleted"
        else _state_clause([view.new.text], new_state)
    )
    if new_state == "deleted":
        return f"Done: {new_clause}; " + ", and ".join(clauses or ["the older fact stays as it was"]) + "."
    return "Done: " + ", ".join(clauses) + (", and " if clauses else "") + new_clause + "."


def history_text(h: History, tz: str) -> str:
    lines = ["History:"]
    for i, v in enumerate(h.chain, 1):
        state = v.status if not v.deleted else "deleted"
        lines.append(f"{i}. {quote(v.text)}{dates_note(v)} — {state}, saved {local_time(v.created_at, tz)}")
    lines.append("Changes:")
    for e in h.entries:
        if e.kind == "replaced_older":  # the answer that made this fact replace an older one
            lines.append(f"• {local_time(e.at, tz)} {e.note}")
            continue
        what = e.kind.replace("_", " ")
        detail = ""
        if e.kind == "edited" and e.text_before is not None:
            detail = f": {quote(e.text_before, 120)} → {quote(e.text_after or '', 120)}"
        elif e.status_before and e.status_after and e.status_before != e.status_after:
            detail = f": {e.status_before} → {e.status_after}"
        elif e.kind in ("created", "imported") and e.text_after:
            detail = f": {quote(e.text_after, 120)}"
        note = f" ({e.note})" if e.note else ""
        lines.append(f"• {local_time(e.at, tz)} {what}{detail}{note}")
    return "\n".join(lines)


# Short lines with bullets, no columns lined up with spaces: Telegram and Discord show a
# proportional font, where only the first word of such a column would line up.
HELP = """Just talk to me, or use these commands.

Saving
• remember: <fact>, or /remember <fact>
• "remember that …" works too

Finding
• /memories — everything, numbered (or current, historical, review, archived)
• /search <words>
• /history <n> — how a memory changed
• /why — what my last answer used

Changing (n is the number in the last list)
• /edit <n> <text> — correct it in place
• /update <n> <text> — a new version; the old one stays as history
• /past <n>, /restore <n>, /forget <n>
• /undo — take back your last change
• /memories review — questions waiting for you

Reminders
• /remind <when> <what>
• /reminders — what's coming up
• /timezone <zone>

Your data
• /export — download everything
• /import — send the file with it
• /forget_me — delete everything
• /settings, /tidy, /link, /unlink
• /token — keys for programs (HTTP API, MCP), in a private chat
• /web — your memory page in a browser (a login link), in a private chat

When a new fact may replace an old one, I ask before changing anything."""

# how each platform takes a backup file with /import; the terminal reads it from a path
IMPORT_HOW = {"console": "/import <file>", "discord": "/import (attach the file)"}
_IMPORT_LINE = "/import — send the file with it"


def help_text(platform: str) -> str:
    """/help as it applies where the person is (the terminal has no file attachments)."""
    how = IMPORT_HOW.get(platform)
    return HELP.replace(_IMPORT_LINE, how) if how else HELP
