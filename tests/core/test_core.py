"""The core through its two entries, as an adapter would use it, on real databases."""

from __future__ import annotations

import asyncio
import re

from sqlalchemy import text as sql

from bot.events import ButtonPress, Incoming, Outgoing


def msg(text: str, user: str = "u1", *, chat: str | None = None, group: bool = False, addressed: bool = True, **kw) -> Incoming:
    return Incoming(
        platform="console",
        chat_id=chat or user,
        user_id=user,
        text=text,
        display_name=user,
        is_group=group,
        addressed_to_bot=addressed,
        message_id=kw.pop("message_id", "m1"),
        **kw,
    )


def press(token: str, user: str = "u1", message_id: str = "q1") -> ButtonPress:
    return ButtonPress(platform="console", chat_id=user, user_id=user, token=token, message_id=message_id)


def only(outs: list[Outgoing]) -> Outgoing:
    assert len(outs) == 1, outs
    return outs[0]


def button(out: Outgoing, label_start: str) -> str:
    for b in out.all_buttons:
        if b.label.startswith(label_start):
            return b.token
    raise AssertionError(f"no button {label_start!r} in {[b.label for b in out.all_buttons]}")


async def test_save_is_confirmed_quoting_the_stored_text_and_listed_once(core):
    out = only(await core.handle_message(msg("remember:   I live   in London ")))
    assert out.text == "Saved: “I live in London”"
    listing = only(await core.handle_message(msg("/memories")))
    assert listing.text.count("I live in London") == 1 and "1. I live in London" in listing.text


async def test_unaddressed_group_messages_are_never_stored(core, database):
    assert await core.handle_message(msg("remember: secret plan", group=True, addressed=False, chat="g1")) == []
    assert await core.handle_message(msg("I moved to Oslo", group=True, addressed=False, chat="g1")) == []
    with database.session() as s:
        for table in ("memory", "message_log", "identity"):
            assert s.execute(sql(f"SELECT count(*) FROM {table}")).scalar() == 0, table


async def test_memory_answers_in_a_group_are_private(core):
    out = only(await core.handle_message(msg("remember: I like jazz", group=True, chat="g1")))
    assert out.private
    listing = only(await core.handle_message(msg("/memories", group=True, chat="g1")))
    assert listing.private and "I like jazz" in listing.text
    help_out = only(await core.handle_message(msg("/help", group=True, chat="g1")))
    assert not help_out.private


async def test_conflict_question_four_buttons_and_mark_older_as_past(core):
    await core.handle_message(msg("remember: I live in London"))
    q = only(await core.handle_message(msg("remember: I moved to Paris")))
    labels = [b.label for b in q.all_buttons]
    assert labels == ["Keep both", "Mark older as past (recommended)", "Replace older (deletes it)", "Discard newer"]
    assert "London" in q.text and "Paris" in q.text
    review = await core.handle_message(msg("/memories review"))
    assert "I live in London" in review[0].text  # unsure while the question is pending

    outcome = only(await core.handle_press(press(button(q, "Mark older"))))
    assert outcome.edit_of == "q1" and "now past" in outcome.text
    assert [b.label for b in outcome.all_buttons] == ["Undo"]
    hist = only(await core.handle_message(msg("/memories historical")))
    assert "1. I live in London" in hist.text
    history = only(await core.handle_message(msg("/history 1")))
    assert "I moved to Paris" in history.text and "historical" in history.text

    # replaying any button of the settled question changes nothing
    again = only(await core.handle_press(press(button(q, "Discard"))))
    assert again.notice and not again.text
    current = only(await core.handle_message(msg("/memories current")))
    assert "I moved to Paris" in current.text and "London" not in current.text

    undone = only(await core.handle_press(press(button(outcome, "Undo"))))
    assert "Undone" in undone.text and len(undone.all_buttons) == 4  # the question is open again
    review = only(await core.handle_message(msg("/memories review")))
    assert "1. I live in London — may be replaced by “I moved to Paris”" in review.text
    assert [b.label for b in review.all_buttons] == ["Ask about 1"]  # one numbering for both


