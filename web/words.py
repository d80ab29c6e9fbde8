"""How the memory page says things: a memory's dates and origin, what each answer to a question
does, the lines shown after an action. Pure functions, so each wording has a table of cases
(tests/web/test_words.py).

Why words and not fields: the page is for a person, not a program. "since March 2025" and
"typed with remember:" say what "valid_from: 2025-03-01" and "source: command" only encode.
"""

from __future__ import annotations

import re
from datetime import date, datetime

from bot.memory import CHOICE_LABELS
from web.door import CHOICES

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")

SOURCES = {
    "command": "typed with remember:",
    "chat": "noted from a conversation",
    "tool": "noted from a conversation",
    "import": "imported from a backup",
    "curator": "merged by the tidy-up",
    "link": "from a linked account",
    "api": "saved by a program (API)",
    "mcp": "saved by an AI app (MCP)",
    "web": "added on this page",
}

FILTERS = (  # the page's filter name, its label, the door's listing
    ("all", "All", "all"),
    ("current", "Current", "current"),
    ("historical", "Historical", "historical"),
    ("review", "Needs review", "unsure"),
    ("archived", "Archived", "archived"),
)
LISTING_OF = {name: listing for name, _, listing in FILTERS}

STATUS_WORDS = {"current": "Current", "historical": "Past", "unsure": "Needs review"}


def month_year(d: date | datetime) -> str:
    return f"{MONTHS[d.month - 1]} {d.year}"


def dates_line(valid_from: date | None, valid_until: date | None, created_at: datetime, status: str) -> str:
    """When it was true, as far as the person said; else when it was noted."""
    if valid_from and valid_until:
        return f"{month_year(valid_from)} – {month_year(valid_until)}"
    if valid_until:
        return f"until {month_year(valid_until)}"
    if valid_from:
        return f"since {month_year(valid_from)}" if status != "historical" else f"from {month_year(valid_from)}"
    return f"noted {created_at.day} {month_year(created_at)}"


def dates_of(m: dict) -> str:
    """dates_line of a memory as the door gives it (ISO strings)."""
    def day(value: str | None) -> date | None:
        return date.fromisoformat(value[:10]) if value else None

    return dates_line(day(m.get("valid_from")), day(m.get("valid_until")), datetime.fromisoformat(m["created_at"]),
                      m["status"])


def source_words(source: str) -> str:
    return SOURCES.get(source, "saved")


def choice_label(choice: str, recommended: str | None) -> str:
    """The chat's button label for an answer, "(recommended)" on the one the question recommends."""
    label = CHOICE_LABELS[CHOICES[choice]]
    return label + (" (recommended)" if choice == recommended else "")


def choice_explained(choice: str, new: str, olds: list[str]) -> str:
    """What an answer does, in a sentence naming the facts."""
    old = " and ".join(f"“{o}”" for o in olds) or "the older fact"
    many = len(olds) > 1
    they, was = ("they stay", "were") if many else ("it stays", "was")
    if choice == "keep_both":
        return f"Both are true: “{new}” and {old} stay current."
    if choice == "mark_older_past":
        return f"“{new}” is current; {old} {was} true before: {they} in your history as past."
    if choice == "replace_older":
        return f"“{new}” is current and {old} is deleted (undo is possible for a short while)."
    return f"“{new}” was a mistake: it is dropped and {old} stays current."


NOTICES = {  # what the page says after an action (the code travels in the redirect, never text)
    "saved": "Saved.",
    "asked": "Saved. It may replace something you said before: see Possible conflicts.",
    "duplicate": "You had already told me that; nothing new was saved.",
    "edited": "Corrected.",
    "updated": "Updated: the new version is current, the old one is kept in its history.",
    "past": "Marked as past: it stays in your history.",
    "restored": "Restored as current.",
    "deleted": "Deleted.",
    "answered": "Settled.",
    "imported": "Backup imported.",
    "settings": "Settings saved.",
    "reminder_cancelled": "Reminder cancelled.",
    "reminder_snoozed": "Reminder snoozed.",
    "token_revoked": "Token revoked.",
}


EVENTS = {  # a history entry's kind, as a person reads it
    "created": "Saved",
    "edited": "Corrected",
    "updated": "Updated",
    "marked_past": "Marked as past",
    "marked_unsure": "Marked for review",
    "restored": "Restored as current",
    "merged": "Merged",
    "archived": "Archived",
    "auto_archived": "Archived by the tidy-up",
    "deleted": "Deleted",
    "imported": "Imported",
    "confirmed": "Confirmed as still true",
    "undone": "Undone",
    "purged": "Removed for good",
    "replaced_older": "Replaced an older fact",
}
ACTORS = {"person": "by you", "assistant": "by the assistant", "import": "from a backup", "curator": "by the tidy-up",
          "judge": "by the AI check", "link": "when accounts were linked"}


def event_words(kind: str, actor: str) -> str:
    """"Marked as past (by you)": what happened to a memory, and who did it."""
    what = EVENTS.get(kind, kind.replace("_", " ").capitalize())
    who = ACTORS.get(actor, "")
    return f"{what} ({who})" if who else what


_UID = re.compile(r"\b[0-9a-f]{32}\b")


def note_words(note: str, texts: dict[str, str]) -> str:
    """A history note names other memories by uid (the door's form for programs); a person
    reads their words instead."""
    return _UID.sub(lambda m: f"“{texts[m[0]]}”" if m[0] in texts else "another memory", note)


def undo_window(seconds: int) -> str:
    """How long a deletion can be taken back, as the Undo beside it says."""
    if seconds < 120:
        return f"{seconds} seconds"
    minutes = round(seconds / 60)
    return f"{minutes} minutes" if minutes < 120 else f"{round(minutes / 60)} hours"
