"""/link and /unlink through the core's two entries, on real databases (SQLite, and PostgreSQL
when reachable): codes, the merge through the save path, refusals, the limit on failed tries,
races, an interrupted merge, and what each side keeps after /unlink.

Identities are named by platform strings ("telegram", "discord") as the adapters would send
them; the wire itself is covered by tests/test_cross_platform.py.
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import timedelta

from sqlalchemy import text as sql
from sqlmodel import select

from bot.core.core import REFUSALS
from bot.events import ButtonPress, ChatRef, Incoming, Outgoing
from bot.memory.writing import linking as tx
from bot.core.buttons import ClaimStatus
from bot.storage.models import LinkCode, utcnow

TG, DC = "telegram", "discord"
CODE = re.compile(r"Your link code: ([A-Z0-9]{5}-[A-Z0-9]{5})")
PAST = "Mark older as past (recommended)"
NOT_YOURS = REFUSALS[ClaimStatus.NOT_YOURS]


# --- helpers ------------------------------------------------------------------------------------


def msg(platform: str, user: str, text: str, *, group: bool = False) -> Incoming:
    return Incoming(
        platform=platform,
        chat_id=f"g-{platform}" if group else user,
        user_id=user,
        text=text,
        display_name=user.capitalize(),
        is_group=group,
        message_id="m1",
    )


async def say(core, platform: str, user: str, text: str, **kw) -> list[Outgoing]:
    return await core.handle_message(msg(platform, user, text, **kw))


async def say1(core, platform: str, user: str, text: str, **kw) -> Outgoing:
    outs = await say(core, platform, user, text, **kw)
    assert len(outs) == 1, [o.text for o in outs]
    return outs[0]


async def code_of(core, platform: str, user: str) -> str:
    out = await say1(core, platform, user, "/link")
    found = CODE.search(out.text)
    assert found, out.text
    return found.group(1)


async def press(core, platform: str, user: str, out: Outgoing, label: str) -> list[Outgoing]:
    token = next(b.token for b in out.all_buttons if b.label == label)
    return await core.handle_press(ButtonPress(platform=platform, chat_id=user, user_id=user, token=token, message_id="q1",
                                               display_name=user.capitalize()))


async def link(core, platform: str, user: str, code: str, **kw) -> list[Outgoing]:
    """/link CODE, then "Yes, link them" on the question that says whose account it is."""
    asked = await say1(core, platform, user, f"/link {code}", **kw)
    assert asked.text.startswith("That code was shown by the Telegram account"), asked.text
    assert [b.label for b in asked.all_buttons] == ["Yes, link them", "Cancel"]
    return await press(core, platform, user, asked, "Yes, link them")


async def owner(core, platform: str, user: str) -> int | None:
    return await core.memory.owner_for(platform, user, create=False)


async def listed(core, platform: str, user: str, which: str = "all") -> str:
    """The list's text (for "review", the pending-questions note after it is left out)."""
    return (await say(core, platform, user, f"/memories {which}"))[0].text


def rows(database, query: str, **params) -> list[tuple]:
    with database.session() as s:
        return [tuple(r) for r in s.execute(sql(query), params)]


def memory_state(database) -> list[tuple]:
    return rows(database, "SELECT id, owner_id, text, status, deleted_at FROM memory ORDER BY id")


def identities(database) -> list[tuple]:
    return rows(database, "SELECT platform, user_id, owner_id, home_owner_id FROM identity ORDER BY id")


class Pushes:
    """A Sender for one platform that records what the core pushes (the outbox contract)."""

    def __init__(self) -> None:
        self.sent: list[tuple[ChatRef, Outgoing]] = []

    async def send(self, chat: ChatRef, message: Outgoing) -> str | None:
        self.sent.append((chat, message))
        return str(len(self.sent))

    async def typing(self, chat: ChatRef) -> None:
        return None


# --- codes ------------------------------------------------------------------------------------


def test_codes_are_random_unambiguous_and_normalised() -> None:
    codes = {tx.new_code() for _ in range(2000)}
    assert len(codes) == 2000  # 49 bits: no repeats in a sample this size
    assert all(len(c) == 10 and set(c) <= set(tx.CODE_ALPHABET) for c in codes)
    assert not set("01ILO") & set(tx.CODE_ALPHABET)
    assert tx.display_code("ABCDEFGHJK") == "ABCDE-FGHJK"
    assert tx.normalize_code(" abcde-fghjk") == "ABCDEFGHJK"
    assert not tx.well_formed("ABCDE0GHJK") and not tx.well_formed("ABCDE")