async def test_each_resolution(core):
    expectations = {
        "Keep both": ({"I live in London", "I moved to Paris"}, set()),
        "Replace older": ({"I moved to Paris"}, set()),
        "Discard newer": ({"I live in London"}, set()),
    }
    for i, (label, (current, historical)) in enumerate(expectations.items()):
        user = f"p{i}"
        await core.handle_message(msg("remember: I live in London", user))
        q = only(await core.handle_message(msg("remember: I moved to Paris", user)))
        only(await core.handle_press(press(button(q, label), user)))
        cur = only(await core.handle_message(msg("/memories current", user))).text
        assert {t for t in ("I live in London", "I moved to Paris") if t in cur} == current, label
        assert "nothing yet" in only(await core.handle_message(msg("/memories historical", user))).text


async def test_foreign_forged_and_unknown_presses_change_nothing(core):
    await core.handle_message(msg("remember: I live in London", "alice"))
    q = only(await core.handle_message(msg("remember: I moved to Paris", "alice")))
    token = button(q, "Replace")
    await core.handle_message(msg("hi", "bob"))  # bob is known to the bot
    refused = only(await core.handle_press(press(token, "bob")))
    assert refused.notice and "isn't yours" in refused.notice and not refused.text
    stranger = only(await core.handle_press(press(token, "stranger")))
    assert stranger.notice and not stranger.text
    for forged in ["", "x" * 500, "AAAAAAAAAAAA", "'; DROP TABLE memory;--", "\u202e🙂"]:
        out = only(await core.handle_press(press(forged, "alice")))
        assert out.notice and not out.text
    # alice's question is still pending and answerable
    assert "now past" in only(await core.handle_press(press(button(q, "Mark older"), "alice"))).text


async def test_numbers_and_commands_never_reach_another_person(core):
    await core.handle_message(msg("remember: alice secret", "alice"))
    await core.handle_message(msg("/memories", "alice"))
    for command in ["/forget 1", "/history 1", "/past 1", "/restore 1", "/edit 1 hacked", "/update 1 hacked"]:
        out = only(await core.handle_message(msg(command, "bob")))
        assert "no memory number 1" in out.text
    assert "alice secret" in only(await core.handle_message(msg("/memories", "alice"))).text
    assert "alice secret" not in only(await core.handle_message(msg("/export", "bob"))).file.data.decode()


async def test_forget_me_needs_confirmation(core):
    await core.handle_message(msg("remember: I live in Oslo"))
    ask = only(await core.handle_message(msg("/forget_me")))
    only(await core.handle_press(press(button(ask, "Cancel"))))
    assert "Oslo" in only(await core.handle_message(msg("/memories"))).text
    ask = only(await core.handle_message(msg("/forget_me")))
    done = only(await core.handle_press(press(button(ask, "Yes"))))
    assert "deleted everything" in done.text
    assert "nothing yet" in only(await core.handle_message(msg("/memories"))).text


async def test_forget_then_undo_via_button(core):
    await core.handle_message(msg("remember: my locker is 12"))
    await core.handle_message(msg("/memories"))
    out = only(await core.handle_message(msg("/forget 1")))
    assert "Deleted" in out.text
    assert "nothing yet" in only(await core.handle_message(msg("/memories"))).text
    only(await core.handle_press(press(button(out, "Undo"))))
    assert "my locker is 12" in only(await core.handle_message(msg("/memories"))).text


async def test_malformed_and_unknown_commands_get_help_and_change_nothing(core, database):
    for text in ["/forget", "/edit x", "/memories everything", "/nope", "/settings judge maybe"]:
        out = only(await core.handle_message(msg(text)))
        assert out.text and "/" in out.text
    with database.session() as s:
        assert s.execute(sql("SELECT count(*) FROM memory")).scalar() == 0


