"""Issue 17: an import restores only what belongs to the importer, cleaned and in range, in
batches that never hold storage for long; on SQLite and PostgreSQL.

Findings covered: 1 (a backup's reminders made the bot post anywhere, every second), 4 (one
import held storage for everyone), 8 (time zones and datetimes of any kind), 9 (raw terminal
escapes), 12 (an updated_at in the year 9999 blocked every later import of that memory).
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text as sql

from bot.events import ChatRef
from bot.memory.writing import transfer
from bot.memory.writing.transfer import ImportReport, ReminderRecord, reminder_target
from bot.storage.models import utcnow
from bot.when.zones import is_valid_timezone

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
BASE = {"format": "memory-assistant-backup", "version": 1, "exported_at": "2026-01-01T00:00:00Z"}


def reminder(uid: str, **kw) -> dict:
    due = (utcnow() + timedelta(hours=1)).isoformat()
    return {"uid": uid, "text": "check the oven", "due_at": due, "timezone": "Europe/Paris",
            "platform": "telegram", "chat_id": "1001", "user_id": "1001", **kw}


def memory_record(uid: str, text: str, when: str = "2026-01-01T00:00:00Z", **kw) -> dict:
    return {"uid": uid, "text": text, "created_at": when, "updated_at": when, **kw}


def rows(database, query: str, **params) -> list[tuple]:
    with database.session() as s:
        return [tuple(r) for r in s.execute(sql(query), params)]


# --- where reminders may go (pure) ---------------------------------------------------------------

VIA = ChatRef("telegram", "777", "777")
MINE = frozenset({("telegram", "777"), ("discord", "55")})


@pytest.mark.parametrize(
    ("changes", "via", "target", "why"),
    [
        ({}, VIA, VIA, None),  # through a chat: to the importer's private chat, whatever the file says
        ({"platform": "discord", "chat_id": "123456", "user_id": "999"}, VIA, VIA, None),
        ({"chat_id": "-100123", "user_id": None}, VIA, VIA, None),  # a group in the file
        ({}, None, None, "another account"),  # the command line: 1001 is not one of mine
        ({"platform": "telegram", "chat_id": "-100123", "user_id": "777"}, None,
         ChatRef("telegram", "777", "777"), None),  # mine, but in a group: my private chat instead
        ({"platform": "discord", "chat_id": "888", "user_id": "55"}, None, ChatRef("discord", "55", "55"), None),
        ({"platform": "console", "chat_id": "local", "user_id": "local"}, None, None, "another account"),
        ({"platform": "mastodon", "user_id": "777"}, None, None, "another account"),
        ({"recurrence": "every:1s"}, VIA, None, "more or less often than /remind allows"),
        ({"recurrence": "every:299s"}, VIA, None, "more or less often"),
        ({"recurrence": "every:300s"}, VIA, VIA, None),
        ({"recurrence": "daily@08:00"}, VIA, VIA, None),
        ({"recurrence": "hourly"}, VIA, None, "repetition I can't read"),
        ({"recurrence": "daily@25:00"}, VIA, None, "repetition I can't read"),
        ({"timezone": "Mars/Olympus"}, VIA, None, "time zone I don't know"),
        ({"timezone": "../../etc/passwd"}, VIA, None, "time zone I don't know"),
        ({"timezone": "localtime"}, VIA, None, "time zone I don't know"),
        ({"due_at": "1999-12-31T23:00:00Z"}, VIA, None, "due before 2000"),
        ({"due_at": "9999-01-01T00:00:00Z"}, VIA, None, "more than 50 years ahead"),
        ({"text": ""}, VIA, None, "no text"),
    ],
)
def test_where_an_imported_reminder_may_go(changes, via, target, why) -> None:
    fields = {k: v for k, v in changes.items() if k != "text"}
    rec = ReminderRecord.model_validate({**reminder("r1", due_at=NOW.isoformat()), **fields})
    if "text" in changes:  # as cleaning can leave it (the file's own empty text is refused earlier)
        rec = rec.model_copy(update={"text": changes["text"]})
    got, reason = reminder_target(rec, via, MINE, NOW)
    assert got == target
    assert (reason is None) if why is None else (why in (reason or ""))


# --- through the memory service ---------------------------------------------------------------


async def test_reminders_are_retargeted_and_bad_ones_dropped_and_said_so(memory, database) -> None:
    """Finding 1: the file's chat ids were used as they were; every:1s went through."""
    mallory = await memory.owner_for("telegram", "666")
    doc = {**BASE, "reminders": [
        reminder("r1", text="Your bank account is locked, log in at evil.example"),  # Alice's chat
        reminder("r2", chat_id="-1001234567890", user_id=None, recurrence="every:1s"),  # a group, every second
        reminder("r3", platform="discord", chat_id="4242", user_id="31337"),  # a Discord channel
        reminder("r4", platform="console", chat_id="local", user_id="local"),  # the operator's terminal
        reminder("r5", timezone="Mars/Olympus"),
        reminder("r6", recurrence="weekly:MO@09:00", state="delivering"),
    ]}
    via = ChatRef("telegram", "666", "666")
    report = await memory.import_bytes(mallory, json.dumps(doc), via=via)
    assert report.reminders_added == 4
    assert rows(database, "SELECT uid, platform, chat_id, user_id, state FROM reminder ORDER BY uid") == [
        ("r1", "telegram", "666", "666", "scheduled"),
        ("r3", "telegram", "666", "666", "scheduled"),
        ("r4", "telegram", "666", "666", "scheduled"),
        ("r6", "telegram", "666", "666", "scheduled"),  # never left 'delivering' with no claim
    ]
    summary = report.summary()
    assert "4 reminders set (they come to you privately, here)" in summary
    assert "Not imported: reminders in a time zone I don't know: 1; reminders that repeat more or less often " \
           "than /remind allows: 1." in summary

    # from the command line, only the importing person's own identities, in their private chats
    alice = await memory.owner_for("telegram", "1001")
    doc2 = {**BASE, "reminders": [reminder("c1"), reminder("c2", chat_id="-100999"), reminder("c3", user_id="666"),
                                  reminder("c4", platform="console", chat_id="local", user_id="local")]}
    report = await memory.import_bytes(alice, json.dumps(doc2))
    assert report.reminders_added == 2
    assert rows(database, "SELECT uid, chat_id, user_id FROM reminder WHERE owner_id = :o ORDER BY uid", o=alice) == [
        ("c1", "1001", "1001"), ("c2", "1001", "1001")]
    assert "reminders for another account (not one of yours): 2" in report.summary()