async def test_code_is_private_in_groups_bound_to_its_owner_and_replaced_by_a_new_one(core, database) -> None:
    out = await say1(core, TG, "alice", "/link", group=True)
    assert out.private and "10 minutes" in out.text
    first = CODE.search(out.text).group(1)  # type: ignore[union-attr]
    alice = await owner(core, TG, "alice")
    with database.session() as s:
        [row] = s.exec(select(LinkCode)).all()
    assert (row.code, row.owner_id, row.platform, row.user_id) == (first.replace("-", ""), alice, TG, "alice")
    assert row.expires_at - row.created_at == timedelta(minutes=10) and row.used_at is None

    second = await code_of(core, TG, "alice")
    assert second != first
    assert [r[0] for r in rows(database, "SELECT code FROM link_code")] == [second.replace("-", "")]
    await say(core, DC, "bob", "hi")
    refused = await say1(core, DC, "bob", f"/link {first}")
    assert "doesn't match" in refused.text
    assert await owner(core, DC, "bob") != alice


# --- linking ----------------------------------------------------------------------------------


async def test_link_merges_through_the_save_path_and_asks_about_disagreements(core, database) -> None:
    pushes = Pushes()
    core.outbox.register(TG, pushes)
    await say(core, TG, "alice", "remember: I live in London")
    await say(core, TG, "alice", "remember: I like green tea")
    await say(core, DC, "ally", "remember: I live in Paris")
    await say(core, DC, "ally", "remember: I like green tea")  # the same fact on both sides
    ally_home = await owner(core, DC, "ally")
    assert ally_home is not None
    await core.memory.remember(ally_home, "I play chess on Sundays", source="chat", confidence=0.7)

    code = await code_of(core, TG, "alice")
    outs = await link(core, DC, "ally", code.lower())  # case does not matter
    summary, question = outs
    assert "Linked!" in summary.text and "Telegram account (Alice)" in summary.text
    assert "brought over 2 memories" in summary.text and "1 I already knew" in summary.text
    assert "may change something" in summary.text
    assert "I live in London" in question.text and "I live in Paris" in question.text
    assert [b.label for b in question.all_buttons] == ["Keep both", PAST, "Replace older (deletes it)", "Discard newer"]

    alice = await owner(core, TG, "alice")
    assert await owner(core, DC, "ally") == alice
    both = await listed(core, TG, "alice"), await listed(core, DC, "ally")
    assert both[0] == both[1]
    assert all(t in both[0] for t in ("I live in Paris", "I play chess on Sundays", "I live in London"))
    assert both[0].count("I like green tea") == 1
    # source and confidence kept, provenance recorded
    [(source, confidence, ref)] = rows(
        database, "SELECT source, confidence, source_ref FROM memory WHERE owner_id = :o AND text LIKE 'I play chess%'", o=alice
    )
    assert (source, confidence) == ("chat", 0.7) and ref.startswith(f"link:{ally_home}:")
    # the home owner is untouched while linked
    assert {r[0] for r in rows(database, "SELECT text FROM memory WHERE owner_id = :o", o=ally_home)} == {
        "I live in Paris", "I like green tea", "I play chess on Sundays",
    }

    # the question is the joined account's to answer; the outcome shows on both sides
    [outcome] = await press(core, DC, "ally", question, PAST)
    assert "now past" in outcome.text
    assert "I live in London" in await listed(core, TG, "alice", "historical")
    # the person who showed the code is told, privately, on their platform
    [(chat, note)] = pushes.sent
    assert chat == ChatRef(TG, "alice", "alice") and note.private
    assert "Discord account (Ally)" in note.text and "/unlink" in note.text


