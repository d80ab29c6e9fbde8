"""Reminder delivery with real APScheduler timers on SQLite and PostgreSQL: on time, late after
a restart, exactly once across restarts and with two schedulers on one database, retried when
the platform is down, snooze, done, recurring, stale claims; and the generic interval job.

Due times are seconds away (or set in the past, as if the bot had been down); a clock offset
stands in for "the bot was down for ten minutes" where the wording depends on it."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import select

from bot.events import ButtonPress, ChatRef
from bot.storage.models import Memory, Reminder, utcnow
from bot.features.tidy import purge_deleted
from bot.storage.reminders import cancel_row, insert
from bot.storage import reminders as rows_db
from tests.conftest import make_settings
from tests.support.scheduling import Clock, RecordingSender, button, make_app, msg, other_database, wait_for

UTC = timezone.utc
FAST = {"sweep_seconds": 0.2, "retry_base_seconds": 0.2}


@pytest.fixture
def settings(db_backend):
    """The console person is "u1", so the terminal sender may print u1's reminders."""
    return make_settings(database_url=db_backend[0], console_user="u1")


def rows(db) -> list[Reminder]:
    with db.session() as s:
        return list(s.exec(select(Reminder).order_by(Reminder.id)))


def put(db, owner_id: int, text: str, due: datetime, *, platform="console", user="u1", chat=None, recurrence=None,
        tz="Europe/Paris", **fields) -> int:
    """A reminder row as if it had been set earlier (the bot may have been down since)."""
    with db.session() as s:
        view = insert(s, owner_id, ChatRef(platform, chat or user, user), text, due, tz, recurrence)
        if fields:
            r = s.get(Reminder, view.id)
            for k, v in fields.items():
                setattr(r, k, v)
            s.add(r)
        return view.id


@pytest.fixture
async def started(database, settings):
    """A running scheduler with a recording console sender; stopped afterwards."""
    apps = []

    async def start(db=None, sender=None, **options):
        app = make_app(db or database, settings, **{**FAST, **options})
        sender = sender or RecordingSender()
        app.core.outbox.register("console", sender)
        await app.timers.start()
        apps.append(app)
        return app, sender

    yield start
    for app in apps:
        await app.timers.stop()
        await app.core.drain(timeout=5)


async def owner(app, user="u1") -> int:
    return await app.memory.owner_for("console", user)


# --- on time ---------------------------------------------------------------------------------


async def test_a_due_reminder_is_delivered_on_time_to_its_chat_with_done_and_snooze(started, database):
    app, sender = await started()
    [reply] = await app.core.handle_message(msg("/remind in 1 second to stretch"))
    assert "I'll remind you: “stretch”" in reply.text
    assert await wait_for(lambda: len(sender.sent) == 1, timeout=6)
    chat, out = sender.sent[0]
    assert chat == ChatRef("console", "u1", "u1")
    assert out.text == "⏰ Reminder: “stretch”"
    assert [b.label for b in out.all_buttons] == ["Done", "Snooze 10 min", "Snooze 1 h"]
    await asyncio.sleep(0.2)
    [r] = rows(database)
    assert r.state == "delivered" and r.delivered_at is not None and r.attempts == 0


# --- late, restarts, two processes -----------------------------------------------------------


async def test_reminders_that_came_due_while_down_are_delivered_at_start_saying_how_late(started, database, settings):
    app0 = make_app(database, settings)
    oid = await owner(app0)
    now = utcnow()
    put(database, oid, "call mom", now - timedelta(minutes=20, seconds=2))
    put(database, oid, "take the pills", now - timedelta(hours=3, seconds=2))
    put(database, oid, "later", now + timedelta(hours=1))
    app, sender = await started()
    assert await wait_for(lambda: len(sender.sent) == 2, timeout=5)
    texts = sorted(sender.texts())
    assert texts[0].startswith("⏰ Missed reminder (3 hours late): “take the pills”\nIt was due ")
    assert texts[1].startswith("⏰ Reminder, 20 minutes late: “call mom”\n(It was due ")
    await asyncio.sleep(0.5)
    assert len(sender.sent) == 2
    assert [r.state for r in rows(database)] == ["delivered", "delivered", "scheduled"]


