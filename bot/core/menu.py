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
    ("web", "Your memory page in a browser: a login link"),
    ("forget_me", "Delete everything I hold about you"),
)

# What a group's menu offers: the commands that make sense in front of others (a reminder or a
# save answers privately). /forget_me, /import, /export and the rest stay in private chats' menu.
GROUP_MENU: tuple[tuple[str, str], ...] = tuple(
    (name, text) for name, text in COMMAND_MENU if name in ("help", "remember", "remind", "reminders", "undo")
)

# What Telegram shows before a person presses Start ("What can this bot do?") and on the bot's
# profile; the BOT_DESCRIPTION and BOT_SHORT_DESCRIPTION settings replace them.
DESCRIPTION = (
    "A personal assistant with a long-term memory you can trust. Tell me what matters "
    "(“remember: my sister's birthday is 3 May”), ask me about it later, set reminders. "
    "Nothing changes without your say, and your memories are never shown to anyone else."
)
SHORT_DESCRIPTION = "An assistant with a memory you can trust: remembers, reminds, asks before changing."