async def test_wrong_expired_used_and_own_codes_change_nothing_and_say_so(core, database) -> None:
    await say(core, TG, "alice", "remember: I live in London")
    await say(core, DC, "bob", "remember: I live in Paris")
    await say(core, DC, "carol", "remember: I live in Rome")
    before_memories, before_ids = memory_state(database), identities(database)

    wrong = await say1(core, DC, "bob", "/link ABCDE-FGHJK")
    assert "doesn't match" in wrong.text and "4 tries left" in wrong.text

    code = await code_of(core, TG, "alice")
    own = await say1(core, TG, "alice", f"/link {code}")
    assert "nothing to link" in own.text

    database_code = code.replace("-", "")
    with database.session() as s:
        s.execute(sql("UPDATE link_code SET expires_at = :t WHERE code = :c"), {"t": utcnow() - timedelta(seconds=1), "c": database_code})
    expired = await say1(core, DC, "bob", f"/link {code}")
    assert "no longer valid" in expired.text and "3 tries left" in expired.text
    assert memory_state(database) == before_memories and identities(database) == before_ids

    fresh = await code_of(core, TG, "alice")
    assert "Linked!" in (await link(core, DC, "bob", fresh))[0].text
    used = await say1(core, DC, "carol", f"/link {fresh}")
    assert "already used" in used.text
    assert await owner(core, DC, "carol") not in (await owner(core, TG, "alice"), None)
    assert "I live in London" not in await listed(core, DC, "carol")
    # the try with its own code was not counted as a failure; the others were
    kinds = [k for (k,) in rows(database, "SELECT kind FROM action WHERE kind = 'link_failed'")]
    assert len(kinds) == 3


async def test_five_failed_tries_lock_even_the_right_code_for_the_window(core, database) -> None:
    await say(core, DC, "mallory", "hi")
    code = await code_of(core, TG, "alice")
    answers = [(await say1(core, DC, "mallory", f"/link ZZZZZ-ZZZZ{c}")).text for c in "23456"]
    assert "0 tries left" in answers[-1]
    locked = await say1(core, DC, "mallory", f"/link {code}")
    assert "Too many" in locked.text and "10 minute" in locked.text
    assert await owner(core, DC, "mallory") != await owner(core, TG, "alice")
    assert rows(database, "SELECT used_at FROM link_code") == [(None,)]  # the code was not even tried

    # ten minutes later (the failures are aged rather than waited for) the right code works
    with database.session() as s:
        s.execute(sql("UPDATE action SET created_at = :t WHERE kind = 'link_failed'"), {"t": utcnow() - timedelta(minutes=11)})
    assert "Linked!" in (await link(core, DC, "mallory", code))[0].text


async def test_linked_accounts_cannot_join_elsewhere_and_that_says_nothing_about_the_code(core, database) -> None:
    code = await code_of(core, TG, "alice")
    await link(core, DC, "ally", code)
    other = await code_of(core, TG, "carol")
    refused = await say1(core, DC, "ally", f"/link {other}")
    assert "already linked" in refused.text and "Telegram account (Alice)" in refused.text
    refused = await say1(core, TG, "alice", f"/link {other}")  # someone joined alice: she cannot leave
    assert "already share" in refused.text and "other way round" in refused.text
    # the same refusal for a code that does not exist: nothing is learned about the real one
    assert (await say1(core, DC, "ally", "/link ABCDE-FGHJK")).text.startswith("This account is already linked")
    assert rows(database, "SELECT used_at FROM link_code WHERE user_id = 'carol'") == [(None,)]
    assert rows(database, "SELECT count(*) FROM action WHERE kind = 'link_failed'") == [(0,)]
    assert "Linked!" in (await link(core, DC, "carl", other))[0].text


async def test_two_people_typing_one_code_at_once_link_exactly_one(core, database) -> None:
    code = await code_of(core, TG, "alice")
    for user in ("bob", "carol", "dave", "erin", "frank"):
        await say(core, DC, user, "hi")

    def claim(user: str) -> tx.Claimed:
        with database.session() as s:
            return tx.claim_code(s, DC, user, code)

    # straight at the transaction, from several executor threads (truly concurrent on PostgreSQL)
    results = await asyncio.gather(*(database.run(claim, u) for u in ("bob", "carol", "dave")))
    assert sorted(r.outcome.value for r in results) == ["linked", "used", "used"]
    # and through the core's entry
    again = await code_of(core, TG, "alice")
    outs = await asyncio.gather(link(core, DC, "erin", again), link(core, DC, "frank", again))
    texts = sorted(o[0].text for o in outs)
    assert texts[0].startswith("Linked!") and "already used" in texts[1]
    alice = await owner(core, TG, "alice")
    joined = rows(database, "SELECT user_id FROM identity WHERE owner_id = :o AND platform = 'discord'", o=alice)
    assert len(joined) == 2