async def test_settings_switch_conflict_review_off(core):
    """Issue 16, item 5: "review — ask before a new fact replaces an old one: off" read like
    "replace without asking"; it means "save without checking". The reply says so, and the
    change is undoable like any other."""
    out = only(await core.handle_message(msg("/settings review off")))
    assert out.text.startswith(
        "Turned review off (new facts are saved without any check, so contradicting facts can both stay current)."
    )
    assert re.search(r"• review — check each new fact against what I know and ask before one replaces another: "
                     r"OFF \(new facts are saved without any check", out.text)
    assert "ask before a new fact replaces an old one: off" not in out.text
    await core.handle_message(msg("remember: I live in London"))
    plain = only(await core.handle_message(msg("remember: I moved to Paris")))
    assert [b.label for b in plain.all_buttons] == ["Undo"] and plain.text.startswith("Saved")
    # /undo walks back the saves, then the setting
    assert only(await core.handle_message(msg("/undo"))).text == "Undone saving “I moved to Paris”."
    assert only(await core.handle_message(msg("/undo"))).text == "Undone saving “I live in London”."
    assert only(await core.handle_message(msg("/undo"))).text == "Undone turning review off."
    on = only(await core.handle_message(msg("/settings")))
    assert re.search(r"• review — .*: on\n", on.text)
    await core.handle_message(msg("remember: I live in London"))
    asked = only(await core.handle_message(msg("remember: I moved to Paris")))
    assert [b.label for b in asked.all_buttons][0] == "Keep both"


async def test_allowlist_refuses_politely_once_and_stores_nothing(database, settings):
    from bot.app import build_app

    s2 = settings.model_copy(update={"allowed_users": "console:alice"})
    core = build_app(s2, db=database, embedder=None, with_model=False).core
    first = await core.handle_message(msg("remember: I am mallory", "mallory"))
    assert len(first) == 1 and "private" in first[0].text
    assert await core.handle_message(msg("remember: again", "mallory")) == []
    assert only(await core.handle_message(msg("remember: I am alice", "alice"))).text.startswith("Saved")
    with database.session() as s:
        assert s.execute(sql("SELECT count(*) FROM memory")).scalar() == 1


async def test_one_persons_messages_run_in_order_and_people_run_concurrently(core):
    words = "apple bread cheese dates eggs figs grapes honey icecream jam kale lemons mango nuts olives".split()

    async def person(name: str) -> list[str]:
        await core.handle_message(msg("/settings review off", name))  # order is the point here, not conflicts
        outs = await asyncio.gather(*(core.handle_message(msg(f"remember: {name} buys {w}", name)) for w in words))
        return [o[0].text for o in outs]

    results = await asyncio.gather(*(person(f"user{n}") for n in range(6)))
    for n, texts in enumerate(results):
        assert all(t.startswith("Saved") for t in texts), texts
        listing = only(await core.handle_message(msg("/memories", f"user{n}"))).text
        assert re.findall(r"buys (\w+)", listing) == words  # saved in the order they were sent
        assert all(f"user{n} buys" in line for line in listing.splitlines()[2:])


async def test_export_and_import_as_attachments(core):
    from bot.events import Attachment

    await core.handle_message(msg("remember: I live in Oslo", "alice"))
    exported = only(await core.handle_message(msg("/export", "alice")))
    assert exported.file is not None and exported.file.filename.endswith(".json")
    missing = only(await core.handle_message(msg("/import", "bob")))
    assert "python -m bot import FILE" in missing.text  # a terminal line cannot carry the file
    bad = only(await core.handle_message(msg("/import", "bob", attachments=(Attachment("x.json", b"{nope"),))))
    assert bad.text.startswith("Nothing was imported")
    ok = only(await core.handle_message(msg("/import", "bob", attachments=(exported.file,))))
    assert "1 added" in ok.text
    assert "I live in Oslo" in only(await core.handle_message(msg("/memories", "bob"))).text


async def test_buttons_that_stand_alone_are_used_up_one_by_one(core):
    from bot.core.buttons import ButtonSpec, ClaimStatus

    o = await core.memory.owner_for("console", "u1")
    a = (await core.memory.remember(o, "I like tea")).action_id
    b = (await core.memory.remember(o, "I play chess")).action_id
    [[undo_a, undo_b]] = await core.buttons.issue(
        o, [[ButtonSpec("Undo 1", "undo", {"action_id": a}, alone=True), ButtonSpec("Undo 2", "undo", {"action_id": b}, alone=True)]]
    )
    assert (await core.buttons.claim(undo_a.token, o)).status is ClaimStatus.OK
    assert (await core.buttons.claim(undo_b.token, o)).status is ClaimStatus.OK
    assert (await core.buttons.claim(undo_a.token, o)).status is ClaimStatus.USED


async def test_locks_do_not_pile_up_for_everyone_ever_seen(core):
    import gc

    for i in range(50):
        await core.handle_message(msg("/help", f"visitor{i}"))
    gc.collect()
    assert len(core._locks) == 0
