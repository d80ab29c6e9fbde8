"""What a person typed, as an intent: an inline save ("remember: ..."), a slash command with
checked arguments, a reminder request, or plain chat.

Pure: text in, a typed value out, no I/O; so every command's grammar is tested with a table,
and the same commands work as typed text on every platform.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from bot.memory import Which
from bot.when.grammar import parse_remind_me

# --- intents ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chat:
    text: str


@dataclass(frozen=True)
class Save:
    text: str


@dataclass(frozen=True)
class BareNumber:
    """A message that is only a number ("2"). In the terminal a number presses a button, and
    one that pressed nothing reaches the core as this (see adapters/console.py); elsewhere it
    is chat."""

    number: int
    text: str


@dataclass(frozen=True)
class Malformed:
    """A command we recognised but could not read; `message` says how to write it."""

    message: str


@dataclass(frozen=True)
class Unknown:
    name: str


@dataclass(frozen=True)
class ListMemories:
    which: Which


@dataclass(frozen=True)
class Search:
    query: str


@dataclass(frozen=True)
class ByNumber:
    """A command about one memory by its number in the last list: forget, history, past, restore."""

    verb: str
    number: int


@dataclass(frozen=True)
class Rewrite:
    """/edit N text (in place) or /update N text (a new version)."""

    verb: str
    number: int
    text: str


@dataclass(frozen=True)
class Simple:
    """A command without arguments: undo, export, import, help, why, reminders, tidy, forget_me,
    unlink, start."""

    verb: str


@dataclass(frozen=True)
class Remind:
    text: str


@dataclass(frozen=True)
class Timezone:
    zone: str | None


@dataclass(frozen=True)
class SettingsCmd:
    name: str | None
    value: bool | None


@dataclass(frozen=True)
class Link:
    code: str | None


@dataclass(frozen=True)
class TokenCmd:
    """/token new [name], /token list, /token revoke N: keys for programs (the HTTP API, MCP)."""

    verb: str  # new | list | revoke
    name: str = ""
    number: int | None = None


@dataclass(frozen=True)
class FileOnly:
    """A file sent without any words (a backup dropped into a private chat): the core reads it
    as this, not as an empty chat message."""


Intent = Union[
    Chat, Save, BareNumber, Malformed, Unknown, ListMemories, Search, ByNumber, Rewrite, Simple, Remind, Timezone, SettingsCmd, Link,
    TokenCmd, FileOnly,
]

# --- grammar ---------------------------------------------------------------------------------

SAVE_WORDS = ("remember", "memorize", "memorise", "save", "note", "store")
# what people put before the save word, mostly where a group mention was cut out ("hey @bot,
# remember: ..." reaches us as "hey remember: ...")
_LEAD_IN = r"^\s*(?:(?:hey|hi|hello|ok|okay|so|and|also|pls|please)\b[\s,!.:]*)*"
_SAVE_COLON = re.compile(_LEAD_IN + r"(?:" + "|".join(SAVE_WORDS) + r")\s*:\s*(.*)$", re.I | re.S)
_SAVE_THAT = re.compile(_LEAD_IN + r"remember\s+that\s+(.+)$", re.I | re.S)
_SAVE_BARE = re.compile(_LEAD_IN + r"(?:remember|memori[sz]e)\s*,?\s+(.+)$", re.I | re.S)
# "remember to buy milk" is a to-do, "remember when we ..." and "remember my name?" ask: only a
# statement after a bare "remember" is saved
_NOT_A_STATEMENT = frozenset({
    "to", "when", "what", "who", "whom", "whose", "where", "why", "how", "which", "if", "whether",
    "me", "us", "this", "that", "it", "anything", "something", "everything", "the", "about",
})
_REMIND_ME = re.compile(r"^\s*(?:please\s+|hey\s+)?remind\s+me\b", re.I)
_COMMAND = re.compile(r"^/([A-Za-z_][A-Za-z0-9_]*)(?:@[A-Za-z0-9_]+)?(?:\s+(.*))?$", re.S)

SIMPLE = {"undo", "export", "import", "help", "why", "reminders", "tidy", "forget_me", "unlink", "start", "web"}
BY_NUMBER = {"forget": "forget", "delete": "forget", "history": "history", "past": "past", "restore": "restore"}
REWRITE = {"edit", "update"}
SAVE_COMMANDS = {"remember", "save", "memorize", "memorise", "note"}
ALIASES = {"memory": "memories", "list": "memories", "forgetme": "forget_me", "tz": "timezone", "find": "search",
           "tokens": "token"}

USAGE = {
    "remember": "/remember <fact>, e.g. /remember I live in Rome",
    "memories": "/memories [all|current|historical|review|archived]",
    "search": "/search <words>",
    "forget": "/forget <number from the last list>",
    "history": "/history <number from the last list>",
    "past": "/past <number from the last list>",
    "restore": "/restore <number from the last list>",
    "edit": "/edit <number> <corrected text>",
    "update": "/update <number> <new version of the fact>",
    "remind": "/remind <when> <what>, e.g. /remind tomorrow at 9 call mom",
    "timezone": "/timezone <zone>, e.g. /timezone Europe/Paris",
    "settings": "/settings [review|judge|notices|recheck] [on|off]",
    "link": "/link, or /link <code> with the code shown on your other account",
    "token": "/token new [name], /token list, /token revoke <number>",
}

SETTING_NAMES = {
    "review": "conflict_review",
    "conflicts": "conflict_review",
    "conflict_review": "conflict_review",
    "judge": "ai_judge",
    "ai_judge": "ai_judge",
    "notices": "extraction_notice",
    "notice": "extraction_notice",
    "extraction_notice": "extraction_notice",
    "recheck": "recheck",
    "rechecks": "recheck",
}
_ON = {"on", "yes", "true", "1", "enable", "enabled"}
_OFF = {"off", "no", "false", "0", "disable", "disabled"}


def parse(text: str) -> Intent:
    """Read one message."""
    stripped = text.strip()
    if not stripped:
        return Chat("")
    if stripped.isascii() and stripped.isdigit() and len(stripped) <= 9:
        return BareNumber(int(stripped), text)
    m = _SAVE_COLON.match(stripped)
    if m:
        return Save(m.group(1).strip())
    if stripped.startswith("/"):
        return _parse_command(stripped)
    m = _SAVE_THAT.match(stripped)
    if m:
        return Save(m.group(1).strip())
    m = _SAVE_BARE.match(stripped)
    if m and bare_save_is_statement(m.group(1)):
        return Save(m.group(1).strip())
    if _REMIND_ME.match(stripped):
        # "remind me what my wife's name is" asks a question; only a reminder request is Remind
        return Remind(stripped) if parse_remind_me(stripped) is not None else Chat(text)
    return Chat(text)


def bare_save_is_statement(rest: str) -> bool:
    """Whether the words after a bare "remember" (no colon, no "that") state a fact to save:
    not a question, not a to-do ("to ..."), not "remember when ...". Saying too little here only
    sends the message to chat, which offers to save a statement anyway."""
    rest = rest.strip()
    words = rest.split(maxsplit=1)
    if not words or rest.endswith("?"):
        return False
    return words[0].lower().strip(",.:;!") not in _NOT_A_STATEMENT


def _parse_command(text: str) -> Intent:
    m = _COMMAND.match(text)
    if not m:
        return Unknown(text.split()[0][:40])
    name = m.group(1).lower()
    name = ALIASES.get(name, name)
    args = (m.group(2) or "").strip()

    if name in SIMPLE:
        return Simple(name)
    if name in SAVE_COMMANDS:
        return Save(args) if args else Malformed(f"What should I remember? Use {USAGE['remember']}.")
    if name == "memories":
        if not args:
            return ListMemories(Which.ALL)
        try:
            return ListMemories(Which(args.lower().split()[0]))
        except ValueError:
            return Malformed(f"I don't know the list {args.split()[0]!r}. Use {USAGE['memories']}.")
    if name == "search":
        return Search(args) if args else Malformed(f"What should I search for? Use {USAGE['search']}.")
    if name in BY_NUMBER:
        verb = BY_NUMBER[name]
        number = _number(args)
        if number is None:
            return Malformed(f"Which memory? Use {USAGE[verb]} (see /memories for the numbers).")
        return ByNumber(verb, number)
    if name in REWRITE:
        head, _, rest = args.partition(" ")
        number = _number(head)
        if number is None or not rest.strip():
            return Malformed(f"Use {USAGE[name]} (see /memories for the numbers).")
        return Rewrite(name, number, rest.strip())
    if name == "remind":
        return Remind(args) if args else Malformed(f"When, and what? Use {USAGE['remind']}.")
    if name == "timezone":
        return Timezone(args or None)
    if name == "settings":
        if not args:
            return SettingsCmd(None, None)
        parts = args.lower().split()
        key = SETTING_NAMES.get(parts[0])
        if key is None:
            return Malformed(f"I don't know the setting {parts[0]!r}. Use {USAGE['settings']}.")
        if len(parts) < 2 or parts[1] not in _ON | _OFF:
            return Malformed(f"Say on or off: {USAGE['settings']}.")
        return SettingsCmd(key, parts[1] in _ON)
    if name == "link":
        code = args.split()[0] if args else None
        if code is not None and not re.fullmatch(r"[A-Za-z0-9-]{4,16}", code):
            return Malformed(f"That doesn't look like a link code. Use {USAGE['link']}.")
        return Link(code)
    if name == "token":
        return _token(args)
    return Unknown(name)


def _token(args: str) -> Intent:
    verb, _, rest = args.partition(" ")
    verb, rest = verb.lower(), rest.strip()
    if verb in ("", "list", "ls"):
        return TokenCmd("list")
    if verb in ("new", "create", "add"):
        return TokenCmd("new", name=rest)
    if verb in ("revoke", "delete", "remove"):
        number = _number(rest)
        if number is None:
            return Malformed("Which token? Use /token revoke <number from /token list>.")
        return TokenCmd("revoke", number=number)
    return Malformed(f"I don't know /token {verb[:20]}. Use {USAGE['token']}.")


def _number(text: str) -> int | None:
    text = text.strip().lstrip("#")
    if not (text.isascii() and text.isdigit()) or len(text) > 9:  # "²" is a digit, not a number
        return None
    value = int(text)
    return value if value >= 1 else None