async def test_past_memories_keep_their_chain_and_undo_does_not_drop_what_was_brought(core) -> None:
    await say(core, DC, "ally", "remember: I drive a VW Golf")
    await say1(core, DC, "ally", "/memories")
    await say(core, DC, "ally", "/update 1 I drive a Tesla Model 3")
    await say(core, DC, "ally", "remember: I was born in Lyon")
    await say(core, DC, "ally", "/memories current")
    await say(core, DC, "ally", "/forget 2")  # deleted before the link: it stays deleted
    code = await code_of(core, TG, "alice")
    [summary] = await link(core, DC, "ally", code)
    assert "brought over 2 memories" in summary.text

    historical = await listed(core, TG, "alice", "historical")
    assert "1. I drive a VW Golf" in historical
    history = (await say1(core, TG, "alice", "/history 1")).text
    assert "I drive a Tesla Model 3" in history  # replaced_by survived the copy
    assert "Lyon" not in await listed(core, TG, "alice")
    assert "nothing to undo" in (await say1(core, DC, "ally", "/undo")).text
    assert "I drive a Tesla Model 3" in await listed(core, TG, "alice", "current")


async def test_an_interrupted_merge_is_finished_by_the_next_link(core, database) -> None:
    await say(core, TG, "alice", "remember: I like tea")
    await say(core, DC, "ally", "remember: I have a dog named Rex")
    code = await code_of(core, TG, "alice")
    # the process dies right after the identity switch committed, before any memory was copied
    with database.session() as s:
        assert tx.claim_code(s, DC, "ally", code).outcome is tx.Outcome.LINKED
    assert "Rex" not in await listed(core, DC, "ally")

    outs = await say(core, DC, "ally", "/link")
    assert CODE.search(outs[0].text) and "finished bringing over" in outs[1].text
    assert "I have a dog named Rex" in await listed(core, TG, "alice")
    again = await say(core, DC, "ally", "/link")
    assert len(again) == 1 and "Already linked here: your Telegram account (Alice)" in again[0].text
    alice = await owner(core, TG, "alice")
    assert rows(database, "SELECT count(*) FROM memory WHERE owner_id = :o AND text LIKE '%Rex%'", o=alice) == [(1,)]


# --- unlinking --------------------------------------------------------------------------------


async def test_unlink_returns_what_was_brought_with_its_changes_and_leaks_nothing(core, database) -> None:
    await say(core, TG, "alice", "remember: I live in London")
    await say(core, TG, "alice", "remember: I like jasmine tea")
    for fact in ("I live in Paris", "I have a dog named Rex", "My car is a red Fiat", "I have a cat"):
        await say(core, DC, "ally", f"remember: {fact}")
    alice, ally_home = await owner(core, TG, "alice"), await owner(core, DC, "ally")
    code = await code_of(core, TG, "alice")
    _, question = await link(core, DC, "ally", code)
    await press(core, DC, "ally", question, PAST)  # London is past, Paris current

    # while linked: corrections, a fact marked past, a deletion, new facts from both sides
    numbered = await listed(core, DC, "ally")
    number = {line.split(". ", 1)[1]: line.split(".")[0] for line in numbered.splitlines() if ". " in line}
    await say(core, DC, "ally", f"/edit {number['I have a dog named Rex']} I have a dog named Rexy")
    await say(core, DC, "ally", "/memories")
    numbered = await listed(core, DC, "ally")
    number = {line.split(". ", 1)[1]: line.split(".")[0] for line in numbered.splitlines() if ". " in line}
    await say(core, DC, "ally", f"/past {number['I have a cat']}")
    await say(core, DC, "ally", "/memories")
    numbered = await listed(core, DC, "ally")
    number = {line.split(". ", 1)[1]: line.split(".")[0] for line in numbered.splitlines() if ". " in line}
    await say(core, TG, "alice", "/memories")  # alice's numbers are her own list
    await say(core, DC, "ally", f"/forget {number['My car is a red Fiat']}")
    await say(core, DC, "ally", "remember: I work at ACME")
    await say(core, TG, "alice", "remember: I like jazz")

    out = await say1(core, DC, "ally", "/unlink")
    assert "own memory again" in out.text and "the 3 memories it brought in are back" in out.text
    assert "with the 2 changes you made" in out.text and "1 you deleted while linked is deleted here too" in out.text
    assert "2 memories saved while linked stay with the other account" in out.text
    assert await owner(core, DC, "ally") == ally_home and await owner(core, TG, "alice") == alice

    mine = await listed(core, DC, "ally")
    assert "I live in Paris" in mine and "I have a dog named Rexy" in mine
    assert "I have a cat" in await listed(core, DC, "ally", "historical")
    for other_side in ("London", "jasmine", "ACME", "jazz", "Fiat"):
        assert other_side not in mine
    theirs = await listed(core, TG, "alice")
    assert "I like jasmine tea" in theirs and "I work at ACME" in theirs and "I like jazz" in theirs
    assert "I live in London" in await listed(core, TG, "alice", "historical")  # the person's answer stands
    for brought in ("Paris", "Rex", "cat", "Fiat"):
        assert brought not in theirs
    # not just hidden: the copies' text is gone from the other side's rows and events
    leftovers = rows(
        database,
        "SELECT text FROM memory WHERE owner_id = :o AND (text LIKE '%Paris%' OR text LIKE '%Rex%' OR text LIKE '%Fiat%' OR text LIKE '%cat%')",
        o=alice,
    )
    assert leftovers == []
    events = rows(database, "SELECT before_json, after_json, note FROM memory_event WHERE owner_id = :o", o=alice)
    assert not any("Rex" in (b or "") + (a or "") or "Fiat" in (b or "") + (a or "") for b, a, _ in events)
    # the deletion made while linked is a deletion at home too (undo window, then purged)
    [(deleted_at,)] = rows(database, "SELECT deleted_at FROM memory WHERE owner_id = :o AND text LIKE '%Fiat%'", o=ally_home)
    assert deleted_at is not None
    exported = json.loads((await say1(core, DC, "ally", "/export")).file.data)  # type: ignore[union-attr]
    assert not any("London" in m["text"] or "jazz" in m["text"] for m in exported["memories"])
    # buttons of the shared memory are no longer the joined account's
    refused = await press(core, DC, "ally", question, "Keep both")
    assert refused[0].notice == REFUSALS[ClaimStatus.NOT_YOURS]
    assert "isn't linked" in (await say1(core, DC, "ally", "/unlink")).text


