"""The tidy job on real databases (SQLite and PostgreSQL): a crafted set of memories, what is
merged, kept, archived and removed, the event log, /undo and /restore, the fingerprint skip,
a model's junk flags, the per-owner lease, /tidy and the count trigger."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import select

from bot.events import ButtonPress
from bot.memory.writing import curator as rules
from bot.storage.leases import release, try_acquire
from bot.storage.models import Action, Memory, MemoryEvent, utcnow
from tests.conftest import make_settings
from tests.support.scheduling import button, make_app, msg, other_database


@pytest.fixture
def settings(db_backend):
    return make_settings(database_url=db_backend[0], console_user="u1", curator_every_n_memories=3)


@pytest.fixture
def rig(database, settings):
    app = make_app(database, settings)
    return app, app.curator


async def save(app, owner: int, text: str, *, days_ago: float = 0, **kw) -> int:
    result = await app.memory.remember(
        owner, text, dedupe=False, review=False, created_at=utcnow() - timedelta(days=days_ago), **kw
    )
    assert result.memory is not None
    return result.memory.id


def insert_raw(database, owner: int, text: str) -> int:
    with database.session() as s:
        m = Memory(owner_id=owner, text=text)
        s.add(m)
        s.flush()
        return m.id


def memories(database, owner: int) -> dict[int, Memory]:
    with database.session() as s:
        return {m.id: m for m in s.exec(select(Memory).where(Memory.owner_id == owner))}


def events(database, memory_id: int) -> list[tuple[str, str, str]]:
    with database.session() as s:
        rows = s.exec(select(MemoryEvent).where(MemoryEvent.memory_id == memory_id).order_by(MemoryEvent.id))
        return [(e.kind, e.actor, e.note) for e in rows]


@pytest.fixture
async def crafted(rig, database):
    """Owner A: a true duplicate pair, two near-miss pairs, an expired memory, an empty one.
    Owner B: the same words as A's duplicate."""
    app, _ = rig
    a = await app.memory.owner_for("console", "u1")
    b = await app.memory.owner_for("console", "u2")
    ids = {
        "hike_old": await save(app, a, "I love hiking in the mountains", days_ago=10, confidence=1.0),
        "hike_new": await save(app, a, "I really love hiking in the mountains", days_ago=2, confidence=0.7, source="chat"),
        "kids2": await save(app, a, "I have 2 kids", days_ago=5),
        "kids3": await save(app, a, "I have 3 kids", days_ago=1),
        "london": await save(app, a, "I live in London", days_ago=5),
        "paris": await save(app, a, "I live in Paris", days_ago=1),
        "receipts": await save(app, a, "I keep old receipts in a shoebox", days_ago=200, importance=0.05),
        "empty": insert_raw(database, a, "   "),
        "b_hike": await save(app, b, "I love hiking in the mountains", days_ago=1),
    }
    return a, b, ids


async def test_the_crafted_set(rig, crafted, database):
    app, curator = rig
    a, b, ids = crafted
    before = memories(database, a)
    report = await curator.tidy(a)

    after = memories(database, a)
    keep, merged = after[ids["hike_new"]], after[ids["hike_old"]]
    assert not keep.archived and keep.confidence == 1.0 and keep.source == "chat"  # newest source, highest confidence
    assert merged.archived and merged.replaced_by == keep.id and merged.deleted_at is None  # kept, reversible
    for near_miss in ("kids2", "kids3", "london", "paris"):
        m = after[ids[near_miss]]
        assert (m.archived, m.status, m.deleted_at, m.version) == (False, "current", None, before[m.id].version)
    assert after[ids["receipts"]].archived and after[ids["receipts"]].status == "current"
    assert after[ids["empty"]].deleted_at is not None

    # notes name memories by reference (rendered with their text only when shown)
    assert events(database, ids["hike_old"])[-1] == ("merged", "curator", f"merged into {{m{keep.id}}}")
    assert events(database, ids["hike_new"])[-1] == ("merged", "curator", f"kept; merged {{m{ids['hike_old']}}}")
    assert events(database, ids["receipts"])[-1][:2] == ("auto_archived", "curator")
    assert events(database, ids["empty"])[-1] == ("deleted", "curator", "empty text")
    with database.session() as s:
        action = s.get(Action, report.action_id)
        assert (action.actor, action.kind, action.undoable) == ("curator", "tidy", True)
        assert action.summary == "the tidy-up (1 merge, 1 removed, 1 archived)"

    # the other person is untouched: same words, no merge across owners
    other = memories(database, b)[ids["b_hike"]]
    assert not other.archived and other.version == 1

    assert report.summary() == (
        "I tidied up your memories:\n"
        "• merged “I love hiking in the mountains” into “I really love hiking in the mountains” "
        "(the same fact saved more than once)\n"
        "• removed an empty memory\n"
        "• archived “I keep old receipts in a shoebox” (unimportant and unused for 120 days)\n"
        "Archived and merged memories are under /memories archived; /restore brings one back.\n"
        "/undo reverts this tidy-up."
    )
    [listing] = await app.core.handle_message(msg("/memories archived"))
    assert "I love hiking in the mountains" in listing.text and "I keep old receipts" in listing.text


