"""Several bot processes on one database (docs/ARCHITECTURE.md section 9), PostgreSQL and one SQLite file.

Two independent Database / MemoryService / Core instances, each with its own engine and its own
per-person locks, are what two processes are to the database; the last tests use two real
`python -m bot chat` processes as well. What must hold when both change one person's memories at
the same moment: no lost update. Exactly one of two competing changes wins; the other is told
("already marked as past", "already settled", "changed at the same moment"), and the event log
stays one unbroken chain per memory.

How it is enforced (see bot.storage.models.Memory.version, settle.resolve, buttons.claim):
optimistic locking on memories (version_id_col: every UPDATE checks the version it read), and
conditional UPDATEs that claim a conflict question or a button before anything else changes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text as sql
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session

from bot.app import build_app
from bot.core.core import Core
from bot.events import ButtonPress, Incoming, Outgoing
from bot.storage.db import ConcurrentUpdate, Database
from bot.storage.models import Memory
from tests.conftest import make_settings
from tests.support.processes import ChatProcess, bot_database, bot_env, event_chains_are_linear  # noqa: F401

CHANGED_AT_SAME_MOMENT = ConcurrentUpdate.person_message


def pump_all(procs: tuple[ChatProcess, ...], predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    """Read the output of several processes until `predicate` holds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out:\n" + "\n---\n".join("".join(p.output) for p in procs))
        for p in procs:
            p._take(0.1)


def msg(text: str, user: str = "alice") -> Incoming:
    return Incoming(platform="console", chat_id=user, user_id=user, text=text, display_name=user, message_id="m")


def press(token: str, user: str = "alice") -> ButtonPress:
    return ButtonPress(platform="console", chat_id=user, user_id=user, token=token, message_id="q")


def only(outs: list[Outgoing]) -> Outgoing:
    assert len(outs) == 1, outs
    return outs[0]


def said(out: Outgoing) -> str:
    return out.text or out.notice or ""


def button(out: Outgoing, label_start: str) -> str:
    return next(b.token for b in out.all_buttons if b.label.startswith(label_start))


@dataclass
class Pair:
    """Two bot instances on one database: what two processes are to it."""

    dbs: tuple[Database, Database]
    cores: tuple[Core, Core]

    @property
    def a(self) -> Core:
        return self.cores[0]

    @property
    def b(self) -> Core:
        return self.cores[1]

    def rows(self, query: str, **params: Any) -> list[Any]:
        with self.dbs[0].engine.connect() as conn:
            return list(conn.execute(sql(query), params).all())

    async def owner(self, user: str = "alice") -> int:
        owner_id = await self.a.memory.owner_for("console", user)
        assert owner_id is not None
        return owner_id


@pytest.fixture
async def pair(db_backend: tuple[str, str | None]) -> AsyncIterator[Pair]:
    url, schema = db_backend
    settings = make_settings(database_url=url)
    dbs = (Database(url, pg_schema=schema), Database(url, pg_schema=schema))
    cores = tuple(build_app(settings, db=db, embedder=None, with_model=False).core for db in dbs)
    try:
        yield Pair(dbs, cores)  # type: ignore[arg-type]
    finally:
        for core in cores:
            await core.drain(timeout=5)
        for db in dbs:
            db.dispose()


def pause_after_first_read(
    monkeypatch: pytest.MonkeyPatch, module: Any, engine: Any, *, before: bool = False
) -> tuple[threading.Event, threading.Event]:
    """Make the first `get_memory` that `module` does on `engine` stop right after reading (or
    just before, with `before`), until released: the deterministic form of "the other process
    wrote between my read and my write"."""
    real = module.get_memory
    reached, release = threading.Event(), threading.Event()
    state = {"paused": False}

    def paused(s: Session, *args: Any, **kwargs: Any) -> Any:
        if s.get_bind() is engine and not state["paused"]:
            state["paused"] = True
            if before:
                reached.set()
                assert release.wait(30), "never released"
                return real(s, *args, **kwargs)
            row = real(s, *args, **kwargs)
            reached.set()
            assert release.wait(30), "never released"
            return row
        return real(s, *args, **kwargs)

    monkeypatch.setattr(module, "get_memory", paused)
    return reached, release


async def wait_event(event: threading.Event) -> None:
    assert await asyncio.get_running_loop().run_in_executor(None, event.wait, 30)


# --- the mechanism ---------------------------------------------------------------------------------


