"""The command menu shown by platforms that list commands (Telegram setMyCommands, Discord slash
commands). One list, so every platform offers the same commands with the same words."""

from __future__ import annotations

COMMAND_MENU: tuple[tuple[str, str], ...] = (
    ("help", "What I can do and how to talk to me"),
    ("remember", "Save a fact, e.g. /remember I live in Rome"),
    ("memories", "List what I remember: all, current, historical, review, archived"),
    ("search", "Search your memories"),
    ("forget", "Delete a memory by its number"),
    ("history", "Show how a memory changed over time"),
    ("edit", "Correct a memory in place"),
    ("update", "Record a new version of a memory, keeping the old one as history"),
    ("past", "Mark a memory as no longer true"),
    ("restore", "Make a past or archived memory current again"),
    ("undo", "Undo your last change"),
    ("why", "Show which memories my last answer used"),
    ("remind", "Set a reminder, e.g. /remind tomorrow at 9 call mom"),
    ("reminders", "List your upcoming reminders"),
    ("timezone", "Set your time zone, e.g. /timezone Europe/Paris"),
    ("settings", "Conflict review, AI judge, notices"),
    ("tidy", "Tidy your memories now"),
    ("export", "Download everything I remember about you"),
    ("import", "Restore from an exported file"),
    ("link", "Link your Telegram and Discord accounts"),
    ("unlink", "Separate linked accounts again"),
    ("token", "Keys for programs (HTTP API, MCP): new, list, revoke"),
    ("forget_me", "Delete everything I hold about you"),
)