async def test_exactly_once_across_a_restart(started, database):
    # first run: the reminder is set, then the chat stops before it is due
    app1, sender1 = await started()
    await app1.core.handle_message(msg("/remind in 2 seconds to stretch"))
    await app1.timers.stop()
    [r] = rows(database)
    assert r.state == "scheduled"
    await asyncio.sleep(2.2)
    assert sender1.sent == []

    # second run, "ten minutes later" (a clock offset), in another process (own engine)
    db2 = other_database(database)
    try:
        sched2, sender2 = await started(db=db2, clock=lambda: utcnow() + timedelta(minutes=10))
        assert await wait_for(lambda: len(sender2.sent) == 1, timeout=5)
        assert sender2.texts()[0].startswith("⏰ Reminder, 10 minutes late: “stretch”")
        await sched2.timers.stop()

        # third run: nothing is delivered again
        db3 = other_database(database)
        try:
            sched3, sender3 = await started(db=db3)
            await asyncio.sleep(1.0)
            assert sender3.sent == [] and sched3.delivery.sent == 0
        finally:
            await sched3.timers.stop()
            db3.dispose()
    finally:
        db2.dispose()
    assert [x.state for x in rows(database)] == ["delivered"]


async def test_two_schedulers_on_one_database_deliver_every_reminder_exactly_once(started, database, settings):
    db_b = other_database(database)
    try:
        app_a, sender_a = await started()
        app_b, sender_b = await started(db=db_b)
        oid = await owner(app_a)
        now = utcnow()
        for i in range(12):  # came due while both were down
            put(database, oid, f"past {i}", now - timedelta(minutes=1))
        for i in range(8):  # set through A, due in a moment: A has timers, B finds them by sweeping
            ok, _, _ = await app_a.reminders.set_text(oid, ChatRef("console", "u1", "u1"), f"in 1 second to soon {i}")
            assert ok
        assert await wait_for(lambda: len(sender_a.sent) + len(sender_b.sent) >= 20, timeout=10)
        await asyncio.sleep(1.0)  # give any duplicate the chance to show up
        texts = sender_a.texts() + sender_b.texts()
        assert len(texts) == 20
        assert len(set(texts)) == 20
        assert {r.state for r in rows(database)} == {"delivered"}
        assert app_a.delivery.sent + app_b.delivery.sent == 20
    finally:
        db_b.dispose()


# --- failures --------------------------------------------------------------------------------


async def test_a_failed_send_is_retried_with_back_off_and_not_lost(started, database, settings):
    app0 = make_app(database, settings)
    rid = put(database, await owner(app0), "stretch", utcnow() - timedelta(seconds=1))
    sender = RecordingSender(fail=2)
    app, _ = await started(sender=sender)
    assert await wait_for(lambda: len(sender.sent) == 1, timeout=8)
    await asyncio.sleep(0.3)
    assert sender.attempts == 3
    gaps = [b - a for a, b in zip(sender.attempt_times, sender.attempt_times[1:])]
    assert gaps[0] >= 0.19 and gaps[1] >= 0.39  # 0.2 s, then 0.4 s
    [r] = rows(database)
    assert r.id == rid and r.state == "delivered" and r.attempts == 2 and r.last_error is None
    assert len(sender.sent) == 1


async def test_while_the_platform_is_down_the_reminder_stays_scheduled_with_the_error(started, database, settings):
    app0 = make_app(database, settings)
    put(database, await owner(app0), "stretch", utcnow() - timedelta(seconds=1))
    sender = RecordingSender(fail=10_000)
    await started(sender=sender, retry_base_seconds=0.1, retry_max_seconds=0.2)
    assert await wait_for(lambda: sender.attempts >= 3, timeout=5)
    [r] = rows(database)
    assert r.state in ("scheduled", "delivering")
    assert r.attempts >= 2 and "platform unreachable" in (r.last_error or "")


async def test_a_sender_that_hangs_counts_as_failed_after_the_timeout(started, database, settings):
    app0 = make_app(database, settings)
    put(database, await owner(app0), "stretch", utcnow() - timedelta(seconds=1))
    sender = RecordingSender(delay=5)
    await started(sender=sender, send_timeout_seconds=0.2, retry_base_seconds=30)
    assert await wait_for(lambda: rows(database)[0].attempts == 1, timeout=3)
    [r] = rows(database)
    assert r.state == "scheduled" and "TimeoutError" in (r.last_error or "")


async def test_no_sender_for_its_platform_leaves_a_reminder_untouched(started, database, settings):
    app0 = make_app(database, settings)
    oid = await owner(app0)
    put(database, oid, "telegram one", utcnow() - timedelta(seconds=1), platform="telegram")
    put(database, oid, "another console person", utcnow() - timedelta(seconds=1), user="someone-else")
    sched, sender = await started()
    await asyncio.sleep(0.8)
    assert sender.sent == []
    assert [(r.state, r.attempts) for r in rows(database)] == [("scheduled", 0), ("scheduled", 0)]