async def test_texts_lose_control_characters_and_times_come_into_range(memory, database) -> None:
    """Findings 9 and 12: raw terminal escapes reached the console; a year-9999 updated_at
    blocked every later import of that memory."""
    o = await memory.owner_for("console", "carol")
    doc = {**BASE,
           "settings": {"timezone": "Mars/Olympus"},
           "memories": [
               memory_record("m1", "I live in \x1b]0;pwned\x07Lisbon\x1b[2J", "2026-01-01T00:00:00Z"),
               memory_record("m2", "I like tea", "9999-12-31T00:00:00Z"),
               memory_record("m3", "\x1b\x07\x7f"),  # nothing left once cleaned
               memory_record("m4", "ancient", "1970-01-01T00:00:00Z", category="fact\u202e"),
           ],
           "episodes": [{"uid": "e1", "title": "t\x1b[31m", "summary": "s\x9b", "started_at": "2026-01-01T00:00:00Z",
                         "ended_at": "2026-01-01T01:00:00Z"}],
           "procedures": [{"uid": "p1", "trigger": "when \u202eI say", "steps": "do\x07 it", "created_at": "2026-01-01T00:00:00Z",
                           "updated_at": "2026-01-01T00:00:00Z"}]}
    report = await memory.import_bytes(o, json.dumps(doc), via=ChatRef("console", "carol", "carol"))
    assert report.added == 3 and report.other_added == 2
    texts = {uid: (text, cat) for uid, text, cat in rows(database, "SELECT uid, text, category FROM memory WHERE owner_id = :o", o=o)}
    assert texts == {"m1": ("I live in ]0;pwnedLisbon[2J", "fact"), "m2": ("I like tea", "fact"), "m4": ("ancient", "fact")}
    all_text = json.dumps(rows(database, "SELECT title, summary FROM episode") + rows(database, "SELECT trigger, steps FROM procedure"))
    assert not any(c in all_text for c in ("\\u001b", "\\u009b", "\\u202e", "\\u0007"))
    summary = report.summary()
    assert "control characters removed from 7 texts" in summary
    assert "4 dates outside 2000 to now set into that range" in summary
    assert "memories with no text once control characters were removed: 1" in summary
    assert "the time zone, which I don't know" in summary
    assert (await memory.prefs(o)).timezone is None  # Mars/Olympus never stored
    # the memory whose updated_at was 9999 can be updated by a later backup
    [(updated,)] = rows(database, "SELECT updated_at FROM memory WHERE uid = 'm2'")
    later = {**BASE, "memories": [memory_record("m2", "I like green tea", (utcnow() + timedelta(seconds=1)).isoformat())]}
    await asyncio.sleep(1.1)
    report = await memory.import_bytes(o, json.dumps(later))
    assert report.updated == 1 and report.kept_newer == 0
    assert rows(database, "SELECT text FROM memory WHERE uid = 'm2'") == [("I like green tea",)]