async def test_a_stale_write_is_refused_and_versions_move_by_one(pair: Pair) -> None:
    """Two sessions on two engines read version n; the first write wins, the second raises
    instead of silently overwriting. And each change moves the version by exactly one (the
    manual increments are gone, so nothing double-counts)."""
    o = await pair.owner()
    mem = pair.a.memory
    m = (await mem.remember(o, "I work at Initech")).memory
    assert m is not None
    versions = [pair.rows("SELECT version FROM memory WHERE id = :i", i=m.id)[0][0]]
    await mem.edit(o, m.id, "I work at Initrode")
    versions.append(pair.rows("SELECT version FROM memory WHERE id = :i", i=m.id)[0][0])
    await mem.mark_past(o, m.id)
    versions.append(pair.rows("SELECT version FROM memory WHERE id = :i", i=m.id)[0][0])
    await mem.restore(o, m.id)
    versions.append(pair.rows("SELECT version FROM memory WHERE id = :i", i=m.id)[0][0])
    assert versions == [1, 2, 3, 4]

    s1 = Session(pair.dbs[0].engine, expire_on_commit=False)
    s2 = Session(pair.dbs[1].engine, expire_on_commit=False)
    try:
        one, two = s1.get(Memory, m.id), s2.get(Memory, m.id)
        assert one is not None and two is not None and one.version == two.version == 4
        one.text = "first writer"
        s1.commit()
        two.text = "second writer"
        with pytest.raises(StaleDataError):
            s2.commit()
    finally:
        s1.close()
        s2.close()
    assert (await mem.get(o, m.id)).text == "first writer"  # type: ignore[union-attr]

    # through Database.run the same refusal is a ConcurrentUpdate (a StorageError with its own
    # sentence for the person), never a raw SQLAlchemy error
    def write_stale() -> None:
        with pair.dbs[1].session() as s:
            row = s.get(Memory, m.id)
            assert row is not None
            with pair.dbs[0].session() as other:  # "another process" commits in between
                other_row = other.get(Memory, m.id)
                assert other_row is not None
                other_row.text = "meanwhile"
            row.text = "too late"

    with pytest.raises(ConcurrentUpdate):
        await pair.dbs[1].run(write_stale)
    assert (await mem.get(o, m.id)).text == "meanwhile"  # type: ignore[union-attr]
    assert pair.rows("SELECT version FROM memory WHERE id = :i", i=m.id)[0][0] == 6


async def test_using_a_memory_in_chat_is_not_a_change(pair: Pair) -> None:
    """Recall counts uses with one SQL increment: the version stays (Undo of the person's last
    change still works after a chat turn quoted the memory), and counts from two processes at
    the same moment add up."""
    o = await pair.owner()
    m = (await pair.a.memory.remember(o, "My bike is a green Brompton")).memory
    changed = await pair.a.memory.edit(o, m.id, "My bike is a red Brompton")
    assert changed is not None
    await asyncio.gather(*(core.memory.recall(o, "what bike do I have?") for core in pair.cores for _ in range(10)))
    uses, version = pair.rows("SELECT uses, version FROM memory WHERE id = :i", i=m.id)[0]
    assert uses == 20 and version == 2
    done = await pair.b.memory.undo(o, changed.action_id)
    assert done.ok, done.message
    assert (await pair.a.memory.get(o, m.id)).text == "My bike is a green Brompton"  # type: ignore[union-attr]


# --- deterministic races (the other process writes between our read and our write) ---------------------