async def test_undo_reverts_a_tidy_up_and_it_is_not_redone(rig, crafted, database):
    app, curator = rig
    a, _, ids = crafted
    await app.core.handle_message(msg("/tidy"))  # the person asked for it, so /undo may revert it
    [undone] = await app.core.handle_message(msg("/undo"))
    assert undone.text == "Undone the tidy-up (1 merge, 1 removed, 1 archived)."
    after = memories(database, a)
    assert not after[ids["hike_old"]].archived and after[ids["hike_old"]].replaced_by is None
    assert not after[ids["receipts"]].archived

    again = await curator.tidy(a)
    assert again.skipped is None and not again.changed  # looked, and respected the person's undo
    after = memories(database, a)
    assert not after[ids["hike_old"]].archived and not after[ids["receipts"]].archived

    # issue 16, item 8: /tidy then said "no duplicates", which was not true
    await save(app, a, "I like tea")  # something changed, so /tidy looks again
    [told] = await app.core.handle_message(msg("/tidy"))
    assert "no duplicates" not in told.text
    assert "nothing new to merge (the 2 memories whose merge you undid stay separate, as you chose)" in told.text


async def test_plain_undo_never_reverts_a_background_tidy_instead_of_the_persons_change(rig, crafted, database):
    app, curator = rig
    a, _, ids = crafted
    [saved] = await app.core.handle_message(msg("remember: I collect stamps"))
    await curator.tidy(a)  # runs in the background after the person's save
    [undone] = await app.core.handle_message(msg("/undo"))
    assert "I collect stamps" in undone.text
    after = memories(database, a)
    assert after[ids["receipts"]].archived  # the tidy-up stays; its own Undo button or /restore reverts it


async def test_restore_brings_back_an_archived_memory_and_it_stays(rig, crafted, database):
    app, curator = rig
    a, _, ids = crafted
    await curator.tidy(a)
    [listing] = await app.core.handle_message(msg("/memories archived"))
    number = next(line.split(".")[0] for line in listing.text.splitlines() if "old receipts" in line)
    [restored] = await app.core.handle_message(msg(f"/restore {number.strip()}"))
    assert restored.text == "Restored as current: “I keep old receipts in a shoebox”"
    await save(app, a, "I like tea")  # something changed, so the next run looks again
    report = await curator.tidy(a)
    assert report.skipped is None
    assert not memories(database, a)[ids["receipts"]].archived


async def test_unchanged_memories_are_skipped_by_fingerprint_without_a_model_call(rig, database):
    app, curator = rig
    a = await app.memory.owner_for("console", "u1")
    await save(app, a, "I like tea")
    asked: list[list[int]] = []

    async def judge(owner_id, items):
        asked.append([i for i, _ in items])
        return {}

    curator._junk_judge = judge
    first = await curator.tidy(a)
    assert first.skipped is None and first.model_used and len(asked) == 1
    second = await curator.tidy(a)
    assert second.skipped == "unchanged" and len(asked) == 1
    assert second.summary() == "Nothing has changed since the last tidy-up, so there was nothing to do."
    new_id = await save(app, a, "I play the cello")
    third = await curator.tidy(a)
    assert third.skipped is None and asked[-1] == [new_id]  # only what is new is shown to the model


