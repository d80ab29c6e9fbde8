"""The command grammar as a table: every command, well-formed and malformed."""

from __future__ import annotations

import pytest

from bot.core import commands as c
from bot.memory.listing import Which

CASES = [
    ("remember: I live in London", c.Save("I live in London")),
    ("REMEMBER:I live in London", c.Save("I live in London")),
    ("Memorize: my bike is blue", c.Save("my bike is blue")),
    ("memorise : my bike is blue", c.Save("my bike is blue")),
    ("save: wifi password is on the fridge", c.Save("wifi password is on the fridge")),
    ("note: I'm allergic to penicillin", c.Save("I'm allergic to penicillin")),
    ("store: locker 12", c.Save("locker 12")),
    ("please remember: call me Sam", c.Save("call me Sam")),
    ("remember that my sister is Ana", c.Save("my sister is Ana")),
    ("Remember that I prefer window seats", c.Save("I prefer window seats")),
    ("remember:", c.Save("")),
    ("do you remember that trip?", c.Chat("do you remember that trip?")),
    ("what do you remember about me?", c.Chat("what do you remember about me?")),
    ("I noted: nothing", c.Chat("I noted: nothing")),
    # issue 20: saving in every natural form
    ("/remember I live in Rome", c.Save("I live in Rome")),
    ("/save I like tea", c.Save("I like tea")),
    ("/remember@MyMemoryBot I like tea", c.Save("I like tea")),
    ("/remember", c.Malformed("What should I remember? Use /remember <fact>, e.g. /remember I live in Rome.")),
    ("Remember I have a dog", c.Save("I have a dog")),
    ("remember, my locker is 12", c.Save("my locker is 12")),
    ("please remember my sister is Ana", c.Save("my sister is Ana")),
    ("hey remember: I like green tea", c.Save("I like green tea")),  # "hey @bot, remember: ..."
    ("hey , remember: I like green tea", c.Save("I like green tea")),  # Discord's cut mention
    ("ok so remember that I fly on Friday", c.Save("I fly on Friday")),
    ("remember to buy milk", c.Chat("remember to buy milk")),
    ("remember when we met in Rome", c.Chat("remember when we met in Rome")),
    ("remember my wife's name?", c.Chat("remember my wife's name?")),
    ("remember me", c.Chat("remember me")),
    ("remembering is hard", c.Chat("remembering is hard")),
    ("hey what do you remember", c.Chat("hey what do you remember")),
    # a bare number (issue 16: in the terminal, one that pressed no button reaches the core)
    ("2", c.BareNumber(2, "2")),
    ("  10 ", c.BareNumber(10, "  10 ")),
    ("²", c.Chat("²")),  # a digit, but not a number
    ("12345678901", c.Chat("12345678901")),
    ("/forget ²", c.Malformed("Which memory? Use /forget <number from the last list> (see /memories for the numbers).")),
    ("/memories", c.ListMemories(Which.ALL)),
    ("/memories current", c.ListMemories(Which.CURRENT)),
    ("/memories HISTORICAL", c.ListMemories(Which.HISTORICAL)),
    ("/memories review", c.ListMemories(Which.REVIEW)),
    ("/memories archived", c.ListMemories(Which.ARCHIVED)),
    ("/memories@MyMemoryBot current", c.ListMemories(Which.CURRENT)),
    ("/search green tea", c.Search("green tea")),
    ("/forget 3", c.ByNumber("forget", 3)),
    ("/forget #3", c.ByNumber("forget", 3)),
    ("/history 12", c.ByNumber("history", 12)),
    ("/past 1", c.ByNumber("past", 1)),
    ("/restore 2", c.ByNumber("restore", 2)),
    ("/edit 2 I live in Paris", c.Rewrite("edit", 2, "I live in Paris")),
    ("/update 2 I live in Paris", c.Rewrite("update", 2, "I live in Paris")),
    ("/undo", c.Simple("undo")),
    ("/export", c.Simple("export")),
    ("/import", c.Simple("import")),
    ("/help", c.Simple("help")),
    ("/start", c.Simple("start")),
    ("/why", c.Simple("why")),
    ("/forget_me", c.Simple("forget_me")),
    ("/reminders", c.Simple("reminders")),
    ("/tidy", c.Simple("tidy")),
    ("/remind tomorrow at 9 call mom", c.Remind("tomorrow at 9 call mom")),
    ("remind me in 10 minutes to stretch", c.Remind("remind me in 10 minutes to stretch")),
    ("/timezone Europe/Paris", c.Timezone("Europe/Paris")),
    ("/timezone", c.Timezone(None)),
    ("/settings", c.SettingsCmd(None, None)),
    ("/settings judge on", c.SettingsCmd("ai_judge", True)),
    ("/settings review off", c.SettingsCmd("conflict_review", False)),
    ("/link", c.Link(None)),
    ("/link AB12-CD34", c.Link("AB12-CD34")),
    ("/unlink", c.Simple("unlink")),
    ("/token", c.TokenCmd("list")),
    ("/token list", c.TokenCmd("list")),
    ("/tokens", c.TokenCmd("list")),
    ("/token new", c.TokenCmd("new", name="")),
    ("/token new my laptop", c.TokenCmd("new", name="my laptop")),
    ("/token revoke 2", c.TokenCmd("revoke", number=2)),
    ("hello there", c.Chat("hello there")),
    ("/frobnicate", c.Unknown("frobnicate")),
    ("/", c.Unknown("/")),
]


@pytest.mark.parametrize("text,expected", CASES, ids=[t for t, _ in CASES])
def test_parse(text, expected):
    assert c.parse(text) == expected


MALFORMED = [
    "/forget",
    "/forget three",
    "/forget 0",
    "/forget -1",
    "/forget 99999999999999",
    "/history",
    "/edit",
    "/edit 2",
    "/edit two new text",
    "/update x",
    "/search",
    "/memories everything",
    "/remind",
    "/settings judge",
    "/settings judge maybe",
    "/settings colour on",
    "/link ../../etc/passwd",
    "/token revoke",
    "/token revoke two",
    "/token frobnicate",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_commands_explain_how_to_write_them(text):
    intent = c.parse(text)
    assert isinstance(intent, c.Malformed), intent
    assert "/" in intent.message  # names the right form


def test_strange_text_is_never_an_error():
    for text in ["\u202eevil", "\x00\x01\x02", "🙂" * 1000, "a" * 100_000, "/\u0000", "/" + "x" * 5000]:
        assert c.parse(text) is not None