async def test_edit_that_lost_the_race_is_refused_and_says_so(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.memory.writing import changes

    o = await pair.owner()
    await pair.a.handle_message(msg("remember: I live in Lodnon"))
    await pair.a.handle_message(msg("/memories"))
    reached, release = pause_after_first_read(monkeypatch, changes, pair.dbs[0].engine)

    slow = asyncio.create_task(pair.a.handle_message(msg("/edit 1 I live in London")))
    await wait_event(reached)
    fast = only(await pair.b.handle_message(msg("/edit 1 I live in Londinium")))
    release.set()
    late = only(await slow)

    assert fast.text == "Corrected: “I live in Londinium”"
    assert late.text == CHANGED_AT_SAME_MOMENT
    assert [m.text for m in await pair.a.memory.list(o)] == ["I live in Londinium"]
    kinds = [r[0] for r in pair.rows("SELECT kind FROM memory_event WHERE owner_id = :o ORDER BY id", o=o)]
    assert kinds == ["created", "edited"]
    event_chains_are_linear(pair.dbs[0], o)


async def test_mark_past_that_lost_the_race_finds_it_already_past(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.memory.writing import changes

    o = await pair.owner()
    await pair.a.handle_message(msg("remember: I am training for a marathon"))
    await pair.a.handle_message(msg("/memories"))
    reached, release = pause_after_first_read(monkeypatch, changes, pair.dbs[0].engine)

    slow = asyncio.create_task(pair.a.handle_message(msg("/past 1")))
    await wait_event(reached)
    fast = only(await pair.b.handle_message(msg("/past 1")))
    release.set()
    late = only(await slow)

    assert fast.text.startswith("Marked as past")
    assert late.text == "“I am training for a marathon” is already marked as past."
    kinds = [r[0] for r in pair.rows("SELECT kind FROM memory_event WHERE owner_id = :o ORDER BY id", o=o)]
    assert kinds == ["created", "marked_past"]
    event_chains_are_linear(pair.dbs[0], o)


async def test_two_answers_to_one_question_exactly_one_applies(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    """Process A reads the question (pending), process B settles it, then A goes on: A must not
    apply its answer on top."""
    from bot.memory.writing import settle

    o = await pair.owner()
    await pair.a.handle_message(msg("remember: I live in London"))
    q = only(await pair.a.handle_message(msg("remember: I moved to Paris")))
    # B shows the same question (as another process would, through "ask again")
    conflict_id = only(await pair.b.memory.pending_conflicts(o)).id
    from bot.features.memory_commands import conflict_message
    from bot.core.core import Turn

    turn = Turn(owner_id=o, platform="console", chat=msg("x").chat, is_group=False, user_id="alice")
    q_b = await conflict_message(pair.b, turn, conflict_id)
    assert q_b is not None
    reached, release = pause_after_first_read(monkeypatch, settle, pair.dbs[0].engine)

    slow = asyncio.create_task(pair.a.handle_press(press(button(q, "Mark older"))))
    await wait_event(reached)
    fast = only(await pair.b.handle_press(press(button(q_b, "Discard newer"))))
    release.set()
    late = only(await slow)

    assert "was discarded" in said(fast)
    assert said(late) == "That question was already settled (Discard newer). Your answer “Mark older as past” changed nothing."
    current = [m.text for m in await pair.a.memory.list(o)]
    assert current == ["I live in London"]
    actions = pair.rows("SELECT kind FROM action WHERE owner_id = :o AND kind LIKE 'resolve_%'", o=o)
    assert [a[0] for a in actions] == ["resolve_discard"]
    event_chains_are_linear(pair.dbs[0], o)


async def test_an_answer_racing_discard_newer_is_told_it_was_settled(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reads the question (pending); B answers "Discard newer", which deletes the new fact; A
    then finds the new fact gone. The answer must say what happened (settled elsewhere), not
    that the fact vanished."""
    from bot.core.core import Turn
    from bot.features.memory_commands import conflict_message
    from bot.memory.writing import settle

    o = await pair.owner()
    await pair.a.handle_message(msg("remember: I live in London"))
    q = only(await pair.a.handle_message(msg("remember: I moved to Paris")))
    turn = Turn(owner_id=o, platform="console", chat=msg("x").chat, is_group=False, user_id="alice")
    q_b = await conflict_message(pair.b, turn, only(await pair.b.memory.pending_conflicts(o)).id)
    assert q_b is not None
    reached, release = pause_after_first_read(monkeypatch, settle, pair.dbs[0].engine, before=True)

    slow = asyncio.create_task(pair.a.handle_press(press(button(q, "Keep both"))))
    await wait_event(reached)
    fast = only(await pair.b.handle_press(press(button(q_b, "Discard newer"))))
    release.set()
    late = only(await slow)
    assert "was discarded" in said(fast)
    assert said(late) == "That question was already settled (Discard newer). Your answer “Keep both” changed nothing."


# --- real timing: many races at once, outcome checked whatever the interleaving -------------------


async def test_concurrent_mark_past_from_two_instances(pair: Pair) -> None:
    o = await pair.owner()
    facts = ["I collect stamps", "I play the cello", "I keep bees", "I speak Welsh", "I run marathons",
             "I bake sourdough", "I grow tomatoes", "I restore bicycles"]
    await pair.a.handle_message(msg("/settings review off"))
    for f in facts:
        await pair.a.handle_message(msg(f"remember: {f}"))
    await pair.a.handle_message(msg("/memories"))
    results = await asyncio.gather(
        *(core.handle_message(msg(f"/past {n}")) for n in range(1, len(facts) + 1) for core in pair.cores)
    )
    texts = [only(r).text for r in results]
    for n in range(len(facts)):
        first, second = sorted(texts[2 * n : 2 * n + 2])
        assert first.startswith("Marked as past") and second.endswith("is already marked as past."), (first, second)
    marks = pair.rows("SELECT memory_id, count(*) FROM memory_event WHERE kind = 'marked_past' GROUP BY memory_id")
    assert len(marks) == len(facts) and all(n == 1 for _, n in marks)
    event_chains_are_linear(pair.dbs[0], o)


async def test_concurrent_different_answers_from_two_instances(pair: Pair) -> None:
    """Six people, each with one question; both instances answer each question differently at
    the same moment. Exactly one answer per question applies."""
    answers = [("Mark older", "Discard newer"), ("Keep both", "Replace older"), ("Replace older", "Mark older")]
    questions: list[tuple[str, Outgoing, Outgoing]] = []
    for i in range(6):
        user = f"p{i}"
        o = await pair.owner(user)
        await pair.a.handle_message(msg("remember: I live in London", user))
        q = only(await pair.a.handle_message(msg("remember: I moved to Paris", user)))
        from bot.core.core import Turn
        from bot.features.memory_commands import conflict_message

        turn = Turn(owner_id=o, platform="console", chat=msg("x", user).chat, is_group=False, user_id=user)
        q_b = await conflict_message(pair.b, turn, only(await pair.b.memory.pending_conflicts(o)).id)
        assert q_b is not None
        questions.append((user, q, q_b))
    presses = []
    for i, (user, q, q_b) in enumerate(questions):
        first, second = answers[i % len(answers)]
        presses += [pair.a.handle_press(press(button(q, first), user)), pair.b.handle_press(press(button(q_b, second), user))]
    outs = [said(only(r)) for r in await asyncio.gather(*presses)]
    for i in range(len(questions)):
        pair_outs = outs[2 * i : 2 * i + 2]
        assert sum(o.startswith(("Done", "Kept both")) for o in pair_outs) == 1, pair_outs
        assert sum(o.startswith("That question was already settled") for o in pair_outs) == 1, pair_outs
    per_conflict = pair.rows("SELECT conflict_id, count(*) FROM action WHERE kind LIKE 'resolve_%' GROUP BY conflict_id")
    assert len(per_conflict) == len(questions) and all(n == 1 for _, n in per_conflict)
    assert pair.rows("SELECT count(*) FROM conflict WHERE status != 'settled'")[0][0] == 0
    for user, _, _ in questions:
        event_chains_are_linear(pair.dbs[0], await pair.owner(user))


async def test_one_button_pressed_in_two_processes_at_once_works_once(pair: Pair) -> None:
    """A double tap that reaches two processes: the token is claimed by one conditional update,
    so the second press is "already done" and the undo runs once."""
    o = await pair.owner()
    undos = []
    for i in range(6):
        await pair.a.handle_message(msg(f"remember: my locker number {i} is {100 + i}"))
        await pair.a.handle_message(msg("/memories"))
        undos.append(only(await pair.a.handle_message(msg("/forget 1"))))
    outs = await asyncio.gather(*(core.handle_press(press(button(u, "Undo"))) for u in undos for core in pair.cores))
    said_ = [said(only(r)) for r in outs]
    for i in range(len(undos)):
        two = said_[2 * i : 2 * i + 2]
        assert sum(s.startswith("Undone") for s in two) == 1, two
        assert sum(s == "You already pressed this button; it was done then, and nothing more happened now." for s in two) == 1, two
    assert len(await pair.a.memory.list(o)) == 6
    undone = pair.rows("SELECT count(*) FROM action WHERE kind = 'undo' AND owner_id = :o", o=o)[0][0]
    assert undone == 6


async def test_concurrent_edits_never_lose_an_update(pair: Pair) -> None:
    """Many edits of one memory from both instances at once: each either applies (and is in the
    log, chained to the one before) or is refused with the clear sentence; none vanishes."""
    o = await pair.owner()
    await pair.a.handle_message(msg("remember: my favourite number is 0"))
    await pair.a.handle_message(msg("/memories"))
    outs = await asyncio.gather(
        *(pair.cores[i % 2].handle_message(msg(f"/edit 1 my favourite number is {i + 1}")) for i in range(16))
    )
    texts = [only(r).text for r in outs]
    applied = [t for t in texts if t.startswith("Corrected")]
    refused = [t for t in texts if t == CHANGED_AT_SAME_MOMENT]
    assert len(applied) + len(refused) == len(texts), texts
    assert applied
    edits = pair.rows("SELECT count(*) FROM memory_event WHERE kind = 'edited' AND owner_id = :o", o=o)[0][0]
    assert edits == len(applied)
    event_chains_are_linear(pair.dbs[0], o)


# --- two real processes ----------------------------------------------------------------------------


def test_two_chat_processes_answer_one_question_and_mark_one_memory(
    tmp_path: Path, bot_database: tuple[str, str, str | None]
) -> None:
    """`python -m bot chat` twice on one database, the same person in both: two different
    answers to one question typed at the same moment, then /past of one memory in both."""
    bot_url, test_url, schema = bot_database
    env = bot_env(tmp_path, bot_url)
    one, two = ChatProcess(tmp_path, env), ChatProcess(tmp_path, env)
    try:
        one.wait_for("Hello")
        two.wait_for("Hello")
        one.send("remember: I live in London")
        one.wait_for("Saved")
        one.send("remember: I moved to Paris")
        one.wait_for("[4] Discard newer")
        two.send("/memories review")
        two.wait_for("Ask about 1")
        two.send("1")  # "Ask about 1": the same question, with this process's own buttons
        two.wait_for("[4] Discard newer")
        one.send("2")  # Mark older as past
        two.send("4")  # Discard newer
        both = lambda: "".join(one.output) + "".join(two.output)  # noqa: E731
        pump_all((one, two), lambda: "That question was already settled" in both() and "Done:" in both())
        applied = both().count("is now past (kept in your history)") + both().count("was discarded;")
        assert (applied, both().count("That question was already settled")) == (1, 1), both()

        one.send("remember: I play the cello")
        one.wait_for("Saved")
        one.send("/memories current")
        listing = one.wait_for("I play the cello")
        number = next(line.split(".")[0].strip() for line in listing.splitlines() if "I play the cello" in line)
        one.send(f"/past {number}")
        two.send(f"/past {number}")
        marked = "Marked as past (kept in your history): “I play the cello”"
        already = "“I play the cello” is already marked as past."
        pump_all((one, two), lambda: both().count(marked) + both().count(already) >= 2)
        assert (both().count(marked), both().count(already)) == (1, 1), both()
        assert one.close() == 0 and two.close() == 0
    finally:
        one.stop()
        two.stop()

    db = Database(test_url, pg_schema=schema)
    try:
        with db.engine.connect() as conn:
            resolves = conn.execute(sql("SELECT count(*) FROM action WHERE kind LIKE 'resolve_%'")).scalar()
            marks = conn.execute(sql("SELECT count(*) FROM memory_event WHERE kind = 'marked_past' AND note = ''")).scalar()
            owner_id = conn.execute(sql("SELECT owner_id FROM identity WHERE user_id = 'tester'")).scalar()
        assert resolves == 1 and marks == 1
        event_chains_are_linear(db, owner_id)
    finally:
        db.dispose()


def test_a_reminder_due_in_two_processes_is_delivered_once(tmp_path: Path, bot_database: tuple[str, str, str | None]) -> None:
    """Both processes load the reminder at start and both timers fire: the claim in the database
    (scheduler/delivery.py) lets exactly one of them deliver it."""
    bot_url, test_url, schema = bot_database
    env = bot_env(tmp_path, bot_url)
    setter = ChatProcess(tmp_path, env)
    try:
        setter.wait_for("Hello")
        setter.send("/remind in 4 seconds to stretch")
        setter.wait_for("I'll remind you: “stretch”")
        assert setter.close() == 0
    finally:
        setter.stop()
    one, two = ChatProcess(tmp_path, env), ChatProcess(tmp_path, env)
    try:
        both = lambda: "".join(one.output) + "".join(two.output)  # noqa: E731
        pump_all((one, two), lambda: both().count("Hello") == 2)
        pump_all((one, two), lambda: "⏰ Reminder" in both(), timeout=60)
        time.sleep(1.5)  # the other process's timer has fired by now too
        for p in (one, two):
            p.drain(0.5)
        assert both().count("“stretch”") == 1, both()
        assert one.close() == 0 and two.close() == 0
    finally:
        one.stop()
        two.stop()
    db = Database(test_url, pg_schema=schema)
    try:
        with db.engine.connect() as conn:
            assert conn.execute(sql("SELECT state FROM reminder")).scalars().all() == ["delivered"]
    finally:
        db.dispose()