async def test_a_claim_abandoned_by_a_crashed_process_is_taken_over_after_the_lease(started, database, settings):
    app0 = make_app(database, settings)
    oid = await owner(app0)
    now = utcnow()
    put(database, oid, "abandoned", now - timedelta(minutes=20), state="delivering",
        claimed_at=now - timedelta(minutes=11), claimed_by="dead-process")
    put(database, oid, "in flight elsewhere", now - timedelta(minutes=2), state="delivering",
        claimed_at=now - timedelta(minutes=1), claimed_by="live-process")
    sched, sender = await started()
    assert await wait_for(lambda: len(sender.sent) == 1, timeout=5)
    await asyncio.sleep(0.5)
    [text] = sender.texts()
    assert text.startswith("⏰ Reminder, 20 minutes late: “abandoned”")
    assert text.endswith("(I was interrupted while sending this earlier, so you may have seen it already.)")
    assert [(r.state, r.claimed_by) for r in rows(database)] == [
        ("delivered", sched.delivery.holder), ("delivering", "live-process"),
    ]


def test_the_claim_is_one_conditional_update_that_only_one_holder_wins(database):
    from bot.memory.owners import ensure_owner

    now = utcnow()
    with database.session() as s:
        oid = ensure_owner(s, "console", "u1")
        rid = insert(s, oid, ChatRef("console", "u1", "u1"), "x", now - timedelta(seconds=1), "UTC", None).id
    with database.session() as s:
        assert rows_db.claim(s, rid, "A", now, 0) is not None
    with database.session() as s:
        assert rows_db.claim(s, rid, "B", now, 0) is None
    # a cancel while A is sending wins: A's mark finds nothing to mark
    with database.session() as s:
        assert cancel_row(s, oid, rid)[0] is True
    with database.session() as s:
        assert rows_db.mark_sent(s, rid, "A", now, None) is False
        assert s.get(Reminder, rid).state == "cancelled"


# --- buttons and repeats ---------------------------------------------------------------------


async def test_snooze_makes_a_new_reminder_and_done_acknowledges(started, database, settings):
    clock = Clock(datetime(2026, 3, 2, 11, 0, tzinfo=UTC))
    app, sender = await started(clock=clock, sweep_seconds=3600)
    await app.core.handle_message(msg("/timezone Europe/Paris"))
    await app.core.handle_message(msg("/remind in 10 minutes to stretch"))
    await app.core.handle_message(msg("/remind in 20 minutes to drink water"))
    first, second = rows(database)
    clock.advance(minutes=10)
    assert await app.delivery.deliver(first.id) is True
    assert await app.delivery.deliver(first.id) is False  # already delivered: nothing happens
    _, out = sender.sent[0]

    [snoozed] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(out, "Snooze 10"), message_id="r1"))
    assert snoozed.edit_of == "r1"
    assert snoozed.text == "💤 Snoozed “stretch” until Monday 2 March 2026 at 12:20 (Europe/Paris)."
    [refused] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(out, "Done"), message_id="r1"))
    assert refused.notice == "Another button of this message was already chosen; this one did nothing."
    again = rows(database)[-1]
    assert (again.text, again.state, again.due_at, again.recurrence) == ("stretch", "scheduled", clock() + timedelta(minutes=10), None)
    assert app.delivery.has_timer(again.id)

    clock.advance(minutes=10)
    assert await app.delivery.deliver(second.id) is True
    _, out2 = sender.sent[1]
    [done] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(out2, "Done"), message_id="r2"))
    assert done.text == "✅ Done: “drink water”"
    assert rows(database)[1].state == "delivered"


