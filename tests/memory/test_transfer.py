"""Export and import on real databases: round trip, idempotence, later edits survive an older
backup, deletions are not resurrected, and malformed or hostile files change nothing."""

from __future__ import annotations

import json

import pytest

from bot.memory.listing import Which
from bot.memory.writing.transfer import ImportProblem


def comparable(doc: dict) -> dict:
    """An export without the fields that legitimately differ between two people's copies."""
    doc = json.loads(json.dumps(doc))
    doc.pop("exported_at")
    return doc


async def seeded(memory, name="alice"):
    o = await memory.owner_for("console", name)
    await memory.remember(o, "I live in London since 2019")
    car = (await memory.remember(o, "I drive a VW Golf")).memory
    await memory.update_fact(o, car.id, "I drive a Tesla Model 3")
    gone = (await memory.remember(o, "My gym locker is 12")).memory
    await memory.delete(o, gone.id)
    await memory.set_timezone(o, "Europe/Lisbon")
    return o


async def test_round_trip_gives_equal_data(memory):
    a = await seeded(memory)
    exported = await memory.export(a)
    b = await memory.owner_for("console", "bob")
    report = await memory.import_bytes(b, json.dumps(exported))
    assert report.added == 3 and report.updated == 0
    again = await memory.export(b)
    assert comparable(again)["memories"] == comparable(exported)["memories"]
    hist = await memory.list(b, Which.HISTORICAL)
    cur = {m.text: m for m in await memory.list(b, Which.CURRENT)}
    assert hist[0].text == "I drive a VW Golf" and hist[0].replaced_by == cur["I drive a Tesla Model 3"].id
    assert cur["I live in London since 2019"].valid_from.year == 2019
    assert (await memory.prefs(b)).timezone == "Europe/Lisbon"


async def test_second_import_changes_nothing(memory):
    a = await seeded(memory)
    raw = await memory.export_bytes(a)
    b = await memory.owner_for("console", "bob")
    await memory.import_bytes(b, raw)
    before = comparable(await memory.export(b))
    report = await memory.import_bytes(b, raw)
    assert not report.changed and report.unchanged == 3
    assert comparable(await memory.export(b)) == before
    # and importing into the same person it came from is a no-op too
    report = await memory.import_bytes(a, raw)
    assert not report.changed


async def test_older_backup_does_not_undo_later_edits_or_resurrect_deletions(memory):
    o = await seeded(memory)
    raw = await memory.export_bytes(o)
    home = next(m for m in await memory.list(o) if "London" in m.text)
    await memory.edit(o, home.id, "I live in Greater London since 2019")
    tesla = next(m for m in await memory.list(o) if "Tesla" in m.text)
    await memory.delete(o, tesla.id)
    report = await memory.import_bytes(o, raw)
    assert report.kept_newer == 1 and report.skipped_deleted == 1 and report.added == 0
    texts = [m.text for m in await memory.list(o)]
    assert "I live in Greater London since 2019" in texts and "I drive a Tesla Model 3" not in texts


async def test_import_never_touches_other_people_with_the_same_ids(memory):
    a = await seeded(memory)
    doc = await memory.export(a)
    m = await memory.owner_for("console", "mallory")
    doc["memories"][0]["text"] = "I am Mallory and I own this now"
    doc["memories"][0]["updated_at"] = "2999-01-01T00:00:00+00:00"
    await memory.import_bytes(m, json.dumps(doc))
    assert "I am Mallory and I own this now" not in [x.text for x in await memory.list(a)]
    assert "I am Mallory and I own this now" in [x.text for x in await memory.list(m)]


def _valid_doc() -> dict:
    return {
        "format": "memory-assistant-backup",
        "version": 1,
        "exported_at": "2026-01-01T00:00:00+00:00",
        "memories": [
            {"uid": "abc123", "text": "I like tea", "created_at": "2026-01-01T00:00:00+00:00", "updated_at": "2026-01-01T00:00:00+00:00"}
        ],
    }


def _deep(n: int) -> str:
    return "[" * n + "]" * n