async def test_an_unanswered_question_is_voided_and_nothing_stays_unsure(core) -> None:
    await say(core, TG, "alice", "remember: I live in London")
    await say(core, DC, "ally", "remember: I live in Paris")
    code = await code_of(core, TG, "alice")
    await link(core, DC, "ally", code)
    assert "I live in London" in await listed(core, TG, "alice", "review")
    await say1(core, TG, "alice", "/unlink")  # from the side that showed the code
    assert "I live in London" in await listed(core, TG, "alice", "current")
    assert "I live in Paris" in await listed(core, DC, "ally", "current")
    assert "Nothing is waiting" in await listed(core, DC, "ally", "review")


async def test_unlink_from_the_account_that_showed_the_code_sends_everyone_home(core, database) -> None:
    await say(core, TG, "alice", "remember: I like tea")
    await say(core, DC, "ally", "remember: I have a dog")
    await say(core, "console", "al", "remember: I have a bike")
    await link(core, DC, "ally", await code_of(core, TG, 'alice'))
    await link(core, "console", "al", await code_of(core, TG, 'alice'))
    assert len({await owner(core, p, u) for p, u in ((TG, "alice"), (DC, "ally"), ("console", "al"))}) == 1

    out = await say1(core, TG, "alice", "/unlink")
    assert "Discord account (Ally)" in out.text and "terminal account (Al)" in out.text
    assert len({await owner(core, p, u) for p, u in ((TG, "alice"), (DC, "ally"), ("console", "al"))}) == 3
    assert "bike" not in await listed(core, TG, "alice") and "tea" not in await listed(core, "console", "al")
    assert "I have a bike" in await listed(core, "console", "al") and "I have a dog" in await listed(core, DC, "ally")
    assert all(home is None for *_, home in identities(database))


async def test_a_code_asked_for_by_an_account_that_left_is_void_and_relinking_works(core) -> None:
    await say(core, TG, "alice", "remember: I like tea")
    await say(core, DC, "ally", "remember: I have a dog")
    await link(core, DC, "ally", await code_of(core, TG, 'alice'))
    stale = await code_of(core, DC, "ally")  # a code for the shared memory, asked by the joined side
    await say(core, DC, "ally", "/unlink")
    refused = await say1(core, DC, "zed", f"/link {stale}")
    assert "nothing was linked" in refused.text and "tea" not in await listed(core, DC, "zed")

    [summary] = await link(core, DC, "ally", await code_of(core, TG, 'alice'))
    assert "brought over 1 memory" in summary.text
    assert (await listed(core, TG, "alice")).count("I have a dog") == 1
    await say(core, DC, "ally", "/unlink")
    assert "I have a dog" in await listed(core, DC, "ally") and "dog" not in await listed(core, TG, "alice")