async def test_a_failed_import_leaves_nothing_and_an_abandoned_one_is_cleaned_up(memory, database, monkeypatch) -> None:
    o = await memory.owner_for("console", "dave")
    doc = {**BASE, "memories": [memory_record(f"m{i}", f"fact number {i} about zebra{i}") for i in range(600)]}
    real = transfer.stage_memories
    calls = []

    def failing(s, staging, records):
        calls.append(len(records))
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        return real(s, staging, records)

    monkeypatch.setattr(transfer, "stage_memories", failing)
    with pytest.raises(RuntimeError):
        await memory.import_bytes(o, json.dumps(doc))
    assert calls == [transfer.BATCH_ROWS, transfer.BATCH_ROWS]
    for table in ("memory", "memory_event", "action", "import_staging"):
        assert rows(database, f"SELECT count(*) FROM {table}") == [(0,)], table
    assert rows(database, "SELECT count(*) FROM owner") == [(1,)]  # the staging owner is gone too

    # a process that died while staging: its rows stay invisible, and the purge job deletes them
    monkeypatch.setattr(transfer, "stage_memories", real)
    with database.session() as s:
        staging = transfer.open_staging(s, o)
        transfer.stage_memories(s, staging, transfer.parse_backup(json.dumps(doc)).memories[:10])
    assert await memory.list(o) == []
    with database.session() as s:
        s.execute(sql("UPDATE import_staging SET started_at = :t"), {"t": utcnow() - timedelta(hours=2)})
    await memory.purge_due()
    assert rows(database, "SELECT count(*) FROM memory") == [(0,)]
    assert rows(database, "SELECT count(*) FROM import_staging") == [(0,)]


def big_backup(megabytes: float) -> bytes:
    from bench.importing import backup_bytes

    return backup_bytes(megabytes)


async def test_another_persons_command_is_answered_within_a_second_during_a_5mb_import(memory, database) -> None:
    """Finding 4: a 5 MB import held the SQLite thread for 22.5 s; another person's /memories
    waited 22 s. Now it is written in batches; the other person's list comes between two."""
    raw = big_backup(5)
    importer = await memory.owner_for("console", "importer")
    other = await memory.owner_for("console", "other")
    await memory.remember(other, "I keep bees")
    task = asyncio.create_task(memory.import_bytes(importer, raw))
    for _ in range(600):  # until the import is writing
        if rows(database, "SELECT count(*) FROM import_staging") != [(0,)]:
            break
        await asyncio.sleep(0.01)
    waits = []
    while not task.done():
        started = time.perf_counter()
        listed = await memory.list(other)
        waits.append(time.perf_counter() - started)
        assert [m.text for m in listed] == ["I keep bees"]  # never a half-imported memory
        await asyncio.sleep(0.05)
    report = await task
    assert report.added > 9_000 and len(waits) >= 3
    assert max(waits) < 2.0, f"the other person waited up to {max(waits):.2f} s ({len(waits)} tries)"
    assert rows(database, "SELECT count(*) FROM memory WHERE owner_id = :o", o=importer) == [(report.added,)]


def test_the_import_limit_is_a_sliding_hour() -> None:
    from bot.features.memory_commands import import_wait

    t0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
    recent = [t0 + timedelta(minutes=m) for m in (0, 10, 20, 30, 40)]
    assert import_wait(recent[:4], t0 + timedelta(minutes=45), 5) is None
    assert import_wait(recent, t0 + timedelta(minutes=45), 5) == timedelta(minutes=15)
    assert import_wait(recent, t0 + timedelta(minutes=61), 5) is None  # the first fell out of the hour


def test_reports_say_nothing_about_what_did_not_happen() -> None:
    assert ImportReport(added=3).summary() == "Import done: 3 added, 0 updated, 0 unchanged."
    assert is_valid_timezone("Europe/Paris")


async def test_an_imported_unsure_memory_says_how_to_settle_it(memory) -> None:
    """Issue 17 (informational): an imported "unsure" memory sat in "waiting for your answer"
    with no question to answer."""
    o = await memory.owner_for("console", "erin")
    doc = {**BASE, "memories": [memory_record("u1", "I live in Leeds", status="unsure"),
                                memory_record("u2", "I drive a Fiat")]}
    summary = (await memory.import_bytes(o, json.dumps(doc))).summary()
    assert "1 was marked possibly outdated in the backup, without the question" in summary
    assert "/restore <n> keeps one as current, /past <n> marks it as past" in summary


async def test_imports_are_limited_per_person_and_refused_files_do_not_count(core, database) -> None:
    from bot.events import Attachment, Incoming

    def sent(user: str, data: bytes) -> Incoming:
        return Incoming(platform="console", chat_id=user, user_id=user, text="/import",
                        attachments=(Attachment("b.json", data, "application/json"),))

    good = json.dumps({**BASE, "memories": [memory_record("m1", "I keep bees")]}).encode()
    for _ in range(3):
        [out] = await core.handle_message(sent("fay", b"{broken"))
        assert out.text.startswith("Nothing was imported. The file is not valid JSON")
    for _ in range(core.settings.imports_per_hour):
        [out] = await core.handle_message(sent("fay", good))
        assert out.text.startswith("Import done:"), out.text
    [out] = await core.handle_message(sent("fay", good))
    assert out.text.startswith(f"Nothing was imported: that is {core.settings.imports_per_hour} imports within an hour")
    assert "try again in 60 minutes" in out.text
    [out] = await core.handle_message(sent("gus", good))  # another person is not held back
    assert out.text.startswith("Import done: 1 added")