async def test_a_model_junk_flag_removes_only_what_is_sure_and_about_the_assistant(rig, database):
    app, curator = rig
    a = await app.memory.owner_for("console", "u1")
    jarvis = await save(app, a, "You are called Jarvis")
    tea = await save(app, a, "I like tea")
    french = await save(app, a, "You should answer me in French")

    async def judge(owner_id, items):
        return {jarvis: 0.97, tea: 0.99, french: 0.6}

    curator._junk_judge = judge
    report = await curator.tidy(a)
    assert report.removed == ("You are called Jarvis",)
    after = memories(database, a)
    assert after[jarvis].deleted_at is not None
    assert after[tea].deleted_at is None and after[french].deleted_at is None


async def test_a_model_that_does_not_answer_changes_nothing_and_is_asked_again_next_time(rig, database):
    app, curator = rig
    a = await app.memory.owner_for("console", "u1")
    await save(app, a, "You are called Jarvis")
    calls = 0

    async def down(owner_id, items):
        nonlocal calls
        calls += 1
        return None

    curator._junk_judge = down
    assert not (await curator.tidy(a)).changed
    assert (await curator.tidy(a)).skipped is None and calls == 2


async def test_the_curator_never_runs_twice_at_once_for_one_owner(rig, crafted, database):
    app, curator = rig
    a, _, ids = crafted
    name = f"curator:{a}"
    assert try_acquire(database, name, "another-process", timedelta(minutes=5))
    busy = await curator.tidy(a)
    assert busy.skipped == "busy" and not busy.changed
    assert not memories(database, a)[ids["hike_old"]].archived
    release(database, name, "another-process")

    # two processes at once: one merge in total
    db2 = other_database(database)
    try:
        sched2 = make_app(db2, app.settings)
        r1, r2 = await asyncio.gather(curator.tidy(a), sched2.curator.tidy(a))
        assert len(r1.merged) + len(r2.merged) == 1
        assert {r1.skipped, r2.skipped} <= {None, "busy", "unchanged"}
    finally:
        db2.dispose()
    with database.session() as s:
        merges = s.exec(select(MemoryEvent).where(MemoryEvent.kind == "merged")).all()
        assert len(merges) == 2  # one keeper, one merged


def test_a_plan_made_before_the_person_changed_a_memory_drops_that_part(database, settings):
    from bot.memory.owners import ensure_owner

    now = utcnow()
    with database.session() as s:
        a = ensure_owner(s, "console", "u1")
        m1 = Memory(owner_id=a, text="I love hiking in the mountains", created_at=now - timedelta(days=3))
        m2 = Memory(owner_id=a, text="I really love hiking in the mountains", created_at=now - timedelta(days=1))
        s.add(m1)
        s.add(m2)
        s.flush()
        ids = (m1.id, m2.id)
    with database.session() as s:
        snap = rules.read_owner(s, a)
    plan = rules.decide(snap.items, now)
    assert len(plan.merges) == 1
    with database.session() as s:  # the person edits one of them meanwhile (a new version)
        s.execute(
            update(Memory).where(Memory.id == ids[0]).values(text="I love hiking in the Alps", version=Memory.version + 1)
        )
    with database.session() as s:
        report = rules.apply_plan(s, a, plan, {it.id: it.version for it in snap.items}, now)
    assert report.stale == 1 and not report.changed and report.action_id is None
    with database.session() as s:
        assert not s.get(Memory, ids[0]).archived and not s.get(Memory, ids[1]).archived


async def test_tidy_command_says_what_changed_and_offers_undo(rig, crafted, database):
    app, _ = rig
    a, _, ids = crafted
    [out] = await app.core.handle_message(msg("/tidy"))
    assert out.text.startswith("I tidied up your memories:\n• merged “I love hiking in the mountains”")
    [undone] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(out, "Undo"), message_id="t1"))
    assert undone.text == "Undone the tidy-up (1 merge, 1 removed, 1 archived)."
    assert not memories(database, a)[ids["hike_old"]].archived
    [again] = await app.core.handle_message(msg("/tidy"))
    assert again.text.startswith("I looked through your ") and again.text.endswith("Everything stays as it is.")
    assert not again.buttons


