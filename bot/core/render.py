"""How memories look to a person: numbered lists, history, conflict questions and outcomes.

Pure text functions, so wording is tested once and every platform shows the same thing.
Memory text is quoted as the person wrote it; adapters escape it for their markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.memory import Choice, ConflictView, History, MemoryView
from bot.storage.models import Status

STATUS_HEADINGS = {
    Status.CURRENT.value: "Current",
    Status.UNSURE.value: "Possibly outdated (waiting for your answer)",
    Status.HISTORICAL.value: "Historical, not current",
}


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


def dates_note(m: Dated) -> str:
    if m.valid_from and m.valid_until:
        return f" ({m.valid_from.isoformat()} to {m.valid_until.isoformat()})"
    if m.valid_from:
        return f" (since {m.valid_from.isoformat()})"
    if m.valid_until:
        return f" (until {m.valid_until.isoformat()})"
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
    lines = ["This may change something I know about you."]
    for old in view.olds:
        lines.append(f"Before: {quote(old.text)}{dates_note(old)}")
    lines.append(f"New: {quote(view.new.text)}{dates_note(view.new)}")
    if view.recommended is Choice.KEEP:
        lines.append("It looks like the same fact with more detail, so both can stay. "
                     "Nothing changes until you choose.")
    elif view.recommended is None:
        lines.append("I can't tell whether the new fact replaces the older one. "
                     "Nothing changes until you choose.")
    else:
        lines.append("Does the new fact replace the older one? Nothing changes until you choose.")
    return "\n".join(lines)


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


HELP = """I'm your assistant with a careful long-term memory. Talk to me normally, or use:

Saving
  remember: <fact>   (also memorize:, save:, note:, store:, or "remember that ...")
Looking
  /memories [all|current|historical|review|archived] — numbered list
  /search <words>    /history <n>    /why (what my last answer used)
Changing (n is the number in the last list)
  /edit <n> <text> — correct in place
  /update <n> <text> — new version; the old one is kept as history
  /past <n>    /restore <n>    /forget <n>    /undo
  /memories review — questions waiting for your answer
Reminders
  /remind <when> <what>   /reminders   /timezone <zone>
Your data
  /export    /import (send the file with it)    /forget_me
  /settings [review|judge|notices|recheck] [on|off]    /tidy    /link    /unlink
  /token new [name] | list | revoke <n> — keys for programs (HTTP API, MCP), private chats only
  /web — a login link to your memory page (review, settle and tidy in a browser), private chats only

When a new fact may replace an old one, I ask before changing anything."""

# how each platform takes a backup file with /import; the terminal reads it from a path
IMPORT_HOW = {"console": "/import <file>", "discord": "/import (attach the file)"}


def help_text(platform: str) -> str:
    """/help as it applies where the person is (the terminal has no file attachments)."""
    how = IMPORT_HOW.get(platform)
    return HELP.replace("/import (send the file with it)", how) if how else HELP