async def test_a_recurring_reminder_goes_back_to_scheduled_at_its_next_occurrence(started, database):
    clock = Clock(datetime(2026, 3, 2, 11, 0, tzinfo=UTC))
    app, sender = await started(clock=clock, sweep_seconds=3600)
    await app.core.handle_message(msg("/timezone Europe/Paris"))
    await app.core.handle_message(msg("remind me every day at 8 to take vitamins"))
    [r] = rows(database)
    assert r.due_at == datetime(2026, 3, 3, 7, 0, tzinfo=UTC)
    clock.now = r.due_at
    assert await app.delivery.deliver(r.id) is True
    _, out = sender.sent[0]
    assert out.text == (
        "⏰ Reminder: “take vitamins”\n"
        "Repeats every day at 08:00; next: Wednesday 4 March 2026 at 08:00 (Europe/Paris)."
    )
    [r] = rows(database)
    assert r.state == "scheduled" and r.due_at == datetime(2026, 3, 4, 7, 0, tzinfo=UTC) and r.delivered_at is not None
    assert app.delivery.has_timer(r.id)
    [done] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(out, "Done")))
    assert done.text == "✅ Done: “take vitamins”\nNext time: Wednesday 4 March 2026 at 08:00 (Europe/Paris)."
    # the bot is down for three days: one delivery, marked missed, then the next future one
    clock.now = datetime(2026, 3, 7, 9, 30, tzinfo=UTC)
    assert await app.delivery.deliver(r.id) is True
    assert sender.sent[1][1].text.startswith("⏰ Missed reminder (3 days 2 hours late): “take vitamins”")
    assert rows(database)[0].due_at == datetime(2026, 3, 8, 7, 0, tzinfo=UTC)


async def test_stopping_leaves_pending_reminders_scheduled_and_a_start_rebuilds_their_timers(started, database):
    app, _ = await started()
    await app.core.handle_message(msg("/remind in 1 hour to stretch"))
    [r] = rows(database)
    assert app.delivery.has_timer(r.id)
    await app.timers.stop()
    assert not app.delivery.has_timer(r.id)
    assert rows(database)[0].state == "scheduled"
    await app.timers.start()
    assert app.delivery.has_timer(r.id)


# --- generic jobs ----------------------------------------------------------------------------


async def test_add_interval_job_runs_repeatedly_and_never_overlaps(started):
    sched, _ = await started()
    running = 0
    peak = 0
    runs = 0

    async def slow() -> None:
        nonlocal running, peak, runs
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.25)
        running -= 1
        runs += 1

    sched.timers.add_interval_job("close_quiet_conversations", 0.1, slow)
    await asyncio.sleep(1.2)
    assert runs >= 2 and peak == 1


async def test_a_job_cancelled_before_it_started_is_not_left_running_or_unawaited(started):
    """A periodic job whose task is cancelled before its first step (the scheduler stopping,
    or the loop closing, right after the timer fired) leaves no coroutine that was never
    awaited and does not stay marked as running (which would skip every later run)."""
    import gc
    import warnings

    sched, _ = await started()
    calls = 0

    async def job() -> None:
        nonlocal calls
        calls += 1

    fire = None
    sched.timers.add_interval_job("tidy", 3600, job)
    for aps_job in sched.timers._aps.get_jobs():
        if aps_job.id == "job:tidy":
            fire = aps_job.func
    assert fire is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await fire()  # the timer fires: the run is spawned as a task ...
        spawned = [t for t in sched.timers._tasks if t.get_name() == "tidy"]
        assert len(spawned) == 1
        spawned[0].cancel()  # ... and is cancelled before it ever ran
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        del spawned  # the last reference to the task: an unawaited coroutine is reported now
        gc.collect()
    assert calls == 0
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert "tidy" not in sched.timers._running_jobs
    await fire()  # the next firing runs
    await asyncio.sleep(0.05)
    assert calls == 1


async def test_the_purge_job_removes_deleted_text_after_the_undo_window(database, db_backend):
    settings = make_settings(database_url=db_backend[0], undo_window_seconds=0)
    app = make_app(database, settings)
    oid = await app.memory.owner_for("console", "u1")
    saved = await app.memory.remember(oid, "My locker code is 4711")
    await app.memory.delete(oid, saved.memory.id)
    assert await purge_deleted(app.db, app.memory) == 1
    with database.session() as s:
        m = s.get(Memory, saved.memory.id)
        assert m.text == "" and m.purged_at is not None


async def test_a_sender_gone_mid_delivery_gives_the_claim_back_without_counting_an_attempt(started, database, settings):
    app0 = make_app(database, settings)
    put(database, await owner(app0), "stretch", utcnow() - timedelta(seconds=1))
    app, sender = await started(sweep_seconds=3600)

    async def gone(chat, message):  # the terminal chat ended between the claim and the send
        raise LookupError("no sender registered for platform 'console'")

    sender.send = gone
    [r] = rows(database)
    await app.delivery.deliver(r.id)  # may already be in flight from the start sweep; then this is a no-op
    assert await wait_for(lambda: rows(database)[0].state == "scheduled" and rows(database)[0].claimed_by is None, 3)
    [r] = rows(database)
    assert (r.attempts, r.last_error) == (0, None)