async def test_every_n_new_memories_trigger_a_run(rig, database):
    app, curator = rig
    a = await app.memory.owner_for("console", "u1")
    b = await app.memory.owner_for("console", "u2")
    await save(app, a, "I love hiking in the mountains", days_ago=1)
    await save(app, a, "I really love hiking in the mountains")
    await save(app, b, "I like tea")
    assert [r.owner_id for r in await curator.tidy_busy_owners()] == []  # two new for A, one for B: below 3
    await save(app, a, "I play the cello")
    reports = await curator.tidy_busy_owners()
    assert [r.owner_id for r in reports] == [a] and len(reports[0].merged) == 1
    assert await curator.tidy_busy_owners() == []  # counted from the last run again


async def test_the_interval_run_covers_everyone_and_skips_the_unchanged(rig, crafted):
    _, curator = rig
    a, b, _ = crafted
    first = {r.owner_id: r for r in await curator.tidy_all()}
    assert set(first) == {a, b} and first[a].changed and not first[b].changed
    second = await curator.tidy_all()
    assert {r.skipped for r in second} == {"unchanged"}


class _FakeLLM:
    """A stand-in for bot.llm.client.LLM that answers one forced tool call."""

    available = True

    def __init__(self, verdicts):
        self.verdicts = verdicts
        self.requests: list[dict] = []

    async def create(self, **kw):
        from types import SimpleNamespace

        self.requests.append(kw)
        block = SimpleNamespace(type="tool_use", name=kw["tool_choice"]["name"], input={"items": self.verdicts}, id="t1")
        return SimpleNamespace(content=[block], stop_reason="tool_use")


async def test_the_model_junk_judge_quotes_memories_as_data_and_keeps_only_asked_ids(database, settings):
    from bot.features.tidy import llm_junk_judge

    llm = _FakeLLM([
        {"id": 7, "junk": True, "probability": 0.95},
        {"id": 8, "junk": False, "probability": 0.1},
        {"id": 99, "junk": True, "probability": 1.0},  # not asked: ignored
    ])
    judge = llm_junk_judge(llm, settings)
    got = await judge(1, [(7, "You are called <b>Jarvis</b>"), (8, "I like tea")])
    assert got == {7: 0.95}
    [request] = llm.requests
    assert request["job"] == "tidy" and request["owner_id"] == 1
    content = request["messages"][0]["content"]
    assert '<memory id="7">\nYou are called &lt;b&gt;Jarvis&lt;/b&gt;\n</memory>' in content
    llm.verdicts = [{"id": 7, "junk": "maybe"}]  # invalid output: no answer, not a guess
    assert await judge(1, [(7, "You are called Jarvis")]) is None


async def test_with_a_model_the_curator_uses_it(rig, database):
    app, curator = rig
    a = await app.memory.owner_for("console", "u1")
    jarvis = await save(app, a, "You are called Jarvis")
    curator.llm = _FakeLLM([{"id": jarvis, "junk": True, "probability": 0.99}])
    report = await curator.tidy(a)
    assert report.model_used and report.removed == ("You are called Jarvis",)


async def test_one_persons_failure_never_stops_tidying_for_the_others(rig, database, caplog):
    """Finding 3: a memory the rules choked on (an imported number of 5,000 digits) raised out of
    the job, so every later person was never tidied. Now that number is harmless; and a person
    whose tidy-up fails for any reason is logged and skipped."""
    app, curator = rig
    a = await app.memory.owner_for("console", "u1")
    b = await app.memory.owner_for("console", "u2")
    c = await app.memory.owner_for("console", "u3")
    huge = "My lucky number is " + "7" * 5000
    insert_raw(database, a, huge)  # as an import writes it: typed facts are shorter
    insert_raw(database, a, huge + ".")  # a true duplicate of it
    await save(app, b, "I love hiking in the mountains")
    await save(app, b, "I really love hiking in the mountains")
    await save(app, c, "I like tea")
    first = {r.owner_id: r for r in await curator.tidy_all()}
    assert set(first) == {a, b, c}
    assert len(first[a].merged) == 1 and len(first[b].merged) == 1

    # any other failure of one person: logged, and the next person is still tidied
    await save(app, b, "I play the cello")
    await save(app, b, "I play the cello.")
    await save(app, c, "I drink green tea every morning")
    real = curator._decide

    def failing(owner_id, *args):
        if owner_id == a:
            raise RuntimeError("the rules choked")
        return real(owner_id, *args)

    await save(app, a, "I own a red bicycle")
    curator._decide = failing  # type: ignore[method-assign]
    reports = {r.owner_id: r for r in await curator.tidy_all()}
    assert a not in reports and len(reports[b].merged) == 1 and c in reports
    assert any("owner %s" % a in r.getMessage() and r.exc_info for r in caplog.records)
    assert await curator.tidy_busy_owners() is not None  # the count job isolates people too