async def test_forget_me_while_linked_also_forgets_the_dormant_memories(core, database) -> None:
    """Found while building /unlink: /forget_me wiped only the shared owner, so the joined
    account's dormant home memories came back on /unlink."""
    await say(core, TG, "alice", "remember: I like tea")
    await say(core, DC, "ally", "remember: I have a dog named Rex")
    await link(core, DC, "ally", await code_of(core, TG, 'alice'))
    ask = await say1(core, DC, "ally", "/forget_me")
    [done] = await press(core, DC, "ally", ask, "Yes, delete everything now (no undo)")
    assert "deleted everything" in done.text
    await say(core, DC, "ally", "/unlink")
    assert "nothing yet" in await listed(core, DC, "ally") and "nothing yet" in await listed(core, TG, "alice")
    assert rows(database, "SELECT count(*) FROM memory") == [(0,)]


async def test_after_unlink_undo_cannot_reopen_a_question_about_a_memory_that_left(core, database) -> None:
    await say(core, TG, "alice", "remember: I live in London")
    await say(core, DC, "ally", "remember: I live in Paris")
    _, question = await link(core, DC, "ally", await code_of(core, TG, 'alice'))
    await press(core, DC, "ally", question, PAST)  # London past, replaced by the copy of Paris
    await say(core, DC, "ally", "/unlink")
    await say(core, TG, "alice", "/undo")
    assert "I live in London" in await listed(core, TG, "alice", "historical")
    assert "Nothing is waiting" in await listed(core, TG, "alice", "review")
    alice = await owner(core, TG, "alice")
    assert rows(database, "SELECT count(*) FROM conflict WHERE owner_id = :o AND status = 'pending'", o=alice) == [(0,)]


async def test_a_typed_code_says_whose_account_it_joins_and_nothing_happens_before_yes(core, database) -> None:
    """Issue 17, finding 11: a typed /link code handed over all your memories at once, with no
    word about whose account you were joining (a code pasted from a stranger's message)."""
    await say(core, TG, "alice", "remember: I live in London")
    await say(core, DC, "bob", "remember: my bank PIN hint is the aardvark")
    before_memories, before_ids = memory_state(database), identities(database)
    code = await code_of(core, TG, "alice")

    asked = await say1(core, DC, "bob", f"/link {code}")
    assert asked.text.startswith("That code was shown by the Telegram account “Alice”.")
    assert "everything this account knows goes there" in asked.text and "Link them?" in asked.text
    assert memory_state(database) == before_memories and identities(database) == before_ids
    assert rows(database, "SELECT used_at FROM link_code") == [(None,)]  # not used by asking

    # someone else cannot press Bob's question; Cancel changes nothing
    [refused] = await press(core, DC, "mallory", asked, "Yes, link them")
    assert refused.notice == NOT_YOURS and not refused.text
    [cancelled] = await press(core, DC, "bob", asked, "Cancel")
    assert cancelled.text == "Nothing was linked." and cancelled.edit_of == "q1"
    assert memory_state(database) == before_memories and identities(database) == before_ids
    assert "bank PIN" not in await listed(core, TG, "alice")

    # asked again, "Yes" links; the question is edited into the answer
    outs = await link(core, DC, "bob", code)
    assert "Linked!" in outs[0].text and outs[0].edit_of == "q1"
    assert await owner(core, DC, "bob") == await owner(core, TG, "alice")

    # a code that expired between the question and the press is refused then
    code2 = await code_of(core, TG, "carol")
    asked = await say1(core, DC, "dave", f"/link {code2}")
    with database.session() as s:
        s.execute(sql("UPDATE link_code SET expires_at = :t WHERE code = :c"),
                  {"t": utcnow() - timedelta(seconds=1), "c": code2.replace("-", "")})
    [late] = await press(core, DC, "dave", asked, "Yes, link them")
    assert "no longer valid" in late.text
    assert await owner(core, DC, "dave") != await owner(core, TG, "carol")
