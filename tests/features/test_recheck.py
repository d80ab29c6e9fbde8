"""The gentle re-check: the wording and selection rules as tables, then the job on SQLite and
PostgreSQL with a controlled clock: who is asked, where, how often, and both answers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import select

from bot.events import ButtonPress, ChatRef
from bot.storage.models import Identity, Memory, MemoryEvent, MessageLog, Owner, utcnow
from bot.features.recheck import (
    Candidate,
    candidate_of,
    changed_prompt,
    pick,
    question,
    recheck_due,
    target_chat,
    wants_recheck,
)
from tests.conftest import make_settings
from tests.support.scheduling import Clock, RecordingSender, button, make_app, msg

UTC = timezone.utc
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


# --- rules -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I live in Lisbon", "Still living in Lisbon?"),
        ("I moved to New York", "Still living in New York?"),
        ("I live in São Paulo", "Still living in São Paulo?"),
        ("I live in Zürich now", "Still living in Zürich?"),  # read folded, quoted as written
        ("I work at Nestlé", "Still working at Nestlé?"),
        ("I drive a VW Golf", "Still driving your VW Golf?"),
        ("I work as a nurse", "Still working as a nurse?"),
        ("I am an engineer", "Still working as an engineer?"),
        ("I work at Google", "Still working at Google?"),
        ("I am married", "Still married?"),
        ("I have a girlfriend", "Still with your girlfriend?"),
        ("I got divorced", "Still divorced?"),
    ],
)
def test_the_question_uses_the_slot_value_as_the_person_wrote_it(text, expected):
    c = candidate_of(1, text, None, None, NOW)
    assert c is not None and question(c) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I like tea", "I am vegan", "I want to live in Paris", "My brother lives in Lisbon",
        "I quit my job", "I lost my job", "I am looking for a job", "I no longer live in Lisbon",
        "I am not married", "I broke up with my girlfriend",
    ],
)
def test_only_single_value_facts_that_name_a_value_are_asked(text):
    assert candidate_of(1, text, None, None, NOW) is None


def test_the_oldest_unconfirmed_fact_beyond_the_threshold_is_picked():
    cands = [
        Candidate(1, "I live in Lisbon", "residence", "lisbon", NOW - timedelta(days=200)),
        Candidate(2, "I drive a Tesla", "car", "tesla", NOW - timedelta(days=400)),
        Candidate(3, "I work as a nurse", "job", "nurse", NOW - timedelta(days=20)),
    ]
    assert pick(cands, NOW, 180).id == 2
    assert pick(cands[:1], NOW, 180).id == 1
    assert pick(cands[2:], NOW, 180) is None


@pytest.mark.parametrize(
    "stored, default, expected",
    [("{}", False, False), ('{"recheck": true}', False, True), ('{"recheck": false}', True, False),
     ("{}", True, True), ("not json", False, False)],
)
def test_the_preference_defaults_to_the_setting(stored, default, expected):
    assert wants_recheck(stored, default) is expected


@pytest.mark.parametrize(
    "last, expected",
    [(None, True), (NOW - timedelta(days=6, hours=23), False), (NOW - timedelta(days=7), True)],
)
def test_at_most_one_question_a_week(last, expected):
    assert recheck_due(last, NOW) is expected


def test_after_changed_the_person_is_told_how_to_give_the_new_fact():
    assert changed_prompt("residence") == "What is true now? Tell me with remember: …, for example “remember: I now live in …”."
    assert changed_prompt(None).endswith("for example “remember: …”.")


# --- the job ---------------------------------------------------------------------------------


@pytest.fixture
def settings(db_backend):
    return make_settings(database_url=db_backend[0], console_user="u1", recheck_after_days=180)


@pytest.fixture
async def rig(database, settings):
    clock = Clock(utcnow())
    app = make_app(database, settings, clock=clock)
    sender = RecordingSender()
    app.core.outbox.register("console", sender)
    owner = await app.memory.owner_for("console", "u1")
    return app, app.rechecker, clock, sender, owner


async def old_fact(app, owner: int, text: str, days: int) -> int:
    r = await app.memory.remember(owner, text, review=False, created_at=utcnow() - timedelta(days=days))
    return r.memory.id


def memory(database, mid: int) -> Memory:
    with database.session() as s:
        return s.get(Memory, mid)


async def test_off_by_default(rig):
    app, rechecker, _, sender, owner = rig
    await old_fact(app, owner, "I live in Lisbon", 200)
    assert await rechecker.run() == 0 and sender.sent == []


async def test_the_question_and_yes(rig, database):
    app, rechecker, clock, sender, owner = rig
    await app.core.handle_message(msg("/settings recheck on"))
    lisbon = await old_fact(app, owner, "I live in Lisbon", 200)
    await old_fact(app, owner, "I work as a nurse", 30)  # confirmed recently enough
    assert await rechecker.run() == 1
    [(chat, out)] = sender.sent
    assert chat == ChatRef("console", "u1", "u1") and out.private
    assert out.text.startswith("🔎 Quick check: Still living in Lisbon?\n(I have “I live in Lisbon” from ")
    assert [b.label for b in out.all_buttons] == ["Yes", "Changed"]
    assert await rechecker.run() == 0  # one a week

    version = memory(database, lisbon).version
    [yes] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(out, "Yes"), message_id="q1"))
    assert yes.text == "Thanks — noted that “I live in Lisbon” is still true." and yes.edit_of == "q1"
    m = memory(database, lisbon)
    assert m.confirmed_at == clock() and m.uses == 1 and m.last_used_at == clock() and m.status == "current"
    assert m.version == version  # confirming changes no fact: earlier changes stay undoable
    with database.session() as s:
        kinds = [e.kind for e in s.exec(select(MemoryEvent).where(MemoryEvent.memory_id == lisbon))]
    assert kinds[-1] == "confirmed"

    clock.advance(days=8)
    assert await rechecker.run() == 0  # confirmed now; nothing else is old enough


async def test_a_yes_to_words_that_changed_since_records_nothing(rig, database):
    """Issue 16, item 1: a press re-checks that what it acts on is as it was shown."""
    app, rechecker, clock, sender, owner = rig
    await app.core.handle_message(msg("/settings recheck on"))
    lisbon = await old_fact(app, owner, "I live in Lisbon", 200)
    assert await rechecker.run() == 1
    [(_, out)] = sender.sent
    await app.memory.edit(owner, lisbon, "I live in Porto")
    [yes] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(out, "Yes"), message_id="q1"))
    assert yes.text == "That memory changed since I asked: it now reads “I live in Porto”. Nothing was recorded."
    assert memory(database, lisbon).confirmed_at is None


async def test_changed_makes_it_unsure_and_asks_what_changed(rig, database):
    app, rechecker, clock, sender, owner = rig
    await app.core.handle_message(msg("/settings recheck on"))
    car = await old_fact(app, owner, "I drive a VW Golf", 365)
    assert await rechecker.run() == 1
    _, out = sender.sent[0]
    assert out.text.startswith("🔎 Quick check: Still driving your VW Golf?")
    [changed] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(out, "Changed")))
    assert changed.text == (
        "Thanks — I've marked “I drive a VW Golf” as possibly outdated.\n"
        "What is true now? Tell me with remember: …, for example “remember: I now drive …”."
    )
    assert memory(database, car).status == "unsure"
    [review] = await app.core.handle_message(msg("/memories review"))
    assert "I drive a VW Golf" in review.text
    [undone] = await app.core.handle_message(msg("/undo"))
    assert "possibly outdated" in undone.text and memory(database, car).status == "current"


async def test_the_setting_turns_it_on_for_everyone_and_a_person_can_opt_out(database, db_backend):
    settings = make_settings(database_url=db_backend[0], console_user="u1", recheck_enabled=True)
    app = make_app(database, settings)
    sender = RecordingSender()
    app.core.outbox.register("console", sender)
    u1 = await app.memory.owner_for("console", "u1")
    await old_fact(app, u1, "I live in Lisbon", 200)
    u2 = await app.memory.owner_for("console", "u2")
    await old_fact(app, u2, "I live in Oslo", 200)
    await app.core.handle_message(msg("/settings recheck off", user="u2"))
    u3 = await app.memory.owner_for("console", "u3")  # another terminal person: not printed here
    await old_fact(app, u3, "I live in Rome", 200)
    assert await app.rechecker.run() == 1
    assert [c.user_id for c, _ in sender.sent] == ["u1"]


async def test_a_failed_send_gives_the_week_back(rig, database):
    app, rechecker, _, sender, owner = rig
    await app.core.handle_message(msg("/settings recheck on"))
    await old_fact(app, owner, "I live in Lisbon", 200)
    sender.fail = 1
    assert await rechecker.run() == 0
    with database.session() as s:
        assert s.get(Owner, owner).last_recheck_at is None
    assert await rechecker.run() == 1


def test_the_question_goes_where_the_person_last_talked(database):
    from bot.memory.owners import ensure_owner

    with database.session() as s:
        owner = ensure_owner(s, "console", "u1")
        s.add(Identity(platform="telegram", user_id="tg-1", owner_id=owner))
        s.add(MessageLog(owner_id=owner, platform="telegram", chat_id="tg-chat-5", role="user", text="hi",
                         created_at=utcnow() - timedelta(hours=1)))
        s.add(MessageLog(owner_id=owner, platform="console", chat_id="u1", role="user", text="hi",
                         created_at=utcnow() - timedelta(days=3)))
    with database.session() as s:
        assert target_chat(s, owner, {"console", "telegram"}) == ChatRef("telegram", "tg-chat-5", "tg-1")
        assert target_chat(s, owner, {"console"}) == ChatRef("console", "u1", "u1")
        assert target_chat(s, owner, {"discord"}) is None