async def test_a_person_with_more_memories_than_one_run_allows_is_tidied_over_several_runs(rig, database):
    app, curator = rig
    a = await app.memory.owner_for("console", "u1")
    items = [(f"I collected {w} stamps from the {w} series", utcnow() - timedelta(days=1)) for w in
             ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"] * 20]
    await app.memory.remember_many(a, [(f"{t} number {i}", d) for i, (t, d) in enumerate(items)])
    await save(app, a, "I love hiking in the mountains", days_ago=2)
    await save(app, a, "I really love hiking in the mountains", days_ago=1)
    curator.decide_budget = 0.0  # one batch of merge keys per run
    runs = []
    while True:
        report = await curator.tidy(a)
        runs.append(report)
        if report.skipped != "budget":
            break
        assert "Nothing was changed yet" in report.summary()
        # left due for the count job (run every minute), so the work goes on by itself
        assert a in await curator._tx(rules.owners_due_by_count, settings_n(curator))
        assert len(memories(database, a)) == 202 and not any(m.archived for m in memories(database, a).values())
    assert len(runs) == 4  # 202 memories, 64 keys a run
    assert len(runs[-1].merged) == 1
    assert a not in await curator._tx(rules.owners_due_by_count, settings_n(curator))


def settings_n(curator) -> int:
    return curator.settings.curator_every_n_memories


async def test_a_large_plan_is_applied_in_parts_on_one_action_that_undo_reverts(rig, database, monkeypatch):
    """Thousands of changes in one transaction held the storage thread for seconds; in parts,
    others' work runs in between. It is still one tidy-up: one Action, one /undo."""
    app, curator = rig
    a = await app.memory.owner_for("console", "u1")
    for i in range(12):
        insert_raw(database, a, f"I collected stamps from country {i} in the series number {i}")
        insert_raw(database, a, f"I collected stamps from country {i} in the series number {i}.")
    monkeypatch.setattr(rules, "PART_SIZE", 4)
    transactions = []
    real = rules.apply_part

    def counting(*args, **kw):
        transactions.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(rules, "apply_part", counting)
    report = await curator.tidy(a)
    assert len(report.merged) == 12 and len(transactions) == 6
    with database.session() as s:
        kinds = s.exec(select(Action.kind).where(Action.owner_id == a, Action.kind == "tidy")).all()
    assert kinds == ["tidy"]
    assert sum(not m.archived for m in memories(database, a).values()) == 12
    assert (await curator.tidy(a)).skipped == "unchanged"  # the fingerprint of the parts' outcome
    await app.memory.claim_action(a, report.action_id)
    undone = await app.memory.undo(a)
    assert undone.ok
    assert sum(not m.archived for m in memories(database, a).values()) == 24


async def test_automatic_collection_is_held_during_a_tidy_up_and_always_given_back(rig, database):
    """Full garbage collections during a big tidy-up stopped the loop for 100-200 ms each; the
    curator holds them (young collections go on) and gives them back, also after a failure."""
    import gc

    app, curator = rig
    a = await app.memory.owner_for("console", "u1")
    await save(app, a, "I love hiking in the mountains", days_ago=1)
    await save(app, a, "I really love hiking in the mountains")
    assert gc.isenabled()
    during: list[bool] = []
    real = curator._decide

    def spy(owner_id, *args):
        during.append(gc.isenabled())
        if len(during) == 2:
            raise RuntimeError("the rules choked")
        return real(owner_id, *args)

    curator._decide = spy  # type: ignore[method-assign]
    both = await asyncio.gather(curator.tidy(a), curator.tidy(a))  # the second finds the lease busy
    assert sorted(str(r.skipped) for r in both) == ["None", "busy"]
    assert during == [False] and gc.isenabled()
    await save(app, a, "I play the cello")
    with pytest.raises(RuntimeError):
        await curator.tidy(a)
    assert during == [False, False] and gc.isenabled()