BAD_FILES = [
    ("truncated JSON", json.dumps(_valid_doc())[:-20], "not valid JSON"),
    ("wrong version", json.dumps({**_valid_doc(), "version": 99}), "version 99"),
    ("wrong format", json.dumps({**_valid_doc(), "format": "other"}), "not a backup"),
    ("top-level list", "[1, 2, 3]", "not a backup"),
    ("wrong types", json.dumps({**_valid_doc(), "memories": [{"uid": 5, "text": ["x"], "created_at": 1}]}), "malformed"),
    ("bad status", json.dumps({**_valid_doc(), "memories": [{**_valid_doc()["memories"][0], "status": "hacked"}]}), "malformed"),
    ("huge string", json.dumps({**_valid_doc(), "memories": [{**_valid_doc()["memories"][0], "text": "x" * 200_000}]}), "malformed"),
    ("deep nesting", '{"format": "memory-assistant-backup", "version": 1, "x": ' + _deep(100_000) + "}", "nested too deeply|not valid JSON"),
    ("empty", "", "empty"),
    ("10 MB of junk", "\x00junk" * 2_000_000, "not valid JSON|not UTF-8"),
    ("binary", bytes(range(256)) * 100, "not UTF-8|not valid JSON"),
]


@pytest.mark.parametrize("name,raw,why", BAD_FILES, ids=[b[0] for b in BAD_FILES])
async def test_malformed_files_change_nothing_and_say_why(memory, name, raw, why):
    o = await seeded(memory)
    before = comparable(await memory.export(o))
    with pytest.raises(ImportProblem, match=why):
        await memory.import_bytes(o, raw)
    assert comparable(await memory.export(o)) == before


async def test_a_backup_with_one_bad_record_imports_nothing(memory):
    o = await memory.owner_for("console", "carol")
    doc = _valid_doc()
    doc["memories"].append({"uid": "zzz", "text": "", "created_at": "x", "updated_at": "y"})
    with pytest.raises(ImportProblem):
        await memory.import_bytes(o, json.dumps(doc))
    assert await memory.list(o) == []


async def test_per_person_settings_and_time_zone_travel_in_the_backup(memory):
    """Issue 16, item 5: per-person settings were lost on export -> import."""
    a = await memory.owner_for("console", "alice")
    await memory.remember(a, "I live in London")
    await memory.set_pref(a, "conflict_review", False)
    await memory.set_pref(a, "extraction_notice", False)
    await memory.set_timezone(a, "Asia/Tokyo")
    raw = await memory.export_bytes(a)
    assert json.loads(raw)["settings"]["prefs"] == {"conflict_review": False, "extraction_notice": False}

    await memory.forget_everything(a)  # a fresh start (or a new machine), then the backup
    assert (await memory.prefs(a)).conflict_review is True
    report = await memory.import_bytes(a, raw)
    assert "your settings and time zone restored" in report.summary()
    prefs = await memory.prefs(a)
    assert (prefs.conflict_review, prefs.extraction_notice, prefs.timezone) == (False, False, "Asia/Tokyo")

    # a choice made after the backup was taken is newer: the older backup does not undo it
    await memory.set_pref(a, "conflict_review", True)
    report = await memory.import_bytes(a, raw)
    assert "your settings kept as they are (you changed them after this backup)" in report.summary()
    assert (await memory.prefs(a)).conflict_review is True


async def test_an_older_backup_without_settings_timestamps_still_imports(memory):
    a = await memory.owner_for("console", "alice")
    old = {"format": "memory-assistant-backup", "version": 1, "exported_at": "2025-01-01T00:00:00+00:00",
           "settings": {"timezone": "Europe/Paris", "prefs": {"ai_judge": True}}, "memories": []}
    report = await memory.import_bytes(a, json.dumps(old))
    prefs = await memory.prefs(a)
    assert (prefs.ai_judge, prefs.timezone) == (True, "Europe/Paris") and "restored" in report.summary()


@pytest.mark.parametrize(
    ("text", "stored", "slot"),
    [("I live in Berlin", None, "residence"), ("I like green tea", None, None),
     ("I like green tea", "employer", "employer"), ("I work at Acme", None, "job")],
)
def test_the_topics_an_import_checks(text: str, stored: str | None, slot: str | None) -> None:
    """Only facts of a single-value topic are read against current ones after an import."""
    from bot.memory.writing.import_questions import topic_slots

    assert topic_slots({"u": (text, stored)}) == ({"u": slot} if slot else {})
